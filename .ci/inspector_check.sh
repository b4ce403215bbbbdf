#!/usr/bin/env bash
# The MCP Inspector's command-line mode against both example servers, over stdio and over
# Streamable HTTP: tools/list, a valid call and a refused call of every kind of answer the
# examples have (their `outputSchema`s validated by the Inspector's ajv on every call). Fails on
# any line of its output that warns (`unknown format "uint32" ignored` was printed on every call
# while `outputSchema` held schemars' number formats), and on an exit code other than 0 (5, the
# Inspector 2.x's code for an `isError` result, where the call is a refusal). Needs Node.js with
# npx (the Inspector 2.x needs Node.js 22.19 or later; on an older Node.js npx runs the 0.x line).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
cargo build -j2 --example mcp_server --example http_server
target_dir=$(cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
examples="$target_dir/debug/examples"
out="$(mktemp -d)"
http_pid=""
cleanup() {
  if [ -n "$http_pid" ]; then kill "$http_pid" 2>/dev/null || true; fi
  rm -rf "$out"
}
trap cleanup EXIT

"$examples/http_server" --port 0 > "$out/http_server.out" 2> "$out/http_server.err" &
http_pid=$!
for _ in $(seq 100); do grep -q '/mcp' "$out/http_server.out" && break; sleep 0.1; done
url=$(awk '{print $NF}' "$out/http_server.out")

failed=0
# inspect LABEL REFUSAL(0|1) ARGS...: one Inspector run; its output kept, its warnings counted.
inspect() {
  local label="$1" refusal="$2"
  shift 2
  local rc=0
  # The result (JSON, whose schemas hold a `warning` property) on stdout; what the Inspector
  # says of its own, warnings included, on stderr.
  timeout 300 npx -y @modelcontextprotocol/inspector --cli "$@" > "$out/run.log" 2> "$out/run.err" || rc=$?
  if [ "$rc" -ne 0 ] && ! { [ "$refusal" = 1 ] && [ "$rc" -eq 5 ]; }; then
    echo "FAILED: $label: the Inspector exited $rc"
    tail -20 "$out/run.err" "$out/run.log"
    failed=1
  elif grep -Eiq 'warn|unknown format|ignored' "$out/run.err"; then
    echo "FAILED: $label: the Inspector warned:"
    grep -Ei 'warn|unknown format|ignored' "$out/run.err" | head -10
    failed=1
  else
    echo "ok: $label (exit $rc, no warning)"
  fi
}

for target in stdio http; do
  if [ "$target" = stdio ]; then
    server=("$examples/mcp_server")
  else
    server=("$url" --transport http)
  fi
  inspect "$target tools/list" 0 "${server[@]}" --method tools/list
  inspect "$target get_top_queries" 0 "${server[@]}" --method tools/call --tool-name get_top_queries \
    --tool-arg hours_back=24 --tool-arg group_by=database
  inspect "$target get_top_queries refused" 1 "${server[@]}" --method tools/call --tool-name get_top_queries \
    --tool-arg hours_back=0 --tool-arg group_by=databse
  inspect "$target search_analytics" 0 "${server[@]}" --method tools/call --tool-name search_analytics \
    --tool-arg dimension=country
  inspect "$target create_note" 0 "${server[@]}" --method tools/call --tool-name create_note --tool-arg title=Plan
  inspect "$target list_notes" 0 "${server[@]}" --method tools/call --tool-name list_notes
  inspect "$target delete_note (a confirmation, or NOT_FOUND over stdio)" 1 "${server[@]}" --method tools/call --tool-name delete_note \
    --tool-arg note_id=1
  inspect "$target set_threshold" 0 "${server[@]}" --method tools/call --tool-name set_threshold \
    --tool-arg ratio=0.5 --tool-arg api_key=sk-0000000000000000
  inspect "$target whoami" 0 "${server[@]}" --method tools/call --tool-name whoami
done
exit "$failed"
