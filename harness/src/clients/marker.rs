//! `modyo-lab marker`: a stdio MCP server in which every part a client could forward to a model
//! carries its own marker, so a search of the model requests says which parts reached the model
//! (the fingerprint). Raw JSON-RPC, newline-delimited, no MCP library: the wire is exactly what
//! this file writes (a port of the research's `marker_server.py`).
//!
//! Four tools: `mk_ok` succeeds with text and `structuredContent` (and has a title, an output
//! schema, annotations and `_meta`), `mk_err` answers `isError: true`, `mk_txt` answers text
//! only, and `mk_jerr` answers `isError: true` with a JSON text from a tool that lists an output
//! schema (as every migrated tool of ours does: a client that parses such a text as
//! `structuredContent` and validates it shows the model its own complaint instead); one prompt
//! and one resource. `initialize` is answered with the client's protocol
//! version when it is one this server knows, else 2025-06-18; `server/discover` and every
//! method it does not serve get `-32601`, so clients that try the newer discovery first fall
//! back to `initialize`. Notifications and responses are read and not answered; a line that
//! is not JSON gets a `-32700` with a null id.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

use super::api::Step;

/// The instructions `initialize` returns.
pub const INSTRUCTIONS: &str = "MARK_INSTR: the marker server's instructions.";

/// The protocol versions the server answers with as asked.
const VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The marker tools' names, in plan order.
pub const TOOLS: [&str; 4] = ["mk_ok", "mk_err", "mk_txt", "mk_jerr"];

/// `tools/list`.
pub fn tools() -> Value {
    json!([
        {
            "name": "mk_ok",
            "title": "MARK_TITLE_OK",
            "description": "MARK_DESC_OK: returns text and structured content.",
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "MARK_INSCHEMA_OK"}}, "required": ["q"]},
            "outputSchema": {"type": "object", "properties": {"m": {"type": "string", "description": "MARK_OUTSCHEMA_OK"}}, "required": ["m"]},
            "annotations": {"title": "MARK_ANNOT_OK", "readOnlyHint": true, "openWorldHint": false},
            "_meta": {"marker/meta": "MARK_TOOLMETA_OK"}
        },
        {
            "name": "mk_err",
            "title": "MARK_TITLE_ERR",
            "description": "MARK_DESC_ERR: always fails with isError.",
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "MARK_INSCHEMA_ERR"}}, "required": ["q"]},
            "annotations": {"title": "MARK_ANNOT_ERR", "readOnlyHint": true, "openWorldHint": false}
        },
        {
            "name": "mk_txt",
            "description": "MARK_DESC_TXT: returns text only.",
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "MARK_INSCHEMA_TXT"}}, "required": ["q"]},
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": "mk_jerr",
            "description": "MARK_DESC_JERR: always fails with isError and a JSON text, under an output schema.",
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "MARK_INSCHEMA_JERR"}}, "required": ["q"]},
            "outputSchema": {"type": "object", "properties": {"m": {"type": "string", "description": "MARK_OUTSCHEMA_JERR"}}, "required": ["m"], "additionalProperties": false},
            "annotations": {"readOnlyHint": true}
        }
    ])
}

/// The result of `tool`, if it is one of ours.
pub fn result(tool: &str) -> Option<Value> {
    match tool {
        "mk_ok" => Some(json!({
            "content": [{"type": "text", "text": "MARK_TEXT_OK"}],
            "structuredContent": {"m": "MARK_STRUCT_OK"},
            "isError": false,
            "_meta": {"marker/meta": "MARK_RESULTMETA_OK"}
        })),
        "mk_err" => {
            Some(json!({"content": [{"type": "text", "text": "MARK_ERRTEXT"}], "isError": true}))
        }
        "mk_txt" => Some(json!({"content": [{"type": "text", "text": "MARK_TEXT_TXT"}]})),
        "mk_jerr" => Some(json!({
            "content": [{"type": "text", "text": "{\"error\":\"MARK_ERRJSON\",\"message\":\"the marker error\"}"}],
            "isError": true
        })),
        _ => None,
    }
}

/// The marker plan: `mk_ok`, `mk_err`, `mk_txt`, `mk_jerr`, one call each.
pub fn plan() -> Vec<Step> {
    TOOLS
        .iter()
        .zip(["a", "b", "c", "d"])
        .map(|(tool, q)| Step {
            tool: (*tool).to_owned(),
            arguments: json!({"q": q}),
        })
        .collect()
}

