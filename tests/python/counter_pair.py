#!/usr/bin/env python3
"""Two builds of a tiny MCP server whose one tool answers fewer characters after but more BPE
tokens: what a character counter and a tokenizer disagree on, for the lab's counter test.

    counter_pair.py v1    prose: common English words (about four characters a token)
    counter_pair.py v2    a hex digest, shorter, of the same facts (about two characters a token)

Raw JSON-RPC on stdio (`tiny_server.py`), Python's standard library only; deterministic.
"""

import hashlib
import sys

sys.dont_write_bytecode = True  # nothing written beside the scripts

from tiny_server import serve  # noqa: E402

VERSION = sys.argv[1] if len(sys.argv) > 1 else "v1"

PROSE = " ".join(["the river and the forest are on the same shelf as the book of the north"] * 6)
DIGEST = "".join(hashlib.sha256(f"{i}".encode()).hexdigest() for i in range(5))[:300]

TOOL = {
    "name": "shelf_note",
    "description": "A note about the shelf.",
    "inputSchema": {"type": "object", "properties": {}},
}


def call(_name):
    return PROSE if VERSION == "v1" else DIGEST


serve("counter-pair", VERSION, [TOOL], call)
