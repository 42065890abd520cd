//! What one JSON-RPC message is before rmcp reads it, and the answer owed when rmcp would not
//! give the right one: the screen both transports (stdio lines, HTTP bodies) put in front of
//! rmcp.
//!
//! - Not JSON (bad syntax, invalid UTF-8, nesting deeper than serde_json's 128 levels):
//!   `-32700 Parse error` with `id: null`, as JSON-RPC 2.0 says (its id cannot be read).
//! - A batch (a JSON array): MCP dropped JSON-RPC batching (2025-06-18), and rmcp answered an
//!   array with nothing (stdio) or `415` (HTTP). An empty batch gets one `-32600`, as JSON-RPC
//!   says; a non-empty one an array with a `-32600` per member that carries an id.
//! - A request of a method MCP defines whose `params` do not fit it (`tools/call` with
//!   `arguments: "x"` or `name: 7`): rmcp reads such a message as a custom request and
//!   answered `-32601 Method not found`, which sends a client looking for the wrong mistake.
//!   It gets `-32602 Invalid params`, saying what does not fit.
//! - JSON that is no valid message: `-32600 Invalid Request` with the `id` it carries when
//!   that is a string or an integer, else `null`; a message without `id` is a notification and
//!   is never answered, even when it is invalid (so two such peers cannot loop).

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use rmcp::service::RxJsonRpcMessage;
use serde_json::{Value, json};

/// JSON-RPC's parse error.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's invalid request.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's invalid params.
pub(crate) const INVALID_PARAMS: i64 = -32602;

/// The methods a client may call that MCP defines (so their params have a shape).
const MCP_METHODS: [&str; 15] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "server/discover",
    "tasks/get",
];

/// What one message turned out to be.
pub(crate) enum Screened {
    /// A message for rmcp.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// An answer to send back instead (an error, or an array of errors for a batch).
    Answer(Value),
    /// Nothing to do or say (blank, or an invalid notification).
    Nothing,
}

/// Screens one message's bytes (a stdio line or an HTTP body).
pub(crate) fn screen(bytes: &[u8]) -> Screened {
    let mut bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Screened::Nothing;
    }
    if let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        if let Some(answer) = misread_request(&message, bytes) {
            return Screened::Answer(answer);
        }
        return Screened::Message(Box::new(message));
    }
    let value = match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => value,
        Err(e) => {
            tracing::debug!("unparsable message: {e}");
            return Screened::Answer(error(Value::Null, PARSE_ERROR, format!("Parse error: {e}")));
        }
    };
    match value {
        Value::Array(members) if members.is_empty() => Screened::Answer(error(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: an empty batch".into(),
        )),
        Value::Array(members) => {
            let answers: Vec<Value> = members
                .iter()
                .filter_map(|member| member.get("id").map(usable_id))
                .map(|id| {
                    error(
                        id,
                        INVALID_REQUEST,
                        "Invalid Request: batches are not supported (MCP removed JSON-RPC batching in 2025-06-18); send each message on its own".into(),
                    )
                })
                .collect();
            if answers.is_empty() {
                Screened::Nothing
            } else {
                Screened::Answer(Value::Array(answers))
            }
        }
        value => match value.get("id") {
            // A notification (no id) is never answered, even when it is not a valid one.
            None => {
                tracing::debug!("ignoring an invalid or unknown notification");
                Screened::Nothing
            }
            Some(id) => {
                let id = usable_id(id);
                match value.get("method").and_then(Value::as_str) {
                    Some(method) if MCP_METHODS.contains(&method) => Screened::Answer(error(
                        id,
                        INVALID_PARAMS,
                        format!("Invalid params: the message does not fit {method}"),
                    )),
                    _ => Screened::Answer(error(
                        id,
                        INVALID_REQUEST,
                        "Invalid Request: not a JSON-RPC 2.0 request, response or notification this server knows".into(),
                    )),
                }
            }
        },
    }
}

