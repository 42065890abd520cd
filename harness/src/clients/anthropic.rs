//! Claude Code's side: the scripted model behind a stand-in Messages API (`POST /v1/messages`,
//! answered as server-sent events), and the extraction of our parts from the requests it got.
//!
//! The script is a pure function of the request: the first planned call without a result is
//! next; if its tool is not loaded yet (Claude Code defers MCP tools, naming them only) the model
//! first asks `ToolSearch` for every tool the session uses (`select:<name>,...`); when every
//! call has a result it says `done` and stops. A request without tools (a side request such as
//! a title) gets a plain text answer. Tool-use ids are fixed (`toolu_lab_search`,
//! `toolu_lab_0000`...), so the extraction finds each call's result by id.
//!
//! The extraction reads the last request whose messages hold a result for every call (the
//! context the session ended with): lines of text that name one of our tools
//! (`mcp__<server>__<tool>`), copies of our instructions, our tools in `tools`, and the
//! `tool_result` of each call.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::ClientsError;
use super::capture::{self, Definition, Session, Shape, Side};
use super::endpoint::{Answer, Captured, Script};
use super::extract::{carries, forwarded, nested, occurrences};
use super::reference::Plan;

/// The id of the `ToolSearch` call.
pub(crate) const SEARCH_ID: &str = "toolu_lab_search";

/// Claude Code's tool that loads deferred tools.
const TOOL_SEARCH: &str = "ToolSearch";

/// The id of call `index`.
pub(crate) fn call_id(index: usize) -> String {
    format!("toolu_lab_{index:04}")
}

/// The prefix Claude Code gives an MCP server's tools.
pub(crate) fn prefix(server: &str) -> String {
    format!("mcp__{server}__")
}

/// What the scripted model does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Turn {
    /// Load these (prefixed) tools with `ToolSearch`.
    Search(Vec<String>),
    /// Make call `index`.
    Call(usize),
    /// Every call has a result: stop.
    Finish,
    /// A planned tool is still not loaded after the search: stop, the extraction will say so.
    GiveUp(String),
    /// Not the session's conversation (no tools): answer with text.
    Aside,
}

/// The scripted model of one session.
#[derive(Debug, Clone)]
pub(crate) struct MessagesScript {
    /// Each call's prefixed tool name and arguments.
    calls: Vec<(String, Value)>,
}

impl MessagesScript {
    /// The script of `plan`'s session with our server registered as `server`.
    pub(crate) fn new(plan: &Plan, server: &str) -> MessagesScript {
        let prefix = prefix(server);
        MessagesScript {
            calls: plan
                .calls
                .iter()
                .map(|c| (format!("{prefix}{}", c.tool), c.arguments.clone()))
                .collect(),
        }
    }

    /// The next turn for a request body.
    pub(crate) fn turn(&self, body: &Value) -> Turn {
        let loaded: BTreeSet<&str> = body
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| t.get("name").and_then(Value::as_str))
            .collect();
        if loaded.is_empty() {
            return Turn::Aside;
        }
        let answered = answered_ids(body);
        let Some(next) = (0..self.calls.len()).find(|i| !answered.contains(call_id(*i).as_str()))
        else {
            return Turn::Finish;
        };
        let tool = &self.calls[next].0;
        if loaded.contains(tool.as_str()) {
            return Turn::Call(next);
        }
        if answered.contains(SEARCH_ID) || !loaded.contains(TOOL_SEARCH) {
            return Turn::GiveUp(format!("{tool} is not among the tools"));
        }
        let mut wanted: Vec<String> = Vec::new();
        for (name, _) in &self.calls {
            if !loaded.contains(name.as_str()) && !wanted.contains(name) {
                wanted.push(name.clone());
            }
        }
        Turn::Search(wanted)
    }

    /// The content blocks and stop reason of a turn.
    fn reply(&self, turn: &Turn) -> (Vec<Value>, &'static str) {
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
            Turn::Call(i) => {
                let (name, arguments) = &self.calls[*i];
                (
                    vec![
                        json!({"type": "tool_use", "id": call_id(*i), "name": name, "input": arguments}),
                    ],
                    "tool_use",
                )
            }
            Turn::Finish => (vec![json!({"type": "text", "text": "done"})], "end_turn"),
            Turn::GiveUp(why) => (
                vec![json!({"type": "text", "text": format!("stopping: {why}")})],
                "end_turn",
            ),
            Turn::Aside => (vec![json!({"type": "text", "text": "ok"})], "end_turn"),
        }
    }
}

