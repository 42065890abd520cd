//! The core and customers modules: what their cassette scenarios cannot express.
//!
//! - the class of every tool and the per-module counts, with and without read-only (C19);
//! - the coverage every tool owes (issue 6): a success per action, an upstream error, reads that
//!   answer alike in read-only mode, a read-only refusal per gated write, an ambiguous lookup
//!   wherever a tool resolves a name, and a partial failure for every bulk tool;
//! - `customers-originations-validate`: faults as data, `state.searched` = steps + rules;
//! - the read-only gate over every mutating action of every gated tool: `control`, and not one
//!   request reaches the API;
//! - fan-out bulk: results in input order whatever order the requests finish in, never more
//!   than four in flight, and the collapse of one call-level error repeated on every item;
//! - legacy mode (C21) over every scenario of both modules;
//! - served together (`modyo-lab serve`), no cassette of theirs shadows another;
//! - the modules' cassettes are in the writer's canonical form.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use modyo_lab::check::{self, Kind};
use modyo_lab::serve::{Offline, ServeOptions};
use modyo_lab::session::{Library, Session};
use modyo_mcp::{Config, ModyoServer};
use modyo_replay::Cassette;
use modyo_replay::cassette::{self, Outcome};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Value, json};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The catalogue's classes for the two modules, in catalogue order.
const CORE: [(&str, &str); 9] = [
    ("core-users-manage", "gated"),
    ("core-users-upsert", "mutation"),
    ("core-users-bulk", "mutation"),
    ("core-groups-manage", "gated"),
    ("core-groups-upsert", "mutation"),
    ("core-members-manage", "gated"),
    ("core-roles-create", "mutation"),
    ("core-roles-manage", "gated"),
    ("core-settings-manage", "gated"),
];

const CUSTOMERS: [(&str, &str); 17] = [
    ("customers-realms-manage", "gated"),
    ("customers-users-list", "read"),
    ("customers-users-upsert", "mutation"),
    ("customers-users-bulk", "mutation"),
    ("customers-segments-manage", "gated"),
    ("customers-forms-manage", "gated"),
    ("customers-forms-copy", "mutation"),
    ("customers-submissions-list", "read"),
    ("customers-submissions-bulk", "mutation"),
    ("customers-datasets-manage", "gated"),
    ("customers-datasets-copy", "mutation"),
    ("customers-originations-manage", "gated"),
    ("customers-originations-validate", "read"),
    ("customers-originations-steps-edit", "mutation"),
    ("customers-originations-steps-clone", "mutation"),
    ("customers-originations-rules-edit", "mutation"),
    ("customers-originations-copy", "mutation"),
];

/// The mutating actions of every gated tool, with the arguments its input schema requires.
fn gated_writes() -> Vec<(&'static str, Vec<&'static str>, Value)> {
    let realm = json!({"realm": "personas"});
    vec![
        (
            "core-users-manage",
            vec!["create", "update", "activate", "deactivate"],
            json!({}),
        ),
        (
            "core-groups-manage",
            vec!["create", "update", "delete", "add_users", "remove_users"],
            json!({}),
        ),
        (
            "core-members-manage",
            vec!["add", "update", "remove"],
            json!({}),
        ),
        (
            "core-roles-manage",
            vec!["update", "delete", "restore"],
            json!({}),
        ),
        ("core-settings-manage", vec!["update"], json!({})),
        (
            "customers-realms-manage",
            vec!["create", "update", "delete", "appearance", "logo"],
            json!({}),
        ),
        (
            "customers-segments-manage",
            vec!["create", "update", "delete"],
            realm.clone(),
        ),
        (
            "customers-forms-manage",
            vec!["create", "update", "delete", "enable", "disable"],
            realm.clone(),
        ),
        (
            "customers-datasets-manage",
            vec!["create", "update", "delete"],
            realm.clone(),
        ),
        (
            "customers-originations-manage",
            vec!["create", "update", "delete"],
            realm,
        ),
    ]
}

fn server(modules: &str, read_only: bool) -> anyhow::Result<ModyoServer> {
    let config = Config::from_vars([
        ("MODYO_URL", "http://127.0.0.1:9"),
        ("MODYO_TOKEN", "t"),
        ("MODYO_MCP_MODULES", modules),
        ("MODYO_READ_ONLY", if read_only { "true" } else { "false" }),
    ])?;
    Ok(ModyoServer::new(config)?)
}

