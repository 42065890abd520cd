//! The live answers of a suite run held, endpoint by endpoint, to ours (the synthetic cassettes)
//! and to the API surface (`harness/spec/`).
//!
//! Every interaction, ours and live, is put on its endpoint by the spec check's judge
//! ([`Surfaces::judge`]) with every `undocumented` mark of our cassettes, so both sides name an
//! endpoint the same way (`GET /api/admin/content/spaces/{space_id}`). Ours are the cassettes
//! not tagged `fault` (faults answer wrongly on purpose).
//!
//! **Against ours**, structure only, as `record --diff` compares ([`super::super::drift`]):
//! each live `2xx` answer is compared with the answer of ours on the same endpoint most like
//! it: the one with the most JSON paths in common, then the one it differs from least (ours
//! record several cases of one endpoint, an empty list among them, which says nothing about
//! items; the live answer is held to the one that explains it best), and the endpoint reports every difference left. An endpoint that
//! never answered `2xx` live is judged by its statuses: `404`/`405`/`410` where ours answer
//! `2xx` is a missing endpoint; another `4xx` (not `401`/`403`) where ours answer `2xx` is our
//! request refused; `401`/`403` say the token may not read it; `5xx`/`429` that the account was
//! unavailable.
//!
//! **Against the surface**, each live answer is judged as `cassettes check` judges ours: its
//! status declared, its body's types as declared (keys the specification does not list are
//! counted apart). A finding ours share on that endpoint is marked so; one they do not is a
//! contradiction of ours, since ours agree with the specification there and the account does
//! not. (Findings about our requests, parameters and bodies, are `cassettes check`'s.)
//!
//! Nothing here carries a value: endpoints are templates (an unknown path keeps only its
//! lower-case literal segments), JSON paths are keys (a key that looks like a value, a number,
//! a UUID or free text, becomes `{id}` or `{key}`), findings carry types and statuses.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::super::drift::{Difference, common_paths};
use super::super::proxy::shape_drift;
use modyo_replay::cassette::{Cassette, Interaction, RecordedResponse, ResponseBody, Undocumented};
use modyo_spec::Surfaces;
use modyo_spec::conform::{Class, Judgement, Kind, WarningKind};

/// Our cassettes on their endpoints, and the surfaces.
#[derive(Debug)]
pub struct Ours {
    surfaces: Surfaces,
    marks: Vec<Undocumented>,
    endpoints: BTreeMap<String, OurEndpoint>,
}

#[derive(Debug, Default)]
struct OurEndpoint {
    responses: Vec<RecordedResponse>,
    statuses: BTreeMap<u16, usize>,
    findings: BTreeSet<(Kind, String)>,
}

impl Ours {
    /// Indexes `cassettes` (those tagged `fault` are left out) by endpoint.
    pub fn new(cassettes: &[Cassette], surfaces: Surfaces) -> Ours {
        let ours: Vec<&Cassette> = cassettes.iter().filter(|c| !c.has_tag("fault")).collect();
        let mut marks: Vec<Undocumented> = Vec::new();
        for mark in ours.iter().flat_map(|c| &c.undocumented) {
            if !marks
                .iter()
                .any(|m| m.method == mark.method && m.path == mark.path)
            {
                marks.push(mark.clone());
            }
        }
        let mut index = Ours {
            surfaces,
            marks,
            endpoints: BTreeMap::new(),
        };
        for interaction in ours.iter().flat_map(|c| &c.interactions) {
            let judgement = index.judge(interaction);
            let endpoint = index
                .endpoints
                .entry(endpoint_name(&judgement))
                .or_default();
            endpoint.responses.push(interaction.response.clone());
            *endpoint
                .statuses
                .entry(interaction.response.status)
                .or_default() += 1;
            endpoint.findings.extend(
                response_findings(&judgement)
                    .into_iter()
                    .map(|f| (f.kind, f.subject)),
            );
        }
        index
    }

    fn judge(&self, interaction: &Interaction) -> Judgement {
        self.surfaces.judge(interaction, &self.marks, false)
    }
}

/// How an endpoint's live answers stand against ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every live answer has the structure of one of ours.
    Same,
    /// Keys added, removed or of another type (or another status) than every answer of ours.
    Differs,
    /// Ours answer `2xx`; the account answered `404`, `405` or `410` every time.
    Missing,
    /// Ours answer `2xx`; the account refused the request (another `4xx`).
    Refused,
    /// The account answered `401` or `403`: the token may not read it (nothing compared).
    NotPermitted,
    /// The account answered `5xx` or `429` (nothing compared).
    Unavailable,
    /// Ours never call this endpoint, or never with a `2xx` (nothing to compare with).
    NotInOurs,
}

