//! Shared helpers: in-code cassettes, a started replay server, an HTTP client, and (in
//! [`probes`]) generic views of the tools and scenarios that exist.

use modyo_lab::{Cassette, Interaction, Provenance, ReplayOptions, ReplayServer};

pub(crate) mod probes;

/// A synthetic cassette named `name` holding `interactions`.
pub(crate) fn cassette(name: &str, interactions: Vec<Interaction>) -> Cassette {
    Cassette::new(
        name,
        Provenance::synthetic("2026-11-29", "integration test"),
    )
    .interactions(interactions)
}

/// A replay server with `cassettes` mounted in order.
pub(crate) async fn replay(options: ReplayOptions, cassettes: &[Cassette]) -> ReplayServer {
    let server = ReplayServer::start(options).await;
    server
        .mount(cassettes)
        .await
        .expect("test cassettes are valid");
    server
}

/// A replay server with one cassette and default options (no repeats).
pub(crate) async fn replay_one(interactions: Vec<Interaction>) -> ReplayServer {
    replay(
        ReplayOptions::default(),
        &[cassette("test/one", interactions)],
    )
    .await
}

/// A plain HTTP client.
pub(crate) fn http() -> reqwest::Client {
    reqwest::Client::new()
}

/// `GET <server><path_and_query>`, returning the status and the body text.
pub(crate) async fn get(server: &ReplayServer, path_and_query: &str) -> (u16, String) {
    let response = http()
        .get(format!("{}{path_and_query}", server.uri()))
        .send()
        .await
        .expect("replay server answers");
    let status = response.status().as_u16();
    (status, response.text().await.expect("body"))
}

/// The diagnostic a miss response carries (its `errors[0]`, without the prefix).
pub(crate) async fn miss_text(response: reqwest::Response) -> String {
    assert_eq!(response.status().as_u16(), 501, "a miss answers 501");
    assert_eq!(
        response
            .headers()
            .get("x-modyo-replay")
            .and_then(|v| v.to_str().ok()),
        Some("miss")
    );
    let body: serde_json::Value = response.json().await.expect("miss body is JSON");
    let error = body["errors"][0].as_str().expect("errors[0] is a string");
    error
        .strip_prefix("replay miss: ")
        .expect("the error starts with 'replay miss: '")
        .to_owned()
}
