"""One LangChain (Python) session, as `modyo-lab clients` runs it.

Usage: python driver.py SESSION.json, where the file holds
  {baseUrl, model, prompt, maxCalls, serverName, server: {command, args, env}}.
MultiServerMCPClient (stdio; it starts the server anew for each call) gives its tools to
langchain's create_agent with ChatOpenAI (Chat Completions) at the lab's capture endpoint (a
dummy key). Prints one JSON line: {"text": <the last message's text>}.
"""
import asyncio
import json
import os
import sys

from langchain.agents import create_agent
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_openai import ChatOpenAI


async def main(session):
    server = session["server"]
    client = MultiServerMCPClient({session["serverName"]: {
        "transport": "stdio", "command": server["command"], "args": server["args"],
        "env": {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", ""), **server["env"]}}})
    tools = await client.get_tools()
    llm = ChatOpenAI(model=session["model"], base_url=session["baseUrl"] + "/v1", api_key="modyo-lab-dummy-key")
    agent = create_agent(llm, tools)
    result = await agent.ainvoke({"messages": [{"role": "user", "content": session["prompt"]}]},
                                 config={"recursion_limit": 2 * session["maxCalls"] + 10})
    last = result["messages"][-1]
    print(json.dumps({"text": last.content if isinstance(last.content, str) else last.text}))


with open(sys.argv[1]) as f:
    asyncio.run(main(json.load(f)))
