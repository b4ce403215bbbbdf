//! The manifest (`Toolbox::manifest`, printed by `cargo run --example manifest`): the example
//! server's pinned, and its rules on tools of the tests' own.

use envelope_core::{Code, Status, ToolError, Toolbox, codes, tool};
use serde_json::{Value, json};

use crate::tools;

#[test]
fn the_example_manifest_lists_its_tools_in_registration_order() {
    let manifest = tools::toolbox().manifest();
    let names: Vec<&str> = manifest["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "get_top_queries",
            "search_analytics",
            "create_note",
            "delete_note",
            "list_notes",
            "set_threshold",
            "confirm_action"
        ]
    );
    assert_eq!(manifest.as_object().unwrap().keys().collect::<Vec<_>>(), ["tools", "error_codes"]);
}

#[test]
fn the_example_manifest_pins_get_top_queries() {
    let manifest = tools::toolbox().manifest();
    assert_eq!(
        manifest["tools"][0],
        json!({
            "name": "get_top_queries",
            "description": "Lists the queries that spent the most time, grouped by query hash, database or application.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "hours_back": {
                        "type": "integer", "minimum": 1, "maximum": 720,
                        "description": "How far back to look, in hours."
                    },
                    "group_by": {
                        "type": "string", "enum": ["query_hash", "database", "application"],
                        "description": "What to group the statistics by."
                    },
                    "top": {
                        "type": "integer", "minimum": 1, "maximum": 100,
                        "description": "How many rows to return.", "default": 10
                    }
                },
                "required": ["hours_back", "group_by"],
                "additionalProperties": false
            },
            "outputSchema": {
                "type": "object",
                "properties": {
                    "status": {"enum": ["ok", "invalid", "error"]},
                    "success": {"type": "boolean"},
                    "data": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "key": {"type": "string"},
                                "calls": {"type": "integer", "minimum": 0},
                                "total_ms": {"type": "integer", "minimum": 0}
                            },
                            "required": ["key", "calls", "total_ms"]
                        }
                    },
                    "error_code": {"enum": ["VALIDATION_ERROR", "BACKEND_ERROR"]},
                    "message": {"type": "string"},
                    "hints": {
                        "type": "object",
                        "properties": {
                            "parameter": {"type": "string"},
                            "path": {"type": "string"},
                            "rejected": {"type": "string"},
                            "accepted": {"type": "string"},
                            "fix": {"type": "string"},
                            "suggestion": {"type": "string"},
                            "others": {"type": "array", "items": {"type": "object"}},
                            "operation": {"type": "string"},
                            "trace_id": {"type": "string"},
                            "retry_after_ms": {"type": "integer", "minimum": 0}
                        }
                    },
                    "retryable": {"type": "boolean"},
                    "retry": {"enum": ["never", "after_reread", "with_backoff", "after_delay"]},
                    "warning": {"type": "string"},
                    "provenance": {
                        "type": "object",
                        "properties": {
                            "call_id": {"type": "string"},
                            "surface": {"type": "string"},
                            "tool": {"type": "string"},
                            "tier": {"type": "integer", "minimum": 1, "maximum": 4},
                            "caller": {"type": ["string", "null"]},
                            "tenant": {"type": ["string", "null"]},
                            "approval": {"type": ["string", "null"]},
                            "replay": {"type": "boolean"}
                        },
                        "required": ["call_id", "surface", "tool", "tier", "replay"]
                    }
                },
                "required": ["status", "success"]
            },
            "annotations": {"readOnlyHint": true, "idempotentHint": true},
            "scopes": [],
            "tier": 1,
            "error_codes": [
                {"code": "VALIDATION_ERROR", "retryable": false},
                {"code": "BACKEND_ERROR", "retryable": true}
            ]
        })
    );
    // Key order is part of the contract: the document diffs cleanly.
    let keys: Vec<&String> = manifest["tools"][0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["name", "description", "inputSchema", "outputSchema", "annotations", "scopes", "tier", "error_codes"]
    );
}

