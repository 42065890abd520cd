//! Projection (C14, M4): `content-entries-list` with `fields` against the N+1 path it
//! replaces (the legacy list, minimal, plus one legacy `content-entries-get` per entry), on the
//! pilot cassettes (the Sucursales space, 314 entries of 31 fields): 10 entries, 100 entries,
//! and every entry (all pages at per_page 100).
//!
//! The N+1 path takes the entry ids from the legacy list's own text, as an agent would. Both
//! paths count the HTTP requests the replay server received. The legacy half also measures
//! the figures the fixture was calibrated against (issue 2), so the calibration is a measured
//! number in the report, not an assertion about the generator.

use serde_json::{Value, json};

use super::{Lab, MeasureError, text_count};
use crate::fixtures::pilot::{PAGES_10, PAGES_100, projected_fields};
use crate::fixtures::sucursales::SPACE_ID;
use crate::probe::Probe;
use crate::report::{Calibration, Fields, NPlusOne, Projection, ProjectionCase};
use crate::session::Library;
use crate::tokens::{Count, Delta, round1};

const LIST: &str = "content-entries-list";
const GET: &str = "content-entries-get";

/// The legacy figures of the field case (issue 2), in tokens at 2.902 characters per token:
/// minimal list at 10 and 100, includeDetails at 10, and the list plus 10 gets.
const FIELD_CASE: [f64; 4] = [804.0, 7_883.0, 4_724.0, 53_094.0];

/// The three sizes: page size, and whether every page is read.
const CASES: [(u64, bool); 3] = [(10, false), (100, false), (100, true)];

/// Whether the pilot cassettes are there.
pub(super) fn available(library: &Library) -> bool {
    library.get(PAGES_10).is_some() && library.get(PAGES_100).is_some()
}

fn pages_cassette(per_page: u64) -> &'static str {
    if per_page == 10 { PAGES_10 } else { PAGES_100 }
}

fn space() -> String {
    SPACE_ID.to_string()
}

/// The legacy half.
pub(super) struct Before {
    cases: Vec<BeforeCase>,
    details_10: Count,
}

pub(super) struct BeforeCase {
    per_page: u64,
    pages: u64,
    entries: u64,
    calls: u64,
    http_requests: usize,
    list: Count,
    gets: Count,
}

pub(super) struct AfterCase {
    pages: u64,
    entries: u64,
    calls: u64,
    http_requests: usize,
    text: Count,
    structured: Count,
}

fn is_error(result: &Value) -> bool {
    result.get("isError") == Some(&Value::Bool(true))
}

/// Runs the N+1 path for every case, and the includeDetails call, in a legacy process.
pub(super) async fn before(lab: &mut Lab<'_>, probe: &mut Probe) -> Result<Before, MeasureError> {
    let mut cases = Vec::new();
    for (per_page, all) in CASES {
        let cassette = pages_cassette(per_page);
        lab.replay.reset().await;
        lab.replay.mount(&lab.library.mount_set(cassette)?).await?;
        let mut case = BeforeCase {
            per_page,
            pages: 0,
            entries: 0,
            calls: 0,
            http_requests: 0,
            list: Count::default(),
            gets: Count::default(),
        };
        let mut page = 1;
        loop {
            let label = format!("projection before per_page={per_page} page={page}");
            let args = json!({"space": space(), "per_page": per_page, "page": page});
            let probed = lab.call(probe, &label, None, LIST, &args).await?;
            let Ok(result) = probed.response.result else {
                break;
            };
            case.calls += 1;
            case.pages += 1;
            case.http_requests += probed.http_requests;
            case.list += text_count(&result);
            let payload: Value = super::texts(&result)
                .first()
                .and_then(|t| serde_json::from_str(t).ok())
                .unwrap_or(Value::Null);
            let ids: Vec<String> = payload
                .get("entries")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|e| {
                    e.get("id")
                        .map(|id| id.to_string().trim_matches('"').to_owned())
                })
                .collect();
            if is_error(&result) || ids.is_empty() {
                lab.failures
                    .push(format!("{label}: the legacy list returned no entries"));
                break;
            }
            for id in &ids {
                let label = format!("projection before: {GET} {id}");
                let args = json!({"space": space(), "entry": id});
                let probed = lab.call(probe, &label, None, GET, &args).await?;
                case.calls += 1;
                case.http_requests += probed.http_requests;
                if let Ok(result) = probed.response.result {
                    if is_error(&result) {
                        lab.failures.push(format!("{label}: isError"));
                    }
                    case.gets += text_count(&result);
                }
            }
            case.entries += ids.len() as u64;
            let total_pages = payload
                .pointer("/meta/total_pages")
                .and_then(Value::as_u64)
                .unwrap_or(page);
            if !all || page >= total_pages {
                break;
            }
            page += 1;
        }
        cases.push(case);
    }
    lab.replay.reset().await;
    lab.replay.mount(&lab.library.mount_set(PAGES_10)?).await?;
    let args = json!({"space": space(), "per_page": 10, "includeDetails": true});
    let probed = lab
        .call(
            probe,
            "projection before: includeDetails",
            None,
            LIST,
            &args,
        )
        .await?;
    let details_10 = probed
        .response
        .result
        .map(|r| text_count(&r))
        .unwrap_or_default();
    Ok(Before { cases, details_10 })
}