#[test]
fn every_tool_keeps_its_catalogue_class_and_the_module_counts_hold() -> anyhow::Result<()> {
    for (module, table, counts) in [
        ("core", &CORE[..], (0, 5, 4)),
        ("customers", &CUSTOMERS[..], (3, 5, 9)),
    ] {
        // Arrange
        let full = server(module, false)?;
        let gated = server(module, true)?;

        // Act
        let listed: Vec<&str> = full.tool_names();
        let read_only: Vec<&str> = gated.tool_names();
        let hints: BTreeMap<String, bool> = full
            .tools()
            .iter()
            .map(|t| {
                let hint = t.annotations.as_ref().and_then(|a| a.read_only_hint);
                (t.name.to_string(), hint == Some(true))
            })
            .collect();

        // Assert: the names in catalogue order, and each class as behaviour (C19): read tools
        // carry readOnlyHint, gated ones stay in read-only mode, mutation tools leave it.
        let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
        assert_eq!(listed, names, "{module}: tools/list");
        for (name, class) in table {
            let seen = match (hints[*name], read_only.contains(name)) {
                (true, true) => "read",
                (false, true) => "gated",
                (false, false) => "mutation",
                (true, false) => "read tool hidden in read-only mode",
            };
            assert_eq!(seen, *class, "{name}");
            assert_eq!(name.ends_with("-manage"), *class == "gated", "{name}");
        }
        let count = |c: &str| table.iter().filter(|(_, k)| *k == c).count();
        assert_eq!(
            (count("read"), count("gated"), count("mutation")),
            counts,
            "{module}"
        );
        assert_eq!(read_only.len(), counts.0 + counts.1, "{module} read-only");
    }
    Ok(())
}

#[tokio::test]
async fn read_only_refuses_every_mutating_action_without_a_single_request() -> anyhow::Result<()> {
    // Arrange: the lookups the tools would make are mounted, so a leak would be answered.
    let library = crate::util::library();
    let mut cassettes = library.mount_set("core/base")?;
    cassettes.extend(library.mount_set("customers/base")?);
    let env = [("MODYO_READ_ONLY".to_owned(), "true".to_owned())];
    let session = Session::start(&cassettes, &env).await?;
    let tools = session.tools().await?;

    for (tool, actions, base) in gated_writes() {
        let listed = tools
            .iter()
            .find(|t| t.name == tool)
            .unwrap_or_else(|| panic!("{tool} is listed in read-only mode"));
        for action in actions {
            // Act
            let mut args = base.clone();
            args["action"] = json!(action);
            if listed
                .input_schema
                .get("properties")
                .and_then(|p| p.get("confirmDelete"))
                .is_some()
            {
                args["confirmDelete"] = json!(true);
            }
            let result = session.call(tool, args).await?;

            // Assert
            assert_eq!(check::kind(&result), Kind::Control, "{tool} {action}");
            let control = &result.structured_content.as_ref().expect("structured")["control"];
            assert_eq!(control["outcome"], "refused", "{tool} {action}");
            assert!(
                check::problems(listed, &result).is_empty(),
                "{tool} {action}"
            );
        }
    }
    assert_eq!(
        session.replay().received(),
        Vec::new(),
        "the gate answers before any request, reads included"
    );
    session.close().await;
    Ok(())
}

/// A responder that records when each request arrived and answers after a per-item delay.
#[derive(Clone)]
struct Timed {
    arrivals: Arc<Mutex<Vec<(u64, Instant, Duration)>>>,
}

impl Respond for Timed {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let id: u64 = request
            .url
            .path()
            .rsplit('/')
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        // Later items answer sooner, so they finish out of input order.
        let delay = Duration::from_millis(600 - 40 * id);
        self.arrivals
            .lock()
            .expect("not poisoned")
            .push((id, Instant::now(), delay));
        let template = if id == 3 {
            ResponseTemplate::new(404).set_body_json(json!({}))
        } else {
            ResponseTemplate::new(200).set_body_json(json!({"id": id, "active": true}))
        };
        template.set_delay(delay)
    }
}

