//! The `@google/genai` SDK's side: the scripted model behind a stand-in Gemini API
//! (`POST .../models/<model>:generateContent`, answered as JSON), and the extraction of our
//! parts from the requests it got.
//!
//! The SDK's MCP adapter (`mcpToTool`) declares every tool the server lists in every request
//! and, with automatic function calling, makes the calls the model asks for and sends each
//! result back as a `functionResponse`. The script asks for the planned calls one per turn, in
//! order (the number of `functionResponse` parts so far says which is next), then says `done`.
//!
//! The extraction reads the last request with a response for every call: our tools'
//! `functionDeclarations`, each `functionResponse.response`, and copies of our instructions.

use serde_json::{Value, json};

use super::ClientsError;
use super::capture::{self, Definition, Session, Shape, Side};
use super::endpoint::{Answer, Captured, Script};
use super::extract::{carries, forwarded, nested, occurrences};
use super::reference::Plan;

/// What the scripted model does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Turn {
    /// Ask for call `index`.
    Call(usize),
    /// Every call has a response: stop.
    Finish,
}

/// The scripted model of one session.
#[derive(Debug, Clone)]
pub(crate) struct GenerateScript {
    calls: Vec<(String, Value)>,
}

impl GenerateScript {
    /// The script of `plan`'s session.
    pub(crate) fn new(plan: &Plan) -> GenerateScript {
        GenerateScript {
            calls: plan
                .calls
                .iter()
                .map(|c| (c.tool.clone(), c.arguments.clone()))
                .collect(),
        }
    }

    /// The next turn for a request body.
    pub(crate) fn turn(&self, body: &Value) -> Turn {
        let done = responses(body).count();
        if done < self.calls.len() {
            Turn::Call(done)
        } else {
            Turn::Finish
        }
    }
}

impl Script for GenerateScript {
    fn answer(&self, path: &str, body: &Value) -> Answer {
        if !path.contains(":generateContent") {
            return Answer::json(
                404,
                &json!({"error": {"code": 404, "status": "NOT_FOUND", "message": format!("the lab's endpoint does not serve {path}")}}),
            );
        }
        let part = match self.turn(body) {
            Turn::Call(i) => {
                let (name, arguments) = &self.calls[i];
                json!({"functionCall": {"name": name, "args": arguments}})
            }
            Turn::Finish => json!({"text": "done"}),
        };
        Answer::json(
            200,
            &json!({
                "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
                "modelVersion": "lab-model"
            }),
        )
    }
}

/// Every part of every content of a request.
fn parts(body: &Value) -> impl Iterator<Item = &Value> {
    nested(body, "contents", "parts")
}

/// Every `functionResponse` of a request, in order.
fn responses(body: &Value) -> impl Iterator<Item = &Value> {
    parts(body).filter_map(|p| p.get("functionResponse"))
}