impl Verdict {
    /// Whether the live answers contradict ours.
    pub fn contradicts(self) -> bool {
        matches!(self, Verdict::Differs | Verdict::Missing | Verdict::Refused)
    }

    /// For people.
    pub fn describe(self) -> &'static str {
        match self {
            Verdict::Same => "same structure",
            Verdict::Differs => "differs",
            Verdict::Missing => "missing live",
            Verdict::Refused => "refused live",
            Verdict::NotPermitted => "not permitted (401/403)",
            Verdict::Unavailable => "unavailable (5xx/429)",
            Verdict::NotInOurs => "no answer of ours to compare",
        }
    }
}

/// A live answer found at odds with the API surface.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct SpecFinding {
    /// `status` or `response_type`.
    pub kind: Kind,
    /// The status, or the JSON path.
    pub subject: String,
    /// What the specification declares.
    pub detail: String,
    /// Whether ours have the same finding on this endpoint.
    pub ours_too: bool,
}

/// One endpoint's live answers against ours and against the surface.
#[derive(Debug, Clone, Serialize)]
pub struct EndpointReport {
    /// `GET /api/admin/content/spaces/{space_id}`.
    pub endpoint: String,
    /// `documented`, `undocumented` (marked in ours) or `unknown`.
    pub standing: &'static str,
    /// The tools whose calls reached it.
    pub tools: BTreeSet<String>,
    /// Live answers, by status.
    pub live: BTreeMap<u16, usize>,
    /// Our answers, by status.
    pub ours: BTreeMap<u16, usize>,
    /// Against ours.
    pub verdict: Verdict,
    /// The structural differences left after holding each live answer to the closest of ours.
    pub differences: Vec<Difference>,
    /// The live answers against the surface.
    pub spec: Vec<SpecFinding>,
    /// Keys of the live answers the specification does not list.
    pub unlisted_keys: BTreeSet<String>,
}

impl EndpointReport {
    /// Whether this endpoint contradicts ours: its verdict, or a finding against the surface
    /// ours do not share.
    pub fn contradicts(&self) -> bool {
        self.verdict.contradicts() || self.spec.iter().any(|f| !f.ours_too)
    }
}

/// Compares live interactions (each with the tool whose call made it) with ours.
pub fn compare(ours: &Ours, live: &[(String, Interaction)]) -> Vec<EndpointReport> {
    let mut grouped: BTreeMap<String, Vec<(&str, &Interaction, Judgement)>> = BTreeMap::new();
    for (tool, interaction) in live {
        let judgement = ours.judge(interaction);
        grouped
            .entry(endpoint_name(&judgement))
            .or_default()
            .push((tool, interaction, judgement));
    }
    grouped
        .into_iter()
        .map(|(endpoint, answers)| {
            let empty = OurEndpoint::default();
            let mine = ours.endpoints.get(&endpoint).unwrap_or(&empty);
            endpoint_report(endpoint, &answers, mine)
        })
        .collect()
}

fn endpoint_report(
    endpoint: String,
    answers: &[(&str, &Interaction, Judgement)],
    ours: &OurEndpoint,
) -> EndpointReport {
    let mut live = BTreeMap::new();
    let mut tools = BTreeSet::new();
    let mut spec = BTreeSet::new();
    let mut unlisted_keys = BTreeSet::new();
    for (tool, interaction, judgement) in answers {
        tools.insert((*tool).to_owned());
        *live.entry(interaction.response.status).or_default() += 1;
        for finding in response_findings(judgement) {
            let ours_too = ours
                .findings
                .contains(&(finding.kind, finding.subject.clone()));
            spec.insert(SpecFinding {
                ours_too,
                ..finding
            });
        }
        unlisted_keys.extend(
            judgement
                .warnings
                .iter()
                .filter(|w| w.kind == WarningKind::ResponseKey)
                .map(|w| clean_json_path(&w.subject)),
        );
    }
    let success = |r: &&RecordedResponse| (200..300).contains(&r.status);
    let our_successes: Vec<&RecordedResponse> = ours.responses.iter().filter(success).collect();
    let live_successes: Vec<&RecordedResponse> = answers
        .iter()
        .map(|(_, i, _)| &i.response)
        .filter(success)
        .collect();
    let mut differences: Vec<Difference> = Vec::new();
    let verdict = if our_successes.is_empty() {
        Verdict::NotInOurs
    } else if live_successes.is_empty() {
        let statuses: Vec<u16> = live.keys().copied().collect();
        if statuses.iter().any(|s| matches!(s, 404 | 405 | 410)) {
            Verdict::Missing
        } else if statuses
            .iter()
            .any(|s| (400..500).contains(s) && !matches!(s, 401 | 403 | 429))
        {
            Verdict::Refused
        } else if statuses.iter().any(|s| matches!(s, 401 | 403)) {
            Verdict::NotPermitted
        } else {
            Verdict::Unavailable
        }
    } else {
        for answer in live_successes {
            // The answer of ours most like it (most paths in common: an empty list of ours
            // says nothing about the items of a live one), then the one it differs from least.
            let closest = our_successes
                .iter()
                .map(|ours| {
                    let differences = shape_drift(ours, answer);
                    let common = match (&ours.body, &answer.body) {
                        (ResponseBody::Json(o), ResponseBody::Json(l)) => common_paths(o, l),
                        _ => 0,
                    };
                    (std::cmp::Reverse(common), differences.len(), differences)
                })
                .min_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)))
                .map(|(_, _, differences)| differences)
                .unwrap_or_default();
            for difference in closest {
                let difference = clean_difference(difference);
                if !differences.contains(&difference) {
                    differences.push(difference);
                }
            }
        }
        differences.sort_by_key(ToString::to_string);
        if differences.is_empty() {
            Verdict::Same
        } else {
            Verdict::Differs
        }
    };
    EndpointReport {
        endpoint,
        standing: match answers.first().map(|(_, _, j)| &j.class) {
            Some(Class::Documented) => "documented",
            Some(Class::Undocumented { .. }) => "undocumented",
            _ => "unknown",
        },
        tools,
        live,
        ours: ours.statuses.clone(),
        verdict,
        differences,
        spec: spec.into_iter().collect(),
        unlisted_keys,
    }
}

