//! Rate limits: `#[tool(rate_limit = "...")]` and `Toolbox::with_rate_limit`, counted per caller
//! and tenant; the refusal with its delay through `Toolbox`, over HTTP (429, `Retry-After`) and
//! over MCP (`isError`), and the manifest's codes.

use envelope_core::mcp::{McpServer, serve_io};
use envelope_core::{Caller, Context, Toolbox, codes, spec::rate::RateLimit, tool};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::block_on;
use crate::http::{send, serve};

/// Sends a postcard, twice a minute per caller.
#[tool(rate_limit = "2/min")]
fn send_postcard(#[validate(length = 1..=40)] to: String) -> String {
    format!("sent to {to}")
}

/// Reads the time; limited only by its toolbox.
#[tool(read_only)]
fn clock() -> u32 {
    12
}

fn postcards() -> Toolbox {
    Toolbox::new().with(send_postcard::tool()).with(clock::tool())
}

fn call_as(toolbox: &Toolbox, cx: &Context, name: &str, args: Value) -> Value {
    block_on(toolbox.call_in(cx, name, Some(&args))).unwrap().to_value()
}

#[test]
fn a_limited_call_is_refused_with_its_delay_and_the_limit_is_per_caller_and_tenant() {
    let toolbox = postcards();
    let alice = Context::new(Caller::new("alice").with_tenant("acme"));
    for _ in 0..2 {
        assert_eq!(call_as(&toolbox, &alice, "send_postcard", json!({"to": "Bob"}))["status"], "ok");
    }
    let limited = call_as(&toolbox, &alice, "send_postcard", json!({"to": "Bob"}));
    let ms = limited["hints"]["retry_after_ms"].as_u64().unwrap();
    // The second of two a minute is admitted at once; the third after 30 s, less what passed.
    assert!((25_000..=30_000).contains(&ms), "{limited}");
    let delay = format!("{} seconds", ms.div_ceil(1000));
    assert_eq!(
        limited,
        json!({"status": "invalid", "success": false, "error_code": "RATE_LIMITED",
               "message": format!("arguments: were not read, and nothing ran: send_postcard takes at most 2 calls a minute from one caller, and this caller has made them; accepted: the same call in {delay} (hints.retry_after_ms). Try again in {delay}."),
               "hints": {"parameter": "arguments",
                         "accepted": format!("the same call in {delay} (hints.retry_after_ms)"),
                         "fix": format!("Try again in {delay}."), "retry_after_ms": ms},
               "retryable": true, "retry": "after_delay"})
    );
    // Another caller, and the same subject in another tenant, have counts of their own.
    let bob = Context::new(Caller::new("bob").with_tenant("acme"));
    assert_eq!(call_as(&toolbox, &bob, "send_postcard", json!({"to": "Al"}))["status"], "ok");
    let alice_elsewhere = Context::new(Caller::new("alice").with_tenant("globex"));
    assert_eq!(call_as(&toolbox, &alice_elsewhere, "send_postcard", json!({"to": "Al"}))["status"], "ok");
    // An unlimited tool is not counted.
    assert_eq!(call_as(&toolbox, &alice, "clock", json!({}))["status"], "ok");
}

/// A store with no room to count one more caller (its bound of other keys full of keys that
/// are no rate counts, which it never forgets for one) refuses the call in words that are
/// true: not the caller's limit, which it has not reached.
#[test]
fn a_call_the_store_has_no_room_to_count_is_never_said_to_be_past_its_callers_limit() {
    use envelope_core::call::guard::store::{Limits, MemoryStore, Store};
    let mut limits = Limits::default();
    limits.other = 1;
    let store = std::sync::Arc::new(MemoryStore::default().with_limits(limits));
    block_on(store.put("app:session", "kept", std::time::Duration::from_secs(60))).unwrap();
    let toolbox = postcards().with_store(store);
    let fresh = Context::new(Caller::new("newcomer"));
    let refused = call_as(&toolbox, &fresh, "send_postcard", json!({"to": "Bob"}));
    assert_eq!(
        refused,
        json!({"status": "invalid", "success": false, "error_code": "RATE_LIMITED",
               "message": "arguments: were not read, and nothing ran: send_postcard limits each caller's calls, and the store that counts them is full (1 other keys in all, the bound), so this call could not be counted; this caller has not reached its limit; accepted: the same call in 1 second (hints.retry_after_ms). Try again in 1 second.",
               "hints": {"parameter": "arguments",
                         "accepted": "the same call in 1 second (hints.retry_after_ms)",
                         "fix": "Try again in 1 second.", "retry_after_ms": 1000},
               "retryable": true, "retry": "after_delay"})
    );
}

