//! The replay state shared by every mock of one server, and the wiremock plumbing around it.
//!
//! One [`Sequence`] per distinct [`RequestKey`], each mounted as one wiremock `Mock` whose
//! [`KeyMatcher`] says "this key, and a response is left" and whose [`KeyResponder`] hands out
//! the recorded responses in order. Below them all, at the lowest priority, [`MissResponder`]
//! answers everything else with a 501 and a diagnostic. wiremock matches and responds under
//! one write lock per request, so "is a response left" and "take it" cannot race.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use wiremock::{Match, Request, Respond, ResponseTemplate};

use super::diagnose::{Miss, diagnose};
use super::request::{ReceivedRequest, RequestKey};
use super::{ReplayOptions, UnusedInteraction};
use crate::cassette::{Cassette, OrderedMap, RecordedResponse, ResponseBody};

/// The header a replay miss carries, so a client can tell a miss from a recorded 5xx.
pub const MISS_HEADER: &str = "x-modyo-replay";

/// Everything one replay server knows: what is mounted, what was played, what arrived.
#[derive(Debug)]
pub(crate) struct Ledger {
    pub(crate) options: ReplayOptions,
    pub(crate) sequences: Vec<Sequence>,
    pub(crate) interactions: Vec<MountedInteraction>,
    pub(crate) cassettes: Vec<String>,
    /// The most recent requests received (at most `options.keep_received`).
    pub(crate) received: VecDeque<ReceivedRequest>,
    /// Every request received since the last reset, kept or not.
    pub(crate) received_total: usize,
    /// The most recent misses (at most `options.keep_received`).
    pub(crate) misses: VecDeque<Miss>,
    /// Every miss since the last reset.
    pub(crate) misses_total: usize,
}

/// The responses recorded for one request key, in recorded order.
#[derive(Debug)]
pub(crate) struct Sequence {
    pub(crate) key: RequestKey,
    /// The cassette that owns the key (the first mounted that has it).
    pub(crate) cassette: String,
    /// The index of the first interaction of the sequence in that cassette.
    pub(crate) first_index: usize,
    /// What each response was, compactly: only compared, to deduplicate identical copies
    /// mounted by later cassettes (a clone of every recorded JSON tree was most of the
    /// offline server's memory).
    pub(crate) responses: Vec<Fingerprint>,
    pub(crate) templates: Vec<ResponseTemplate>,
    pub(crate) played: usize,
}

/// One interaction of one mounted cassette, and where replay put it.
#[derive(Debug)]
pub(crate) struct MountedInteraction {
    pub(crate) cassette: String,
    pub(crate) index: usize,
    pub(crate) line: String,
    pub(crate) slot: Slot,
}

#[derive(Debug)]
pub(crate) enum Slot {
    /// Answered as response `position` of `sequence` (a deduplicated copy shares its twin's).
    Played { sequence: usize, position: usize },
    /// Never answered: an earlier cassette recorded the same request differently.
    Shadowed { by: String },
}

impl Ledger {
    pub(crate) fn new(options: ReplayOptions) -> Ledger {
        Ledger {
            options,
            sequences: Vec::new(),
            interactions: Vec::new(),
            cassettes: Vec::new(),
            received: VecDeque::new(),
            received_total: 0,
            misses: VecDeque::new(),
            misses_total: 0,
        }
    }

    /// Records a received request, forgetting the oldest past the limit.
    fn receive(&mut self, request: ReceivedRequest) {
        self.received_total += 1;
        keep(&mut self.received, request, self.options.keep_received);
    }

    /// Records a miss, forgetting the oldest past the limit.
    fn miss(&mut self, miss: Miss) {
        self.misses_total += 1;
        keep(&mut self.misses, miss, self.options.keep_received);
    }

    pub(crate) fn clear(&mut self) {
        *self = Ledger::new(self.options);
    }

