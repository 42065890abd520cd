//! The report model (what `reports/<module>.json` holds), and the files written from it:
//! `<module>.json` for tools, `<module>.md` for people, `<module>.svg` (the chart), and
//! `README.md` summarizing every module.
//!
//! Everything here is deterministic: no timestamps, no absolute paths, no ports, sorted
//! collections, floats rounded to one decimal. The wall time of a run is not part of a report
//! (see [`last_run`]).

pub(crate) mod markdown;
mod svg;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::measure::catalogue::SlotRow;
use crate::tokens::{BPE, CHARS_PER_TOKEN, Count, Delta, PRIMARY, PerUnit, Tokens};

/// The format tag of a module report.
pub const FORMAT: &str = "modyo-lab-report/1";

/// The file a run's wall time goes to (gitignored: it is not deterministic).
pub const LAST_RUN: &str = "last-run.md";

/// The workspace's `reports/` directory.
pub fn default_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .map(|workspace| workspace.join("reports"))
        .unwrap_or_else(|| PathBuf::from("reports"))
}

/// One module's report.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleReport {
    /// [`FORMAT`].
    pub format: &'static str,
    /// The module (`content`).
    pub module: String,
    /// The MCP protocol version the probe pinned.
    pub protocol_version: &'static str,
    /// Which counters the numbers use.
    pub counters: Counters,
    /// The headline figures (also what `README.md` shows).
    pub summary: Summary,
    /// `tools/list` before and after, and the breakdown by slot (M3).
    pub catalogue: Catalogue,
    /// Every scenario, before and after (M4).
    pub scenarios: Vec<ScenarioReport>,
    /// The fixed cost of the envelope per response (M4).
    pub envelope: EnvelopeSummary,
    /// `fields` against the N+1 path (content only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projection: Option<Projection>,
    /// What a session costs under each client behaviour, and the break-even call count.
    pub profiles: Vec<Profile>,
    /// The profiles measured by running a client (`modyo-lab clients`), when there are any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub measured: Vec<crate::clients::MeasuredRow>,
}

/// The counters every figure names.
#[derive(Debug, Clone, Serialize)]
pub struct Counters {
    /// The primary counter's name.
    pub primary: &'static str,
    /// Characters per token of the primary counter.
    pub chars_per_token: f64,
    /// The BPE counters.
    pub bpe: [&'static str; 2],
}

impl Default for Counters {
    fn default() -> Counters {
        Counters {
            primary: PRIMARY,
            chars_per_token: CHARS_PER_TOKEN,
            bpe: BPE,
        }
    }
}

/// A module's headline figures (`README.md` reads them back from each module's JSON).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    /// The module.
    pub module: String,
    /// Tools listed after the migration.
    pub tools: usize,
    /// Scenarios measured.
    pub scenarios: usize,
    /// `tools/list` before.
    pub catalogue_before: Tokens,
    /// `tools/list` after.
    pub catalogue_after: Tokens,
    /// Scenarios measured on both sides with outcome success (the per-call means below).
    pub comparable_calls: usize,
    /// Mean `content[].text` per call before.
    pub text_per_call_before: Option<PerUnit>,
    /// Mean `content[].text` per call after.
    pub text_per_call_after: Option<PerUnit>,
    /// Mean text + structuredContent per call after.
    pub both_per_call_after: Option<PerUnit>,
    /// Break-even call count of the text-only client (chars/2.902), `None`: never.
    pub break_even_text: Option<u64>,
    /// Break-even call count of the forwards-both client (chars/2.902), `None`: never.
    pub break_even_both: Option<u64>,
}

/// `tools/list` before and after (M3).
#[derive(Debug, Clone, Serialize)]
pub struct Catalogue {
    /// What is measured.
    pub measured: &'static str,
    /// Tools listed before.
    pub tools_before: usize,
    /// Tools listed after.
    pub tools_after: usize,
    /// The `tools` array before.
    pub before: Tokens,
    /// The `tools` array after.
    pub after: Tokens,
    /// After minus before.
    pub delta: Delta,
    /// The difference by slot, in characters (zero rows left out).
    pub slots: Vec<SlotRow>,
    /// The sum of every row: equals `difference_chars`.
    pub slot_sum_chars: i64,
    /// `after.chars - before.chars`.
    pub difference_chars: i64,
}

