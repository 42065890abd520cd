//! The replay state behind one server, and how it answers a request.
//!
//! One [`Sequence`] per distinct [`RequestKey`], holding the recorded responses in order as
//! ready [`Reply`]s. [`answer`] takes each request under the ledger's lock: the sequence that
//! matches it and has a response left hands out the next one; anything else is a miss,
//! answered `501` with a diagnostic. "Is a response left" and "take it" happen under one lock,
//! so concurrent requests cannot race for the last response.
//!
//! Sequences are found through a hash of everything an exact match compares (method, path,
//! query, and the body written canonically; see [`bucket`]): mounting an interaction and
//! answering a request compare the key only with the few that share its hash, so mounting
//! is linear in the interactions and a request costs the same among ten keys or 100,000.
//! (Comparing each new key with every mounted one made `modyo-lab serve` take 75 s to start
//! on 100,001 interactions.)

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use hyper::StatusCode;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use super::diagnose::{Miss, diagnose};
use super::http::{Arrived, Reply};
use super::request::{ReceivedBody, ReceivedRequest, RequestKey};
use super::{ReplayOptions, UnusedInteraction};
use crate::cassette::{Cassette, OrderedMap, RecordedResponse, ResponseBody};

/// The header a replay miss carries, so a client can tell a miss from a recorded 5xx.
pub const MISS_HEADER: &str = "x-modyo-replay";

/// Everything one replay server knows: what is mounted, what was played, what arrived.
#[derive(Debug)]
pub(crate) struct Ledger {
    pub(crate) options: ReplayOptions,
    pub(crate) sequences: Vec<Sequence>,
    /// The ids of the sequences by [`bucket`] of their key, in mount order.
    index: HashMap<u64, Vec<usize>>,
    pub(crate) interactions: Vec<MountedInteraction>,
    /// The mounted cassettes, in mount order.
    pub(crate) cassettes: Vec<String>,
    /// The same names, to skip one mounted again.
    mounted: HashSet<String>,
    /// The most recent requests received (at most `options.keep_received`).
    pub(crate) received: VecDeque<ReceivedRequest>,
    /// Every request received since the last reset, kept or not.
    pub(crate) received_total: usize,
    /// The most recent misses (at most `options.keep_received`).
    pub(crate) misses: VecDeque<Miss>,
    /// Every miss since the last reset.
    pub(crate) misses_total: usize,
    /// The `Authorization` every request must carry, else `401 {}` (a fake account).
    pub(crate) authorization: Option<String>,
    /// How many recorded keys were compared with another key or a request: the work mounting
    /// and matching did, which the tests hold to near one per interaction and per request.
    #[cfg(test)]
    pub(crate) compared: usize,
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
    pub(crate) replies: Vec<Reply>,
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
            index: HashMap::new(),
            interactions: Vec::new(),
            cassettes: Vec::new(),
            mounted: HashSet::new(),
            received: VecDeque::new(),
            received_total: 0,
            misses: VecDeque::new(),
            misses_total: 0,
            authorization: None,
            #[cfg(test)]
            compared: 0,
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

