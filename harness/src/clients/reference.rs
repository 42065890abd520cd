//! What a session asks of our server, and what our server answers to it: the plan (which
//! cassette scenarios a module's session calls) and the reference (the same calls made
//! in-process, against the same cassettes, in the same order).
//!
//! A session calls every scenario of the module's own cassettes (`cassettes/<module>/`),
//! successes, errors and controls alike (an error or a refusal is a turn the user pays for too),
//! that needs no extra server environment and can be made on both sides (the legacy tool has
//! every parameter it passes), sorted by scenario id. The client's server serves every cassette
//! at once (`modyo-lab serve`), so a scenario whose answer there is not the one it expects on
//! both sides (another cassette answers the same request; a JSON-RPC error, which a client
//! reports as its own failure rather than a result) is left out and listed. What a side must
//! answer is what `measure` holds it to: after, the expected kind of result; before, `isError`
//! exactly when an error is expected (the legacy tools have no controls: a refusal was a plain
//! text). The reference is what the extraction compares the client's requests with, so it
//! knows which parts are ours and what of our answer the client forwarded.
//!
//! A `recommended` session makes the plan's calls on the migrated module under the settings
//! recommended for its client (C22); its reference (`recommended`) is our server under those
//! settings, held to what the migrated side must answer (a control still reads as one when the
//! form sends it as text only).

use std::path::Path;

use modyo_mcp::Module;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::ServiceError;
use serde_json::{Value, json};

use super::ClientsError;
use super::capture::{Call, LeftOut, Outcome, Settings, Side};
use crate::serve::{Offline, ServeOptions};
use crate::session::Library;

/// What our server published and answered on one side of one module's session.
#[derive(Debug, Clone)]
pub struct Reference {
    /// `tools/list`, as JSON.
    pub tools: Vec<Value>,
    /// The server's instructions.
    pub instructions: String,
    /// The result of each call, as JSON, in call order.
    pub results: Vec<Value>,
}

impl Reference {
    /// Our tool listed under `name`.
    pub fn tool(&self, name: &str) -> Option<&Value> {
        self.tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
    }

    /// Every tool name, as listed.
    pub fn tool_names(&self) -> Vec<&str> {
        self.tools
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str))
            .collect()
    }
}

/// One module's session: the calls both sides make, and the scenarios left out.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The module.
    pub(crate) module: Module,
    /// The calls, in order.
    pub(crate) calls: Vec<Call>,
    /// Scenarios left out, with why.
    pub(crate) left_out: Vec<LeftOut>,
    /// Our server on each side of the migration, answering exactly these calls: before,
    /// after.
    pub(crate) references: [Reference; 2],
}

impl Plan {
    /// The reference of `side`; `None` for [`Side::Recommended`], whose reference depends on
    /// the settings ([`recommended`]).
    pub(crate) fn reference(&self, side: Side) -> Option<&Reference> {
        match side {
            Side::Before => Some(&self.references[0]),
            Side::After => Some(&self.references[1]),
            Side::Recommended => None,
        }
    }
}

/// The server environment of `module` on `side`: only that module, legacy before, and the
/// `settings` of a recommended session (`None`: the defaults).
pub(crate) fn server_env(
    module: Module,
    side: Side,
    settings: Option<Settings>,
) -> Vec<(String, String)> {
    let mut env = vec![("MODYO_MCP_MODULES".to_owned(), module.as_str().to_owned())];
    if side == Side::Before {
        env.push((
            "MODYO_MCP_LEGACY_MODULES".to_owned(),
            module.as_str().to_owned(),
        ));
    }
    env.extend(settings.map(Settings::env).unwrap_or_default());
    env
}

/// Plans `module`'s session and computes its references.
pub(crate) async fn plan(
    library: &Library,
    cassettes: &Path,
    module: Module,
) -> Result<Plan, ClientsError> {
    let mut left_out = Vec::new();
    let mut candidates = Vec::new();
    for (cassette, scenario) in library.scenarios() {
        if cassette.name().split('/').next() != Some(module.as_str())
            || crate::session::module_of(&scenario.tool) != Some(module)
        {
            continue;
        }
        let id = format!("{}#{}", cassette.name(), scenario.name);
        if !scenario.env.is_empty() {
            left_out.push(LeftOut {
                scenario: id,
                why: "needs its own server environment".to_owned(),
            });
            continue;
        }
        candidates.push(Call {
            scenario: id,
            tool: scenario.tool.clone(),
            arguments: scenario.arguments.clone(),
            outcome: scenario.expect.outcome,
        });
    }
    // First pass: which calls the legacy tools accept, and which answer as expected on both
    // sides when every cassette is served at once.
    let before = reference(cassettes, module, Side::Before, None, &candidates).await?;
    let after = reference(cassettes, module, Side::After, None, &candidates).await?;
    let mut calls = Vec::new();
    for (i, call) in candidates.into_iter().enumerate() {
        if let Some(missing) = missing_parameters(&before, &call) {
            left_out.push(LeftOut {
                scenario: call.scenario,
                why: format!("the legacy tool has no parameter {missing}"),
            });
            continue;
        }
        let unexpected = unexpected(call.outcome, Side::Before, &before.results[i])
            .or_else(|| unexpected(call.outcome, Side::After, &after.results[i]));
        match unexpected {
            None => calls.push(call),
            Some(why) => left_out.push(LeftOut {
                scenario: call.scenario,
                why: format!("served with every cassette, {why}"),
            }),
        }
    }
    // Second pass: the exact answers to the calls the session makes, in its order.
    let references = [
        reference(cassettes, module, Side::Before, None, &calls).await?,
        reference(cassettes, module, Side::After, None, &calls).await?,
    ];
    for (side, reference) in Side::BOTH.iter().zip(&references) {
        for (call, result) in calls.iter().zip(&reference.results) {
            if let Some(why) = unexpected(call.outcome, *side, result) {
                return Err(ClientsError::Plan(format!(
                    "{}: {why} (it answered as expected in the first pass: the order of calls changes its answer)",
                    call.scenario,
                )));
            }
        }
    }
    left_out.sort();
    Ok(Plan {
        module,
        calls,
        left_out,
        references,
    })
}

