//! C22, the result forms, through the real server: a scenario of every tool and expected
//! outcome answered in the `structured` and `text` forms, and in `both` with
//! `MODYO_OUTPUT_SCHEMA=off`, keeps exactly what its form says of the same call answered in
//! `both` (`check::form_problems`), with the outcome the cassette expects; `tools/list` shows `outputSchema` only where the form and
//! `MODYO_OUTPUT_SCHEMA` say, and the docs resources keep it; the server still validates its
//! own answer (C8) where no schema is listed; legacy modules answer the old way in every form.

use futures::StreamExt;
use modyo_lab::check::{self, Kind};
use modyo_lab::session::{Library, Session};
use modyo_mcp::contract::ResultForm;
use modyo_replay::cassette::{Interaction, Outcome};
use modyo_replay::{Cassette, Scenario};
use rmcp::model::{CallToolResult, ReadResourceRequestParams, Tool};
use serde_json::{Value, json};

use crate::util::cassette;

/// A way the server can be configured to answer, besides the default.
#[derive(Debug, Clone, Copy)]
struct Variant {
    form: ResultForm,
    /// `MODYO_OUTPUT_SCHEMA=off`.
    schemas_off: bool,
}

const VARIANTS: [Variant; 3] = [
    Variant {
        form: ResultForm::Structured,
        schemas_off: false,
    },
    Variant {
        form: ResultForm::Text,
        schemas_off: false,
    },
    Variant {
        form: ResultForm::Both,
        schemas_off: true,
    },
];

impl Variant {
    fn env(self) -> Vec<(String, String)> {
        let mut env = vec![("MODYO_RESULTS".to_owned(), self.form.as_str().to_owned())];
        if self.schemas_off {
            env.push(("MODYO_OUTPUT_SCHEMA".to_owned(), "off".to_owned()));
        }
        env
    }

    fn lists_schemas(self) -> bool {
        !self.schemas_off && self.form != ResultForm::Text
    }
}

/// The scenario's own environment plus `extra`.
fn env_with(scenario: &Scenario, extra: &[(String, String)]) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = scenario
        .env
        .iter()
        .map(|(k, v)| (k.to_owned(), v.clone()))
        .collect();
    env.extend(extra.iter().cloned());
    env
}

/// The scenario called on a fresh server with `extra` in its environment: the tool as listed,
/// and the answer.
async fn answer(
    library: &Library,
    cassette: &Cassette,
    scenario: &Scenario,
    extra: &[(String, String)],
) -> anyhow::Result<(Option<Tool>, CallToolResult)> {
    let session = Session::start(
        &library.mount_set(cassette.name())?,
        &env_with(scenario, extra),
    )
    .await?;
    let tool = session
        .tools()
        .await?
        .into_iter()
        .find(|t| t.name == scenario.tool);
    let result = session
        .call(&scenario.tool, scenario.arguments.clone())
        .await;
    session.close().await;
    Ok((tool, result?))
}

/// What is wrong with one scenario in every variant, against its answer in `both`.
async fn scenario_problems(
    library: &Library,
    cassette: &Cassette,
    scenario: &Scenario,
) -> anyhow::Result<Vec<String>> {
    let label = format!("{}#{}", cassette.name(), scenario.name);
    let (whole_tool, whole) = answer(library, cassette, scenario, &[]).await?;
    let Some(whole_tool) = whole_tool else {
        return Ok(vec![format!("{label}: {} is not listed", scenario.tool)]);
    };
    let expected = match scenario.expect.outcome {
        Outcome::Success => Kind::Success,
        Outcome::Error => Kind::Error,
        Outcome::Control => Kind::Control,
    };
    let mut problems = Vec::new();
    for variant in VARIANTS {
        let (tool, shaped) = answer(library, cassette, scenario, &variant.env()).await?;
        let at = format!("{label} ({variant:?})");
        let Some(tool) = tool else {
            problems.push(format!("{at}: not listed"));
            continue;
        };
        let mut listed_whole = whole_tool.clone();
        if !variant.lists_schemas() {
            listed_whole.output_schema = None;
        }
        if tool != listed_whole {
            problems.push(format!(
                "{at}: listed as {:?}, expected the both form's tool with outputSchema {}",
                tool.output_schema.is_some(),
                variant.lists_schemas()
            ));
        }
        if check::kind(&shaped) != expected {
            problems.push(format!(
                "{at}: expected {expected:?}, got {:?}",
                check::kind(&shaped)
            ));
        }
        for problem in check::form_problems(variant.form, &whole, &shaped) {
            problems.push(format!("{at}: {problem}"));
        }
    }
    Ok(problems)
}

