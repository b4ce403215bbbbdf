"""Smoke test with the official MCP Python SDK (2.x): the example server, driven in the SDK's
default mode (it negotiates MCP 2026-07-28 through `server/discover`) and in legacy mode (the
`initialize` handshake), over stdio and, when a URL is given, over Streamable HTTP; when a second
URL is given, an example server that verifies bearer JWTs (started with
`ENVELOPE_JWT_HS256_SECRET` and `ENVELOPE_ISSUER`, the same two set here), reached with a token
minted here (HS256, standard library only) and handed to the SDK's client as a header.

    python3 .ci/python_sdk_smoke.py target/debug/examples/mcp_server [http://127.0.0.1:8080/mcp \
        [http://127.0.0.1:8081/mcp]]

Exits non-zero, naming the failed check, when any reply differs from what envelope promises.
"""

import asyncio
import base64
import hashlib
import hmac
import json
import os
import sys
import time
import urllib.error
import urllib.request

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

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


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def mint(secret, claims):
    """An HS256 JWT (RFC 7519) of `claims`, signed with `secret`."""
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url(json.dumps(claims).encode())
    signature = hmac.new(secret.encode(), f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{b64url(signature)}"


def post(url, headers):
    """POSTs an empty JSON-RPC body; answers (status, headers, JSON body)."""
    request = urllib.request.Request(url, data=b"{}", method="POST",
                                     headers={"content-type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, e.headers, json.loads(e.read())


async def drive_protected(url, mode):
    secret, issuer = os.environ["ENVELOPE_JWT_HS256_SECRET"], os.environ["ENVELOPE_ISSUER"]
    label = f"http+jwt/{mode}"
    status, headers, body = post(url, {})
    check(f"{label}: without a token, 401 naming the resource metadata",
          status == 401 and 'resource_metadata="' in headers.get("www-authenticate", "")
          and body["error"]["data"]["error"] == "missing_bearer_token", (status, dict(headers), body))
    now = int(time.time())
    token = mint(secret, {"iss": issuer, "sub": "sdk-smoke", "aud": url, "iat": now, "exp": now + 300,
                          "scope": "notes:read notes:write", "tenant_id": "acme"})
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        await drive(label, streamable_http_client(url, http_client=http), mode)
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            result = await client.call_tool("whoami", {})
            data = result.structured_content["data"]
            check(f"{label}: whoami is the token's subject and tenant",
                  (data["subject"], data["tenant"]) == ("sdk-smoke", "acme"), data)
            check(f"{label}: the token is never echoed", token not in result.model_dump_json(), result)
    await steps_up_and_backs_off(url, secret, issuer, label, mode)


async def steps_up_and_backs_off(url, secret, issuer, label, mode):
    """What the SDK's HTTP client sees of a call short of a tool's scope (403 with the step-up
    challenge, MCP 2025-11-25 "Scope challenge handling") and of a rate-limited call (429 with
    `Retry-After`), each over /mcp; the SDK turns either into an error of the call."""
    now = int(time.time())
    token = mint(secret, {"iss": issuer, "sub": f"sdk-limits-{mode}", "aud": url, "iat": now, "exp": now + 300,
                          "scope": "notes:read notes:write", "tenant_id": "acme"})
    seen = []

    async def record(response):
        seen.append((response.status_code, response.headers.get("www-authenticate"),
                     response.headers.get("retry-after")))

    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        http.event_hooks["response"] = [record]
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            try:
                result = await client.call_tool("delete_note", {"note_id": 1})
                raised = None
            except Exception as e:  # the SDK's error for a non-2xx answer
                result, raised = None, e
            forbidden = [s for s in seen if s[0] == 403]
            check(f"{label}: delete_note without notes:admin is 403 with the step-up challenge",
                  forbidden and forbidden[-1][1].startswith('Bearer error="insufficient_scope", scope="notes:admin"')
                  and 'resource_metadata="' in forbidden[-1][1], (seen, result, raised))
            check(f"{label}: the SDK reports the refused call as an error", raised is not None or
                  (result is not None and result.is_error), (result, raised))
            # create_note's limit (30 a minute by default): within 40 calls, one is 429.
            for i in range(40):
                try:
                    await client.call_tool("create_note", {"title": f"n{i}"})
                except Exception:
                    pass
                if any(s[0] == 429 for s in seen):
                    break
            limited = [s for s in seen if s[0] == 429]
            check(f"{label}: a rate-limited create_note is 429 with Retry-After in whole seconds",
                  limited and limited[-1][2] is not None and int(limited[-1][2]) >= 1, seen[-3:])


async def main():
    exe = sys.argv[1]
    for mode in ("auto", "legacy"):
        await drive(f"stdio/{mode}", StdioServerParameters(command=exe), mode)
    if len(sys.argv) > 2:
        for mode in ("auto", "legacy"):
            await drive(f"http/{mode}", sys.argv[2], mode)
    if len(sys.argv) > 3:
        for mode in ("auto", "legacy"):
            await drive_protected(sys.argv[3], mode)


asyncio.run(main())
