"""One pydantic-ai session, as `modyo-lab clients` runs it.

Usage: python driver.py SESSION.json, where the file holds
  {baseUrl, model, prompt, maxCalls, serverName, server: {command, args, env}}.
An MCPToolset over FastMCP's stdio transport (its defaults: no server instructions, no return
schema) on an Agent whose model is Chat Completions (OpenAIChatModel) at the lab's capture
endpoint (a dummy key), with a request limit above the session's calls. pydantic-ai hands an
`isError` result back to the model as a retry prompt and, by default, ends the run with
UnexpectedModelBehavior at a tool's second failure; the sessions call every error scenario of a
module, so the toolset may retry as many times as the session has calls (the form the model gets
stays the default one). Prints one JSON line: {"text": <the output>}.
"""
import asyncio
import json
import os
import sys

from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits


async def main(session):
    server = session["server"]
    transport = StdioTransport(command=server["command"], args=server["args"],
                               env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", ""), **server["env"]})
    toolset = MCPToolset(transport, max_retries=session["maxCalls"])
    provider = OpenAIProvider(base_url=session["baseUrl"] + "/v1", api_key="modyo-lab-dummy-key")
    agent = Agent(OpenAIChatModel(session["model"], provider=provider), toolsets=[toolset],
                  instructions="Follow the session.")
    async with agent:
        result = await agent.run(session["prompt"],
                                 usage_limits=UsageLimits(request_limit=session["maxCalls"] + 5))
    print(json.dumps({"text": result.output}))


with open(sys.argv[1]) as f:
    asyncio.run(main(json.load(f)))
