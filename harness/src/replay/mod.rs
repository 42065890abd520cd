//! Replay: serve cassettes from a local wiremock server with exact matching and loud misses.
//!
//! [`ReplayServer::start`] binds `127.0.0.1` on a random port; [`ReplayServer::mount`] adds
//! cassettes. Matching is exact on method, path, the whole query (a multiset: a superset is a
//! miss) and the JSON body (or its absence); request headers are documentation only.
//!
//! - **Sequences.** Interactions of one cassette with the same request form a sequence,
//!   replayed in recorded order (polling a job). Once exhausted the request is a miss, unless
//!   [`ReplayOptions::allow_repeats`] is set, which keeps answering the last response.
//! - **Shadowing.** Across cassettes the first mounted one that has a request wins; a scenario
//!   is mounted before its includes (see [`crate::cassette::resolve`]), so it shadows them.
//!   Identical copies are deduplicated silently; differing ones are logged at debug level and
//!   reported by [`ReplayServer::unused`].
//! - **Misses** are never a bare 404: a lowest-priority catch-all answers `501` with header
//!   `x-modyo-replay: miss` and `{"errors": ["replay miss: <diagnostic>"]}`, logs the
//!   diagnostic at warn level, and keeps it ([`ReplayServer::misses`]).
//! - **A bounded ledger.** The requests received and the misses are kept for inspection, the
//!   most recent [`ReplayOptions::keep_received`] of each; counters keep the totals
//!   ([`ReplayServer::received_count`], [`ReplayServer::miss_count`]), so a long-running
//!   server's memory does not grow with its traffic.
//!
//! Replay never stores or logs request headers, so a token sent to it cannot leak from here.

mod diagnose;
mod ledger;
mod request;

use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use wiremock::matchers::any;
use wiremock::{Match, Mock, MockServer, Request, ResponseTemplate};

pub use diagnose::Miss;
pub use ledger::MISS_HEADER;
use ledger::{KeyMatcher, KeyResponder, Ledger, MissResponder, lock};
pub(crate) use request::RequestKey;
pub use request::{ReceivedBody, ReceivedRequest};

use crate::cassette::{Cassette, CassetteError};

/// wiremock's lowest priority: the catch-all only answers what nothing else matched.
const CATCH_ALL_PRIORITY: u8 = u8::MAX;

/// How many received requests (and misses) a replay server keeps by default.
pub const DEFAULT_KEEP_RECEIVED: usize = 10_000;

/// How the replay server behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReplayOptions {
    /// Once a sequence is exhausted, keep answering its last response instead of missing
    /// (the offline server needs this; tests usually do not).
    pub allow_repeats: bool,
    /// Answer at once, ignoring recorded `delay_ms` (by default replay honours it, for
    /// realistic timing; lints and bulk replays turn it off).
    pub ignore_latency: bool,
    /// How many of the most recent received requests, and of the most recent misses, are
    /// kept (default [`DEFAULT_KEEP_RECEIVED`]); older ones are only counted.
    pub keep_received: usize,
}

impl Default for ReplayOptions {
    fn default() -> ReplayOptions {
        ReplayOptions {
            allow_repeats: false,
            ignore_latency: false,
            keep_received: DEFAULT_KEEP_RECEIVED,
        }
    }
}

impl ReplayOptions {
    /// Sets [`ReplayOptions::allow_repeats`].
    pub fn allow_repeats(mut self, allow: bool) -> ReplayOptions {
        self.allow_repeats = allow;
        self
    }

    /// Sets [`ReplayOptions::ignore_latency`].
    pub fn ignore_latency(mut self, ignore: bool) -> ReplayOptions {
        self.ignore_latency = ignore;
        self
    }

    /// Sets [`ReplayOptions::keep_received`].
    pub fn keep_received(mut self, requests: usize) -> ReplayOptions {
        self.keep_received = requests;
        self
    }
}

/// Why cassettes could not be mounted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// A cassette breaks a rule of the format (only possible for cassettes built in code:
    /// loading already validates).
    #[error("cannot mount: {0}")]
    Cassette(#[from] CassetteError),
}

/// A mounted interaction that was never played.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnusedInteraction {
    /// The cassette it belongs to.
    pub cassette: String,
    /// Its index in the cassette's `interactions`.
    pub index: usize,
    /// Its request, `GET /path?a=1`.
    pub request: String,
    /// The earlier cassette that recorded the same request differently, if that is why.
    pub shadowed_by: Option<String>,
}

impl fmt::Display for UnusedInteraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} interactions[{}] {}: ",
            self.cassette, self.index, self.request
        )?;
        match &self.shadowed_by {
            Some(by) => write!(f, "shadowed by {by}"),
            None => f.write_str("never played"),
        }
    }
}

/// The items of a bounded ledger that arrived after the first `count` of `total`, as far as
/// they are still kept.
fn since<T: Clone>(kept: &std::collections::VecDeque<T>, total: usize, count: usize) -> Vec<T> {
    let new = total.saturating_sub(count);
    kept.iter()
        .skip(kept.len().saturating_sub(new))
        .cloned()
        .collect()
}

/// Matches requests whose `Authorization` is missing or not the expected value.
struct WrongAuthorization(String);

impl Match for WrongAuthorization {
    fn matches(&self, request: &Request) -> bool {
        request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            != Some(self.0.as_str())
    }
}