/// The first scenario of every tool and expected outcome (the strict peers walk every
/// scenario in each form, `peers.rs`): its `both` answer, whose contract `scenarios.rs`
/// checks, against the same call in each other variant, four scenarios at a time (each call on
/// its own server and replay).
#[tokio::test]
async fn every_tool_and_outcome_keeps_what_each_form_says_of_the_whole_answer() -> anyhow::Result<()>
{
    let library = crate::util::library();
    let mut seen = std::collections::BTreeSet::new();
    let scenarios: Vec<(&Cassette, &Scenario)> = library
        .scenarios()
        .into_iter()
        .filter(|(_, s)| seen.insert((s.tool.clone(), format!("{:?}", s.expect.outcome))))
        .collect();
    let checked: Vec<anyhow::Result<Vec<String>>> = futures::stream::iter(&scenarios)
        .map(|(cassette, scenario)| scenario_problems(library, cassette, scenario))
        .buffered(4)
        .collect()
        .await;
    let mut failures = Vec::new();
    for problems in checked {
        failures.extend(problems?);
    }
    assert!(
        failures.is_empty(),
        "{} problem(s) over {} scenarios:\n{}",
        failures.len(),
        scenarios.len(),
        failures.join("\n")
    );
    Ok(())
}

/// A space list whose first row's `id` is not an integer: a value that breaks the published
/// schema.
fn drifted_spaces() -> Cassette {
    cassette(
        "forms/drifted",
        vec![
            Interaction::get("/api/admin/content/spaces")
                .query("page", "1")
                .query("per_page", "10")
                .respond(
                    200,
                    json!({"spaces": [{"id": true, "uid": "blog", "name": "Blog"}],
                           "meta": {"total_entries": 1, "per_page": 10, "current_page": 1, "total_pages": 1}}),
                ),
        ],
    )
}

/// C8 in every form: the server validates its answer against the tool's schema whether or not
/// it lists it, so drift that breaks it is an `invalid_upstream_response` everywhere.
#[tokio::test]
async fn the_server_validates_its_answer_in_every_form() -> anyhow::Result<()> {
    for variant in VARIANTS.iter().copied().chain([Variant {
        form: ResultForm::Both,
        schemas_off: false,
    }]) {
        let session = Session::start(&[drifted_spaces()], &variant.env()).await?;
        let result = session.call("content-spaces-list", json!({})).await?;
        let error = check::error(&result).unwrap_or_default();
        assert_eq!(
            (check::kind(&result), error["code"].as_str()),
            (Kind::Error, Some("invalid_upstream_response")),
            "{variant:?}: {result:?}"
        );
        assert!(
            error["message"].as_str().unwrap_or("").contains("/0/id"),
            "{variant:?}: names the value: {error}"
        );
        session.close().await;
    }
    Ok(())
}

/// The docs resource keeps the `outputSchema` when `tools/list` does not show it: it
/// describes the JSON every form carries.
#[tokio::test]
async fn the_docs_keep_the_output_schema_the_listing_leaves_out() -> anyhow::Result<()> {
    for variant in VARIANTS {
        let session = Session::start(&[], &variant.env()).await?;
        let listed = session.tools().await?;
        assert!(!listed.is_empty());
        assert!(
            listed
                .iter()
                .all(|t| t.output_schema.is_some() == variant.lists_schemas()),
            "{variant:?}"
        );
        let doc = session
            .client()
            .read_resource(ReadResourceRequestParams::new(
                "modyo://docs/tools/content-spaces-list",
            ))
            .await?;
        let text = format!("{doc:?}");
        assert!(text.contains("## outputSchema"), "{variant:?}: {text}");
        session.close().await;
    }
    Ok(())
}

/// Legacy modules (C21) answer the old way whatever the form: no `structuredContent`, no
/// `outputSchema`, the pretty text, identical in every form.
#[tokio::test]
async fn legacy_modules_answer_the_old_way_in_every_form() -> anyhow::Result<()> {
    let library = crate::util::library();
    let legacy = ("MODYO_MCP_LEGACY_MODULES".to_owned(), "content".to_owned());
    let mut answers: Vec<Value> = Vec::new();
    for form in ResultForm::ALL {
        let env = vec![
            legacy.clone(),
            ("MODYO_RESULTS".to_owned(), form.as_str().to_owned()),
        ];
        let session = Session::start(&library.mount_set("content/sucursales/base")?, &env).await?;
        let tool = session
            .tools()
            .await?
            .into_iter()
            .find(|t| t.name == "content-spaces-list")
            .expect("listed");
        assert!(tool.output_schema.is_none(), "{form}");
        let result = session.call("content-spaces-list", json!({})).await?;
        assert!(result.structured_content.is_none(), "{form}");
        let text = check::text(&result).unwrap_or_default();
        assert!(text.starts_with("{\n  \"spaces\""), "{form}: {text}");
        answers.push(serde_json::to_value(&result)?);
        session.close().await;
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");
    Ok(())
}
