//! The rules of format v1 that serde cannot express: names, methods, paths, dates, headers and
//! uniqueness. Run on every load and before every write, so a cassette on disk always replays.

use std::collections::HashSet;

use hyper::header::{HeaderName, HeaderValue};

use super::error::CassetteError;
use super::interaction::OrderedMap;
use super::model::Cassette;
use crate::template::Template;

/// The methods a recorded request may use.
const METHODS: [&str; 7] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/// Response headers the replay server computes itself; a recorded copy could only disagree.
const COMPUTED_HEADERS: [&str; 2] = ["content-length", "transfer-encoding"];

/// Checks that `name` can name a cassette: `/`-separated segments of `[A-Za-z0-9._-]`, no
/// empty, `.` or `..` segment, no `.json` suffix.
pub(crate) fn check_name(name: &str) -> Result<(), CassetteError> {
    let invalid = |reason: &str| {
        Err(CassetteError::InvalidName {
            name: name.to_owned(),
            reason: reason.to_owned(),
        })
    };
    if name.is_empty() {
        return invalid("it is empty");
    }
    if name.ends_with(".json") {
        return invalid(
            "a name has no .json suffix (content/spaces-list, not content/spaces-list.json)",
        );
    }
    for segment in name.split('/') {
        if segment.is_empty() || segment == "." || segment == ".." {
            return invalid("segments are non-empty and never '.' or '..'");
        }
        if !segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        {
            return invalid("use only letters, digits, '.', '_' and '-' between slashes");
        }
    }
    Ok(())
}