/// The `-32602` owed to a request rmcp read as a custom request although MCP defines its
/// method (its params did not fit), with what serde found wrong for the usual ones.
fn misread_request(message: &ClientJsonRpcMessage, bytes: &[u8]) -> Option<Value> {
    let JsonRpcMessage::Request(request) = message else {
        return None;
    };
    let ClientRequest::CustomRequest(custom) = &request.request else {
        return None;
    };
    let method = custom.method.as_str();
    if !MCP_METHODS.contains(&method) {
        return None;
    }
    let why = match method {
        "tools/call" => serde_json::from_slice::<TypedRequest<rmcp::model::CallToolRequest>>(bytes)
            .err()
            .map(|e| e.to_string()),
        "resources/read" => {
            serde_json::from_slice::<TypedRequest<rmcp::model::ReadResourceRequest>>(bytes)
                .err()
                .map(|e| e.to_string())
        }
        "prompts/get" => {
            serde_json::from_slice::<TypedRequest<rmcp::model::GetPromptRequest>>(bytes)
                .err()
                .map(|e| e.to_string())
        }
        "initialize" => {
            serde_json::from_slice::<TypedRequest<rmcp::model::InitializeRequest>>(bytes)
                .err()
                .map(|e| e.to_string())
        }
        _ => None,
    };
    let hint = match method {
        "tools/call" => {
            " (params.name must be the tool's name as a string, params.arguments an object)"
        }
        _ => "",
    };
    Some(error(
        serde_json::to_value(&request.id).unwrap_or(Value::Null),
        INVALID_PARAMS,
        match why {
            Some(why) => format!("Invalid params for {method}: {why}{hint}"),
            None => format!("Invalid params for {method}{hint}"),
        },
    ))
}

/// A request read as one typed MCP request (the `jsonrpc` and `id` around it ignored), to
/// learn why its params did not fit.
#[derive(serde::Deserialize)]
struct TypedRequest<R> {
    #[serde(flatten)]
    #[allow(dead_code)]
    request: R,
}

/// An id JSON-RPC lets an answer carry: a string or an integer, else `null`.
fn usable_id(id: &Value) -> Value {
    match id {
        Value::String(_) => id.clone(),
        Value::Number(n) if n.is_i64() || n.is_u64() => id.clone(),
        _ => Value::Null,
    }
}

/// A JSON-RPC error answer.
pub(crate) fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(bytes: &[u8]) -> Value {
        match screen(bytes) {
            Screened::Answer(answer) => answer,
            Screened::Message(message) => panic!("passed on: {message:?}"),
            Screened::Nothing => panic!("no answer"),
        }
    }

    #[test]
    fn batches_are_answered_never_dropped() {
        // Before, `[]` got no answer on stdio (a client waited forever).
        let empty = answer(b"[]");
        assert_eq!(empty["error"]["code"], INVALID_REQUEST);
        assert_eq!(empty["id"], Value::Null);
        let batch = answer(
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"tools/list"}]"#,
        );
        let ids: Vec<&Value> = batch
            .as_array()
            .expect("an array")
            .iter()
            .map(|a| &a["id"])
            .collect();
        assert_eq!(ids, [&json!(1), &json!("b")]);
        assert!(matches!(
            screen(br#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#),
            Screened::Nothing
        ));
    }

    #[test]
    fn a_call_whose_params_do_not_fit_is_invalid_params_not_an_unknown_method() {
        // Before, rmcp read these as custom requests and answered -32601.
        for params in [
            r#"{"name":"content-spaces-list","arguments":"x"}"#,
            r#"{"name":7}"#,
            r#""x""#,
        ] {
            let line =
                format!(r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{params}}}"#);
            let out = answer(line.as_bytes());
            assert_eq!(out["error"]["code"], INVALID_PARAMS, "{params}: {out}");
            assert_eq!(out["id"], 5);
            let message = out["error"]["message"].as_str().unwrap_or("");
            assert!(message.contains("tools/call"), "{message}");
        }
        // A well-formed call and an unknown method pass on (rmcp answers those).
        assert!(matches!(
            screen(br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"x","arguments":{}}}"#),
            Screened::Message(_)
        ));
        assert!(matches!(
            screen(br#"{"jsonrpc":"2.0","id":7,"method":"vendor/thing","params":{"a":1}}"#),
            Screened::Message(_)
        ));
    }
}
