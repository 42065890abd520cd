//! `fields` against the N+1 path (C14, M4): the projection's cases, the N+1 baseline, the
//! fields asked, and the calibration against a field measurement.

use serde::Serialize;
use serde_json::Value;

use crate::tokens::{Delta, PerUnit, Tokens};

/// `fields` against the N+1 path (C14, M4).
#[derive(Debug, Clone, Serialize)]
pub struct Projection {
    /// The list tool.
    pub tool: &'static str,
    /// The per-entry tool of the N+1 path.
    pub get_tool: &'static str,
    /// The space read.
    pub space: String,
    /// The fields the migrated call projects.
    pub fields: Value,
    /// 10, 100 and every entry.
    pub cases: Vec<ProjectionCase>,
    /// The legacy figures the fixture was calibrated against (issue 2), measured.
    pub calibration: Vec<Calibration>,
}

/// One size of the projection comparison.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectionCase {
    /// `10 entries`, `100 entries`, `all 314 entries`.
    pub case: String,
    /// Entries read.
    pub entries: u64,
    /// Page size.
    pub per_page: u64,
    /// Pages read.
    pub pages: u64,
    /// Legacy list (minimal) + one legacy get per entry.
    pub before: NPlusOne,
    /// Migrated list with `fields`.
    pub after: Fields,
    /// After text minus before text.
    pub delta_text: Delta,
    /// After text + structured minus before text.
    pub delta_both: Delta,
}

/// The N+1 path, measured.
#[derive(Debug, Clone, Serialize)]
pub struct NPlusOne {
    /// Tool calls made.
    pub calls: u64,
    /// HTTP requests the replay server received.
    pub http_requests: usize,
    /// The list calls' text.
    pub list: Tokens,
    /// The get calls' text.
    pub gets: Tokens,
    /// Everything (legacy results are text only).
    pub text: Tokens,
    /// Per entry.
    pub per_entry: PerUnit,
}

/// The `fields` path, measured.
#[derive(Debug, Clone, Serialize)]
pub struct Fields {
    /// Tool calls made.
    pub calls: u64,
    /// HTTP requests the replay server received.
    pub http_requests: usize,
    /// `content[].text`.
    pub text: Tokens,
    /// `structuredContent`.
    pub structured: Tokens,
    /// Both.
    pub both: Tokens,
    /// Text per entry.
    pub per_entry: PerUnit,
}

/// A legacy figure of the field case, measured through the server.
#[derive(Debug, Clone, Serialize)]
pub struct Calibration {
    /// What was measured.
    pub figure: String,
    /// The measurement.
    pub measured: Tokens,
    /// What the field case weighed, in tokens at 2.902 characters per token.
    #[serde(rename = "field_case_chars/2.902")]
    pub field_case: f64,
    /// How far the measurement is from the field case, in percent (chars/2.902).
    pub off_percent: f64,
}
