//! Shadowing the prelude's names must not break `#[tool]`: the expansion spells every std item
//! and every envelope item by its absolute path (serde's `test_gen.rs` idea).
#![allow(dead_code, non_camel_case_types, unused_macros)]

use ::envelope_core::{Choice, Refusal, tool};

// Each unit struct takes the name in both the type and the value namespace, so a generated
// `Some(x)`, `None`, `Ok(x)` or `String::from` that leaned on the prelude would break.
struct Result;
struct Ok;
struct Err;
struct Option;
struct Some;
struct None;
struct String;
struct Vec;
struct Box;
struct Default;
struct From;
struct Into;
struct Send;
struct Sized;
struct Value;
struct Map;
struct Tool;
struct Args;

// Local modules named like the crates the expansion reaches; `::name` still means the crate.
mod core {}
mod std {}
mod envelope_core {}
mod serde_json {}

macro_rules! vec {
    ($($t:tt)*) => {
        compile_error!("the expansion used the shadowed `vec!`")
    };
}
macro_rules! format {
    ($($t:tt)*) => {
        compile_error!("the expansion used the shadowed `format!`")
    };
}

/// Every parameter shape, with the prelude shadowed.
#[tool(strict, name = "hygienic")]
fn every_shape(
    #[validate(range = 1..=720, default = 24)] hours_back: u32,
    #[validate(choices = ["database", "query_hash"], default = "database")] group_by: ::std::string::String,
    #[validate(range = 0.0..1.0)] ratio: f64,
    top: ::core::option::Option<u32>,
    tags: ::std::vec::Vec<::std::string::String>,
    #[validate(default = true)] verbose: bool,
) -> ::core::result::Result<u32, Refusal> {
    let _ = (group_by, ratio, top, tags, verbose);
    ::core::result::Result::Ok(hours_back)
}

/// The string, list and cross-field rules, with the prelude shadowed.
#[tool(rename_all = "camelCase")]
fn newer_rules(
    #[validate(length = 1..=120, pattern = "^[a-z]+$", example = "abc")] query: ::std::string::String,
    #[validate(byte_length = ..=64, format = "uuid")] id: ::core::option::Option<::std::string::String>,
    #[validate(length = 1..=5, each(length = 1..=10, choices = ["a", "b"], ignore_case))] tags: ::std::vec::Vec<::std::string::String>,
    #[validate(format = "date", requires = "pageSize", excludes = "id")] since: ::core::option::Option<::std::string::String>,
    #[validate(range = 1..=100, requires(since, when = 5), fix = "Send `since` too.", reason = "pages are dated", rename = "pageSize")]
    page_size: ::core::option::Option<u32>,
) -> bool {
    let _ = (query, id, tags, since, page_size);
    true
}

/// A choice read from its variant names, with the prelude shadowed.
#[derive(Choice)]
#[choice(rename_all = "snake_case")]
enum Group {
    Database,
    #[choice(rename = "hash")]
    QueryHash,
}

/// A `Choice` parameter, with the prelude shadowed.
#[tool]
fn by_group(group: Group, other: ::core::option::Option<Group>) -> ::std::string::String {
    let _ = other;
    ::std::string::String::from(group.as_str())
}

/// Async, with the prelude shadowed.
#[tool]
async fn later(#[validate(choices = [1, 2, 3])] n: u8) -> ::std::vec::Vec<u8> {
    ::std::vec![n]
}

/// No parameters, with the prelude shadowed.
#[tool]
fn nothing() -> bool {
    true
}

mod without_prelude {
    #![no_implicit_prelude]

    /// Declared where nothing is in scope but what is written.
    #[::envelope_core::tool]
    pub fn bare(#[validate(range = 1..=10, default = 5)] n: u32, name: ::core::option::Option<::std::string::String>) -> u32 {
        let _ = name;
        n
    }

    /// Async, where nothing is in scope.
    #[::envelope_core::tool]
    pub async fn bare_async() -> u32 {
        0
    }
}

fn main() {
    let toolbox = ::envelope_core::Toolbox::new()
        .with(every_shape::tool())
        .with(newer_rules::tool())
        .with(by_group::tool())
        .with(later::tool())
        .with(nothing::tool())
        .with(without_prelude::bare::tool())
        .with(without_prelude::bare_async::tool());
    let _ = toolbox;
}
