//! `#[derive(ToolError)]` in every shape it accepts, with the prelude's names shadowed and
//! warnings denied, returned from a tool.
#![deny(warnings)]
#![allow(dead_code)]

use ::envelope_core::{Code, Status, Toolbox, codes, tool};

struct Result;
struct Ok;
struct Err;
struct Option;
struct Some;
struct None;
struct String;
struct Vec;
struct Box;
struct Refusal;
struct Fault;
struct Envelope;

const DOMAIN_TAKEN: Code = Code::new("DOMAIN_TAKEN", Status::Invalid)
    .with_meaning("the domain is registered to someone else")
    .with_action("choose another domain name")
    .with_http_status(409);

/// Generic, with a lifetime, a raw field name, braces in a template, a secret refusal, a tuple
/// fault and a unit fault.
#[derive(::envelope_core::ToolError)]
enum RegisterError<'a, T: ::serde::Serialize + ::core::fmt::Display> {
    #[refuse(code = DOMAIN_TAKEN, parameter = "domain", reason = "is registered already",
             accepted = "a domain nobody holds", fix = "Choose another domain, like {suggestion}.")]
    Taken { rejected: &'a str, suggestion: &'a str },
    #[refuse(code = codes::VALIDATION_ERROR, parameter = "years", reason = "is more than {type} allows",
             accepted = "{{1..={max}}} years", fix = "Send at most {max} years.")]
    TooLong { rejected: T, r#type: &'static str, max: u8 },
    #[refuse(code = codes::UNAUTHORIZED, parameter = "api_key", secret, accepted = "a key that is not revoked",
             fix = "Create a new key.")]
    Revoked,
    #[fault(code = codes::TIMEOUT, operation = "registering the domain")]
    Slow(u8),
    #[fault(code = codes::BACKEND_ERROR, operation = "charging the card")]
    Card,
}

/// No variants: no codes.
#[derive(::envelope_core::ToolError)]
enum Never {}

/// Registers a domain.
#[tool(destructive)]
fn register(domain: ::std::string::String) -> ::core::result::Result<u8, RegisterError<'static, u8>> {
    let _ = domain;
    ::core::result::Result::Err(RegisterError::Card)
}

/// Never fails.
#[tool]
fn never() -> ::core::result::Result<u8, Never> {
    ::core::result::Result::Ok(1)
}

fn main() {
    let _ = Toolbox::new().with(register::tool()).with(never::tool());
    let _ = <RegisterError<'static, u8> as ::envelope_core::ToolError>::CODES;
}
