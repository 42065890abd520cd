// Acceptance through the MCP Inspector CLI (`mcp-inspector --cli --format json`), which lists
// the tools, calls one, and fails the call when its `structuredContent` breaks the tool's
// `outputSchema`. It needs Node >= 22.19: run this script with the Node 22 build installed by
// `make node-tools` (.tools/node/node_modules/.bin/node).
//
// Usage: node inspector.mjs <modyo-lab binary> <cassettes dir> <http|stdio>
//
// A call of the CLI as a program costs a Node start-up (about a second of CPU) and, over
// stdio, a server start. So:
// http: for each scenario group (same `env`), one `modyo-lab serve --http 127.0.0.1:0`;
//   `tools/list` through the CLI as a program (the launcher, a Node process), then EVERY
//   scenario of the group through the CLI's own entry point in this process: `runCli` of the
//   CLI bundle, which is what the launcher calls, with the same arguments (the result goes to
//   an `--output` file). Same parsing, connection, `tools/list`, call and output validation as
//   the program, without a Node start-up per call; MODYO_INSPECTOR_JOBS calls at a time
//   (default 4). MODYO_INSPECTOR_PROCESSES=1 makes every call a process, as a user runs it.
// stdio: the CLI as a program spawns `modyo-lab serve` itself for every call, so each call
//   also pays a server start (every cassette loaded): `tools/list` and the first scenario of
//   every (module, expected outcome) pair, per group, chosen from the cassettes (never a hand
//   list), MODYO_INSPECTOR_JOBS at a time (default 2); the stdio transport is covered
//   scenario by scenario by the TypeScript SDK and Python clients.
// MODYO_INSPECTOR_ALL=1 runs every scenario over stdio too; with MODYO_ACCEPTANCE_TOOL (one
// tool) every scenario of that tool runs.
// Prints one line per scenario and a summary; exits non-zero on any failure.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { loadScenarios, problems, report, serverEnv, startHttpServer } from "./lib.mjs";

const [binary, cassettes, transportName] = process.argv.slice(2);
if (!binary || !cassettes || !["stdio", "http"].includes(transportName)) {
  console.error("usage: node inspector.mjs <modyo-lab binary> <cassettes dir> <http|stdio>");
  process.exit(2);
}
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(`the Inspector needs Node >= 22.19, this is ${process.version}: use .tools/node/node_modules/.bin/node (make node-tools)`);
  process.exit(2);
}

const inspectorDir = new URL("./node_modules/@modelcontextprotocol/inspector/clients/", import.meta.url);
const launcher = fileURLToPath(new URL("launcher/build/index.js", inspectorDir));
const cliBundle = pathToFileURL(fileURLToPath(new URL("cli/build/index.js", inspectorDir))).href;
const processes = transportName === "stdio" || process.env.MODYO_INSPECTOR_PROCESSES === "1";
const jobs = Math.max(1, Number(process.env.MODYO_INSPECTOR_JOBS || (processes ? 2 : 4)));
// The Inspector keeps a catalog and client settings under $HOME: give it a scratch home (the
// in-process CLI reads the same variables from this process).
const home = mkdtempSync(join(tmpdir(), "modyo-inspector-"));
const inspectorEnv = {
  ...process.env,
  HOME: home,
  MCP_CATALOG_PATH: join(home, "mcp.json"),
  MCP_CLIENT_CONFIG_PATH: join(home, "client.json"),
};
Object.assign(process.env, inspectorEnv);
// A generous connect timeout: over stdio every call starts a server that loads every cassette
// first, which takes seconds on a busy 2-core machine (the default is 15 s).
const cliOptions = ["--format", "json", "-q", "--connect-timeout", "120000"];

/// Runs the Inspector CLI as a program; resolves to {result} or {error}.
function inspectorProcess(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [launcher, "--cli", ...cliOptions, ...args], {
      env: inspectorEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolve(parse({ code, stdout, stderr })));
  });
}

let cli = null;
let outputs = 0;

/// Runs the Inspector CLI's entry point in this process (what the launcher does after
/// parsing `--cli`); resolves to {result} or {error}. The CLI writes the result to an
/// `--output` file (also when it then fails the call for `isError`, as the program prints
/// it); a call it rejects (a result that breaks the outputSchema) throws and writes nothing.
async function inspectorInProcess(args) {
  if (cli === null) {
    cli = await import(cliBundle);
    quietOutputNotices();
  }
  const output = join(home, `result-${outputs++}.json`);
  let thrown = null;
  try {
    await cli.runCli([process.execPath, launcher, ...cliOptions, "--output", output, ...args]);
  } catch (e) {
    thrown = e;
  }
  // The file holds the result itself (the program's stdout wraps it as `{result}`).
  if (existsSync(output)) return { result: JSON.parse(readFileSync(output, "utf8")) };
  return { error: thrown && thrown.message ? thrown.message : `no result and no error: ${thrown}` };
}