/// One scenario of a cassette, before and after.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioReport {
    /// `cassette#scenario`.
    pub id: String,
    /// The cassette.
    pub cassette: String,
    /// The scenario.
    pub scenario: String,
    /// The tool called.
    pub tool: String,
    /// Its arguments.
    pub arguments: Value,
    /// Extra server environment.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// The expected outcome (`success`, `error:not_found`).
    pub expect: String,
    /// Legacy mode.
    pub before: Side,
    /// Migrated.
    pub after: Side,
    /// After minus before, when both sides were measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta: Option<Deltas>,
}

/// One side of a scenario: measured, or not callable (a parameter the legacy tool lacks).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Side {
    /// Measured.
    Measured(Box<Measured>),
    /// Not measured, and why.
    Skipped {
        /// Why.
        skipped: String,
    },
}

impl Side {
    /// The measurement, if any.
    pub fn measured(&self) -> Option<&Measured> {
        match self {
            Side::Measured(m) => Some(m.as_ref()),
            Side::Skipped { .. } => None,
        }
    }
}

/// What one call cost.
#[derive(Debug, Clone, Serialize)]
pub struct Measured {
    /// `success`, `error` or `control`.
    pub outcome: String,
    /// The C16 error code or the control outcome.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// HTTP requests the replay server received for this call.
    pub http_requests: usize,
    /// `content[].text`, every text block.
    pub text: Tokens,
    /// `structuredContent` as sent (compact JSON); absent in legacy mode and on errors.
    pub structured: Option<Tokens>,
    /// Both (a client that forwards both pays twice).
    pub both: Tokens,
    /// The envelope's share of the payload (migrated results only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub envelope: Option<EnvelopeCost>,
}

/// After minus before for each view of a result.
#[derive(Debug, Clone, Serialize)]
pub struct Deltas {
    /// `content[].text` alone.
    pub text: Delta,
    /// `structuredContent` alone.
    pub structured: Delta,
    /// Both.
    pub both: Delta,
}

/// The characters each part of one envelope costs (additive: they sum to the payload).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct EnvelopeCost {
    /// `"platform":{...}`.
    pub platform: u64,
    /// `,"resource":{...}`.
    pub resource: u64,
    /// `,"state":{...}`.
    pub state: u64,
    /// `,"control":{...}`.
    pub control: u64,
    /// Braces and the `,"data":` key (or `,"error":` for errors).
    pub framing: u64,
    /// The value of `data` (or `error`): the tool's own result.
    pub payload: u64,
    /// Everything but the payload: what the envelope adds to every response, in characters.
    pub overhead: u64,
    /// The overhead in tokens at 2.902 characters per token.
    #[serde(rename = "overhead_chars/2.902")]
    pub overhead_tokens: f64,
}

/// The envelope over all migrated responses of a module.
#[derive(Debug, Clone, Serialize)]
pub struct EnvelopeSummary {
    /// Responses with an envelope.
    pub responses: usize,
    /// Per slot: how many responses carry it, and its mean, minimum and maximum in characters.
    pub slots: Vec<EnvelopeSlot>,
    /// Mean overhead per response, in characters.
    pub mean_overhead_chars: Option<f64>,
    /// The same in tokens at 2.902 characters per token.
    #[serde(rename = "mean_overhead_chars/2.902")]
    pub mean_overhead_tokens: Option<f64>,
    /// Overhead as a share of all payload characters, in percent.
    pub overhead_percent: Option<f64>,
}

/// One slot over a module's responses, in characters.
#[derive(Debug, Clone, Serialize)]
pub struct EnvelopeSlot {
    /// `platform`, `resource`, `state`, `control`, `framing`.
    pub slot: &'static str,
    /// Responses that carry it.
    pub responses: usize,
    /// Mean characters over those responses.
    pub mean_chars: f64,
    /// Fewest characters.
    pub min_chars: u64,
    /// Most characters.
    pub max_chars: u64,
}

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

/// One client behaviour.
#[derive(Debug, Clone, Serialize)]
pub struct Profile {
    /// Short name (`text`, `structured`, `both`, `schema-per-call`).
    pub profile: &'static str,
    /// What the client puts in the model's context.
    pub behaviour: &'static str,
    /// The catalogue, paid once per session.
    pub catalogue_before: Tokens,
    /// The catalogue after.
    pub catalogue_after: Tokens,
    /// Scenarios the per-call means are over.
    pub calls: usize,
    /// Mean cost per call before.
    pub per_call_before: Option<PerUnit>,
    /// Mean cost per call after.
    pub per_call_after: Option<PerUnit>,
    /// Change per call in percent (chars/2.902).
    pub per_call_percent: Option<f64>,
    /// Calls after which the migrated session is cheaper, per counter (`null`: never).
    pub break_even_calls: BreakEven,
}