/// The findings of a judgement about the response (status, body types), values left out.
fn response_findings(judgement: &Judgement) -> Vec<SpecFinding> {
    judgement
        .contradictions
        .iter()
        .filter(|f| matches!(f.kind, Kind::Status | Kind::ResponseType))
        .map(|f| SpecFinding {
            kind: f.kind,
            subject: match f.kind {
                Kind::Status => f.subject.clone(),
                _ => clean_json_path(&f.subject),
            },
            detail: f.detail.clone(),
            ours_too: false,
        })
        .collect()
}

/// The endpoint of a judgement, with any segment that may be a value replaced.
fn endpoint_name(judgement: &Judgement) -> String {
    if !matches!(judgement.class, Class::Unknown) {
        return judgement.endpoint.clone();
    }
    let (method, path) = judgement
        .endpoint
        .split_once(' ')
        .unwrap_or(("", &judgement.endpoint));
    let segments: Vec<String> = path
        .split('/')
        .map(|segment| {
            let literal =
                !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
            let variable = segment.starts_with('{') && segment.ends_with('}');
            if segment.is_empty() || literal || variable {
                segment.to_owned()
            } else {
                "{value}".to_owned()
            }
        })
        .collect();
    format!("{method} {}", segments.join("/"))
}

/// A JSON path (`$.spaces[].uid`) with every key that may be a value replaced: numbers and
/// UUIDs by `{id}`, anything but a plain identifier by `{key}`.
pub fn clean_json_path(path: &str) -> String {
    path.split('.')
        .enumerate()
        .map(|(i, part)| {
            let key = part.trim_end_matches("[]");
            let brackets = &part[key.len()..];
            let key = if i == 0 && key == "$" {
                key.to_owned()
            } else if is_identifier(key) {
                "{id}".to_owned()
            } else if is_plain_key(key) {
                key.to_owned()
            } else {
                "{key}".to_owned()
            };
            format!("{key}{brackets}")
        })
        .collect::<Vec<_>>()
        .join(".")
}

fn is_identifier(key: &str) -> bool {
    (!key.is_empty() && key.bytes().all(|b| b.is_ascii_digit()))
        || (key.len() == 36
            && key.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
            && key.bytes().filter(|b| *b == b'-').count() == 4)
}

fn is_plain_key(key: &str) -> bool {
    key.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
}

fn clean_difference(difference: Difference) -> Difference {
    match difference {
        Difference::Added { path, live } => Difference::Added {
            path: clean_json_path(&path),
            live,
        },
        Difference::Removed { path, recorded } => Difference::Removed {
            path: clean_json_path(&path),
            recorded,
        },
        Difference::TypeChanged {
            path,
            recorded,
            live,
        } => Difference::TypeChanged {
            path: clean_json_path(&path),
            recorded,
            live,
        },
        status @ Difference::Status { .. } => status,
    }
}

