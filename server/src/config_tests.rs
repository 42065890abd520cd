//! The configuration's tests: every variable, its defaults, and the values that refuse to start.

use super::*;

#[test]
fn defaults_enable_every_module_and_nothing_legacy() {
    let config = Config::from_vars(Vec::<(String, String)>::new()).unwrap();
    assert_eq!(config.modules.len(), 5);
    assert!(config.legacy_modules.is_empty());
    assert!(!config.read_only);
    assert_eq!(config.timeout, Duration::from_secs(30));
    assert!(!config.has_api());
    assert_eq!(
        config.active_modules().into_iter().collect::<Vec<_>>(),
        vec![Module::Widgets]
    );
}

#[test]
fn read_only_takes_the_usual_spellings_and_refuses_the_rest() {
    for (value, expected) in [
        ("true", true),
        ("TRUE", true),
        ("1", true),
        ("yes", true),
        (" on ", true),
        ("false", false),
        ("0", false),
        ("No", false),
        ("off\n", false),
        ("", false),
    ] {
        let config = Config::from_vars([("MODYO_READ_ONLY", value)]).unwrap();
        assert_eq!(config.read_only, expected, "MODYO_READ_ONLY={value:?}");
    }
    let err = Config::from_vars([("MODYO_READ_ONLY", "maybe")]).unwrap_err();
    assert!(
        err.to_string().contains("MODYO_READ_ONLY") && err.to_string().contains("'maybe'"),
        "{err}"
    );
}

#[test]
fn a_read_only_switch_given_twice_fails_closed() {
    // Before, the last entry won: `true` then `false` (or empty) ran read-write.
    for later in ["false", "", "0", "off"] {
        let config =
            Config::from_vars([("MODYO_READ_ONLY", "true"), ("MODYO_READ_ONLY", later)]).unwrap();
        assert!(config.read_only, "true then {later:?}");
        let config =
            Config::from_vars([("MODYO_READ_ONLY", later), ("MODYO_READ_ONLY", "true")]).unwrap();
        assert!(config.read_only, "{later:?} then true");
    }
    let err = Config::from_vars([("MODYO_READ_ONLY", "false"), ("MODYO_READ_ONLY", "maybe")])
        .unwrap_err();
    assert!(err.to_string().contains("'maybe'"), "{err}");
}

#[test]
fn results_take_the_three_forms_and_refuse_the_rest() {
    let config = Config::from_vars(Vec::<(String, String)>::new()).unwrap();
    assert_eq!(config.results, ResultForm::Both);
    assert!(config.output_schema && config.lists_output_schema());
    for (value, form) in [
        ("both", ResultForm::Both),
        ("Structured", ResultForm::Structured),
        (" text\n", ResultForm::Text),
        ("", ResultForm::Both),
    ] {
        let config = Config::from_vars([("MODYO_RESULTS", value)]).unwrap();
        assert_eq!(config.results, form, "MODYO_RESULTS={value:?}");
    }
    for bad in ["bogus", "json", "structuredContent", "both,text"] {
        let err = Config::from_vars([("MODYO_RESULTS", bad)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "MODYO_RESULTS must be both, structured or text (any case), got '{bad}'; refusing to start rather than guess"
            )
        );
    }
    let twice = Config::from_vars([("MODYO_RESULTS", "text"), ("MODYO_RESULTS", "both")]);
    assert!(
        twice.unwrap_err().to_string().contains("'text' and 'both'"),
        "two forms: which was meant is unknown"
    );
    let same = Config::from_vars([("MODYO_RESULTS", "text"), ("MODYO_RESULTS", "TEXT")]);
    assert_eq!(same.unwrap().results, ResultForm::Text);
    assert!(
        Config::from_vars([("MODYO_RESULTS", "text")])
            .unwrap()
            .results_line()
            .starts_with("results form text: the JSON as text only")
    );
}

