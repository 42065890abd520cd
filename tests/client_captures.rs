//! The committed client captures (`reports/clients/*.jsonl`, written by `make clients`): they
//! parse, the committed `clients.md` and `clients.json` are byte for byte a rebuild from them
//! and the fingerprints, they still match what the server as built answers, and the module
//! reports mark the measured profiles; every committed fingerprint is what its committed
//! marker capture shows, and says of the clients what was observed of them. No client runs
//! here: CI needs neither Node nor Python clients.

use std::path::Path;

use modyo_lab::clients::capture::{Forwarded, Outcome};
use modyo_lab::clients::fingerprint::{Definitions, Part, ResultForm, Timing};
use modyo_lab::clients::{self, Client, Fingerprint, Side};

fn reports() -> std::path::PathBuf {
    modyo_lab::report::default_dir()
}

fn captures() -> Vec<(String, clients::Capture)> {
    match clients::load_captures(&reports()) {
        Ok(captures) => captures,
        Err(e) => panic!("{e}"),
    }
}

fn capture(id: &str) -> clients::Capture {
    captures()
        .into_iter()
        .map(|(_, c)| c)
        .find(|c| c.header.client == id)
        .unwrap_or_else(|| panic!("no committed capture of {id}: run make clients"))
}

#[test]
fn the_committed_report_is_a_rebuild_of_the_committed_captures() {
    let dir = reports();
    let files = clients::regenerate(&dir).expect("the captures price");
    for (name, text) in &files {
        let committed = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        assert!(
            committed == *text,
            "reports/{name} is not a rebuild of the captures: run `cargo run -p modyo-lab -- clients --report-only` (or make clients)"
        );
        if name.ends_with(".svg") {
            let problems = modyo_lab::report::chart_problems(text);
            assert!(problems.is_empty(), "{name}: {problems:?}");
        }
    }
    for (file, capture) in captures() {
        let text = std::fs::read_to_string(dir.join(&file)).expect("readable");
        assert_eq!(
            capture.to_jsonl(),
            text,
            "{file} is not in the writer's layout"
        );
    }
}

#[test]
fn the_committed_captures_still_match_the_server_as_built() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let problems = runtime
        .block_on(clients::stale(
            &reports(),
            &modyo_replay::cassette::default_dir(),
        ))
        .expect("the reference runs");
    assert!(
        problems.is_empty(),
        "the server or the cassettes changed what a client session gets; run make clients:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_module_has_both_sides_in_every_capture_and_nothing_of_the_clients_own() {
    for (file, capture) in captures() {
        let mut modules: Vec<&str> = capture.sessions.iter().map(|s| s.module.as_str()).collect();
        modules.dedup();
        assert_eq!(
            modules,
            ["channels", "content", "core", "customers", "widgets"],
            "{file}"
        );
        let text = std::fs::read_to_string(reports().join(&file)).expect("readable");
        // Session and device ids, the endpoint's port, the session's temporary home, the client's
        // own tools: none of it is ours.
        for foreign in [
            "session_id",
            "device_id",
            "127.0.0.1:",
            "/.tmp",
            "ToolSearch",
        ] {
            assert!(!text.contains(foreign), "{file} holds {foreign}");
        }
        assert!(
            !text.contains(&*Path::new(env!("CARGO_MANIFEST_DIR")).to_string_lossy()),
            "{file} holds an absolute path"
        );
    }
}

/// Claude Code sends the model our results' text as is: for a migrated result that string is
/// also the compact JSON of its structuredContent, so which of the two it reads is the
/// fingerprint's to say (`the_fingerprints_say_what_the_clients_were_seen_doing`).
#[test]
fn claude_code_defers_definitions_drops_output_schemas_and_sends_our_text_as_is() {
    let capture = capture("claude-code");
    for s in &capture.sessions {
        let label = format!("{} {}", s.module, s.side.as_str());
        assert_eq!(s.names.len(), s.listed, "{label}: every tool named");
        assert_eq!(s.requests[0].definitions, 0, "{label}: none up front");
        assert!(
            s.definitions
                .iter()
                .all(|d| !d.carries.iter().any(|c| c == "outputSchema")),
            "{label}: no outputSchema"
        );
        assert!(
            s.results.iter().all(|r| r.forwarded == Forwarded::Text),
            "{label}: text only"
        );
    }
}

