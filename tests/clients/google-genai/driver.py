"""One Google GenAI (Python) session, as `modyo-lab clients` runs it.

Usage: python driver.py SESSION.json, where the file holds
  {baseUrl, model, prompt, maxCalls, serverName, server: {command, args, env}}.
The mcp SDK's ClientSession (stdio) is passed as a tool to generate_content, whose automatic
function calling makes the calls; the Gemini API is the lab's capture endpoint (a dummy key). The
config is a dict: a types.GenerateContentConfig holding a session fails to deep-copy ("cannot
pickle '_asyncio.Task' object"). Prints one JSON line: {"text": <the model's last text>}.

One patch: google-genai 3.6.1 converts each MCP tool's input schema with
_mcp_utils._filter_to_supported_schema, which recurses into `additionalProperties` (and `items`)
as if it were always an object and raises AttributeError on JSON Schema's boolean form
(`"additionalProperties": false`), before any request: the SDK cannot use a server whose schemas
say so (ours do). The driver guards that function: `false` is returned unchanged (the SDK's
JSONSchema takes it for additionalProperties), `true` as `{}`, the schema that accepts the same
(its JSONSchema takes no boolean where a schema goes: the legacy customers tools' `"items": true`
fails its validation); every other schema goes through the SDK's own code.
"""
import asyncio
import json
import sys

from google import genai
from google.genai import types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from google.genai import _mcp_utils

_filter_to_supported_schema = _mcp_utils._filter_to_supported_schema


def _boolean_schemas_pass(schema):
    if schema is True:
        return {}
    return schema if isinstance(schema, bool) else _filter_to_supported_schema(schema)


_mcp_utils._filter_to_supported_schema = _boolean_schemas_pass


async def main(session):
    server = session["server"]
    params = StdioServerParameters(command=server["command"], args=server["args"], env=server["env"])
    client = genai.Client(api_key="modyo-lab-dummy-key", http_options=types.HttpOptions(base_url=session["baseUrl"]))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as mcp:
            await mcp.initialize()
            config = {"tools": [mcp], "automatic_function_calling": {"maximum_remote_calls": session["maxCalls"]}}
            response = await client.aio.models.generate_content(
                model=session["model"], contents=session["prompt"], config=config)
    print(json.dumps({"text": response.text}))


with open(sys.argv[1]) as f:
    asyncio.run(main(json.load(f)))
