//! The streamable HTTP transport: the same tools, gate and errors as stdio (every cassette
//! scenario answers identically over both), DNS-rebinding protection, loopback-only binding,
//! and the production binary with `--http`.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use modyo_lab::serve::{Offline, ServeOptions};
use modyo_mcp::{Config, ModyoServer};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use serde_json::{Value, json};

use crate::util::http::{self, Spawned};
use crate::util::{lab_binary, server_binary};

/// One call's answer as comparable JSON: the result, or the JSON-RPC error's text.
async fn answer(
    client: &RunningService<rmcp::RoleClient, ()>,
    tool: &str,
    arguments: &Value,
) -> Value {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.arguments = arguments.as_object().cloned();
    match client.call_tool(params).await {
        Ok(result) => serde_json::to_value(result).expect("results serialize"),
        Err(e) => json!({"jsonrpc_error": e.to_string()}),
    }
}

/// What a session lists: tools, resources, resource templates.
async fn listing(client: &RunningService<rmcp::RoleClient, ()>) -> anyhow::Result<Value> {
    Ok(json!({
        "tools": client.list_all_tools().await?,
        "resources": client.list_all_resources().await?,
        "templates": client.list_all_resource_templates().await?,
    }))
}

#[tokio::test]
async fn every_scenario_answers_over_http_exactly_as_over_stdio() -> anyhow::Result<()> {
    // Arrange: the scenarios of the offline server, grouped by their server environment.
    let library = crate::util::library();
    let mut groups: BTreeMap<Vec<(String, String)>, Vec<_>> = BTreeMap::new();
    for (cassette, scenario) in library.scenarios() {
        if cassette.has_tag("fault") {
            continue;
        }
        let env = scenario
            .env
            .iter()
            .map(|(k, v)| (k.to_owned(), v.clone()))
            .collect();
        groups
            .entry(env)
            .or_default()
            .push((cassette.name().to_owned(), scenario.clone()));
    }
    assert!(!groups.is_empty(), "the workspace has scenarios");
    let mut compared = 0;
    for (env, scenarios) in groups {
        let options = ServeOptions::new(library.root()).env(env.clone());
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        let serving = tokio::spawn(Offline::start(&options).await?.serve(server_io));
        let local = ().serve(client_io).await?;
        let served = http::serve_offline(Offline::start(&options).await?).await;
        let remote = http::client(&served.url).await;

        // Act + Assert: the same listing, then the same answer to every scenario.
        assert_eq!(
            listing(&remote).await?,
            listing(&local).await?,
            "listing over HTTP with {env:?}"
        );
        for (cassette, scenario) in &scenarios {
            let over_stdio = answer(&local, &scenario.tool, &scenario.arguments).await;
            let over_http = answer(&remote, &scenario.tool, &scenario.arguments).await;
            assert_eq!(
                over_http, over_stdio,
                "{cassette}#{} answers differently over HTTP",
                scenario.name
            );
            compared += 1;
        }
        remote.cancel().await?;
        local.cancel().await?;
        served.stop().await;
        serving.await??;
    }
    assert!(compared > 0);
    Ok(())
}

/// A raw `initialize` POST with extra headers: the status code.
async fn initialize_status(url: &str, headers: &[(&str, &str)]) -> u16 {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
        );
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
        .send()
        .await
        .expect("the server answers")
        .status()
        .as_u16()
}