/// A wiremock server replaying cassettes on `127.0.0.1` (random port).
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use modyo_lab::{Cassette, Interaction, Provenance, ReplayOptions, ReplayServer};
/// use serde_json::json;
///
/// let cassette = Cassette::new("demo", Provenance::synthetic("2026-11-29", "demo"))
///     .interaction(Interaction::get("/api/admin/content/spaces").respond(200, json!({"spaces": []})));
/// let replay = ReplayServer::start(ReplayOptions::default()).await;
/// replay.mount(&[cassette]).await?;
/// println!("{}", replay.uri());
/// # Ok(())
/// # }
/// ```
pub struct ReplayServer {
    server: MockServer,
    ledger: Arc<Mutex<Ledger>>,
}

impl fmt::Debug for ReplayServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReplayServer")
            .field("uri", &self.server.uri())
            .finish_non_exhaustive()
    }
}

impl ReplayServer {
    /// Starts an empty replay server: every request misses until cassettes are mounted.
    pub async fn start(options: ReplayOptions) -> ReplayServer {
        // Not pooled: one server per replay, and no copy of request headers kept by wiremock.
        let server = MockServer::builder()
            .disable_request_recording()
            .start()
            .await;
        let replay = ReplayServer {
            server,
            ledger: Arc::new(Mutex::new(Ledger::new(options))),
        };
        replay.mount_catch_all().await;
        replay
    }

    async fn mount_catch_all(&self) {
        Mock::given(any())
            .respond_with(MissResponder {
                ledger: self.ledger.clone(),
            })
            .with_priority(CATCH_ALL_PRIORITY)
            .named("replay miss")
            .mount(&self.server)
            .await;
    }

    /// Mounts cassettes in the given order (earlier ones shadow later ones, see the module
    /// docs). Every cassette is validated first, so a failure mounts nothing. A cassette
    /// already mounted (same name) is skipped.
    pub async fn mount(&self, cassettes: &[Cassette]) -> Result<(), ReplayError> {
        for cassette in cassettes {
            cassette.validate()?;
        }
        let mocks: Vec<Mock> = {
            let mut ledger = lock(&self.ledger);
            let created = ledger.add(cassettes);
            created
                .into_iter()
                .map(|sequence| {
                    let key = &ledger.sequences[sequence].key;
                    Mock::given(KeyMatcher {
                        ledger: self.ledger.clone(),
                        sequence,
                        method: key.method.clone(),
                        path: key.path.clone(),
                    })
                    .respond_with(KeyResponder {
                        ledger: self.ledger.clone(),
                        sequence,
                    })
                    .named(key.line())
                })
                .collect()
        };
        let count = mocks.len();
        for mock in mocks {
            self.server.register(mock).await;
        }
        tracing::debug!(
            cassettes = cassettes.len(),
            requests = count,
            "mounted cassettes"
        );
        Ok(())
    }

    /// Answers `401 {}` (Modyo's answer to a bad token) to every request whose
    /// `Authorization` header is not exactly `expected`, before any cassette is consulted:
    /// a replay server that plays a fake Modyo account checking its token. The header is
    /// compared, never stored or logged.
    pub async fn require_authorization(&self, expected: &str) {
        Mock::given(WrongAuthorization(expected.to_owned()))
            .respond_with(ResponseTemplate::new(401).set_body_json(serde_json::json!({})))
            .with_priority(1)
            .named("wrong authorization")
            .mount(&self.server)
            .await;
    }

    /// The base URI, `http://127.0.0.1:<port>`.
    pub fn uri(&self) -> String {
        self.server.uri()
    }

    /// The socket address the server listens on.
    pub fn address(&self) -> SocketAddr {
        *self.server.address()
    }

    /// The options the server was started with.
    pub fn options(&self) -> ReplayOptions {
        lock(&self.ledger).options
    }

    /// The names of the mounted cassettes, in mount order.
    pub fn cassettes(&self) -> Vec<String> {
        lock(&self.ledger).cassettes.clone()
    }

    /// The requests received (replayed or missed), in arrival order: the most recent
    /// [`ReplayOptions::keep_received`] since the last reset.
    pub fn received(&self) -> Vec<ReceivedRequest> {
        lock(&self.ledger).received.iter().cloned().collect()
    }

    /// How many requests arrived since the last reset, kept or not.
    pub fn received_count(&self) -> usize {
        lock(&self.ledger).received_total
    }

    /// The requests received after the first `count` (a [`ReplayServer::received_count`]
    /// taken earlier), as far as they are still kept.
    pub fn received_since(&self, count: usize) -> Vec<ReceivedRequest> {
        let ledger = lock(&self.ledger);
        since(&ledger.received, ledger.received_total, count)
    }

    /// The misses, in arrival order: the most recent [`ReplayOptions::keep_received`].
    pub fn misses(&self) -> Vec<Miss> {
        lock(&self.ledger).misses.iter().cloned().collect()
    }

    /// How many requests missed since the last reset, kept or not.
    pub fn miss_count(&self) -> usize {
        lock(&self.ledger).misses_total
    }

    /// The misses after the first `count` (a [`ReplayServer::miss_count`] taken earlier), as
    /// far as they are still kept.
    pub fn misses_since(&self, count: usize) -> Vec<Miss> {
        let ledger = lock(&self.ledger);
        since(&ledger.misses, ledger.misses_total, count)
    }

    /// Mounted interactions never played (including those shadowed by an earlier cassette),
    /// in mount order.
    pub fn unused(&self) -> Vec<UnusedInteraction> {
        lock(&self.ledger).unused()
    }

    /// Unmounts every cassette and clears counters, received requests and misses. The
    /// catch-all is mounted again, so requests keep failing loudly.
    pub async fn reset(&self) {
        // wiremock first: once its mocks are gone nothing can index the cleared ledger.
        self.server.reset().await;
        lock(&self.ledger).clear();
        self.mount_catch_all().await;
    }
}
