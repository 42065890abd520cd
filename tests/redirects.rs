//! Redirects from the API: one within the configured origin is followed (a few hops at most);
//! one to another origin is refused with an error that says so (the other host's data would be
//! labelled with the configured platform), and "too many redirects" is its own message. A
//! cassette's `location` cannot make the offline server fetch from another host either.

use modyo_lab::check;
use modyo_lab::serve::{Offline, ServeOptions};
use modyo_lab::session::Session;
use modyo_replay::cassette::{Interaction, RecordedResponse};
use modyo_replay::{ReplayOptions, ReplayServer};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::util::cassette;

const SPACES: &str = "/api/admin/content/spaces";

fn redirect(from: &str, to: &str) -> Interaction {
    Interaction::get(from)
        .query("page", "1")
        .query("per_page", "10")
        .respond_with(RecordedResponse::empty(302).header("location", to))
}

fn spaces_page() -> Value {
    json!({"spaces": [{"id": 1, "uid": "elsewhere", "name": "Not your account"}],
           "meta": {"total_entries": 1, "per_page": 10, "current_page": 1, "total_pages": 1}})
}

/// Another origin serving a spaces page, which must never be asked.
async fn other_host() -> ReplayServer {
    let other = ReplayServer::start(ReplayOptions::default()).await;
    other
        .mount(&[cassette(
            "redirects/other",
            vec![
                Interaction::get(SPACES)
                    .query("page", "1")
                    .query("per_page", "10")
                    .respond(200, spaces_page()),
            ],
        )])
        .await
        .expect("mounts");
    other
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_refused() -> anyhow::Result<()> {
    let other = other_host().await;
    let location = format!("{}{SPACES}?page=1&per_page=10", other.uri());
    let session = Session::start(
        &[cassette(
            "redirects/away",
            vec![redirect(SPACES, &location)],
        )],
        &[],
    )
    .await?;

    let result = session.call("content-spaces-list", json!({})).await?;

    let e = check::error(&result).unwrap_or_else(|| panic!("refused: {result:?}"));
    let message = e["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("redirect") && message.contains(&other.uri()),
        "the error names the redirect and where it pointed: {message}"
    );
    assert!(!message.contains("lost the connection"), "{message}");
    assert!(
        other.received().is_empty(),
        "the other host was asked: {:?}",
        other.received()
    );
    session.close().await;
    Ok(())
}

#[tokio::test]
async fn a_redirect_within_the_origin_is_followed() -> anyhow::Result<()> {
    let moved = "/api/admin/content/spaces-moved";
    let session = Session::start(
        &[cassette(
            "redirects/within",
            vec![
                redirect(SPACES, &format!("{moved}?page=1&per_page=10")),
                Interaction::get(moved)
                    .query("page", "1")
                    .query("per_page", "10")
                    .respond(200, spaces_page()),
            ],
        )],
        &[],
    )
    .await?;

    let result = session.call("content-spaces-list", json!({})).await?;

    assert_eq!(check::error(&result), None, "{result:?}");
    session.close().await;
    Ok(())
}

#[tokio::test]
async fn too_many_redirects_say_so() -> anyhow::Result<()> {
    // /r0 -> /r1 -> ... -> /r20: a chain longer than any limit, all within the origin.
    let hops: Vec<Interaction> = (0..20)
        .map(|i| {
            let from = if i == 0 {
                SPACES.to_owned()
            } else {
                format!("/r{i}")
            };
            redirect(&from, &format!("/r{}?page=1&per_page=10", i + 1))
        })
        .collect();
    let session = Session::start(&[cassette("redirects/loop", hops)], &[]).await?;

    let result = session.call("content-spaces-list", json!({})).await?;

    let e = check::error(&result).unwrap_or_else(|| panic!("refused: {result:?}"));
    let message = e["message"].as_str().unwrap_or_default();
    assert!(message.contains("too many redirects"), "{message}");
    assert!(!message.contains("lost the connection"), "{message}");
    session.close().await;
    Ok(())
}

/// The offline server replays a cassette whose `location` points at another host: the server
/// refuses to follow it, so nothing is fetched from there.
#[tokio::test]
async fn a_cassette_location_never_makes_the_offline_server_fetch_elsewhere() -> anyhow::Result<()>
{
    let other = other_host().await;
    let dir = tempfile::tempdir()?;
    let location = format!("{}{SPACES}?page=1&per_page=10", other.uri());
    cassette("content/spaces-list", vec![redirect(SPACES, &location)]).save(dir.path())?;
    let offline = Offline::start(&ServeOptions::new(dir.path())).await?;
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let serving = tokio::spawn(offline.serve(server_io));
    let client = ().serve(client_io).await?;

    let result = client
        .call_tool(CallToolRequestParams::new("content-spaces-list"))
        .await?;
    client.cancel().await?;
    serving.await??;

    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert!(
        other.received().is_empty(),
        "the offline server fetched from another host"
    );
    Ok(())
}
