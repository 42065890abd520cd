"""The raw JSON-RPC loop the lab's purpose-made test servers share (`counter_pair.py`,
`verdict_pair.py`): newline-delimited JSON-RPC on stdio, Python's standard library only,
deterministic. A server gives its name, version, tools and how a call is answered; `initialize`
echoes the client's protocol version, notifications and unparsable lines get no answer, and
any other method gets -32601.
"""

import json
import sys


def serve(name, version, tools, call):
    """Answers stdin until it closes. `call(tool_name)` returns a tool's text."""

    def answer(request):
        method = request.get("method")
        params = request.get("params", {})
        if method == "initialize":
            return {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": name, "version": version},
            }
        if method == "tools/list":
            return {"tools": tools}
        if method == "tools/call":
            return {"content": [{"type": "text", "text": call(params.get("name"))}]}
        return None

    for line in sys.stdin:
        try:
            request = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "id" not in request:
            continue
        result = answer(request)
        if result is None:
            reply = {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "method not found"}}
        else:
            reply = {"jsonrpc": "2.0", "id": request["id"], "result": result}
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()
