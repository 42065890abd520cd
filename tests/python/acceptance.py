"""Strict-client acceptance: the official Python MCP client against the offline server.

The Python `mcp` client validates every `structuredContent` against the tool's
`outputSchema` (after `tools/list`) and raises on a mismatch, so a response that breaks
its own schema fails here even if our Rust tests miss it.

Usage: acceptance.py <modyo-lab binary> <cassettes dir> [stdio|http]

Every scenario of every cassette (except those tagged `fault`) is called through
`modyo-lab serve` (stdio: a child process per scenario group; http: `serve --http
127.0.0.1:0` per group, over the streamable HTTP client), grouped by the scenario's `env`, and
its outcome checked against the scenario's `expect` and its shape against the result form the
server inherits (`MODYO_RESULTS`, `MODYO_OUTPUT_SCHEMA`; C22). `MODYO_ACCEPTANCE_TOOL`, when
set, keeps only that tool's scenarios. Prints one line per scenario and a summary; exits non-zero on any
failure.
"""

import asyncio
import contextlib
import json
import os
import pathlib
import re
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


def load_scenarios(root: pathlib.Path):
    only = os.environ.get("MODYO_ACCEPTANCE_TOOL") or None
    groups = {}
    for path in sorted(root.rglob("*.json")):
        if path.name.endswith(".new.json"):  # candidates for review, never loaded
            continue
        cassette = json.loads(path.read_text(encoding="utf-8"))
        if "fault" in cassette.get("tags", []):
            continue
        name = path.relative_to(root).with_suffix("").as_posix()
        for scenario in cassette.get("scenarios", []):
            if only and scenario["tool"] != only:
                continue
            env = scenario.get("env", {})
            key = json.dumps(env, sort_keys=True)
            groups.setdefault(key, []).append((name, scenario))
    return groups


# The result form the server answers in (C22), from the environment it inherits, and whether
# its tools list an outputSchema.
FORM = (os.environ.get("MODYO_RESULTS") or "both").strip().lower()
ERRORS_TEXT = (os.environ.get("MODYO_ERRORS") or "").strip().lower() == "text"
SCHEMAS_LISTED = FORM != "text" and (os.environ.get("MODYO_OUTPUT_SCHEMA") or "").strip().lower() not in ("off", "false", "0", "no")


def envelope_of(result):
    """structuredContent, or the JSON of the text (the text form)."""
    if result.structured_content is not None:
        return result.structured_content
    try:
        return json.loads(result.content[0].text)
    except (ValueError, IndexError, AttributeError):
        return None


def form_problems(result, outcome: str, has_schema: bool) -> list[str]:
    """What the result keeps other than the server's result form says."""
    problems = []
    if has_schema != SCHEMAS_LISTED:
        problems.append(f"outputSchema {'listed' if has_schema else 'not listed'} in the {FORM} form")
    text = result.content[0].text if result.content and getattr(result.content[0], "type", None) == "text" else None
    if outcome == "error":
        start = "Error (" if ERRORS_TEXT else '{"error":'
        if text is None or not text.startswith(start):
            problems.append("the error text does not start with the error")
        if result.structured_content is not None:
            problems.append("an error carries structuredContent")
        return problems
    try:
        parsed = json.loads(text) if text is not None else None
    except ValueError:
        parsed = None
    if FORM == "both":
        if result.structured_content is None:
            problems.append("no structuredContent in the both form")
        elif parsed != result.structured_content:
            problems.append("content[0].text is not the structuredContent")
    elif FORM == "structured":
        if result.structured_content is None:
            problems.append("no structuredContent in the structured form")
        if len(result.content) != 0:
            problems.append(f"content has {len(result.content)} block(s) in the structured form")
    elif FORM == "text":
        if result.structured_content is not None:
            problems.append("structuredContent in the text form")
        if not isinstance(parsed, dict) or not isinstance(parsed.get("platform"), dict) or "data" not in parsed:
            problems.append("the text is not the envelope {platform, data, ...}")
    else:
        problems.append(f"unknown result form {FORM}")
    return problems


