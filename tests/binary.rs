//! The production binary `modyo-mcp`: configuration errors exit 1 with the documented text,
//! and without credentials it starts in public mode. (`make test` builds the binaries first.)

use std::io::Write;
use std::process::{Command, Stdio};

use crate::util::server_binary;

#[test]
fn an_invalid_module_exits_1_naming_the_bad_value_and_the_valid_ones() {
    let output = Command::new(server_binary())
        .env_clear()
        .env("MODYO_MCP_MODULES", "content,cms")
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Error: Invalid module(s) in MODYO_MCP_MODULES: 'cms'.")
            && stderr.contains("Valid values: core, content, channels, customers, widgets."),
        "{stderr}"
    );
    assert!(output.stdout.is_empty(), "stdout is the MCP channel");
}

#[test]
fn without_credentials_the_server_answers_in_public_mode() {
    let mut child = Command::new(server_binary())
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    writeln!(stdin, "{init}").expect("writes");
    drop(stdin); // EOF: the server answers what it read, then exits
    let output = child.wait_with_output().expect("exits");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let first: serde_json::Value =
        serde_json::from_str(stdout.lines().next().expect("an answer")).expect("JSON-RPC");
    assert_eq!(first["result"]["serverInfo"]["name"], "modyo-mcp");
    assert!(
        first["result"]["instructions"]
            .as_str()
            .unwrap()
            .contains("Public mode"),
        "{first}"
    );
}

/// Runs the server with API credentials (a closed port: nothing is called) and `env`, asks
/// `tools/list`, and returns the exit code, the number of tools listed and stderr.
fn tools_listed_with(env: &[(&str, &str)]) -> (Option<i32>, Option<usize>, String) {
    let (code, tools, stderr) = listing(env, &[]);
    (code, tools.map(|t| t.len()), stderr)
}

