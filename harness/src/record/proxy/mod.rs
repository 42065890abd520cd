//! The recording proxy: a small HTTP/1 server on `127.0.0.1` (random port) between the real
//! server and the live account.
//!
//! wiremock cannot forward (a `Respond` is synchronous), so this is plain hyper. Each request
//! is redacted first; what happens next depends on the [`Policy`]:
//!
//! - [`Policy::Forward`]: sent to the live account as received (the real `Authorization`
//!   included), the live response returned to the server **unchanged**, a redacted copy kept;
//! - [`Policy::ReplayElseForward`]: the redacted request is offered to a replay server first;
//!   only a miss goes live (VCR's `new_episodes`);
//! - [`Policy::ReplayOnly`]: only the replay server answers; a miss stays a miss (its 501 and
//!   near-miss diagnostic reach the server);
//! - [`Policy::Compare`]: sent live (the server sees the live answer) and to the replay server,
//!   and the two bodies are compared structurally (the drift check).
//!
//! With a [`Guard`] ([`ProxyConfig::guard`]), every request that would go live is held to its
//! limits first: a method a read-only guard refuses, or a request past the budget, is answered
//! locally (`405`, `503`) and never sent; `429`/`503` answers are retried as `Retry-After` asks.
//!
//! Every request leaves an [`Exchange`] (redacted), read with [`RecordingProxy::take`]. Nothing
//! the proxy keeps or logs carries a request header.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::HeaderMap;
use hyper::{Request, Response};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::watch;
use url::Url;

use super::drift::Difference;
use super::guard::Guard;
use super::redact::Redactor;
use modyo_replay::cassette::{Interaction, RecordedRequest, request_line};
use modyo_replay::replay::serve_http1;

mod upstream;
pub(crate) use upstream::shape_drift;
use upstream::{exchange_of, forward, local_error, replay, response_of, to_hyper};

/// How long the proxy waits for the live account (the server has its own, shorter, timeout).
const UPSTREAM_TIMEOUT: Duration = Duration::from_secs(300);

/// Headers that belong to one connection, never forwarded either way.
const HOP_BY_HOP: [&str; 9] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
];

/// What the proxy does with each request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Everything goes live and is kept.
    Forward,
    /// Replay first; misses go live and are kept.
    ReplayElseForward,
    /// Replay only; misses fail.
    ReplayOnly,
    /// Live and replay both; the structural difference is kept.
    Compare,
}

/// Why the proxy could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProxyError {
    /// Binding the local port failed.
    #[error("cannot listen on 127.0.0.1: {0}")]
    Bind(#[source] std::io::Error),
    /// The policy needs a live account or a replay server that was not given.
    #[error("{0}")]
    Setup(String),
}

/// Where the answer to one request came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// The live account answered; the redacted copy can be stored.
    Live,
    /// The live account answered but the request cannot be stored in format v1 (say why).
    Unstorable(String),
    /// The replay server answered from the cassette.
    Replayed,
    /// Nothing recorded matched; the near-miss diagnostic.
    Missed(String),
    /// The live account could not be reached (redacted error).
    Failed(String),
    /// The [`Guard`] did not let the request leave (read-only, or the budget spent); why.
    Refused(String),
}

/// How a live answer compares with the recording (drift check only).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Drift {
    /// The cassette has no answer for this request; the near-miss diagnostic.
    Unrecorded(String),
    /// The structural differences (empty: same shape).
    Shape(Vec<Difference>),
}

/// One request through the proxy, redacted.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Exchange {
    /// The request and the answer the server got, both redacted (for a miss, the 501).
    pub interaction: Interaction,
    /// Where the answer came from.
    pub origin: Origin,
    /// With [`Policy::Compare`]: how the live answer compares with the recording.
    pub drift: Option<Drift>,
}

/// How the proxy is set up.
#[derive(Debug, Clone)]
pub struct ProxyConfig {
    /// The live account (`MODYO_URL`): its path, if any, prefixes every forwarded path.
    pub upstream: Option<Url>,
    /// The replay server to consult (its base URI).
    pub replay: Option<String>,
    /// What to do with each request.
    pub policy: Policy,
    /// What to scrub from everything kept.
    pub redactor: Redactor,
    /// Keep the live latency as `delay_ms`.
    pub record_latency: bool,
    /// What may leave for the live account (read-only, budget, concurrency, `Retry-After`);
    /// `None`: everything, one attempt each.
    pub guard: Option<Guard>,
}

struct State {
    config: ProxyConfig,
    http: reqwest::Client,
    exchanges: Mutex<Vec<Exchange>>,
}

/// A running recording proxy; stops when dropped.
pub struct RecordingProxy {
    address: SocketAddr,
    state: Arc<State>,
    shutdown: watch::Sender<()>,
}

impl std::fmt::Debug for RecordingProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordingProxy")
            .field("address", &self.address)
            .field("policy", &self.state.config.policy)
            .finish_non_exhaustive()
    }
}

