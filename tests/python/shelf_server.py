#!/usr/bin/env python3
"""A small MCP server that is not ours, for `modyo-lab measure --before/--after` tests.

A book shelf, written with the official Python SDK (`mcp`, pinned in requirements.txt), in two
versions, the way a team would compare two builds of its own server:

    shelf_server.py v1    text only: verbose lines, no output schema
    shelf_server.py v2    structured: an output schema per tool, compact rows, one tool more
                          (shelf_count), and instructions for the model

Nothing here knows about Modyo or the lab's envelope. Deterministic: a fixed catalogue of books.
"""

import sys

from pydantic import BaseModel, Field

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

VERSION = sys.argv[1] if len(sys.argv) > 1 else "v1"

BOOKS = [
    {"isbn": f"978-0-00-{i:06d}-{i % 10}", "title": title, "author": author, "year": year, "pages": pages,
     "summary": f"{title}, by {author}: a field guide with maps, tables and a long bibliography."}
    for i, (title, author, year, pages) in enumerate([
        ("Rivers of Chile", "A. Soto", 1998, 312),
        ("Notes on Glaciers", "B. Rojas", 2004, 188),
        ("The Atacama at Night", "C. Vera", 2011, 240),
        ("Southern Forests", "D. Muñoz", 1987, 410),
        ("Tides and Harbours", "E. Lagos", 2019, 156),
        ("Volcanoes of the Andes", "F. Pino", 2001, 298),
    ], start=1)
]

server = MCPServer(
    "shelf",
    instructions=(
        "Search the shelf with books_search before asking for one book with book_get."
        if VERSION == "v2"
        else None
    ),
)


def matching(query: str):
    return [b for b in BOOKS if query.lower() in (b["title"] + " " + b["author"]).lower()]


if VERSION == "v1":
    @server.tool(structured_output=False)
    def books_search(query: str) -> str:
        """Search the shelf by title or author. Returns one line per book with every detail."""
        found = matching(query)
        if not found:
            return f"No book on the shelf matches '{query}'."
        return "\n".join(
            f"Book: {b['title']} | Author: {b['author']} | Year: {b['year']} | Pages: {b['pages']} | "
            f"ISBN: {b['isbn']} | Summary: {b['summary']}" for b in found)

    @server.tool(structured_output=False)
    def book_get(isbn: str) -> str:
        """Get one book by ISBN, every detail."""
        for b in BOOKS:
            if b["isbn"] == isbn:
                return "\n".join(f"{k.capitalize()}: {v}" for k, v in b.items())
        raise ToolError(f"no book with ISBN {isbn}")
else:
    class Row(BaseModel):
        isbn: str = Field(description="ISBN-13 with hyphens")
        title: str
        year: int

    class Book(Row):
        author: str
        pages: int = Field(description="Printed pages")
        summary: str

    class Found(BaseModel):
        books: list[Row]
        total: int = Field(description="Books that match, all returned")

    @server.tool()
    def books_search(query: str) -> Found:
        """Search the shelf by title or author: ISBN, title and year per book (book_get for the rest)."""
        found = matching(query)
        return Found(books=[Row(isbn=b["isbn"], title=b["title"], year=b["year"]) for b in found], total=len(found))

    @server.tool()
    def book_get(isbn: str) -> Book:
        """Get one book by ISBN."""
        for b in BOOKS:
            if b["isbn"] == isbn:
                return Book(**b)
        raise ToolError(f"no book with ISBN {isbn}")

    @server.tool()
    def shelf_count() -> int:
        """How many books the shelf holds."""
        return len(BOOKS)

server.run()
