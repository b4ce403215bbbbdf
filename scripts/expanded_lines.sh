#!/usr/bin/env bash
# Expanded lines per tool of README's three-parameter tool (range 1..=720, three choices,
# range 1..=100 with default 10), on the stable toolchain:
#
#     scripts/expanded_lines.sh            # prints e.g. "envelope: 95.0 expanded lines per tool"
#
# Builds the crates scripts/compile_time.py builds (0 and 10 copies of the tool, in
# target/compile-time) and counts the non-blank lines of
# `RUSTC_BOOTSTRAP=1 cargo rustc --profile check -- -Zunpretty=expanded` of each: (lines with
# 10 tools - lines with none) / 10. README's figure is this number.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/compile_time.py --expanded-only "$@"
