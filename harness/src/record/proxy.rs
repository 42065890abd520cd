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

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::watch;
use url::Url;

use super::drift::{Difference, json_differences};
use super::guard::{Guard, Refusal};
use super::redact::Redactor;
use modyo_replay::cassette::{
    Interaction, RecordedRequest, RecordedResponse, ResponseBody, request_line,
};
use modyo_replay::replay::MISS_HEADER;

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

async fn accept(listener: TcpListener, state: Arc<State>, mut signal: watch::Receiver<()>) {
    loop {
        let stream = tokio::select! {
            biased;
            _ = signal.changed() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::debug!("record proxy: accept failed: {e}");
                    continue;
                }
            },
        };
        let state = state.clone();
        let mut signal = signal.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(handle(&state, request).await) }
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.timer(TokioTimer::new());
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            loop {
                tokio::select! {
                    result = connection.as_mut() => {
                        if let Err(e) = result {
                            tracing::debug!("record proxy: connection closed: {e}");
                        }
                        break;
                    }
                    _ = signal.changed() => connection.as_mut().graceful_shutdown(),
                }
            }
        });
    }
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

async fn forward(
    state: &State,
    incoming: &Incoming1,
    stored: RecordedRequest,
    unstorable: Option<String>,
) -> (Answer, Exchange) {
    let redactor = &state.config.redactor;
    if let Some(refusal) = state
        .config
        .guard
        .as_ref()
        .and_then(|guard| guard.admit(&incoming.method).err())
    {
        return refused(stored, &refusal, redactor);
    }
    let Some(upstream) = &state.config.upstream else {
        let answer = proxy_error(502, "record proxy: no live account configured");
        let exchange = exchange_of(
            stored,
            &answer,
            Origin::Failed("no live account configured".into()),
            None,
            redactor,
        );
        return (answer, exchange);
    };
    let mut url = format!(
        "{}{}",
        upstream.as_str().trim_end_matches('/'),
        incoming.path
    );
    if let Some(query) = &incoming.raw_query {
        url.push('?');
        url.push_str(query);
    }
    let method =
        reqwest::Method::from_bytes(incoming.method.as_bytes()).unwrap_or(reqwest::Method::GET);
    let mut headers = reqwest::header::HeaderMap::new();
    for (name, value) in &incoming.headers {
        let lower = name.as_str();
        if HOP_BY_HOP.contains(&lower) || lower == "content-length" || lower == "accept-encoding" {
            continue;
        }
        headers.append(name.clone(), value.clone());
    }
    let started = Instant::now();
    let attempt = || {
        let request = state
            .http
            .request(method.clone(), url.as_str())
            .headers(headers.clone())
            .body(incoming.body.clone());
        async move {
            let response = request.send().await?;
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            response.bytes().await.map(|body| Answer {
                status,
                headers,
                body,
            })
        }
    };
    let result = match &state.config.guard {
        None => attempt().await,
        Some(guard) => match guard.send(attempt, throttled).await {
            Ok(result) => result,
            Err(refusal) => return refused(stored, &refusal, redactor),
        },
    };
    let elapsed = started.elapsed();
    match result {
        Ok(answer) => {
            let origin = match unstorable {
                Some(reason) => Origin::Unstorable(reason),
                None => Origin::Live,
            };
            let delay = state
                .config
                .record_latency
                .then(|| u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX));
            let exchange = exchange_of(stored, &answer, origin, delay, redactor);
            (answer, exchange)
        }
        Err(e) => {
            let detail = redactor.text(&e.without_url().to_string());
            let answer = proxy_error(
                502,
                &format!("record proxy: live account unreachable: {detail}"),
            );
            let exchange = exchange_of(stored, &answer, Origin::Failed(detail), None, redactor);
            (answer, exchange)
        }
    }
}

