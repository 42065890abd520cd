//! Property tests: Modyo responses with drift, replayed over HTTP through the real tools.
//!
//! Targets are discovered, not listed: every successful cassette scenario of a read (or a
//! gated read action) is replayed once, and each response it read becomes a target, a list
//! target when the body is `{<root>: [...], meta}` and a detail target when it is another JSON
//! object. Targets are deduplicated by tool, argument names (paging aside) and request path
//! shape, so every form of a tool (`content-entries-list` minimal, `fields`, `includeDetails`)
//! is its own target; a polled request (one the call repeats) is left out.
//!
//! For each target, proptest generates a drifted body from the recorded one (unknown keys at
//! any depth, nulls, long unicode strings, emptied arrays, removed and reordered keys, a subset
//! or repetition of the items, a renamed or missing root, and `meta` missing, null, mistyped or
//! inconsistent: totals below and above what was returned, pages beyond the end), serves it in
//! place of the recorded response, calls the tool and asserts:
//! - the call never fails at the protocol level (a panic or an output validation failure);
//! - the result keeps the contract (`check::problems`: it validates against the published
//!   `outputSchema`, `content[0].text` is the compact serialization, errors are C16 with
//!   `platform`);
//! - `complete` appears only with evidence and then equals the truth (C6); `returned`, `total`,
//!   `page` and `per_page` say what the API said (C5);
//! - `data` never disagrees with `resource` (C12);
//! - drift that only adds information (unknown keys, reordered keys) never breaks a call (C8).
//!
//! A list read with `per_page=100` from page 1 (the page walks of every walking tool, and any
//! other read of that shape) also meets whole upstreams, every page mounted: the recorded rows
//! served a few per page (a `per_page` capped below the 100 asked), with `meta` honest, absent,
//! silent about the cap, claiming more rows than exist, or admitting one page only; and an
//! upstream that ignores `page` (every page is the first). There `complete: true` must agree
//! with every piece of evidence served: every row reachable, `total_entries` (when sent) equal
//! to the rows that exist.
//!
//! `PROPTEST_CASES` sets the cases per tool (64 by default, over 2,000 in all with the
//! catalogue on main and never fewer than 256; `make proptest-long`: 10,000 per tool). The seed
//! is fixed unless `MODYO_PROPTEST_SEED` is a number or `random`; `MODYO_PROPTEST_TOOL` runs
//! only the tools whose name contains it. One replay server and MCP session serve all the
//! cases of a tool (each case resets the mocks), which keeps a case to a few milliseconds.

use std::collections::BTreeSet;
use std::time::Instant;

use modyo_lab::check::{self, Kind};
use modyo_lab::lint::{Lint, Lists, Rule};
use modyo_lab::session::{Library, Session};
use modyo_replay::cassette::{QueryValue, RecordedRequest};
use modyo_replay::{Cassette, Provenance, RecordedResponse, ReplayOptions};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
use rmcp::model::{CallToolResult, Tool};
use serde_json::{Map, Value, json};

use crate::util::probes::{self, ProbeKind, json_body, list_root};

/// A response to drift, and everything else the call needs.
#[derive(Debug)]
struct Target {
    label: String,
    tool: Tool,
    arguments: Value,
    env: Vec<(String, String)>,
    key: RecordedRequest,
    original: Value,
    /// `Some(root)` for a list target.
    root: Option<String>,
    /// The list the tool reports coverage on (the last list the call read).
    coverage_source: bool,
    /// Whether the tool answers with that list's items (its `returned` is the page's size), as
    /// the baseline showed; otherwise it derives its answer from them (a find, a search, a
    /// filter, a validation: `returned` counts what it kept, and only `complete` is checked).
    echoes_page: bool,
    /// Whether the tool's `page` argument sets this request's `page` (found by asking).
    page_driven: bool,
    /// `per_page` and `page` as requested.
    per_page: Option<u64>,
    page: Option<u64>,
    /// The other responses of the call.
    rest: Cassette,
}

/// The start of a result's text, for failure messages.
fn short(result: &CallToolResult) -> String {
    let text = check::text(result).unwrap_or_default();
    let cut: String = text.chars().take(400).collect();
    if cut.len() < text.len() {
        format!("{cut}...")
    } else {
        cut
    }
}

