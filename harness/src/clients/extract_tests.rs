//! Tests of the extraction on request shapes recorded from the clients, one per API.

use serde_json::{Value, json};

use super::*;
use crate::clients::api::anthropic::{SEARCH_ID, call_id};
use crate::clients::capture::Forwarded;

fn reference() -> Reference {
    Reference {
        tools: vec![
            json!({"name": "widgets-list-patterns", "description": "List patterns.", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "required": ["data"]}}),
            json!({"name": "widgets-scaffold", "description": "Scaffold.", "inputSchema": {"type": "object"}}),
        ],
        instructions: "Modyo platform tools (widgets).".into(),
        results: vec![
            json!({"content": [{"type": "text", "text": "{\"data\":[1]}"}], "structuredContent": {"data": [1]}}),
            json!({"content": [{"type": "text", "text": "{\"data\":[2]}"}], "structuredContent": {"data": [2]}}),
        ],
    }
}

fn calls() -> Vec<Call> {
    ["widgets/patterns#all", "widgets/patterns#again"]
        .iter()
        .enumerate()
        .map(|(i, scenario)| Call {
            scenario: (*scenario).into(),
            tool: "widgets-list-patterns".into(),
            arguments: json!({"page": i + 1}),
            outcome: crate::clients::capture::Outcome::Success,
        })
        .collect()
}

fn captured(path: &str, bodies: Vec<Value>) -> Vec<Captured> {
    bodies
        .into_iter()
        .map(|body| Captured {
            path: path.into(),
            body,
        })
        .collect()
}

const NAMES: &str =
    "Deferred tools:\nWebFetch\nmcp__s__widgets-list-patterns\nmcp__s__widgets-scaffold";

/// Claude Code: names in a system-role message with the instructions, definitions after
/// `ToolSearch`, results as `tool_result` blocks.
fn claude() -> Vec<Value> {
    let request = |loaded: bool, messages: Vec<Value>| {
        let mut tools = vec![json!({"name": "ToolSearch"}), json!({"name": "Bash"})];
        if loaded {
            tools.push(json!({"name": "mcp__s__widgets-list-patterns", "description": "List patterns.", "input_schema": {"type": "object"}, "defer_loading": true}));
        }
        let mut all = vec![
            json!({"role": "user", "content": [{"type": "text", "text": "go"}]}),
            json!({"role": "system", "content": format!("{NAMES}\n\n## s\nModyo platform tools (widgets).")}),
        ];
        all.extend(messages);
        json!({"model": "m", "system": [{"type": "text", "text": "You are Claude Code."}], "tools": tools, "messages": all})
    };
    let used = |id: &str, name: &str| json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": {}}]});
    let answered = |id: &str, content: Value| json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": content}]});
    let search = vec![
        used(SEARCH_ID, "ToolSearch"),
        answered(
            SEARCH_ID,
            json!([{"type": "tool_reference", "tool_name": "mcp__s__widgets-list-patterns"}]),
        ),
    ];
    let mut first = search.clone();
    first.extend([
        used(&call_id(0), "mcp__s__widgets-list-patterns"),
        answered(&call_id(0), json!("{\"data\":[1]}")),
    ]);
    let mut second = first.clone();
    second.extend([
        used(&call_id(1), "mcp__s__widgets-list-patterns"),
        answered(&call_id(1), json!("{\"data\":[2]}")),
    ]);
    vec![
        request(false, Vec::new()),
        request(true, search),
        request(true, first),
        request(true, second),
        json!({"model": "m", "messages": [{"role": "user", "content": "title?"}]}),
    ]
}