impl Script for MessagesScript {
    fn answer(&self, path: &str, body: &Value) -> Answer {
        if !path.starts_with("/v1/messages") || path.starts_with("/v1/messages/") {
            return Answer::json(
                404,
                &json!({"type": "error", "error": {"type": "not_found_error", "message": format!("the lab's endpoint does not serve {path}")}}),
            );
        }
        let (content, stop) = self.reply(&self.turn(body));
        let model = body.get("model").cloned().unwrap_or(json!("lab-model"));
        if body.get("stream").and_then(Value::as_bool) == Some(true) {
            Answer::event_stream(event_stream(&model, &content, stop))
        } else {
            Answer::json(
                200,
                &json!({"id": "msg_lab", "type": "message", "role": "assistant", "model": model,
                    "content": content, "stop_reason": stop, "stop_sequence": null,
                    "usage": {"input_tokens": 1, "output_tokens": 1}}),
            )
        }
    }
}

/// A streamed message: `message_start`, each block's start, delta and stop, `message_delta`,
/// `message_stop`.
pub(crate) fn event_stream(model: &Value, content: &[Value], stop: &str) -> String {
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_lab", "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}}}),
    )];
    for (index, block) in content.iter().enumerate() {
        let (start, delta) = match block.get("type").and_then(Value::as_str) {
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

/// The ids of every `tool_result` in a request's messages.
fn answered_ids(body: &Value) -> BTreeSet<&str> {
    blocks(body)
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .filter_map(|b| b.get("tool_use_id").and_then(Value::as_str))
        .collect()
}

/// Every content block of every message (a string content is no block).
fn blocks(body: &Value) -> impl Iterator<Item = &Value> {
    nested(body, "messages", "content")
}

/// Every text the model reads besides tools and tool traffic: the system prompt and the text
/// of every message.
fn texts<'a>(body: &'a Value) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut push = |content: &'a Value| match content {
        Value::String(s) => out.push(s.as_str()),
        Value::Array(items) => out.extend(
            items
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str)),
        ),
        _ => {}
    };
    if let Some(system) = body.get("system") {
        push(system);
    }
    for message in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(content) = message.get("content") {
            push(content);
        }
    }
    out
}

/// Lines of `texts` that name one of our tools.
fn name_lines<'a>(texts: &[&'a str], prefix: &str) -> Vec<&'a str> {
    texts
        .iter()
        .flat_map(|t| t.lines())
        .filter(|line| line.starts_with(prefix))
        .collect()
}

/// Our tools in a request's `tools`.
fn our_tools<'a>(body: &'a Value, prefix: &'a str) -> impl Iterator<Item = (&'a str, &'a Value)> {
    body.get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(move |t| {
            let name = t.get("name").and_then(Value::as_str)?;
            Some((name.strip_prefix(prefix)?, t))
        })
}

