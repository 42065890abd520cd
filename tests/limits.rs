//! Sizes the server bounds: an upstream body past `MODYO_MAX_BODY_BYTES` is refused with the
//! cap named; every string parameter has a `maxLength` in its input schema; an input too long
//! to send is the caller's error, never a retryable `upstream_unavailable`; and an input echoed
//! in an error is shortened.

use modyo_lab::check;
use modyo_lab::session::Session;
use modyo_replay::cassette::{Interaction, RecordedResponse};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use crate::util::cassette;

const SPACES: &str = "/api/admin/content/spaces";

fn spaces_list(body: Value) -> Interaction {
    Interaction::get(SPACES)
        .query("page", "1")
        .query("per_page", "10")
        .respond_with(RecordedResponse::json(200, body))
}

/// A spaces page of `n` spaces, about 100 bytes each.
fn spaces(n: u64) -> Value {
    let rows: Vec<Value> = (1..=n)
        .map(|i| json!({"id": i, "uid": format!("space-{i}"), "name": format!("Space number {i} of the account")}))
        .collect();
    json!({"spaces": rows, "meta": {"total_entries": n, "per_page": 10, "current_page": 1, "total_pages": 1}})
}

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// The text a caller reads: the tool result's text, or the JSON-RPC error.
fn said(result: &Result<CallToolResult, rmcp::service::ServiceError>) -> String {
    match result {
        Ok(result) => check::text(result).unwrap_or_default().to_owned(),
        Err(e) => e.to_string(),
    }
}

#[tokio::test]
async fn a_body_past_the_cap_is_refused_naming_the_cap() -> anyhow::Result<()> {
    let big = spaces(100);
    assert!(big.to_string().len() > 4096);
    let capped = env(&[("MODYO_MAX_BODY_BYTES", "4096")]);

    let session =
        Session::start(&[cassette("limits/big", vec![spaces_list(big)])], &capped).await?;
    let result = session.call("content-spaces-list", json!({})).await?;
    let e = check::error(&result).unwrap_or_else(|| panic!("refused: {result:?}"));
    assert_eq!(e["code"], "invalid_upstream_response", "{e}");
    let message = e["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("4096") && message.contains("MODYO_MAX_BODY_BYTES"),
        "the message names the cap and how to raise it: {message}"
    );
    session.close().await;

    // Under the cap nothing changes.
    let small = Session::start(
        &[cassette("limits/small", vec![spaces_list(spaces(2))])],
        &capped,
    )
    .await?;
    let result = small.call("content-spaces-list", json!({})).await?;
    assert_eq!(check::error(&result), None, "{result:?}");
    small.close().await;
    Ok(())
}

#[tokio::test]
async fn the_body_cap_is_a_positive_number() {
    for bad in ["0", "lots", "-1"] {
        let err =
            modyo_mcp::Config::from_vars([("MODYO_MAX_BODY_BYTES", bad)]).expect_err("refused");
        assert!(err.to_string().contains("MODYO_MAX_BODY_BYTES"), "{err}");
    }
}

/// Every string parameter, at any depth, says how long it may be.
#[tokio::test]
async fn every_string_parameter_has_a_max_length() -> anyhow::Result<()> {
    fn strings(schema: &Value, at: String, out: &mut Vec<String>) {
        match schema {
            Value::Object(map) => {
                let is_string = match map.get("type") {
                    Some(Value::String(t)) => t == "string",
                    Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
                    _ => false,
                };
                if is_string && !map.contains_key("maxLength") && !map.contains_key("enum") {
                    out.push(at.clone());
                }
                for (key, value) in map {
                    strings(value, format!("{at}/{key}"), out);
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    strings(item, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    let session = Session::start(&[], &[]).await?;
    let mut unbounded = Vec::new();
    for tool in session.tools().await? {
        strings(
            &Value::Object((*tool.input_schema).clone()),
            tool.name.to_string(),
            &mut unbounded,
        );
    }
    session.close().await;
    assert!(
        unbounded.is_empty(),
        "strings without maxLength:\n{}",
        unbounded.join("\n")
    );
    Ok(())
}

/// A 65,000-character search cannot be sent (the URL would be too long): the caller is told
/// so, nothing reaches the API, and the message does not blame the connection.
#[tokio::test]
async fn an_input_too_long_to_send_is_the_callers_error() -> anyhow::Result<()> {
    let space = Interaction::get(format!("{SPACES}/636"))
        .respond(200, json!({"id": 636, "uid": "s", "name": "S"}));
    let session = Session::start(&[cassette("limits/query", vec![space])], &[]).await?;
    let query = "x".repeat(65_000);

    let result = session
        .call("content-assets-list", json!({"query": query}))
        .await;

    let text = said(&result);
    let callers = match &result {
        Err(_) => true,
        Ok(r) => check::error(r).is_some_and(|e| e["code"] == "invalid_parameters"),
    };
    assert!(
        callers,
        "a caller's error: {}",
        &text[..text.len().min(600)]
    );
    assert!(
        !text.contains("MODYO_URL") && !text.contains("upstream_unavailable"),
        "{}",
        &text[..text.len().min(600)]
    );
    assert!(
        text.len() < 2_000,
        "the input is not echoed whole ({} chars)",
        text.len()
    );
    let sent = session
        .replay()
        .received()
        .iter()
        .filter(|r| r.path.ends_with("/assets"))
        .count();
    assert_eq!(sent, 0, "nothing was sent");
    session.close().await;
    Ok(())
}

/// An identifier is echoed in a `not_found` (and in an argument error) shortened, never whole.
#[tokio::test]
async fn long_inputs_are_not_echoed_whole() -> anyhow::Result<()> {
    let empty = json!({"spaces": [], "meta": {"total_entries": 0, "per_page": 100, "current_page": 1, "total_pages": 0}});
    let walk = Interaction::get(SPACES)
        .query("page", "1")
        .query("per_page", "100")
        .respond_with(RecordedResponse::json(200, empty));
    let session = Session::start_with(
        &[cassette("limits/echo", vec![walk])],
        &[],
        modyo_replay::ReplayOptions::default().allow_repeats(true),
    )
    .await?;
    for length in [1_000, 100_000] {
        let space = "y".repeat(length);
        let result = session
            .call("content-spaces-get", json!({"space": space}))
            .await;
        let text = said(&result);
        assert!(
            text.len() < 1_000,
            "a {length}-character space makes a {}-character error: {}",
            text.len(),
            &text[..text.len().min(300)]
        );
    }
    session.close().await;
    Ok(())
}
