//! OpenAI Responses (`POST .../responses`): Codex, the OpenAI Agents SDKs and the Vercel AI SDK.
//!
//! Tools are `tools[]` entries (`function` tools by name, Codex's `namespace` tools holding
//! them, a `tool_search` tool), or arrive in the input: Codex puts what a `tool_search` call
//! found in a `tool_search_output` item and its code-mode tools in an `additional_tools` item.
//! The model's calls are `function_call` (or, in code mode, `custom_tool_call`) items and their
//! results `function_call_output` / `custom_tool_call_output` items, matched by `call_id`. The
//! answer is one response object, or the event sequence of a streamed response when the request
//! says `stream: true`.

use serde_json::{Map, Value, json};

use super::{Answer, Declared, LIST_ID, Returned, Script, Turn, View, closing_text, items, str_of};

/// `.../responses`.
pub(crate) fn serves(path: &str) -> bool {
    let path = path.split('?').next().unwrap_or_default();
    path.ends_with("/responses")
}

/// The input items (none when the input is a string).
fn inputs(body: &Value) -> impl Iterator<Item = &Value> {
    items(body, "input")
}

/// Every tool of a `tools` array, namespaces opened.
fn collect<'a>(tools: &'a Value, namespace: Option<&str>, out: &mut Vec<(Declared, &'a Value)>) {
    for tool in tools.as_array().into_iter().flatten() {
        match (str_of(tool, "type"), str_of(tool, "name")) {
            (Some("namespace"), Some(name)) => {
                if let Some(inner) = tool.get("tools") {
                    collect(inner, Some(name), out);
                }
            }
            (Some("tool_search"), _) => out.push((Declared::plain("tool_search"), tool)),
            (_, Some(name)) => out.push((
                Declared {
                    name: name.to_owned(),
                    namespace: namespace.map(str::to_owned),
                },
                tool,
            )),
            _ => {}
        }
    }
}

pub(crate) fn declarations(body: &Value) -> Vec<(Declared, &Value)> {
    let mut out = Vec::new();
    if let Some(tools) = body.get("tools") {
        collect(tools, None, &mut out);
    }
    for item in inputs(body) {
        if matches!(
            str_of(item, "type"),
            Some("additional_tools" | "tool_search_output")
        ) && let Some(tools) = item.get("tools")
        {
            collect(tools, None, &mut out);
        }
    }
    out
}

pub(crate) fn view(body: &Value) -> View {
    let all = declarations(body);
    let search = all.iter().any(|(d, _)| d.name == "tool_search");
    let code = all.iter().any(|(d, _)| d.name == "exec");
    let answered = inputs(body)
        .filter(|i| {
            matches!(
                str_of(i, "type"),
                Some("function_call_output" | "custom_tool_call_output" | "tool_search_output")
            )
        })
        .filter_map(|i| str_of(i, "call_id").map(str::to_owned))
        .collect();
    View {
        declared: all
            .into_iter()
            .map(|(d, _)| d)
            .filter(|d| d.name != "tool_search")
            .collect(),
        search,
        code,
        answered,
        wants_json: false,
    }
}

pub(crate) fn results(body: &Value) -> Vec<Returned<'_>> {
    inputs(body)
        .filter(|i| {
            matches!(
                str_of(i, "type"),
                Some("function_call_output" | "custom_tool_call_output")
            )
        })
        .filter_map(|i| {
            Some(Returned {
                id: str_of(i, "call_id")?.to_owned(),
                sent: i.get("output").unwrap_or(&Value::Null),
            })
        })
        .collect()
}

pub(crate) fn calls(body: &Value) -> Vec<(String, String)> {
    inputs(body)
        .filter(|i| {
            matches!(
                str_of(i, "type"),
                Some("function_call" | "custom_tool_call")
            )
        })
        .filter_map(|i| {
            Some((
                str_of(i, "call_id")?.to_owned(),
                str_of(i, "name")?.to_owned(),
            ))
        })
        .collect()
}

pub(crate) fn texts(body: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    if let Some(instructions) = str_of(body, "instructions") {
        out.push(instructions);
    }
    if let Some(input) = body.get("input").and_then(Value::as_str) {
        out.push(input);
    }
    for item in inputs(body) {
        let message = match str_of(item, "type") {
            Some("message") => true,
            None => item.get("role").is_some(),
            _ => false,
        };
        if message && let Some(content) = item.get("content") {
            super::content_texts(content, &mut out);
        }
    }
    out
}

