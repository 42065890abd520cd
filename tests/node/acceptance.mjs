// Strict-client acceptance: the official TypeScript SDK client against the offline server.
//
// The SDK client validates `structuredContent` against a tool's `outputSchema` only for tools it
// has seen in `tools/list`, so every session calls `listTools()` FIRST; after that, a result that
// breaks its own schema makes `callTool` throw.
//
// Usage: node acceptance.mjs <modyo-lab binary> <cassettes dir> <stdio|http>
//
// Every scenario of every cassette (except those tagged `fault`) is called through
// `modyo-lab serve` (stdio: a child process per scenario group; http: `serve --http
// 127.0.0.1:0` per group), grouped by the scenario's `env`, and its outcome checked against the
// scenario's `expect`. Prints one line per scenario and a summary; exits non-zero on any failure.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { loadScenarios, problems, report, serverEnv, startHttpServer } from "./lib.mjs";

const [binary, cassettes, transportName] = process.argv.slice(2);
if (!binary || !cassettes || !["stdio", "http"].includes(transportName)) {
  console.error("usage: node acceptance.mjs <modyo-lab binary> <cassettes dir> <stdio|http>");
  process.exit(2);
}

async function connect(groupKey) {
  const env = serverEnv(groupKey);
  if (transportName === "stdio") {
    const transport = new StdioClientTransport({
      command: binary,
      args: ["serve", "--cassettes", cassettes],
      env,
      stderr: "ignore",
    });
    return { transport, async stop() {} };
  }
  const server = await startHttpServer(binary, cassettes, env);
  return { transport: new StreamableHTTPClientTransport(new URL(server.url)), stop: server.stop };
}

async function runGroup(groupKey, scenarios) {
  const failures = [];
  const { transport, stop } = await connect(groupKey);
  const client = new Client({ name: "modyo-acceptance", version: "1.0.0" });
  try {
    await client.connect(transport);
    // First: without tools/list the SDK has no outputSchema to validate against.
    const listed = await client.listTools();
    const schemas = new Map(listed.tools.map((t) => [t.name, t.outputSchema]));
    for (const { label, scenario } of scenarios) {
      if (!schemas.has(scenario.tool)) {
        failures.push(`${label}: tool ${scenario.tool} is not listed`);
        continue;
      }
      let result;
      try {
        // callTool validates structuredContent against the listed outputSchema.
        result = await client.callTool({ name: scenario.tool, arguments: scenario.arguments || {} });
      } catch (e) {
        failures.push(`${label}: client rejected the result: ${e && e.message ? e.message : e}`);
        continue;
      }
      const found = problems(scenario, result, schemas.get(scenario.tool) != null);
      if (found.length > 0) failures.push(`${label}: ${found.join("; ")}`);
      else console.log(`ok   ${label}`);
    }
  } finally {
    await client.close().catch(() => {});
    await stop();
  }
  return failures;
}

const groups = loadScenarios(cassettes);
let total = 0;
const failures = [];
for (const [key, scenarios] of groups) {
  total += scenarios.length;
  failures.push(...(await runGroup(key, scenarios)));
}
process.exitCode = report(`the TypeScript SDK client (${transportName})`, total, failures);