#[test]
fn a_toolbox_limit_counts_every_tool_of_a_caller_and_is_listed_in_the_manifest() {
    let toolbox = postcards().with_rate_limit(RateLimit::per_second(3));
    let cx = Context::new(Caller::new("carol"));
    let answers: Vec<Value> = (0..4).map(|_| call_as(&toolbox, &cx, "clock", json!({}))).collect();
    assert!(answers[..3].iter().all(|a| a["status"] == "ok"), "{answers:?}");
    assert_eq!(answers[3]["error_code"], "RATE_LIMITED");
    assert!(answers[3]["message"].as_str().unwrap().contains("this server takes at most 3 calls a second"));
    assert!(answers[3]["hints"]["retry_after_ms"].as_u64().unwrap() <= 334, "{}", answers[3]);
    // Both limits are listed: every tool can answer RATE_LIMITED.
    for tool in toolbox.tools() {
        assert_eq!(&tool.spec().error_codes[..2], [codes::VALIDATION_ERROR, codes::RATE_LIMITED], "{}", tool.name());
    }
    let manifest = toolbox.manifest();
    let clock = manifest["tools"].as_array().unwrap().iter().find(|t| t["name"] == "clock").unwrap();
    assert!(clock["error_codes"].to_string().contains("RATE_LIMITED"), "{clock}");
    // Without a toolbox limit, only the limited tool lists it.
    let plain = postcards();
    assert!(plain.get("send_postcard").unwrap().spec().error_codes.contains(&codes::RATE_LIMITED));
    assert!(!plain.get("clock").unwrap().spec().error_codes.contains(&codes::RATE_LIMITED));
}

#[test]
fn over_http_a_limited_call_is_429_with_retry_after_in_whole_seconds_from_the_envelope() {
    block_on(async {
        let router = envelope_core::http::HttpTools::new(postcards()).retry_after_seconds(60).router();
        let addr = serve(router).await;
        for _ in 0..2 {
            let ok = send(addr, "POST", "/tools/send_postcard", &[], r#"{"to": "Bob"}"#).await;
            assert_eq!(ok.status, 200, "{}", ok.text);
        }
        let limited = send(addr, "POST", "/tools/send_postcard", &[], r#"{"to": "Bob"}"#).await;
        assert_eq!(limited.status, 429, "{}", limited.text);
        let body = limited.json();
        let ms = body["hints"]["retry_after_ms"].as_u64().unwrap();
        assert_eq!(limited.header("retry-after"), Some(ms.div_ceil(1000).to_string().as_str()));
        // Not the router's own 60, nor milliseconds.
        assert!(ms.div_ceil(1000) <= 30, "{ms}");
        assert_eq!(body["retryable"], true);
    });
}

#[test]
fn over_mcp_a_limited_call_is_an_error_result_carrying_the_same_envelope() {
    let replies = block_on(async {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_in, server_out) = tokio::io::split(server);
        let served = tokio::spawn(serve_io(McpServer::new(postcards()), server_in, server_out));
        let (output, mut input) = tokio::io::split(client);
        let mut output = BufReader::new(output);
        let mut lines = vec![
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
                "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ];
        for id in 2..=4 {
            lines.push(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "send_postcard", "arguments": {"to": "Bob"}}}));
        }
        let mut replies = std::collections::BTreeMap::new();
        for line in lines {
            input.write_all(format!("{line}\n").as_bytes()).await.unwrap();
            if line.get("id").is_some() {
                // One at a time, so the third call is the one past the limit.
                let mut reply = String::new();
                output.read_line(&mut reply).await.unwrap();
                let reply: Value = serde_json::from_str(&reply).unwrap();
                replies.insert(reply["id"].as_i64().unwrap(), reply);
            }
        }
        input.shutdown().await.unwrap();
        drop(input);
        served.await.unwrap().unwrap();
        replies
    });
    assert_eq!(replies[&3]["result"]["isError"], false);
    let limited = &replies[&4]["result"];
    assert_eq!(limited["isError"], true, "{limited}");
    let envelope = &limited["structuredContent"];
    assert_eq!(envelope["error_code"], "RATE_LIMITED");
    assert_eq!(envelope["retryable"], true);
    assert!(envelope["hints"]["retry_after_ms"].as_u64().unwrap() > 20_000, "{envelope}");
    assert!(envelope["message"].as_str().unwrap().contains("Try again in "), "{envelope}");
    let text: Value = serde_json::from_str(limited["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&text, envelope);
}

#[test]
fn the_store_counts_with_gcra() {
    use envelope_core::call::guard::store::{MemoryStore, Store};
    use envelope_core::spec::rate::RateCheck;
    let store = MemoryStore::default();
    let limit = RateLimit::per_second(4);
    block_on(async {
        for _ in 0..4 {
            assert_eq!(store.rate("k", limit).await.unwrap(), RateCheck::Allowed);
        }
        let RateCheck::Limited { retry_after } = store.rate("k", limit).await.unwrap() else { panic!("admitted") };
        assert!(retry_after <= std::time::Duration::from_millis(250), "{retry_after:?}");
        tokio::time::sleep(retry_after).await;
        assert_eq!(store.rate("k", limit).await.unwrap(), RateCheck::Allowed);
        assert!(matches!(store.rate("k", limit).await.unwrap(), RateCheck::Limited { .. }));
        // Another key is another caller.
        assert_eq!(store.rate("j", limit).await.unwrap(), RateCheck::Allowed);
    });
}

/// The upstream's own quota, with its delay.
#[derive(envelope_core::ToolError)]
enum Upstream {
    #[refuse(code = codes::RATE_LIMITED, parameter = "city", reason = "was asked about too often upstream",
             accepted = "the same city once the upstream quota refills", fix = "Ask about {rejected} later.")]
    Throttled { rejected: String, retry_after: std::time::Duration },
}

