#!/usr/bin/env python3
"""Two builds of a tiny MCP server that differ in one tool's description only, for the
lab's `diff` test: the verdict must show that tool and the catalogue moving, nothing else.

    verdict_pair.py v1    three tools
    verdict_pair.py v2    the same, `shelf_find`'s description longer

Raw JSON-RPC on stdio, Python's standard library only; deterministic.
"""

import json
import sys

VERSION = sys.argv[1] if len(sys.argv) > 1 else "v1"


def tool(name, description):
    return {"name": name, "description": description, "inputSchema": {"type": "object", "properties": {}}}


TOOLS = [
    tool("shelf_list", "List the shelf."),
    tool(
        "shelf_find",
        "Find a book."
        if VERSION == "v1"
        else "Find a book on the shelf by any words of its title, its author or its summary, ranked by how well they match.",
    ),
    tool("shelf_count", "Count the books."),
]

ANSWERS = {
    "shelf_list": "Rivers of Chile; Notes on Glaciers; Southern Forests",
    "shelf_find": "Notes on Glaciers (2004)",
    "shelf_count": "3",
}


def answer(request):
    method = request.get("method")
    if method == "initialize":
        return {
            "protocolVersion": request.get("params", {}).get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "verdict-pair", "version": VERSION},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        name = request.get("params", {}).get("name")
        return {"content": [{"type": "text", "text": ANSWERS.get(name, "?")}]}
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