#[test]
fn every_session_calls_errors_and_refusals_too_and_prices_them_apart() {
    let report: clients::ClientsReport = serde_json::from_str(
        &std::fs::read_to_string(reports().join(clients::REPORT_JSON)).expect("clients.json"),
    )
    .expect("clients.json parses");
    for (file, capture) in captures() {
        for s in &capture.sessions {
            let label = format!("{file} {} {}", s.module, s.side.as_str());
            let of = |outcome: Outcome| s.calls.iter().filter(|c| c.outcome == outcome).count();
            assert!(of(Outcome::Success) > 0, "{label}: no success");
            assert!(of(Outcome::Error) > 0, "{label}: no error call");
            // widgets has no refusal scenario; every other module has some.
            if s.module != "widgets" {
                assert!(of(Outcome::Control) > 0, "{label}: no refusal");
            }
        }
        let client = report
            .clients
            .iter()
            .find(|c| c.client == capture.header.client)
            .expect("every capture is in clients.json");
        for m in &client.modules {
            let calls: usize = m.outcomes.iter().map(|o| o.calls).sum();
            assert_eq!(
                calls, m.calls,
                "{file} {}: the outcome rows cover every call",
                m.module
            );
        }
    }
}

#[test]
fn the_genai_adapter_sends_every_output_schema_after_the_migration() {
    let capture = capture("genai");
    for s in capture.sessions.iter().filter(|s| s.side == Side::After) {
        assert_eq!(s.definitions.len(), s.listed, "{}", s.module);
        assert!(
            s.definitions
                .iter()
                .all(|d| d.carries.iter().any(|c| c == "outputSchema")),
            "{}",
            s.module
        );
        assert!(
            s.results.iter().all(|r| r.forwarded == Forwarded::Result),
            "{}",
            s.module
        );
    }
}

#[test]
fn the_module_reports_say_which_profiles_are_measured() {
    let claude = capture("claude-code");
    // A measured profile names its catalogue view (`captured`) and its basis, like the assumed
    // ones name theirs.
    let mark = format!(
        "| captured | measured ({} {}, {}; fingerprint `clients/claude-code.fingerprint.json`) |",
        claude.header.name, claude.header.version, claude.header.date
    );
    for module in ["channels", "content", "core", "customers", "widgets"] {
        let text = std::fs::read_to_string(reports().join(format!("{module}.md")))
            .expect("the module report");
        assert!(
            text.lines()
                .any(|l| l.starts_with("| `claude-code` |") && l.contains(&mark)),
            "{module}.md lacks the measured Claude Code row naming its fingerprint: run make measure"
        );
        // What it forwards per call is the fingerprint's word, not the capture's.
        assert!(
            text.lines().any(|l| l.starts_with("| `claude-code` |")
                && l.contains("per call: structuredContent as compact JSON")),
            "{module}.md: Claude Code's row does not say it forwards structuredContent"
        );
        assert!(
            text.contains("| `text` | forwards content[].text only | context | assumed |"),
            "{module}.md"
        );
    }
    let summary = std::fs::read_to_string(reports().join("README.md")).expect("the summary");
    assert!(
        summary.contains("`claude-code` (captured)"),
        "the summary's break-even table lacks the measured Claude Code column: run make measure"
    );
}

fn fingerprint(id: &str) -> Fingerprint {
    clients::load_fingerprints(&reports())
        .expect("the fingerprints parse")
        .into_iter()
        .find(|f| f.subject.client == id)
        .unwrap_or_else(|| panic!("no committed fingerprint of {id}: run make clients"))
}

#[test]
fn every_fingerprint_is_what_its_marker_capture_shows() {
    let problems = clients::stale_fingerprints(&reports()).expect("the marker captures parse");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let markers = clients::load_marker_captures(&reports()).expect("they parse");
    assert_eq!(
        markers.len(),
        Client::ALL.len(),
        "every client has a marker capture: run make clients"
    );
    for (client, capture) in markers {
        let file = client.marker_file();
        let text = std::fs::read_to_string(reports().join(&file)).expect("readable");
        assert_eq!(
            capture.to_jsonl(),
            text,
            "{file} is not in the writer's layout"
        );
        // Nothing of the run's machine: its temporary home, the endpoint's port, this checkout.
        for foreign in ["/tmp/", "127.0.0.1:", "/.tmp"] {
            assert!(!text.contains(foreign), "{file} holds {foreign}");
        }
        assert!(
            !text.contains(&*Path::new(env!("CARGO_MANIFEST_DIR")).to_string_lossy()),
            "{file} holds an absolute path"
        );
        assert!(
            text.len() < 64 * 1024,
            "{file}: the marker-bearing parts only ({} bytes)",
            text.len()
        );
    }
}