/// Runs the `fields` path for every case in a migrated process.
pub(super) async fn after(
    lab: &mut Lab<'_>,
    probe: &mut Probe,
) -> Result<Vec<AfterCase>, MeasureError> {
    let mut cases = Vec::new();
    for (per_page, all) in CASES {
        lab.replay.reset().await;
        lab.replay
            .mount(&lab.library.mount_set(pages_cassette(per_page))?)
            .await?;
        let mut case = AfterCase {
            pages: 0,
            entries: 0,
            calls: 0,
            http_requests: 0,
            text: Count::default(),
            structured: Count::default(),
        };
        let mut page = 1;
        loop {
            let label = format!("projection after per_page={per_page} page={page}");
            let args = json!({"space": space(), "per_page": per_page, "page": page, "fields": projected_fields()});
            let probed = lab.call(probe, &label, None, LIST, &args).await?;
            let Ok(result) = probed.response.result else {
                break;
            };
            case.calls += 1;
            case.pages += 1;
            case.http_requests += probed.http_requests;
            case.text += text_count(&result);
            let structured = result.get("structuredContent");
            case.structured += structured
                .map(|s| Count::of(&super::compact(s)))
                .unwrap_or_default();
            let returned = structured
                .and_then(|s| s.pointer("/state/returned"))
                .and_then(Value::as_u64)
                .unwrap_or(0);
            let total = structured
                .and_then(|s| s.pointer("/state/total"))
                .and_then(Value::as_u64)
                .unwrap_or(0);
            if is_error(&result) || returned == 0 {
                lab.failures
                    .push(format!("{label}: the fields list returned no entries"));
                break;
            }
            case.entries += returned;
            if !all || case.entries >= total {
                break;
            }
            page += 1;
        }
        cases.push(case);
    }
    Ok(cases)
}

/// The report section from both halves.
pub(super) fn report(before: Before, after: Vec<AfterCase>) -> Projection {
    let cases: Vec<ProjectionCase> = before
        .cases
        .iter()
        .zip(&after)
        .enumerate()
        .map(|(i, (b, a))| {
            let text = b.list + b.gets;
            let both = a.text + a.structured;
            ProjectionCase {
                case: if CASES[i].1 {
                    format!("all {} entries", b.entries)
                } else {
                    format!("{} entries", b.entries)
                },
                entries: b.entries,
                per_page: b.per_page,
                pages: b.pages.max(a.pages),
                before: NPlusOne {
                    calls: b.calls,
                    http_requests: b.http_requests,
                    list: b.list.tokens_all(),
                    gets: b.gets.tokens_all(),
                    text: text.tokens_all(),
                    per_entry: text.per(b.entries),
                },
                after: Fields {
                    calls: a.calls,
                    http_requests: a.http_requests,
                    text: a.text.tokens_all(),
                    structured: a.structured.tokens_all(),
                    both: both.tokens_all(),
                    per_entry: a.text.per(a.entries),
                },
                delta_text: Delta::between(text, a.text),
                delta_both: Delta::between(text, both),
            }
        })
        .collect();
    let measured = |i: usize| -> Count {
        match i {
            0 => before.cases.first().map(|c| c.list).unwrap_or_default(),
            1 => before.cases.get(1).map(|c| c.list).unwrap_or_default(),
            2 => before.details_10,
            _ => before
                .cases
                .first()
                .map(|c| c.list + c.gets)
                .unwrap_or_default(),
        }
    };
    let figures = [
        "content-entries-list minimal, per_page=10 (legacy text)",
        "content-entries-list minimal, per_page=100 (legacy text)",
        "content-entries-list includeDetails, per_page=10 (legacy text)",
        "content-entries-list per_page=10 + 10 content-entries-get (legacy text)",
    ];
    let calibration = figures
        .iter()
        .enumerate()
        .map(|(i, figure)| {
            let m = measured(i);
            Calibration {
                figure: (*figure).to_owned(),
                measured: m.tokens_all(),
                field_case: FIELD_CASE[i],
                off_percent: round1((m.tokens() - FIELD_CASE[i]) * 100.0 / FIELD_CASE[i]),
            }
        })
        .collect();
    Projection {
        tool: LIST,
        get_tool: GET,
        space: space(),
        fields: projected_fields(),
        cases,
        calibration,
    }
}
