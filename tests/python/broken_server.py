#!/usr/bin/env python3
"""A deliberately broken MCP server on stdio, for the contract lint's own tests.

Standard library only, newline-delimited JSON-RPC (the MCP stdio transport). Every tool but
`good-read` breaks exactly the rule its name says, in its tools/list entry (C1, C5, C9, C10,
C13, C19) or in its result (C11, C12); `tests/lint.rs` asserts `modyo-lab lint` names each one,
with its JSON pointer, and nothing else.

    broken_server.py          all tools
    broken_server.py clean    only good-read (the lint must exit 0)
"""

import json
import sys

PLATFORM = {"type": "object", "properties": {"name": {"type": "string"}, "host": {"type": "string"}},
            "required": ["name", "host"], "additionalProperties": False}
RESOURCE = {"type": "object", "properties": {"type": {"type": "string"}, "id": {"type": ["integer", "string"]},
            "uuid": {"type": "string"}, "name": {"type": "string"}}, "required": ["type"],
            "additionalProperties": False}
COVERAGE = {"type": "object", "properties": {k: {"type": "integer"} for k in
            ["returned", "total", "searched", "page", "per_page"]}, "additionalProperties": False}
COVERAGE["properties"]["complete"] = {"type": "boolean"}
POST = {"type": "object", "properties": {"status": {"type": "string"}, "published": {"type": "boolean"},
        "live_version": {"type": ["integer", "string"]}, "pending": {"type": "boolean"},
        "affected": {"type": "integer"}}, "additionalProperties": False}
STRICT_ROW = {"type": "object", "properties": {"id": {"type": "integer"}}, "additionalProperties": False}
ECHO = {"type": "object", "properties": {"id": {"type": ["integer", "null"]}, "uuid": {"type": ["string", "null"]},
        "name": {"type": ["string", "null"]}}}


def envelope(data, state=None, resource=False):
    props = {"platform": PLATFORM, "data": data}
    if resource:
        props["resource"] = RESOURCE
    if state is not None:
        props["state"] = state
    return {"type": "object", "properties": props, "required": ["platform", "data"], "additionalProperties": False}


def tool(name, output, read_only=True, actions=None):
    props = {}
    if actions:
        props["action"] = {"type": ["string", "null"], "enum": actions + [None]}
    return {"name": name, "description": name,
            "inputSchema": {"type": "object", "properties": props, "additionalProperties": False},
            "outputSchema": output, "annotations": {"readOnlyHint": read_only}}


TOOLS = [
    tool("good-read", envelope({"type": "array", "items": STRICT_ROW}, COVERAGE)),
    # C9: a union of an object and an array, two levels down.
    tool("union", envelope({"type": "object", "additionalProperties": False, "properties": {
        "x": {"anyOf": [{"type": "object"}, {"type": "array"}, {"type": "null"}]}}})),
    # C13: a bare message in each row.
    tool("message", envelope({"type": "array", "items": {"type": "object", "additionalProperties": False,
                                                          "properties": {"id": {"type": "integer"},
                                                                         "message": {"type": "string"}}}})),
    # C10: a loose root nobody listed, and an opaque one.
    tool("loose-root", envelope(ECHO)),
    tool("opaque-root", envelope({})),
    # C5: a read tool publishing a post-condition key.
    tool("read-with-post", envelope({"type": "string"}, {
        "type": "object", "properties": {"returned": {"type": "integer"}, "status": {"type": "string"}},
        "additionalProperties": False})),
    # C5: a gated tool (read and mutating actions) with only the coverage face.
    tool("thing-manage", envelope({"type": "string"}, COVERAGE), read_only=False,
         actions=["list", "get", "update"]),
    # C5: a mutation tool publishing coverage.
    tool("writer", envelope({"type": "string"}, COVERAGE), read_only=False),
    # C19: readOnlyHint true with a mutating action (and so gated, with no state: C5 too).
    tool("lying", envelope({"type": "string"}), read_only=True, actions=["get", "delete"]),
    # C1: not the envelope.
    tool("bare", {"type": "object", "properties": {"result": {"type": "string"}}}),
    # C11: a root the server builds (strict) emits a key its schema does not declare.
    tool("underdeclared", envelope({"type": "object", "properties": {"id": {"type": "integer"},
                                                                      "name": {"type": "string"}},
                                    "additionalProperties": False}, resource=True)),
    # Not C11 (listed as echoed for C10): an echoed root declares the keys the server relies on,
    # and the others travel under additionalProperties.
    tool("echo-extra", envelope(ECHO, resource=True)),
    # C12 (listed as echoed for C10): data says another id and name than resource.
    tool("disagree", envelope(ECHO, resource=True)),
]

PLAT = {"name": "broken", "host": "broken.example"}
RESULTS = {
    "good-read": {"platform": PLAT, "data": [{"id": 1}], "state": {"returned": 1}},
    "underdeclared": {"platform": PLAT, "data": {"id": 1, "name": "A", "extra": True},
                      "resource": {"type": "thing", "id": 1, "name": "A"}},
    "echo-extra": {"platform": PLAT, "data": {"id": 3, "name": "C", "created_at": "x", "extra": True},
                   "resource": {"type": "thing", "id": 3, "name": "C"}},
    "disagree": {"platform": PLAT, "data": {"id": 2, "uuid": "u-1", "name": "B"},
                 "resource": {"type": "thing", "id": 1, "uuid": "u-1", "name": "A"}},
}


def answer(request, tools):
    method = request.get("method")
    params = request.get("params") or {}
    if method == "initialize":
        return {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}}, "serverInfo": {"name": "broken", "version": "0"}}
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": tools}
    if method == "tools/call":
        structured = RESULTS.get(params.get("name"))
        if structured is None:
            return {"content": [{"type": "text", "text": "no such call"}], "isError": True}
        text = json.dumps(structured, separators=(",", ":"))
        return {"content": [{"type": "text", "text": text}], "structuredContent": structured}
    raise KeyError(method)


def main():
    tools = TOOLS[:1] if sys.argv[1:] == ["clean"] else TOOLS
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if "id" not in request:
            continue  # a notification
        try:
            reply = {"jsonrpc": "2.0", "id": request["id"], "result": answer(request, tools)}
        except KeyError:
            reply = {"jsonrpc": "2.0", "id": request["id"],
                     "error": {"code": -32601, "message": "Method not found"}}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
