//! The report model (what `reports/<module>.json` holds), and the files written from it:
//! `<module>.json` for tools, `<module>.md` for people, `<module>-<kind>.svg` (the charts, see
//! [`CHARTS`]), and `README.md` summarizing every module.
//!
//! Everything here is deterministic: no timestamps, no absolute paths, no ports, sorted
//! collections, floats rounded to one decimal. The wall time of a run is not part of a report
//! (see [`last_run`]).

pub mod budget;
pub(crate) mod chart;
pub(crate) mod markdown;
mod profile;
mod projection;
mod review;
pub mod slots;
mod span;
pub(crate) mod table;

pub use chart::{problems as chart_problems, text_width as chart_text_width};
pub use profile::{BreakEven, CatalogueView, Evidence, Profile, billed_input};
pub use projection::{Calibration, Fields, NPlusOne, Projection, ProjectionCase};
pub use review::review;
pub use span::Span;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tokens::{BPE, CHARS_PER_TOKEN, Count, Delta, PRIMARY, PerUnit, Tokens};
use budget::Budget;
use slots::{Definition, SlotRow};

/// The format tag of a module report.
pub const FORMAT: &str = "modyo-lab-report/2";

/// The file a run's wall time goes to (gitignored: it is not deterministic).
pub const LAST_RUN: &str = "last-run.md";

/// The default reports directory: `reports/` of the workspace, found at run time (see
/// [`modyo_replay::workspace`]), else `./reports`.
pub fn default_dir() -> PathBuf {
    modyo_replay::workspace::dir("reports")
}

/// One module's report, or one server's (`modyo-lab measure --before CMD --after CMD`: `module`
/// is then the `--name`).
#[derive(Debug, Clone, Serialize)]
pub struct ModuleReport {
    /// [`FORMAT`].
    pub format: &'static str,
    /// The module (`content`), or the name given to a measured server.
    pub module: String,
    /// What "before" and "after" are, and how sizes relate to the bytes sent.
    pub compared: Compared,
    /// The MCP protocol version the probe pinned.
    pub protocol_version: &'static str,
    /// Which counters the numbers use.
    pub counters: Counters,
    /// The headline figures (also what `README.md` shows).
    pub summary: Summary,
    /// `tools/list` before and after, as context and as wire, and the breakdown by slot (M3).
    pub catalogue: Catalogue,
    /// Every tool, worst first (the largest definition on the wire after), with what its calls
    /// cost.
    pub tools: Vec<ToolReport>,
    /// Every scenario (or planned call), before and after (M4).
    pub scenarios: Vec<ScenarioReport>,
    /// The fixed cost of the envelope per response (M4; our server only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub envelope: Option<EnvelopeSummary>,
    /// `fields` against the N+1 path (content only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projection: Option<Projection>,
    /// What a session costs under each client profile, and the break-even call count.
    pub profiles: Vec<Profile>,
}

impl ModuleReport {
    /// Adds profiles priced elsewhere (the measured clients) after the report's own, and their
    /// break-even to the summary.
    pub fn add_profiles(&mut self, profiles: Vec<Profile>) {
        self.summary
            .break_even
            .extend(profiles.iter().map(ProfileBreakEven::of));
        self.profiles.extend(profiles);
    }
}

/// What a report compares.
#[derive(Debug, Clone, Serialize)]
pub struct Compared {
    /// The "before" server.
    pub before: String,
    /// The "after" server.
    pub after: String,
    /// How the sizes relate to the bytes the servers sent.
    pub sizes: String,
}

/// The counters every figure names.
#[derive(Debug, Clone, Serialize)]
pub struct Counters {
    /// The counter the report's tables and charts show first: `chars/2.902` for our modules,
    /// `o200k_base` by default for any other server.
    pub headline: crate::tokens::Counter,
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
            headline: crate::tokens::Counter::Chars,
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
    /// Tools listed after.
    pub tools: usize,
    /// Scenarios measured.
    pub scenarios: usize,
    /// The catalogue a model sees (output schemas dropped), before.
    pub catalogue_context_before: Tokens,
    /// The same after.
    pub catalogue_context_after: Tokens,
    /// The `tools` array as sent, before.
    pub catalogue_wire_before: Tokens,
    /// The same after.
    pub catalogue_wire_after: Tokens,
    /// What the output schemas add to the wire per listed tool, after (the schema diet's
    /// figure); `None` without tools.
    pub output_schema_per_tool_after: Option<PerUnit>,
    /// Scenarios measured on both sides with outcome success (the per-call means below).
    pub comparable_calls: usize,
    /// Mean `content[].text` per call before.
    pub text_per_call_before: Option<PerUnit>,
    /// Mean `content[].text` per call after.
    pub text_per_call_after: Option<PerUnit>,
    /// Mean text + structuredContent per call after.
    pub both_per_call_after: Option<PerUnit>,
    /// Scenarios measured after, whatever their outcome.
    pub measured_after: usize,
    /// Mean `content[].text` over those (what the budget's `text_per_call` limits).
    pub text_per_call_measured_after: Option<PerUnit>,
    /// The break-even call count of every profile (chars/2.902), in profile order.
    pub break_even: Vec<ProfileBreakEven>,
    /// Mean `content[].text` per call by outcome (successes, errors, refusals, every call),
    /// over the scenarios measured on both sides, each row saying how many it averages.
    #[serde(default)]
    pub by_outcome: Vec<OutcomeMean>,
}

