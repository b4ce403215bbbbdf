"""Smoke test with the official MCP Python SDK (2.x): the example server, driven in the SDK's
default mode (it negotiates MCP 2026-07-28 through `server/discover`) and in legacy mode (the
`initialize` handshake), over stdio and, when a URL is given, over Streamable HTTP.

    python3 .ci/python_sdk_smoke.py target/debug/examples/mcp_server [http://127.0.0.1:8080/mcp]

Exits non-zero, naming the failed check, when any reply differs from what envelope promises.
"""

import asyncio
import json
import sys

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

KEY = "sk-AAAAAAAAAAAAAAAAAAAA"


def check(what, ok, shown):
    if not ok:
        raise SystemExit(f"FAILED: {what}: {shown}")
    print(f"ok: {what}")


async def drive(label, server, mode):
    async with Client(server, mode=mode) as client:
        tools = await client.list_tools()
        names = sorted(t.name for t in tools.tools)
        check(f"{label}: tools/list names the example tools and confirm_action", names ==
              ["confirm_action", "create_note", "delete_note", "get_top_queries", "list_notes",
               "rebuild_index", "search_analytics", "set_threshold", "whoami"], names)

        # A progress callback makes the SDK send a progressToken; rebuild_index reports each tick.
        seen = []

        async def on_progress(progress, total, message):
            seen.append((progress, total))

        result = await client.call_tool("rebuild_index", {"seconds": 1}, progress_callback=on_progress)
        check(f"{label}: rebuild_index is served", result.structured_content["data"]["rebuilt"], result)
        check(f"{label}: its progress arrives, increasing, up to 10 of 10",
              seen and seen[-1] == (10, 10) and all(a[0] < b[0] for a, b in zip(seen, seen[1:])), seen)

        # The smallest input: a number with a three-digit exponent.
        result = await client.call_tool("set_threshold", {"ratio": 1e-100, "api_key": KEY})
        envelope = result.structured_content
        check(f"{label}: set_threshold 1e-100 is served", envelope and envelope["status"] == "ok", envelope)
        check(f"{label}: the text block is the envelope", json.loads(result.content[0].text) == envelope, result)
        check(f"{label}: the key is never echoed", KEY not in result.model_dump_json(), result)

        result = await client.call_tool("get_top_queries", {"hours_back": 0, "group_by": "databse"})
        envelope = result.structured_content
        check(f"{label}: a refusal is isError with status invalid",
              result.is_error and envelope["status"] == "invalid", envelope)
        check(f"{label}: the refusal suggests the fix", 'Did you mean "database"?' in envelope["message"], envelope)

        # Nested past 127 levels: rmcp's parser would drop this; the toolbox refuses `tags` by name.
        deep = []
        for _ in range(200):
            deep = [deep]
        result = await client.call_tool("create_note", {"title": "t", "tags": deep})
        envelope = result.structured_content
        check(f"{label}: 200-deep tags are refused by name",
              result.is_error and envelope["hints"]["parameter"] == "tags", envelope)


async def main():
    exe = sys.argv[1]
    for mode in ("auto", "legacy"):
        await drive(f"stdio/{mode}", StdioServerParameters(command=exe), mode)
    if len(sys.argv) > 2:
        for mode in ("auto", "legacy"):
            await drive(f"http/{mode}", sys.argv[2], mode)


asyncio.run(main())