#[tokio::test]
async fn foreign_hosts_and_origins_are_refused_dns_rebinding() -> anyhow::Result<()> {
    // Arrange: a public-mode server (no credentials) on a loopback port.
    let server = ModyoServer::new(Config::from_vars(Vec::<(String, String)>::new())?)?;
    let served = http::serve(server).await;
    let url = served.url.clone();
    let port = url::Url::parse(&url)?.port().expect("a port");

    // Act + Assert
    assert_eq!(
        initialize_status(&url, &[]).await,
        200,
        "a plain local client"
    );
    assert_eq!(
        initialize_status(&url, &[("host", &format!("localhost:{port}"))]).await,
        200
    );
    assert_eq!(
        initialize_status(&url, &[("origin", "http://localhost:5173")]).await,
        200,
        "a local browser origin"
    );
    assert_eq!(
        initialize_status(&url, &[("host", &format!("attacker.example:{port}"))]).await,
        403,
        "a rebinding Host"
    );
    assert_eq!(
        initialize_status(&url, &[("origin", "https://attacker.example")]).await,
        403,
        "a foreign Origin"
    );
    assert_eq!(
        initialize_status(&url, &[("host", &format!("mcp.example.test:{port}"))]).await,
        403,
        "a name not allowed"
    );
    let elsewhere = reqwest::Client::new()
        .post(url.replace("/mcp", "/other"))
        .send()
        .await?;
    assert_eq!(elsewhere.status().as_u16(), 404, "only /mcp answers");
    served.stop().await;
    Ok(())
}

#[tokio::test]
async fn allowed_hosts_and_origins_extend_the_loopback_ones() -> anyhow::Result<()> {
    let server = ModyoServer::new(Config::from_vars(Vec::<(String, String)>::new())?)?;
    let options = modyo_mcp::HttpOptions::loopback(0)
        .allowed_host("mcp.example.test")
        .allowed_origin("https://app.example.test");
    let listener = modyo_mcp::HttpListener::bind(options).await?;
    let url = listener.url();
    let port = listener.local_addr().port();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server.serve_http(listener, async {
        let _ = stopped.await;
    }));

    let named = format!("mcp.example.test:{port}");
    assert_eq!(initialize_status(&url, &[("host", &named)]).await, 200);
    let origin = ("origin", "https://app.example.test");
    assert_eq!(initialize_status(&url, &[origin]).await, 200);
    let other = format!("other.example.test:{port}");
    assert_eq!(initialize_status(&url, &[("host", &other)]).await, 403);
    let foreign = ("origin", "https://other.example.test");
    assert_eq!(initialize_status(&url, &[foreign]).await, 403);

    let _ = stop.send(());
    serving.await??;
    Ok(())
}

#[test]
fn the_server_refuses_a_non_loopback_address_without_allow_remote() {
    let output = Command::new(server_binary())
        .env_clear()
        .args(["--http", "0.0.0.0:0"])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("refusing to listen on 0.0.0.0:0") && stderr.contains("--allow-remote"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());

    let output = Command::new(server_binary())
        .env_clear()
        .arg("--allow-remote")
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2), "--allow-remote needs --http");
}

#[tokio::test]
async fn the_production_binary_serves_http_and_stops_on_sigterm() -> anyhow::Result<()> {
    // Arrange: public mode, a free loopback port.
    let mut command = Command::new(server_binary());
    command.env_clear().args(["--http", "127.0.0.1:0"]);
    let spawned = Spawned::start(command);
    let expected = ModyoServer::new(Config::from_vars(Vec::<(String, String)>::new())?)?.tools();

    // Act
    let client = http::client(&spawned.url).await;
    let info = client
        .peer_info()
        .and_then(|i| i.server_info.as_ref().map(|s| s.name.clone()));
    let tools = client.list_all_tools().await?;
    client.cancel().await?;
    let status = spawned.terminate();

    // Assert
    assert_eq!(info.as_deref(), Some("modyo-mcp"));
    assert_eq!(
        serde_json::to_value(&tools)?,
        serde_json::to_value(&expected)?,
        "the same tools as in-process"
    );
    assert!(status.success(), "SIGTERM is a clean stop: {status}");
    Ok(())
}

