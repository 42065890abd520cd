//! Whole-collection walks against upstreams that do not page the way they are asked (C6):
//! a `per_page` capped below the 100 asked, `meta` that contradicts the rows, an upstream that
//! ignores `page`, and a list without `meta`. `channels-templates-search` walks the site-wide
//! template list (the bodies), then reads each template that matches for its name and type;
//! whatever the upstream does, `complete` must agree with every piece of evidence it gave, and
//! a walk must end when a page repeats. (`-find` looks names up in the per-type lists, which
//! are not paged, so it walks nothing.)
//!
//! The upstream is built here, in code: the template pages of site 12 shadow the ones of the
//! shared channels world, which answers everything else (the site lookup).

use modyo_lab::session::{Library, Session};
use modyo_replay::{Cassette, Interaction, Provenance, ReplayOptions};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

const TEMPLATES: &str = "/api/admin/sites/12/templates";

/// The most templates a test's upstream holds.
const TEMPLATES_AT_MOST: u64 = 250;

/// Template `i` of the site, with its body (so a search reads no template one by one).
fn template(i: u64) -> Value {
    json!({
        "id": 10_000 + i,
        "uuid": format!("00000000-0000-4000-8000-{i:012}"),
        "name": format!("t{i}"),
        "type": "snippet",
        "body": format!("<p>template {i}</p>"),
        "path": format!("snippets/t{i}"),
        "status": "published",
        "published": true,
        "version": 1,
        "site_id": 12,
        "created_at": "2026-01-12T10:20:00.000-03:00",
        "updated_at": "2026-01-12T10:20:00.000-03:00",
    })
}

/// `GET /templates?page=N&per_page=100` answering `rows` and `meta` (none when `Null`).
fn page(n: u32, rows: &[Value], meta: Value) -> Interaction {
    let mut body = json!({"templates": rows});
    if !meta.is_null() {
        body["meta"] = meta;
    }
    Interaction::get(TEMPLATES)
        .query("page", n.to_string())
        .query("per_page", "100")
        .respond(200, body)
}

/// A session whose site 12 has the given template pages, and every template of them readable
/// one by one (a search reads the ones that match); the shared world answers the rest.
/// Repeats are allowed: two calls on one session read the same pages.
async fn session(pages: Vec<Interaction>) -> anyhow::Result<Session> {
    let library = Library::workspace()?;
    let singles = (1..=TEMPLATES_AT_MOST)
        .map(|i| Interaction::get(format!("{TEMPLATES}/{}", 10_000 + i)).respond(200, template(i)));
    let upstream = Cassette::new(
        "test/walk",
        Provenance::synthetic("2026-11-29", "an upstream that pages its own way"),
    )
    .interactions(pages.into_iter().chain(singles));
    let mut cassettes = vec![upstream];
    cassettes.extend(library.mount_set("channels/banco-andino/base")?);
    let options = ReplayOptions::default().allow_repeats(true);
    Ok(Session::start_with(&cassettes, &[], options).await?)
}

fn state(result: &CallToolResult) -> Value {
    let envelope = result
        .structured_content
        .as_ref()
        .unwrap_or_else(|| panic!("a successful call: {result:?}"));
    envelope["state"].clone()
}

/// How many template list pages the call asked for.
fn pages_read(session: &Session) -> usize {
    session
        .replay()
        .received()
        .iter()
        .filter(|r| r.path == TEMPLATES)
        .count()
}

/// An upstream that caps `per_page` at 20 while `meta` says 45 templates exist: the walk reads
/// the three pages and finds what is on page 2 (it used to stop after 20 rows and say
/// `complete: true`).
#[tokio::test]
async fn a_capped_per_page_is_walked_to_the_total_and_a_search_sees_page_two() -> anyhow::Result<()>
{
    let all: Vec<Value> = (1..=45).map(template).collect();
    let meta =
        |n: u64| json!({"total_entries": 45, "per_page": 20, "current_page": n, "total_pages": 3});
    let pages = || {
        vec![
            page(1, &all[..20], meta(1)),
            page(2, &all[20..40], meta(2)),
            page(3, &all[40..], meta(3)),
        ]
    };

    let search = session(pages()).await?;
    let searched = search
        .call(
            "channels-templates-search",
            json!({"site": "12", "query": "template"}),
        )
        .await?;
    assert_eq!(
        state(&searched),
        json!({"returned": 45, "total": 45, "searched": 45, "complete": true}),
        "every template is searched"
    );
    search.close().await;

    let page_two = session(pages()).await?;
    let found = page_two
        .call(
            "channels-templates-search",
            json!({"site": "12", "query": "template 30<"}),
        )
        .await?;
    let envelope = found.structured_content.clone().expect("success");
    assert_eq!(
        envelope["data"][0]["id"], 10_030,
        "the template on page 2 is found: {envelope}"
    );
    assert_eq!(envelope["state"]["searched"], 45);
    page_two.close().await;
    Ok(())
}

/// 100 rows on the only page `meta` admits (`total_pages: 1`) while `total_entries` says 250:
/// the evidence disagrees, so the answer may not be `complete: true`.
#[tokio::test]
async fn meta_that_contradicts_the_rows_is_never_complete() -> anyhow::Result<()> {
    let rows: Vec<Value> = (1..=100).map(template).collect();
    let meta = |n: u64| json!({"total_entries": 250, "per_page": 100, "current_page": n, "total_pages": 1});
    let session = session(vec![page(1, &rows, meta(1)), page(2, &[], meta(2))]).await?;

    let searched = session
        .call(
            "channels-templates-search",
            json!({"site": "12", "query": "template"}),
        )
        .await?;

    let searched = state(&searched);
    assert_ne!(
        searched["complete"], true,
        "250 exist, 100 were read: {searched}"
    );
    assert_eq!(searched["searched"], 100);
    session.close().await;
    Ok(())
}

