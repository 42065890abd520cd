//! The server settings each fingerprinted client reads cheapest without losing anything (C22),
//! derived from its fingerprint alone, so the recommendation follows what the client was
//! measured to put in front of the model, not what it is said to do:
//!
//! - a client that forwards only `content[].text` gets `MODYO_RESULTS=text`: the same compact
//!   JSON as the text, no `structuredContent` and no `outputSchema` it would never show the
//!   model (fewer bytes on the wire, the same tokens in context);
//! - a client that forwards the whole result gets `text` too: under `both` the payload reaches
//!   the model twice (the text and `structuredContent`), under `text` once, provided the
//!   fingerprint shows it forwards a text-only result;
//! - a client that forwards `structuredContent` instead of the text keeps the default `both`:
//!   the text it drops costs it nothing, and how it treats the empty `content` of `structured`
//!   was not fingerprinted;
//! - and wherever the fingerprint shows an `outputSchema` reaching the model, while the form
//!   would still list it, `MODYO_OUTPUT_SCHEMA=off`.

use std::fmt::Write as _;

use modyo_mcp::contract::ResultForm as Form;
use serde::Serialize;

use super::capture::Settings;
use super::fingerprint::{Fingerprint, Part, ResultForm as Forwards};
use super::report::{ClientReport, calls};
use super::report_recommended;
use crate::report::Span;

/// The README's span that `modyo-lab clients` rewrites with [`markdown`].
pub const README: Span = Span {
    start: "<!-- clients: recommended settings -->",
    end: "<!-- /clients -->",
};

/// What an operator sets for one client, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recommendation {
    /// The client's short id.
    pub client: String,
    /// `MODYO_RESULTS`.
    pub results: &'static str,
    /// `MODYO_OUTPUT_SCHEMA=off` is part of it.
    pub output_schema_off: bool,
    /// `MODYO_ERRORS=text` is part of it.
    pub errors_text: bool,
    /// Why, from the fingerprint.
    pub why: String,
}

impl Recommendation {
    /// The settings as the server reads them: what a `recommended` session runs under.
    pub fn server_settings(&self) -> Settings {
        Settings {
            results: Form::parse(self.results).unwrap_or_default(),
            output_schema_off: self.output_schema_off,
            errors_text: self.errors_text,
        }
    }

    /// The settings as an operator types them (`MODYO_RESULTS=text`), or that the defaults
    /// are already the cheapest.
    pub fn settings(&self) -> String {
        let mut parts = Vec::new();
        if self.results != Form::Both.as_str() {
            parts.push(format!("`MODYO_RESULTS={}`", self.results));
        }
        if self.output_schema_off {
            parts.push("`MODYO_OUTPUT_SCHEMA=off`".to_owned());
        }
        if self.errors_text {
            parts.push("`MODYO_ERRORS=text`".to_owned());
        }
        if parts.is_empty() {
            "the defaults (`both`)".to_owned()
        } else {
            parts.join(" ")
        }
    }
}

/// The recommendation for the client `fingerprint` describes.
pub fn recommend(fingerprint: &Fingerprint) -> Recommendation {
    let text_only = fingerprint.reached(Part::TextOnly);
    let (form, mut why) = match fingerprint.result {
        Forwards::Text => (
            Form::Text,
            "forwards only `content[].text`: `structuredContent` and `outputSchema` never reach \
the model, so `text` leaves them off the wire and changes nothing it reads"
                .to_owned(),
        ),
        Forwards::WholeResult if text_only => (
            Form::Text,
            "forwards the whole result: under `both` the payload reaches the model twice, as the \
text and as `structuredContent`; `text` sends it once, the same compact JSON"
                .to_owned(),
        ),
        Forwards::WholeResult => (
            Form::Both,
            "forwards the whole result, but no text-only result reached the model in its \
fingerprint, so `text` is not known to lose nothing"
                .to_owned(),
        ),
        Forwards::StructuredElseText => (
            Form::Both,
            "forwards `structuredContent` instead of the text, so the text of `both` costs it \
nothing; `structured` (an empty `content`) was not fingerprinted"
                .to_owned(),
        ),
        Forwards::Other => (
            Form::Both,
            "its fingerprint shows neither the text nor `structuredContent` as such; nothing to \
act on"
                .to_owned(),
        ),
    };
    let schema_reaches = fingerprint.reached(Part::OutputSchema);
    let schema_loses_errors = loses_errors_under_a_schema(fingerprint);
    let output_schema_off = (schema_reaches || schema_loses_errors) && form != Form::Text;
    if schema_loses_errors {
        let _ = write!(
            why,
            "; the text of an `isError` result never reached the model when its tool lists an \
`outputSchema` (it did when the tool lists none), so under a listed schema the model would not read our errors: {}",
            if form == Form::Text {
                "`text` lists none"
            } else {
                "`MODYO_OUTPUT_SCHEMA=off`"
            }
        );
    }
    if schema_reaches {
        let when = if fingerprint.per_request(Part::OutputSchema) {
            "in every request"
        } else {
            "when it is loaded"
        };
        let _ = write!(
            why,
            "; every `outputSchema` reaches the model {when}, {}",
            if form == Form::Text {
                "and `text` lists none"
            } else {
                "so `MODYO_OUTPUT_SCHEMA=off`"
            }
        );
    }
    let errors_text = quotes_errors(fingerprint);
    if let Some(at) = &errors_text {
        let _ = write!(
            why,
            "; the text of an `isError` result reached the model inside a JSON string of its own ({at}), \
so every quote of a JSON error is escaped there: `MODYO_ERRORS=text` says the same in one plain line"
        );
    }
    if !fingerprint.error_flag {
        why.push_str(
            "; it forwards an error like a success, which our errors allow: their text begins \
`{\"error\":`",
        );
    }
    Recommendation {
        client: fingerprint.subject.client.clone(),
        results: form.as_str(),
        output_schema_off,
        errors_text: errors_text.is_some(),
        why,
    }
}

