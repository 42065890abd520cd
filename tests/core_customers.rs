//! The core and customers modules: what their cassette scenarios cannot express.
//!
//! - the class of every tool and the per-module counts, with and without read-only (C19);
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

use modyo_lab::Cassette;
use modyo_lab::cassette::{self, Outcome};
use modyo_lab::check::{self, Kind};
use modyo_lab::serve::{Offline, ServeOptions};
use modyo_lab::session::{Library, Session};
use modyo_mcp::{Config, ModyoServer};
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
    let library = Library::workspace()?;
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
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.local_addr()?.port()
    };

    // Act
    let mixed = call_at(
        &mock.uri(),
        "core-users-bulk",
        json!({"action": "deactivate", "users": ["1", "2"]}),
    )
    .await?;
    let dead = call_at(
        &format!("http://127.0.0.1:{closed}"),
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
    let library = Library::workspace()?;
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