impl Cassette {
    /// Checks the rules of format v1 that parsing alone does not (methods, paths, dates,
    /// headers, unique scenario names, include names). Loading and writing both run it.
    pub fn validate(&self) -> Result<(), CassetteError> {
        check_name(&self.name)?;
        let fail = |json_path: String, reason: String| {
            Err(CassetteError::Invalid {
                name: self.name.clone(),
                json_path,
                reason,
            })
        };
        let p = &self.provenance;
        if !is_date(&p.date) {
            return fail(
                "provenance.date".into(),
                format!("'{}' is not a YYYY-MM-DD date", p.date),
            );
        }
        if p.description.trim().is_empty() {
            return fail(
                "provenance.description".into(),
                "say what this cassette records".into(),
            );
        }
        if p.generator.as_deref().is_some_and(|g| g.trim().is_empty()) {
            return fail(
                "provenance.generator".into(),
                "empty; omit it or name the command".into(),
            );
        }
        let mut seen = HashSet::new();
        for (i, tag) in self.tags.iter().enumerate() {
            if tag.is_empty()
                || !tag
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
            {
                return fail(
                    format!("tags[{i}]"),
                    format!("tag '{tag}' must be lower-case letters, digits, '-' or '_'"),
                );
            }
            if !seen.insert(tag) {
                return fail(format!("tags[{i}]"), format!("tag '{tag}' is repeated"));
            }
        }
        let mut seen = HashSet::new();
        for (i, include) in self.include.iter().enumerate() {
            if let Err(e) = check_name(include) {
                return fail(format!("include[{i}]"), e.to_string());
            }
            if !seen.insert(include) {
                return fail(
                    format!("include[{i}]"),
                    format!("'{include}' is included twice"),
                );
            }
        }
        let mut seen = HashSet::new();
        for (i, scenario) in self.scenarios.iter().enumerate() {
            let at = |field: &str| format!("scenarios[{i}].{field}");
            if scenario.name.trim().is_empty() {
                return fail(at("name"), "empty scenario name".into());
            }
            if !seen.insert(&scenario.name) {
                return fail(
                    at("name"),
                    format!("scenario '{}' is defined twice", scenario.name),
                );
            }
            if scenario.tool.trim().is_empty() {
                return fail(at("tool"), "name the MCP tool to call".into());
            }
            if !scenario.arguments.is_object() {
                return fail(at("arguments"), "arguments are a JSON object".into());
            }
            if scenario.expect.code.as_deref().is_some_and(str::is_empty) {
                return fail(at("expect.code"), "empty; omit it or give the code".into());
            }
            if let Some((key, _)) = scenario.env.iter().find(|(k, _)| k.trim().is_empty()) {
                return fail(at("env"), format!("empty variable name '{key}'"));
            }
        }
        let mut seen = HashSet::new();
        for (i, mark) in self.undocumented.iter().enumerate() {
            let at = |field: &str| format!("undocumented[{i}].{field}");
            if !METHODS.contains(&mark.method.as_str()) {
                return fail(
                    at("method"),
                    format!(
                        "'{}' is not one of {} (upper case)",
                        mark.method,
                        METHODS.join(", ")
                    ),
                );
            }
            if let Err(reason) = Template::parse(&mark.path) {
                return fail(at("path"), reason);
            }
            if mark.note.as_deref().is_some_and(|n| n.trim().is_empty()) {
                return fail(
                    at("note"),
                    "empty; omit it or say what the evidence shows".into(),
                );
            }
            if !mark.evidence.is_none() && mark.note.is_none() {
                return fail(
                    at("note"),
                    format!(
                        "missing: say what {} shows of the endpoint (and, when it is our inference, that it is one)",
                        mark.evidence
                    ),
                );
            }
            if !seen.insert((mark.method.as_str(), mark.path.as_str())) {
                return fail(
                    at("path"),
                    format!("{} {} is marked twice", mark.method, mark.path),
                );
            }
        }
        for (i, interaction) in self.interactions.iter().enumerate() {
            let at = |field: &str| format!("interactions[{i}].{field}");
            let request = &interaction.request;
            if !METHODS.contains(&request.method.as_str()) {
                return fail(
                    at("request.method"),
                    format!(
                        "'{}' is not one of {} (upper case)",
                        request.method,
                        METHODS.join(", ")
                    ),
                );
            }
            if !request.path.starts_with('/') {
                return fail(
                    at("request.path"),
                    format!("'{}' must start with '/'", request.path),
                );
            }
            if request.path.contains(['?', '#']) || request.path.chars().any(char::is_whitespace) {
                return fail(
                    at("request.path"),
                    format!(
                        "'{}' must be a bare path: put parameters in request.query, encode spaces",
                        request.path
                    ),
                );
            }
            if let Some((key, _)) = request.query.iter().find(|(k, _)| k.is_empty()) {
                return fail(at("request.query"), format!("empty query key '{key}'"));
            }
            check_headers(&request.headers)
                .or_else(|reason| fail(at("request.headers"), reason))?;
            let response = &interaction.response;
            check_headers(&response.headers)
                .or_else(|reason| fail(at("response.headers"), reason))?;
            if let Some((name, _)) = response.headers.iter().find(|(k, _)| {
                COMPUTED_HEADERS
                    .iter()
                    .any(|computed| k.eq_ignore_ascii_case(computed))
            }) {
                return fail(
                    at("response.headers"),
                    format!("'{name}' is computed by the replay server; remove it"),
                );
            }
        }
        Ok(())
    }
}

fn check_headers(headers: &OrderedMap<String>) -> Result<(), String> {
    let mut seen = HashSet::new();
    for (name, value) in headers.iter() {
        if HeaderName::from_bytes(name.as_bytes()).is_err() {
            return Err(format!("'{name}' is not a valid header name"));
        }
        if HeaderValue::from_str(value).is_err() {
            return Err(format!("the value of '{name}' is not a valid header value"));
        }
        if !seen.insert(name.to_ascii_lowercase()) {
            return Err(format!("header '{name}' appears twice (names ignore case)"));
        }
    }
    Ok(())
}

