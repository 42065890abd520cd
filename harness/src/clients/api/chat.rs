//! OpenAI Chat Completions (`POST .../chat/completions`): LangChain, pydantic-ai, mcp-use.
//!
//! Tools are `tools[]` entries `{type: "function", function: {name, ...}}` (the whole entry is
//! the definition); the model's calls are `tool_calls` of assistant messages and their results
//! messages of role `tool`, matched by `tool_call_id`. The answer is one completion, or its
//! chunks as server-sent events (ending with `[DONE]`) when the request says `stream: true`.

use serde_json::{Value, json};

use super::{Answer, Declared, Returned, Script, Turn, View, closing_text, items, str_of};

/// `.../chat/completions`.
pub(crate) fn serves(path: &str) -> bool {
    let path = path.split('?').next().unwrap_or_default();
    path.ends_with("/chat/completions")
}

pub(crate) fn declarations(body: &Value) -> Vec<(Declared, &Value)> {
    items(body, "tools")
        .filter_map(|t| {
            let name = t
                .get("function")
                .and_then(|f| str_of(f, "name"))
                .or_else(|| str_of(t, "name"))?;
            Some((Declared::plain(name), t))
        })
        .collect()
}

pub(crate) fn view(body: &Value) -> View {
    View {
        declared: declarations(body).into_iter().map(|(d, _)| d).collect(),
        search: false,
        code: false,
        answered: results(body).into_iter().map(|r| r.id).collect(),
        wants_json: false,
    }
}

pub(crate) fn results(body: &Value) -> Vec<Returned<'_>> {
    items(body, "messages")
        .filter(|m| str_of(m, "role") == Some("tool"))
        .filter_map(|m| {
            Some(Returned {
                id: str_of(m, "tool_call_id")?.to_owned(),
                sent: m.get("content").unwrap_or(&Value::Null),
            })
        })
        .collect()
}

pub(crate) fn calls(body: &Value) -> Vec<(String, String)> {
    items(body, "messages")
        .filter(|m| str_of(m, "role") == Some("assistant"))
        .flat_map(|m| items(m, "tool_calls"))
        .filter_map(|c| {
            Some((
                str_of(c, "id")?.to_owned(),
                c.get("function")
                    .and_then(|f| str_of(f, "name"))?
                    .to_owned(),
            ))
        })
        .collect()
}

pub(crate) fn texts(body: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    for message in items(body, "messages").filter(|m| str_of(m, "role") != Some("tool")) {
        if let Some(content) = message.get("content") {
            super::content_texts(content, &mut out);
        }
    }
    out
}

pub(crate) fn answer(script: &Script, turn: &Turn, body: &Value) -> Answer {
    let n = items(body, "messages").count();
    let id = format!("chatcmpl-lab-{n:04}");
    let model = body.get("model").cloned().unwrap_or(json!("lab-model"));
    let (message, finish) = match turn {
        Turn::Call(i, declared) => (
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": script.api.call_id(*i),
                "type": "function", "function": {"name": declared.name,
                "arguments": script.steps[*i].arguments.to_string()}}]}),
            "tool_calls",
        ),
        other => (
            json!({"role": "assistant", "content": closing_text(other)}),
            "stop",
        ),
    };
    let usage = json!({"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2});
    if body.get("stream").and_then(Value::as_bool) != Some(true) {
        return Answer::json(
            200,
            &json!({"id": id, "object": "chat.completion", "created": 1_700_000_000, "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": null}],
                "usage": usage}),
        );
    }
    let chunk = |choices: Value| json!({"id": id, "object": "chat.completion.chunk", "created": 1_700_000_000, "model": model, "choices": choices});
    let mut chunks = Vec::new();
    if let Some(call) = message.get("tool_calls").and_then(|c| c.get(0)) {
        chunks.push(chunk(
            json!([{"index": 0, "delta": {"role": "assistant", "content": null, "tool_calls": [
            {"index": 0, "id": call["id"], "type": "function", "function": {"name": call["function"]["name"], "arguments": ""}}]},
            "finish_reason": null}]),
        ));
        chunks.push(chunk(json!([{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": call["function"]["arguments"]}}]}, "finish_reason": null}])));
    } else {
        chunks.push(chunk(
            json!([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]),
        ));
        chunks.push(chunk(
            json!([{"index": 0, "delta": {"content": message["content"]}, "finish_reason": null}]),
        ));
    }
    chunks.push(chunk(
        json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
    ));
    if body
        .pointer("/stream_options/include_usage")
        .and_then(Value::as_bool)
        == Some(true)
    {
        let mut last = chunk(json!([]));
        last["usage"] = usage;
        chunks.push(last);
    }
    let mut text: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    text.push_str("data: [DONE]\n\n");
    Answer::event_stream(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::api::{Api, Loading, Step};

    fn script() -> Script {
        Script {
            api: Api::Chat,
            steps: vec![Step {
                tool: "mk_ok".into(),
                arguments: json!({"q": "a"}),
            }],
            tools: vec!["mk_ok".into()],
            loading: Loading::Declared,
            server: "marker".into(),
        }
    }

    #[test]
    fn a_call_is_answered_as_a_completion_or_as_chunks() {
        let s = script();
        let body = json!({"model": "gpt-4.1", "messages": [{"role": "system", "content": "sys"},
            {"role": "user", "content": [{"type": "text", "text": "go"}]}],
            "tools": [{"type": "function", "function": {"name": "mk_ok", "parameters": {}}}]});
        let answer: Value =
            serde_json::from_str(&s.answer("/v1/chat/completions", &body).body).expect("json");
        let call = &answer["choices"][0]["message"]["tool_calls"][0];
        assert_eq!(call["id"], "call_lab_0000");
        assert_eq!(call["function"]["arguments"], "{\"q\":\"a\"}");
        let mut streamed = body.clone();
        streamed["stream"] = json!(true);
        streamed["stream_options"] = json!({"include_usage": true});
        let text = s.answer("/v1/chat/completions", &streamed).body;
        let chunks: Vec<&str> = text.split("\n\n").filter(|c| !c.is_empty()).collect();
        assert_eq!(chunks.len(), 5, "{text}");
        assert_eq!(chunks[4], "data: [DONE]");
        assert!(chunks[3].contains("\"usage\""));
        assert_eq!(texts(&body), ["sys", "go"]);
    }

    #[test]
    fn tool_messages_are_the_results_and_end_the_script() {
        let s = script();
        let body = json!({"messages": [{"role": "user", "content": "go"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_lab_0000", "type": "function", "function": {"name": "mk_ok", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_lab_0000", "content": "MARK"}],
            "tools": [{"type": "function", "function": {"name": "mk_ok"}}]});
        assert_eq!(results(&body)[0].sent, "MARK");
        assert_eq!(calls(&body)[0].1, "mk_ok");
        assert_eq!(
            texts(&body),
            ["go"],
            "the tool message is a result, not a text"
        );
        let answer: Value =
            serde_json::from_str(&s.answer("/v1/chat/completions", &body).body).expect("json");
        assert_eq!(answer["choices"][0]["message"]["content"], "done");
    }
}
