//! The read-only gate and the class pins (C18, C19), over every tool the server registers.
//!
//! With `MODYO_READ_ONLY=true`: mutation tools are not listed; every mutating action of every
//! gated tool (its `action` options minus list/get/search/find) is refused through `control`,
//! the refusal validates against the tool's schema, and no request at all (so no write)
//! reaches the replay server. The class of every tool is pinned in `tests/pins/tool-classes.txt`.

use std::collections::BTreeMap;

use modyo_lab::check::{self, Kind};
use modyo_lab::lint;
use modyo_lab::session::Session;
use modyo_mcp::contract::ToolClass;
use rmcp::model::{ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};

use crate::util::probes::{sample_arguments, tools};

fn read_only() -> Vec<(String, String)> {
    vec![("MODYO_READ_ONLY".to_owned(), "true".to_owned())]
}

#[tokio::test]
async fn read_only_hides_mutation_tools_and_keeps_the_others_unchanged() -> anyhow::Result<()> {
    let full = tools(&[]).await?;
    let gated_view = tools(&read_only()).await?;
    for tool in &full {
        let listed = gated_view.iter().find(|t| t.name == tool.name);
        match lint::classify(tool) {
            ToolClass::Mutation => {
                assert!(
                    listed.is_none(),
                    "{} is listed in read-only mode",
                    tool.name
                )
            }
            _ => assert_eq!(
                listed,
                Some(tool),
                "{} must be listed, unchanged, in read-only mode",
                tool.name
            ),
        }
    }
    assert!(
        gated_view
            .iter()
            .all(|t| full.iter().any(|f| f.name == t.name)),
        "read-only mode adds no tool"
    );
    Ok(())
}

#[tokio::test]
async fn every_mutating_action_of_every_gated_tool_is_refused_before_any_request()
-> anyhow::Result<()> {
    let session = Session::start(&[], &read_only()).await?;
    let mut refused = 0;
    let mut failures = Vec::new();
    for tool in session.tools().await? {
        if lint::classify(&tool) != ToolClass::Gated {
            continue;
        }
        let actions = lint::mutating_actions(&tool);
        if actions.is_empty() {
            failures.push(format!(
                "{}: a gated tool without mutating actions",
                tool.name
            ));
        }
        for action in actions {
            // Everything a real write would need, so a leaking gate would really write.
            let mut extra = json!({"action": action});
            if tool
                .input_schema
                .get("properties")
                .and_then(|p| p.get("confirmDelete"))
                .is_some()
            {
                extra["confirmDelete"] = json!(true);
            }
            let arguments = sample_arguments(&tool, extra);
            let label = format!("{} {action}", tool.name);
            let before = session.replay().received().len();
            let result = match session.call(&tool.name, arguments.clone()).await {
                Ok(result) => result,
                Err(e) => {
                    failures.push(format!("{label} {arguments}: JSON-RPC error {e}"));
                    continue;
                }
            };
            failures.extend(
                check::problems(&tool, &result)
                    .into_iter()
                    .map(|p| format!("{label}: {p}")),
            );
            let control = result
                .structured_content
                .as_ref()
                .and_then(|s| s.get("control"))
                .cloned()
                .unwrap_or(Value::Null);
            if check::kind(&result) != Kind::Control || control["outcome"] != "refused" {
                failures.push(format!(
                    "{label}: not refused through control: {}",
                    check::text(&result).unwrap_or_default()
                ));
            } else if !control["message"]
                .as_str()
                .is_some_and(|m| m.contains(&action))
            {
                failures.push(format!(
                    "{label}: the refusal does not name the action: {control}"
                ));
            }
            let received = session.replay().received();
            let writes: Vec<String> = received[before..]
                .iter()
                .filter(|r| r.method != "GET")
                .map(|r| r.line())
                .collect();
            if !writes.is_empty() {
                failures.push(format!("{label}: writes reached the API: {writes:?}"));
            }
            if received.len() != before {
                failures.push(format!("{label}: the gate let a request through"));
            }
            refused += 1;
        }
    }
    session.close().await;
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("read-only gate: {refused} mutating actions refused");
    Ok(())
}

/// `tool -> class` from the pin file.
fn pins() -> anyhow::Result<BTreeMap<String, String>> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/pins/tool-classes.txt");
    let mut pins = BTreeMap::new();
    for (n, line) in std::fs::read_to_string(path)?.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let (Some(tool), Some(class), None) = (words.next(), words.next(), words.next()) else {
            anyhow::bail!("tool-classes.txt line {}: expected `tool class`", n + 1);
        };
        anyhow::ensure!(
            ["read", "gated", "mutation"].contains(&class),
            "line {}: unknown class {class}",
            n + 1
        );
        anyhow::ensure!(
            pins.insert(tool.to_owned(), class.to_owned()).is_none(),
            "{tool} pinned twice"
        );
    }
    Ok(pins)
}

#[tokio::test]
async fn the_class_of_every_tool_is_pinned() -> anyhow::Result<()> {
    let pins = pins()?;
    let session = Session::start(&[], &[]).await?;
    let listed = session.tools().await?;
    let mut failures = Vec::new();
    for tool in &listed {
        let derived = lint::classify(tool).as_str();
        // The class the server itself declares, from the tool's docs resource.
        let uri = format!("modyo://docs/tools/{}", tool.name);
        let doc = session
            .client()
            .read_resource(ReadResourceRequestParams::new(uri))
            .await?;
        let text = doc
            .contents
            .iter()
            .find_map(|c| match c {
                ResourceContents::TextResourceContents { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .unwrap_or_default();
        let declared = text
            .split("Class: ")
            .nth(1)
            .and_then(|rest| rest.split('.').next())
            .unwrap_or("?");
        match pins.get(tool.name.as_ref()) {
            None => failures.push(format!(
                "{} is not pinned: add `{} {derived}` to tests/pins/tool-classes.txt",
                tool.name, tool.name
            )),
            Some(pinned) if pinned != derived || pinned != declared => failures.push(format!(
                "{}: pinned {pinned}, tools/list says {derived}, the server declares {declared}",
                tool.name
            )),
            Some(_) => {}
        }
    }
    session.close().await;
    // Once every catalogue tool is registered, every pin must be too.
    if modyo_mcp::catalog_size() >= pins.len() {
        for tool in pins.keys() {
            if !listed.iter().any(|t| t.name == tool.as_str()) {
                failures.push(format!("{tool} is pinned but not registered"));
            }
        }
    }
    let count = |class: &str| pins.values().filter(|c| *c == class).count();
    assert_eq!(
        (pins.len(), count("read"), count("gated"), count("mutation")),
        (80, 20, 25, 35),
        "the catalogue's counts (server/CONTRACT.md)"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    Ok(())
}