/// Reads the weather of a city from an upstream service with a quota.
#[tool(read_only)]
fn weather(#[validate(length = 1..=40)] city: String) -> Result<String, Upstream> {
    Err(Upstream::Throttled { rejected: city, retry_after: std::time::Duration::from_millis(2500) })
}

#[test]
fn a_tools_own_rate_limited_carries_its_delay_the_same_way() {
    let toolbox = Toolbox::new().with(weather::tool());
    let env = block_on(toolbox.call("weather", Some(&json!({"city": "Oslo"})))).unwrap();
    assert_eq!(env.retry_after_ms(), Some(2500));
    assert_eq!(
        env.message().unwrap(),
        "city: \"Oslo\" was asked about too often upstream; accepted: the same city once the upstream quota refills. Ask about Oslo later. Try again in 3 seconds."
    );
    assert_eq!(envelope_core::http::status(&env), 429);
    assert_eq!(env.retryable(), Some(true));
}

#[test]
fn a_limit_from_the_configuration_replaces_a_tools_own() {
    let limit: RateLimit = "1/h".parse().unwrap();
    let toolbox = postcards().with_tool_rate_limit("send_postcard", limit).with_tool_rate_limit("clock", limit);
    let cx = Context::new(Caller::new("dora"));
    assert_eq!(call_as(&toolbox, &cx, "send_postcard", json!({"to": "Al"}))["status"], "ok");
    let limited = call_as(&toolbox, &cx, "send_postcard", json!({"to": "Al"}));
    assert!(limited["message"].as_str().unwrap().contains("at most 1 call an hour"), "{limited}");
    assert!(limited["hints"]["retry_after_ms"].as_u64().unwrap() > 3_500_000, "{limited}");
    assert_eq!(call_as(&toolbox, &cx, "clock", json!({}))["status"], "ok");
    assert_eq!(call_as(&toolbox, &cx, "clock", json!({}))["error_code"], "RATE_LIMITED");
    assert!(toolbox.get("clock").unwrap().spec().error_codes.contains(&codes::RATE_LIMITED));
}

#[test]
fn a_memory_store_on_a_server_that_runs_replicas_is_named_in_a_warning() {
    let toolbox = postcards().with_replicas().with_provenance();
    let cx = Context::anonymous();
    let limited = call_as(&toolbox, &cx, "send_postcard", json!({"to": "Al"}));
    assert_eq!(
        limited["warning"],
        "This server says it runs as several replicas, but keeps approvals, idempotency keys and rate limits in one replica's memory: they do not hold across replicas."
    );
    // A call that relies on no store is not warned.
    assert!(call_as(&toolbox, &cx, "clock", json!({})).get("warning").is_none());
    // Without replicas, no warning.
    assert!(call_as(&postcards(), &cx, "send_postcard", json!({"to": "Al"})).get("warning").is_none());
}

#[test]
fn a_provider_result_carries_the_same_envelope_with_its_provenance() {
    use envelope_core::providers::{Provider, answer};
    let toolbox = postcards().with_provenance();
    let block = json!({"type": "tool_use", "id": "toolu_1", "name": "clock", "input": {}});
    let result = block_on(answer(&toolbox, Provider::Anthropic, &block));
    let content: Value = serde_json::from_str(result.message()["content"].as_str().unwrap()).unwrap();
    assert_eq!(content["provenance"]["tool"], "clock");
    assert!(content["provenance"]["call_id"].as_str().unwrap().starts_with("call_"));
}
