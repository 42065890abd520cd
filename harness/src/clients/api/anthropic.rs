//! Anthropic Messages (`POST /v1/messages`): Claude Code and the Claude Agent SDK.
//!
//! Tools are `tools[]` entries with a `name`; the model's calls are `tool_use` blocks of
//! assistant messages and their results `tool_result` blocks (matched by `tool_use_id`) of user
//! messages. Claude Code defers MCP tools: the first request names them in a message of its own
//! and declares `ToolSearch`, which the script calls with `select:<names>`. The answer is a
//! message, or the same as server-sent events when the request says `stream: true`.

use serde_json::{Value, json};

use super::{Answer, Declared, Returned, Script, Turn, View, closing_text, items, nested, str_of};

/// The id of the `ToolSearch` call.
pub(crate) const SEARCH_ID: &str = "toolu_lab_search";

/// Claude Code's tool that loads deferred tools.
const TOOL_SEARCH: &str = "ToolSearch";

/// The id of call `index`.
pub(crate) fn call_id(index: usize) -> String {
    format!("toolu_lab_{index:04}")
}

/// `/v1/messages` (with a query), not its sub-resources (`count_tokens`).
pub(crate) fn serves(path: &str) -> bool {
    path.starts_with("/v1/messages") && !path.starts_with("/v1/messages/")
}

/// Every content block of every message (a string content is no block).
fn blocks(body: &Value) -> impl Iterator<Item = &Value> {
    nested(body, "messages", "content")
}

pub(crate) fn view(body: &Value) -> View {
    let declared: Vec<Declared> = declarations(body).into_iter().map(|(d, _)| d).collect();
    View {
        search: declared.iter().any(|d| d.name == TOOL_SEARCH),
        declared,
        code: false,
        answered: results(body).into_iter().map(|r| r.id).collect(),
        wants_json: false,
    }
}

pub(crate) fn declarations(body: &Value) -> Vec<(Declared, &Value)> {
    items(body, "tools")
        .filter_map(|t| Some((Declared::plain(str_of(t, "name")?), t)))
        .collect()
}

pub(crate) fn results(body: &Value) -> Vec<Returned<'_>> {
    blocks(body)
        .filter(|b| str_of(b, "type") == Some("tool_result"))
        .filter_map(|b| {
            Some(Returned {
                id: str_of(b, "tool_use_id")?.to_owned(),
                sent: b.get("content").unwrap_or(&Value::Null),
            })
        })
        .collect()
}

pub(crate) fn calls(body: &Value) -> Vec<(String, String)> {
    blocks(body)
        .filter(|b| str_of(b, "type") == Some("tool_use"))
        .filter_map(|b| Some((str_of(b, "id")?.to_owned(), str_of(b, "name")?.to_owned())))
        .collect()
}

pub(crate) fn texts(body: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    if let Some(system) = body.get("system") {
        super::content_texts(system, &mut out);
    }
    for message in items(body, "messages") {
        if let Some(content) = message.get("content") {
            super::content_texts(content, &mut out);
        }
    }
    out
}

/// The content blocks and stop reason of a turn.
fn reply(script: &Script, turn: &Turn) -> (Vec<Value>, &'static str) {
    match turn {
        Turn::Search(tools) => (
            vec![
                json!({"type": "tool_use", "id": SEARCH_ID, "name": TOOL_SEARCH, "input": {
                    "query": format!("select:{}", tools.join(",")),
                    "max_results": tools.len(),
                }}),
            ],
            "tool_use",
        ),
        Turn::Call(i, declared) => (
            vec![
                json!({"type": "tool_use", "id": call_id(*i), "name": declared.name, "input": script.steps[*i].arguments}),
            ],
            "tool_use",
        ),
        other => (
            vec![json!({"type": "text", "text": closing_text(other)})],
            "end_turn",
        ),
    }
}

/// A message id of its own per answer, from the request alone (clients merge assistant
/// messages that share an id).
fn message_id(body: &Value) -> String {
    format!("msg_lab_{:04}", items(body, "messages").count())
}

pub(crate) fn answer(script: &Script, turn: &Turn, body: &Value) -> Answer {
    let (content, stop) = reply(script, turn);
    let model = body.get("model").cloned().unwrap_or(json!("lab-model"));
    let id = message_id(body);
    if body.get("stream").and_then(Value::as_bool) == Some(true) {
        Answer::event_stream(event_stream(&id, &model, &content, stop))
    } else {
        Answer::json(
            200,
            &json!({"id": id, "type": "message", "role": "assistant", "model": model,
                "content": content, "stop_reason": stop, "stop_sequence": null,
                "usage": {"input_tokens": 1, "output_tokens": 1}}),
        )
    }
}

