// One session of the @google/genai SDK's MCP adapter, as `modyo-lab clients` runs it.
//
// Usage: node driver.mjs SESSION.json, where the file holds
//   { baseUrl, model, prompt, maxCalls, serverName, server: { command, args, env } }.
// The MCP TypeScript SDK starts the server (stdio); `mcpToTool` hands its tools to the Gemini
// client, whose API is the lab's capture endpoint at `baseUrl` (a dummy key; nothing leaves the
// machine). Automatic function calling makes every call the scripted model asks for, up to
// `maxCalls`. Prints one JSON line: {"text": <the model's last text>}.
import { readFileSync } from "node:fs";
import { GoogleGenAI, mcpToTool } from "@google/genai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const session = JSON.parse(readFileSync(process.argv[2], "utf8"));
const transport = new StdioClientTransport({
  command: session.server.command,
  args: session.server.args,
  env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...session.server.env },
  stderr: "inherit",
});
const client = new Client({ name: "modyo-lab-genai", version: "1.0.0" });
await client.connect(transport);
try {
  const ai = new GoogleGenAI({ apiKey: "modyo-lab-dummy-key", httpOptions: { baseUrl: session.baseUrl } });
  const response = await ai.models.generateContent({
    model: session.model,
    contents: session.prompt,
    config: {
      tools: [mcpToTool(client)],
      automaticFunctionCalling: { maximumRemoteCalls: session.maxCalls },
    },
  });
  process.stdout.write(JSON.stringify({ text: response.text ?? null }) + "\n");
} finally {
  await client.close();
}
