// Shared by the Node peers' acceptance scripts: the cassette scenarios, the offline server over
// streamable HTTP, and the expectation check (the same rules as tests/python/acceptance.py).

import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { isDeepStrictEqual } from "node:util";

/// Every `*.json` cassette under `dir` (candidates `*.new.json` are never loaded), sorted.
function cassetteFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...cassetteFiles(path));
    else if (entry.name.endsWith(".json") && !entry.name.endsWith(".new.json")) out.push(path);
  }
  return out.sort();
}

/// Scenarios of every cassette not tagged `fault`, grouped by their `env` (a sorted JSON key).
/// `MODYO_ACCEPTANCE_TOOL`, when set, keeps only that tool's scenarios.
export function loadScenarios(root) {
  const only = process.env.MODYO_ACCEPTANCE_TOOL || null;
  const groups = new Map();
  for (const path of cassetteFiles(root)) {
    const cassette = JSON.parse(readFileSync(path, "utf8"));
    if ((cassette.tags || []).includes("fault")) continue;
    const name = relative(root, path).replace(/\\/g, "/").replace(/\.json$/, "");
    for (const scenario of cassette.scenarios || []) {
      if (only && scenario.tool !== only) continue;
      const env = scenario.env || {};
      const key = JSON.stringify(Object.fromEntries(Object.entries(env).sort()));
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push({ label: `${name}#${scenario.name}`, scenario });
    }
  }
  return new Map([...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/// The environment for a server of one scenario group: ours, quiet logs, the scenario's `env`.
export function serverEnv(groupKey) {
  return { ...process.env, RUST_LOG: "error", ...JSON.parse(groupKey) };
}

/// Starts `modyo-lab serve --http 127.0.0.1:0` and resolves once it announced its URL.
export function startHttpServer(binary, cassettes, env) {
  const child = spawn(binary, ["serve", "--cassettes", cassettes, "--http", "127.0.0.1:0"], {
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let seen = "";
    let announced = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the HTTP server did not announce its URL in 120 s:\n${seen}`));
    }, 120_000);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the HTTP server exited (${code}) before announcing its URL:\n${seen}`));
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      if (announced) return; // keep draining the pipe
      seen += chunk;
      const match = seen.match(/MCP over streamable HTTP at (http:\/\/\S+)/);
      if (match) {
        announced = true;
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve({
          url: match[1],
          async stop() {
            const exited = new Promise((done) => child.once("exit", done));
            child.kill("SIGTERM");
            await exited;
          },
        });
      }
    });
  });
}

/// The result form the server answers in (C22), from the environment it inherits
/// (MODYO_RESULTS, MODYO_OUTPUT_SCHEMA), and whether its tools list an outputSchema.
export const form = (process.env.MODYO_RESULTS || "both").trim().toLowerCase();
const schemaSwitch = (process.env.MODYO_OUTPUT_SCHEMA || "").trim().toLowerCase();
const errorsText = (process.env.MODYO_ERRORS || "").trim().toLowerCase() === "text";
export const schemasListed = form !== "text" && !["off", "false", "0", "no"].includes(schemaSwitch);

/// The envelope a result carries: structuredContent, or the JSON of its text (the text form).
function envelopeOf(result) {
  if (result.structuredContent != null) return result.structuredContent;
  try {
    return JSON.parse(result.content[0].text);
  } catch {
    return undefined;
  }
}

/// `error` (isError), `control` (the envelope's control) or `success`.
export function outcomeOf(result) {
  if (result.isError) return "error";
  const envelope = envelopeOf(result);
  if (envelope && envelope.control) return "control";
  return "success";
}

/// The code of a C16 error: the JSON's `error`, or under MODYO_ERRORS=text the word in
/// `Error (<code>): ...`.
function errorCode(result) {
  const text = result.content?.[0]?.text;
  if (typeof text !== "string") return null;
  if (errorsText) {
    const m = /^Error \(([a-z_]+)\): /.exec(text);
    return m ? m[1] : null;
  }
  try {
    return JSON.parse(text).error;
  } catch {
    return null;
  }
}

/// What is wrong with `result` for `scenario` in the server's result form (C22), given whether
/// the tool declares an outputSchema.
export function problems(scenario, result, hasOutputSchema) {
  const expect = scenario.expect || { outcome: "success" };
  const out = [];
  const outcome = outcomeOf(result);
  if (outcome !== expect.outcome) out.push(`outcome ${outcome}, expected ${expect.outcome}`);
  if (outcome === "error" && expect.code && errorCode(result) !== expect.code) {
    out.push(`error code ${errorCode(result)}, expected ${expect.code}`);
  }
  if (hasOutputSchema !== schemasListed) {
    out.push(`outputSchema ${hasOutputSchema ? "listed" : "not listed"} in the ${form} form`);
  }
  const content = Array.isArray(result.content) ? result.content : [];
  const text = content.length > 0 && content[0].type === "text" ? content[0].text : undefined;
  if (outcome === "error") {
    const start = errorsText ? "Error (" : '{"error":';
    if (text === undefined || !text.startsWith(start)) out.push("the error text does not start with the error");
    if (result.structuredContent != null) out.push("an error carries structuredContent");
    return out;
  }
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (form === "both") {
    if (result.structuredContent == null) out.push("no structuredContent in the both form");
    else if (!isDeepStrictEqual(parsed, result.structuredContent)) {
      out.push("content[0].text is not the structuredContent");
    }
  } else if (form === "structured") {
    if (result.structuredContent == null) out.push("no structuredContent in the structured form");
    if (content.length !== 0) out.push(`content has ${content.length} block(s) in the structured form`);
  } else if (form === "text") {
    if (result.structuredContent != null) out.push("structuredContent in the text form");
    if (!parsed || typeof parsed.platform !== "object" || !("data" in parsed)) {
      out.push("the text is not the envelope {platform, data, ...}");
    }
  } else {
    out.push(`unknown result form ${form}`);
  }
  return out;
}

/// Prints the failures and the summary line; returns the process exit code.
export function report(peer, total, failures) {
  for (const failure of failures) console.log(`FAIL ${failure}`);
  console.log(`${total - failures.length}/${total} scenarios passed through ${peer}`);
  return failures.length > 0 || total === 0 ? 1 : 0;
}
