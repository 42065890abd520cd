"""One OpenAI Agents SDK (Python) session, as `modyo-lab clients` runs it.

Usage: python driver.py SESSION.json, where the file holds
  {baseUrl, model, prompt, maxCalls, serverName, server: {command, args, env}}.
MCPServerStdio starts the server; the agent's model is the Responses API (OpenAIResponsesModel)
of an AsyncOpenAI client pointed at the lab's capture endpoint (a dummy key); tracing is off.
Prints one JSON line: {"text": <the final output>}.
"""
import asyncio
import json
import os
import sys

from agents import Agent, OpenAIResponsesModel, Runner, set_tracing_disabled
from agents.mcp import MCPServerStdio
from openai import AsyncOpenAI


async def main(session):
    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=session["baseUrl"] + "/v1", api_key="modyo-lab-dummy-key")
    server = session["server"]
    params = {"command": server["command"], "args": server["args"],
              "env": {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", ""), **server["env"]}}
    async with MCPServerStdio(params=params, name=session["serverName"], client_session_timeout_seconds=60) as mcp:
        model = OpenAIResponsesModel(model=session["model"], openai_client=client)
        agent = Agent(name="modyo-lab", instructions="Follow the session.", mcp_servers=[mcp], model=model)
        result = await Runner.run(agent, session["prompt"], max_turns=session["maxCalls"] + 5)
    print(json.dumps({"text": result.final_output}))


with open(sys.argv[1]) as f:
    asyncio.run(main(json.load(f)))
