#!/usr/bin/env bash
# The README's two commands back to back, `cargo test --workspace` then `cargo build --example
# mcp_server --example http_server`: the second must build no workspace crate again (a feature
# set that differs between the two commands rebuilt envelope-core and the crates above it, for
# 30 s to 90 s). The first runs here with `--no-run` (the same build), checked too: right after
# `.ci/run`'s `cargo test -j2 --workspace`, whose tests build the examples with a nested
# `cargo build` (tests/support/examples.rs), it must compile nothing again (a variable of the
# test process passed on to that build made build scripts that watch it, ring's, rerun on the
# user's next command). Then the other builds of `.ci/run`, checked the same way. Exits 1 naming
# the command and the crates it compiled again. Run it after `cargo test -j2 --workspace`.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# Runs a command; fails when cargo compiled a crate of this workspace other than those named
# before `--` (a crate whose own targets or features only that command builds).
builds_nothing_of_ours() {
  local allowed=()
  while [ "$1" != "--" ]; do allowed+=("$1"); shift; done
  shift
  "$@" 2>&1 | tee "$log"
  local again
  again=$(grep -E '^ *Compiling envelope(-[a-z]+)? v' "$log" || true)
  for crate in "${allowed[@]}"; do
    again=$(echo "$again" | grep -v -E "^ *Compiling $crate v" || true)
  done
  if [ -n "$again" ]; then
    echo "FAILED: \`$*\` compiled workspace crates again after \`cargo test --workspace\`:" >&2
    echo "$again" >&2
    echo "(a feature set differs between the two commands: compare \`cargo tree -e features\` of each)" >&2
    exit 1
  fi
  echo "ok: \`$*\` compiled no workspace crate again"
}

# The README's first command again (its tests ran just before), then its second.
builds_nothing_of_ours -- cargo test -j2 --workspace --no-run
builds_nothing_of_ours -- cargo build -j2 --example mcp_server --example http_server
# .ci/run's other builds, in its order: the benches (only envelope-bench's own targets are new;
# `-p envelope-bench` instead of `--workspace` would resolve features over that crate alone and
# rebuild envelope-core), the Redis tests (the test package's feature `redis`), then the
# examples again.
builds_nothing_of_ours envelope-bench -- cargo test -j2 --workspace --bench '*' --no-run
builds_nothing_of_ours envelope-tests -- cargo test -j2 --features redis --test redis --no-run
builds_nothing_of_ours -- cargo build -j2 --example mcp_server --example http_server