#[test]
fn the_example_manifest_pins_the_code_table() {
    let manifest = tools::toolbox().manifest();
    assert_eq!(
        manifest["error_codes"],
        json!({
            "BACKEND_ERROR": {
                "status": "error",
                "meaning": "the server failed while serving a valid request",
                "action": "retry later if the tool is idempotent; otherwise check whether it took effect",
                "retryable": true,
                "retry": "with_backoff",
                "http_status": 500
            },
            "CONFIRMATION_REQUIRED": {
                "status": "needs_confirmation",
                "meaning": "the action needs a person's approval; nothing has happened yet",
                "action": "show the preview to the person and call confirm_action with the pending_action_id; never repeat the original call",
                "retryable": false,
                "retry": "never",
                "http_status": 202,
                "also_status": "error"
            },
            "CONFLICT": {
                "status": "invalid",
                "meaning": "the request conflicts with the current state",
                "action": "read the current state and send a request that fits it",
                "retryable": false,
                "retry": "after_reread",
                "http_status": 409
            },
            "IDEMPOTENCY_CONFLICT": {
                "status": "invalid",
                "meaning": "the idempotency key was already used with a different request",
                "action": "send a new idempotency key, or resend the original request unchanged",
                "retryable": false,
                "retry": "never",
                "http_status": 422
            },
            "IN_PROGRESS": {
                "status": "invalid",
                "meaning": "a call with the same idempotency key is still running; this one did nothing",
                "action": "wait a moment, then send the same call again to get the first call's answer",
                "retryable": true,
                "retry": "with_backoff",
                "http_status": 409
            },
            "NOT_FOUND": {
                "status": "invalid",
                "meaning": "the thing the request names does not exist",
                "action": "check the identifier, or list what exists first",
                "retryable": false,
                "retry": "never",
                "http_status": 404
            },
            "RATE_LIMITED": {
                "status": "invalid",
                "meaning": "too many calls in a short time",
                "action": "wait the delay given in hints, then send the same call again",
                "retryable": true,
                "retry": "after_delay",
                "http_status": 429
            },
            "VALIDATION_ERROR": {
                "status": "invalid",
                "meaning": "an argument is missing, unknown, of the wrong type, or outside its accepted set",
                "action": "fix the parameter named in hints.parameter as hints.fix says, then call again",
                "retryable": false,
                "retry": "never",
                "http_status": 400
            }
        })
    );
}

#[test]
fn a_fault_on_the_non_idempotent_example_tool_is_not_retryable() {
    let manifest = tools::toolbox().manifest();
    let create_note = &manifest["tools"][2];
    assert_eq!(create_note["name"], "create_note");
    // Creating a note adds and overwrites nothing (MCP: destructiveHint false), but a second
    // call writes a second note: not idempotent, so a fault is not retryable.
    assert_eq!(create_note["annotations"], json!({"destructiveHint": false}));
    assert_eq!(
        create_note["error_codes"],
        json!([
            {"code": "VALIDATION_ERROR", "retryable": false},
            {"code": "IDEMPOTENCY_CONFLICT", "retryable": false},
            {"code": "IN_PROGRESS", "retryable": true},
            {"code": "RATE_LIMITED", "retryable": true},
            {"code": "BACKEND_ERROR", "retryable": false}
        ])
    );
}

#[test]
fn the_manifest_schemas_are_the_tools_list_schemas() {
    let toolbox = tools::toolbox();
    let manifest = toolbox.manifest();
    for (tool, entry) in toolbox.tools().iter().zip(manifest["tools"].as_array().unwrap()) {
        assert_eq!(entry["inputSchema"], Value::Object(tool.input_schema()), "{}", tool.name());
        assert_eq!(entry["description"], tool.description());
    }
}

// --- tools of the tests' own -------------------------------------------------------------------

const ORDER_GONE: Code = Code::new("ORDER_GONE", Status::Invalid)
    .with_meaning("the order was deleted")
    .with_action("list the open orders and choose one of them")
    .with_http_status(410);

#[derive(ToolError)]
enum OrderError {
    #[refuse(code = ORDER_GONE, parameter = "id", reason = "was deleted", accepted = "the id of an open order",
             fix = "List the open orders with list_orders.")]
    Gone { rejected: u64 },
    #[refuse(code = codes::NOT_FOUND, parameter = "id", reason = "names no order", accepted = "the id of an order",
             fix = "List the orders with list_orders.")]
    Missing { rejected: u64 },
}

/// Cancels an order.
#[tool(title = "Cancel an order", destructive, open_world)]
fn cancel_order(id: u64) -> Result<bool, OrderError> {
    match id {
        0 => Err(OrderError::Missing { rejected: id }),
        1 => Err(OrderError::Gone { rejected: id }),
        _ => Ok(true),
    }
}

/// Says nothing about itself.
#[tool]
fn plain() -> bool {
    true
}

#[test]
fn a_title_is_listed_when_declared_and_an_undeclared_hint_is_absent() {
    let manifest = Toolbox::new().with(cancel_order::tool()).with(plain::tool()).manifest();
    let cancel = &manifest["tools"][0];
    assert_eq!(cancel["title"], "Cancel an order");
    assert_eq!(cancel["annotations"], json!({"destructiveHint": true, "openWorldHint": true}));
    let keys: Vec<&String> = cancel.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["name", "title", "description", "inputSchema", "outputSchema", "annotations", "scopes", "tier", "error_codes"]
    );
    assert_eq!((cancel["scopes"].clone(), cancel["tier"].clone()), (json!([]), json!(3)));
    let plain = &manifest["tools"][1];
    assert!(plain.get("title").is_none());
    assert_eq!(plain["annotations"], json!({}));
}