/// With `--output`, the CLI notes on stdout where it wrote each result (`{"output":...}`):
/// keep those notes out of this script's report.
function quietOutputNotices() {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => {
    if (String(chunk).startsWith('{"output":')) {
      const done = rest.find((a) => typeof a === "function");
      if (done) process.nextTick(done);
      return true;
    }
    return write(chunk, ...rest);
  };
}

/// The target arguments: the server URL, or `-e` variables and the stdio command.
function targetArgs(target, groupKey) {
  if (target.url) return ["--transport", "http", "--server-url", target.url];
  const env = JSON.parse(groupKey);
  env.RUST_LOG = "error";
  for (const name of ["MODYO_LAB_CORRUPT_OUTPUT", "MODYO_RESULTS", "MODYO_OUTPUT_SCHEMA"]) {
    if (process.env[name]) env[name] = process.env[name];
  }
  const pairs = Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  return [...pairs, "--", binary, "serve", "--cassettes", cassettes];
}

/// The `result` the Inspector printed, or the error it reported.
function parse(run) {
  try {
    const out = JSON.parse(run.stdout);
    if (out && out.result) return { result: out.result };
  } catch {
    // no result on stdout: the error envelope is on stderr
  }
  for (const line of run.stderr.split("\n").reverse()) {
    try {
      const envelope = JSON.parse(line);
      if (envelope && envelope.error) return { error: envelope.error.message || JSON.stringify(envelope.error) };
    } catch {
      // a log line
    }
  }
  return { error: `exit ${run.code}, no JSON answer: ${run.stderr.trim().slice(-500)}` };
}

/// Runs `tasks` (functions returning promises) `limit` at a time, keeping their order.
async function pool(tasks, limit) {
  const results = new Array(tasks.length);
  let next = 0;
  async function worker() {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

const everything =
  transportName === "http" || process.env.MODYO_INSPECTOR_ALL === "1" || Boolean(process.env.MODYO_ACCEPTANCE_TOOL);

/// The scenarios of a group the Inspector calls: all of them over http (or when `everything`);
/// over stdio the first per module (the tool name's prefix) and expected outcome, in cassette
/// order.
function subset(scenarios) {
  if (everything) return scenarios;
  const seen = new Set();
  return scenarios.filter(({ scenario }) => {
    const outcome = (scenario.expect && scenario.expect.outcome) || "success";
    const module = scenario.tool.split("-")[0];
    const key = `${module} ${outcome}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

async function runGroup(groupKey, scenarios) {
  const failures = [];
  const server = transportName === "http" ? await startHttpServer(binary, cassettes, serverEnv(groupKey)) : null;
  const target = server ? { url: server.url } : {};
  try {
    // tools/list through the CLI as a program, whatever the calls then go through.
    const listing = await inspectorProcess(["--method", "tools/list", ...targetArgs(target, groupKey)]);
    if (!listing.result) {
      return [`tools/list (${groupKey}): ${listing.error}`];
    }
    const schemas = new Map(listing.result.tools.map((t) => [t.name, t.outputSchema]));
    const chosen = subset(scenarios);
    const call = processes ? inspectorProcess : inspectorInProcess;
    const answers = await pool(
      chosen.map(({ scenario }) => () =>
        call([
          "--method",
          "tools/call",
          "--tool-name",
          scenario.tool,
          "--tool-args-json",
          JSON.stringify(scenario.arguments || {}),
          ...targetArgs(target, groupKey),
        ]),
      ),
      jobs,
    );
    chosen.forEach(({ label, scenario }, i) => {
      if (!schemas.has(scenario.tool)) {
        failures.push(`${label}: tool ${scenario.tool} is not listed`);
        return;
      }
      const answer = answers[i];
      if (!answer.result) {
        failures.push(`${label}: client rejected the result: ${answer.error}`);
        return;
      }
      const found = problems(scenario, answer.result, schemas.get(scenario.tool) != null);
      if (found.length > 0) failures.push(`${label}: ${found.join("; ")}`);
      else console.log(`ok   ${label}`);
    });
    return failures;
  } finally {
    if (server) await server.stop();
  }
}

let total = 0;
let all = 0;
const failures = [];
try {
  for (const [key, scenarios] of loadScenarios(cassettes)) {
    const groupFailures = await runGroup(key, scenarios);
    total += subset(scenarios).length;
    all += scenarios.length;
    failures.push(...groupFailures);
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
console.log(`called ${total} of ${all} scenarios (${everything ? "all" : "one per module and expected outcome"})`);
process.exitCode = report(`the MCP Inspector CLI (${transportName})`, total, failures);
