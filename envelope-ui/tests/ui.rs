//! Compile-time behaviour: every `tests/ui/fail/*.rs` fails with its committed `.stderr`, every
//! `tests/ui/pass/*.rs` compiles. One runner, so the crates build once.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
