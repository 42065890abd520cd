"""One mcp-use session, as `modyo-lab clients` runs it.

Usage: python driver.py SESSION.json, where the file holds
  {baseUrl, model, prompt, maxCalls, serverName, server: {command, args, env}}.
MCPClient starts the server; MCPAgent runs LangChain's ChatOpenAI (Chat Completions) at the lab's
capture endpoint (a dummy key). Telemetry is off (MCP_USE_ANONYMIZED_TELEMETRY=false, set before
mcp_use is imported). Prints one JSON line: {"text": <the agent's output>}.
"""
import asyncio
import json
import os
import sys

os.environ["MCP_USE_ANONYMIZED_TELEMETRY"] = "false"

from langchain_openai import ChatOpenAI  # noqa: E402
from mcp_use import MCPAgent, MCPClient  # noqa: E402


async def main(session):
    server = session["server"]
    client = MCPClient.from_dict({"mcpServers": {session["serverName"]: {
        "command": server["command"], "args": server["args"],
        "env": {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", ""), **server["env"]}}}})
    llm = ChatOpenAI(model=session["model"], base_url=session["baseUrl"] + "/v1", api_key="modyo-lab-dummy-key")
    # max_steps caps the model calls; mcp-use sets LangGraph's recursion limit to twice it, and a
    # tool call takes more than two graph steps in its agent.
    agent = MCPAgent(llm=llm, client=client, max_steps=2 * session["maxCalls"] + 10)
    try:
        output = await agent.run(session["prompt"])
    finally:
        await client.close_all_sessions()
    print(json.dumps({"text": output}, default=str))


with open(sys.argv[1]) as f:
    asyncio.run(main(json.load(f)))