#[test]
fn the_fingerprints_say_what_the_clients_were_seen_doing() {
    // Claude Code: names and instructions from the first request, definitions once loaded,
    // structuredContent instead of the text, the error flagged (is_error).
    let claude = fingerprint("claude-code");
    assert_eq!(
        claude.definitions,
        Definitions::OnDemand { names_first: true }
    );
    assert_eq!(claude.result, ResultForm::StructuredElseText);
    assert!(claude.error_flag);
    assert_eq!(
        claude.seen(Part::Instructions).map(|s| s.timing),
        Some(Timing::Every)
    );
    assert!(!claude.reached(Part::OutputSchema) && !claude.reached(Part::Text));
    // It marks prompt-cache breakpoints; the Agent SDK, its engine, too; no other client does.
    for id in Client::ALL.map(|c| c.id()) {
        let marks = fingerprint(id).cache_marks.any();
        assert_eq!(
            marks,
            matches!(id, "claude-code" | "claude-agent-sdk"),
            "{id}: cache marks {marks}"
        );
    }
    // The genai SDK: every definition with its output schema, the whole result.
    let genai = fingerprint("genai");
    assert_eq!(genai.definitions, Definitions::EveryRequest);
    assert!(genai.reached(Part::OutputSchema) && !genai.reached(Part::Instructions));
    assert_eq!(genai.result, ResultForm::WholeResult);
    // Codex with tool search: nothing of the server's tools before the search.
    let search = fingerprint("codex-search");
    assert_eq!(
        search.definitions,
        Definitions::OnDemand { names_first: false }
    );
    // No client forwards a tool's title, annotations or _meta, nor the server's title.
    for id in Client::ALL.map(|c| c.id()) {
        let f = fingerprint(id);
        for part in [
            Part::Title,
            Part::Annotations,
            Part::ToolMeta,
            Part::ServerTitle,
        ] {
            assert!(!f.reached(part), "{id} forwards {}", part.label());
        }
    }
}

#[test]
fn clients_md_says_what_claude_code_forwards_from_its_fingerprint() {
    let md = std::fs::read_to_string(reports().join(clients::REPORT_MD)).expect("clients.md");
    let claude = capture("claude-code");
    let heading = format!("## {} {}\n", claude.header.name, claude.header.version);
    let at = md.find(&heading).expect("Claude Code's section");
    let section = &md[at..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    assert!(
        section.contains("from the fingerprint ([clients/claude-code.fingerprint.json](clients/claude-code.fingerprint.json)): the compact JSON of structuredContent, without the text"),
        "{section}"
    );
    assert!(
        section.contains("Prompt-cache breakpoints, from the fingerprint: marked (`cache_control`"),
        "{section}"
    );
    // The capture alone once made it say so: our text is that same compact JSON.
    assert!(!section.contains("content[].text only for"), "{section}");
}

#[test]
fn every_priced_client_has_a_capture() {
    let captured: Vec<String> = captures()
        .into_iter()
        .map(|(_, c)| c.header.client)
        .collect();
    for client in Client::ALL {
        if client.not_priced().is_none() {
            assert!(
                captured.iter().any(|c| c == client.id()),
                "no capture of {}: run make clients",
                client.id()
            );
        }
    }
}

/// The README's table of recommended settings is what `modyo-lab clients` derives from the
/// committed fingerprints, and says of the measured clients what their fingerprints show:
/// Claude Code keeps the defaults, the genai SDK (the whole result, output schemas in every
/// request) and the text-only clients get `text`.
#[test]
fn the_readme_recommends_what_the_fingerprints_show() {
    use modyo_lab::clients::recommend;
    let fingerprints = clients::load_fingerprints(&reports()).expect("the fingerprints parse");
    let table = clients::recommendations_table(&reports()).expect("the captures parse");
    let readme =
        std::fs::read_to_string(modyo_replay::workspace::dir("README.md")).expect("README");
    let span = recommend::README.text(&readme).unwrap_or_else(|| {
        panic!(
            "README.md lacks {} ... {}",
            recommend::README.start,
            recommend::README.end
        )
    });
    assert_eq!(
        span,
        format!("\n{table}"),
        "README's recommended settings differ from the fingerprints (run modyo-lab clients --report-only)"
    );
    let settings = |id: &str| recommend::recommend(&fingerprint(id)).settings();
    assert_eq!(settings("claude-code"), "the defaults (`both`)");
    assert_eq!(settings("genai"), "`MODYO_RESULTS=text`");
    for f in &fingerprints {
        if f.result == ResultForm::Text {
            assert!(
                settings(&f.subject.client).starts_with("`MODYO_RESULTS=text`"),
                "{}",
                f.subject.client
            );
        }
    }
    // Plain-text errors exactly where the error's text was seen inside a JSON string of the
    // client's own (pydantic-ai and mcp-use wrap it, Gemini CLI dumps the result into its
    // message), and nowhere else.
    let plain: Vec<&str> = fingerprints
        .iter()
        .filter(|f| recommend::recommend(f).errors_text)
        .map(|f| f.subject.client.as_str())
        .collect();
    assert_eq!(
        plain,
        ["gemini-cli", "codex-code", "pydantic-ai", "mcp-use"]
    );
}