/// Calls one tool of a server pointed at `url`, over an in-process duplex.
async fn call_at(url: &str, tool: &str, args: Value) -> anyhow::Result<CallToolResult> {
    let config = Config::from_vars([("MODYO_URL", url), ("MODYO_TOKEN", "t")])?;
    let server = ModyoServer::new(config)?;
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let serving = tokio::spawn(async move { server.serve(server_io).await });
    let client = ().serve(client_io).await?;
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.arguments = args.as_object().cloned();
    let result = client.call_tool(params).await?;
    client.cancel().await?;
    let _ = serving.await;
    Ok(result)
}

#[tokio::test]
async fn bulk_keeps_input_order_and_at_most_four_requests_in_flight() -> anyhow::Result<()> {
    // Arrange
    let mock = MockServer::start().await;
    let timed = Timed {
        arrivals: Arc::default(),
    };
    Mock::given(wiremock::matchers::method("PUT"))
        .respond_with(timed.clone())
        .mount(&mock)
        .await;
    let users: Vec<String> = (1..=10).map(|i| i.to_string()).collect();

    // Act
    let result = call_at(
        &mock.uri(),
        "core-users-bulk",
        json!({"action": "activate", "users": users}),
    )
    .await?;

    // Assert: input order in data, whatever the completion order.
    let data = &result.structured_content.as_ref().expect("structured")["data"];
    assert_eq!(data["succeeded"], json!([1, 2, 4, 5, 6, 7, 8, 9, 10]));
    assert_eq!(data["failed"][0]["index"], 2);
    assert_eq!(data["failed"][0]["error"]["code"], "not_found");
    let state = &result.structured_content.as_ref().expect("structured")["state"];
    assert_eq!(state, &json!({"status": "partial", "affected": 9}));
    // A request is in flight from its arrival until its delay has passed; the client cannot
    // send a fifth before one of the first four has answered, so the peak is exact.
    let arrivals = timed.arrivals.lock().expect("not poisoned").clone();
    assert_eq!(arrivals.len(), 10, "one request per item");
    let peak = arrivals
        .iter()
        .map(|(_, start, _)| {
            arrivals
                .iter()
                .filter(|(_, s, d)| s <= start && *start < *s + *d)
                .count()
        })
        .max()
        .unwrap_or(0);
    assert_eq!(peak, 4, "bounded concurrency of 4: {arrivals:?}");
    Ok(())
}

#[tokio::test]
async fn different_call_level_errors_stay_per_item_and_a_dead_host_is_one_error()
-> anyhow::Result<()> {
    // Arrange
    let mock = MockServer::start().await;
    Mock::given(wiremock::matchers::path("/api/admin/admin_users/1"))
        .respond_with(ResponseTemplate::new(401).set_body_json(json!({})))
        .mount(&mock)
        .await;
    Mock::given(wiremock::matchers::path("/api/admin/admin_users/2"))
        .respond_with(ResponseTemplate::new(403))
        .mount(&mock)
        .await;
    let closed = crate::util::closed_port();

    // Act
    let mixed = call_at(
        &mock.uri(),
        "core-users-bulk",
        json!({"action": "deactivate", "users": ["1", "2"]}),
    )
    .await?;
    let dead = call_at(
        &closed.uri,
        "core-users-bulk",
        json!({"action": "deactivate", "users": ["1", "2", "3"]}),
    )
    .await?;

    // Assert: 401 and 403 are not "the same error": each item reports its own.
    let s = mixed.structured_content.as_ref().expect("structured");
    assert_eq!(s["state"], json!({"status": "failed", "affected": 0}));
    let codes: Vec<&str> = s["data"]["failed"]
        .as_array()
        .expect("failed")
        .iter()
        .filter_map(|f| f["error"]["code"].as_str())
        .collect();
    assert_eq!(codes, ["unauthorized", "forbidden"]);
    // Connection refused on every item: one C16 error for the call.
    assert_eq!(check::kind(&dead), Kind::Error);
    let error = check::error(&dead).expect("a C16 error");
    assert_eq!(error["code"], "upstream_unavailable");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("all 3 items failed the same way")),
        "{error}"
    );
    Ok(())
}

