//! Builds example binaries for the tests that run them (`cargo test --test NAME` builds no
//! example), next to the test binary's `target/<profile>/deps/`, so a stale example never
//! answers for new code.
//!
//! The nested `cargo build` runs without the variables cargo sets for a running test
//! (`CARGO_MANIFEST_DIR`, `CARGO_PKG_*`, `OUT_DIR`, ...): build scripts that watch them (ring's
//! `rerun-if-env-changed`) would otherwise see other values than a user's own `cargo build`
//! and rebuild, twice, on the user's next command.

use std::path::PathBuf;

/// What cargo sets for a test process and a build script may watch: not passed on.
const SET_FOR_TESTS: [&str; 8] = [
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_CRATE_NAME",
    "CARGO_BIN_NAME",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_TARGET_TMPDIR",
    "OUT_DIR",
    "CARGO_RUSTC_CURRENT_DIR",
];

/// Builds `names` (examples of this workspace) in the test binary's profile and target
/// directory: the directory `target/<profile>/examples/` they are in.
pub(crate) fn build(names: &[&str]) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps");
    let target_dir = profile_dir.parent().expect("target/");
    let mut build = std::process::Command::new(env!("CARGO"));
    build.args(["build", "-j2", "--quiet"]);
    for name in names {
        build.args(["--example", name]);
    }
    build.arg("--manifest-path").arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"));
    build.arg("--target-dir").arg(target_dir);
    if profile_dir.ends_with("release") {
        build.arg("--release");
    }
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if SET_FOR_TESTS.contains(&key.as_ref()) || key.starts_with("CARGO_PKG_") || key.starts_with("CARGO_BIN_EXE_") {
            build.env_remove(key.as_ref());
        }
    }
    let status = build.status().expect("running cargo build");
    assert!(status.success(), "cargo build of the examples {names:?} failed");
    profile_dir.join("examples")
}