def error_code(result) -> str | None:
    """The code of a C16 error: the JSON's `error`, or under MODYO_ERRORS=text the word in
    `Error (<code>): ...`."""
    try:
        text = result.content[0].text
    except (IndexError, AttributeError):
        return None
    if ERRORS_TEXT:
        if text.startswith("Error (") and "): " in text:
            return text[len("Error ("):text.index("): ")]
        return None
    try:
        return json.loads(text)["error"]
    except (ValueError, KeyError, TypeError):
        return None


@contextlib.asynccontextmanager
async def http_server(binary: str, cassettes: str, env: dict):
    """`modyo-lab serve --http 127.0.0.1:0`; yields the URL it announces on stderr."""
    process = await asyncio.create_subprocess_exec(
        binary, "serve", "--cassettes", cassettes, "--http", "127.0.0.1:0",
        env=env, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    seen = []
    try:
        url = None
        while url is None:
            line = await asyncio.wait_for(process.stderr.readline(), timeout=120)
            if not line:
                raise RuntimeError("the HTTP server exited before announcing its URL:\n" + "".join(seen))
            seen.append(line.decode(errors="replace"))
            match = re.search(r"MCP over streamable HTTP at (http://\S+)", seen[-1])
            url = match.group(1) if match else None

        async def drain():
            while await process.stderr.readline():
                pass

        drainer = asyncio.create_task(drain())
        yield url
    finally:
        if process.returncode is None:
            process.terminate()
        await process.wait()
        if "drainer" in locals():
            await drainer


@contextlib.asynccontextmanager
async def connect(binary: str, cassettes: str, env: dict, transport: str):
    server_env = dict(os.environ)
    server_env["RUST_LOG"] = "error"
    server_env.update(env)
    if transport == "stdio":
        params = StdioServerParameters(command=binary, args=["serve", "--cassettes", cassettes], env=server_env)
        async with stdio_client(params) as streams:
            yield streams[0], streams[1]
    else:
        async with http_server(binary, cassettes, server_env) as url:
            async with streamable_http_client(url) as streams:
                yield streams[0], streams[1]


async def run_group(binary: str, cassettes: str, env: dict, scenarios, transport: str) -> list[str]:
    failures = []
    async with connect(binary, cassettes, env, transport) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            schemas = {t.name: t.output_schema for t in listed.tools}
            for cassette, scenario in scenarios:
                label = f"{cassette}#{scenario['name']}"
                tool = scenario["tool"]
                expect = scenario.get("expect", {"outcome": "success"})
                if tool not in schemas:
                    failures.append(f"{label}: tool {tool} is not listed")
                    continue
                try:
                    # call_tool validates structuredContent against the listed outputSchema.
                    result = await session.call_tool(tool, scenario.get("arguments", {}))
                except Exception as exc:  # the strict client rejected the response
                    failures.append(f"{label}: client rejected the result: {exc}")
                    continue
                envelope = envelope_of(result)
                controlled = isinstance(envelope, dict) and envelope.get("control")
                outcome = "error" if result.is_error else ("control" if controlled else "success")
                problems = []
                if outcome != expect["outcome"]:
                    problems.append(f"outcome {outcome}, expected {expect['outcome']}")
                if outcome == "error" and expect.get("code") and error_code(result) != expect["code"]:
                    problems.append(f"error code {error_code(result)}, expected {expect['code']}")
                problems += form_problems(result, outcome, schemas[tool] is not None)
                if problems:
                    failures.append(f"{label}: " + "; ".join(problems))
                else:
                    print(f"ok   {label}")
    return failures


async def main() -> int:
    binary, cassettes = sys.argv[1], sys.argv[2]
    transport = sys.argv[3] if len(sys.argv) > 3 else "stdio"
    if transport not in ("stdio", "http"):
        print(f"unknown transport {transport}: stdio or http", file=sys.stderr)
        return 2
    groups = load_scenarios(pathlib.Path(cassettes))
    failures, total = [], 0
    for key in sorted(groups):
        total += len(groups[key])
        failures += await run_group(binary, cassettes, json.loads(key), groups[key], transport)
    for failure in failures:
        print(f"FAIL {failure}")
    print(f"{total - len(failures)}/{total} scenarios passed through the Python mcp client ({transport})")
    return 1 if failures or total == 0 else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
