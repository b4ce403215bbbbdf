import json, urllib.request
U = "http://127.0.0.1:18932/mcp"
def post(body, sid=None):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    if sid: h["Mcp-Session-Id"] = sid
    req = urllib.request.Request(U, data=body.encode(), headers=h, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers.get("Mcp-Session-Id"), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, None, e.read().decode()
st, sid, b = post('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}')
post('{"jsonrpc":"2.0","method":"notifications/initialized"}', sid)
pad = ",".join('"p%d":"x"' % i for i in range(4100))
tests = [
 '{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"first","arg1":"SECOND","arg2":"b"}}}',
 '{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"first","arg1":"SECOND","arg2":"b",%s}}}' % pad,
 '{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://static-text","uri":"test://template/EVIL/data"}}',
 '{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://static-text","uri":"test://template/EVIL/data",%s}}' % pad,
 '{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"test_simple_prompt","name":"test_prompt_with_image",%s}}' % pad,
]
for t in tests:
    st, _, b = post(t, sid)
    print(t[:110], "\n  ->", st, b[:300].replace("\n"," "))
