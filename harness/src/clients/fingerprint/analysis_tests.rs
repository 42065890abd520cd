//! Tests of the fingerprint analysis on request shapes of the clients it was made for.

use serde_json::{Value, json};

use super::*;
use crate::clients::api::Api;

fn subject() -> Subject {
    Subject {
        client: "x".into(),
        name: "X".into(),
        registry: "npm".into(),
        package: "x".into(),
        version: "1".into(),
        date: "2026-12-01".into(),
        api: Api::Anthropic,
    }
}

fn seen(f: &Fingerprint, part: Part) -> &Seen {
    f.seen(part).expect("every part is listed")
}

/// Claude Code's shape: names and instructions in a message of its own from the first request,
/// definitions after `ToolSearch`, structuredContent as compact JSON instead of the text, an
/// error flagged with `is_error`, a prompt-cache breakpoint on its system prompt and (once there
/// are results) on the last one.
fn claude() -> Vec<(String, Value)> {
    let system = json!({"role": "system", "content": "Deferred:\nmcp__marker__mk_err\nmcp__marker__mk_ok\nmcp__marker__mk_txt\n## marker\nMARK_INSTR: hi"});
    let defs = json!([{"name": "mcp__marker__mk_ok", "description": "MARK_DESC_OK", "input_schema": {"properties": {"q": {"description": "MARK_INSCHEMA_OK"}}}}]);
    let ok = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_lab_0000", "content": "{\"m\":\"MARK_STRUCT_OK\"}"}]});
    let err = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_lab_0001", "content": "MARK_ERRTEXT", "is_error": true}]});
    let txt = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_lab_0002", "content": [{"type": "text", "text": "MARK_TEXT_TXT"}]}]});
    let req = |tools: Value, messages: Vec<Value>| {
        let mut all = vec![system.clone()];
        all.extend(messages);
        if all.len() > 1
            && let Some(last) = all.last_mut()
        {
            last["content"][0]["cache_control"] = json!({"type": "ephemeral"});
        }
        (
            "/v1/messages".to_string(),
            json!({"system": [{"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}],
                "tools": tools, "messages": all}),
        )
    };
    vec![
        req(json!([]), vec![]),
        req(defs.clone(), vec![]),
        req(defs.clone(), vec![ok.clone()]),
        req(defs.clone(), vec![ok.clone(), err.clone()]),
        req(defs, vec![ok, err, txt]),
    ]
}

#[test]
fn claude_code_loads_definitions_on_demand_and_sends_structured_content_with_a_flag() {
    let f = derive(&subject(), &claude());
    assert_eq!(f.requests, 5);
    assert_eq!(f.definitions, Definitions::OnDemand { names_first: true });
    assert_eq!(seen(&f, Part::Instructions).timing, Timing::Every);
    assert_eq!(
        seen(&f, Part::Description).timing,
        Timing::From { first: 2 }
    );
    assert_eq!(
        seen(&f, Part::StructuredContent).paths,
        ["$.messages[*].content[*].content<json>.m"]
    );
    assert_eq!(f.result, ResultForm::StructuredElseText);
    assert!(!f.reached(Part::Text) && !f.reached(Part::OutputSchema));
    assert!(f.error_flag, "is_error sets the error apart");
    assert!(f.per_request(Part::Instructions) && f.per_request(Part::ErrorText));
    assert_eq!(f.cache_marks.requests, [1, 2, 3, 4, 5]);
    assert_eq!(
        f.cache_marks.paths,
        ["$.system[*]", "$.messages[*].content[*]"]
    );
    let example = seen(&f, Part::Instructions)
        .example
        .clone()
        .unwrap_or_default();
    assert!(
        example.starts_with("Deferred:") && example.ends_with("MARK_INSTR: hi"),
        "{example}"
    );
}

/// Codex's shape with an unknown model: every definition in a namespace whose description is
/// the instructions; results as blocks after a wall-time block, errors in the success's shape.
fn codex() -> Vec<(String, Value)> {
    let tools = json!([{"type": "namespace", "name": "mcp__marker", "description": "MARK_INSTR: hi",
        "tools": [{"type": "function", "name": "mk_ok", "description": "MARK_DESC_OK"}]}]);
    let out = |id: &str, text: &str| {
        json!({"type": "function_call_output", "call_id": id,
            "output": [{"type": "input_text", "text": "Wall time: 0.0000 seconds\nOutput:"}, {"type": "input_text", "text": text}]})
    };
    let ok = json!({"type": "function_call_output", "call_id": "call_lab_0000",
        "output": "Wall time: 0.0000 seconds\nOutput:\n{\"m\":\"MARK_STRUCT_OK\"}"});
    let req = |input: Vec<Value>| {
        (
            "/v1/responses".to_string(),
            json!({"tools": tools, "input": input}),
        )
    };
    vec![
        req(vec![]),
        req(vec![ok.clone()]),
        req(vec![ok.clone(), out("call_lab_0001", "MARK_ERRTEXT")]),
        req(vec![
            ok,
            out("call_lab_0001", "MARK_ERRTEXT"),
            out("call_lab_0002", "MARK_TEXT_TXT"),
        ]),
    ]
}

#[test]
fn codex_sends_every_definition_every_request_and_no_error_flag() {
    let f = derive(&subject(), &codex());
    assert_eq!(f.definitions, Definitions::EveryRequest);
    assert_eq!(f.result, ResultForm::StructuredElseText);
    assert!(!f.error_flag, "the error is in the success's shape");
    assert!(!f.cache_marks.any(), "{:?}", f.cache_marks);
    assert_eq!(seen(&f, Part::ErrorText).timing, Timing::From { first: 3 });
    assert_eq!(
        seen(&f, Part::Instructions).paths,
        ["$.tools[*].description"]
    );
}

/// The genai SDK's shape: the whole result object, an error under `error`.
#[test]
fn genai_sends_the_whole_result_and_errors_under_their_own_key() {
    let part = |name: &str, response: Value| json!({"role": "user", "parts": [{"functionResponse": {"name": name, "response": response}}]});
    let ok = part(
        "mk_ok",
        json!({"content": [{"type": "text", "text": "MARK_TEXT_OK"}], "structuredContent": {"m": "MARK_STRUCT_OK"}, "_meta": {"k": "MARK_RESULTMETA_OK"}}),
    );
    let err = part(
        "mk_err",
        json!({"error": {"content": [{"type": "text", "text": "MARK_ERRTEXT"}], "isError": true}}),
    );
    let txt = part(
        "mk_txt",
        json!({"content": [{"type": "text", "text": "MARK_TEXT_TXT"}]}),
    );
    let decl = json!([{"functionDeclarations": [{"name": "mk_ok", "description": "MARK_DESC_OK", "responseJsonSchema": {"properties": {"m": {"description": "MARK_OUTSCHEMA_OK"}}}}]}]);
    let requests = vec![
        (
            "/m:generateContent".to_string(),
            json!({"tools": decl, "contents": []}),
        ),
        (
            "/m:generateContent".to_string(),
            json!({"tools": decl, "contents": [ok, err, txt]}),
        ),
    ];
    let f = derive(&subject(), &requests);
    assert_eq!(f.result, ResultForm::WholeResult);
    assert!(f.error_flag);
    assert!(f.reached(Part::OutputSchema) && f.reached(Part::ResultMeta));
    assert!(!f.reached(Part::Instructions));
    assert_eq!(seen(&f, Part::Text).timing, Timing::From { first: 2 });
}

#[test]
fn text_only_clients_and_empty_sessions() {
    let requests = vec![(
        "/v1/chat/completions".to_string(),
        json!({"tools": [{"function": {"name": "mk_ok", "description": "MARK_DESC_OK"}}], "messages": [
            {"role": "tool", "tool_call_id": "call_lab_0000", "content": "MARK_TEXT_OK"},
            {"role": "tool", "tool_call_id": "call_lab_0001", "content": "MARK_ERRTEXT"},
            {"role": "tool", "tool_call_id": "call_lab_0002", "content": "MARK_TEXT_TXT"}]}),
    )];
    let f = derive(&subject(), &requests);
    assert_eq!(f.result, ResultForm::Text);
    assert!(!f.error_flag);
    let none = derive(&subject(), &[]);
    assert_eq!(none.definitions, Definitions::Never);
    assert_eq!(none.result, ResultForm::Other);
    assert!(none.parts.iter().all(|s| s.timing == Timing::Absent));
}

#[test]
fn scattered_presence_and_examples_are_cut_around_markers() {
    assert_eq!(timing(&[1, 3], 3), Timing::Some);
    assert_eq!(timing(&[2], 2), Timing::From { first: 2 });
    assert_eq!(timing(&[2], 3), Timing::Some);
    let long = format!("{}MARK_INSTR{}", "a".repeat(100), "b".repeat(100));
    let cut = example(&long);
    assert!(cut.starts_with("… ") && cut.ends_with(" …") && cut.contains("MARK_INSTR"));
    assert_eq!(
        normal_text("mk_err MARK_ERRTEXT 0.0132 fco_01a2-4c78 call_lab_0001"),
        "mk MARK #.# # #"
    );
}