impl RecordingProxy {
    /// Starts the proxy on `127.0.0.1` with a random port.
    pub async fn start(config: ProxyConfig) -> Result<RecordingProxy, ProxyError> {
        let needs_upstream = config.policy != Policy::ReplayOnly;
        let needs_replay = config.policy != Policy::Forward;
        if needs_upstream && config.upstream.is_none() {
            return Err(ProxyError::Setup(
                "this mode calls the live account: set MODYO_URL and MODYO_TOKEN".into(),
            ));
        }
        if needs_replay && config.replay.is_none() {
            return Err(ProxyError::Setup(
                "this mode replays a cassette, but no replay server was given".into(),
            ));
        }
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(UPSTREAM_TIMEOUT)
            .build()
            .map_err(|e| ProxyError::Setup(format!("cannot build the HTTP client: {e}")))?;
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(ProxyError::Bind)?;
        let address = listener.local_addr().map_err(ProxyError::Bind)?;
        let state = Arc::new(State {
            config,
            http,
            exchanges: Mutex::new(Vec::new()),
        });
        let (shutdown, signal) = watch::channel(());
        tokio::spawn(accept(listener, state.clone(), signal));
        Ok(RecordingProxy {
            address,
            state,
            shutdown,
        })
    }

    /// The base URI, `http://127.0.0.1:<port>`: point the server's `MODYO_URL` here.
    pub fn uri(&self) -> String {
        format!("http://{}", self.address)
    }

    /// The exchanges since the last call, in completion order.
    pub fn take(&self) -> Vec<Exchange> {
        std::mem::take(
            &mut *self
                .state
                .exchanges
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }
}

impl Drop for RecordingProxy {
    fn drop(&mut self) {
        let _ = self.shutdown.send(());
    }
}

async fn accept(listener: TcpListener, state: Arc<State>, signal: watch::Receiver<()>) {
    serve_http1(listener, signal, "record proxy", move |request| {
        let state = state.clone();
        async move { handle(&state, request).await }
    })
    .await;
}

/// A request as it arrived.
struct Incoming1 {
    method: String,
    path: String,
    raw_query: Option<String>,
    headers: HeaderMap,
    body: Bytes,
}

/// A response ready for the server.
struct Answer {
    status: u16,
    headers: HeaderMap,
    body: Bytes,
}

async fn handle(state: &State, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let (parts, body) = request.into_parts();
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => return local_error(400, &format!("cannot read the request body: {e}")),
    };
    let incoming = Incoming1 {
        method: parts.method.as_str().to_ascii_uppercase(),
        path: parts.uri.path().to_owned(),
        raw_query: parts.uri.query().map(str::to_owned),
        headers: parts.headers,
        body,
    };
    let redactor = &state.config.redactor;
    let (stored_request, unstorable) = stored_request(&incoming, redactor);
    let (answer, exchange) = match state.config.policy {
        Policy::Forward => forward(state, &incoming, stored_request, unstorable).await,
        Policy::ReplayOnly => {
            let (answer, origin) = replay(state, &stored_request).await;
            let exchange = exchange_of(stored_request, &answer, origin, None, redactor);
            (answer, exchange)
        }
        Policy::ReplayElseForward => {
            let (answer, origin) = replay(state, &stored_request).await;
            if matches!(origin, Origin::Missed(_)) {
                forward(state, &incoming, stored_request, unstorable).await
            } else {
                let exchange = exchange_of(stored_request, &answer, origin, None, redactor);
                (answer, exchange)
            }
        }
        Policy::Compare => {
            let (recorded, origin) = replay(state, &stored_request).await;
            let (answer, mut exchange) =
                forward(state, &incoming, stored_request, unstorable).await;
            exchange.drift = match (&exchange.origin, origin) {
                (Origin::Failed(_), _) => None,
                (_, Origin::Missed(diagnostic)) => Some(Drift::Unrecorded(diagnostic)),
                (_, _) => Some(Drift::Shape(shape_drift(
                    &response_of(&recorded, None),
                    &exchange.interaction.response,
                ))),
            };
            (answer, exchange)
        }
    };
    tracing::debug!(
        request = %request_line(&exchange.interaction.request),
        status = exchange.interaction.response.status,
        origin = ?exchange.origin,
        "record proxy"
    );
    state
        .exchanges
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(exchange);
    to_hyper(answer)
}

/// The redacted request to store, and why it cannot be stored (a non-JSON body).
fn stored_request(incoming: &Incoming1, redactor: &Redactor) -> (RecordedRequest, Option<String>) {
    let mut request = RecordedRequest::new(incoming.method.clone(), incoming.path.clone());
    if let Some(query) = &incoming.raw_query {
        for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
            request = request.query(k, v);
        }
    }
    let mut unstorable = None;
    if !incoming.body.is_empty() {
        match serde_json::from_slice::<Value>(&incoming.body) {
            Ok(json) => request.body = Some(json),
            Err(_) => {
                unstorable = Some(format!(
                    "non-JSON request body ({} bytes): format v1 only matches JSON bodies",
                    incoming.body.len()
                ))
            }
        }
    }
    (redactor.request(&request), unstorable)
}