/// Our parts of a Claude Code session's requests, checked against the plan and reference.
pub(crate) fn extract(
    captured: &[Captured],
    plan: &Plan,
    side: Side,
    server: &str,
) -> Result<Session, ClientsError> {
    let prefix = prefix(server);
    let reference = plan.reference(side);
    let script = MessagesScript::new(plan, server);
    let conversation: Vec<&Value> = captured
        .iter()
        .filter(|c| c.path.starts_with("/v1/messages"))
        .map(|c| &c.body)
        .filter(|body| script.turn(body) != Turn::Aside)
        .collect();
    let ids: Vec<String> = (0..plan.calls.len()).map(call_id).collect();
    let complete = |body: &Value| {
        let answered = answered_ids(body);
        ids.iter().all(|id| answered.contains(id.as_str()))
    };
    let Some(last) = conversation.iter().rev().find(|b| complete(b)) else {
        let most = conversation
            .iter()
            .map(|b| {
                let answered = answered_ids(b);
                ids.iter()
                    .filter(|id| answered.contains(id.as_str()))
                    .count()
            })
            .max()
            .unwrap_or(0);
        return Err(ClientsError::Incomplete(format!(
            "{} requests captured ({} of the conversation); at most {most} of {} calls had a result",
            captured.len(),
            conversation.len(),
            ids.len()
        )));
    };
    let requests = conversation
        .iter()
        .map(|body| Shape {
            names: name_lines(&texts(body), &prefix).len(),
            definitions: our_tools(body, &prefix).count(),
            results: {
                let answered = answered_ids(body);
                ids.iter()
                    .filter(|id| answered.contains(id.as_str()))
                    .count()
            },
        })
        .collect();
    let texts = texts(last);
    let definitions = our_tools(last, &prefix)
        .map(|(tool, sent)| Definition {
            tool: tool.to_owned(),
            carries: reference
                .tool(tool)
                .map(|t| carries(t, sent))
                .unwrap_or_default(),
            sent: sent.clone(),
        })
        .collect();
    let mut uses = std::collections::BTreeMap::new();
    let mut results = std::collections::BTreeMap::new();
    for block in blocks(last) {
        match block.get("type").and_then(Value::as_str) {
            Some("tool_use") => {
                if let (Some(id), Some(name)) = (
                    block.get("id").and_then(Value::as_str),
                    block.get("name").and_then(Value::as_str),
                ) {
                    uses.insert(id, name);
                }
            }
            Some("tool_result") => {
                if let Some(id) = block.get("tool_use_id").and_then(Value::as_str) {
                    results.insert(id, block.get("content").cloned().unwrap_or(Value::Null));
                }
            }
            _ => {}
        }
    }
    let mut forwarded_results = Vec::with_capacity(plan.calls.len());
    for (i, call) in plan.calls.iter().enumerate() {
        let id = call_id(i);
        let expected = format!("{prefix}{}", call.tool);
        if uses.get(id.as_str()).copied() != Some(expected.as_str()) {
            return Err(ClientsError::Incomplete(format!(
                "call {id} ({}) is not a use of {expected} in the last request",
                call.scenario
            )));
        }
        let sent = results.remove(id.as_str()).unwrap_or(Value::Null);
        forwarded_results.push(capture::Result {
            call: i,
            tool: call.tool.clone(),
            forwarded: forwarded(&reference.results[i], &sent),
            sent,
        });
    }
    Ok(Session {
        module: plan.module.as_str().to_owned(),
        side,
        listed: reference.tools.len(),
        calls: plan.calls.clone(),
        left_out: plan.left_out.clone(),
        requests,
        names: name_lines(&texts, &prefix)
            .into_iter()
            .map(str::to_owned)
            .collect(),
        instructions: occurrences(&texts, &reference.instructions),
        definitions,
        results: forwarded_results,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::reference::Reference;
    use modyo_mcp::Module;

    fn plan() -> Plan {
        let reference = Reference {
            tools: vec![
                json!({"name": "widgets-list-patterns", "description": "List patterns.", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "required": ["data"]}}),
                json!({"name": "widgets-scaffold", "description": "Scaffold.", "inputSchema": {"type": "object"}}),
            ],
            instructions: "Modyo platform tools (widgets).".into(),
            results: vec![
                json!({"content": [{"type": "text", "text": "{\"data\":[1]}"}], "structuredContent": {"data": [1]}}),
                json!({"content": [{"type": "text", "text": "{\"data\":[2]}"}], "structuredContent": {"data": [2]}}),
            ],
        };
        Plan {
            module: Module::Widgets,
            calls: vec![
                capture::Call {
                    scenario: "widgets/patterns#all".into(),
                    tool: "widgets-list-patterns".into(),
                    arguments: json!({}),
                },
                capture::Call {
                    scenario: "widgets/patterns#again".into(),
                    tool: "widgets-list-patterns".into(),
                    arguments: json!({"page": 2}),
                },
            ],
            left_out: Vec::new(),
            references: [reference.clone(), reference],
        }
    }

    const NAMES: &str =
        "Deferred tools:\nWebFetch\nmcp__s__widgets-list-patterns\nmcp__s__widgets-scaffold";

    fn request(loaded: bool, messages: Vec<Value>) -> Value {
        let mut tools = vec![json!({"name": "ToolSearch"}), json!({"name": "Bash"})];
        if loaded {
            tools.push(json!({"name": "mcp__s__widgets-list-patterns", "description": "List patterns.", "input_schema": {"type": "object"}, "defer_loading": true}));
        }
        let mut all = vec![
            json!({"role": "user", "content": [{"type": "text", "text": "go"}]}),
            json!({"role": "system", "content": format!("{NAMES}\n\n## s\nModyo platform tools (widgets).")}),
        ];
        all.extend(messages);
        json!({"model": "m", "stream": true, "system": [{"type": "text", "text": "You are Claude Code."}], "tools": tools, "messages": all})
    }

    fn used(id: &str, name: &str) -> Value {
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": {}}]})
    }

    fn answered(id: &str, content: Value) -> Value {
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": content}]})
    }

    /// The conversation the script leads to, request by request.
    fn conversation() -> Vec<Value> {
        let search = vec![
            used(SEARCH_ID, "ToolSearch"),
            answered(
                SEARCH_ID,
                json!([{"type": "tool_reference", "tool_name": "mcp__s__widgets-list-patterns"}]),
            ),
        ];
        let first: Vec<Value> = search
            .iter()
            .cloned()
            .chain([
                used(&call_id(0), "mcp__s__widgets-list-patterns"),
                answered(&call_id(0), json!("{\"data\":[1]}")),
            ])
            .collect();
        let second: Vec<Value> = first
            .iter()
            .cloned()
            .chain([
                used(&call_id(1), "mcp__s__widgets-list-patterns"),
                answered(&call_id(1), json!("{\"data\":[2]}")),
            ])
            .collect();
        vec![
            request(false, Vec::new()),
            request(true, search),
            request(true, first),
            request(true, second),
        ]
    }

    #[test]
    fn the_script_searches_then_calls_in_order_then_stops() {
        let script = MessagesScript::new(&plan(), "s");
        let turns: Vec<Turn> = conversation().iter().map(|b| script.turn(b)).collect();
        assert_eq!(
            turns,
            [
                Turn::Search(vec!["mcp__s__widgets-list-patterns".into()]),
                Turn::Call(0),
                Turn::Call(1),
                Turn::Finish
            ]
        );
        assert_eq!(script.turn(&json!({"messages": []})), Turn::Aside);
        // A search that loaded nothing is not repeated.
        let mut stuck = conversation()[1].clone();
        stuck["tools"].as_array_mut().expect("tools").pop();
        assert!(matches!(script.turn(&stuck), Turn::GiveUp(_)));
    }

    #[test]
    fn the_answer_streams_a_tool_use_the_way_the_messages_api_does() {
        let script = MessagesScript::new(&plan(), "s");
        let answer = script.answer("/v1/messages?beta=true", &conversation()[1]);
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
        assert_eq!(events[1].1["content_block"]["id"], call_id(0));
        assert_eq!(events[2].1["delta"]["partial_json"], "{}");
        assert_eq!(events[4].1["delta"]["stop_reason"], "tool_use");
        let mut plain = conversation()[3].clone();
        plain["stream"] = json!(false);
        let answer = script.answer("/v1/messages", &plain);
        let message: Value = serde_json::from_str(&answer.body).expect("json");
        assert_eq!(message["stop_reason"], "end_turn");
        assert_eq!(
            script.answer("/v1/messages/count_tokens", &plain).status,
            404
        );
    }

    fn captured(bodies: Vec<Value>) -> Vec<Captured> {
        bodies
            .into_iter()
            .map(|body| Captured {
                path: "/v1/messages?beta=true".into(),
                body,
            })
            .collect()
    }

    #[test]
    fn extraction_keeps_only_our_parts_of_the_last_request() {
        let mut bodies = conversation();
        bodies.push(json!({"model": "m", "messages": [{"role": "user", "content": "title?"}]}));
        let session = extract(&captured(bodies), &plan(), Side::After, "s").expect("extracts");
        assert_eq!(
            session.names,
            ["mcp__s__widgets-list-patterns", "mcp__s__widgets-scaffold"]
        );
        assert_eq!(session.instructions, ["Modyo platform tools (widgets)."]);
        assert_eq!(session.definitions.len(), 1);
        assert_eq!(
            session.definitions[0].carries,
            ["description", "inputSchema"]
        );
        assert_eq!(
            session
                .results
                .iter()
                .map(|r| (r.call, r.forwarded))
                .collect::<Vec<_>>(),
            [(0, capture::Forwarded::Text), (1, capture::Forwarded::Text)]
        );
        let shapes: Vec<(usize, usize, usize)> = session
            .requests
            .iter()
            .map(|s| (s.names, s.definitions, s.results))
            .collect();
        assert_eq!(shapes, [(2, 0, 0), (2, 1, 0), (2, 1, 1), (2, 1, 2)]);
        let text = serde_json::to_string(&session).expect("serializes");
        assert!(
            !text.contains("Claude Code"),
            "the client's own prompt is dropped"
        );
        assert!(!text.contains("Bash") && !text.contains("WebFetch"));
    }

    #[test]
    fn a_session_that_did_not_finish_is_an_error() {
        let mut bodies = conversation();
        bodies.pop();
        let e = extract(&captured(bodies), &plan(), Side::After, "s").expect_err("incomplete");
        assert!(e.to_string().contains("at most 1 of 2 calls"), "{e}");
        let e = extract(&[], &plan(), Side::After, "s").expect_err("nothing captured");
        assert!(e.to_string().contains("0 requests captured"), "{e}");
    }
}