#[test]
fn declared_codes_are_listed_and_described_with_the_prefix() {
    let toolbox = Toolbox::new().with(cancel_order::tool()).with(plain::tool()).with_code_prefix("SHOP_");
    let manifest = toolbox.manifest();
    assert_eq!(
        manifest["tools"][0]["error_codes"],
        json!([
            {"code": "SHOP_VALIDATION_ERROR", "retryable": false},
            {"code": "SHOP_ORDER_GONE", "retryable": false},
            {"code": "SHOP_NOT_FOUND", "retryable": false},
            {"code": "SHOP_BACKEND_ERROR", "retryable": false}
        ])
    );
    // Sorted by name; every code some tool lists, and no other.
    let table: Vec<&String> = manifest["error_codes"].as_object().unwrap().keys().collect();
    assert_eq!(table, ["SHOP_BACKEND_ERROR", "SHOP_NOT_FOUND", "SHOP_ORDER_GONE", "SHOP_VALIDATION_ERROR"]);
    assert_eq!(
        manifest["error_codes"]["SHOP_ORDER_GONE"],
        json!({
            "status": "invalid",
            "meaning": "the order was deleted",
            "action": "list the open orders and choose one of them",
            "retryable": false,
            "retry": "never",
            "http_status": 410
        })
    );
    assert_eq!(manifest["error_codes"]["SHOP_NOT_FOUND"]["http_status"], 404);
    // The wire says what the manifest says.
    let env = crate::block_on(toolbox.call("cancel_order", Some(&json!({"id": 1})))).unwrap();
    assert_eq!(env.to_value()["error_code"], "SHOP_ORDER_GONE");
}

#[test]
fn an_empty_toolbox_has_an_empty_manifest() {
    assert_eq!(Toolbox::new().manifest(), json!({"tools": [], "error_codes": {}}));
    assert_eq!(Toolbox::new().with_code_prefix("X_").manifest(), json!({"tools": [], "error_codes": {}}));
}

const OTHER_NOT_FOUND: Code = Code::new("NOT_FOUND", Status::Invalid)
    .with_meaning("something else entirely")
    .with_action("do something else")
    .with_http_status(404);

#[derive(ToolError)]
#[allow(dead_code)] // declared for its code in the manifest, never built
enum OtherError {
    #[refuse(code = OTHER_NOT_FOUND, parameter = "id", accepted = "an id", fix = "Send an id.")]
    Missing { rejected: u64 },
}

/// Uses a code named like a standard one, with another meaning.
#[tool]
fn lookup(id: u64) -> Result<u64, OtherError> {
    Ok(id)
}

#[test]
#[should_panic(expected = "two different codes are named NOT_FOUND")]
fn two_different_codes_of_one_name_are_refused() {
    let _ = Toolbox::new().with(cancel_order::tool()).with(lookup::tool()).manifest();
}

/// Every number type's range, in an answer derived with schemars.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Widths {
    byte: u8,
    count: u32,
    total: u64,
    signed: i32,
    offset: i64,
    size: usize,
    ratio: f64,
    single: f32,
    maybe: Option<u32>,
    items: Vec<u16>,
    /// A hand-tightened bound is kept.
    #[schemars(range(max = 100))]
    percent: u32,
}

/// Answers numbers of every width.
#[tool]
fn widths() -> Widths {
    Widths {
        byte: 1,
        count: 2,
        total: 3,
        signed: -4,
        offset: -5,
        size: 6,
        ratio: 0.5,
        single: 0.25,
        maybe: None,
        items: vec![7],
        percent: 8,
    }
}

/// `outputSchema` says what the number types mean in JSON Schema's own words (2020-12): no
/// `format` JSON Schema does not define (schemars writes `uint32`, `int64`, `double`, ...,
/// which strict validators such as the MCP Inspector's warn about on every call), the bounds
/// instead.
#[test]
fn output_schema_states_number_widths_as_bounds_not_formats() {
    let tool = Toolbox::new().with(widths::tool());
    let schema = Value::Object(tool.get("widths").unwrap().output_schema(None));
    let text = schema.to_string();
    assert!(!text.contains("\"format\""), "{schema:#}");
    let props = &schema["properties"]["data"]["properties"];
    assert_eq!(props["byte"], json!({"type": "integer", "minimum": 0, "maximum": 255}));
    assert_eq!(props["count"], json!({"type": "integer", "minimum": 0, "maximum": 4_294_967_295_u32}));
    assert_eq!(props["total"], json!({"type": "integer", "minimum": 0, "maximum": u64::MAX}));
    assert_eq!(props["signed"], json!({"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX}));
    assert_eq!(props["offset"], json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX}));
    assert_eq!(props["size"], json!({"type": "integer", "minimum": 0, "maximum": usize::MAX}));
    assert_eq!(props["ratio"], json!({"type": "number"}));
    assert_eq!(
        props["single"],
        json!({"type": "number", "minimum": -f64::from(f32::MAX), "maximum": f64::from(f32::MAX)})
    );
    assert_eq!(props["maybe"], json!({"type": ["integer", "null"], "minimum": 0, "maximum": 4_294_967_295_u32}));
    assert_eq!(props["items"]["items"], json!({"type": "integer", "minimum": 0, "maximum": 65535}));
    assert_eq!(props["percent"]["maximum"], 100);
    // The answer validates against it.
    let answer = crate::block_on(tool.call("widths", None)).unwrap().to_value();
    assert!(jsonschema::is_valid(&schema, &answer), "{answer}");
}