/// Pairs each key removed from ours with a key added live of the same kind under the same
/// parent: `(parent.removed, parent.added)`, a likely rename.
pub(super) fn likely_renames(differences: &[Difference]) -> Vec<(String, String)> {
    let parent = |path: &str| path.rsplit_once('.').map(|(p, _)| p.to_owned());
    let mut out = Vec::new();
    for difference in differences {
        let Difference::Removed { path, recorded } = difference else {
            continue;
        };
        let added: Vec<&String> = differences
            .iter()
            .filter_map(|d| match d {
                Difference::Added { path: p, live }
                    if live == recorded && parent(p) == parent(path) =>
                {
                    Some(p)
                }
                _ => None,
            })
            .collect();
        if let [only] = added[..] {
            out.push((path.clone(), only.clone()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use modyo_replay::cassette::Provenance;
    use modyo_spec::Surface;
    use serde_json::json;

    fn surfaces() -> Surfaces {
        Surfaces::new(Vec::<Surface>::new()).expect("no surface")
    }

    fn ours() -> Ours {
        let cassette = Cassette::new("content/x", Provenance::synthetic("2026-01-01", "x"))
            .undocumented(Undocumented::new(
                "GET",
                "/api/admin/things/{thing_id}",
                modyo_replay::cassette::Evidence::None,
            ))
            .interaction(
                Interaction::get("/api/admin/things/1")
                    .respond(200, json!({"id": 1, "uid": "a", "tags": ["x"]})),
            )
            .interaction(Interaction::get("/api/admin/things/2").respond(
                200,
                json!({"id": 2, "uid": "b", "tags": ["x"], "extra": {"n": 1}}),
            ))
            .interaction(
                Interaction::get("/api/admin/things/9").respond(404, json!({"errors": ["no"]})),
            );
        let fault = Cassette::new("faults/x", Provenance::synthetic("2026-01-01", "x"))
            .tag("fault")
            .interaction(Interaction::get("/api/admin/things/3").respond(200, json!([])));
        Ours::new(&[cassette, fault], surfaces())
    }

    fn live(path: &str, status: u16, body: serde_json::Value) -> (String, Interaction) {
        (
            "things-get".to_owned(),
            Interaction::get(path).respond(status, body),
        )
    }

    #[test]
    fn each_live_answer_is_held_to_the_closest_of_ours() {
        let ours = ours();
        // Same as the second of ours; a fault cassette's array is not ours.
        let report = compare(
            &ours,
            &[live(
                "/api/admin/things/7",
                200,
                json!({"id": 7, "uid": "z", "tags": [], "extra": {"n": 3}}),
            )],
        );
        assert_eq!(report.len(), 1);
        assert_eq!(report[0].endpoint, "GET /api/admin/things/{thing_id}");
        assert_eq!(report[0].standing, "undocumented");
        assert_eq!(
            report[0].verdict,
            Verdict::Same,
            "{:?}",
            report[0].differences
        );
        assert_eq!(report[0].ours, BTreeMap::from([(200, 2), (404, 1)]));

        // A rename and a type change, values ignored.
        let report = compare(
            &ours,
            &[live(
                "/api/admin/things/7",
                200,
                json!({"id": "7", "slug": "z", "tags": ["y"]}),
            )],
        );
        let text: Vec<String> = report[0]
            .differences
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            text,
            [
                "$.id: type changed from number to string",
                "$.slug: added (string)",
                "$.uid: removed (was string)",
            ]
        );
        assert!(report[0].contradicts());
        assert_eq!(
            likely_renames(&report[0].differences),
            [("$.uid".to_owned(), "$.slug".to_owned())]
        );
    }

    #[test]
    fn endpoints_without_a_live_success_are_judged_by_status() {
        let ours = ours();
        let verdict =
            |status| compare(&ours, &[live("/api/admin/things/7", status, json!({}))])[0].verdict;
        assert_eq!(verdict(404), Verdict::Missing);
        assert_eq!(verdict(422), Verdict::Refused);
        assert_eq!(verdict(403), Verdict::NotPermitted);
        assert_eq!(verdict(503), Verdict::Unavailable);
        let unknown = compare(
            &ours,
            &[live("/api/admin/other/Secret-Name/5", 200, json!({}))],
        );
        assert_eq!(unknown[0].verdict, Verdict::NotInOurs);
        assert_eq!(unknown[0].standing, "unknown");
        assert!(
            !unknown[0].endpoint.contains("Secret-Name"),
            "{}",
            unknown[0].endpoint
        );
    }

    #[test]
    fn json_paths_keep_keys_and_drop_what_looks_like_a_value() {
        assert_eq!(clean_json_path("$.spaces[].uid"), "$.spaces[].uid");
        assert_eq!(
            clean_json_path("$.fields.123.items[][].es-CL"),
            "$.fields.{id}.items[][].es-CL"
        );
        assert_eq!(
            clean_json_path("$.by_uuid.28c4179b-0b06-418a-843f-2d6d19603cd4"),
            "$.by_uuid.{id}"
        );
        assert_eq!(clean_json_path("$.Nombre visible"), "$.{key}");
    }
}