/// A streamed message: `message_start`, each block's start, delta and stop, `message_delta`,
/// `message_stop`.
pub(crate) fn event_stream(id: &str, model: &Value, content: &[Value], stop: &str) -> String {
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}}}),
    )];
    for (index, block) in content.iter().enumerate() {
        let (start, delta) = match str_of(block, "type") {
            Some("tool_use") => (
                json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
                json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}),
            ),
            _ => (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": block["text"]}),
            ),
        };
        events.push((
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        events.push((
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        ));
        events.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    events.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 1}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    events
        .into_iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::api::{Api, Loading, Step};

    fn script() -> Script {
        Script {
            api: Api::Anthropic,
            steps: vec![
                Step {
                    tool: "widgets-list-patterns".into(),
                    arguments: json!({}),
                },
                Step {
                    tool: "widgets-list-patterns".into(),
                    arguments: json!({"page": 2}),
                },
            ],
            tools: vec!["widgets-list-patterns".into(), "widgets-scaffold".into()],
            loading: Loading::ClaudeSearch,
            server: "s".into(),
        }
    }

    fn request(loaded: bool, messages: Vec<Value>) -> Value {
        let mut tools = vec![json!({"name": "ToolSearch"}), json!({"name": "Bash"})];
        if loaded {
            tools.push(json!({"name": "mcp__s__widgets-list-patterns", "description": "List patterns.", "input_schema": {"type": "object"}, "defer_loading": true}));
        }
        let mut all = vec![json!({"role": "user", "content": [{"type": "text", "text": "go"}]})];
        all.extend(messages);
        json!({"model": "m", "stream": true, "system": [{"type": "text", "text": "You are Claude Code."}], "tools": tools, "messages": all})
    }

    fn used(id: &str, name: &str) -> Value {
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": {}}]})
    }

    fn answered(id: &str) -> Value {
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "x"}]})
    }

    #[test]
    fn the_script_searches_then_calls_in_order_then_stops() {
        let s = script();
        let search = vec![used(SEARCH_ID, "ToolSearch"), answered(SEARCH_ID)];
        let first: Vec<Value> = search
            .iter()
            .cloned()
            .chain([
                used(&call_id(0), "mcp__s__widgets-list-patterns"),
                answered(&call_id(0)),
            ])
            .collect();
        let second: Vec<Value> = first
            .iter()
            .cloned()
            .chain([
                used(&call_id(1), "mcp__s__widgets-list-patterns"),
                answered(&call_id(1)),
            ])
            .collect();
        let turns: Vec<Turn> = [
            request(false, Vec::new()),
            request(true, search),
            request(true, first),
            request(true, second.clone()),
        ]
        .iter()
        .map(|b| s.turn(&view(b)))
        .collect();
        let call = |i| Turn::Call(i, Declared::plain("mcp__s__widgets-list-patterns"));
        assert_eq!(
            turns,
            [
                Turn::Search(vec!["mcp__s__widgets-list-patterns".into()]),
                call(0),
                call(1),
                Turn::Finish
            ]
        );
        assert_eq!(s.turn(&view(&json!({"messages": []}))), Turn::Aside);
        let done = request(true, second);
        assert_eq!(view(&done).answered.len(), 3);
        assert_eq!(
            calls(&done)[1],
            (call_id(0), "mcp__s__widgets-list-patterns".into())
        );
        assert_eq!(texts(&done), ["You are Claude Code.", "go"]);
    }

    #[test]
    fn the_answer_streams_a_tool_use_the_way_the_messages_api_does() {
        let s = script();
        let body = request(true, Vec::new());
        let answer = s.answer("/v1/messages?beta=true", &body);
        assert_eq!(answer.content_type, "text/event-stream");
        let events: Vec<(&str, Value)> = answer
            .body
            .split("\n\n")
            .filter(|e| !e.is_empty())
            .map(|e| {
                let (name, data) = e.split_once('\n').expect("two lines");
                let data = data.strip_prefix("data: ").expect("data line");
                (
                    name.strip_prefix("event: ").expect("event line"),
                    serde_json::from_str(data).expect("json"),
                )
            })
            .collect();
        let names: Vec<&str> = events.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        assert_eq!(events[0].1["message"]["id"], "msg_lab_0001");
        assert_eq!(events[1].1["content_block"]["id"], call_id(0));
        assert_eq!(events[2].1["delta"]["partial_json"], "{}");
        assert_eq!(events[4].1["delta"]["stop_reason"], "tool_use");
        let mut plain = body.clone();
        plain["stream"] = json!(false);
        plain["tools"] = json!([]);
        let answer = s.answer("/v1/messages", &plain);
        let message: Value = serde_json::from_str(&answer.body).expect("json");
        assert_eq!(message["stop_reason"], "end_turn");
        assert_eq!(message["content"][0]["text"], "ok");
        assert_eq!(s.answer("/v1/messages/count_tokens", &plain).status, 404);
    }
}