    /// Adds the cassettes' interactions and returns how many sequences they created. A
    /// cassette already mounted is skipped.
    pub(crate) fn add(&mut self, cassettes: &[Cassette]) -> usize {
        let mut created = 0;
        for cassette in cassettes {
            if !self.mounted.insert(cassette.name().to_owned()) {
                tracing::debug!(cassette = cassette.name(), "already mounted, skipped");
                continue;
            }
            self.cassettes.push(cassette.name().to_owned());
            let owned_from = self.sequences.len();
            for (index, interaction) in cassette.interactions.iter().enumerate() {
                let key = RequestKey::of(&interaction.request);
                let bucket = key_bucket(&key);
                let existing = self.find(bucket, |seq| seq.key == key);
                let slot = match existing {
                    // Same cassette: the next response of the sequence.
                    Some(sequence) if sequence >= owned_from => {
                        let seq = &mut self.sequences[sequence];
                        seq.responses.push(Fingerprint::of(&interaction.response));
                        seq.replies.push(reply(&interaction.response, self.options));
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
                            replies: vec![reply(&interaction.response, self.options)],
                            played: 0,
                        });
                        self.index
                            .entry(bucket)
                            .or_default()
                            .push(self.sequences.len() - 1);
                        created += 1;
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

    /// The first sequence (in mount order) in `bucket` that `wanted` accepts.
    fn find(&mut self, bucket: u64, wanted: impl Fn(&Sequence) -> bool) -> Option<usize> {
        let ids = self.index.get(&bucket)?;
        ids.iter().copied().find(|&id| {
            #[cfg(test)]
            {
                self.compared += 1;
            }
            self.sequences.get(id).is_some_and(&wanted)
        })
    }

    /// The next recorded response for `received`, from the first sequence that matches it and
    /// has one left (or, with `allow_repeats`, its last one again).
    fn play(&mut self, received: &ReceivedRequest) -> Option<Reply> {
        let allow_repeats = self.options.allow_repeats;
        let id = self.find(received_bucket(received)?, |seq| {
            seq.key.matches(received) && (seq.played < seq.replies.len() || allow_repeats)
        })?;
        let seq = self.sequences.get_mut(id)?;
        let position = seq.played.min(seq.replies.len().saturating_sub(1));
        seq.played += 1;
        seq.replies.get(position).cloned()
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

/// The hash of what an exact match compares: method, path, query pairs in order, and the
/// body written canonically (or its absence). Two requests that match have the same bucket
/// (JSON-equal bodies are written alike, see [`canonical`]); the bucket ignores whether a
/// recording's body is a form, which the comparison inside the bucket checks.
fn bucket(method: &str, path: &str, query: &[(String, String)], body: Option<&Value>) -> u64 {
    let mut hasher = DefaultHasher::new();
    method.hash(&mut hasher);
    path.hash(&mut hasher);
    query.hash(&mut hasher);
    match body {
        None => hasher.write_u8(0),
        Some(body) => {
            let mut written = Vec::new();
            canonical(body, &mut written);
            hasher.write_u8(1);
            written.hash(&mut hasher);
        }
    }
    hasher.finish()
}

fn key_bucket(key: &RequestKey) -> u64 {
    bucket(&key.method, &key.path, &key.query, key.body.as_ref())
}

/// `None` for a body that is neither empty, JSON nor a form: no recording matches it.
fn received_bucket(received: &ReceivedRequest) -> Option<u64> {
    let body = match &received.body {
        ReceivedBody::Empty => None,
        ReceivedBody::Json(body) | ReceivedBody::Form(body) => Some(body),
        ReceivedBody::Other(_) => return None,
    };
    Some(bucket(
        &received.method,
        &received.path,
        &received.query,
        body,
    ))
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

/// The answer to replay for a recorded response: status, headers, body, delay (unless the
/// options ignore latency). A content type the body implies is added when none was recorded;
/// a header that is not valid HTTP is left out (loading rejects them already). Bodies are
/// stored at their length: `serde_json::to_vec` leaves up to as much again in spare capacity.
fn reply(response: &RecordedResponse, options: ReplayOptions) -> Reply {
    let mut headers = HeaderMap::new();
    for (name, value) in response.headers.iter() {
        if name.eq_ignore_ascii_case("content-type") {
            continue;
        }
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            headers.append(name, value);
        }
    }
    let (body, implied) = match &response.body {
        ResponseBody::Empty => (Bytes::new(), None),
        ResponseBody::Json(json) => (
            Bytes::from(
                serde_json::to_vec(json)
                    .unwrap_or_default()
                    .into_boxed_slice(),
            ),
            Some("application/json"),
        ),
        ResponseBody::Text(text) => (
            Bytes::copy_from_slice(text.as_bytes()),
            Some("text/plain; charset=utf-8"),
        ),
        ResponseBody::Bytes(bytes) => (
            Bytes::copy_from_slice(bytes),
            Some("application/octet-stream"),
        ),
    };
    let content_type = match response.headers.get_ignore_case("content-type") {
        Some(recorded) => HeaderValue::from_str(recorded).ok(),
        None => implied.map(HeaderValue::from_static),
    };
    Reply {
        status: StatusCode::from_u16(response.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        headers,
        content_type,
        body,
        delay: match response.delay_ms {
            Some(ms) if ms > 0 && !options.ignore_latency => Some(Duration::from_millis(ms)),
            _ => None,
        },
    }
}

/// Answers one request: `401 {}` without the required `Authorization`; else the next recorded
/// response of the sequence it matches; else a miss, kept, logged and answered `501` with
/// the diagnostic. The request is kept in the ledger's bounded history either way.
pub(crate) fn answer(shared: &Mutex<Ledger>, arrived: &Arrived) -> Reply {
    let miss = {
        let mut ledger = lock(shared);
        if let Some(expected) = &ledger.authorization {
            let given = arrived.authorization.as_ref().and_then(|v| v.to_str().ok());
            if given != Some(expected.as_str()) {
                return Reply::json(StatusCode::UNAUTHORIZED, &json!({}));
            }
        }
        let mut received = ReceivedRequest::from_arrived(arrived, true);
        if let Some(reply) = ledger.play(&received) {
            ledger.receive(received);
            return reply;
        }
        received.replayed = false;
        let miss = diagnose(&ledger, received.clone());
        ledger.receive(received);
        ledger.miss(miss.clone());
        miss
    };
    tracing::warn!("replay miss: {miss}");
    miss_reply(&miss.to_string())
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

fn miss_reply(diagnostic: &str) -> Reply {
    let mut reply = Reply::json(
        StatusCode::NOT_IMPLEMENTED,
        &json!({"errors": [format!("replay miss: {diagnostic}")]}),
    );
    reply
        .headers
        .insert(MISS_HEADER, HeaderValue::from_static("miss"));
    reply
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cassette::{Interaction, Provenance};

    fn get(path: &str) -> ReceivedRequest {
        ReceivedRequest::unanswered("GET", path, &[], ReceivedBody::Empty)
    }

    /// `modyo-lab serve` took 75 s to start on 100,001 interactions: each new request key was
    /// compared with every key mounted before it. Mounting and answering now compare a key
    /// with the few that share its hash, whatever the size of the set.
    #[test]
    fn mounting_and_matching_compare_each_key_with_a_few_others_only() {
        const N: usize = 2_000;
        let cassette =
            Cassette::new("t/many", Provenance::synthetic("2026-11-29", "t"))
                .interactions((0..N).map(|i| {
                    Interaction::get(format!("/items/{i}")).respond(200, json!({"id": i}))
                }))
                .interaction(Interaction::get("/items/0").respond(200, json!({"again": true})));
        let mut ledger = Ledger::new(ReplayOptions::default());
        assert_eq!(ledger.add(&[cassette]), N);
        assert!(
            ledger.compared <= 2 * (N + 1),
            "{} key comparisons to mount {} interactions",
            ledger.compared,
            N + 1
        );

        // The last key mounted, then the repeated first one in recorded order, then a miss.
        ledger.compared = 0;
        let last = ledger.play(&get(&format!("/items/{}", N - 1)));
        assert_eq!(
            last.map(|r| r.body),
            Some(Bytes::from(format!("{{\"id\":{}}}", N - 1)))
        );
        let first = ledger.play(&get("/items/0")).map(|r| r.body);
        let again = ledger.play(&get("/items/0")).map(|r| r.body);
        assert_eq!(first, Some(Bytes::from_static(b"{\"id\":0}")));
        assert_eq!(again, Some(Bytes::from_static(b"{\"again\":true}")));
        assert!(
            ledger.play(&get("/items/0")).is_none(),
            "the sequence is exhausted"
        );
        assert!(ledger.play(&get("/nowhere")).is_none());
        assert!(
            ledger.compared <= 10,
            "{} key comparisons to answer 5 requests among {N} keys",
            ledger.compared
        );
    }
}