    /// Adds the cassettes' interactions and returns the ids of the sequences they created
    /// (each needs its own mock). A cassette already mounted is skipped.
    pub(crate) fn add(&mut self, cassettes: &[Cassette]) -> Vec<usize> {
        let mut created = Vec::new();
        for cassette in cassettes {
            if self.cassettes.iter().any(|c| c == cassette.name()) {
                tracing::debug!(cassette = cassette.name(), "already mounted, skipped");
                continue;
            }
            self.cassettes.push(cassette.name().to_owned());
            let owned_from = self.sequences.len();
            for (index, interaction) in cassette.interactions.iter().enumerate() {
                let key = RequestKey::of(&interaction.request);
                let existing = self.sequences.iter().position(|s| s.key == key);
                let slot = match existing {
                    // Same cassette: the next response of the sequence.
                    Some(sequence) if sequence >= owned_from => {
                        let seq = &mut self.sequences[sequence];
                        seq.responses.push(Fingerprint::of(&interaction.response));
                        seq.templates
                            .push(template(&interaction.response, self.options));
                        Slot::Played {
                            sequence,
                            position: seq.responses.len() - 1,
                        }
                    }
                    // An earlier cassette owns the key: deduplicate or shadow.
                    Some(sequence) => {
                        let seq = &self.sequences[sequence];
                        let fingerprint = Fingerprint::of(&interaction.response);
                        match seq.responses.iter().position(|r| *r == fingerprint) {
                            Some(position) => Slot::Played { sequence, position },
                            None => {
                                tracing::debug!(
                                    cassette = cassette.name(),
                                    index,
                                    shadowed_by = %seq.cassette,
                                    "{} shadowed by an earlier cassette",
                                    key.line()
                                );
                                Slot::Shadowed {
                                    by: seq.cassette.clone(),
                                }
                            }
                        }
                    }
                    None => {
                        self.sequences.push(Sequence {
                            key: key.clone(),
                            cassette: cassette.name().to_owned(),
                            first_index: index,
                            responses: vec![Fingerprint::of(&interaction.response)],
                            templates: vec![template(&interaction.response, self.options)],
                            played: 0,
                        });
                        created.push(self.sequences.len() - 1);
                        Slot::Played {
                            sequence: self.sequences.len() - 1,
                            position: 0,
                        }
                    }
                };
                self.interactions.push(MountedInteraction {
                    cassette: cassette.name().to_owned(),
                    index,
                    line: key.line(),
                    slot,
                });
            }
        }
        created
    }

    pub(crate) fn unused(&self) -> Vec<UnusedInteraction> {
        self.interactions
            .iter()
            .filter_map(|i| {
                let shadowed_by = match &i.slot {
                    Slot::Played { sequence, position }
                        if self.sequences[*sequence].played > *position =>
                    {
                        return None;
                    }
                    Slot::Played { .. } => None,
                    Slot::Shadowed { by } => Some(by.clone()),
                };
                Some(UnusedInteraction {
                    cassette: i.cassette.clone(),
                    index: i.index,
                    request: i.line.clone(),
                    shadowed_by,
                })
            })
            .collect()
    }
}

/// A recorded response reduced to what decides equality, without its JSON tree: two
/// fingerprints are equal exactly when the responses are (`RecordedResponse`'s `==`).
#[derive(Debug, PartialEq)]
pub(crate) struct Fingerprint {
    status: u16,
    headers: OrderedMap<String>,
    delay_ms: Option<u64>,
    body: BodyPrint,
}

#[derive(Debug, PartialEq)]
enum BodyPrint {
    Empty,
    /// The JSON body written canonically (object keys sorted), so key order does not count,
    /// as it does not for `serde_json::Value`'s `==`.
    Json(Box<[u8]>),
    Text(Box<str>),
    Bytes(Box<[u8]>),
}

impl Fingerprint {
    pub(crate) fn of(response: &RecordedResponse) -> Fingerprint {
        Fingerprint {
            status: response.status,
            headers: response.headers.clone(),
            delay_ms: response.delay_ms,
            body: match &response.body {
                ResponseBody::Empty => BodyPrint::Empty,
                ResponseBody::Json(json) => {
                    let mut out = Vec::new();
                    canonical(json, &mut out);
                    BodyPrint::Json(out.into_boxed_slice())
                }
                ResponseBody::Text(text) => BodyPrint::Text(text.as_str().into()),
                ResponseBody::Bytes(bytes) => BodyPrint::Bytes(bytes.as_slice().into()),
            },
        }
    }
}

/// Writes `value` as JSON with object keys sorted. Numbers are written as `serde_json`
/// writes them, which tells them apart as `==` does (`1` and `1.0` differ), except that
/// `-0.0` is written `0.0`, since the two are equal.
fn canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json(key.as_str(), out);
                out.push(b':');
                canonical(value, out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical(item, out);
            }
            out.push(b']');
        }
        Value::Number(n) if n.as_f64() == Some(0.0) && n.is_f64() => out.extend_from_slice(b"0.0"),
        scalar => write_json(scalar, out),
    }
}