/// The answer to one request: its result, or a JSON-RPC error code and message.
fn handle(method: &str, params: &Value) -> Result<Value, (i64, String)> {
    match method {
        "initialize" => {
            let asked = params.get("protocolVersion").and_then(Value::as_str);
            let version = asked
                .filter(|v| VERSIONS.contains(v))
                .unwrap_or("2025-06-18");
            Ok(json!({
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": false}, "prompts": {"listChanged": false},
                    "resources": {"listChanged": false, "subscribe": false}},
                "serverInfo": {"name": "marker-server", "title": "MARK_SERVERTITLE", "version": "1.0.0"},
                "instructions": INSTRUCTIONS
            }))
        }
        "ping" | "logging/setLevel" => Ok(json!({})),
        "tools/list" => Ok(json!({"tools": tools()})),
        "tools/call" => {
            let name = params.get("name").and_then(Value::as_str).unwrap_or("");
            result(name).ok_or_else(|| (-32602, format!("unknown tool {name:?}")))
        }
        "prompts/list" => Ok(
            json!({"prompts": [{"name": "mk_prompt", "title": "MARK_PROMPT_TITLE",
            "description": "MARK_PROMPT_DESC", "arguments": []}]}),
        ),
        "prompts/get" => Ok(json!({"description": "MARK_PROMPT_DESC",
            "messages": [{"role": "user", "content": {"type": "text", "text": "MARK_PROMPT"}}]})),
        "resources/list" => Ok(
            json!({"resources": [{"uri": "marker://res", "name": "mk_res",
            "title": "MARK_RESOURCE_TITLE", "description": "MARK_RESOURCE_DESC", "mimeType": "text/plain"}]}),
        ),
        "resources/templates/list" => Ok(json!({"resourceTemplates": []})),
        "resources/read" => Ok(
            json!({"contents": [{"uri": "marker://res", "mimeType": "text/plain", "text": "MARK_RESOURCE"}]}),
        ),
        "completion/complete" => Ok(json!({"completion": {"values": [], "hasMore": false}})),
        other => Err((-32601, format!("method not found: {other}"))),
    }
}

/// The answers to one line (none for notifications and responses; one per request of a batch).
pub fn answer(line: &str) -> Vec<Value> {
    let message: Value = match serde_json::from_str(line) {
        Ok(message) => message,
        Err(e) => {
            return vec![json!({"jsonrpc": "2.0", "id": null,
                "error": {"code": -32700, "message": format!("parse error: {e}")}})];
        }
    };
    let batch = match message {
        Value::Array(items) => items,
        single => vec![single],
    };
    batch
        .iter()
        .filter_map(|request| {
            let id = request.get("id")?;
            let method = request.get("method")?.as_str()?;
            let params = request.get("params").cloned().unwrap_or(Value::Null);
            Some(match handle(method, &params) {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err((code, message)) => {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
                }
            })
        })
        .collect()
}

/// Serves `input` line by line until it ends, answering on `output` (flushed per answer).
pub fn serve(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        for answer in answer(&line) {
            writeln!(output, "{answer}")?;
            output.flush()?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Value {
        let mut answers = answer(line);
        assert_eq!(answers.len(), 1, "{line}");
        answers.remove(0)
    }

    #[test]
    fn initialize_keeps_a_known_version_and_carries_instructions_and_title() {
        let a = one(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
        );
        assert_eq!(a["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(a["result"]["instructions"], INSTRUCTIONS);
        assert_eq!(a["result"]["serverInfo"]["title"], "MARK_SERVERTITLE");
        let b = one(
            r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2099-01-01"}}"#,
        );
        assert_eq!(b["result"]["protocolVersion"], "2025-06-18");
    }

    #[test]
    fn discover_and_unknown_methods_are_not_found_and_notifications_get_nothing() {
        let a = one(r#"{"jsonrpc":"2.0","id":"d","method":"server/discover"}"#);
        assert_eq!(a["error"]["code"], -32601);
        assert_eq!(a["id"], "d");
        assert!(answer(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).is_empty());
        assert_eq!(one("not json")["error"]["code"], -32700);
        let batch = answer(
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]"#,
        );
        assert_eq!(batch.len(), 2);
    }

    #[test]
    fn every_part_carries_its_own_marker() {
        let tools = one(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).to_string();
        for marker in [
            "MARK_DESC_OK",
            "MARK_TITLE_OK",
            "MARK_INSCHEMA_OK",
            "MARK_OUTSCHEMA_OK",
            "MARK_ANNOT_OK",
            "MARK_TOOLMETA_OK",
            "MARK_DESC_ERR",
            "MARK_INSCHEMA_TXT",
            "MARK_DESC_JERR",
            "MARK_OUTSCHEMA_JERR",
        ] {
            assert!(tools.contains(marker), "{marker}");
        }
        let call = |name: &str| {
            one(&format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{name}","arguments":{{"q":"a"}}}}}}"#
            ))
        };
        assert_eq!(
            call("mk_ok")["result"]["structuredContent"]["m"],
            "MARK_STRUCT_OK"
        );
        assert_eq!(call("mk_err")["result"]["isError"], true);
        assert!(call("mk_txt")["result"].get("isError").is_none());
        assert_eq!(call("nope")["error"]["code"], -32602);
        let jerr = call("mk_jerr");
        assert_eq!(jerr["result"]["isError"], true);
        let text = jerr["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert_eq!(
            serde_json::from_str::<Value>(text)
                .ok()
                .map(|v| v["error"].clone()),
            Some(json!("MARK_ERRJSON")),
            "a JSON text, like our errors"
        );
        assert_eq!(plan().len(), 4);
    }

    #[test]
    fn serve_answers_line_by_line() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\"}\n";
        let mut out = Vec::new();
        serve(&input[..], &mut out).expect("serves");
        let text = String::from_utf8(out).expect("utf-8");
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[1]["result"]["messages"][0]["content"]["text"],
            "MARK_PROMPT"
        );
    }
}
