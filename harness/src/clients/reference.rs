//! What a session asks of our server, and what our server answers to it: the plan (which
//! cassette scenarios a module's session calls) and the reference (the same calls made
//! in-process, against the same cassettes, in the same order).
//!
//! A session calls every scenario of the module's own cassettes (`cassettes/<module>/`) that
//! expects success, needs no extra server environment and can be made on both sides (the legacy
//! tool has every parameter it passes), sorted by scenario id. The client's server serves every
//! cassette at once (`modyo-lab serve`), so a scenario whose answer there is not a success on
//! both sides (another cassette answers the same request) is left out and listed. The reference
//! is what the extraction compares the client's requests with, so it knows which parts are ours
//! and what of our answer the client forwarded.

use std::path::Path;

use modyo_mcp::Module;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::ServiceError;
use serde_json::{Value, json};

use super::ClientsError;
use super::capture::{Call, LeftOut, Side};
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
    /// Our server on each side, answering exactly these calls: before, after.
    pub(crate) references: [Reference; 2],
}

impl Plan {
    /// The reference of `side`.
    pub(crate) fn reference(&self, side: Side) -> &Reference {
        &self.references[usize::from(side == Side::After)]
    }
}

/// The server environment of `module` on `side`: only that module, legacy before.
pub(crate) fn server_env(module: Module, side: Side) -> Vec<(String, String)> {
    let mut env = vec![("MODYO_MCP_MODULES".to_owned(), module.as_str().to_owned())];
    if side == Side::Before {
        env.push((
            "MODYO_MCP_LEGACY_MODULES".to_owned(),
            module.as_str().to_owned(),
        ));
    }
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
            || crate::measure::module_of(&scenario.tool) != Some(module)
            || scenario.expect.outcome != crate::cassette::Outcome::Success
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
        });
    }
    // First pass: which calls the legacy tools accept, and which succeed on both sides when
    // every cassette is served at once.
    let before = reference(cassettes, module, Side::Before, &candidates).await?;
    let after = reference(cassettes, module, Side::After, &candidates).await?;
    let mut calls = Vec::new();
    for (i, call) in candidates.into_iter().enumerate() {
        if let Some(missing) = missing_parameters(&before, &call) {
            left_out.push(LeftOut {
                scenario: call.scenario,
                why: format!("the legacy tool has no parameter {missing}"),
            });
            continue;
        }
        match (outcome(&before.results[i]), outcome(&after.results[i])) {
            (None, None) => calls.push(call),
            (b, a) => left_out.push(LeftOut {
                scenario: call.scenario,
                why: format!(
                    "served with every cassette, it does not succeed ({})",
                    b.or(a).unwrap_or_default()
                ),
            }),
        }
    }
    // Second pass: the exact answers to the calls the session makes, in its order.
    let references = [
        reference(cassettes, module, Side::Before, &calls).await?,
        reference(cassettes, module, Side::After, &calls).await?,
    ];
    for (side, reference) in Side::BOTH.iter().zip(&references) {
        for (call, result) in calls.iter().zip(&reference.results) {
            if let Some(why) = outcome(result) {
                return Err(ClientsError::Plan(format!(
                    "{} {}: {why} (it succeeded in the first pass: the order of calls changes its answer)",
                    call.scenario,
                    side.as_str()
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

/// The parameters `call` passes that the tool (as `reference` lists it) does not declare, or
/// `None` when it declares them all.
fn missing_parameters(reference: &Reference, call: &Call) -> Option<String> {
    let missing = crate::measure::undeclared(reference.tool(&call.tool), &call.arguments);
    (!missing.is_empty()).then(|| missing.join(", "))
}

/// The key under which the reference keeps a JSON-RPC error instead of a result.
const JSONRPC_ERROR: &str = "jsonrpcError";

/// Why a result is not a success (an error or a control), or `None` for a success.
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
    result
        .pointer("/structuredContent/control/outcome")
        .and_then(Value::as_str)
        .map(|o| format!("control: {o}"))
}

/// Our offline server with every cassette (as `modyo-lab serve` runs it), in-process, with
/// `module` on `side`: its tools, instructions, and answers to `calls` in order.
pub(crate) async fn reference(
    cassettes: &Path,
    module: Module,
    side: Side,
    calls: &[Call],
) -> Result<Reference, ClientsError> {
    let mut options = ServeOptions::new(cassettes).env(server_env(module, side));
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
