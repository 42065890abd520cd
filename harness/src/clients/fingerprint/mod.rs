//! Fingerprints: which parts of an MCP server a client puts in front of the model, in which
//! requests and in which form, found by running the client against the marker server
//! (`modyo-lab marker`) with the marker plan (`mk_ok`, `mk_err`, `mk_txt`) and searching every
//! request for every marker.
//!
//! A marker session is committed as `reports/clients/<client>.marker.jsonl`: a header line,
//! then each model request of the conversation cut down to its marker-bearing parts
//! (`prune`). The [`Fingerprint`] is derived from that file alone (`analysis`), so CI
//! re-derives it and compares it with the committed `<client>.fingerprint.json`; the pricing
//! reads the typed fingerprint (per part reached or not, per request or once, the result form,
//! whether the client marks prompt-cache breakpoints).

pub(crate) mod analysis;
pub(crate) mod markers;
pub(crate) mod matrix;
pub(crate) mod prune;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use markers::Part;

use super::api::Api;

/// The format tag of a fingerprint file.
pub const FORMAT: &str = "modyo-lab-fingerprint/1";

/// The format tag of a marker capture.
pub const MARKER_FORMAT: &str = "modyo-lab-marker/1";

/// What a fingerprint or a marker capture is of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subject {
    /// The client's short id (`gemini-cli`).
    pub client: String,
    /// As people name it.
    pub name: String,
    /// `npm` or `PyPI`.
    pub registry: String,
    /// The package whose version ran.
    pub package: String,
    /// The version that ran.
    pub version: String,
    /// The day (UTC) this content was first captured (kept by reruns that capture the same).
    pub date: String,
    /// The model API it spoke.
    pub api: Api,
}

/// In which requests of the conversation a part was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "in")]
pub enum Timing {
    /// In none.
    Absent,
    /// In every request.
    Every,
    /// From request `first` (1-based) on, in every later one (a result, a loaded definition).
    From {
        /// The first request that holds it.
        first: usize,
    },
    /// In some requests only (see [`Seen::requests`]).
    Some,
}

/// One part, as found in the marker session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    /// The part.
    pub part: Part,
    /// The requests (1-based, of the conversation) that hold one of its markers.
    pub requests: Vec<usize>,
    /// The same, summed up.
    pub timing: Timing,
    /// Where in a request (JSON paths, indices as `[*]`, `<json>` where a string holds JSON).
    pub paths: Vec<String>,
    /// The first string that holds one of its markers, cut around it.
    pub example: Option<String>,
}

/// How definitions reach the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "sent")]
pub enum Definitions {
    /// Every tool's definition in every request.
    EveryRequest,
    /// Not in the first request; loaded on demand and kept from then on.
    OnDemand {
        /// The first request names the tools (without their definitions).
        names_first: bool,
    },
    /// In some requests only.
    Some,
    /// Never.
    Never,
}

/// What of a result with both `content[].text` and `structuredContent` reaches the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultForm {
    /// The text only.
    Text,
    /// `structuredContent` (as JSON) instead of the text; a text-only result as its text.
    StructuredElseText,
    /// Both: the whole result object (or the text with the structured content attached).
    WholeResult,
    /// Neither marker, or something else.
    Other,
}

impl ResultForm {
    /// As the reports name it.
    pub fn describe(self) -> &'static str {
        match self {
            ResultForm::Text => "text",
            ResultForm::StructuredElseText => "structuredContent, else text",
            ResultForm::WholeResult => "whole result",
            ResultForm::Other => "other",
        }
    }
}

/// What one client forwards of an MCP server to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// [`FORMAT`].
    pub format: String,
    /// The client.
    #[serde(flatten)]
    pub subject: Subject,
    /// Requests of the conversation.
    pub requests: usize,
    /// How definitions reach the model.
    pub definitions: Definitions,
    /// What of a result with text and `structuredContent` reaches it.
    pub result: ResultForm,
    /// Whether the model can tell an `isError` result from a success (the error result is sent
    /// in a form of its own, not only its text in the success's shape).
    pub error_flag: bool,
    /// Every part, in [`Part::ALL`]'s order.
    pub parts: Vec<Seen>,
    /// The prompt-cache breakpoints the client marks (Anthropic `cache_control`): a client
    /// that marks them is billed what the previous request already sent at the cache-read
    /// rate.
    pub cache_marks: CacheMarks,
}

/// Where a client marks prompt-cache breakpoints (`cache_control`) in its requests.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheMarks {
    /// The requests (1-based) that mark at least one.
    pub requests: Vec<usize>,
    /// Where, as JSON paths of the marked objects (`$.system[*]`), in the order first seen.
    pub paths: Vec<String>,
}

impl CacheMarks {
    /// Whether the client marks any breakpoint.
    pub fn any(&self) -> bool {
        !self.requests.is_empty()
    }
}

