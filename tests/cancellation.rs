//! Cancellation and concurrency, over the in-process stdio-like duplex and over streamable HTTP:
//! `notifications/cancelled` stops the upstream work of a call in progress (its later Modyo
//! requests are never sent), and 64 concurrent calls on one session each get the answer they
//! get alone.

use std::time::{Duration, Instant};

use modyo_lab::serve::{Offline, ServeOptions};
use modyo_lab::session::{CANARY_TOKEN, Session};
use modyo_replay::{Interaction, RecordedResponse, ReplayOptions, ReplayServer};
use rmcp::RoleClient;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::{PeerRequestOptions, RunningService};
use serde_json::{Value, json};

use crate::util::{cassette, http};

/// How long the first upstream request of the cancelled call takes to answer.
const DELAY_MS: u64 = 1500;

/// `content-entries-get` by space uid and entry slug: three sequential upstream requests (the
/// spaces walk, answered after [`DELAY_MS`]; the slug lookup; the entry detail).
fn slow_lookup() -> Vec<Interaction> {
    let meta = json!({"total_entries": 1, "per_page": 100, "current_page": 1, "total_pages": 1});
    vec![
        Interaction::get("/api/admin/content/spaces")
            .query("page", "1")
            .query("per_page", "100")
            .respond_with(
                RecordedResponse::json(
                    200,
                    json!({"spaces": [{"id": 7, "uid": "demo", "name": "Demo"}], "meta": meta}),
                )
                .delay_ms(DELAY_MS),
            ),
        Interaction::get("/api/admin/content/spaces/7/entries")
            .query("query", "hello")
            .query("page", "1")
            .query("per_page", "100")
            .respond(
                200,
                json!({"entries": [{"id": 70, "name": "Hello"}], "meta": meta}),
            ),
        Interaction::get("/api/admin/content/spaces/7/entries/70").respond(
            200,
            json!({"id": 70, "uuid": "0b0e1c2a-7d7e-4f57-9d3f-6c1f2b3a4d5e", "name": "Hello",
                   "slug": "hello", "space_id": 7, "json": {"fields": {"title": "Hello"}}}),
        ),
    ]
}

const TOOL: &str = "content-entries-get";

fn lookup_args() -> serde_json::Map<String, Value> {
    json!({"space": "demo", "entry": "hello"})
        .as_object()
        .cloned()
        .unwrap_or_default()
}