#[test]
fn claude_code_names_instructions_loaded_definitions_and_text_results() {
    let parts = extract(
        &captured("/v1/messages?beta=true", claude()),
        Api::Anthropic,
        &reference(),
        &calls(),
    )
    .expect("extracts");
    assert_eq!(
        parts.names,
        ["mcp__s__widgets-list-patterns", "mcp__s__widgets-scaffold"]
    );
    assert_eq!(parts.instructions, ["Modyo platform tools (widgets)."]);
    assert_eq!(parts.definitions.len(), 1);
    assert_eq!(parts.definitions[0].carries, ["description", "inputSchema"]);
    assert_eq!(
        parts
            .results
            .iter()
            .map(|r| r.forwarded)
            .collect::<Vec<_>>(),
        [Forwarded::Text, Forwarded::Text]
    );
    let shapes: Vec<(usize, usize, usize, usize)> = parts
        .requests
        .iter()
        .map(|s| (s.names, s.definitions, s.results, s.instructions))
        .collect();
    assert_eq!(
        shapes,
        [(2, 0, 0, 1), (2, 1, 0, 1), (2, 1, 1, 1), (2, 1, 2, 1)],
        "the title request is not part of the conversation"
    );
}

#[test]
fn a_session_that_did_not_finish_or_called_another_tool_is_an_error() {
    let mut bodies = claude();
    bodies.truncate(3);
    let e = extract(
        &captured("/v1/messages", bodies),
        Api::Anthropic,
        &reference(),
        &calls(),
    )
    .expect_err("incomplete");
    assert!(e.to_string().contains("at most 1 of 2 calls"), "{e}");
    let e = extract(&[], Api::Anthropic, &reference(), &calls()).expect_err("nothing");
    assert!(e.to_string().contains("0 requests captured"), "{e}");
    let wrong: Vec<Value> = claude()
        .into_iter()
        .map(|b| {
            serde_json::from_str(&b.to_string().replace(
                "\"name\":\"mcp__s__widgets-list-patterns\",\"input\"",
                "\"name\":\"mcp__s__widgets-scaffold\",\"input\"",
            ))
            .expect("json")
        })
        .collect();
    let e = extract(
        &captured("/v1/messages", wrong),
        Api::Anthropic,
        &reference(),
        &calls(),
    )
    .expect_err("another tool");
    assert!(e.to_string().contains("is not a use of"), "{e}");
}

#[test]
fn genai_declarations_and_whole_results_in_order() {
    let declarations = json!([{"functionDeclarations": [
        {"name": "widgets-list-patterns", "description": "List patterns.", "parametersJsonSchema": {"type": "object"}, "responseJsonSchema": {"type": "object", "required": ["data"]}},
        {"name": "local-helper", "description": "Not ours."}]}]);
    let response = |i: usize| json!({"role": "user", "parts": [{"functionResponse": {"name": "widgets-list-patterns", "response": reference().results[i]}}]});
    let call = json!({"role": "model", "parts": [{"functionCall": {"name": "widgets-list-patterns", "args": {}}}]});
    let bodies = vec![
        json!({"contents": [{"role": "user", "parts": [{"text": "go"}]}], "tools": declarations}),
        json!({"contents": [{"role": "user", "parts": [{"text": "go"}]}, call, response(0), call, response(1)], "tools": declarations}),
    ];
    let parts = extract(
        &captured("/v1beta/models/m:generateContent", bodies),
        Api::Gemini,
        &reference(),
        &calls(),
    )
    .expect("extracts");
    assert_eq!(parts.definitions.len(), 1, "local-helper is not ours");
    assert_eq!(
        parts.definitions[0].carries,
        ["description", "inputSchema", "outputSchema"]
    );
    assert!(
        parts
            .results
            .iter()
            .all(|r| r.forwarded == Forwarded::Result)
    );
    assert!(parts.instructions.is_empty() && parts.names.is_empty());
    assert_eq!(
        parts.requests.iter().map(|s| s.results).collect::<Vec<_>>(),
        [0, 2]
    );
}

