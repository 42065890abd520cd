//! Replay (the lab's own HTTP server; wiremock's until its request log grew without bound): exact
//! matching, sequences, shadowing, response fidelity and the
//! loud, diagnosed miss.

use std::time::{Duration, Instant};

use modyo_replay::cassette::{self, RecordedResponse};
use modyo_replay::replay::ReceivedBody;
use modyo_replay::{Cassette, Interaction, ReplayOptions, ReplayServer};
use serde_json::{Value, json};

use crate::util::{cassette, get, http, miss_text, replay, replay_one};

#[tokio::test]
async fn the_query_must_match_exactly_not_as_a_subset() {
    // Arrange
    let server = replay_one(vec![
        Interaction::get("/api/admin/content/spaces")
            .query("page", "1")
            .query("only[]", "id")
            .query("only[]", "name")
            .respond(200, json!({"spaces": []})),
    ])
    .await;
    let path = "/api/admin/content/spaces";

    // Act
    let superset = get(&server, &format!("{path}?page=1&only[]=id&only[]=name&q=x")).await;
    let subset = get(&server, &format!("{path}?page=1&only[]=id")).await;
    let repeats_swapped = get(&server, &format!("{path}?page=1&only[]=name&only[]=id")).await;
    let keys_reordered = get(&server, &format!("{path}?only%5B%5D=id&only[]=name&page=1")).await;

    // Assert
    assert_eq!(
        superset.0, 501,
        "a superset query is a miss: {}",
        superset.1
    );
    assert_eq!(subset.0, 501, "a subset query is a miss: {}", subset.1);
    assert_eq!(repeats_swapped.0, 501, "repeated values compare in order");
    assert_eq!(keys_reordered, (200, r#"{"spaces":[]}"#.to_owned()));
    assert_eq!(server.misses().len(), 3);
}

/// A recording whose request says `content-type: multipart/form-data` matches a form upload
/// by its fields (files by name, type and size; `tags[]` as an array), and never a JSON body
/// with the same keys.
#[tokio::test]
async fn a_recorded_form_matches_a_multipart_body_by_its_fields_and_never_json() {
    // Arrange
    let server = replay(
        ReplayOptions::default().allow_repeats(true),
        &[cassette(
            "test/forms",
            vec![
                Interaction::put("/assets/7")
                    .header("content-type", "multipart/form-data")
                    .body(json!({
                        "title": "Fachada",
                        "tags[]": ["sur"],
                        "data": {"file_name": "a.jpg", "content_type": "image/jpeg", "size": 3},
                    }))
                    .respond(200, json!({"id": 7})),
            ],
        )],
    )
    .await;
    let send_form = |title: &'static str, bytes: &'static [u8]| {
        let form = reqwest::multipart::Form::new()
            .text("title", title)
            .text("tags[]", "sur")
            .part(
                "data",
                reqwest::multipart::Part::bytes(bytes)
                    .file_name("a.jpg")
                    .mime_str("image/jpeg")
                    .expect("a MIME type"),
            );
        let request = http()
            .put(format!("{}/assets/7", server.uri()))
            .multipart(form);
        async move { request.send().await.expect("answers").status().as_u16() }
    };

    // Act + Assert
    assert_eq!(send_form("Fachada", b"abc").await, 200);
    assert_eq!(send_form("Otra", b"abc").await, 501, "a field differs");
    assert_eq!(send_form("Fachada", b"abcd").await, 501, "the file differs");
    let json = http()
        .put(format!("{}/assets/7", server.uri()))
        .header("content-type", "application/json")
        .body(r#"{"title": "Fachada", "tags[]": ["sur"], "data": {"file_name": "a.jpg", "content_type": "image/jpeg", "size": 3}}"#)
        .send()
        .await
        .expect("answers")
        .status()
        .as_u16();
    assert_eq!(json, 501, "a JSON body never matches a recorded form");
}

#[tokio::test]
async fn a_recorded_body_matches_as_json_and_no_body_means_empty() {
    // Arrange
    let server = replay(
        ReplayOptions::default().allow_repeats(true),
        &[cassette(
            "test/bodies",
            vec![
                Interaction::post("/items")
                    .body(json!({"name": "a", "fields": {"x": [1, 2]}}))
                    .respond(201, json!({"id": 1})),
                Interaction::delete("/items/1").respond_with(RecordedResponse::empty(204)),
            ],
        )],
    )
    .await;
    let post = |body: Option<&str>| {
        let request = http().post(format!("{}/items", server.uri()));
        let request = match body {
            Some(b) => request
                .header("content-type", "application/json")
                .body(b.to_owned()),
            None => request,
        };
        async move { request.send().await.expect("answers").status().as_u16() }
    };

    // Act + Assert
    assert_eq!(
        post(Some(r#"{"fields": {"x": [1, 2]}, "name": "a"}"#)).await,
        201
    );
    assert_eq!(
        post(Some(r#"{"name": "a", "fields": {"x": [2, 1]}}"#)).await,
        501
    );
    assert_eq!(post(Some(r#"{"name": "a"}"#)).await, 501);
    assert_eq!(
        post(Some("name=a")).await,
        501,
        "a non-JSON body never matches"
    );
    assert_eq!(post(None).await, 501, "a recorded body requires one");
    let delete = |body: Option<&'static str>| {
        let request = http().delete(format!("{}/items/1", server.uri()));
        let request = match body {
            Some(b) => request.body(b),
            None => request,
        };
        async move { request.send().await.expect("answers").status().as_u16() }
    };
    assert_eq!(
        delete(Some("{}")).await,
        501,
        "no recorded body requires an empty one"
    );
    assert_eq!(delete(None).await, 204);
}

#[tokio::test]
async fn identical_requests_replay_in_recorded_order_then_miss() {
    // Arrange
    let job = |status: &str| Interaction::get("/jobs/7").respond(200, json!({"status": status}));
    let server = replay_one(vec![job("queued"), job("running"), job("done")]).await;

    // Act
    let mut bodies = Vec::new();
    for _ in 0..3 {
        bodies.push(get(&server, "/jobs/7").await.1);
    }
    let exhausted = http()
        .get(format!("{}/jobs/7", server.uri()))
        .send()
        .await
        .expect("answers");

    // Assert
    assert_eq!(
        bodies,
        [
            r#"{"status":"queued"}"#,
            r#"{"status":"running"}"#,
            r#"{"status":"done"}"#
        ]
    );
    let diagnostic = miss_text(exhausted).await;
    assert!(
        diagnostic
            .ends_with("GET /jobs/7: already played 3 of 3 recorded times (allow_repeats is off)"),
        "{diagnostic}"
    );
    assert!(server.unused().is_empty());
}

#[tokio::test]
async fn allow_repeats_keeps_answering_the_last_response() {
    // Arrange
    let job = |status: &str| Interaction::get("/jobs/7").respond(200, json!({"status": status}));
    let server = replay(
        ReplayOptions::default().allow_repeats(true),
        &[cassette("test/job", vec![job("queued"), job("done")])],
    )
    .await;

    // Act
    let mut bodies = Vec::new();
    for _ in 0..4 {
        bodies.push(get(&server, "/jobs/7").await.1);
    }

    // Assert
    assert_eq!(
        bodies,
        [
            r#"{"status":"queued"}"#,
            r#"{"status":"done"}"#,
            r#"{"status":"done"}"#,
            r#"{"status":"done"}"#
        ]
    );
    assert!(server.misses().is_empty());
}

#[tokio::test]
async fn the_first_mounted_cassette_shadows_later_ones() {
    // Arrange: a scenario that includes a base, both on disk, resolved into mount order.
    let dir = tempfile::tempdir().expect("tempdir");
    let shared = Interaction::get("/same").respond(200, json!({"same": true}));
    cassette(
        "content/base",
        vec![
            Interaction::get("/spaces").respond(200, json!({"from": "base"})),
            Interaction::get("/types").respond(200, json!({"from": "base"})),
            shared.clone(),
        ],
    )
    .save(dir.path())
    .expect("saves");
    cassette(
        "content/scenario",
        vec![
            Interaction::get("/spaces").respond(200, json!({"from": "scenario"})),
            shared,
        ],
    )
    .include("content/base")
    .save(dir.path())
    .expect("saves");
    let mounted = Cassette::load(dir.path(), "content/scenario")
        .and_then(|c| c.with_includes(dir.path()))
        .expect("resolves");
    let server = replay(ReplayOptions::default(), &mounted).await;

    // Act
    let spaces = get(&server, "/spaces").await;
    let types = get(&server, "/types").await;
    let same = get(&server, "/same").await;

    // Assert
    assert_eq!(spaces.1, r#"{"from":"scenario"}"#);
    assert_eq!(types.1, r#"{"from":"base"}"#);
    assert_eq!(same.0, 200);
    let unused: Vec<String> = server.unused().iter().map(ToString::to_string).collect();
    assert_eq!(
        unused,
        ["content/base interactions[0] GET /spaces: shadowed by content/scenario"],
        "the identical /same pair is deduplicated, not shadowed"
    );
    assert_eq!(server.cassettes(), ["content/scenario", "content/base"]);
}

#[tokio::test]
async fn a_delay_is_honoured() {
    // Arrange
    let delay = Duration::from_millis(40);
    let server = replay_one(vec![
        Interaction::get("/slow").respond_with(RecordedResponse::json(200, json!({})).delay_ms(40)),
    ])
    .await;

    // Act
    let started = Instant::now();
    let (status, _) = get(&server, "/slow").await;

    // Assert: a lower bound only, which a delay guarantees whatever the machine's load.
    assert_eq!(status, 200);
    assert!(
        started.elapsed() >= delay,
        "answered after {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn status_headers_and_the_three_body_kinds_round_trip() {
    // Arrange
    let zip = b"PK\x03\x04\x00\xff binary".to_vec();
    let server = replay_one(vec![
        Interaction::get("/html").respond_with(
            RecordedResponse::text(503, "<html><body>Service Unavailable</body></html>")
                .header("content-type", "text/html")
                .header("retry-after", "7"),
        ),
        Interaction::get("/truncated")
            .respond_with(RecordedResponse::text(200, r#"{"spaces": [{"id": 1"#)),
        Interaction::get("/export.zip").respond_with(
            RecordedResponse::bytes(200, zip.clone()).header("content-type", "application/zip"),
        ),
        Interaction::get("/json").respond(404, json!({"errors": ["Not found"]})),
        Interaction::get("/scim").respond_with(
            RecordedResponse::json(200, json!({"b": 1, "a": 2}))
                .header("Content-Type", "application/scim+json"),
        ),
        Interaction::delete("/gone").respond_with(RecordedResponse::empty(204)),
    ])
    .await;
    let fetch = |method: reqwest::Method, path: &str| {
        let request = http().request(method, format!("{}{path}", server.uri()));
        async move { request.send().await.expect("answers") }
    };
    let header = |r: &reqwest::Response, name: &str| {
        r.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };

    // Act + Assert
    let html = fetch(reqwest::Method::GET, "/html").await;
    assert_eq!(html.status().as_u16(), 503);
    assert_eq!(header(&html, "retry-after").as_deref(), Some("7"));
    assert_eq!(header(&html, "content-type").as_deref(), Some("text/html"));
    assert_eq!(
        html.text().await.expect("body"),
        "<html><body>Service Unavailable</body></html>"
    );

    let truncated = fetch(reqwest::Method::GET, "/truncated").await;
    assert_eq!(
        truncated.text().await.expect("body"),
        r#"{"spaces": [{"id": 1"#
    );

    let binary = fetch(reqwest::Method::GET, "/export.zip").await;
    assert_eq!(
        header(&binary, "content-type").as_deref(),
        Some("application/zip")
    );
    assert_eq!(binary.bytes().await.expect("body").to_vec(), zip);

    let json = fetch(reqwest::Method::GET, "/json").await;
    assert_eq!(json.status().as_u16(), 404);
    assert_eq!(
        header(&json, "content-type").as_deref(),
        Some("application/json")
    );
    assert_eq!(
        json.json::<Value>().await.expect("json"),
        json!({"errors": ["Not found"]})
    );

    let scim = fetch(reqwest::Method::GET, "/scim").await;
    assert_eq!(
        header(&scim, "content-type").as_deref(),
        Some("application/scim+json")
    );
    assert_eq!(
        scim.text().await.expect("body"),
        r#"{"b":1,"a":2}"#,
        "key order as recorded"
    );

    let gone = fetch(reqwest::Method::DELETE, "/gone").await;
    assert_eq!(gone.status().as_u16(), 204);
    assert!(gone.bytes().await.expect("body").is_empty());
    assert!(server.misses().is_empty());
}

#[tokio::test]
async fn a_miss_names_the_request_and_what_differs_from_the_closest_recordings() {
    // Arrange
    let server = replay_one(vec![
        Interaction::get("/api/admin/content/spaces/636/entries")
            .query("page", "1")
            .query("per_page", "10")
            .respond(200, json!({"entries": []})),
        Interaction::put("/api/admin/content/spaces/636/types/12")
            .body(json!({"name": "Sucursal", "fields": []}))
            .respond(200, json!({"id": 12})),
    ])
    .await;

    // Act
    let by_query = http()
        .get(format!(
            "{}/api/admin/content/spaces/636/entries?page=2&per_page=10&sort_by=name",
            server.uri()
        ))
        .send()
        .await
        .expect("answers");
    let by_path_and_method = http()
        .post(format!(
            "{}/api/admin/content/spaces/637/entries?page=1&per_page=10",
            server.uri()
        ))
        .send()
        .await
        .expect("answers");
    let by_body = http()
        .put(format!(
            "{}/api/admin/content/spaces/636/types/12",
            server.uri()
        ))
        .header("authorization", "Bearer canary-token-must-not-leak")
        .json(&json!({"name": "Sucursales", "fields": [], "slug": "s"}))
        .send()
        .await
        .expect("answers");

    // Assert
    let query = miss_text(by_query).await;
    assert!(query.starts_with(
        "GET /api/admin/content/spaces/636/entries?page=2&per_page=10&sort_by=name (no body) matches no recorded interaction; \
         closest of 2 recorded request(s) in 1 cassette(s) (test/one):\n  \
         1. test/one interactions[0] GET /api/admin/content/spaces/636/entries?page=1&per_page=10: \
         query key `page`: recorded \"1\", received \"2\"; query key `sort_by`: extra (received \"name\")"
    ), "{query}");

    let path = miss_text(by_path_and_method).await;
    assert!(path.contains(
        "1. test/one interactions[0] GET /api/admin/content/spaces/636/entries?page=1&per_page=10: \
         method: recorded GET, received POST; path segment 5: recorded \"636\", received \"637\"\n"
    ), "{path}");

    let body = miss_text(by_body).await;
    assert!(body.contains(
        "1. test/one interactions[1] PUT /api/admin/content/spaces/636/types/12: \
         body field `name`: recorded \"Sucursal\", received \"Sucursales\"; body field `slug`: extra"
    ), "{body}");

    let misses = server.misses();
    assert_eq!(misses.len(), 3);
    assert_eq!(
        misses[2].to_string(),
        body,
        "the kept miss is the served diagnostic"
    );
    assert!(
        misses
            .iter()
            .all(|m| !m.to_string().contains("canary-token"))
    );
    assert!(!format!("{:?}", server.received()).contains("canary-token"));
}

#[tokio::test]
async fn received_counts_every_request_in_order_and_reset_clears_everything() {
    // Arrange
    let server = replay_one(vec![
        Interaction::get("/a").respond(200, json!({})),
        Interaction::post("/b")
            .body(json!({"x": 1}))
            .respond(201, json!({})),
        Interaction::get("/never").respond(200, json!({})),
    ])
    .await;

    // Act
    get(&server, "/a?z=1&y=2").await;
    get(&server, "/a").await;
    http()
        .post(format!("{}/b", server.uri()))
        .json(&json!({"x": 1}))
        .send()
        .await
        .expect("answers");

    // Assert
    let received = server.received();
    let lines: Vec<(String, bool)> = received.iter().map(|r| (r.line(), r.replayed)).collect();
    assert_eq!(
        lines,
        [
            ("GET /a?y=2&z=1".to_owned(), false),
            ("GET /a".to_owned(), true),
            ("POST /b".to_owned(), true)
        ]
    );
    assert_eq!(received[2].body, ReceivedBody::Json(json!({"x": 1})));
    let unused: Vec<String> = server.unused().iter().map(ToString::to_string).collect();
    assert_eq!(
        unused,
        ["test/one interactions[2] GET /never: never played"]
    );

    server.reset().await;
    assert!(
        server.received().is_empty() && server.misses().is_empty() && server.unused().is_empty()
    );
    assert!(server.cassettes().is_empty());
    let after = http()
        .get(format!("{}/a", server.uri()))
        .send()
        .await
        .expect("answers");
    let diagnostic = miss_text(after).await;
    assert!(
        diagnostic.ends_with("no interactions are mounted"),
        "{diagnostic}"
    );
}

#[tokio::test]
async fn an_invalid_cassette_built_in_code_mounts_nothing() {
    // Arrange
    let server = ReplayServer::start(ReplayOptions::default()).await;
    let good = cassette(
        "test/good",
        vec![Interaction::get("/ok").respond(200, json!({}))],
    );
    let bad = cassette(
        "test/bad",
        vec![Interaction::get("no-slash").respond(200, json!({}))],
    );

    // Act
    let err = server.mount(&[good, bad]).await.expect_err("invalid path");

    // Assert
    assert!(
        err.to_string().contains("interactions[0].request.path"),
        "{err}"
    );
    assert!(server.cassettes().is_empty());
    assert_eq!(get(&server, "/ok").await.0, 501);
}

#[test]
fn the_default_cassettes_dir_is_the_workspace_one() {
    let dir = cassette::default_dir();
    assert!(dir.ends_with("cassettes"), "{}", dir.display());
    assert!(
        dir.is_dir(),
        "{} is committed (it holds a README)",
        dir.display()
    );
}