#[test]
fn output_schema_is_listed_unless_switched_off_or_the_form_has_none() {
    for (value, listed) in [("off", false), ("0", false), ("on", true), ("", true)] {
        let config = Config::from_vars([("MODYO_OUTPUT_SCHEMA", value)]).unwrap();
        assert_eq!(config.lists_output_schema(), listed, "{value:?}");
    }
    let text = Config::from_vars([("MODYO_RESULTS", "text"), ("MODYO_OUTPUT_SCHEMA", "on")]);
    assert!(!text.unwrap().lists_output_schema());
    let twice = Config::from_vars([
        ("MODYO_OUTPUT_SCHEMA", "off"),
        ("MODYO_OUTPUT_SCHEMA", "on"),
    ]);
    assert!(
        !twice.unwrap().output_schema,
        "any entry that turns it off wins"
    );
    let err = Config::from_vars([("MODYO_OUTPUT_SCHEMA", "none")]).unwrap_err();
    assert!(err.to_string().contains("MODYO_OUTPUT_SCHEMA") && err.to_string().contains("'none'"));
    let off = Config::from_vars([("MODYO_OUTPUT_SCHEMA", "off")]).unwrap();
    assert!(
        off.results_line()
            .contains("outputSchema not listed (MODYO_OUTPUT_SCHEMA is off)")
    );
}

#[test]
fn errors_take_json_or_text_and_refuse_the_rest() {
    assert_eq!(
        Config::from_vars::<_, &str, &str>([]).unwrap().errors,
        ErrorForm::Json
    );
    let text = Config::from_vars([("MODYO_ERRORS", " Text ")]).unwrap();
    assert_eq!(text.errors, ErrorForm::Text);
    assert!(
        text.results_line()
            .ends_with("errors as one plain line (MODYO_ERRORS=text)")
    );
    for bad in [
        vec![("MODYO_ERRORS", "bogus")],
        vec![("MODYO_ERRORS", "json"), ("MODYO_ERRORS", "text")],
    ] {
        let err = Config::from_vars(bad.clone()).unwrap_err().to_string();
        assert!(
            err.starts_with("MODYO_ERRORS must be json or text"),
            "{bad:?}: {err}"
        );
    }
    assert!(
        Config::from_vars([("MODYO_ERRORS", "bogus")])
            .unwrap_err()
            .to_string()
            .contains("'bogus'")
    );
}

#[test]
fn a_bad_upload_root_refuses_to_start() {
    let err = Config::from_vars([("MODYO_UPLOAD_ROOTS", "/does/not/exist")]).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("MODYO_UPLOAD_ROOTS: '/does/not/exist'"),
        "{err}"
    );
}

#[test]
fn invalid_modules_name_the_bad_value_and_the_valid_ones() {
    let err = Config::from_vars([("MODYO_MCP_MODULES", "content,x, cms")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Invalid module(s) in MODYO_MCP_MODULES: 'x', 'cms'.\nValid values: core, content, channels, customers, widgets."
    );
}

#[test]
fn modules_and_legacy_modules_parse_csv() {
    let config = Config::from_vars([
        ("MODYO_MCP_MODULES", "content, widgets"),
        ("MODYO_MCP_LEGACY_MODULES", "content"),
        ("MODYO_URL", "https://acme.modyo.cloud"),
        ("MODYO_TOKEN", "t"),
    ])
    .unwrap();
    assert_eq!(
        config.modules.iter().copied().collect::<Vec<_>>(),
        vec![Module::Content, Module::Widgets]
    );
    assert!(config.legacy_modules.contains(&Module::Content));
    assert_eq!(config.active_modules().len(), 2);
}

#[test]
fn bad_url_and_numbers_are_rejected_with_the_variable_name() {
    let err = Config::from_vars([("MODYO_URL", "ftp://x")]).unwrap_err();
    assert!(err.to_string().contains("MODYO_URL"), "{err}");
    let err = Config::from_vars([("MODYO_TIMEOUT_MS", "soon")]).unwrap_err();
    assert!(err.to_string().contains("MODYO_TIMEOUT_MS"), "{err}");
}

#[test]
fn token_debug_never_shows_the_value() {
    let config = Config::for_url("https://a.modyo.cloud", "canary-secret-123").unwrap();
    assert!(!format!("{config:?}").contains("canary-secret-123"));
}