/// Every text part of a request and its system instruction.
fn texts(body: &Value) -> Vec<&str> {
    let system = body
        .pointer("/systemInstruction/parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    parts(body)
        .chain(system)
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect()
}

/// Every function declaration of a request.
fn declarations(body: &Value) -> impl Iterator<Item = &Value> {
    nested(body, "tools", "functionDeclarations")
}

/// Our parts of a genai session's requests, checked against the plan and reference.
pub(crate) fn extract(
    captured: &[Captured],
    plan: &Plan,
    side: Side,
) -> Result<Session, ClientsError> {
    let reference = plan.reference(side);
    let ours = reference.tool_names();
    let is_ours = |d: &&Value| {
        d.get("name")
            .and_then(Value::as_str)
            .is_some_and(|n| ours.contains(&n))
    };
    let conversation: Vec<&Value> = captured
        .iter()
        .filter(|c| c.path.contains(":generateContent"))
        .map(|c| &c.body)
        .collect();
    let n = plan.calls.len();
    let Some(last) = conversation
        .iter()
        .rev()
        .find(|b| responses(b).count() >= n)
    else {
        let most = conversation
            .iter()
            .map(|b| responses(b).count())
            .max()
            .unwrap_or(0);
        return Err(ClientsError::Incomplete(format!(
            "{} requests captured ({} of the conversation); at most {most} of {n} calls had a response",
            captured.len(),
            conversation.len()
        )));
    };
    let requests = conversation
        .iter()
        .map(|body| Shape {
            names: 0,
            definitions: declarations(body).filter(is_ours).count(),
            results: responses(body).count(),
        })
        .collect();
    let definitions = declarations(last)
        .filter(is_ours)
        .map(|sent| {
            let tool = sent.get("name").and_then(Value::as_str).unwrap_or_default();
            Definition {
                tool: tool.to_owned(),
                carries: reference
                    .tool(tool)
                    .map(|t| carries(t, sent))
                    .unwrap_or_default(),
                sent: sent.clone(),
            }
        })
        .collect();
    let mut results = Vec::with_capacity(n);
    for (i, (call, response)) in plan.calls.iter().zip(responses(last)).enumerate() {
        if response.get("name").and_then(Value::as_str) != Some(call.tool.as_str()) {
            return Err(ClientsError::Incomplete(format!(
                "response {i} is not one of {} ({})",
                call.tool, call.scenario
            )));
        }
        let sent = response.get("response").cloned().unwrap_or(Value::Null);
        results.push(capture::Result {
            call: i,
            tool: call.tool.clone(),
            forwarded: forwarded(&reference.results[i], &sent),
            sent,
        });
    }
    let texts = texts(last);
    Ok(Session {
        module: plan.module.as_str().to_owned(),
        side,
        listed: reference.tools.len(),
        calls: plan.calls.clone(),
        left_out: plan.left_out.clone(),
        requests,
        names: Vec::new(),
        instructions: occurrences(&texts, &reference.instructions),
        definitions,
        results,
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
            ],
            instructions: "Modyo platform tools (widgets).".into(),
            results: vec![
                json!({"content": [{"type": "text", "text": "{\"data\":[1]}"}], "structuredContent": {"data": [1]}}),
            ],
        };
        Plan {
            module: Module::Widgets,
            calls: vec![capture::Call {
                scenario: "widgets/patterns#all".into(),
                tool: "widgets-list-patterns".into(),
                arguments: json!({"page": 1}),
            }],
            left_out: Vec::new(),
            references: [reference.clone(), reference],
        }
    }

    fn request(contents: Vec<Value>) -> Value {
        json!({
            "contents": contents,
            "tools": [{"functionDeclarations": [
                {"name": "widgets-list-patterns", "description": "List patterns.", "parametersJsonSchema": {"type": "object"}, "responseJsonSchema": {"type": "object", "required": ["data"]}},
                {"name": "local-helper", "description": "Not ours."}
            ]}],
            "generationConfig": {}
        })
    }

    fn conversation() -> Vec<Value> {
        let asked = vec![json!({"role": "user", "parts": [{"text": "go"}]})];
        let answered: Vec<Value> = asked
            .iter()
            .cloned()
            .chain([
                json!({"role": "model", "parts": [{"functionCall": {"name": "widgets-list-patterns", "args": {"page": 1}}}]}),
                json!({"role": "user", "parts": [{"functionResponse": {"name": "widgets-list-patterns", "response": {"content": [{"type": "text", "text": "{\"data\":[1]}"}], "structuredContent": {"data": [1]}}}}]}),
            ])
            .collect();
        vec![request(asked), request(answered)]
    }

    #[test]
    fn the_script_asks_for_each_call_then_stops() {
        let script = GenerateScript::new(&plan());
        let conversation = conversation();
        assert_eq!(script.turn(&conversation[0]), Turn::Call(0));
        assert_eq!(script.turn(&conversation[1]), Turn::Finish);
        let answer = script.answer(
            "/v1beta/models/gemini-2.5-flash:generateContent",
            &conversation[0],
        );
        let body: Value = serde_json::from_str(&answer.body).expect("json");
        assert_eq!(
            body["candidates"][0]["content"]["parts"][0]["functionCall"],
            json!({"name": "widgets-list-patterns", "args": {"page": 1}})
        );
        assert_eq!(
            script.answer("/v1beta/models", &conversation[0]).status,
            404
        );
    }

    #[test]
    fn extraction_keeps_our_declarations_and_responses() {
        let captured: Vec<Captured> = conversation()
            .into_iter()
            .map(|body| Captured {
                path: "/v1beta/models/m:generateContent".into(),
                body,
            })
            .collect();
        let session = extract(&captured, &plan(), Side::After).expect("extracts");
        assert_eq!(session.definitions.len(), 1, "local-helper is not ours");
        assert_eq!(
            session.definitions[0].carries,
            ["description", "inputSchema", "outputSchema"]
        );
        assert_eq!(session.results[0].forwarded, capture::Forwarded::Result);
        assert!(session.instructions.is_empty() && session.names.is_empty());
        let shapes: Vec<(usize, usize)> = session
            .requests
            .iter()
            .map(|s| (s.definitions, s.results))
            .collect();
        assert_eq!(shapes, [(1, 0), (1, 1)]);
        let e = extract(&captured[..1], &plan(), Side::After).expect_err("no response yet");
        assert!(e.to_string().contains("at most 0 of 1"), "{e}");
    }
}
