//! Hostile input and hostile load, all on loopback, each test bounded in count and time: what an
//! attacker can send to a public envelope server, and what the server must still do (answer
//! every client in JSON, stay bounded in memory, never freeze, never leak a secret).
//!
//! - [`text`]: argument text and names (many keys, a key sent twice, huge names, invalid UTF-8,
//!   a parse error near a secret);
//! - [`http`]: the HTTP server (slow and half-sent requests, bounds in flight, routing and
//!   protocol errors as JSON, the `Host` check, long header values cut in replies and logs);
//! - [`ids`]: a JSON-RPC request id reused while its first request is in flight, or past `i64`;
//! - [`quoted`]: what a reply says of what was sent (an `id` past `i64`, a number or name cut, a
//!   tool name not UTF-8, a coded body, a message not JSON), over loopback HTTP;
//! - [`store`]: the approval and idempotency store under a flood and under Redis faults;
//! - [`fair`]: floods from one address or caller (unfinished heads and bodies, unknown `kid`s
//!   during a hanging JWKS, long calls) while a fresh client from another address is served;
//! - [`peers`]: an anonymous caller's limits count under its address, never another's;
//! - [`sessions`]: MCP sessions over HTTP under one client's load (event streams held open,
//!   sessions opened by the thousand, an id reused in a session, another caller's session id),
//!   and their `GET`/`DELETE` answered in JSON;
//! - [`tenants`]: a tenant named by `X-Tenant-ID` is the caller's space, never a caller of its
//!   own for rate limits and store quotas;
//! - [`tokens`]: signed tokens that must still be refused (`iss` not the issuer's string, a
//!   claim named twice).

#[path = "../../examples/tools/mod.rs"]
#[allow(dead_code)]
mod tools;

#[path = "../support/examples.rs"]
mod examples;

#[path = "../support/http_client.rs"]
#[allow(dead_code)]
mod client;

/// Held by each flood test (here and in `http`): the floods run one at a time, each measured
/// alone (two floods at once on two cores would measure the machine, not the server's shares).
static ONE_FLOOD: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

mod fair;
mod http;
mod ids;
mod peers;
mod quoted;
mod sessions;
mod store;
mod tenants;
mod text;
mod tokens;
