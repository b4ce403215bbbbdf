//! The integration tests, in one binary so they link once.

#[path = "../../examples/tools/mod.rs"]
#[allow(dead_code)]
mod tools;

mod audit;
mod auth;
mod budget;
mod cases;
mod classify;
mod codes;
mod confirm;
mod differential;
mod features;
mod formats;
mod http;
mod limits;
mod manifest;
mod maps;
mod maps_generated;
mod multiple_of;
mod nested_pass;
mod one_exit;
mod one_pass;
mod own_types;
mod providers;
mod reading;
mod reports;
mod rules;
mod sync_body;
mod typed;
mod wire;
mod wire_formats;

/// Runs a future to completion on a fresh current-thread runtime.
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
}

/// Calls an example tool through the toolbox and returns the envelope as JSON.
fn call(tool: &str, args: serde_json::Value) -> serde_json::Value {
    let toolbox = tools::toolbox();
    block_on(toolbox.call(tool, Some(&args))).expect("a known tool").to_value()
}
