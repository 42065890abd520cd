#!/usr/bin/env python3
"""Two builds of a tiny MCP server that differ in one tool's description only, for the
lab's `diff` test: the verdict must show that tool and the catalogue moving, nothing else.

    verdict_pair.py v1    three tools
    verdict_pair.py v2    the same, `shelf_find`'s description longer

Raw JSON-RPC on stdio (`tiny_server.py`), Python's standard library only; deterministic.
"""

import sys

sys.dont_write_bytecode = True  # nothing written beside the scripts

from tiny_server import serve  # noqa: E402

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


serve("verdict-pair", VERSION, TOOLS, lambda name: ANSWERS.get(name, "?"))