fn path_shape(path: &str) -> String {
    path.split('/')
        .map(|s| {
            if !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) {
                "#"
            } else {
                s
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// A page no scenario asks for, to see which request a tool's `page` argument reaches.
const PROBE_PAGE: u64 = 7_777;

/// Whether `probe`'s `page` argument reaches `request`'s `page` query parameter: the call is
/// made again with another page and the requests it sends are compared.
async fn drives_page(
    probe: &probes::Probe,
    request: &modyo_replay::ReceivedRequest,
) -> anyhow::Result<bool> {
    let takes_page = probe
        .tool
        .input_schema
        .get("properties")
        .and_then(|p| p.get("page"))
        .is_some();
    if !takes_page
        || !probe.arguments.is_object()
        || !request.query.iter().any(|(k, _)| k == "page")
    {
        return Ok(false);
    }
    let mut arguments = probe.arguments.clone();
    arguments["page"] = json!(PROBE_PAGE);
    let session = Session::start(&probe.mounts, &probe.env).await?;
    let _ = session.call(&probe.tool.name, arguments).await?;
    let wanted = PROBE_PAGE.to_string();
    let driven = session.replay().received().iter().any(|r| {
        r.path == request.path && r.query.iter().any(|(k, v)| k == "page" && *v == wanted)
    });
    session.close().await;
    Ok(driven)
}

/// The identity of a row, for comparing the rows a tool answered with the rows it read.
fn row_key(row: &Value) -> Option<&Value> {
    row.get("id").or_else(|| row.get("uuid"))
}

/// Whether `result` answers with the items of the list `body` (under `root`): `returned` is
/// their number, nothing was `searched`, and the rows of `data` (the array, or the one array
/// of that size in it) are those items, in order. An empty list proves nothing: the tool is
/// then treated as deriving its answer (fewer assertions, never a false failure).
fn echoes_page(result: &CallToolResult, body: &Value, root: &str) -> bool {
    let Some(items) = body.get(root).and_then(Value::as_array) else {
        return false;
    };
    let Some(envelope) = result.structured_content.as_ref() else {
        return false;
    };
    let state = &envelope["state"];
    if items.is_empty()
        || state.get("searched").is_some()
        || state["returned"].as_u64() != Some(items.len() as u64)
    {
        return false;
    }
    let rows = match &envelope["data"] {
        Value::Array(rows) => Some(rows),
        Value::Object(map) => map
            .values()
            .filter_map(Value::as_array)
            .find(|rows| rows.len() == items.len()),
        _ => None,
    };
    rows.is_some_and(|rows| {
        rows.iter()
            .zip(items)
            .all(|(row, item)| row_key(item).is_none_or(|k| row_key(row) == Some(k)))
    })
}

/// The targets of every tool whose name contains `only` (every tool: `""`).
async fn targets(library: &Library, only: &str) -> anyhow::Result<Vec<Target>> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for probe in probes::probes(library).await? {
        if !matches!(probe.kind, ProbeKind::Read | ProbeKind::GatedRead)
            || !probe.tool.name.contains(only)
        {
            continue;
        }
        let baseline = probes::baseline(&probe).await?;
        let last_list = baseline
            .requests
            .iter()
            .rposition(|(_, r)| r.as_ref().and_then(json_body).and_then(list_root).is_some());
        // Paging does not make another form of a tool.
        let mut names: Vec<&String> = probe
            .arguments
            .as_object()
            .map(|m| {
                m.keys()
                    .filter(|k| *k != "page" && *k != "per_page")
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        for (i, (request, response)) in baseline.requests.iter().enumerate() {
            let (Some(response), Some(key)) = (response, request.to_recorded()) else {
                continue;
            };
            let Some(body) = json_body(response).filter(|b| b.is_object()) else {
                continue;
            };
            if request.method != "GET" || response.status != 200 {
                continue;
            }
            // A polled request (a recorded sequence: a job read until it ends) is left out: a
            // drifted answer replayed forever would only measure how long the tool waits.
            let repeats = baseline
                .requests
                .iter()
                .filter(|(r, _)| r.line() == request.line())
                .count();
            if repeats > 1 {
                continue;
            }
            let root = list_root(body);
            let dedupe = (
                probe.tool.name.to_string(),
                format!("{names:?}"),
                path_shape(&request.path),
                root.is_some(),
            );
            if !seen.insert(dedupe) {
                continue;
            }
            let query = |k: &str| {
                request
                    .query
                    .iter()
                    .find(|(q, _)| q == k)
                    .and_then(|(_, v)| v.parse().ok())
            };
            let rest = baseline.without(request);
            out.push(Target {
                label: format!("{} [{}]", probe.label, request.line()),
                tool: probe.tool.clone(),
                arguments: probe.arguments.clone(),
                env: probe.env.clone(),
                key,
                original: body.clone(),
                coverage_source: root.is_some() && last_list == Some(i),
                echoes_page: root
                    .as_ref()
                    .is_some_and(|root| echoes_page(&baseline.result, body, root)),
                page_driven: root.is_some() && drives_page(&probe, request).await?,
                root,
                per_page: query("per_page"),
                page: query("page"),
                rest,
            });
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// Drift

/// One change to an object somewhere inside a value (`at` picks the object, `key` its key).
#[derive(Debug, Clone)]
enum Edit {
    AddUnknown {
        at: usize,
        key: String,
        value: Value,
    },
    Reorder {
        at: usize,
        seed: usize,
    },
    Null {
        at: usize,
        key: usize,
    },
    LongString {
        at: usize,
        key: usize,
        text: String,
    },
    EmptyArray {
        at: usize,
    },
    Remove {
        at: usize,
        key: usize,
    },
}

impl Edit {
    fn additive(&self) -> bool {
        matches!(self, Edit::AddUnknown { .. } | Edit::Reorder { .. })
    }
}

fn objects(value: &Value, pointer: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            out.push(pointer.clone());
            for (k, v) in map {
                objects(
                    v,
                    format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                objects(v, format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn arrays(value: &Value, pointer: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                arrays(
                    v,
                    format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            out.push(pointer.clone());
            for (i, v) in items.iter().enumerate() {
                arrays(v, format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn apply(value: &mut Value, edit: &Edit) {
    let mut pointers = Vec::new();
    objects(value, String::new(), &mut pointers);
    let object_at = |at: usize| pointers.get(at % pointers.len().max(1)).cloned();
    match edit {
        Edit::AddUnknown { at, key, value: v } => {
            if let Some(Value::Object(map)) = object_at(*at).and_then(|p| value.pointer_mut(&p)) {
                map.insert(key.clone(), v.clone());
            }
        }
        Edit::Reorder { at, seed } => {
            if let Some(Value::Object(map)) = object_at(*at).and_then(|p| value.pointer_mut(&p)) {
                let mut entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
                if !entries.is_empty() {
                    let n = seed % entries.len();
                    entries.rotate_left(n);
                    if seed % 2 == 1 {
                        entries.reverse();
                    }
                }
                *map = entries.into_iter().collect();
            }
        }
        Edit::Null { at, key } | Edit::LongString { at, key, .. } | Edit::Remove { at, key } => {
            if let Some(Value::Object(map)) = object_at(*at).and_then(|p| value.pointer_mut(&p)) {
                let Some(name) = map.keys().nth(key % map.len().max(1)).cloned() else {
                    return;
                };
                match edit {
                    Edit::Null { .. } => {
                        map.insert(name, Value::Null);
                    }
                    Edit::LongString { text, .. } => {
                        map.insert(name, Value::String(text.clone()));
                    }
                    _ => {
                        map.remove(&name);
                    }
                }
            }
        }
        Edit::EmptyArray { at } => {
            let mut found = Vec::new();
            arrays(value, String::new(), &mut found);
            if let Some(p) = found.get(at % found.len().max(1)).cloned()
                && let Some(Value::Array(items)) = value.pointer_mut(&p)
            {
                items.clear();
            }
        }
    }
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "\\PC{0,16}".prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("\\PC{1,8}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn long_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{100,400}",
        Just("🏦 Sucursal Ñuñoa — مرحبا — 日本語 — e\u{301} ".repeat(12)),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    let at = 0..64usize;
    prop_oneof![
        3 => (at.clone(), "zz_[a-z]{1,6}|zz_\\PC{1,6}", json_value())
            .prop_map(|(at, key, value)| Edit::AddUnknown { at, key, value }),
        2 => (at.clone(), any::<usize>()).prop_map(|(at, seed)| Edit::Reorder { at, seed }),
        1 => (at.clone(), any::<usize>()).prop_map(|(at, key)| Edit::Null { at, key }),
        1 => (at.clone(), any::<usize>(), long_text())
            .prop_map(|(at, key, text)| Edit::LongString { at, key, text }),
        1 => at.clone().prop_map(|at| Edit::EmptyArray { at }),
        1 => (at, any::<usize>()).prop_map(|(at, key)| Edit::Remove { at, key }),
    ]
}

/// Which items a drifted page holds.
#[derive(Debug, Clone)]
enum Picks {
    /// The recorded items, in order.
    Same,
    /// Indices into the recorded items (repeats and reordering allowed; empty: no items).
    Some(Vec<usize>),
}

/// `meta.total_entries` relative to the items returned.
#[derive(Debug, Clone)]
enum Total {
    /// `returned + extra` (0: the page is everything).
    Truth(u64),
    /// `returned - k`: less than was returned (a contradiction, not evidence).
    Below(u64),
    Missing,
    Null,
    /// Mistyped: a string, a float, a negative, a boolean.
    Mistyped(Value),
}

/// Another `meta` field.
#[derive(Debug, Clone)]
enum Field {
    Consistent,
    Missing,
    Null,
    Wrong(Value),
}

#[derive(Debug, Clone)]
enum MetaShape {
    Object,
    Missing,
    Not(Value),
}

#[derive(Debug, Clone)]
enum RootShape {
    Same,
    /// Renamed (the drift rule reads the only array).
    Renamed,
    Missing,
    NotAnArray(Value),
}

#[derive(Debug, Clone)]
struct ListDrift {
    picks: Picks,
    edits: Vec<(usize, Edit)>,
    total: Total,
    per_page: Field,
    current_page: Field,
    total_pages: Field,
    meta: MetaShape,
    root: RootShape,
    extra_root: Vec<(String, Value)>,
    meta_first: bool,
    /// Ask for another page than the scenario did (beyond the end, mostly), where the tool
    /// takes `page` and the list request sends it.
    page: Option<u64>,
    /// For a walk-shaped request (page 1, `per_page=100`): the whole upstream, every page.
    upstream: Upstream,
}

/// How a multi-page upstream answers every page of a walk-shaped request, built from the
/// recorded rows (so every later read of a row is recorded too).
#[derive(Debug, Clone)]
enum Upstream {
    /// Only the drifted page is served (the drift above applies).
    OnePage,
    /// The rows `cap` per page whatever `per_page` asks (the recorded ones, in order), and one
    /// empty page past the end.
    Capped { cap: usize, meta: WalkMeta },
    /// Every page answers the first `cap` rows: an upstream that ignores `page`.
    IgnoresPage { cap: usize, meta: WalkMeta },
}

/// The `meta` each page of a multi-page upstream carries (`n` rows exist).
#[derive(Debug, Clone)]
enum WalkMeta {
    /// `total_entries: n`, `per_page: cap`, `current_page`, `total_pages` as they are.
    Honest,
    /// No `meta` at all (documented Modyo lists without it exist).
    Absent,
    /// Honest, but without `per_page`: the cap is not admitted.
    SilentCap,
    /// `total_entries` says `extra` more rows than exist (and `total_pages` agrees with it).
    MoreThanExist(u64),
    /// `total_pages: 1` whatever, with an honest `total_entries`.
    OnePageOnly,
}

fn upstream() -> impl Strategy<Value = Upstream> {
    let meta = prop_oneof![
        2 => Just(WalkMeta::Honest),
        1 => Just(WalkMeta::Absent),
        1 => Just(WalkMeta::SilentCap),
        1 => (1..50u64).prop_map(WalkMeta::MoreThanExist),
        1 => Just(WalkMeta::OnePageOnly),
    ];
    prop_oneof![
        4 => Just(Upstream::OnePage),
        3 => (1..64usize, meta.clone()).prop_map(|(cap, meta)| Upstream::Capped { cap, meta }),
        1 => (1..64usize, meta).prop_map(|(cap, meta)| Upstream::IgnoresPage { cap, meta }),
    ]
}

fn field() -> impl Strategy<Value = Field> {
    prop_oneof![
        6 => Just(Field::Consistent),
        1 => Just(Field::Missing),
        1 => Just(Field::Null),
        1 => prop_oneof![
            (0..10_000u64).prop_map(Value::from),
            Just(json!("10")),
            Just(json!(-1)),
            Just(json!(2.5)),
        ]
        .prop_map(Field::Wrong),
    ]
}

fn list_drift() -> impl Strategy<Value = ListDrift> {
    let picks = prop_oneof![
        3 => Just(Picks::Same),
        2 => prop::collection::vec(0..200usize, 0..12).prop_map(Picks::Some),
    ];
    let total = prop_oneof![
        6 => prop_oneof![Just(0u64), 0..5u64, 0..100_000u64].prop_map(Total::Truth),
        1 => (1..5u64).prop_map(Total::Below),
        1 => Just(Total::Missing),
        1 => Just(Total::Null),
        1 => prop_oneof![
            Just(json!("314")),
            Just(json!(3.5)),
            Just(json!(-1)),
            Just(json!(true)),
        ]
        .prop_map(Total::Mistyped),
    ];
    let meta = prop_oneof![
        8 => Just(MetaShape::Object),
        1 => Just(MetaShape::Missing),
        1 => prop_oneof![Just(Value::Null), Just(json!([])), Just(json!("meta"))].prop_map(MetaShape::Not),
    ];
    let root = prop_oneof![
        8 => Just(RootShape::Same),
        1 => Just(RootShape::Renamed),
        1 => Just(RootShape::Missing),
        1 => prop_oneof![Just(Value::Null), Just(json!({})), Just(json!("x"))].prop_map(RootShape::NotAnArray),
    ];
    (
        picks,
        prop::collection::vec((0..200usize, edit()), 0..6),
        total,
        (field(), field(), field()),
        meta,
        root,
        prop::collection::vec(("zz_[a-z]{1,6}", json_value()), 0..2),
        any::<bool>(),
        prop_oneof![
            6 => Just(None),
            1 => (2..5u64).prop_map(Some),
            1 => (1_000..100_000u64).prop_map(Some),
        ],
        upstream(),
    )
        .prop_map(
            |(
                picks,
                edits,
                total,
                (per_page, current_page, total_pages),
                meta,
                root,
                extra_root,
                meta_first,
                page,
                upstream,
            )| {
                ListDrift {
                    picks,
                    edits,
                    total,
                    per_page,
                    current_page,
                    total_pages,
                    meta,
                    root,
                    extra_root,
                    meta_first,
                    page,
                    upstream,
                }
            },
        )
}

impl ListDrift {
    /// Only information added: the call must still succeed.
    fn additive(&self) -> bool {
        matches!(self.picks, Picks::Same)
            && self.edits.iter().all(|(_, e)| e.additive())
            && matches!(self.total, Total::Truth(_))
            && [&self.per_page, &self.current_page, &self.total_pages]
                .iter()
                .all(|f| matches!(f, Field::Consistent))
            && matches!(self.meta, MetaShape::Object)
            && matches!(self.root, RootShape::Same)
    }
}

/// What the drifted page says, for the assertions.
#[derive(Debug)]
struct Truth {
    returned: u64,
    /// `total_entries` as sent, when it is a non-negative integer.
    total_sent: Option<u64>,
    /// The true size of the collection, when the API said it consistently.
    total: Option<u64>,
    per_page_sent: Option<u64>,
    page_sent: Option<u64>,
    total_pages_sent: Option<u64>,
    /// The page the tool asked for.
    page_requested: u64,
}

/// The target's list root and the rows it recorded under it.
fn recorded_rows(target: &Target) -> (String, Vec<Value>) {
    let root = target.root.clone().unwrap_or_default();
    let rows = target
        .original
        .get(&root)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    (root, rows)
}

fn build_list(target: &Target, drift: &ListDrift) -> (Value, Truth) {
    let (root, original) = recorded_rows(target);
    let mut items: Vec<Value> = match &drift.picks {
        Picks::Same => original.clone(),
        Picks::Some(indices) if !original.is_empty() => indices
            .iter()
            .map(|i| original[i % original.len()].clone())
            .collect(),
        Picks::Some(_) => Vec::new(),
    };
    for (i, edit) in &drift.edits {
        if items.is_empty() {
            break;
        }
        let n = items.len();
        apply(&mut items[i % n], edit);
    }
    let n = items.len() as u64;
    let per_page = target.per_page.unwrap_or(10);
    let page = requested_page(target, drift.page).unwrap_or(1);
    let total_value = match &drift.total {
        Total::Truth(extra) => Some(Value::from(n + extra)),
        Total::Below(k) => Some(Value::from(n.saturating_sub(*k))),
        Total::Missing => None,
        Total::Null => Some(Value::Null),
        Total::Mistyped(v) => Some(v.clone()),
    };
    let total_sent = total_value.as_ref().and_then(Value::as_u64);
    let consistent_total = match &drift.total {
        Total::Truth(extra) => Some(n + extra),
        _ => None,
    };
    let pages = consistent_total.map_or(1, |t| t.div_ceil(per_page.max(1)));
    let field = |f: &Field, consistent: u64| match f {
        Field::Consistent => Some(Value::from(consistent)),
        Field::Missing => None,
        Field::Null => Some(Value::Null),
        Field::Wrong(v) => Some(v.clone()),
    };
    let mut meta = Map::new();
    if let Some(v) = total_value {
        meta.insert("total_entries".into(), v);
    }
    let per_page_value = field(&drift.per_page, per_page);
    let page_value = field(&drift.current_page, page);
    if let Some(v) = &per_page_value {
        meta.insert("per_page".into(), v.clone());
    }
    if let Some(v) = &page_value {
        meta.insert("current_page".into(), v.clone());
    }
    let total_pages_value = field(&drift.total_pages, pages);
    if let Some(v) = &total_pages_value {
        meta.insert("total_pages".into(), v.clone());
    }
    let meta_value = match &drift.meta {
        MetaShape::Object => Some(Value::Object(meta)),
        MetaShape::Missing => None,
        MetaShape::Not(v) => Some(v.clone()),
    };
    let meta_is_object = matches!(drift.meta, MetaShape::Object);
    let items_value = Value::Array(items);
    let mut body = Map::new();
    let put_items = |body: &mut Map<String, Value>| match &drift.root {
        RootShape::Same => {
            body.insert(root.clone(), items_value.clone());
        }
        RootShape::Renamed => {
            body.insert("zz_renamed".into(), items_value.clone());
        }
        RootShape::Missing => {}
        RootShape::NotAnArray(v) => {
            body.insert(root.clone(), v.clone());
        }
    };
    if drift.meta_first {
        if let Some(m) = &meta_value {
            body.insert("meta".into(), m.clone());
        }
        put_items(&mut body);
    } else {
        put_items(&mut body);
        if let Some(m) = &meta_value {
            body.insert("meta".into(), m.clone());
        }
    }
    for (k, v) in &drift.extra_root {
        body.insert(k.clone(), v.clone());
    }
    // The items the catalogue's drift rule reads: the root, else the only array beside meta.
    let returned = match body.get(&root) {
        Some(Value::Array(items)) => items.len() as u64,
        _ => {
            let arrays: Vec<&Value> = body
                .iter()
                .filter(|(k, v)| *k != "meta" && v.is_array())
                .map(|(_, v)| v)
                .collect();
            match arrays.as_slice() {
                [Value::Array(only)] => only.len() as u64,
                _ => n,
            }
        }
    };
    let truth = Truth {
        returned,
        total_sent: total_sent.filter(|_| meta_is_object),
        total: consistent_total.filter(|_| meta_is_object),
        per_page_sent: per_page_value
            .and_then(|v| v.as_u64())
            .filter(|_| meta_is_object),
        page_sent: page_value
            .and_then(|v| v.as_u64())
            .filter(|_| meta_is_object),
        total_pages_sent: total_pages_value
            .and_then(|v| v.as_u64())
            .filter(|_| meta_is_object),
        page_requested: page,
    };
    (Value::Object(body), truth)
}

#[derive(Debug, Clone)]
struct DetailDrift {
    edits: Vec<Edit>,
    /// Replace the whole body with this non-object.
    not_an_object: Option<Value>,
}

fn detail_drift() -> impl Strategy<Value = DetailDrift> {
    (
        prop::collection::vec(edit(), 0..8),
        prop_oneof![
            12 => Just(None),
            1 => prop_oneof![Just(Value::Null), Just(json!([])), Just(json!("ok")), Just(json!(1))].prop_map(Some),
        ],
    )
        .prop_map(|(edits, not_an_object)| DetailDrift {
            edits,
            not_an_object,
        })
}

// ---------------------------------------------------------------------------------------
// Running

/// Cases per tool in `make test` when `PROPTEST_CASES` is not set. Each tool is its own
/// runner (its cases spread over its targets), so the drift property runs this many cases
/// times the number of tools (over 2,000 in all, at least [`MIN_CASES`] whatever the
/// catalogue): enough for every tool to meet each kind of drift, in well under a minute.
const CI_CASES_PER_TOOL: u32 = 64;

/// The least number of cases the drift property runs in all, in CI.
const MIN_CASES: u32 = 256;

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(CI_CASES_PER_TOOL);
    let rng_seed = match std::env::var("MODYO_PROPTEST_SEED").as_deref() {
        Ok("random") => {
            // Drawn here and printed, so a failure is reproduced with MODYO_PROPTEST_SEED=<n>.
            let seed = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(20_261_129, |d| d.as_nanos() as u64);
            eprintln!("properties: MODYO_PROPTEST_SEED={seed}");
            RngSeed::Fixed(seed)
        }
        Ok(n) => n.parse().map_or(RngSeed::Fixed(20_261_129), RngSeed::Fixed),
        Err(_) => RngSeed::Fixed(20_261_129),
    };
    Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 512,
        rng_seed,
        ..Config::default()
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// The page a case asks for: `page` where the tool takes a `page` argument and its list
/// request sends one, else the scenario's.
fn requested_page(target: &Target, page: Option<u64>) -> Option<u64> {
    overridden_page(target, page).or(target.page)
}

/// `page`, when the case may ask for it (the tool's `page` argument drives the request).
fn overridden_page(target: &Target, page: Option<u64>) -> Option<u64> {
    page.filter(|_| target.page_driven)
}

/// Serves `body` for the target's request (and its other responses), calls the tool.
async fn call(
    session: &Session,
    target: &Target,
    page: Option<u64>,
    body: Value,
) -> Result<CallToolResult, TestCaseError> {
    let mut key = target.key.clone();
    let mut arguments = target.arguments.clone();
    if let Some(page) = overridden_page(target, page) {
        key.query.insert("page", QueryValue::One(page.to_string()));
        arguments["page"] = json!(page);
    }
    call_with(
        session,
        target,
        arguments,
        vec![key.respond_with(RecordedResponse::json(200, body))],
    )
    .await
}

/// Serves `pages` (`(page, body)`) for the target's request with its `page` set to each, and
/// its other responses, then calls the tool with the scenario's arguments.
async fn call_pages(
    session: &Session,
    target: &Target,
    pages: Vec<(u64, Value)>,
) -> Result<CallToolResult, TestCaseError> {
    let interactions = pages
        .into_iter()
        .map(|(page, body)| {
            let mut key = target.key.clone();
            key.query.insert("page", QueryValue::One(page.to_string()));
            key.respond_with(RecordedResponse::json(200, body))
        })
        .collect();
    call_with(session, target, target.arguments.clone(), interactions).await
}

async fn call_with(
    session: &Session,
    target: &Target,
    arguments: Value,
    drifted: Vec<modyo_replay::Interaction>,
) -> Result<CallToolResult, TestCaseError> {
    let replay = session.replay();
    replay.reset().await;
    let drifted = Cassette::new(
        "properties/drift",
        Provenance::synthetic("2026-11-29", "a drifted response"),
    )
    .interactions(drifted);
    replay
        .mount(&[drifted, target.rest.clone()])
        .await
        .map_err(|e| TestCaseError::fail(format!("mount: {e}")))?;
    session
        .call(&target.tool.name, arguments)
        .await
        .map_err(|e| {
            TestCaseError::fail(format!(
                "JSON-RPC error (a panic, or output that breaks the tool's schema): {e}"
            ))
        })
}

/// The assertions every result must pass, whatever the drift.
fn keeps_the_contract(target: &Target, result: &CallToolResult) -> Result<(), TestCaseError> {
    let problems = check::problems(&target.tool, result);
    prop_assert!(problems.is_empty(), "{problems:?}: {}", short(result));
    if check::kind(result) == Kind::Error {
        let error = check::error(result).unwrap_or_default();
        prop_assert!(error["code"].is_string(), "{error}");
        return Ok(());
    }
    // C12: data never disagrees with resource.
    let mut lint = Lint::new(vec![target.tool.clone()], Lists::default());
    lint.result(&target.tool, result, "drift");
    let c12: Vec<_> = lint
        .finish()
        .violations
        .into_iter()
        .filter(|v| v.rule == Rule::C12)
        .collect();
    prop_assert!(c12.is_empty(), "{c12:?}");
    Ok(())
}

fn coverage_is_true(
    target: &Target,
    result: &CallToolResult,
    truth: &Truth,
) -> Result<(), TestCaseError> {
    if !target.coverage_source || check::kind(result) != Kind::Success {
        return Ok(());
    }
    let Some(state) = result
        .structured_content
        .as_ref()
        .and_then(|s| s.get("state"))
        .filter(|s| s.get("returned").is_some())
    else {
        return Ok(());
    };
    let exhausted = target
        .per_page
        .is_some_and(|p| truth.returned < p && truth.page_requested == 1);
    if !target.echoes_page {
        // A find, search or filter over the list: what it kept is its own business, but a
        // `complete: true` needs the list read to its end with every piece of evidence
        // agreeing (C6): `total_entries` equal to the rows, the last page by `meta` when it
        // gives pages, and without either a page shorter than a `per_page` the API admitted
        // (a short page alone may be a silent cap) or no rows at all.
        if state.get("complete") == Some(&Value::Bool(true)) {
            let total_agrees = truth.total_sent.is_none_or(|t| t == truth.returned);
            let pages_agree = truth
                .page_sent
                .zip(truth.total_pages_sent)
                .is_none_or(|(page, pages)| page >= pages);
            let end_proven = truth.total_sent.is_some()
                || truth.total_pages_sent.is_some()
                || truth.returned == 0
                || truth.per_page_sent.is_some_and(|p| truth.returned < p);
            prop_assert!(
                (exhausted || truth.total_sent.is_some() || truth.total_pages_sent.is_some())
                    && total_agrees
                    && pages_agree
                    && end_proven,
                "complete: true against the evidence: {state} (truth {truth:?})"
            );
        }
        // `searched` counts the tool's own corpus (templates, steps, rules...), which need not
        // be this list: nothing to compare it with here.
        return Ok(());
    }
    let returned = state["returned"].as_u64();
    prop_assert_eq!(returned, Some(truth.returned), "state.returned: {}", state);
    // One page is the whole collection only when all of `meta` agrees: page 1 asked and
    // answered, `total_pages` at most 1. Rows equal to `total_entries` on a page that says
    // otherwise are two claims at once: `complete` is left out.
    let one_page = truth.page_requested == 1
        && truth.page_sent.is_none_or(|p| p == truth.page_requested)
        && truth.total_pages_sent.is_none_or(|p| p <= 1);
    if let Some(complete) = state.get("complete").and_then(Value::as_bool) {
        prop_assert!(
            !complete || one_page || exhausted,
            "complete: true on a page whose meta says otherwise: {state} (truth {truth:?})"
        );
        let by_total = truth
            .total_sent
            .filter(|t| *t >= truth.returned)
            .map(|t| t == truth.returned);
        let by_walk = exhausted && truth.total_sent.is_none_or(|t| t == truth.returned);
        prop_assert!(
            by_total == Some(complete) || (by_walk && complete),
            "complete: {complete} without evidence or against it: {state} (truth {truth:?})"
        );
        prop_assert!(
            !complete || by_walk || one_page,
            "complete: true on a page meta does not call the only one: {state} (truth {truth:?})"
        );
        if let Some(t) = truth.total {
            prop_assert_eq!(
                complete,
                t == truth.returned,
                "complete against the truth: {}",
                state
            );
        }
    } else {
        prop_assert!(
            truth.total_sent.is_none_or(|t| t < truth.returned)
                || state.get("total").is_none()
                || (truth.total_sent == Some(truth.returned) && !one_page),
            "evidence ({truth:?}) but no complete: {state}"
        );
    }
    if let Some(total) = state.get("total") {
        prop_assert!(
            total.as_u64() == truth.total_sent
                || (exhausted && total.as_u64() == Some(truth.returned)),
            "state.total {total} is not what the API said ({truth:?})"
        );
    }
    if let Some(page) = state.get("page") {
        prop_assert_eq!(page.as_u64(), truth.page_sent, "state.page");
    }
    if let Some(per_page) = state.get("per_page") {
        prop_assert_eq!(per_page.as_u64(), truth.per_page_sent, "state.per_page");
    }
    Ok(())
}

/// The pilot tools and forms the properties must cover, at least.
fn pilot_forms_are_targets(targets: &[Target]) {
    let lists: BTreeSet<(String, Vec<String>)> = targets
        .iter()
        .filter(|t| t.root.is_some() && t.coverage_source)
        .map(|t| {
            let mut names: Vec<String> = t
                .arguments
                .as_object()
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default();
            names.sort();
            (t.tool.name.to_string(), names)
        })
        .collect();
    let has = |tool: &str, arg: Option<&str>| {
        lists
            .iter()
            .any(|(t, names)| t == tool && arg.is_none_or(|a| names.iter().any(|n| n == a)))
    };
    assert!(has("content-spaces-list", None), "{lists:?}");
    assert!(has("content-entries-list", Some("fields")), "{lists:?}");
    assert!(
        has("content-entries-list", Some("includeDetails")),
        "{lists:?}"
    );
    assert!(
        lists.iter().any(|(t, names)| t == "content-entries-list"
            && !names.iter().any(|n| n == "fields" || n == "includeDetails")),
        "{lists:?}"
    );
    assert!(
        targets.iter().any(|t| t.tool.name == "content-spaces-get"),
        "content-spaces-get is a target"
    );
    for tool in ["content-spaces-list", "content-entries-list"] {
        assert!(
            targets.iter().any(|t| t.tool.name == tool && t.page_driven),
            "{tool} is asked for pages beyond the end"
        );
    }
    let walker = "channels-templates-search";
    assert!(
        targets
            .iter()
            .any(|t| t.tool.name == walker && t.coverage_source && walk_shaped(t)),
        "{walker} meets whole upstreams (capped, contradicting, ignoring page)"
    );
    assert!(
        !targets.iter().any(|t| t.page_driven && !t.coverage_source),
        "only the list a tool reports on follows its page argument"
    );
}

/// The most pages a walk reads (the server's `MAX_WALK_PAGES`): an upstream is mounted up to
/// there, so the walk never meets a miss inside it.
const WALK_PAGES: u64 = 50;

/// Whether the target's request has the shape of a page walk: page 1 with `per_page=100`,
/// not set by the tool's own `page` argument.
fn walk_shaped(target: &Target) -> bool {
    target.root.is_some()
        && target.per_page == Some(100)
        && target.page == Some(1)
        && !target.page_driven
}

/// What a multi-page upstream holds, for the walk oracle.
#[derive(Debug)]
struct WalkTruth {
    /// The rows that exist.
    rows: u64,
    /// Whether a walk can read every one of them (the pages reach them, within the page limit).
    reachable: bool,
    /// The pages that hold them: a walk that read fewer has not seen them all.
    needed: u64,
    /// `total_entries` as every page sends it.
    total_sent: Option<u64>,
}

/// Every page of a multi-page upstream (the recorded rows `cap` per page), and the truth.
fn build_walk(
    target: &Target,
    cap: usize,
    ignores_page: bool,
    meta: &WalkMeta,
) -> (Vec<(u64, Value)>, WalkTruth) {
    let (root, rows) = recorded_rows(target);
    let n = rows.len();
    let needed = n.div_ceil(cap) as u64;
    let total = match meta {
        WalkMeta::MoreThanExist(extra) => n as u64 + extra,
        _ => n as u64,
    };
    let total_pages = match meta {
        WalkMeta::OnePageOnly => 1,
        _ => total.div_ceil(cap as u64),
    };
    let mounted = if ignores_page {
        WALK_PAGES
    } else {
        (needed + 1).min(WALK_PAGES)
    };
    let pages = (1..=mounted)
        .map(|page| {
            let start = if ignores_page {
                0
            } else {
                ((page - 1) as usize * cap).min(n)
            };
            let end = (start + cap).min(n);
            let mut body = Map::new();
            body.insert(root.clone(), Value::Array(rows[start..end].to_vec()));
            let mut m = Map::new();
            m.insert("total_entries".into(), json!(total));
            m.insert("per_page".into(), json!(cap));
            m.insert("current_page".into(), json!(page));
            m.insert("total_pages".into(), json!(total_pages));
            match meta {
                WalkMeta::Absent => {}
                WalkMeta::SilentCap => {
                    m.remove("per_page");
                    body.insert("meta".into(), Value::Object(m));
                }
                _ => {
                    body.insert("meta".into(), Value::Object(m));
                }
            }
            (page, Value::Object(body))
        })
        .collect();
    let truth = WalkTruth {
        rows: n as u64,
        reachable: if ignores_page {
            n <= cap
        } else {
            needed < WALK_PAGES
        },
        needed: if ignores_page { 1 } else { needed },
        total_sent: (!matches!(meta, WalkMeta::Absent)).then_some(total),
    };
    (pages, truth)
}

/// C6 over a whole upstream: `complete: true` only when every row could be read, the call
/// read every page that holds one, and `total_entries`, when sent, is the number of rows that
/// exist.
fn walk_is_true(
    session: &Session,
    target: &Target,
    result: &CallToolResult,
    truth: &WalkTruth,
) -> Result<(), TestCaseError> {
    if !target.coverage_source || check::kind(result) != Kind::Success {
        return Ok(());
    }
    let state = result
        .structured_content
        .as_ref()
        .map_or(&Value::Null, |s| &s["state"]);
    if state.get("complete") == Some(&Value::Bool(true)) {
        let read: BTreeSet<u64> = session
            .replay()
            .received()
            .iter()
            .filter(|r| r.path == target.key.path)
            .filter_map(|r| r.query.iter().find(|(k, _)| k == "page")?.1.parse().ok())
            .collect();
        prop_assert!(
            truth.reachable
                && truth.total_sent.is_none_or(|t| t == truth.rows)
                && (1..=truth.needed).all(|p| read.contains(&p)),
            "complete: true against the upstream: {state} after reading pages {read:?} (truth {truth:?})"
        );
    }
    Ok(())
}

/// Whether the call asked for a page of the target's list that this case does not serve. A
/// walk reads on while `total_entries` promises more rows than it saw (C6, whatever the page
/// sizes), so a drifted page that promises more sends it to a page that only a whole upstream
/// serves (`walk_is_true` holds walks over those); the miss is an upstream error, which
/// additive drift cannot promise against. Only then: a page that promises nothing more must
/// not send a walk on.
fn asked_an_unserved_page(session: &Session, target: &Target) -> bool {
    session.replay().received().iter().any(|r| {
        !r.replayed && r.path == target.key.path && r.query.iter().any(|(k, _)| k == "page")
    })
}

/// A generated case: which of the tool's targets, and the drift for it.
type Case = (usize, ListDrift, DetailDrift);

/// One case against one target; `Err` fails the property.
fn check_case(
    rt: &tokio::runtime::Runtime,
    session: &Session,
    target: &Target,
    list: &ListDrift,
    detail: &DetailDrift,
) -> Result<(), TestCaseError> {
    if walk_shaped(target) {
        let walk = match &list.upstream {
            Upstream::OnePage => None,
            Upstream::Capped { cap, meta } => Some(build_walk(target, *cap, false, meta)),
            Upstream::IgnoresPage { cap, meta } => Some(build_walk(target, *cap, true, meta)),
        };
        if let Some((pages, truth)) = walk {
            let result = rt.block_on(call_pages(session, target, pages))?;
            keeps_the_contract(target, &result)?;
            return walk_is_true(session, target, &result, &truth);
        }
    }
    if target.root.is_some() {
        let (body, truth) = build_list(target, list);
        let result = rt.block_on(call(session, target, list.page, body))?;
        keeps_the_contract(target, &result)?;
        coverage_is_true(target, &result, &truth)?;
        let promised_more = matches!(list.total, Total::Truth(extra) if extra > 0);
        if list.additive() && !(promised_more && asked_an_unserved_page(session, target)) {
            prop_assert_eq!(
                check::kind(&result),
                Kind::Success,
                "additive drift broke the call: {}",
                short(&result)
            );
        }
        return Ok(());
    }
    let mut body = target.original.clone();
    for edit in &detail.edits {
        apply(&mut body, edit);
    }
    if let Some(v) = &detail.not_an_object {
        body = v.clone();
    }
    let result = rt.block_on(call(session, target, None, body))?;
    keeps_the_contract(target, &result)?;
    if detail.not_an_object.is_some() {
        prop_assert_eq!(
            check::kind(&result),
            Kind::Error,
            "a non-object body was accepted: {}",
            short(&result)
        );
    } else if detail.edits.iter().all(Edit::additive) {
        prop_assert_eq!(
            check::kind(&result),
            Kind::Success,
            "additive drift broke the call: {}",
            short(&result)
        );
    }
    Ok(())
}

#[test]
fn drifted_responses_keep_the_contract_and_never_claim_completeness_without_evidence() {
    let rt = runtime();
    let library = crate::util::library();
    // `MODYO_PROPTEST_TOOL=<part of a name>` runs only the matching tools (to reproduce).
    let only = std::env::var("MODYO_PROPTEST_TOOL").unwrap_or_default();
    let targets = rt
        .block_on(targets(library, &only))
        .expect("targets are discovered");
    if only.is_empty() {
        pilot_forms_are_targets(&targets);
    }
    // One property per tool (and environment): its cases spread over the tool's targets.
    let mut groups: Vec<Vec<&Target>> = Vec::new();
    for target in &targets {
        match groups
            .iter_mut()
            .find(|g| g[0].tool.name == target.tool.name && g[0].env == target.env)
        {
            Some(group) => group.push(target),
            None => groups.push(vec![target]),
        }
    }
    let config = config();
    let started = Instant::now();
    let mut failures = Vec::new();
    for group in &groups {
        let tool_started = Instant::now();
        let session = rt
            .block_on(Session::start_with(
                &[],
                &group[0].env,
                ReplayOptions::default().allow_repeats(true),
            ))
            .expect("a session");
        let strategy = (0..group.len(), list_drift(), detail_drift());
        let mut runner = TestRunner::new(config.clone());
        let outcome = runner.run(&strategy, |(i, list, detail): Case| {
            check_case(&rt, &session, group[i], &list, &detail)
                .map_err(|e| TestCaseError::fail(format!("{}: {e}", group[i].label)))
        });
        if let Err(e) = outcome {
            failures.push(format!("{}: {e}", group[0].tool.name));
        }
        rt.block_on(session.close());
        eprintln!(
            "properties: {} x {} cases over {} target(s) in {:.1} s",
            group[0].tool.name,
            config.cases,
            group.len(),
            tool_started.elapsed().as_secs_f64()
        );
        for t in group {
            eprintln!("    {}", t.label);
        }
    }
    eprintln!(
        "properties: {} tools, {} targets, {} cases each, {:.1} s",
        groups.len(),
        targets.len(),
        config.cases,
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let total = groups.len() as u64 * u64::from(config.cases);
    assert!(
        !only.is_empty() || total >= u64::from(MIN_CASES),
        "the drift property ran {total} cases in all, fewer than {MIN_CASES}"
    );
}

/// The drift that changes nothing: the recorded page, its `meta` consistent.
fn unchanged() -> ListDrift {
    ListDrift {
        picks: Picks::Same,
        edits: Vec::new(),
        total: Total::Truth(0),
        per_page: Field::Consistent,
        current_page: Field::Consistent,
        total_pages: Field::Consistent,
        meta: MetaShape::Object,
        root: RootShape::Same,
        extra_root: Vec::new(),
        meta_first: false,
        page: None,
        upstream: Upstream::OnePage,
    }
}

/// Regression (the minimized case of the long run, seen once channels landed): a tool that
/// finds, searches or filters over a list it walks (`channels-templates-search`,
/// `channels-preview`; `channels-templates-find` walked too until it looked names up in the
/// per-type lists, which are not paged) reports what it kept as `returned` (and
/// what it looked at as `searched`), not the size of the page it read. The property took
/// every list a tool reports on for its answer and failed on the unchanged page
/// (`returned: 1` against the 10 templates read). Such tools are now told apart by their
/// baseline, and only `complete` is checked for them; tools that answer with
/// the page keep the exact checks.
#[test]
fn tools_that_derive_from_a_list_are_not_held_to_its_size() {
    let rt = runtime();
    let library = crate::util::library();
    let targets = rt
        .block_on(targets(library, "channels-"))
        .expect("targets are discovered");
    // channels-preview derived its answer from the versions walk too, until it was refused
    // before any request (issue 33).
    let derived = ["channels-templates-search"];
    let mut checked = BTreeSet::new();
    for target in targets.iter().filter(|t| t.coverage_source) {
        let name = target.tool.name.to_string();
        if derived.contains(&name.as_str()) {
            assert!(!target.echoes_page, "{} derives its answer", target.label);
        } else if name == "channels-templates-manage" && target.arguments["action"] == "list" {
            // The list action answers with the page itself: the exact checks still apply.
            assert!(target.echoes_page, "{} echoes the page", target.label);
        } else {
            continue;
        }
        let session = rt
            .block_on(Session::start_with(
                &[],
                &target.env,
                ReplayOptions::default().allow_repeats(true),
            ))
            .expect("a session");
        check_case(&rt, &session, target, &unchanged(), &detail_unchanged())
            .unwrap_or_else(|e| panic!("{}: {e}", target.label));
        rt.block_on(session.close());
        checked.insert(name);
    }
    for tool in derived.iter().chain(&["channels-templates-manage"]) {
        assert!(
            checked.contains(*tool),
            "{tool} has a list target: {checked:?}"
        );
    }
}

fn detail_unchanged() -> DetailDrift {
    DetailDrift {
        edits: Vec::new(),
        not_an_object: None,
    }
}

/// Regression (issue 16): an upstream that caps `per_page` at one row, admits it in `meta`, and
/// one that ignores `page`, through every walk-shaped list any tool reports on. Before the walk
/// consulted `total_entries`, one short page ended it and the answer said `complete: true`
/// after one row; an upstream ignoring `page` was read 50 times.
#[test]
fn every_walking_tool_meets_a_capped_and_a_page_ignoring_upstream() {
    let rt = runtime();
    let library = Library::workspace().expect("the cassettes load");
    let targets = rt
        .block_on(targets(&library, ""))
        .expect("targets are discovered");
    let mut checked = BTreeSet::new();
    for target in targets
        .iter()
        .filter(|t| t.coverage_source && walk_shaped(t))
    {
        let session = rt
            .block_on(Session::start_with(
                &[],
                &target.env,
                ReplayOptions::default().allow_repeats(true),
            ))
            .expect("a session");
        for upstream in [
            Upstream::Capped {
                cap: 1,
                meta: WalkMeta::Honest,
            },
            Upstream::Capped {
                cap: 2,
                meta: WalkMeta::OnePageOnly,
            },
            Upstream::IgnoresPage {
                cap: 1,
                meta: WalkMeta::Absent,
            },
        ] {
            let drift = ListDrift {
                upstream,
                ..unchanged()
            };
            check_case(&rt, &session, target, &drift, &detail_unchanged())
                .unwrap_or_else(|e| panic!("{}: {e}", target.label));
        }
        rt.block_on(session.close());
        checked.insert(target.tool.name.to_string());
    }
    let walker = "channels-templates-search";
    assert!(checked.contains(walker), "{walker} walks: {checked:?}");
}
