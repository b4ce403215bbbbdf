//! Prints the manifest of the example server (the tools of `examples/tools/mod.rs`): each
//! tool's name, description, `inputSchema`, annotations and the exact `error_codes` it can emit,
//! and the table of what each code means. Pretty JSON on stdout.
//!
//! With `--provider NAME`, prints instead the tools' definitions for that model API, as one JSON
//! array, as its API takes them (`envelope_core::providers`): `openai` (Chat Completions,
//! strict), `openai-responses`, `anthropic` (strict), `gemini` (the `functionDeclarations`
//! array, with `parameters`), `gemini-json-schema` (the same with `parametersJsonSchema`). Add
//! `--non-strict` for OpenAI's `"strict": false` definitions and Anthropic's without `strict`.
//! A tool past one of the provider's limits is named on stderr (exit status 1).
//!
//! Run it with `cargo run --example manifest` or `cargo run --example manifest -- --provider
//! gemini`.

use envelope_core::providers::{Export, Provider};

#[allow(dead_code)] // each example uses some of the tools module
mod tools;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let toolbox = tools::with_context_tools(tools::toolbox());
    let value = match provider(&args) {
        Ok(None) => serde_json::to_value(toolbox.manifest()).expect("a manifest is plain JSON"),
        Ok(Some(export)) => match export.tools(&toolbox) {
            Ok(tools) => serde_json::Value::Array(tools),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        },
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    let text = serde_json::to_string_pretty(&value).expect("plain JSON");
    println!("{text}");
}

/// The export the arguments ask for (`None`: the manifest), or the sentence for a bad argument.
fn provider(args: &[String]) -> Result<Option<Export>, String> {
    let names = format!("{}, gemini-json-schema", Provider::ALL.map(Provider::name).join(", "));
    let mut export = None;
    let mut strict = true;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let value = match arg.as_str() {
            "--provider" => args.next().ok_or_else(|| format!("--provider needs a value: one of {names}"))?.as_str(),
            "--non-strict" => {
                strict = false;
                continue;
            }
            other => match other.strip_prefix("--provider=") {
                Some(v) => v,
                None => {
                    return Err(format!("unknown argument {other:?}; accepted: --provider <{names}>, --non-strict"));
                }
            },
        };
        if value.eq_ignore_ascii_case("gemini-json-schema") {
            export = Some(Export::new(Provider::Gemini).json_schema());
            continue;
        }
        let p = Provider::from_name(value).ok_or_else(|| format!("unknown provider {value:?}; accepted: {names}"))?;
        export = Some(Export::new(p));
    }
    Ok(export.map(|e| if strict { e } else { e.non_strict() }))
}
