//! The upstream error mapping (the error table of `server/CONTRACT.md`) through the real server over HTTP: every
//! status, a timeout, a refused connection and a malformed body become C16 errors that carry
//! `platform` once, after the `error`, with the right `code`, the upstream status in the
//! message (not repeated as a key), `retryable: true` where retrying may help (absent
//! otherwise) and `retry_after_s` where known.

use modyo_lab::check;
use modyo_lab::serve::offline_config;
use modyo_lab::session::{CANARY_TOKEN, Session};
use modyo_replay::cassette::{Interaction, RecordedResponse};
use modyo_replay::replay::{ReplayOptions, ReplayServer};
use serde_json::{Value, json};

use crate::util::cassette;

const SPACES: &str = "/api/admin/content/spaces";

/// Calls `content-spaces-list` against one recorded response and returns the C16 payload.
async fn spaces_list_error(response: RecordedResponse) -> Value {
    let interaction = Interaction::get(SPACES)
        .query("page", "1")
        .query("per_page", "10")
        .respond_with(response);
    let session = Session::start(&[cassette("faults/test", vec![interaction])], &[])
        .await
        .expect("session");
    let tools = session.tools().await.expect("tools/list");
    let tool = tools
        .iter()
        .find(|t| t.name == "content-spaces-list")
        .expect("listed");
    let result = session
        .call("content-spaces-list", json!({}))
        .await
        .expect("a tool result, not a JSON-RPC error");
    assert_eq!(check::problems(tool, &result), Vec::<String>::new());
    assert_eq!(result.is_error, Some(true), "{result:?}");
    let text = check::text(&result).expect("text");
    assert!(
        text.starts_with(r#"{"error":""#),
        "an error from its first bytes: {text}"
    );
    let payload: Value = serde_json::from_str(text).expect("JSON text");
    assert_eq!(
        payload["platform"],
        json!({"name": "modyo-offline", "host": "127.0.0.1"})
    );
    assert!(!payload.to_string().contains(CANARY_TOKEN));
    let error = check::error(&result).expect("a C16 error");
    assert_eq!(
        error.get("status"),
        None,
        "the message names the status: {error}"
    );
    assert_ne!(error.get("retryable"), Some(&json!(false)), "{error}");
    session.close().await;
    error
}

/// The error's message.
fn message(e: &Value) -> &str {
    e["message"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn status_401_with_a_body_is_unauthorized() {
    let e = spaces_list_error(RecordedResponse::json(401, json!({}))).await;
    assert_eq!(
        (e["code"].as_str(), e["retryable"].as_bool()),
        (Some("unauthorized"), None)
    );
    assert!(
        message(&e).contains("answered 401") && message(&e).contains("MODYO_TOKEN"),
        "{e}"
    );
}

#[tokio::test]
async fn status_401_or_403_empty_is_forbidden() {
    for status in [401, 403] {
        let e = spaces_list_error(RecordedResponse::empty(status)).await;
        assert_eq!(e["code"], "forbidden", "{status}: {e}");
        assert!(message(&e).contains(&format!("answered {status}")), "{e}");
    }
}

#[tokio::test]
async fn status_404_is_not_found() {
    let e = spaces_list_error(RecordedResponse::json(
        404,
        json!({"errors": ["Not found"]}),
    ))
    .await;
    assert_eq!(
        (e["code"].as_str(), e["retryable"].as_bool()),
        (Some("not_found"), None)
    );
    assert!(
        e["message"].as_str().unwrap().contains("Not found"),
        "the upstream text is kept: {e}"
    );
}

#[tokio::test]
async fn status_409_is_rejected_or_validation_failed() {
    let e = spaces_list_error(RecordedResponse::json(
        409,
        json!({"errors": ["Space is locked"]}),
    ))
    .await;
    assert_eq!(e["code"], "rejected");
    assert!(e["message"].as_str().unwrap().contains("Space is locked"));
    let e = spaces_list_error(RecordedResponse::json(
        409,
        json!({"errors": [{"field": "uid", "messages": ["has already been taken"], "details": [{"error": "taken"}]}]}),
    ))
    .await;
    assert_eq!(e["code"], "validation_failed");
    assert!(
        message(&e).ends_with("was rejected (409): uid: has already been taken"),
        "the message names the field and what the API said: {e}"
    );
    assert_eq!(e.get("fields"), None, "nothing repeats the message: {e}");
}

#[tokio::test]
async fn status_422_is_invalid_parameters() {
    let e = spaces_list_error(RecordedResponse::empty(422)).await;
    assert_eq!(e["code"], "invalid_parameters");
    assert!(message(&e).contains("answered 422"), "{e}");
}

#[tokio::test]
async fn status_429_is_rate_limited_with_retry_after() {
    let e = spaces_list_error(
        RecordedResponse::json(429, json!({"errors": ["Too many requests"]}))
            .header("retry-after", "17"),
    )
    .await;
    assert_eq!(
        (
            e["code"].as_str(),
            e["retryable"].as_bool(),
            e["retry_after_s"].as_u64()
        ),
        (Some("rate_limited"), None, None),
        "the code says it may be retried, the message how long to wait"
    );
    assert!(message(&e).contains("retry after 17s"), "{e}");
    let e = spaces_list_error(RecordedResponse::empty(429)).await;
    assert_eq!(e.get("retry_after_s"), None, "no Retry-After, no guess");
}

#[tokio::test]
async fn status_500_is_upstream_unavailable_and_retryable() {
    let e = spaces_list_error(
        RecordedResponse::text(500, "<html><body>Internal Server Error</body></html>")
            .header("content-type", "text/html"),
    )
    .await;
    assert_eq!(
        (e["code"].as_str(), e["retryable"].as_bool()),
        (Some("upstream_unavailable"), Some(true))
    );
    assert!(message(&e).contains("answered 500"), "{e}");
}

#[tokio::test]
async fn malformed_json_is_an_invalid_upstream_response() {
    let e = spaces_list_error(
        RecordedResponse::text(200, r#"{"spaces": [{"id": 1"#)
            .header("content-type", "application/json"),
    )
    .await;
    assert_eq!(
        (e["code"].as_str(), e["retryable"].as_bool()),
        (Some("invalid_upstream_response"), None)
    );
}

#[tokio::test]
async fn a_body_without_its_root_is_an_invalid_upstream_response() {
    let e = spaces_list_error(RecordedResponse::json(
        200,
        json!({"meta": {"total_entries": 0}}),
    ))
    .await;
    assert_eq!(e["code"], "invalid_upstream_response");
    assert!(e["message"].as_str().unwrap().contains("spaces"), "{e}");
}

#[tokio::test]
async fn a_timeout_is_upstream_unavailable() {
    let slow = RecordedResponse::json(200, json!({"spaces": []})).delay_ms(5_000);
    let interaction = Interaction::get(SPACES)
        .query("page", "1")
        .query("per_page", "10")
        .respond_with(slow);
    let replay = ReplayServer::start(ReplayOptions::default()).await;
    replay
        .mount(&[cassette("faults/slow", vec![interaction])])
        .await
        .expect("mounts");
    let env = [("MODYO_TIMEOUT_MS".to_owned(), "100".to_owned())];
    let config = offline_config(&replay.uri(), &env, CANARY_TOKEN).expect("config");
    let session = Session::connect(replay, config).await.expect("session");
    let result = session
        .call("content-spaces-list", json!({}))
        .await
        .expect("a tool result");
    let e = check::error(&result).expect("a C16 error");
    assert_eq!(
        (e["code"].as_str(), e["retryable"].as_bool()),
        (Some("upstream_unavailable"), Some(true))
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("timed out after 100 ms"),
        "{e}"
    );
    session.close().await;
}

#[tokio::test]
async fn a_refused_connection_is_upstream_unavailable() {
    let closed = crate::util::closed_port();
    let replay = ReplayServer::start(ReplayOptions::default()).await;
    let config = offline_config(&closed.uri, &[], CANARY_TOKEN).expect("config");
    let session = Session::connect(replay, config).await.expect("session");
    let result = session
        .call("content-spaces-list", json!({}))
        .await
        .expect("a tool result");
    let e = check::error(&result).expect("a C16 error");
    assert_eq!(
        (e["code"].as_str(), e["retryable"].as_bool()),
        (Some("upstream_unavailable"), Some(true)),
        "{e}"
    );
    assert!(
        e["message"].as_str().unwrap().contains("could not connect"),
        "{e}"
    );
    assert!(
        !e["message"]
            .as_str()
            .unwrap()
            .contains(&closed.port.to_string()),
        "no host or port in messages: {e}"
    );
    session.close().await;
}

#[tokio::test]
async fn a_replay_miss_is_loud_and_not_retryable() {
    let recorded = Interaction::get(SPACES)
        .query("page", "2")
        .query("per_page", "10")
        .respond(200, json!({"spaces": []}));
    let session = Session::start(&[cassette("faults/miss", vec![recorded])], &[])
        .await
        .expect("session");
    let result = session
        .call("content-spaces-list", json!({}))
        .await
        .expect("a tool result");
    let e = check::error(&result).expect("a C16 error");
    let message = e["message"].as_str().unwrap();
    assert_eq!(
        (e["code"].as_str(), e["retryable"].as_bool()),
        (Some("upstream_unavailable"), None),
        "a miss will not change on retry"
    );
    assert!(
        message.contains("answered 501")
            && message.contains("replay miss")
            && message.contains("query key `page`"),
        "{message}"
    );
    assert_eq!(session.replay().misses().len(), 1);
    session.close().await;
}

/// `content-entries-list` with `fields` over a page of two entries, the second answering
/// `second`: the projection reads entry bodies sparsely, and must fail like any other read.
async fn projection_with(second: RecordedResponse) -> rmcp::model::CallToolResult {
    let space = format!("{SPACES}/636");
    let entry = |id: u64, title: &str| {
        json!({"id": id, "content_type_id": 9, "author": {"name": "x"},
               "field_values": [{"field_id": 1, "type": "text", "value": title}]})
    };
    let interactions = vec![
        Interaction::get(&space)
            .respond_with(RecordedResponse::json(200, json!({"id": 636, "name": "S"}))),
        Interaction::get(format!("{space}/entries"))
            .query("page", "1")
            .query("per_page", "10")
            .respond_with(RecordedResponse::json(
                200,
                json!({"entries": [{"id": 1, "name": "a", "content_type_id": 9},
                                   {"id": 2, "name": "b", "content_type_id": 9}],
                       "meta": {"total_entries": 2, "total_pages": 1, "current_page": 1, "per_page": 10}}),
            )),
        Interaction::get(format!("{space}/types/9")).respond_with(RecordedResponse::json(
            200,
            json!({"id": 9, "fields": [{"id": 1, "name": "title", "type": "text"}]}),
        )),
        Interaction::get(format!("{space}/entries/1"))
            .respond_with(RecordedResponse::json(200, entry(1, "A"))),
        Interaction::get(format!("{space}/entries/2")).respond_with(second),
    ];
    let session = Session::start(&[cassette("faults/projection", interactions)], &[])
        .await
        .expect("session");
    let result = session
        .call(
            "content-entries-list",
            json!({"space": "636", "fields": ["title"]}),
        )
        .await
        .expect("a tool result, not a JSON-RPC error");
    session.close().await;
    result
}

#[tokio::test]
async fn projection_reads_entry_bodies_and_fails_on_bad_ones_like_any_read() {
    // The control: a good second body projects.
    let good = json!({"id": 2, "content_type_id": 9,
                      "field_values": [{"field_id": 1, "value": "B"}], "json": {"fields": {}}});
    let result = projection_with(RecordedResponse::json(200, good)).await;
    let payload = result.structured_content.clone().expect("structured");
    let titles: Vec<&Value> = payload["data"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| &row["fields"]["title"])
        .collect();
    assert_eq!(titles, [&json!("A"), &json!("B")], "{payload}");

    let malformed = RecordedResponse::text(200, r#"{"id": 2, "field_values": [{"#)
        .header("content-type", "application/json");
    let not_object = RecordedResponse::json(200, json!([{"field_id": 1, "value": "B"}]));
    let empty = RecordedResponse::text(200, "  ").header("content-type", "application/json");
    for (body, says) in [
        (malformed, "not valid JSON"),
        (not_object, "expected a JSON object, got an array"),
        (empty, "expected a JSON object, got an empty body or null"),
    ] {
        let result = projection_with(body).await;
        let e = check::error(&result).expect("a C16 error");
        assert_eq!(e["code"], "invalid_upstream_response", "{e}");
        let message = e["message"].as_str().unwrap_or_default();
        assert!(message.contains("reading entry 2 for fields"), "{e}");
        assert!(
            message.to_lowercase().contains(&says.to_lowercase()),
            "{says}: {e}"
        );
    }
}

/// `MODYO_ERRORS=text` (C22): the same error as one plain line, with no quote a client could
/// escape, the code first and the platform last; `isError` and no `structuredContent` as in
/// JSON.
#[tokio::test]
async fn the_text_error_form_says_the_same_in_one_plain_line() {
    let interaction = Interaction::get(SPACES)
        .query("page", "1")
        .query("per_page", "10")
        .respond_with(RecordedResponse::json(
            404,
            json!({"errors": ["Not found"]}),
        ));
    let env = [("MODYO_ERRORS".to_owned(), "text".to_owned())];
    let session = Session::start(&[cassette("faults/test", vec![interaction])], &env)
        .await
        .expect("session");
    let result = session
        .call("content-spaces-list", json!({}))
        .await
        .expect("a tool result, not a JSON-RPC error");
    session.close().await;
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert!(result.structured_content.is_none());
    let text = check::text(&result).expect("text");
    assert!(text.starts_with("Error (not_found): "), "{text}");
    assert!(
        text.ends_with(" [platform: modyo-offline, 127.0.0.1]"),
        "{text}"
    );
    assert!(!text.contains('"') && !text.contains('\n'), "{text}");
    assert!(!text.contains(CANARY_TOKEN));
}
