//! Tools declared under strict lints (thiserror's `test_lints.rs` idea): compiled by `cargo
//! test`, which denies rustc's warnings, and by `cargo clippy --all-targets` in `.ci/run`, which
//! denies `clippy::pedantic` here: the expansion must not trip a user's lints.
#![deny(warnings, clippy::pedantic)]
#![deny(missing_docs)]

use envelope_core::outcome::ToolFailure;
use envelope_core::{Fault, Refusal, Toolbox, tool};

/// Counts from 1 to `n`.
#[tool(read_only, idempotent)]
#[must_use]
pub fn count(
    /// How far to count.
    #[validate(range = 1..=100, default = 10)]
    n: u32,
) -> Vec<u32> {
    (1..=n).collect()
}

/// Answers `true`: a tool with no parameters.
#[tool]
#[must_use]
pub fn ping() -> bool {
    true
}

/// Answers 0 later: an async tool with no parameters.
#[tool]
pub async fn tick() -> u64 {
    std::future::ready(0).await
}

/// Reads a key: an async tool that can refuse or fail.
///
/// # Errors
/// Refuses a key other than `"a"`; fails when `attempts` is 0.
#[tool(open_world)]
pub async fn fetch(
    /// Which key to read.
    #[validate(choices = ["a", "b"])]
    key: String,
    /// How many times to try.
    #[validate(range = 1..=3)]
    attempts: Option<u8>,
) -> Result<String, ToolFailure> {
    let attempts = std::future::ready(attempts).await;
    match (key.as_str(), attempts) {
        ("a", _) => Ok(key),
        (_, Some(0)) => Err(Fault::backend("reading the key").into()),
        _ => Err(Refusal::parameter("key").rejected(key.as_str()).accepted("\"a\"").fix("Send \"a\".").build().into()),
    }
}

/// Names a kind: a parameter whose name is a Rust keyword, written as a raw identifier.
#[tool(title = "Kind")]
#[must_use]
pub fn kind(
    /// The kind of entry.
    #[validate(choices = ["file", "dir"], default = "file")]
    r#type: String,
    /// Whether to follow links.
    r#loop: Option<bool>,
) -> String {
    let _ = r#loop;
    r#type
}

/// Deletes nothing, destructively.
///
/// # Errors
/// Refuses an empty token.
#[tool(destructive, name = "remove")]
pub fn remove_entry(#[validate(secret)] token: String) -> Result<(), Refusal> {
    if token.is_empty() {
        return Err(Refusal::parameter("token").rejected_secret().accepted("a token").fix("Send a token.").build());
    }
    drop(token);
    Ok(())
}

/// What `archive` would do.
///
/// # Errors
/// Refuses an empty name.
pub fn archive_preview(name: &str, keep_days: &u32) -> Result<String, Refusal> {
    if name.is_empty() {
        return Err(Refusal::parameter("name").rejected(name).accepted("a name").fix("Send a name.").build());
    }
    Ok(format!("archive {name}, keep {keep_days} days"))
}

/// Archives a project, once approved.
#[tool(destructive, confirm = archive_preview)]
#[must_use]
pub fn archive(
    /// The project.
    name: String,
    /// How long to keep it.
    #[validate(range = 1..=365, default = 30)]
    keep_days: u32,
) -> String {
    format!("{name} archived for {keep_days} days")
}

/// Records an event once per key.
#[tool(idempotency_key)]
pub async fn record(
    /// The event.
    #[validate(length = 1..=40)]
    event: String,
) -> String {
    std::future::ready(event).await
}

#[test]
fn the_tools_register() {
    let toolbox = Toolbox::new()
        .with(count::tool())
        .with(ping::tool())
        .with(tick::tool())
        .with(fetch::tool())
        .with(kind::tool())
        .with(remove_entry::tool())
        .with(archive::tool())
        .with(record::tool());
    // And `confirm_action`, for `archive`.
    assert_eq!(toolbox.tools().len(), 9);
}
