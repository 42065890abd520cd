//! Identifiers as an agent passes them: an agent that read `"id": 636` calls
//! `{"space": 636}`. Every parameter that takes an id (or an id or a name) accepts a JSON
//! integer as well as a string, its input schema says so (strict clients validate their
//! arguments against it), and the integer answers exactly as its decimal string does.

use std::collections::BTreeMap;

use modyo_lab::session::{Library, Session};
use modyo_replay::ReplayOptions;
use serde_json::{Map, Value, json};

/// Whether a parameter's description says, in its main clause (before any `;`), that it
/// takes an id: the word `id`/`ids`, or a `uid` looked up by name.
fn takes_an_id(description: &str) -> bool {
    let main = description.split(';').next().unwrap_or_default();
    let words: Vec<String> = main
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_lowercase)
        .collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    !main.contains("contains this text") && (has("id") || has("ids") || (has("uid") && has("name")))
}

fn accepts(schema: &Value, kind: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == kind,
        Some(Value::Array(types)) => types.iter().any(|t| t == kind),
        _ => ["anyOf", "oneOf"].iter().any(|k| {
            schema
                .get(*k)
                .and_then(Value::as_array)
                .is_some_and(|branches| branches.iter().any(|b| accepts(b, kind)))
        }),
    }
}

/// Follows a local `$ref` (`#/$defs/X`).
fn resolved<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(pointer) => root
            .pointer(pointer.trim_start_matches('#'))
            .unwrap_or(schema),
        None => schema,
    }
}

/// Every identifier parameter (at any depth): `(tool/path, schema of one value)`.
fn identifiers(schema: &Value, root: &Value, at: &str, out: &mut Vec<(String, Value)>) {
    let schema = resolved(schema, root);
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            let property = resolved(property, root);
            let path = format!("{at}/{name}");
            let description = property
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let items = property.get("items").map(|i| resolved(i, root));
            if takes_an_id(description) {
                match items {
                    Some(items) if accepts(items, "string") => {
                        out.push((format!("{path}[]"), items.clone()))
                    }
                    _ if accepts(property, "string") => out.push((path.clone(), property.clone())),
                    _ => {}
                }
            }
            identifiers(property, root, &path, out);
            if let Some(items) = items {
                identifiers(items, root, &format!("{path}[]"), out);
            }
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            identifiers(branch, root, at, out);
        }
    }
}

#[tokio::test]
async fn every_identifier_parameter_accepts_an_integer_in_its_schema() -> anyhow::Result<()> {
    let session = Session::start(&[], &[]).await?;
    let mut found = Vec::new();
    for tool in session.tools().await? {
        let schema = Value::Object((*tool.input_schema).clone());
        identifiers(&schema, &schema, &tool.name, &mut found);
    }
    session.close().await;
    let spaces = found.iter().filter(|(p, _)| p.ends_with("/space")).count();
    assert!(spaces >= 10, "the space parameters are found: {found:#?}");
    let strings_only: Vec<&String> = found
        .iter()
        .filter(|(_, schema)| !accepts(schema, "integer"))
        .map(|(path, _)| path)
        .collect();
    assert!(
        strings_only.is_empty(),
        "identifier parameters that refuse an integer:\n{strings_only:#?}"
    );
    Ok(())
}

/// Every cassette scenario that passes a numeric identifier as a string is replayed with the
/// integer instead: the answer is the same.
#[tokio::test]
async fn an_integer_identifier_answers_as_its_string_does() -> anyhow::Result<()> {
    let library = Library::workspace()?;
    let probe = Session::start(&[], &[]).await?;
    let mut ids: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for tool in probe.tools().await? {
        let schema = Value::Object((*tool.input_schema).clone());
        let mut found = Vec::new();
        identifiers(&schema, &schema, "", &mut found);
        ids.insert(
            tool.name.to_string(),
            found
                .into_iter()
                .filter_map(|(p, _)| {
                    let name = p.strip_prefix('/')?;
                    (!name.contains('/') && !name.ends_with("[]")).then(|| name.to_owned())
                })
                .collect(),
        );
    }
    probe.close().await;

    let mut compared = 0;
    for (cassette, scenario) in library.scenarios() {
        if cassette.has_tag("fault") {
            continue;
        }
        let Value::Object(arguments) = &scenario.arguments else {
            continue;
        };
        let names = ids.get(&scenario.tool).cloned().unwrap_or_default();
        let mut as_integers: Map<String, Value> = arguments.clone();
        let mut changed = false;
        for name in &names {
            if let Some(Value::String(text)) = arguments.get(name)
                && let Ok(n) = text.parse::<u64>()
                && n.to_string() == *text
            {
                as_integers.insert(name.clone(), json!(n));
                changed = true;
            }
        }
        if !changed {
            continue;
        }
        let env: Vec<(String, String)> = scenario
            .env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        let mount = library.mount_set(cassette.name())?;
        let options = ReplayOptions::default()
            .allow_repeats(true)
            .ignore_latency(true);
        let by_string = Session::start_with(&mount, &env, options).await?;
        let expected = by_string
            .call(&scenario.tool, scenario.arguments.clone())
            .await;
        by_string.close().await;
        let by_integer = Session::start_with(&mount, &env, options).await?;
        let got = by_integer
            .call(&scenario.tool, Value::Object(as_integers.clone()))
            .await;
        by_integer.close().await;
        let shown = |r: &Result<rmcp::model::CallToolResult, rmcp::service::ServiceError>| match r {
            Ok(result) => serde_json::to_value(result).unwrap_or_default(),
            Err(e) => json!({"jsonrpc_error": e.to_string()}),
        };
        assert_eq!(
            shown(&got),
            shown(&expected),
            "{}#{} with {}",
            cassette.name(),
            scenario.name,
            Value::Object(as_integers)
        );
        compared += 1;
    }
    assert!(
        compared >= 10,
        "only {compared} scenarios pass a numeric identifier"
    );
    Ok(())
}