/// One row of the per-call means by outcome.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OutcomeMean {
    /// `success`, `error`, `control`, or `all`.
    pub outcome: String,
    /// Scenarios measured on both sides in this row.
    pub calls: usize,
    /// Mean `content[].text` before.
    pub text_before: Option<PerUnit>,
    /// Mean `content[].text` after.
    pub text_after: Option<PerUnit>,
}

/// One profile's break-even, for the summary.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ProfileBreakEven {
    /// The profile.
    pub profile: String,
    /// Which catalogue it prices.
    pub catalogue: CatalogueView,
    /// Calls after which the session after ends with less in the model's context (final
    /// context, chars/2.902); `None`: never.
    pub calls: Option<u64>,
    /// Calls after which the session after has billed less input, summed over its requests
    /// (chars/2.902); `None`: never. The headline.
    #[serde(default)]
    pub billed_calls: Option<u64>,
}

impl ProfileBreakEven {
    /// A profile's break-even, as the summary keeps it.
    pub fn of(profile: &Profile) -> ProfileBreakEven {
        ProfileBreakEven {
            profile: profile.profile.clone(),
            catalogue: profile.catalogue,
            calls: profile.break_even_calls.primary,
            billed_calls: profile.billed_break_even_calls.primary,
        }
    }
}

/// `tools/list` before and after (M3), as context and as wire.
#[derive(Debug, Clone, Serialize)]
pub struct Catalogue {
    /// What the wire figures measure.
    pub wire_measured: &'static str,
    /// What the context figures measure.
    pub context_measured: &'static str,
    /// Tools listed before.
    pub tools_before: usize,
    /// Tools listed after.
    pub tools_after: usize,
    /// The `tools` array before.
    pub wire_before: Tokens,
    /// The `tools` array after.
    pub wire_after: Tokens,
    /// After minus before, wire.
    pub wire_delta: Delta,
    /// The context view before.
    pub context_before: Tokens,
    /// The context view after.
    pub context_after: Tokens,
    /// After minus before, context.
    pub context_delta: Delta,
    /// Every tool's definition summed by slot, before.
    pub by_slot_before: SlotTotals,
    /// The same after.
    pub by_slot_after: SlotTotals,
    /// The wire difference by slot, in characters (zero rows left out).
    pub slots: Vec<SlotRow>,
    /// The sum of every row: equals `difference_chars`.
    pub slot_sum_chars: i64,
    /// `wire_after.chars - wire_before.chars`.
    pub difference_chars: i64,
    /// The server's instructions, prompts and resources lists, before.
    pub extras_before: ExtrasCost,
    /// The same after.
    pub extras_after: ExtrasCost,
}

/// What a server's instructions and its prompts and resources lists cost, as sent (absent when
/// the server has none).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct ExtrasCost {
    /// `initialize.result.instructions`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<Tokens>,
    /// The `prompts/list` array.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Tokens>,
    /// The `resources/list` array.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<Tokens>,
}

/// Every tool's [`Definition`] summed by slot (each slot's counts are sums of separately
/// counted texts; the array's brackets and commas are in no slot).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SlotTotals {
    /// Descriptions.
    pub description: Tokens,
    /// Input schemas.
    pub input_schema: Tokens,
    /// Output schemas.
    pub output_schema: Tokens,
    /// Names, titles, annotations, braces, other members.
    pub other: Tokens,
    /// Tools that publish an output schema.
    pub tools_with_output_schema: usize,
    /// Output schemas per listed tool.
    pub output_schema_per_tool: Option<PerUnit>,
}

