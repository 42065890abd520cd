#!/usr/bin/env python3
"""Two builds of a tiny MCP server whose one tool answers fewer characters after but more BPE
tokens: what a character counter and a tokenizer disagree on, for the lab's counter test.

    counter_pair.py v1    prose: common English words (about four characters a token)
    counter_pair.py v2    a hex digest, shorter, of the same facts (about two characters a token)

Raw JSON-RPC on stdio, Python's standard library only; deterministic.
"""

import hashlib
import json
import sys

VERSION = sys.argv[1] if len(sys.argv) > 1 else "v1"

PROSE = " ".join(["the river and the forest are on the same shelf as the book of the north"] * 6)
DIGEST = "".join(hashlib.sha256(f"{i}".encode()).hexdigest() for i in range(5))[:300]

TOOL = {
    "name": "shelf_note",
    "description": "A note about the shelf.",
    "inputSchema": {"type": "object", "properties": {}},
}


def answer(request):
    method = request.get("method")
    if method == "initialize":
        return {
            "protocolVersion": request.get("params", {}).get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "counter-pair", "version": VERSION},
        }
    if method == "tools/list":
        return {"tools": [TOOL]}
    if method == "tools/call":
        text = PROSE if VERSION == "v1" else DIGEST
        return {"content": [{"type": "text", "text": text}]}
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