#[tokio::test]
async fn legacy_mode_answers_every_scenario_the_old_way() -> anyhow::Result<()> {
    let library = crate::util::library();
    let env = [(
        "MODYO_MCP_LEGACY_MODULES".to_owned(),
        "core,customers".to_owned(),
    )];
    let mut failures = Vec::new();
    let mut ran = 0;
    for (cassette, scenario) in library.scenarios() {
        let name = cassette.name();
        if !(name.starts_with("core/") || name.starts_with("customers/")) {
            continue;
        }
        let mut env = env.to_vec();
        env.extend(scenario.env.iter().map(|(k, v)| (k.to_owned(), v.clone())));
        let session = Session::start(&library.mount_set(name)?, &env).await?;
        let label = format!("{name}#{}", scenario.name);
        let result = session
            .call(&scenario.tool, scenario.arguments.clone())
            .await;
        session.close().await;
        ran += 1;
        let Ok(result) = result else {
            failures.push(format!("{label}: JSON-RPC error"));
            continue;
        };
        let text = check::text(&result).unwrap_or("");
        let problem = match scenario.expect.outcome {
            _ if result.structured_content.is_some() => Some("structuredContent in legacy mode"),
            Outcome::Error if !(result.is_error == Some(true) && text.starts_with("Error: ")) => {
                Some("not an `Error:` text")
            }
            Outcome::Success | Outcome::Control if result.is_error == Some(true) => {
                Some("an error where the migrated tool succeeds")
            }
            Outcome::Success | Outcome::Control
                if !text.contains('\n') || serde_json::from_str::<Value>(text).is_err() =>
            {
                Some("not pretty-printed JSON")
            }
            Outcome::Control if !text.contains("\"message\"") => {
                Some("a control without its message")
            }
            _ => None,
        };
        if let Some(problem) = problem {
            failures.push(format!("{label}: {problem}: {text}"));
        }
    }
    assert!(ran > 100, "both modules' scenarios ran ({ran})");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    Ok(())
}

#[test]
fn the_modules_cassettes_are_in_the_writers_canonical_form() -> anyhow::Result<()> {
    let root = cassette::default_dir();
    let mut checked = 0;
    for c in Cassette::load_all(&root)? {
        if !(c.name().starts_with("core/") || c.name().starts_with("customers/")) {
            continue;
        }
        let on_disk = std::fs::read_to_string(cassette::path_of(&root, c.name()))?;
        assert_eq!(
            on_disk,
            c.to_json()?,
            "{} is not in the writer's form",
            c.name()
        );
        assert_eq!(c.provenance.synthetic_paths, Some(true), "{}", c.name());
        checked += 1;
    }
    assert!(checked >= 30, "{checked} cassettes");
    Ok(())
}

#[tokio::test]
async fn no_served_cassette_of_the_modules_shadows_another() -> anyhow::Result<()> {
    // Arrange: what `modyo-lab serve` mounts (everything but `fault` cassettes).
    let offline = Offline::start(&ServeOptions::new(cassette::default_dir())).await?;

    // Act
    let shadowed: Vec<String> = offline
        .replay()
        .unused()
        .into_iter()
        .filter(|u| u.shadowed_by.is_some())
        .filter(|u| {
            let ours = |name: &str| name.starts_with("core/") || name.starts_with("customers/");
            ours(&u.cassette) || u.shadowed_by.as_deref().is_some_and(ours)
        })
        .map(|u| u.to_string())
        .collect();

    // Assert: a request recorded twice answers the same everywhere; a cassette that must
    // answer differently (an outage, a revoked token) is tagged `fault`.
    assert!(shadowed.is_empty(), "{}", shadowed.join("\n"));
    Ok(())
}

/// The tools of both modules with their class, in catalogue order.
fn all_tools() -> impl Iterator<Item = (&'static str, &'static str)> {
    CORE.iter().chain(CUSTOMERS.iter()).copied()
}

/// The actions of the multi-action mutation tools (the tool descriptions).
const MUTATION_ACTIONS: [(&str, &[&str]); 5] = [
    ("core-users-bulk", &["activate", "deactivate"]),
    (
        "customers-users-bulk",
        &["create", "activate", "deactivate", "delete"],
    ),
    (
        "customers-submissions-bulk",
        &["set_status", "assign", "extend_due"],
    ),
    (
        "customers-originations-steps-edit",
        &["add", "update", "remove", "reorder"],
    ),
    (
        "customers-originations-rules-edit",
        &["add", "update", "remove"],
    ),
];