/// The `Retry-After` value of a `429` or `503` answer (`Some(None)` without one).
fn throttled(answer: &Answer) -> Option<Option<String>> {
    matches!(answer.status, 429 | 503).then(|| {
        answer
            .headers
            .get(hyper::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    })
}

/// The local answer to a request the guard did not let through.
fn refused(stored: RecordedRequest, refusal: &Refusal, redactor: &Redactor) -> (Answer, Exchange) {
    let reason = refusal.to_string();
    tracing::debug!(request = %request_line(&stored), "{reason}");
    let answer = proxy_error(refusal.status(), &reason);
    let exchange = exchange_of(stored, &answer, Origin::Refused(reason), None, redactor);
    (answer, exchange)
}

/// Offers the (redacted) request to the replay server.
async fn replay(state: &State, stored: &RecordedRequest) -> (Answer, Origin) {
    let Some(base) = &state.config.replay else {
        return (
            proxy_error(502, "record proxy: no replay server"),
            Origin::Failed("no replay server".into()),
        );
    };
    let url = match Url::parse(&format!("{}{}", base.trim_end_matches('/'), stored.path)) {
        Ok(mut url) => {
            if !stored.query.is_empty() {
                let mut pairs = url.query_pairs_mut();
                for (k, v) in stored.query.iter() {
                    for v in v.values() {
                        pairs.append_pair(k, v);
                    }
                }
            }
            url
        }
        Err(e) => {
            return (
                proxy_error(502, &format!("record proxy: bad replay URL: {e}")),
                Origin::Failed(e.to_string()),
            );
        }
    };
    let method =
        reqwest::Method::from_bytes(stored.method.as_bytes()).unwrap_or(reqwest::Method::GET);
    let mut request = state.http.request(method, url);
    if let Some(body) = &stored.body {
        request = request
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
    }
    let response = match request.send().await {
        Ok(response) => response,
        Err(e) => {
            let detail = e.without_url().to_string();
            return (
                proxy_error(
                    502,
                    &format!("record proxy: replay server failed: {detail}"),
                ),
                Origin::Failed(detail),
            );
        }
    };
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let missed = headers.contains_key(MISS_HEADER);
    let body = response.bytes().await.unwrap_or_default();
    let origin = if missed {
        let diagnostic = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|v| v["errors"][0].as_str().map(str::to_owned))
            .map(|e| e.trim_start_matches("replay miss: ").to_owned())
            .unwrap_or_else(|| "no recorded interaction matches".into());
        Origin::Missed(diagnostic)
    } else {
        Origin::Replayed
    };
    (
        Answer {
            status,
            headers,
            body,
        },
        origin,
    )
}

fn exchange_of(
    request: RecordedRequest,
    answer: &Answer,
    origin: Origin,
    delay_ms: Option<u64>,
    redactor: &Redactor,
) -> Exchange {
    let response = redactor.response(&response_of(answer, delay_ms));
    Exchange {
        interaction: Interaction::new(request, response),
        origin,
        drift: None,
    }
}

/// The answer as a recorded response (not yet redacted): JSON when it parses, else text,
/// else bytes.
fn response_of(answer: &Answer, delay_ms: Option<u64>) -> RecordedResponse {
    let body = if answer.body.is_empty() {
        ResponseBody::Empty
    } else if let Ok(json) = serde_json::from_slice::<Value>(&answer.body) {
        ResponseBody::Json(json)
    } else if let Ok(text) = std::str::from_utf8(&answer.body) {
        ResponseBody::Text(text.to_owned())
    } else {
        ResponseBody::Bytes(answer.body.to_vec())
    };
    let mut response = RecordedResponse {
        status: answer.status,
        headers: Default::default(),
        body,
        delay_ms,
    };
    for (name, value) in &answer.headers {
        if let Ok(value) = value.to_str() {
            response = response.header(name.as_str(), value);
        }
    }
    response
}

/// How a live response differs in structure from a recorded one: the status, then the body's
/// keys and types (values ignored), or its kind when one is not JSON.
pub(crate) fn shape_drift(recorded: &RecordedResponse, live: &RecordedResponse) -> Vec<Difference> {
    let mut out = Vec::new();
    if recorded.status != live.status {
        out.push(Difference::Status {
            recorded: recorded.status,
            live: live.status,
        });
    }
    match (&recorded.body, &live.body) {
        (ResponseBody::Json(r), ResponseBody::Json(l)) => out.extend(json_differences(r, l)),
        (r, l) if std::mem::discriminant(r) != std::mem::discriminant(l) => {
            out.push(Difference::TypeChanged {
                path: "$".into(),
                recorded: body_kind(r).into(),
                live: body_kind(l).into(),
            })
        }
        _ => {}
    }
    out
}

fn body_kind(body: &ResponseBody) -> &'static str {
    match body {
        ResponseBody::Empty => "no body",
        ResponseBody::Json(_) => "JSON body",
        ResponseBody::Text(_) => "text body",
        ResponseBody::Bytes(_) => "binary body",
    }
}

fn proxy_error(status: u16, message: &str) -> Answer {
    let mut headers = HeaderMap::new();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Answer {
        status,
        headers,
        body: Bytes::from(json!({"errors": [message]}).to_string()),
    }
}

fn local_error(status: u16, message: &str) -> Response<Full<Bytes>> {
    to_hyper(proxy_error(status, message))
}

fn to_hyper(answer: Answer) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(answer.body));
    *response.status_mut() = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::BAD_GATEWAY);
    let headers = response.headers_mut();
    for (name, value) in &answer.headers {
        let lower = name.as_str();
        if HOP_BY_HOP.contains(&lower) || lower == "content-length" {
            continue;
        }
        if let Ok(name) = HeaderName::from_bytes(name.as_str().as_bytes()) {
            headers.append(name, value.clone());
        }
    }
    response
}