/// A break-even call count per counter; `None` means the migrated session never pays back.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct BreakEven {
    /// Characters / 2.902 (the same count as characters).
    #[serde(rename = "chars/2.902")]
    pub primary: Option<u64>,
    /// `o200k_base`.
    pub o200k_base: Option<u64>,
    /// `cl100k_base`.
    pub cl100k_base: Option<u64>,
}

impl BreakEven {
    /// Smallest `n` with `catalogue_after + n * after <= catalogue_before + n * before`, given
    /// per-call sums over `calls` calls.
    pub fn of(
        catalogue_before: Count,
        catalogue_after: Count,
        sum_before: Count,
        sum_after: Count,
        calls: usize,
    ) -> BreakEven {
        let one = |cb: u64, ca: u64, sb: u64, sa: u64| -> Option<u64> {
            if ca <= cb {
                return Some(0);
            }
            if calls == 0 || sa >= sb {
                return None;
            }
            // n >= (ca - cb) / ((sb - sa) / calls)
            let need = (ca - cb) as u128 * calls as u128;
            let saving = (sb - sa) as u128;
            Some(need.div_ceil(saving) as u64)
        };
        BreakEven {
            primary: one(
                catalogue_before.chars,
                catalogue_after.chars,
                sum_before.chars,
                sum_after.chars,
            ),
            o200k_base: one(
                catalogue_before.o200k_base,
                catalogue_after.o200k_base,
                sum_before.o200k_base,
                sum_after.o200k_base,
            ),
            cl100k_base: one(
                catalogue_before.cl100k_base,
                catalogue_after.cl100k_base,
                sum_before.cl100k_base,
                sum_after.cl100k_base,
            ),
        }
    }
}

/// The files of a set of module reports, by name relative to the reports directory, and the
/// summary over `all` (the measured modules plus those read back from existing reports).
pub fn render(reports: &[ModuleReport], all: &[Summary]) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for report in reports {
        let mut json = serde_json::to_string_pretty(report).unwrap_or_default();
        json.push('\n');
        files.insert(format!("{}.json", report.module), json);
        files.insert(format!("{}.md", report.module), markdown::module(report));
        files.insert(format!("{}.svg", report.module), svg::chart(report));
    }
    files.insert("README.md".into(), markdown::summary(all));
    files
}

/// The summaries of the module reports already in `dir` (`<module>.json` files), for modules
/// not in `except`.
pub fn existing_summaries(dir: &Path, except: &[String]) -> Vec<Summary> {
    let mut out = Vec::new();
    for module in modyo_mcp::Module::ALL {
        let name = module.as_str();
        if except.iter().any(|m| m == name) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(dir.join(format!("{name}.json"))) else {
            continue;
        };
        let summary = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| serde_json::from_value::<Summary>(v.get("summary")?.clone()).ok());
        if let Some(summary) = summary {
            out.push(summary);
        }
    }
    out
}

/// Writes rendered files into `dir` (created if missing). With `prune`, the report files of
/// modules not in `reports` are removed (their cassettes are gone).
pub fn write(
    dir: &Path,
    files: &BTreeMap<String, String>,
    prune: bool,
) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    if prune {
        for module in modyo_mcp::Module::ALL {
            for ext in ["json", "md", "svg"] {
                let name = format!("{}.{ext}", module.as_str());
                let path = dir.join(&name);
                if !files.contains_key(&name) && path.exists() {
                    std::fs::remove_file(path)?;
                }
            }
        }
    }
    let mut written = Vec::new();
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text)?;
        written.push(path);
    }
    Ok(written)
}

/// The text of `last-run.md`: how long a run took, per phase (not deterministic, so not in
/// the committed reports).
pub fn last_run(total: std::time::Duration, phases: &[(String, std::time::Duration)]) -> String {
    let mut text = String::from(
        "# Last measure run\n\nWritten by `modyo-lab measure` on every run; not committed (wall time is not deterministic).\n\n",
    );
    text.push_str(&format!(
        "Total: {:.2} s (after the build).\n\n| phase | seconds |\n|---|---:|\n",
        total.as_secs_f64()
    ));
    for (phase, time) in phases {
        text.push_str(&format!("| {phase} | {:.2} |\n", time.as_secs_f64()));
    }
    text
}
