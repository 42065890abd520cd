// One Claude Agent SDK session, as `modyo-lab clients` runs it.
//
// Usage: node driver.mjs SESSION.json, where the file holds
//   { baseUrl, prompt, maxCalls, serverName, server: { command, args, env } }.
// query() spawns the native claude binary of the SDK's platform package with the server as its
// only MCP server and only its tools allowed; no settings file is read and no session kept. The
// `env` option replaces the child's environment, so it holds everything the child gets: the
// session's home (HOME, TMPDIR, CLAUDE_CONFIG_DIR), the Messages API at `baseUrl` with a dummy
// key, and no nonessential traffic. Prints one JSON line: {"text": <the result's text>}.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { query } from "@anthropic-ai/claude-agent-sdk";

const session = JSON.parse(readFileSync(process.argv[2], "utf8"));
const home = process.env.HOME;
const env = {
  PATH: process.env.PATH ?? "",
  HOME: home,
  TMPDIR: home,
  NO_PROXY: "127.0.0.1,localhost",
  CLAUDE_CONFIG_DIR: join(home, ".claude"),
  ANTHROPIC_BASE_URL: session.baseUrl,
  ANTHROPIC_API_KEY: "sk-ant-modyo-lab-dummy",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
};
const options = {
  cwd: process.cwd(),
  env,
  mcpServers: { [session.serverName]: session.server },
  strictMcpConfig: true,
  allowedTools: [`mcp__${session.serverName}`],
  settingSources: [],
  persistSession: false,
  maxTurns: session.maxCalls + 5,
  stderr: (data) => process.stderr.write(data),
};
let result = null;
for await (const message of query({ prompt: session.prompt, options })) {
  if (message.type === "result") result = message;
}
const ok = result && result.subtype === "success" && !result.is_error;
process.stdout.write(JSON.stringify({ text: ok ? result.result : null, result }) + "\n");
