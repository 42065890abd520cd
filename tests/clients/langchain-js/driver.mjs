// One LangChain.js session, as `modyo-lab clients` runs it.
//
// Usage: node driver.mjs SESSION.json, where the file holds
//   { baseUrl, model, prompt, maxCalls, serverName, server: { command, args, env } }.
// MultiServerMCPClient starts the server over stdio; its tools go to createAgent with ChatOpenAI
// (Chat Completions) at the lab's capture endpoint (a dummy key). @langchain/core fetches a
// tiktoken encoding from https://tiktoken.pages.dev when it counts tokens; offline that fetch is
// retried for minutes, so it is served from the ranks js-tiktoken ships (no network). Prints one
// JSON line: {"text": <the last message's text>}.
import { readFileSync } from "node:fs";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent } from "langchain";

const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = typeof input === "string" ? input : input.url;
  const m = /^https:\/\/tiktoken\.pages\.dev\/js\/(\w+)\.json$/.exec(url ?? "");
  if (m) {
    const ranks = (await import(`js-tiktoken/ranks/${m[1]}`)).default;
    return new Response(JSON.stringify(ranks), { status: 200, headers: { "content-type": "application/json" } });
  }
  return realFetch(input, init);
};

const session = JSON.parse(readFileSync(process.argv[2], "utf8"));
const client = new MultiServerMCPClient({
  mcpServers: {
    [session.serverName]: {
      transport: "stdio",
      command: session.server.command,
      args: session.server.args,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...session.server.env },
    },
  },
});
try {
  const tools = await client.getTools();
  const llm = new ChatOpenAI({ model: session.model, apiKey: "modyo-lab-dummy-key", configuration: { baseURL: `${session.baseUrl}/v1` } });
  const agent = createAgent({ model: llm, tools });
  const result = await agent.invoke(
    { messages: [{ role: "user", content: session.prompt }] },
    { recursionLimit: 2 * session.maxCalls + 10 },
  );
  const last = result.messages[result.messages.length - 1];
  const text = typeof last.content === "string" ? last.content : last.text;
  process.stdout.write(JSON.stringify({ text }) + "\n");
} finally {
  await client.close();
}
