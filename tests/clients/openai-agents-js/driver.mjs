// One OpenAI Agents SDK (JavaScript) session, as `modyo-lab clients` runs it.
//
// Usage: node driver.mjs SESSION.json, where the file holds
//   { baseUrl, model, prompt, maxCalls, serverName, server: { command, args, env } }.
// MCPServerStdio starts the server; the agent's model is the Responses API of the default
// OpenAI client, pointed at the lab's capture endpoint (a dummy key); tracing is off. Prints one
// JSON line: {"text": <the final output>}.
import { readFileSync } from "node:fs";
import OpenAI from "openai";
import { Agent, MCPServerStdio, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } from "@openai/agents";

const session = JSON.parse(readFileSync(process.argv[2], "utf8"));
setTracingDisabled(true);
setDefaultOpenAIClient(new OpenAI({ baseURL: `${session.baseUrl}/v1`, apiKey: "modyo-lab-dummy-key" }));
setOpenAIAPI("responses");
const server = new MCPServerStdio({
  name: session.serverName,
  command: session.server.command,
  args: session.server.args,
  env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...session.server.env },
});
await server.connect();
try {
  const agent = new Agent({ name: "modyo-lab", instructions: "Follow the session.", model: session.model, mcpServers: [server] });
  const result = await run(agent, session.prompt, { maxTurns: session.maxCalls + 5 });
  process.stdout.write(JSON.stringify({ text: result.finalOutput ?? null }) + "\n");
} finally {
  await server.close();
}