/// Polls (bounded) until the replay server has received `n` requests.
async fn until_received(replay: &ReplayServer, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while replay.received().len() < n {
        assert!(
            Instant::now() < deadline,
            "the server never sent request {n} upstream"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Starts the slow call, cancels it once its first upstream request is in flight, and lets
/// the delayed response come back: the number of upstream requests the call made in all.
async fn upstream_requests_after_cancel(
    client: &RunningService<RoleClient, ()>,
    replay: &ReplayServer,
) -> anyhow::Result<usize> {
    let mut params = CallToolRequestParams::new(TOOL);
    params.arguments = Some(lookup_args());
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await?;
    until_received(replay, 1).await;
    let in_flight = Instant::now();
    handle.cancel(Some("test: cancelled".into())).await?;
    // Had the call gone on, the delayed answer would have arrived after DELAY_MS and the next
    // two requests would have followed at once: wait that long, and as long again.
    tokio::time::sleep(Duration::from_millis(2 * DELAY_MS).saturating_sub(in_flight.elapsed()))
        .await;
    Ok(replay.received().len())
}

/// The same call, not cancelled: its upstream request count and its outcome.
async fn upstream_requests_uncancelled(
    client: &RunningService<RoleClient, ()>,
    replay: &ReplayServer,
) -> anyhow::Result<usize> {
    let mut params = CallToolRequestParams::new(TOOL);
    params.arguments = Some(lookup_args());
    let result = client.call_tool(params).await?;
    assert_ne!(
        result.is_error,
        Some(true),
        "the uncancelled call succeeds: {result:?}"
    );
    Ok(replay.received().len())
}

/// A fresh replay of the slow lookup, and a server configured for it.
async fn slow_replay() -> anyhow::Result<(ReplayServer, modyo_mcp::Config)> {
    let replay = ReplayServer::start(ReplayOptions::default()).await;
    replay
        .mount(&[cassette("test/slow-lookup", slow_lookup())])
        .await?;
    let config = modyo_lab::serve::offline_config(&replay.uri(), &[], CANARY_TOKEN)?;
    Ok((replay, config))
}

#[tokio::test]
async fn a_cancelled_call_sends_no_more_upstream_requests_over_stdio() -> anyhow::Result<()> {
    // Control: uncancelled, the call makes three upstream requests.
    let (replay, config) = slow_replay().await?;
    let session = Session::connect(replay, config).await?;
    assert_eq!(
        upstream_requests_uncancelled(session.client(), session.replay()).await?,
        3
    );
    session.close().await;

    // Cancelled while the first is in flight: that one is all the server ever sent.
    let (replay, config) = slow_replay().await?;
    let session = Session::connect(replay, config).await?;
    let sent = upstream_requests_after_cancel(session.client(), session.replay()).await?;
    assert_eq!(sent, 1, "{:?}", session.replay().received());
    assert!(session.replay().misses().is_empty());
    // The session is still usable after a cancellation.
    assert!(!session.tools().await?.is_empty());
    session.close().await;
    Ok(())
}

#[tokio::test]
async fn a_cancelled_call_sends_no_more_upstream_requests_over_http() -> anyhow::Result<()> {
    let (replay, config) = slow_replay().await?;
    let served = http::serve(modyo_mcp::ModyoServer::new(config)?).await;
    let client = http::client(&served.url).await;
    assert_eq!(upstream_requests_uncancelled(&client, &replay).await?, 3);
    client.cancel().await?;
    served.stop().await;

    let (replay, config) = slow_replay().await?;
    let served = http::serve(modyo_mcp::ModyoServer::new(config)?).await;
    let client = http::client(&served.url).await;
    let sent = upstream_requests_after_cancel(&client, &replay).await?;
    assert_eq!(sent, 1, "{:?}", replay.received());
    assert!(!client.list_all_tools().await?.is_empty());
    client.cancel().await?;
    served.stop().await;
    Ok(())
}

/// One call's answer as comparable JSON: the result, or the JSON-RPC error's text.
async fn answer(client: &rmcp::Peer<RoleClient>, tool: &str, arguments: &Value) -> Value {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.arguments = arguments.as_object().cloned();
    match client.call_tool(params).await {
        Ok(result) => serde_json::to_value(result).expect("results serialize"),
        Err(e) => json!({"jsonrpc_error": e.to_string()}),
    }
}

/// The read-only scenarios of the default environment whose answer is stable (the same twice
/// in a row), with that answer.
async fn stable_reads(
    client: &rmcp::Peer<RoleClient>,
) -> anyhow::Result<Vec<(String, String, Value, Value)>> {
    let library = crate::util::library();
    let read_only: Vec<String> = client
        .list_all_tools()
        .await?
        .into_iter()
        .filter(|t| t.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true))
        .map(|t| t.name.to_string())
        .collect();
    let mut stable = Vec::new();
    for (cassette, scenario) in library.scenarios() {
        if cassette.has_tag("fault")
            || !scenario.env.is_empty()
            || !read_only.contains(&scenario.tool)
        {
            continue;
        }
        let first = answer(client, &scenario.tool, &scenario.arguments).await;
        let second = answer(client, &scenario.tool, &scenario.arguments).await;
        if first == second {
            stable.push((
                format!("{}#{}", cassette.name(), scenario.name),
                scenario.tool.clone(),
                scenario.arguments.clone(),
                first,
            ));
        }
    }
    Ok(stable)
}

/// 64 concurrent calls on `client`'s one session, cycling through the stable scenarios: each
/// answer must equal that scenario's sequential answer.
async fn sixty_four_concurrent_calls(client: &rmcp::Peer<RoleClient>) -> anyhow::Result<()> {
    let stable = stable_reads(client).await?;
    assert!(
        !stable.is_empty(),
        "there are stable read scenarios to call"
    );
    let calls = (0..64).map(|i| {
        let (label, tool, arguments, expected) = &stable[i % stable.len()];
        async move {
            let got = answer(client, tool, arguments).await;
            (label, got == *expected)
        }
    });
    let outcomes = futures::future::join_all(calls).await;
    let wrong: Vec<_> = outcomes
        .iter()
        .filter(|(_, same)| !same)
        .map(|(label, _)| label.as_str())
        .collect();
    assert_eq!(outcomes.len(), 64);
    assert!(
        wrong.is_empty(),
        "{} of 64 concurrent answers differ from the sequential ones: {wrong:?}",
        wrong.len()
    );
    Ok(())
}

#[tokio::test]
async fn sixty_four_concurrent_calls_on_one_stdio_session_are_all_answered_right()
-> anyhow::Result<()> {
    let options = ServeOptions::new(crate::util::library().root());
    let offline = Offline::start(&options).await?;
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let serving = tokio::spawn(offline.serve(server_io));
    let client = ().serve(client_io).await?;
    sixty_four_concurrent_calls(client.peer()).await?;
    client.cancel().await?;
    serving.await??;
    Ok(())
}

#[tokio::test]
async fn sixty_four_concurrent_calls_on_one_http_session_are_all_answered_right()
-> anyhow::Result<()> {
    let options = ServeOptions::new(crate::util::library().root());
    let served = http::serve_offline(Offline::start(&options).await?).await;
    let client = http::client(&served.url).await;
    sixty_four_concurrent_calls(client.peer()).await?;
    client.cancel().await?;
    served.stop().await;
    Ok(())
}
