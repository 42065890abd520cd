// One Vercel AI SDK session, as `modyo-lab clients` runs it (Node 22: `ai` requires it).
//
// Usage: node driver.mjs SESSION.json, where the file holds
//   { baseUrl, model, prompt, maxCalls, serverName, server: { command, args, env } }.
// @ai-sdk/mcp starts the server over stdio; its tools go to generateText with an OpenAI
// Responses model (@ai-sdk/openai) whose API is the lab's capture endpoint at `baseUrl` (a dummy
// key). Prints one JSON line: {"text": <the model's last text>}.
import { readFileSync } from "node:fs";
import { generateText, stepCountIs } from "ai";
import { createMCPClient } from "@ai-sdk/mcp";
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { createOpenAI } from "@ai-sdk/openai";

const session = JSON.parse(readFileSync(process.argv[2], "utf8"));
const client = await createMCPClient({
  transport: new StdioMCPTransport({
    command: session.server.command,
    args: session.server.args,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...session.server.env },
  }),
});
try {
  const tools = await client.tools();
  const openai = createOpenAI({ baseURL: `${session.baseUrl}/v1`, apiKey: "modyo-lab-dummy-key" });
  const result = await generateText({
    model: openai.responses(session.model),
    tools,
    prompt: session.prompt,
    stopWhen: stepCountIs(session.maxCalls + 2),
  });
  process.stdout.write(JSON.stringify({ text: result.text }) + "\n");
} finally {
  await client.close();
}