/// The fan-out bulk tools (`server/CONTRACT.md`, "Bulk and async").
const BULK: [&str; 3] = [
    "core-users-bulk",
    "customers-users-bulk",
    "customers-submissions-bulk",
];

/// The tools that resolve nothing (no name, email, key or realm argument): every other tool of
/// the two modules resolves at least one (`server/CONTRACT.md`, "Name resolution": every customers
/// tool resolves its realm).
const NOTHING_TO_RESOLVE: [&str; 2] = ["core-roles-create", "core-settings-manage"];

/// Gated read actions: `core-settings-manage` has one account to `get`, no list.
fn read_actions(tool: &str) -> &'static [&'static str] {
    if tool == "core-settings-manage" {
        &["get"]
    } else {
        &["list", "get"]
    }
}

/// The action a scenario exercises: a `-manage` call without one is a `get`; `-` for a tool
/// without actions.
fn action_of(scenario: &modyo_replay::Scenario) -> String {
    scenario.arguments["action"]
        .as_str()
        .unwrap_or(if scenario.tool.ends_with("-manage") {
            "get"
        } else {
            "-"
        })
        .to_owned()
}

fn ours(cassette: &Cassette) -> bool {
    let name = cassette.name();
    name.starts_with("core/") || name.starts_with("customers/")
}

fn read_only(scenario: &modyo_replay::Scenario) -> bool {
    scenario.env.get("MODYO_READ_ONLY").map(String::as_str) == Some("true")
}

#[test]
fn every_tool_has_a_success_per_action_and_a_read_only_refusal_per_gated_write()
-> anyhow::Result<()> {
    // Arrange
    let library = crate::util::library();
    let mut success = std::collections::BTreeSet::new();
    let mut refused = std::collections::BTreeSet::new();
    let mut unsupported = std::collections::BTreeSet::new();
    for (cassette, scenario) in library.scenarios() {
        if !ours(cassette) {
            continue;
        }
        let key = (scenario.tool.clone(), action_of(scenario));
        match (read_only(scenario), &scenario.expect.outcome) {
            (false, Outcome::Success) => {
                success.insert(key);
            }
            (true, Outcome::Control) => {
                refused.insert(key);
            }
            (false, Outcome::Error)
                if scenario.expect.code.as_deref() == Some("invalid_parameters") =>
            {
                unsupported.insert(key);
            }
            _ => {}
        }
    }
    let writes = gated_writes();

    // Assert
    let mut missing = Vec::new();
    for (tool, class) in all_tools() {
        let gated_writes: &[&str] = writes
            .iter()
            .find(|(t, _, _)| *t == tool)
            .map(|(_, a, _)| a.as_slice())
            .unwrap_or_default();
        let actions: Vec<&str> = match class {
            "gated" => read_actions(tool)
                .iter()
                .chain(gated_writes)
                .copied()
                .collect(),
            _ => MUTATION_ACTIONS
                .iter()
                .find(|(t, _)| *t == tool)
                .map_or(vec!["-"], |(_, a)| a.to_vec()),
        };
        for action in actions {
            let key = (tool.to_owned(), action.to_owned());
            if refused_by_the_api(tool, action) {
                if !unsupported.contains(&key) {
                    missing.push(format!(
                        "{tool} {action}: no scenario showing the refusal (invalid_parameters)"
                    ));
                }
            } else if !success.contains(&key) {
                missing.push(format!("{tool} {action}: no success scenario"));
            }
        }
        for action in gated_writes {
            if !refused.contains(&(tool.to_owned(), (*action).to_owned())) {
                missing.push(format!(
                    "{tool} {action}: no read-only scenario refusing it"
                ));
            }
        }
    }
    assert_eq!(
        gated_writes().len(),
        10,
        "every gated tool has its writes listed"
    );
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    Ok(())
}

/// The actions a tool keeps but answers with an error, because Modyo's published API has no
/// endpoint for them (the tool's description says so).
const REFUSED_BY_THE_API: &[(&str, &[&str])] = &[
    ("customers-realms-manage", &["update", "appearance", "logo"]),
    ("customers-forms-manage", &["create"]),
    ("customers-forms-copy", &["-"]),
];