#[tokio::test]
async fn the_offline_binary_serves_http() -> anyhow::Result<()> {
    let mut command = Command::new(lab_binary());
    command
        .args(["serve", "--http", "127.0.0.1:0", "--cassettes"])
        .arg(crate::util::workspace().join("cassettes"))
        .env("RUST_LOG", "error");
    let spawned = Spawned::start(command);
    let client = http::client(&spawned.url).await;
    let tools = client.list_all_tools().await?;
    client.cancel().await?;
    assert!(!tools.is_empty());
    assert!(spawned.terminate().success());
    Ok(())
}

/// A connection that never finishes its request headers is closed after the configured
/// header-read timeout (a tiny one here), instead of being held forever.
#[tokio::test]
async fn a_connection_that_never_sends_its_headers_is_closed() -> anyhow::Result<()> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let mut command = Command::new(server_binary());
    command
        .env_clear()
        .env("MODYO_HTTP_HEADER_TIMEOUT_MS", "200")
        .args(["--http", "127.0.0.1:0"]);
    let spawned = Spawned::start(command);
    let addr = url::Url::parse(&spawned.url)?
        .socket_addrs(|| None)?
        .remove(0);

    let mut stream = tokio::net::TcpStream::connect(addr).await?;
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await?;
    let mut rest = Vec::new();
    // The guard only stops a test that would otherwise hang; the server closes in 200 ms.
    let closed = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        stream.read_to_end(&mut rest),
    )
    .await;

    assert!(
        matches!(closed, Ok(Ok(_)) | Ok(Err(_))),
        "the half-open connection was still open after 30 s"
    );
    assert!(spawned.terminate().success());
    Ok(())
}

/// `initialize` POST: the status, the session id and the body.
async fn initialize(url: &str) -> (u16, Option<String>, String) {
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
        )
        .send()
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (status, session, response.text().await.unwrap_or_default())
}

/// Sessions are capped (configurably): past the cap `initialize` is refused with 503 and a
/// message naming the cap; closing a session makes room again.
#[tokio::test]
async fn sessions_are_capped_and_a_closed_one_makes_room() -> anyhow::Result<()> {
    let mut command = Command::new(server_binary());
    command
        .env_clear()
        .env("MODYO_HTTP_MAX_SESSIONS", "2")
        .args(["--http", "127.0.0.1:0"]);
    let spawned = Spawned::start(command);
    let url = spawned.url.clone();

    let (first, id, _) = initialize(&url).await;
    let (second, _, _) = initialize(&url).await;
    let (third, none, body) = initialize(&url).await;

    assert_eq!((first, second), (200, 200));
    assert_eq!(third, 503, "a third session is refused: {body}");
    assert_eq!(none, None);
    assert!(
        body.contains("MODYO_HTTP_MAX_SESSIONS") && body.contains('2'),
        "the refusal names the cap: {body}"
    );
    let closed = reqwest::Client::new()
        .delete(&url)
        .header("mcp-session-id", id.expect("a session id"))
        .send()
        .await?;
    assert!(closed.status().is_success(), "{}", closed.status());
    let (again, _, body) = initialize(&url).await;
    assert_eq!(again, 200, "room again after a DELETE: {body}");
    assert!(spawned.terminate().success());
    Ok(())
}

/// The socket address of a spawned server's URL.
fn addr_of(url: &str) -> anyhow::Result<std::net::SocketAddr> {
    Ok(url::Url::parse(url)?.socket_addrs(|| None)?.remove(0))
}