impl Fingerprint {
    /// The finding for `part`.
    pub fn seen(&self, part: Part) -> Option<&Seen> {
        self.parts.iter().find(|s| s.part == part)
    }

    /// Whether `part` reached the model at all.
    pub fn reached(&self, part: Part) -> bool {
        self.seen(part).is_some_and(|s| !s.requests.is_empty())
    }

    /// Whether `part`, once it arrived, is in every later request (paid per request, not once).
    pub fn per_request(&self, part: Part) -> bool {
        self.seen(part)
            .is_some_and(|s| matches!(s.timing, Timing::Every | Timing::From { .. }))
    }

    /// The file's text (pretty JSON).
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// A marker session as committed: what ran, and each request's marker-bearing parts.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkerCapture {
    /// What ran.
    pub subject: Subject,
    /// Each model request of the conversation: its path and its pruned body.
    pub requests: Vec<(String, Value)>,
}

/// Why a marker capture does not parse.
#[derive(Debug, thiserror::Error)]
#[error("marker capture line {line}: {message}")]
pub struct MarkerError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "line", rename_all = "snake_case")]
enum Line {
    Marker {
        format: String,
        #[serde(flatten)]
        subject: Subject,
    },
    Request {
        n: usize,
        path: String,
        body: Value,
    },
}

impl MarkerCapture {
    /// The file's text: a `marker` line, then one `request` line per request.
    pub fn to_jsonl(&self) -> String {
        let mut lines = vec![Line::Marker {
            format: MARKER_FORMAT.into(),
            subject: self.subject.clone(),
        }];
        lines.extend(
            self.requests
                .iter()
                .enumerate()
                .map(|(i, (path, body))| Line::Request {
                    n: i + 1,
                    path: path.clone(),
                    body: body.clone(),
                }),
        );
        let mut text = String::new();
        for line in lines {
            text.push_str(&serde_json::to_string(&line).unwrap_or_default());
            text.push('\n');
        }
        text
    }

    /// Parses a marker capture: the `marker` line first, requests numbered from 1 in order.
    pub fn parse(text: &str) -> Result<MarkerCapture, MarkerError> {
        let mut subject = None;
        let mut requests = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let error = |message: String| MarkerError {
                line: i + 1,
                message,
            };
            if raw.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Line>(raw).map_err(|e| error(e.to_string()))? {
                Line::Marker { format, subject: s } => {
                    if subject.is_some() {
                        return Err(error("a second marker line".into()));
                    }
                    if format != MARKER_FORMAT {
                        return Err(error(format!(
                            "format {format:?}, this lab reads {MARKER_FORMAT}"
                        )));
                    }
                    subject = Some(s);
                }
                Line::Request { n, path, body } => {
                    if subject.is_none() {
                        return Err(error("a request before the marker line".into()));
                    }
                    if n != requests.len() + 1 {
                        return Err(error(format!(
                            "request {n} where {} was due",
                            requests.len() + 1
                        )));
                    }
                    requests.push((path, body));
                }
            }
        }
        let subject = subject.ok_or(MarkerError {
            line: 1,
            message: "empty marker capture: no marker line".into(),
        })?;
        Ok(MarkerCapture { subject, requests })
    }

    /// The fingerprint this capture shows.
    pub fn fingerprint(&self) -> Fingerprint {
        analysis::derive(&self.subject, &self.requests)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    pub(super) fn subject() -> Subject {
        Subject {
            client: "x".into(),
            name: "X".into(),
            registry: "npm".into(),
            package: "x".into(),
            version: "1".into(),
            date: "2026-12-01".into(),
            api: Api::Chat,
        }
    }

    #[test]
    fn a_marker_capture_reads_back_and_misplaced_lines_are_named() {
        let capture = MarkerCapture {
            subject: subject(),
            requests: vec![
                (
                    "/v1/chat/completions".into(),
                    json!({"tools": [{"function": {"name": "mk_ok"}}]}),
                ),
                (
                    "/v1/chat/completions".into(),
                    json!({"messages": [{"content": "MARK_TEXT_OK"}]}),
                ),
            ],
        };
        let text = capture.to_jsonl();
        assert_eq!(MarkerCapture::parse(&text).expect("parses"), capture);
        let swapped: Vec<&str> = text.lines().rev().collect();
        let e = MarkerCapture::parse(&swapped.join("\n")).expect_err("out of order");
        assert_eq!(e.line, 1, "{e}");
        assert!(MarkerCapture::parse("").is_err());
        let e = MarkerCapture::parse(&text.replace("\"n\":2", "\"n\":5")).expect_err("a gap");
        assert_eq!(e.line, 3);
        let e = MarkerCapture::parse(&text.replace(MARKER_FORMAT, "other/2")).expect_err("format");
        assert!(e.to_string().contains("other/2"));
    }
}