/// Tools that answer every call with that refusal: no request, so no upstream error and no
/// name to resolve.
const REFUSED_WHOLE: [&str; 1] = ["customers-forms-copy"];

fn refused_by_the_api(tool: &str, action: &str) -> bool {
    REFUSED_BY_THE_API
        .iter()
        .any(|(t, actions)| *t == tool && actions.contains(&action))
}

/// Replays one scenario of `cassette` with `env` and answers the result.
async fn replay(
    library: &Library,
    cassette: &Cassette,
    scenario: &modyo_replay::Scenario,
    env: &[(String, String)],
) -> anyhow::Result<CallToolResult> {
    let session = Session::start(&library.mount_set(cassette.name())?, env).await?;
    let result = session
        .call(&scenario.tool, scenario.arguments.clone())
        .await;
    let misses = session.replay().misses();
    session.close().await;
    assert!(
        misses.is_empty(),
        "{}#{}: {misses:?}",
        cassette.name(),
        scenario.name
    );
    Ok(result?)
}

#[tokio::test]
async fn every_tool_meets_an_upstream_error_and_an_ambiguous_name_reads_pass_read_only_bulk_goes_partial()
-> anyhow::Result<()> {
    // Arrange
    let library = crate::util::library();
    let read_only_env = [("MODYO_READ_ONLY".to_owned(), "true".to_owned())];
    let mut upstream = std::collections::BTreeSet::new();
    let mut ambiguous = std::collections::BTreeSet::new();
    let mut read_in_read_only = std::collections::BTreeSet::new();
    let mut partial = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    let class = |tool: &str| all_tools().find(|(t, _)| *t == tool).map(|(_, c)| c);

    // One replay per thing to show (the first scenario that shows it); `tests/scenarios.rs`
    // replays every scenario against its `expect` anyway.
    for (cassette, scenario) in library.scenarios() {
        if !ours(cassette) || read_only(scenario) {
            continue;
        }
        let label = format!("{}#{}", cassette.name(), scenario.name);
        let tool = scenario.tool.as_str();
        let action = action_of(scenario);
        let read = class(tool) == Some("read")
            || (class(tool) == Some("gated") && read_actions(tool).contains(&action.as_str()));
        match scenario.expect.outcome {
            Outcome::Error if scenario.expect.code.as_deref() == Some("ambiguous") => {
                ambiguous.insert(tool.to_owned());
            }
            // Act: an error the API caused carries its HTTP status (or is a read-back mismatch
            // after a 2xx); a local refusal or a resolver miss carries none.
            Outcome::Error if !upstream.contains(tool) => {
                let result = replay(library, cassette, scenario, &[]).await?;
                let error = check::error(&result).unwrap_or_default();
                if upstream_status(&error) >= 400 || error["code"] == "persisted_mismatch" {
                    upstream.insert(tool.to_owned());
                }
            }
            // Act: a read (a read tool, or list/get of a gated one) answers the same in
            // read-only mode.
            Outcome::Success
                if read && !read_in_read_only.contains(&(tool.to_owned(), action.clone())) =>
            {
                let normal = replay(library, cassette, scenario, &[]).await?;
                let gated = replay(library, cassette, scenario, &read_only_env).await?;
                if gated.structured_content.is_none()
                    || normal.structured_content != gated.structured_content
                {
                    failures.push(format!(
                        "{label}: read-only mode answers the read differently"
                    ));
                } else {
                    read_in_read_only.insert((tool.to_owned(), action));
                }
            }
            // Act: a bulk call where some items failed and others did not; an item whose
            // name matched two entities fails alone with `ambiguous`.
            Outcome::Success if BULK.contains(&tool) => {
                let result = replay(library, cassette, scenario, &[]).await?;
                let s = result.structured_content.unwrap_or_default();
                let count = |key: &str| s["data"][key].as_array().map_or(0, Vec::len);
                if s["state"]["status"] == "partial" {
                    if count("succeeded") == 0 || count("failed") == 0 {
                        failures.push(format!("{label}: partial without both sides: {s}"));
                    } else if s["state"]["affected"] != json!(count("succeeded")) {
                        failures.push(format!("{label}: affected is not the successes: {s}"));
                    } else {
                        partial.insert(tool.to_owned());
                    }
                }
                let failed = s["data"]["failed"].as_array().cloned().unwrap_or_default();
                if failed.iter().any(|f| f["error"]["code"] == "ambiguous") {
                    ambiguous.insert(tool.to_owned());
                }
            }
            _ => {}
        }
    }

    // Assert
    for (tool, class) in all_tools() {
        if REFUSED_WHOLE.contains(&tool) {
            continue;
        }
        if !upstream.contains(tool) {
            failures.push(format!("{tool}: no scenario meets an upstream error"));
        }
        if !NOTHING_TO_RESOLVE.contains(&tool) && !ambiguous.contains(tool) {
            failures.push(format!("{tool}: no ambiguous lookup scenario"));
        }
        let reads: &[&str] = match class {
            "read" => &["-"],
            "gated" => read_actions(tool),
            _ => &[],
        };
        for read in reads {
            if !read_in_read_only.contains(&(tool.to_owned(), (*read).to_owned())) {
                failures.push(format!(
                    "{tool} {read}: not shown to answer alike in read-only mode"
                ));
            }
        }
    }
    for tool in BULK {
        if !partial.contains(tool) {
            failures.push(format!("{tool}: no partial failure scenario"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    Ok(())
}

#[tokio::test]
async fn validate_reports_structural_faults_as_data_and_counts_what_it_searched()
-> anyhow::Result<()> {
    // Arrange: what the cassettes hold for the two originations validated.
    let library = crate::util::library();
    let cassette = library
        .get("customers/originations-validate")
        .expect("the validate cassette");
    let base = library.get("customers/base").expect("the customers base");
    let checked = |id: u64| {
        let path = format!("/api/admin/customers/personas/originations/{id}");
        let found = base
            .interactions
            .iter()
            .find(|i| i.request.path == path)
            .unwrap_or_else(|| panic!("{path} in customers/base"));
        let modyo_replay::cassette::ResponseBody::Json(body) = &found.response.body else {
            panic!("{path}: a JSON body");
        };
        let len = |key: &str| body[key].as_array().map_or(0, Vec::len);
        len("steps") + len("rules")
    };
    let scenario = |name: &str| {
        cassette
            .scenarios
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("scenario {name}"))
    };

    for (name, origination, sound) in [("sound", 501, true), ("faults", 502, false)] {
        // Act
        let result = replay(library, cassette, scenario(name), &[]).await?;

        // Assert: a success either way; the faults are the data, each a {code, message} with
        // the ids involved, and state says how many steps and rules were checked.
        assert_eq!(check::kind(&result), Kind::Success, "{name}");
        let s = result.structured_content.expect("structured");
        let problems = s["data"].as_array().expect("data is the list of problems");
        assert_eq!(problems.is_empty(), sound, "{name}: {s}");
        for p in problems {
            let p = p.as_object().expect("a problem is an object");
            assert!(p["code"].as_str().is_some_and(|c| !c.is_empty()), "{p:?}");
            assert!(
                p["message"].as_str().is_some_and(|m| !m.is_empty()),
                "{p:?}"
            );
            for (key, value) in p {
                assert!(
                    ["code", "message"].contains(&key.as_str())
                        || (key.ends_with("_id") && value.is_u64()),
                    "{name}: {key} = {value}"
                );
            }
        }
        assert_eq!(
            s["state"]["searched"],
            json!(checked(origination)),
            "{name}: {s}"
        );
        assert_eq!(s["state"]["returned"], json!(problems.len()), "{name}");
        assert_eq!(s["state"]["complete"], json!(true), "{name}");
        assert_eq!(s["resource"]["id"], json!(origination), "{name}");
    }
    Ok(())
}

/// The upstream HTTP status of a C16 error: its `status`, or the status its message names
/// (`answered 404`, `was rejected (409)`), which the payload does not repeat; 0 for none.
pub(crate) fn upstream_status(error: &serde_json::Value) -> u64 {
    if let Some(status) = error["status"].as_u64() {
        return status;
    }
    let message = error["message"].as_str().unwrap_or_default();
    let after = |marker: &str| -> Option<u64> {
        let (_, rest) = message.split_once(marker)?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        (digits.len() == 3).then(|| digits.parse().ok()).flatten()
    };
    after("answered ")
        .or_else(|| after("rejected ("))
        .or_else(|| after("limited ("))
        .unwrap_or(0)
}