impl SlotTotals {
    /// The totals of a list of definitions.
    pub fn of<'a>(definitions: impl IntoIterator<Item = &'a Definition>) -> SlotTotals {
        let (mut d, mut i, mut o, mut r, mut with, mut tools) = (
            Count::default(),
            Count::default(),
            Count::default(),
            Count::default(),
            0,
            0_u64,
        );
        for def in definitions {
            tools += 1;
            d += def.description.count();
            i += def.input_schema.count();
            r += def.other.count();
            if let Some(schema) = def.output_schema {
                o += schema.count();
                with += 1;
            }
        }
        SlotTotals {
            description: d.tokens_all(),
            input_schema: i.tokens_all(),
            output_schema: o.tokens_all(),
            other: r.tokens_all(),
            tools_with_output_schema: with,
            output_schema_per_tool: (tools > 0).then(|| o.per(tools)),
        }
    }
}

/// One tool: its definition before and after, and what its calls cost.
#[derive(Debug, Clone, Serialize)]
pub struct ToolReport {
    /// The tool.
    pub tool: String,
    /// Its definition before (`None`: not listed before).
    pub before: Option<Definition>,
    /// Its definition after (`None`: not listed after).
    pub after: Option<Definition>,
    /// After minus before on the wire, when listed on both sides.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wire_delta: Option<Delta>,
    /// After minus before in context, when listed on both sides.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_delta: Option<Delta>,
    /// Its scenarios measured before, whatever their outcome.
    pub calls_before: usize,
    /// Its scenarios measured after, whatever their outcome.
    pub calls_after: usize,
    /// Mean `content[].text` over its scenarios measured before.
    pub text_per_call_before: Option<PerUnit>,
    /// Mean `content[].text` over its scenarios measured after (the budget's `text_per_call`).
    pub text_per_call_after: Option<PerUnit>,
    /// Mean `structuredContent` over its scenarios measured after (absent ones count zero).
    pub structured_per_call_after: Option<PerUnit>,
    /// Mean text + structuredContent over its scenarios measured after.
    pub both_per_call_after: Option<PerUnit>,
    /// Both sides measured the same scenarios of it, so its change per call compares like
    /// with like (a parameter the legacy tool lacks leaves scenarios unmeasured before).
    pub same_scenarios: bool,
}

/// One scenario of a cassette, before and after.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioReport {
    /// `cassette#scenario` (a planned call: its name, or `<index> <tool>`).
    pub id: String,
    /// The cassette (empty for a planned call).
    #[serde(skip_serializing_if = "String::is_empty")]
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
    /// The expected outcome (`success`, `error:not_found`; empty for a planned call).
    #[serde(skip_serializing_if = "String::is_empty")]
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
    /// HTTP requests the replay server received for this call (our server only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_requests: Option<usize>,
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

/// The charts of a module report, by file suffix: `<module>-<kind>.svg`.
pub const CHARTS: [&str; 4] = ["session", "catalogue", "tools", "calls"];

/// The files of one report (`<module>.json`, `<module>.md`, its charts), by name relative to
/// the reports directory. With a budget, the Markdown shows the module's figures against it.
pub fn render_module(report: &ModuleReport, budget: Option<&Budget>) -> BTreeMap<String, String> {
    let m = &report.module;
    let mut files = BTreeMap::new();
    let mut json = serde_json::to_string_pretty(report).unwrap_or_default();
    json.push('\n');
    files.insert(format!("{m}.json"), json);
    files.insert(format!("{m}.md"), markdown::module(report, budget));
    for (kind, svg) in chart::all(report) {
        files.insert(format!("{m}-{kind}.svg"), svg);
    }
    files
}

/// The files of a set of module reports and the summary `README.md` over `all` (the measured
/// modules plus those read back from existing reports).
pub fn render(
    reports: &[ModuleReport],
    all: &[Summary],
    budget: Option<&Budget>,
) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for report in reports {
        files.extend(render_module(report, budget));
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
/// modules not in `files` are removed (their cassettes are gone), and so is every module's
/// single chart of report format 1 (`<module>.svg`).
pub fn write(
    dir: &Path,
    files: &BTreeMap<String, String>,
    prune: bool,
) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    if prune {
        for module in modyo_mcp::Module::ALL {
            let m = module.as_str();
            let measured = files.contains_key(&format!("{m}.json"));
            let mut names = vec![format!("{m}.svg")];
            if !measured {
                names.extend([format!("{m}.json"), format!("{m}.md")]);
                names.extend(CHARTS.iter().map(|kind| format!("{m}-{kind}.svg")));
            }
            for name in names {
                let path = dir.join(&name);
                if path.exists() {
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
