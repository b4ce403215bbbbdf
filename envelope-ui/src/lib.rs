//! Holds `tests/ui.rs`, the one trybuild runner for envelope's compile-time behaviour: every
//! `tests/ui/fail/*.rs` fails with its committed `.stderr`, every `tests/ui/pass/*.rs` compiles.
//! A crate of its own so the cases build envelope-core and nothing else (trybuild builds every
//! dev-dependency of the crate it runs in).