#[test]
fn codex_namespaced_definitions_instructions_in_the_namespace_and_steady_wall_times() {
    let tools = json!([{"type": "namespace", "name": "mcp__s", "description": "Modyo platform tools (widgets).",
        "tools": [{"type": "function", "name": "widgets-list-patterns", "description": "List patterns.", "strict": false, "parameters": {"type": "object"}},
                  {"type": "function", "name": "widgets-scaffold", "description": "Scaffold.", "parameters": {"type": "object"}}]},
        {"type": "function", "name": "shell", "description": "Run a command."}]);
    let output = |i: usize, seconds: &str| {
        vec![
            json!({"type": "function_call", "call_id": format!("call_lab_{i:04}"), "name": "widgets-list-patterns", "namespace": "mcp__s", "arguments": "{}"}),
            json!({"type": "function_call_output", "call_id": format!("call_lab_{i:04}"),
                "output": format!("Wall time: {seconds} seconds\nOutput:\n{{\"data\":[{}]}}", i + 1)}),
        ]
    };
    let mut input = vec![
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
    ];
    let first = json!({"tools": tools, "input": input});
    input.extend(output(0, "0.0132"));
    input.extend(output(1, "12.5"));
    let last = json!({"tools": tools, "input": input});
    let parts = extract(
        &captured("/v1/responses", vec![first, last]),
        Api::Responses,
        &reference(),
        &calls(),
    )
    .expect("extracts");
    assert_eq!(parts.definitions.len(), 2, "shell is not ours");
    assert_eq!(parts.instructions, ["Modyo platform tools (widgets)."]);
    assert_eq!(
        parts.results[1].sent,
        json!("Wall time: 0.0000 seconds\nOutput:\n{\"data\":[2]}")
    );
    assert_eq!(parts.results[1].forwarded, Forwarded::Other);
}

#[test]
fn chat_completions_definitions_names_in_a_system_prompt_and_text_blocks() {
    let tools = json!([{"type": "function", "function": {"name": "widgets-list-patterns", "description": "List patterns.", "parameters": {"type": "object"}}}]);
    let system = json!({"role": "system", "content": "You have access to the following tools:\n\n- widgets-list-patterns: List patterns.\n- widgets-scaffold: Scaffold.\n\nUse them."});
    let mut messages = vec![system, json!({"role": "user", "content": "go"})];
    let first = json!({"tools": tools, "messages": messages});
    for i in 0..2 {
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [{"id": format!("call_lab_{i:04}"), "type": "function", "function": {"name": "widgets-list-patterns", "arguments": "{}"}}]}));
        messages.push(json!({"role": "tool", "tool_call_id": format!("call_lab_{i:04}"), "content": [{"type": "text", "text": format!("{{\"data\":[{}]}}", i + 1)}]}));
    }
    let last = json!({"tools": tools, "messages": messages});
    let parts = extract(
        &captured("/v1/chat/completions", vec![first, last]),
        Api::Chat,
        &reference(),
        &calls(),
    )
    .expect("extracts");
    assert_eq!(
        parts.names,
        [
            "- widgets-list-patterns: List patterns.",
            "- widgets-scaffold: Scaffold."
        ]
    );
    assert_eq!(parts.definitions[0].carries, ["description", "inputSchema"]);
    assert!(parts.results.iter().all(|r| r.forwarded == Forwarded::Text));
}

#[test]
fn a_line_names_a_tool_by_its_first_word_only() {
    let tools = vec!["content-entries-list".to_string()];
    assert!(names_tool("mcp__s__content-entries-list", &tools));
    assert!(names_tool("- content-entries-list: lists", &tools));
    assert!(names_tool("* `content-entries-list` (x)", &tools));
    assert!(!names_tool(
        "Prefer content-entries-list with fields",
        &tools
    ));
    assert!(!names_tool("", &tools));
}

#[test]
fn wall_times_are_made_steady_and_nothing_else_is_touched() {
    assert_eq!(
        steady_text("Wall time: 0.0149 seconds\nOutput:\nWall time: 3 seconds"),
        "Wall time: 0.0000 seconds\nOutput:\nWall time: 0.0000 seconds"
    );
    assert_eq!(steady_text("Wall time is 3"), "Wall time is 3");
    assert_eq!(steady_text("no time"), "no time");
}

