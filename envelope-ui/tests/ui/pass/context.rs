//! A context parameter: by value or by reference, anywhere in the list, in a function, an async
//! function, a `#[tools]` method, a confirm tool and its preview; never part of the schema.

use std::sync::Arc;

use envelope_core::{Context, Refusal, Toolbox, tool, tools};

/// Reads the caller.
#[tool]
fn first(cx: Context, #[validate(range = 1..=10)] n: u32) -> u32 {
    let _ = cx.caller();
    n
}

/// Logs and waits.
#[tool]
async fn later(#[validate(range = 1..=10)] n: u32, cx: &envelope_core::Context) -> u32 {
    cx.info("waiting");
    cx.cancelled().await;
    n
}

/// A sync tool with a timeout (no timer needed: the body reads the clock through `cx`).
#[tool(timeout_ms = 50)]
fn timed(#[validate(range = 1..=10)] n: u32, cx: &Context) -> u32 {
    while !cx.is_cancelled() {}
    n
}

fn wipe_preview(n: &u32, cx: &Context) -> Result<String, Refusal> {
    Ok(format!("{n} by {:?}", cx.caller().subject()))
}

/// Wipes after approval.
#[tool(destructive, confirm = wipe_preview)]
fn wipe(#[validate(range = 1..=10)] n: u32, cx: Context) -> u32 {
    cx.progress(1, 1);
    n
}

struct Store;

#[tools]
impl Store {
    /// A method with the context.
    #[tool]
    fn count(&self, cx: &Context, #[validate(range = 1..=10)] n: u32) -> u32 {
        cx.debug("counting");
        n
    }

    fn drop_preview(&self, cx: &Context, n: &u32) -> Result<u32, Refusal> {
        let _ = cx;
        Ok(*n)
    }

    /// A confirm method with the context.
    #[tool(confirm = drop_preview)]
    async fn drop_rows(&self, cx: Context, #[validate(range = 1..=10)] n: u32) -> u32 {
        let _ = cx;
        n
    }
}

fn main() {
    let toolbox = Toolbox::new()
        .with(first::tool())
        .with(later::tool())
        .with(timed::tool())
        .with(wipe::tool())
        .with_state(Arc::new(Store));
    for tool in toolbox.tools() {
        let schema = serde_json::Value::Object(tool.input_schema());
        assert!(schema["properties"].get("cx").is_none(), "{schema}");
    }
}
