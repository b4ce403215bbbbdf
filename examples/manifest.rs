//! Prints the manifest of the example server (the tools of `examples/tools/mod.rs`): each
//! tool's name, description, `inputSchema`, annotations and the exact `error_codes` it can emit,
//! and the table of what each code means. Pretty JSON on stdout.
//!
//! Run it with `cargo run --example manifest`.

#[allow(dead_code)] // each example uses some of the tools module
mod tools;

fn main() {
    let manifest = tools::toolbox().manifest();
    let text = serde_json::to_string_pretty(&manifest).expect("a manifest is plain JSON");
    println!("{text}");
}