/// An `initialize` whose body trickles in (its head promises 200 bytes, one arrives) must not
/// hold the turn every new session waits for: before, three other clients timed out behind one
/// such connection. The body timeout is set long, so only reading bodies first can let the
/// others in; the guard only stops a test that would otherwise hang.
#[tokio::test]
async fn a_trickling_initialize_blocks_no_other_session() -> anyhow::Result<()> {
    use tokio::io::AsyncWriteExt;

    for binary in [server_binary(), lab_binary()] {
        let mut command = Command::new(&binary);
        command
            .env_clear()
            .env("MODYO_HTTP_BODY_TIMEOUT_MS", "600000");
        if binary == lab_binary() {
            command.arg("serve");
        }
        command.args(["--http", "127.0.0.1:0"]);
        let spawned = Spawned::start(command);
        let mut slow = tokio::net::TcpStream::connect(addr_of(&spawned.url)?).await?;
        slow.write_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 200\r\n\r\n{",
        )
        .await?;
        for _ in 0..3 {
            let (status, session, body) =
                tokio::time::timeout(std::time::Duration::from_secs(60), initialize(&spawned.url))
                    .await
                    .map_err(|_| {
                        anyhow::anyhow!("{binary:?}: a session waited behind the slow body")
                    })?;
            assert_eq!(status, 200, "{body}");
            assert!(session.is_some());
        }
        drop(slow);
        assert!(spawned.terminate().success());
    }
    Ok(())
}

/// A body that stops arriving is answered 408 and its connection closed after the body
/// timeout (a tiny one here), instead of holding its memory forever.
#[tokio::test]
async fn an_unfinished_body_is_answered_408_and_closed() -> anyhow::Result<()> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let mut command = Command::new(server_binary());
    command
        .env_clear()
        .env("MODYO_HTTP_BODY_TIMEOUT_MS", "200")
        .args(["--http", "127.0.0.1:0"]);
    let spawned = Spawned::start(command);
    let mut stream = tokio::net::TcpStream::connect(addr_of(&spawned.url)?).await?;
    stream
        .write_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4000000\r\n\r\n{\"a\":",
        )
        .await?;
    let mut answer = Vec::new();
    let read = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        stream.read_to_end(&mut answer),
    )
    .await;
    assert!(read.is_ok(), "the connection was still open after 60 s");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("MODYO_HTTP_BODY_TIMEOUT_MS"), "{answer}");
    assert!(spawned.terminate().success());
    Ok(())
}

/// Past `MODYO_HTTP_MAX_CONNECTIONS` a new connection is not served until one closes.
#[tokio::test]
async fn connections_are_capped() -> anyhow::Result<()> {
    let mut command = Command::new(server_binary());
    command
        .env_clear()
        .env("MODYO_HTTP_MAX_CONNECTIONS", "2")
        .args(["--http", "127.0.0.1:0"]);
    let spawned = Spawned::start(command);
    let addr = addr_of(&spawned.url)?;
    let idle = [
        tokio::net::TcpStream::connect(addr).await?,
        tokio::net::TcpStream::connect(addr).await?,
    ];
    // Without the cap this answers at once; with it, not while the two are open.
    let waited = tokio::time::timeout(
        std::time::Duration::from_millis(500),
        initialize(&spawned.url),
    )
    .await;
    assert!(waited.is_err(), "a third connection was served: {waited:?}");
    drop(idle);
    let (status, _, body) =
        tokio::time::timeout(std::time::Duration::from_secs(60), initialize(&spawned.url)).await?;
    assert_eq!(status, 200, "{body}");
    assert!(spawned.terminate().success());
    Ok(())
}

/// A batch and a call whose params do not fit `tools/call` are answered like on stdio: before,
/// HTTP answered a batch `415` and such a call `-32601`.
#[tokio::test]
async fn batches_and_misfit_params_are_answered_over_http() -> anyhow::Result<()> {
    let mut command = Command::new(server_binary());
    command.env_clear().args(["--http", "127.0.0.1:0"]);
    let spawned = Spawned::start(command);
    let post = |body: &'static str| {
        reqwest::Client::new()
            .post(&spawned.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body)
            .send()
    };
    let batch = post("[]").await?;
    assert_eq!(batch.status().as_u16(), 400);
    let body: Value = batch.json().await?;
    assert_eq!(body["error"]["code"], -32600, "{body}");
    let misfit = post(
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":7,"arguments":"x"}}"#,
    )
    .await?;
    let body: Value = misfit.json().await?;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert_eq!(body["id"], 4);
    assert!(spawned.terminate().success());
    Ok(())
}