/// The output item of a turn.
fn item(script: &Script, turn: &Turn, n: usize) -> Value {
    match turn {
        Turn::Call(i, declared) => {
            let mut item = json!({"type": "function_call", "id": format!("fc_lab_{i:04}"),
                "call_id": script.api.call_id(*i), "name": declared.name,
                "arguments": script.steps[*i].arguments.to_string(), "status": "completed"});
            if let Some(namespace) = &declared.namespace {
                item["namespace"] = json!(namespace);
            }
            item
        }
        Turn::Search(tools) => json!({"type": "tool_search_call", "id": "ts_lab_search",
            "call_id": script.api.search_id(), "execution": "client", "status": "completed",
            "arguments": {"query": tools.join(" "), "limit": tools.len().max(script.tools.len())}}),
        Turn::Code(step) => {
            let call_id = step.map_or(LIST_ID.to_owned(), |i| script.api.call_id(i));
            json!({"type": "custom_tool_call", "id": format!("ctc_{call_id}"), "call_id": call_id,
                "name": "exec", "namespace": "functions", "input": script.code(*step), "status": "completed"})
        }
        other => json!({"type": "message", "id": format!("msg_lab_{n:04}"), "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": closing_text(other), "annotations": []}]}),
    }
}

pub(crate) fn answer(script: &Script, turn: &Turn, body: &Value) -> Answer {
    let n = inputs(body).count();
    let item = item(script, turn, n);
    let response = json!({"id": format!("resp_lab_{n:04}"), "object": "response", "created_at": 1_700_000_000,
        "status": "completed", "error": null, "incomplete_details": null, "instructions": null,
        "max_output_tokens": null, "model": body.get("model").cloned().unwrap_or(json!("lab-model")),
        "output": [item], "parallel_tool_calls": true, "previous_response_id": null,
        "reasoning": {"effort": null, "summary": null}, "store": false, "temperature": 1.0,
        "text": {"format": {"type": "text"}}, "tool_choice": "auto", "tools": [], "top_p": 1.0,
        "truncation": "disabled", "metadata": {},
        "usage": {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
            "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2}});
    if body.get("stream").and_then(Value::as_bool) != Some(true) {
        return Answer::json(200, &response);
    }
    Answer::event_stream(events(&response, &item))
}

/// The events of a streamed response that ends as `response` with the one output `item`.
fn events(response: &Value, item: &Value) -> String {
    let mut out = Vec::new();
    let mut push = |kind: &str, data: Value| {
        let mut data = match data {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        data.insert("type".into(), json!(kind));
        data.insert("sequence_number".into(), json!(out.len()));
        out.push(format!("event: {kind}\ndata: {}\n\n", Value::Object(data)));
    };
    let mut start = response.clone();
    start["status"] = json!("in_progress");
    start["output"] = json!([]);
    start["usage"] = Value::Null;
    push("response.created", json!({"response": start}));
    push("response.in_progress", json!({"response": start}));
    let id = &item["id"];
    match str_of(item, "type") {
        Some("message") => {
            let text = &item["content"][0]["text"];
            let mut added = item.clone();
            added["status"] = json!("in_progress");
            added["content"] = json!([]);
            push(
                "response.output_item.added",
                json!({"output_index": 0, "item": added}),
            );
            let at = |extra: Value| {
                let mut v = json!({"item_id": id, "output_index": 0, "content_index": 0});
                if let (Some(v), Value::Object(extra)) = (v.as_object_mut(), extra) {
                    v.extend(extra);
                }
                v
            };
            push(
                "response.content_part.added",
                at(json!({"part": {"type": "output_text", "text": "", "annotations": []}})),
            );
            push(
                "response.output_text.delta",
                at(json!({"delta": text, "logprobs": []})),
            );
            push(
                "response.output_text.done",
                at(json!({"text": text, "logprobs": []})),
            );
            push(
                "response.content_part.done",
                at(json!({"part": {"type": "output_text", "text": text, "annotations": []}})),
            );
        }
        Some("function_call") => {
            let mut added = item.clone();
            added["arguments"] = json!("");
            added["status"] = json!("in_progress");
            push(
                "response.output_item.added",
                json!({"output_index": 0, "item": added}),
            );
            push(
                "response.function_call_arguments.delta",
                json!({"item_id": id, "output_index": 0, "delta": item["arguments"]}),
            );
            push(
                "response.function_call_arguments.done",
                json!({"item_id": id, "output_index": 0, "arguments": item["arguments"]}),
            );
        }
        _ => push(
            "response.output_item.added",
            json!({"output_index": 0, "item": item}),
        ),
    }
    push(
        "response.output_item.done",
        json!({"output_index": 0, "item": item}),
    );
    push("response.completed", json!({"response": response}));
    out.concat()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::api::{Api, Loading, Step};

    fn script(loading: Loading) -> Script {
        Script {
            api: Api::Responses,
            steps: vec![Step {
                tool: "mk_ok".into(),
                arguments: json!({"q": "a"}),
            }],
            tools: vec!["mk_ok".into()],
            loading,
            server: "marker".into(),
        }
    }

    fn parse_events(body: &str) -> Vec<Value> {
        body.split("\n\n")
            .filter(|e| !e.is_empty())
            .map(|e| {
                let data = e.lines().nth(1).expect("data line");
                serde_json::from_str(data.trim_start_matches("data: ")).expect("json")
            })
            .collect()
    }

    #[test]
    fn a_namespaced_tool_is_called_in_its_namespace_and_streamed() {
        let s = script(Loading::Declared);
        let body = json!({"model": "fake-model", "stream": true, "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}],
            "tools": [{"type": "namespace", "name": "mcp__marker", "description": "instr",
                "tools": [{"type": "function", "name": "mk_ok", "parameters": {}}]}]});
        let answer = s.answer("/v1/responses", &body);
        let events = parse_events(&answer.body);
        let kinds: Vec<&str> = events.iter().filter_map(|e| str_of(e, "type")).collect();
        assert_eq!(
            kinds,
            [
                "response.created",
                "response.in_progress",
                "response.output_item.added",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.done",
                "response.output_item.done",
                "response.completed"
            ]
        );
        let call = &events[5]["item"];
        assert_eq!(call["namespace"], "mcp__marker");
        assert_eq!(call["arguments"], "{\"q\":\"a\"}");
        assert_eq!(events[6]["sequence_number"], 6);
        assert_eq!(texts(&body), ["go"]);
    }

    #[test]
    fn results_are_read_by_call_id_and_the_script_then_stops() {
        let s = script(Loading::Declared);
        let body = json!({"instructions": "sys", "input": [
            {"role": "user", "content": "go"},
            {"type": "function_call", "call_id": "call_lab_0000", "name": "mk_ok", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_lab_0000", "output": [{"type": "input_text", "text": "x"}]}],
            "tools": [{"type": "function", "name": "mk_ok"}]});
        assert_eq!(results(&body)[0].sent[0]["text"], "x");
        assert_eq!(
            calls(&body),
            [("call_lab_0000".to_string(), "mk_ok".to_string())]
        );
        assert_eq!(texts(&body), ["sys", "go"]);
        let answer: Value =
            serde_json::from_str(&s.answer("/v1/responses", &body).body).expect("json");
        assert_eq!(answer["output"][0]["content"][0]["text"], "done");
    }

    #[test]
    fn codex_search_and_code_mode_items() {
        let s = script(Loading::CodexSearch);
        let first = json!({"stream": false, "input": [], "tools": [{"type": "tool_search", "execution": "client"}]});
        let answer: Value =
            serde_json::from_str(&s.answer("/v1/responses", &first).body).expect("json");
        assert_eq!(answer["output"][0]["type"], "tool_search_call");
        assert_eq!(answer["output"][0]["arguments"]["query"], "mk_ok");
        let loaded = json!({"input": [
            {"type": "tool_search_output", "call_id": "call_lab_search", "tools": [{"type": "namespace", "name": "mcp__marker",
                "tools": [{"type": "function", "name": "mk_ok", "defer_loading": true}]}]}],
            "tools": [{"type": "tool_search"}]});
        assert_eq!(
            s.turn(&view(&loaded)),
            Turn::Call(
                0,
                Declared {
                    name: "mk_ok".into(),
                    namespace: Some("mcp__marker".into())
                }
            )
        );
        let code = script(Loading::CodexCode);
        let body = json!({"input": [{"type": "additional_tools", "tools": [{"type": "namespace", "name": "functions",
            "tools": [{"type": "custom", "name": "exec"}]}]}]});
        let answer: Value =
            serde_json::from_str(&code.answer("/v1/responses", &body).body).expect("json");
        assert_eq!(answer["output"][0]["type"], "custom_tool_call");
        assert_eq!(answer["output"][0]["call_id"], LIST_ID);
    }
}