/// Where the fingerprint shows the plain error's text inside a JSON string the client built:
/// a path through a JSON-encoded string (`<json>`), or an example holding the marker as a
/// quoted JSON value (a dump of the result inside the client's own message). `None` when
/// neither: the text reached the model as it was.
fn quotes_errors(fingerprint: &Fingerprint) -> Option<String> {
    let seen = fingerprint
        .seen(Part::ErrorText)
        .filter(|s| !s.requests.is_empty())?;
    if let Some(path) = seen.paths.iter().find(|p| p.contains("<json>")) {
        return Some(format!("`{path}`"));
    }
    let example = seen.example.as_deref().unwrap_or_default();
    Part::ErrorText
        .markers()
        .iter()
        .any(|m| example.contains(&format!("\"{m}\"")))
        .then(|| "quoted in a dump of the result".to_owned())
}

/// Whether the fingerprint shows an error's text lost under a listed `outputSchema`: the
/// `mk_jerr` probe ran (older fingerprints have no such part), the plain error's text reached
/// the model and the probe's never did.
fn loses_errors_under_a_schema(fingerprint: &Fingerprint) -> bool {
    fingerprint.seen(Part::SchemaErrorText).is_some()
        && fingerprint.reached(Part::ErrorText)
        && !fingerprint.reached(Part::SchemaErrorText)
}

/// The table of `reports/clients.md` (and the README's span): one row per fingerprinted
/// client, in the fingerprints' order, with the break-even its sessions under these settings
/// reached per module (from `clients`, the priced captures).
pub fn markdown(fingerprints: &[Fingerprint], clients: &[ClientReport]) -> String {
    let mut out = String::from(
        "| client | version | recommended settings | why (from its fingerprint) | break-even under them, by billed input (calls) |\n|---|---|---|---|---|\n",
    );
    for f in fingerprints {
        let r = recommend(f);
        let priced = clients.iter().find(|c| c.client == f.subject.client);
        let _ = writeln!(
            out,
            "| {} | {} {} | {} | {}. | {} |",
            f.subject.name,
            f.subject.package,
            f.subject.version,
            r.settings(),
            r.why,
            break_even_under(priced)
        );
    }
    out
}