/// Our server on the migrated side of `plan`'s module under `settings`, answering the plan's
/// calls: the reference of a recommended session. Each answer must be the kind the migrated
/// side gives (the plan chose its calls so), or the session would not price the same turns.
pub(crate) async fn recommended(
    cassettes: &Path,
    plan: &Plan,
    settings: Settings,
) -> Result<Reference, ClientsError> {
    let side = Side::Recommended;
    let reference = reference(cassettes, plan.module, side, Some(settings), &plan.calls).await?;
    for (call, result) in plan.calls.iter().zip(&reference.results) {
        if let Some(why) = unexpected(call.outcome, side, result) {
            return Err(ClientsError::Plan(format!(
                "{} under {}: {why}",
                call.scenario,
                settings.label()
            )));
        }
    }
    Ok(reference)
}

/// The parameters `call` passes that the tool (as `reference` lists it) does not declare, or
/// `None` when it declares them all.
fn missing_parameters(reference: &Reference, call: &Call) -> Option<String> {
    let missing = crate::check::undeclared(reference.tool(&call.tool), &call.arguments);
    (!missing.is_empty()).then(|| missing.join(", "))
}

/// The key under which the reference keeps a JSON-RPC error instead of a result.
const JSONRPC_ERROR: &str = "jsonrpcError";

/// Why `side`'s `result` is not the answer a scenario expecting `expected` must get there, or
/// `None` when it is: a JSON-RPC error never is; after, the kind of result must be the one
/// expected; before, `isError` must be set exactly when an error is expected (a legacy refusal
/// is a plain success).
fn unexpected(expected: Outcome, side: Side, result: &Value) -> Option<String> {
    let got = outcome(result);
    if result.get(JSONRPC_ERROR).is_some() {
        return got;
    }
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let fits = match (side, expected) {
        (Side::Before, Outcome::Error) => is_error,
        (Side::Before, Outcome::Success | Outcome::Control) => !is_error,
        (Side::After | Side::Recommended, Outcome::Success) => got.is_none(),
        (Side::After | Side::Recommended, Outcome::Error) => is_error,
        (Side::After | Side::Recommended, Outcome::Control) => !is_error && got.is_some(),
    };
    (!fits).then(|| {
        format!(
            "{} expects {}, got {}",
            side.as_str(),
            label(expected),
            got.unwrap_or_else(|| "a success".into())
        )
    })
}

/// `success`, `error` or `control`.
pub(crate) fn label(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Success => "success",
        Outcome::Error => "error",
        Outcome::Control => "control",
    }
}

/// Why a result is not a success (an error or a control), or `None` for a success. A control
/// is read from `structuredContent`, or, in a form that sends none (`text`), from the text,
/// which is then the compact JSON of the same object.
fn outcome(result: &Value) -> Option<String> {
    if let Some(message) = result.get(JSONRPC_ERROR).and_then(Value::as_str) {
        return Some(format!("JSON-RPC error: {message}"));
    }
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        let text = result
            .pointer("/content/0/text")
            .and_then(Value::as_str)
            .unwrap_or("");
        return Some(format!(
            "error: {}",
            text.chars().take(160).collect::<String>()
        ));
    }
    let structured = match result.get("structuredContent") {
        Some(structured) => structured.clone(),
        None => result
            .pointer("/content/0/text")
            .and_then(Value::as_str)
            .and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or(Value::Null),
    };
    structured
        .pointer("/control/outcome")
        .and_then(Value::as_str)
        .map(|o| format!("control: {o}"))
}