fn write_json<T: serde::Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) {
    // Writing a string or a scalar into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, value);
}

/// Locks the ledger; a panic elsewhere must not turn every later request into a panic too.
pub(crate) fn lock(ledger: &Mutex<Ledger>) -> MutexGuard<'_, Ledger> {
    ledger.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The wiremock response for a recorded one: status, headers, body, delay (unless the
/// options ignore latency).
fn template(response: &RecordedResponse, options: ReplayOptions) -> ResponseTemplate {
    let mut template = ResponseTemplate::new(response.status);
    let content_type = response.headers.get_ignore_case("content-type");
    for (name, value) in response.headers.iter() {
        if !name.eq_ignore_ascii_case("content-type") {
            template = template.append_header(name, value.as_str());
        }
    }
    template = match &response.body {
        ResponseBody::Empty => match content_type {
            Some(content_type) => template.insert_header("content-type", content_type.as_str()),
            None => template,
        },
        ResponseBody::Json(json) => template.set_body_raw(
            serde_json::to_vec(json).unwrap_or_default(),
            content_type.map_or("application/json", String::as_str),
        ),
        ResponseBody::Text(text) => template.set_body_raw(
            text.as_bytes(),
            content_type.map_or("text/plain; charset=utf-8", String::as_str),
        ),
        ResponseBody::Bytes(bytes) => template.set_body_raw(
            bytes.as_slice(),
            content_type.map_or("application/octet-stream", String::as_str),
        ),
    };
    match response.delay_ms {
        Some(ms) if ms > 0 && !options.ignore_latency => {
            template.set_delay(Duration::from_millis(ms))
        }
        _ => template,
    }
}

/// Matches one request key while the sequence has a response left (or repeats are allowed).
pub(crate) struct KeyMatcher {
    pub(crate) ledger: Arc<Mutex<Ledger>>,
    pub(crate) sequence: usize,
    pub(crate) method: String,
    pub(crate) path: String,
}

impl Match for KeyMatcher {
    fn matches(&self, request: &Request) -> bool {
        // Cheap checks first: every request is offered to every mock.
        if request.method.as_str() != self.method || request.url.path() != self.path {
            return false;
        }
        let received = ReceivedRequest::from_wiremock(request, true);
        let ledger = lock(&self.ledger);
        ledger.sequences.get(self.sequence).is_some_and(|seq| {
            seq.key.matches(&received)
                && (seq.played < seq.responses.len() || ledger.options.allow_repeats)
        })
    }
}

/// Answers the next recorded response of its sequence (the last one again once exhausted,
/// which only happens with `allow_repeats`).
pub(crate) struct KeyResponder {
    pub(crate) ledger: Arc<Mutex<Ledger>>,
    pub(crate) sequence: usize,
}

impl Respond for KeyResponder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let received = ReceivedRequest::from_wiremock(request, true);
        let mut ledger = lock(&self.ledger);
        let Some(seq) = ledger.sequences.get_mut(self.sequence) else {
            drop(ledger);
            return miss_response("the replay server was reset while this request was in flight");
        };
        let position = seq.played.min(seq.templates.len().saturating_sub(1));
        seq.played += 1;
        let template = seq.templates[position].clone();
        ledger.receive(received);
        template
    }
}

/// The catch-all: records the miss, logs it, and answers 501 with the diagnostic.
pub(crate) struct MissResponder {
    pub(crate) ledger: Arc<Mutex<Ledger>>,
}

impl Respond for MissResponder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let received = ReceivedRequest::from_wiremock(request, false);
        let miss = {
            let mut ledger = lock(&self.ledger);
            let miss = diagnose(&ledger, received.clone());
            ledger.receive(received);
            ledger.miss(miss.clone());
            miss
        };
        tracing::warn!("replay miss: {miss}");
        miss_response(&miss.to_string())
    }
}

/// Pushes `item`, dropping the oldest while more than `limit` are kept.
fn keep<T>(kept: &mut VecDeque<T>, item: T, limit: usize) {
    if limit == 0 {
        return;
    }
    while kept.len() >= limit {
        kept.pop_front();
    }
    kept.push_back(item);
}

fn miss_response(diagnostic: &str) -> ResponseTemplate {
    ResponseTemplate::new(501)
        .insert_header(MISS_HEADER, "miss")
        .set_body_json(json!({"errors": [format!("replay miss: {diagnostic}")]}))
}
