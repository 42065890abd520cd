//! Shared helpers: in-code cassettes, a started replay server, an HTTP client, a closed port,
//! the workspace, its cassettes (loaded once) and its binaries; `http`: the streamable HTTP
//! transport in tests; [`probes`]: generic views of the tools and scenarios that exist.

use std::path::PathBuf;
use std::sync::OnceLock;

use modyo_lab::session::Library;
use modyo_replay::{Cassette, Interaction, Provenance, ReplayOptions, ReplayServer};

pub(crate) mod http;
pub(crate) mod probes;

/// The workspace root.
pub(crate) fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the harness lives in the workspace")
        .to_path_buf()
}

/// The workspace's cassettes, loaded once for every test of this binary (parsing them all is
/// a second or two of a test each time).
pub(crate) fn library() -> &'static Library {
    static LIBRARY: OnceLock<Library> = OnceLock::new();
    LIBRARY.get_or_init(|| Library::workspace().expect("the workspace's cassettes load"))
}

/// The `modyo-lab` binary of this build.
pub(crate) fn lab_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_modyo-lab"))
}

/// The `modyo-mcp` binary of this build (`make test` builds it before the tests).
pub(crate) fn server_binary() -> PathBuf {
    let path = lab_binary().with_file_name(format!("modyo-mcp{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: run `cargo build -p modyo-mcp` (make test does)",
        path.display()
    );
    path
}

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

/// A loopback port nothing listens on, held for as long as the value lives: a socket bound to
/// it without `listen`, so a connection is refused and no server started meanwhile (a replay
/// server on port 0) can be given the same port. Binding, reading the port and releasing it
/// would leave that race open.
pub(crate) struct ClosedPort {
    _held: tokio::net::TcpSocket,
    /// The port.
    pub(crate) port: u16,
    /// `http://127.0.0.1:<port>`.
    pub(crate) uri: String,
}

/// A [`ClosedPort`].
pub(crate) fn closed_port() -> ClosedPort {
    let held = tokio::net::TcpSocket::new_v4().expect("a socket");
    held.bind(([127, 0, 0, 1], 0).into())
        .expect("a free loopback port");
    let port = held.local_addr().expect("its address").port();
    ClosedPort {
        _held: held,
        port,
        uri: format!("http://127.0.0.1:{port}"),
    }
}