/// Our offline server with every cassette (as `modyo-lab serve` runs it), in-process, with
/// `module` on `side` (under `settings`, for a recommended session): its tools, instructions,
/// and answers to `calls` in order.
pub(crate) async fn reference(
    cassettes: &Path,
    module: Module,
    side: Side,
    settings: Option<Settings>,
    calls: &[Call],
) -> Result<Reference, ClientsError> {
    let mut options = ServeOptions::new(cassettes).env(server_env(module, side, settings));
    // Recorded latency changes no answer; the clients' server skips it too.
    options.ignore_latency = true;
    let offline = Offline::start(&options).await?;
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let serving = tokio::spawn(async move {
        if let Err(e) = offline.serve(server_io).await {
            tracing::debug!("reference server stopped: {e}");
        }
    });
    let client = ().serve(client_io).await.map_err(|e| ClientsError::Reference(e.to_string()))?;
    let instructions = client
        .peer_info()
        .and_then(|info| info.instructions.clone())
        .unwrap_or_default();
    let tools = client
        .list_all_tools()
        .await
        .map_err(|e| ClientsError::Reference(e.to_string()))?
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<Vec<Value>, _>>()
        .map_err(|e| ClientsError::Reference(e.to_string()))?;
    let mut results = Vec::with_capacity(calls.len());
    for call in calls {
        let mut params = CallToolRequestParams::new(call.tool.clone());
        params.arguments = call.arguments.as_object().cloned();
        // A JSON-RPC error (arguments the tool refuses) is an answer like any other: the plan
        // leaves such a call out; a broken transport is not.
        let result = match client.call_tool(params).await {
            Ok(result) => {
                serde_json::to_value(result).map_err(|e| ClientsError::Reference(e.to_string()))?
            }
            Err(ServiceError::McpError(e)) => json!({ JSONRPC_ERROR: e.message }),
            Err(e) => return Err(ClientsError::Reference(format!("{}: {e}", call.scenario))),
        };
        results.push(result);
    }
    let _ = client.cancel().await;
    let _ = serving.await;
    Ok(Reference {
        tools,
        instructions,
        results,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_with_a_parameter_the_legacy_tool_lacks_is_named() {
        let reference = Reference {
            tools: vec![
                json!({"name": "content-entries-list", "inputSchema": {"properties": {"space": {}}}}),
            ],
            instructions: String::new(),
            results: Vec::new(),
        };
        let call = |arguments| Call {
            scenario: "content/entries#x".into(),
            tool: "content-entries-list".into(),
            arguments,
            outcome: Outcome::Success,
        };
        assert_eq!(
            missing_parameters(&reference, &call(json!({"space": "blog"}))),
            None
        );
        assert_eq!(
            missing_parameters(&reference, &call(json!({"space": "blog", "fields": ["a"]}))),
            Some("fields".into())
        );
    }

    #[test]
    fn each_side_must_answer_what_the_scenario_expects() {
        let success = json!({"content": [{"type": "text", "text": "{}"}]});
        let error = json!({"isError": true, "content": [{"type": "text", "text": "not found"}]});
        let control = json!({"structuredContent": {"control": {"outcome": "needs_confirmation"}}});
        let refused = json!({JSONRPC_ERROR: "Invalid arguments"});
        for side in Side::ALL {
            assert_eq!(unexpected(Outcome::Success, side, &success), None);
            assert_eq!(unexpected(Outcome::Error, side, &error), None);
            assert!(unexpected(Outcome::Error, side, &success).is_some());
            assert!(unexpected(Outcome::Success, side, &error).is_some());
            for expected in [Outcome::Success, Outcome::Error, Outcome::Control] {
                let why = unexpected(expected, side, &refused).expect("never a JSON-RPC error");
                assert!(why.starts_with("JSON-RPC error"), "{why}");
            }
        }
        // The legacy tools refused with a plain success text; the migrated ones with a control.
        assert_eq!(unexpected(Outcome::Control, Side::Before, &success), None);
        assert_eq!(unexpected(Outcome::Control, Side::After, &control), None);
        assert_eq!(
            unexpected(Outcome::Control, Side::After, &success),
            Some("after expects control, got a success".into())
        );
        assert_eq!(
            unexpected(Outcome::Success, Side::After, &control),
            Some("after expects success, got control: needs_confirmation".into())
        );
        assert!(unexpected(Outcome::Control, Side::Before, &error).is_some());
        // Under `text`, a control is the compact JSON of the same object, as the text.
        let text_control = json!({"content": [{"type": "text",
            "text": "{\"control\":{\"outcome\":\"cancelled\"},\"data\":null}"}]});
        assert_eq!(
            unexpected(Outcome::Control, Side::Recommended, &text_control),
            None
        );
        assert!(unexpected(Outcome::Success, Side::Recommended, &text_control).is_some());
        assert!(unexpected(Outcome::Control, Side::Recommended, &success).is_some());
    }

    #[test]
    fn errors_and_controls_are_not_successes() {
        assert_eq!(
            outcome(&json!({"content": [{"type": "text", "text": "{}"}]})),
            None
        );
        assert_eq!(
            outcome(&json!({"isError": true, "content": [{"type": "text", "text": "boom"}]})),
            Some("error: boom".into())
        );
        assert_eq!(
            outcome(&json!({"structuredContent": {"control": {"outcome": "refused"}}})),
            Some("control: refused".into())
        );
        assert_eq!(
            outcome(&json!({JSONRPC_ERROR: "Invalid arguments"})),
            Some("JSON-RPC error: Invalid arguments".into())
        );
    }
}