#[test]
fn a_definition_carries_the_fields_whose_values_it_holds_under_any_name() {
    let tool = json!({"name": "x", "description": "List spaces.", "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"data": {}}}, "annotations": {"readOnlyHint": true}});
    let claude = json!({"name": "mcp__s__x", "description": "List spaces.", "input_schema": {"type": "object"}, "defer_loading": true});
    assert_eq!(carries(&tool, &claude), ["description", "inputSchema"]);
    let chat = json!({"type": "function", "function": {"name": "x", "description": "List spaces.", "parameters": {"type": "object"}}});
    assert_eq!(carries(&tool, &chat), ["description", "inputSchema"]);
    let rewritten = json!({"name": "x", "description": "List spaces. (from MCP)"});
    assert!(carries(&tool, &rewritten).is_empty());
}

#[test]
fn a_forwarded_result_is_its_text_the_whole_result_something_else_or_not_ours() {
    let result = json!({"content": [{"type": "text", "text": "{\"data\":[]}"}], "structuredContent": {"data": []}});
    assert_eq!(forwarded(&result, &json!("{\"data\":[]}")), Forwarded::Text);
    assert_eq!(
        forwarded(
            &result,
            &json!([{"type": "input_text", "text": "{\"data\":[]}"}])
        ),
        Forwarded::Text
    );
    assert_eq!(forwarded(&result, &result.clone()), Forwarded::Result);
    assert_eq!(
        forwarded(&result, &json!({"error": result.clone()})),
        Forwarded::Result
    );
    assert_eq!(forwarded(&result, &json!("{\"data\":[")), Forwarded::Other);
    assert_eq!(
        forwarded(
            &result,
            &json!("Wall time: 0.0000 seconds\nOutput:\n{\"data\":[]}")
        ),
        Forwarded::Other
    );
    assert_eq!(
        forwarded(&result, &json!({"output": {"data": []}})),
        Forwarded::Other,
        "the structured content, wrapped"
    );
    assert_eq!(
        forwarded(&result, &json!("Error: invalid arguments for tool x")),
        Forwarded::Replaced
    );
    // pydantic-ai sends the structured content as its own JSON (spacing of its own); mcp-use
    // wraps an error's text in a JSON string of its own.
    assert_eq!(
        forwarded(&result, &json!("{\"data\": []}")),
        Forwarded::Other
    );
    let error = json!({"isError": true, "content": [{"type": "text", "text": "{\"error\":{\"code\":\"not_found\"}}"}]});
    let wrapped =
        json!({"error": "RuntimeError", "details": "{\"error\":{\"code\":\"not_found\"}}"})
            .to_string();
    assert_eq!(forwarded(&error, &json!(wrapped)), Forwarded::Other);
    let rejected = json!({"error": "MCP error -32602: Structured content does not match the tool's output schema"});
    assert_eq!(forwarded(&error, &rejected), Forwarded::Replaced);
    // A legacy text, pretty, as pydantic-ai sends it again (compact, non-ASCII escaped), and as
    // Gemini CLI masks an older output inside JSON of its own, two levels deep.
    let pretty = json!({"content": [{"type": "text", "text": "{\n  \"templates\": [\n    {\"id\": 801, \"subject\": \"Contraseña nueva\", \"name\": \"Reset\"}\n  ]\n}"}]});
    let compact = json!(
        "{\"templates\":[{\"id\":801,\"subject\":\"Contrase\\u00f1a nueva\",\"name\":\"Reset\"}]}"
    );
    assert_eq!(forwarded(&pretty, &compact), Forwarded::Other);
    let inner = json!({"output": format!("<untrusted_context>\n{}", pretty["content"][0]["text"].as_str().unwrap_or_default())});
    let masked = json!({"output": format!("<tool_output_masked>\n{inner}")});
    assert_eq!(forwarded(&pretty, &masked), Forwarded::Other);
    assert_eq!(bare("{\\\"a\\\": \\\\n \"ñ\\u00f1\"}"), "{a:}");
    assert_eq!(
        forwarded(&result, &json!({"error": result.clone(), "more": 1})),
        Forwarded::Other
    );
    assert_eq!(occurrences(&["ab ab", "b", "ab"], "ab").len(), 3);
    assert!(occurrences(&["ab"], "").is_empty());
    let long = "Modyo platform tools (widgets). Every result is JSON {platform, data}.";
    let listed = format!("- mcp__s: {}...\n- other: x\n{long}", &long[..50]);
    assert_eq!(occurrences(&[&listed], long), [&long[..50], long]);
    assert!(
        occurrences(&[&long[..30]], long).is_empty(),
        "too short to be a copy"
    );
}