/// An upstream that ignores `page` answers the same 100 rows for every page: the walk stops at
/// the first repeat (it used to read 50 pages, 5,000 repeated rows) and does not claim
/// `complete`.
#[tokio::test]
async fn an_upstream_that_ignores_page_stops_the_walk_at_the_first_repeat() -> anyhow::Result<()> {
    let rows: Vec<Value> = (1..=100).map(template).collect();
    let pages = (1..=50).map(|n| page(n, &rows, Value::Null)).collect();
    let session = session(pages).await?;

    let result = session
        .call(
            "channels-templates-search",
            json!({"site": "12", "query": "template"}),
        )
        .await?;

    let state = state(&result);
    assert_eq!(
        pages_read(&session),
        2,
        "page 2 repeats page 1: the walk ends there"
    );
    assert_eq!(state["searched"], 100, "no row is searched twice: {state}");
    assert_eq!(state["returned"], 100);
    assert_eq!(state["complete"], false, "{state}");
    session.close().await;
    Ok(())
}

/// A list without `meta` says nothing but its rows. A page shorter than the 100 asked ends the
/// walk, but without a page that proves the API honours `per_page` (a full one) it may be an
/// upstream cap, so `complete` is left unknown; an empty page, or a full page then a short one,
/// is proof.
#[tokio::test]
async fn a_list_without_meta_is_complete_only_with_proof_that_per_page_was_honoured()
-> anyhow::Result<()> {
    let query = json!({"site": "12", "query": "template"});

    let short: Vec<Value> = (1..=7).map(template).collect();
    let session_short = session(vec![page(1, &short, Value::Null)]).await?;
    let unknown = state(
        &session_short
            .call("channels-templates-search", query.clone())
            .await?,
    );
    assert_eq!(unknown["searched"], 7);
    assert_eq!(
        unknown.get("complete"),
        None,
        "7 rows of 100 asked prove nothing: {unknown}"
    );
    session_short.close().await;

    let all: Vec<Value> = (1..=130).map(template).collect();
    let proven = session(vec![
        page(1, &all[..100], Value::Null),
        page(2, &all[100..], Value::Null),
    ])
    .await?;
    let complete = state(
        &proven
            .call("channels-templates-search", query.clone())
            .await?,
    );
    assert_eq!(complete["searched"], 130);
    assert_eq!(
        complete["complete"], true,
        "a full page proves per_page: {complete}"
    );
    proven.close().await;

    let empty = session(vec![page(1, &[], Value::Null)]).await?;
    let none = state(&empty.call("channels-templates-search", query).await?);
    assert_eq!(
        none,
        json!({"returned": 0, "total": 0, "searched": 0, "complete": true}),
        "an empty first page is an empty site"
    );
    empty.close().await;
    Ok(())
}

/// Rows are told apart whole, not by `id` alone: a list may hold two kinds of rows that share
/// an id (an assignee user and a user-in-group), and neither may be taken for a repeat.
#[tokio::test]
async fn rows_that_share_an_id_are_both_read() -> anyhow::Result<()> {
    let first = template(1);
    let mut twin = template(2);
    twin["id"] = first["id"].clone();
    let meta = json!({"total_entries": 2, "per_page": 100, "current_page": 1, "total_pages": 1});
    let session = session(vec![page(1, &[first, twin], meta)]).await?;

    let result = session
        .call(
            "channels-templates-search",
            json!({"site": "12", "query": "template"}),
        )
        .await?;

    assert_eq!(
        state(&result),
        json!({"returned": 2, "total": 2, "searched": 2, "complete": true})
    );
    assert_eq!(pages_read(&session), 1);
    session.close().await;
    Ok(())
}

/// A walk holds at most `MODYO_MAX_BODY_BYTES` of pages: here 40 kB against pages of about
/// 30 kB, so it stops after the page that crosses it and says `complete: false`, where before
/// it read every page into memory (50 pages of 16 MiB peaked at 1.8 GB).
#[tokio::test]
async fn a_walk_stops_at_its_memory_bound() -> anyhow::Result<()> {
    let all: Vec<Value> = (1..=250).map(template).collect();
    let meta = |n: u64| json!({"total_entries": 250, "per_page": 100, "current_page": n, "total_pages": 3});
    let pages = vec![
        page(1, &all[..100], meta(1)),
        page(2, &all[100..200], meta(2)),
        page(3, &all[200..], meta(3)),
    ];
    let library = Library::workspace()?;
    let upstream = Cassette::new(
        "test/walk-bound",
        Provenance::synthetic("2026-12-05", "pages larger than the walk may hold"),
    )
    .interactions(pages);
    let mut cassettes = vec![upstream];
    cassettes.extend(library.mount_set("channels/banco-andino/base")?);
    let session = Session::start_with(
        &cassettes,
        &[("MODYO_MAX_BODY_BYTES".into(), "40000".into())],
        ReplayOptions::default(),
    )
    .await?;
    let searched = session
        .call(
            "channels-templates-search",
            json!({"site": "12", "query": "nothing matches this"}),
        )
        .await?;
    assert_eq!(pages_read(&session), 2, "the third page is never read");
    let state = state(&searched);
    assert_eq!(state["complete"], false, "{state}");
    assert_eq!(state["searched"], 200, "{state}");
    session.close().await;
    Ok(())
}
