//! Every scenario of every cassette, replayed through the real server in-process: the outcome
//! the cassette expects, the contract every result keeps, no replay miss, and the canary token
//! nowhere in the answer.

use modyo_lab::check::{self, Kind};
use modyo_lab::session::{CANARY_TOKEN, Session};
use modyo_replay::cassette::Outcome;

#[tokio::test]
async fn every_cassette_scenario_keeps_its_expectation_and_the_contract() -> anyhow::Result<()> {
    let library = crate::util::library();
    let mut failures = Vec::new();
    let mut ran = 0;
    for (cassette, scenario) in library.scenarios() {
        let label = format!("{}#{}", cassette.name(), scenario.name);
        let env: Vec<(String, String)> = scenario
            .env
            .iter()
            .map(|(k, v)| (k.to_owned(), v.clone()))
            .collect();
        let session = Session::start(&library.mount_set(cassette.name())?, &env).await?;
        let tools = session.tools().await?;
        let Some(tool) = tools.iter().find(|t| t.name == scenario.tool) else {
            failures.push(format!("{label}: tool {} is not listed", scenario.tool));
            continue;
        };
        ran += 1;
        let result = match session
            .call(&scenario.tool, scenario.arguments.clone())
            .await
        {
            Ok(result) => result,
            Err(e) => {
                failures.push(format!("{label}: JSON-RPC error {e}"));
                continue;
            }
        };
        let mut problems = check::problems(tool, &result);
        let expected = match scenario.expect.outcome {
            Outcome::Success => Kind::Success,
            Outcome::Error => Kind::Error,
            Outcome::Control => Kind::Control,
        };
        if check::kind(&result) != expected {
            problems.push(format!(
                "expected {expected:?}, got {:?}: {}",
                check::kind(&result),
                check::text(&result).unwrap_or("")
            ));
        }
        if let (Kind::Error, Some(code)) = (expected, &scenario.expect.code) {
            let got = check::error(&result).and_then(|e| e["code"].as_str().map(str::to_owned));
            if got.as_deref() != Some(code.as_str()) {
                problems.push(format!("expected error code {code}, got {got:?}"));
            }
        }
        for miss in session.replay().misses() {
            problems.push(format!("replay miss: {miss}"));
        }
        if serde_json::to_string(&result)?.contains(CANARY_TOKEN) {
            problems.push("the token appears in the response".into());
        }
        failures.extend(problems.into_iter().map(|p| format!("{label}: {p}")));
        session.close().await;
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} scenarios failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    Ok(())
}