fn is_date(date: &str) -> bool {
    let b = date.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() != 10
        || b[4] != b'-'
        || b[7] != b'-'
        || !digits(0..4)
        || !digits(5..7)
        || !digits(8..10)
    {
        return false;
    }
    let month = (b[5] - b'0') * 10 + (b[6] - b'0');
    let day = (b[8] - b'0') * 10 + (b[9] - b'0');
    (1..=12).contains(&month) && (1..=31).contains(&day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cassette::{Interaction, Provenance, RecordedResponse, Scenario};
    use serde_json::json;

    fn cassette() -> Cassette {
        Cassette::new("content/x", Provenance::synthetic("2026-11-29", "test"))
    }

    fn invalid_at(cassette: &Cassette) -> String {
        match cassette.validate() {
            Err(CassetteError::Invalid { json_path, .. }) => json_path,
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[test]
    fn names_are_relative_slash_paths_without_suffix() {
        for good in [
            "content/spaces-list",
            "a",
            "content/sucursales/base",
            "x.y_z",
        ] {
            check_name(good).expect(good);
        }
        for bad in [
            "", "/abs", "a//b", "../x", "a/./b", "x.json", "a b", "a\\b", "trail/",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn dates_are_checked() {
        assert!(is_date("2026-11-29"));
        for bad in [
            "2026-13-01",
            "2026-1-01",
            "26-11-29",
            "2026-11-00",
            "2026/11/29",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
    }

    #[test]
    fn each_rule_names_its_json_path() {
        let mut c = cassette().interaction(Interaction::get("api/x").respond(200, json!({})));
        assert_eq!(invalid_at(&c), "interactions[0].request.path");
        c.interactions[0].request.path = "/x?page=1".into();
        assert_eq!(invalid_at(&c), "interactions[0].request.path");
        c.interactions[0].request.path = "/x".into();
        c.interactions[0].request.method = "get".into();
        assert_eq!(invalid_at(&c), "interactions[0].request.method");
        c.interactions[0].request.method = "GET".into();
        c.interactions[0].response = RecordedResponse::empty(204).header("Content-Length", "0");
        assert_eq!(invalid_at(&c), "interactions[0].response.headers");
        c.interactions[0].response = RecordedResponse::empty(204)
            .header("x-a", "1")
            .header("X-A", "2");
        assert_eq!(invalid_at(&c), "interactions[0].response.headers");
        c.interactions[0].response = RecordedResponse::empty(204);
        c.validate().expect("valid again");

        let c = cassette()
            .scenario(Scenario::new("a").tool("t"))
            .scenario(Scenario::new("a").tool("t"));
        assert_eq!(invalid_at(&c), "scenarios[1].name");
        let c = cassette().scenario(Scenario::new("a"));
        assert_eq!(invalid_at(&c), "scenarios[0].tool");
        let c = cassette().scenario(Scenario::new("a").tool("t").args(json!([1])));
        assert_eq!(invalid_at(&c), "scenarios[0].arguments");
        let c = cassette().include("base").include("base");
        assert_eq!(invalid_at(&c), "include[1]");
        let c = cassette().tag("Fault");
        assert_eq!(invalid_at(&c), "tags[0]");
        let mark = |method: &str, path: &str| {
            crate::cassette::Undocumented::new(method, path, crate::cassette::Evidence::None)
        };
        let c = cassette().undocumented(mark("get", "/api/x"));
        assert_eq!(invalid_at(&c), "undocumented[0].method");
        let c = cassette().undocumented(mark("GET", "/api/{x"));
        assert_eq!(invalid_at(&c), "undocumented[0].path");
        let c = cassette()
            .undocumented(mark("GET", "/api/x/{id}"))
            .undocumented(mark("GET", "/api/x/{id}"));
        assert_eq!(invalid_at(&c), "undocumented[1].path");
        let c = cassette().undocumented(mark("GET", "/api/x").note(" "));
        assert_eq!(invalid_at(&c), "undocumented[0].note");
        // A source without what it shows is no evidence a reader can check.
        let sourced = crate::cassette::Undocumented::new(
            "GET",
            "/api/x",
            crate::cassette::Evidence::docs("docs/en/platform/core/api.md"),
        );
        let c = cassette().undocumented(sourced.clone());
        assert_eq!(invalid_at(&c), "undocumented[0].note");
        assert!(
            cassette()
                .undocumented(sourced.note("names the list"))
                .validate()
                .is_ok()
        );
        let mut c = cassette();
        c.provenance.description = " ".into();
        assert_eq!(invalid_at(&c), "provenance.description");
    }
}