/// Per module, the calls after which the client's session under its recommended settings
/// billed less input than the legacy one (`0`: from the first; `never`), from the session
/// run under them, or the `after` session when they are the defaults.
fn break_even_under(client: Option<&ClientReport>) -> String {
    let Some(client) = client else {
        return "not priced".to_owned();
    };
    let cells: Vec<String> = client
        .modules
        .iter()
        .map(|m| {
            let shown = match report_recommended::billed_break_even(m) {
                Some(b) => calls(b.primary),
                None => "not captured".to_owned(),
            };
            format!("{} {shown}", m.module)
        })
        .collect();
    cells.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::api::Api;
    use crate::clients::fingerprint::{MarkerCapture, Subject};
    use serde_json::{Value, json};

    /// A fingerprint from one marker session whose last request holds `result` as the tool
    /// result, and a text-only result; `schema` puts an output schema in every request.
    fn fingerprint(result: Value, schema: bool) -> Fingerprint {
        let tool = |extra: Value| {
            let mut t = json!({"name": "mk_ok", "description": "MARK_DESC ok",
                "parameters": {"type": "object", "description": "MARK_INPUT"}});
            if schema {
                t["response_schema"] = json!({"description": "MARK_OUTSCHEMA_OK"});
            }
            if let Value::Object(extra) = extra {
                t.as_object_mut().unwrap().extend(extra);
            }
            t
        };
        let request = |messages: Value| {
            json!({"tools": [{"type": "function", "function": tool(json!(null))}],
                "messages": messages})
        };
        MarkerCapture {
            subject: Subject {
                client: "probe".into(),
                name: "Probe".into(),
                registry: "npm".into(),
                package: "probe".into(),
                version: "1".into(),
                date: "2026-12-05".into(),
                api: Api::Chat,
            },
            requests: vec![
                (
                    "/v1/chat/completions".into(),
                    request(json!([{"role": "system", "content": "MARK_INSTR"}])),
                ),
                (
                    "/v1/chat/completions".into(),
                    request(json!([
                        {"role": "system", "content": "MARK_INSTR"},
                        {"role": "tool", "content": result},
                        {"role": "tool", "content": "MARK_TEXT_TXT"}
                    ])),
                ),
            ],
        }
        .fingerprint()
    }

    #[test]
    fn a_text_client_gets_text() {
        let f = fingerprint(json!("MARK_TEXT_OK"), false);
        assert_eq!(f.result, Forwards::Text, "{f:?}");
        let r = recommend(&f);
        assert_eq!((r.results, r.output_schema_off), ("text", false));
        assert_eq!(r.settings(), "`MODYO_RESULTS=text`");
        assert_eq!(r.server_settings().label(), "MODYO_RESULTS=text");
    }

    #[test]
    fn a_whole_result_client_gets_the_payload_once_and_no_schema() {
        let f = fingerprint(
            json!("{\"text\":\"MARK_TEXT_OK\",\"structured\":\"MARK_STRUCT_OK\"}"),
            true,
        );
        assert_eq!(f.result, Forwards::WholeResult, "{f:?}");
        let r = recommend(&f);
        assert_eq!((r.results, r.output_schema_off), ("text", false));
        assert!(
            r.why.contains("twice") && r.why.contains("`text` lists none"),
            "{}",
            r.why
        );
    }

    #[test]
    fn a_client_that_puts_an_error_inside_a_json_string_gets_plain_errors() {
        let wrapped = fingerprint(
            json!("{\"error\":\"MARK_ERRTEXT\",\"m\":\"MARK_STRUCT_OK\"}"),
            false,
        );
        let r = recommend(&wrapped);
        assert!(r.errors_text, "{wrapped:?}");
        assert!(
            r.settings().ends_with("`MODYO_ERRORS=text`"),
            "{}",
            r.settings()
        );
        assert!(r.why.contains("<json>"), "{}", r.why);
        assert_eq!(
            r.server_settings().env().last().map(|(k, _)| k.as_str()),
            Some("MODYO_ERRORS")
        );
        let dumped = fingerprint(
            json!(
                "MARK_STRUCT_OK tool error with response: [{\"type\":\"text\",\"text\":\"MARK_ERRTEXT\"}]"
            ),
            false,
        );
        assert!(recommend(&dumped).errors_text);
        let plain = fingerprint(json!("MARK_STRUCT_OK MARK_ERRTEXT"), false);
        assert!(
            !recommend(&plain).errors_text,
            "as it was: nothing to escape"
        );
    }

    #[test]
    fn a_client_that_loses_an_error_under_a_schema_gets_none() {
        let mut f = fingerprint(json!("MARK_STRUCT_OK MARK_ERRTEXT mk_jerr"), false);
        assert!(f.reached(Part::ErrorText), "{f:?}");
        assert_eq!(
            f.seen(Part::SchemaErrorText).map(|s| s.requests.len()),
            Some(0)
        );
        let r = recommend(&f);
        assert_eq!(r.settings(), "`MODYO_OUTPUT_SCHEMA=off`");
        assert!(r.why.contains("would not read our errors"), "{}", r.why);
        let kept = fingerprint(
            json!("MARK_STRUCT_OK MARK_ERRTEXT mk_jerr MARK_ERRJSON"),
            false,
        );
        assert_eq!(recommend(&kept).settings(), "the defaults (`both`)");
        f.parts.retain(|s| s.part != Part::SchemaErrorText);
        assert_eq!(
            recommend(&f).settings(),
            "the defaults (`both`)",
            "not probed: no verdict"
        );
    }

    #[test]
    fn a_structured_client_keeps_both_and_drops_a_schema_that_reaches_the_model() {
        let f = fingerprint(json!("MARK_STRUCT_OK"), true);
        assert_eq!(f.result, Forwards::StructuredElseText, "{f:?}");
        let r = recommend(&f);
        assert_eq!((r.results, r.output_schema_off), ("both", true));
        assert_eq!(r.settings(), "`MODYO_OUTPUT_SCHEMA=off`");
        assert_eq!(
            r.server_settings().env(),
            [("MODYO_OUTPUT_SCHEMA".to_owned(), "off".to_owned())]
        );
        let f = fingerprint(json!("MARK_STRUCT_OK"), false);
        assert_eq!(recommend(&f).settings(), "the defaults (`both`)");
        assert!(recommend(&f).server_settings().is_defaults());
    }
}
