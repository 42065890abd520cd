//! Replay: serve cassettes from a local HTTP server with exact matching and loud misses.
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
//! - **Misses** are never a bare 404: what no sequence answers gets `501` with header
//!   `x-modyo-replay: miss` and `{"errors": ["replay miss: <diagnostic>"]}`, the diagnostic
//!   is logged at warn level and kept ([`ReplayServer::misses`]).
//! - **A bounded ledger.** The requests received and the misses are kept for inspection, the
//!   most recent [`ReplayOptions::keep_received`] of each; counters keep the totals
//!   ([`ReplayServer::received_count`], [`ReplayServer::miss_count`]), and the HTTP side keeps
//!   nothing ([`ReplayServer::kept_requests`]), so a long-running server's memory does not grow
//!   with its traffic.
//!
//! Replay never stores or logs request headers, so a token sent to it cannot leak from here.

mod diagnose;
mod form;
mod http;
mod ledger;
mod request;

use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

pub use diagnose::Miss;
use http::HttpServer;
pub use http::serve_http1;
pub use ledger::MISS_HEADER;
use ledger::{Ledger, lock};
pub use request::{ReceivedBody, ReceivedRequest, RequestKey};

use crate::cassette::{Cassette, CassetteError};

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

/// An HTTP server replaying cassettes on `127.0.0.1` (random port); it stops when dropped.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use modyo_replay::{Cassette, Interaction, Provenance, ReplayOptions, ReplayServer};
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
    http: HttpServer,
    ledger: Arc<Mutex<Ledger>>,
}

impl fmt::Debug for ReplayServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReplayServer")
            .field("uri", &self.uri())
            .finish_non_exhaustive()
    }
}

impl ReplayServer {
    /// Starts an empty replay server: every request misses until cassettes are mounted.
    ///
    /// # Panics
    ///
    /// When no port of `127.0.0.1` can be bound or its thread cannot start: a replay server
    /// that cannot listen is of no use to anyone.
    pub async fn start(options: ReplayOptions) -> ReplayServer {
        let ledger = Arc::new(Mutex::new(Ledger::new(options)));
        let shared = ledger.clone();
        let http = HttpServer::start(Arc::new(move |arrived| ledger::answer(&shared, &arrived)))
            .unwrap_or_else(|e| panic!("the replay server cannot listen on 127.0.0.1: {e}"));
        ReplayServer { http, ledger }
    }

    /// Mounts cassettes in the given order (earlier ones shadow later ones, see the module
    /// docs). Every cassette is validated first, so a failure mounts nothing. A cassette
    /// already mounted (same name) is skipped.
    pub async fn mount(&self, cassettes: &[Cassette]) -> Result<(), ReplayError> {
        for cassette in cassettes {
            cassette.validate()?;
        }
        let count = lock(&self.ledger).add(cassettes);
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
        lock(&self.ledger).authorization = Some(expected.to_owned());
    }

    /// The base URI, `http://127.0.0.1:<port>`.
    pub fn uri(&self) -> String {
        format!("http://{}", self.http.address())
    }

    /// The socket address the server listens on.
    pub fn address(&self) -> SocketAddr {
        self.http.address()
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

    /// How many received requests the replay server holds in memory, in any form: at most
    /// [`ReplayOptions::keep_received`] requests and as many misses, however many arrived (the
    /// HTTP side keeps none once answered).
    pub fn kept_requests(&self) -> usize {
        let ledger = lock(&self.ledger);
        ledger.received.len() + ledger.misses.len()
    }

    /// Mounted interactions never played (including those shadowed by an earlier cassette),
    /// in mount order.
    pub fn unused(&self) -> Vec<UnusedInteraction> {
        lock(&self.ledger).unused()
    }

    /// Unmounts every cassette and clears counters, received requests, misses and a required
    /// `Authorization`; requests keep failing loudly.
    pub async fn reset(&self) {
        lock(&self.ledger).clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cassette::{Interaction, Provenance};
    use serde_json::json;

    /// What grew by about 9 KB a call in a long-running offline server: copies of every request
    /// answered. Replayed or missed, only the last `keep_received` of each may stay.
    #[tokio::test]
    async fn a_replay_server_keeps_a_bounded_number_of_requests() {
        let cassette = Cassette::new("t/kept", Provenance::synthetic("2026-11-29", "t"))
            .interaction(Interaction::get("/known").respond(200, json!({"ok": true})));
        let replay = ReplayServer::start(
            ReplayOptions::default()
                .allow_repeats(true)
                .keep_received(10),
        )
        .await;
        replay.mount(&[cassette]).await.expect("mounts");
        let client = reqwest::Client::new();
        for i in 0..60 {
            // Every other request a replayed GET, the others misses carrying a 4 KB body.
            let (request, expected) = if i % 2 == 0 {
                (client.get(format!("{}/known", replay.uri())), 200)
            } else {
                let url = format!("{}/unknown/{i}", replay.uri());
                (client.post(url).body("x".repeat(4096)), 501)
            };
            let status = request.send().await.expect("answers").status();
            assert_eq!(status.as_u16(), expected, "request {i}");
        }
        assert_eq!(replay.received_count(), 60);
        assert_eq!(replay.miss_count(), 30);
        assert!(
            replay.kept_requests() <= 20,
            "{} requests kept after 60 with keep_received 10",
            replay.kept_requests()
        );
    }
}