/// [`tools_listed_with`] with command-line `args`, returning the tools listed.
fn listing(
    env: &[(&str, &str)],
    args: &[&str],
) -> (Option<i32>, Option<Vec<serde_json::Value>>, String) {
    let mut command = Command::new(server_binary());
    command
        .args(args)
        .env_clear()
        .env("MODYO_URL", "http://127.0.0.1:9")
        .env("MODYO_TOKEN", "canary-read-only");
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    // The server may have exited on a bad value already: a broken pipe is an answer too.
    let _ = writeln!(stdin, "{init}");
    let _ = writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    );
    let _ = writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#);
    drop(stdin);
    let output = child.wait_with_output().expect("exits");
    let tools = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|m| m["id"] == 2)
        .and_then(|m| m["result"]["tools"].as_array().cloned());
    (
        output.status.code(),
        tools,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `MODYO_READ_ONLY` is a safety switch: the usual spellings of true turn it on (it used to
/// need exactly `true`, so `TRUE`, `1`, `yes` or ` true` registered every write tool), the
/// usual spellings of false turn it off, anything else refuses to start; stderr says which.
#[test]
fn read_only_accepts_the_usual_spellings_and_refuses_anything_else() {
    let (_, all, _) = tools_listed_with(&[]);
    let (_, gated, _) = tools_listed_with(&[("MODYO_READ_ONLY", "true")]);
    let (all, gated) = (all.expect("tools"), gated.expect("tools"));
    assert!(
        gated < all,
        "read-only hides the write tools: {gated} of {all}"
    );

    for on in ["true", "TRUE", "1", "yes", "YES", " true", "on", "On\n"] {
        let (code, tools, stderr) = tools_listed_with(&[("MODYO_READ_ONLY", on)]);
        assert_eq!(code, Some(0), "MODYO_READ_ONLY={on:?}: {stderr}");
        assert_eq!(tools, Some(gated), "MODYO_READ_ONLY={on:?} is read-only");
        assert!(
            stderr.contains("read-only mode (MODYO_READ_ONLY"),
            "MODYO_READ_ONLY={on:?}, stderr: {stderr}"
        );
    }
    for off in ["false", "FALSE", "0", "no", "off", " Off "] {
        let (code, tools, stderr) = tools_listed_with(&[("MODYO_READ_ONLY", off)]);
        assert_eq!(code, Some(0), "MODYO_READ_ONLY={off:?}: {stderr}");
        assert_eq!(tools, Some(all), "MODYO_READ_ONLY={off:?} allows writes");
        assert!(
            stderr.contains("read-write mode"),
            "MODYO_READ_ONLY={off:?}, stderr: {stderr}"
        );
    }
    let (_, _, stderr) = tools_listed_with(&[]);
    assert!(stderr.contains("read-write mode"), "unset: {stderr}");
    for bad in ["maybe", "tru", "2", "y e s", "enabled"] {
        let (code, tools, stderr) = tools_listed_with(&[("MODYO_READ_ONLY", bad)]);
        assert_ne!(code, Some(0), "MODYO_READ_ONLY={bad:?} must not start");
        assert_eq!(tools, None, "MODYO_READ_ONLY={bad:?} listed tools");
        assert!(
            stderr.contains("MODYO_READ_ONLY") && stderr.contains(&format!("'{bad}'")),
            "the message names the variable and the value: {stderr}"
        );
    }
}

/// `MODYO_RESULTS` fails closed like `MODYO_READ_ONLY`: a value that is not a form stops the
/// server at start (exit 1), naming the value; `--results` is checked by the argument parser.
/// Each form starts with a stderr line saying what an answer keeps, and lists `outputSchema`
/// only where the form and `MODYO_OUTPUT_SCHEMA` say.
#[test]
fn the_result_form_is_chosen_at_start_and_a_bogus_one_refuses_to_start() {
    for bad in ["bogus", "json", "structured,text"] {
        let (code, tools, stderr) = listing(&[("MODYO_RESULTS", bad)], &[]);
        assert_eq!(
            (code, tools),
            (Some(1), None),
            "MODYO_RESULTS={bad:?}: {stderr}"
        );
        assert!(
            stderr.contains(&format!(
                "Error: MODYO_RESULTS must be both, structured or text (any case), got '{bad}'"
            )),
            "{stderr}"
        );
    }
    let (code, tools, stderr) = listing(&[], &["--results", "bogus"]);
    assert_eq!((code, tools), (Some(2), None), "{stderr}");
    assert!(stderr.contains("'bogus' is not a result form"), "{stderr}");

    let schemas = |tools: &Option<Vec<serde_json::Value>>| {
        let tools = tools.as_ref().expect("tools listed");
        assert!(!tools.is_empty());
        tools
            .iter()
            .filter(|t| t.get("outputSchema").is_some())
            .count()
            * 100
            / tools.len()
    };
    for (env, args, line, listed) in [
        (
            vec![],
            vec![],
            "results form both: structuredContent and the same JSON as text; outputSchema listed",
            100,
        ),
        (
            vec![("MODYO_RESULTS", "structured")],
            vec![],
            "results form structured: structuredContent only",
            100,
        ),
        (
            vec![("MODYO_RESULTS", " TEXT ")],
            vec![],
            "results form text: the JSON as text only, no structuredContent; no outputSchema listed",
            0,
        ),
        (
            vec![("MODYO_RESULTS", "text")],
            vec!["--results", "both"],
            "results form both:",
            100,
        ),
        (
            vec![("MODYO_OUTPUT_SCHEMA", "off")],
            vec![],
            "outputSchema not listed (MODYO_OUTPUT_SCHEMA is off)",
            0,
        ),
    ] {
        let (code, tools, stderr) = listing(&env, &args);
        assert_eq!(code, Some(0), "{env:?} {args:?}: {stderr}");
        let said = stderr
            .lines()
            .find(|l| l.starts_with("modyo-mcp: results form "))
            .unwrap_or_default();
        assert!(said.contains(line), "{env:?} {args:?}: {stderr}");
        assert_eq!(schemas(&tools), listed, "{env:?} {args:?}");
    }
}

/// `MODYO_ERRORS` fails closed too: a value that is not `json` or `text` stops the server at
/// start, naming it; `text` is said on the start-up line.
#[test]
fn the_error_form_is_chosen_at_start_and_a_bogus_one_refuses_to_start() {
    let (code, tools, stderr) = listing(&[("MODYO_ERRORS", "bogus")], &[]);
    assert_eq!((code, tools), (Some(1), None), "{stderr}");
    assert!(
        stderr.contains("Error: MODYO_ERRORS must be json or text (any case), got 'bogus'"),
        "{stderr}"
    );
    let (code, _, stderr) = listing(&[("MODYO_ERRORS", "text")], &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("errors as one plain line (MODYO_ERRORS=text)"),
        "{stderr}"
    );
}

/// The client's name from `initialize` is recorded on stderr (the operator picks the form for
/// the client that connects).
#[test]
fn the_client_that_connects_is_named_on_stderr() {
    let (code, _, stderr) = listing(&[("MODYO_RESULTS", "structured")], &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains("client connected"))
        .unwrap_or_else(|| panic!("no client line: {stderr}"));
    assert!(
        line.contains("client=t") && line.contains("results=structured"),
        "{line}"
    );
}
