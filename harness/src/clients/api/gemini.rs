//! Gemini (`POST .../models/<model>:generateContent`, or `:streamGenerateContent`): the
//! `@google/genai` SDKs and Gemini CLI.
//!
//! Tools are `functionDeclarations` of `tools[]`; the model's calls are `functionCall` parts of
//! model contents and their results `functionResponse` parts, taken in order (not every client
//! echoes a call's id, so the k-th response answers the k-th call). The answer is one candidate
//! as JSON; `:streamGenerateContent` gets it as server-sent events with `alt=sse`, else as a
//! JSON array. A side request asking for JSON (a response schema: Gemini CLI's routing and
//! next-speaker checks) gets a JSON text that says the user speaks next and the task is simple.

use serde_json::{Value, json};

use super::{Answer, Declared, Returned, Script, Turn, View, closing_text, items, nested, str_of};

/// `...:generateContent` and `...:streamGenerateContent`.
pub(crate) fn serves(path: &str) -> bool {
    path.contains(":generateContent") || path.contains(":streamGenerateContent")
}

/// Every part of every content of a request.
fn parts(body: &Value) -> impl Iterator<Item = &Value> {
    nested(body, "contents", "parts")
}

/// A part's member under its camelCase or snake_case name.
fn member<'a>(part: &'a Value, camel: &str, snake: &str) -> Option<&'a Value> {
    part.get(camel).or_else(|| part.get(snake))
}

pub(crate) fn view(body: &Value) -> View {
    let config = body
        .get("generationConfig")
        .or_else(|| body.get("generation_config"));
    let wants_json = config.is_some_and(|c| {
        c.get("responseJsonSchema").is_some()
            || c.get("responseSchema").is_some()
            || str_of(c, "responseMimeType") == Some("application/json")
    });
    View {
        declared: declarations(body).into_iter().map(|(d, _)| d).collect(),
        search: false,
        code: false,
        answered: results(body).into_iter().map(|r| r.id).collect(),
        wants_json,
    }
}

pub(crate) fn declarations(body: &Value) -> Vec<(Declared, &Value)> {
    items(body, "tools")
        .filter_map(|t| member(t, "functionDeclarations", "function_declarations"))
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|d| Some((Declared::plain(str_of(d, "name")?), d)))
        .collect()
}

pub(crate) fn results(body: &Value) -> Vec<Returned<'_>> {
    parts(body)
        .filter_map(|p| member(p, "functionResponse", "function_response"))
        .enumerate()
        .map(|(k, r)| Returned {
            id: super::Api::Gemini.call_id(k),
            sent: r.get("response").unwrap_or(&Value::Null),
        })
        .collect()
}

pub(crate) fn calls(body: &Value) -> Vec<(String, String)> {
    parts(body)
        .filter_map(|p| member(p, "functionCall", "function_call"))
        .enumerate()
        .map(|(k, c)| {
            (
                super::Api::Gemini.call_id(k),
                str_of(c, "name").unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

pub(crate) fn texts(body: &Value) -> Vec<&str> {
    let system = body
        .get("systemInstruction")
        .or_else(|| body.get("system_instruction"));
    let system_parts = system
        .and_then(|s| s.get("parts"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    parts(body)
        .chain(system_parts)
        .filter_map(|p| str_of(p, "text"))
        .collect()
}

pub(crate) fn answer(script: &Script, turn: &Turn, path: &str, body: &Value) -> Answer {
    let part = match turn {
        Turn::Call(i, declared) => {
            json!({"functionCall": {"id": script.api.call_id(*i), "name": declared.name, "args": script.steps[*i].arguments}})
        }
        Turn::Aside if script.api.view(body).wants_json => json!({"text": json!({
            "next_speaker": "user", "reasoning": "the scripted model has nothing to add",
            "model_choice": "flash", "complexity_reasoning": "a scripted session", "complexity_score": 10
        }).to_string()}),
        other => json!({"text": closing_text(other)}),
    };
    let candidate = json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": "lab-model"
    });
    if path.contains(":streamGenerateContent") {
        if path.contains("alt=sse") {
            return Answer::event_stream(format!("data: {candidate}\n\n"));
        }
        return Answer::json(200, &json!([candidate]));
    }
    Answer::json(200, &candidate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::api::{Api, Loading, Step};

    fn script() -> Script {
        Script {
            api: Api::Gemini,
            steps: vec![Step {
                tool: "widgets-list-patterns".into(),
                arguments: json!({"page": 1}),
            }],
            tools: vec!["widgets-list-patterns".into()],
            loading: Loading::Declared,
            server: "s".into(),
        }
    }

    fn request(contents: Vec<Value>) -> Value {
        json!({
            "contents": contents,
            "systemInstruction": {"parts": [{"text": "be brief"}]},
            "tools": [{"functionDeclarations": [
                {"name": "mcp_s_widgets-list-patterns", "description": "List patterns.", "parametersJsonSchema": {"type": "object"}},
                {"name": "local-helper", "description": "Not ours."}
            ]}]
        })
    }

    #[test]
    fn the_script_asks_for_each_call_then_stops_in_json_or_events() {
        let s = script();
        let asked = vec![json!({"role": "user", "parts": [{"text": "go"}]})];
        let mut answered = asked.clone();
        answered.push(json!({"role": "model", "parts": [{"functionCall": {"name": "mcp_s_widgets-list-patterns", "args": {"page": 1}}}]}));
        answered.push(json!({"role": "user", "parts": [{"functionResponse": {"name": "mcp_s_widgets-list-patterns", "response": {"output": "x"}}}]}));
        let answer = s.answer(
            "/v1beta/models/gemini-2.5-flash:generateContent",
            &request(asked.clone()),
        );
        let body: Value = serde_json::from_str(&answer.body).expect("json");
        assert_eq!(
            body["candidates"][0]["content"]["parts"][0]["functionCall"],
            json!({"id": "call_lab_0000", "name": "mcp_s_widgets-list-patterns", "args": {"page": 1}})
        );
        let streamed = s.answer(
            "/v1beta/models/m:streamGenerateContent?alt=sse",
            &request(answered.clone()),
        );
        assert_eq!(streamed.content_type, "text/event-stream");
        let data: Value =
            serde_json::from_str(streamed.body.trim().trim_start_matches("data: ")).expect("json");
        assert_eq!(data["candidates"][0]["content"]["parts"][0]["text"], "done");
        let array = s.answer(
            "/v1/models/m:streamGenerateContent",
            &request(answered.clone()),
        );
        assert!(array.body.starts_with('['));
        let done = request(answered);
        assert_eq!(results(&done)[0].sent, &json!({"output": "x"}));
        assert_eq!(calls(&done)[0].1, "mcp_s_widgets-list-patterns");
        assert_eq!(texts(&done), ["go", "be brief"]);
        assert_eq!(s.answer("/v1beta/models/m:countTokens", &done).status, 200);
    }

    #[test]
    fn a_side_request_with_a_response_schema_gets_json_text() {
        let s = script();
        let side = json!({"contents": [{"role": "user", "parts": [{"text": "who speaks next?"}]}],
            "generationConfig": {"responseJsonSchema": {"type": "object"}}});
        let answer = s.answer("/v1beta/models/m:generateContent", &side);
        let body: Value = serde_json::from_str(&answer.body).expect("json");
        let text = body["candidates"][0]["content"]["parts"][0]["text"]
            .as_str()
            .expect("text");
        let said: Value = serde_json::from_str(text).expect("json text");
        assert_eq!(said["next_speaker"], "user");
    }
}
