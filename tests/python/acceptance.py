"""Strict-client acceptance: the official Python MCP client against the offline server.

The Python `mcp` client validates every `structuredContent` against the tool's
`outputSchema` (after `tools/list`) and raises on a mismatch, so a response that breaks
its own schema fails here even if our Rust tests miss it.

Usage: acceptance.py <modyo-lab binary> <cassettes dir>

Every scenario of every cassette (except those tagged `fault`) is called through
`modyo-lab serve`, grouped by the scenario's `env`, and its outcome checked against the
scenario's `expect`. Prints one line per scenario and a summary; exits non-zero on any
failure.
"""

import asyncio
import json
import os
import pathlib
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def load_scenarios(root: pathlib.Path):
    groups = {}
    for path in sorted(root.rglob("*.json")):
        cassette = json.loads(path.read_text(encoding="utf-8"))
        if "fault" in cassette.get("tags", []):
            continue
        name = path.relative_to(root).with_suffix("").as_posix()
        for scenario in cassette.get("scenarios", []):
            env = scenario.get("env", {})
            key = json.dumps(env, sort_keys=True)
            groups.setdefault(key, []).append((name, scenario))
    return groups


def error_code(result) -> str | None:
    try:
        return json.loads(result.content[0].text)["error"]["code"]
    except (ValueError, KeyError, IndexError, AttributeError):
        return None


async def run_group(binary: str, cassettes: str, env: dict, scenarios) -> list[str]:
    failures = []
    server_env = dict(os.environ)
    server_env.update(env)
    params = StdioServerParameters(command=binary, args=["serve", "--cassettes", cassettes], env=server_env)
    async with stdio_client(params) as streams:
        read, write = streams[0], streams[1]
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
                outcome = "error" if result.is_error else ("control" if (result.structured_content or {}).get("control") else "success")
                problems = []
                if outcome != expect["outcome"]:
                    problems.append(f"outcome {outcome}, expected {expect['outcome']}")
                if outcome == "error" and expect.get("code") and error_code(result) != expect["code"]:
                    problems.append(f"error code {error_code(result)}, expected {expect['code']}")
                if outcome != "error" and schemas[tool] is not None:
                    if result.structured_content is None:
                        problems.append("no structuredContent although the tool declares an outputSchema")
                    elif json.loads(result.content[0].text) != result.structured_content:
                        problems.append("content[0].text is not the structuredContent")
                if problems:
                    failures.append(f"{label}: " + "; ".join(problems))
                else:
                    print(f"ok   {label}")
    return failures


async def main() -> int:
    binary, cassettes = sys.argv[1], sys.argv[2]
    groups = load_scenarios(pathlib.Path(cassettes))
    failures, total = [], 0
    for key in sorted(groups):
        total += len(groups[key])
        failures += await run_group(binary, cassettes, json.loads(key), groups[key])
    for failure in failures:
        print(f"FAIL {failure}")
    print(f"{total - len(failures)}/{total} scenarios passed through the Python mcp client")
    return 1 if failures or total == 0 else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
