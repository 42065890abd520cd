//! The replay server's HTTP side: a small HTTP/1 server on `127.0.0.1` (random port) that hands
//! every request to one function and keeps nothing of it.
//!
//! It replaced a wiremock `MockServer`, which keeps a copy of every request each of its mocks
//! matched (`MountedMock::matched_requests`, used by scoped mocks, kept whether or not request
//! recording is disabled): with the requests' headers and bodies, about 9 KB a tool call that
//! an offline server never gave back. Here a request lives as long as its answer is being
//! made; what the replay keeps of it is the ledger's business, bounded there.
//!
//! Like wiremock, the server runs on a thread of its own with its own single-threaded tokio
//! runtime, so it answers even while the caller's runtime is blocked (a test waiting on a child
//! process that talks to it), and stops when dropped. A response's recorded delay is waited
//! for after the answer was chosen, outside any lock.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::watch;
use url::Url;

/// A request as it arrived: what the replay matches on, plus the `Authorization` header, which
/// is only compared (never kept).
pub(crate) struct Arrived {
    pub(crate) method: String,
    /// The URL, parsed like wiremock did (`http://localhost` + the request target), so paths and
    /// queries are normalized the same way.
    pub(crate) url: Url,
    pub(crate) content_type: String,
    pub(crate) authorization: Option<HeaderValue>,
    pub(crate) body: Bytes,
}

/// A ready answer: cheap to clone (the body is shared), so a sequence hands out copies of it.
/// The content type is kept apart from the other headers, which most recorded responses do
/// not have: an empty `HeaderMap` allocates nothing, and a mounted set holds one `Reply` per
/// recorded response.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub(crate) status: StatusCode,
    /// Every header but `content-type`, in recorded order.
    pub(crate) headers: HeaderMap,
    /// Written after the other headers.
    pub(crate) content_type: Option<HeaderValue>,
    pub(crate) body: Bytes,
    pub(crate) delay: Option<Duration>,
}

impl Reply {
    /// A JSON answer.
    pub(crate) fn json(status: StatusCode, body: &serde_json::Value) -> Reply {
        Reply {
            status,
            headers: HeaderMap::new(),
            content_type: Some(HeaderValue::from_static("application/json")),
            body: Bytes::from(body.to_string()),
            delay: None,
        }
    }

    fn into_response(self) -> Response<Full<Bytes>> {
        let mut response = Response::new(Full::new(self.body));
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        *headers = self.headers;
        if let Some(content_type) = self.content_type {
            headers.insert(CONTENT_TYPE, content_type);
        }
        response
    }
}

/// What answers every request.
pub(crate) type Handler = Arc<dyn Fn(Arrived) -> Reply + Send + Sync>;

/// A running HTTP server; stops when dropped.
pub(crate) struct HttpServer {
    address: SocketAddr,
    shutdown: watch::Sender<()>,
}

impl HttpServer {
    /// Binds `127.0.0.1` on a random port and serves `handler` from a thread of its own. The
    /// port is bound when this returns: connections made at once wait in its backlog.
    pub(crate) fn start(handler: Handler) -> std::io::Result<HttpServer> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let address = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (shutdown, signal) = watch::channel(());
        std::thread::Builder::new()
            .name(format!("replay {address}"))
            .spawn(move || {
                runtime.block_on(async move {
                    match TcpListener::from_std(listener) {
                        Ok(listener) => accept(listener, handler, signal).await,
                        Err(e) => tracing::error!("replay server: cannot listen: {e}"),
                    }
                });
            })?;
        Ok(HttpServer { address, shutdown })
    }

    /// The address it listens on.
    pub(crate) fn address(&self) -> SocketAddr {
        self.address
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.shutdown.send(());
    }
}

async fn accept(listener: TcpListener, handler: Handler, signal: watch::Receiver<()>) {
    serve_http1(listener, signal, "replay server", move |request| {
        let handler = handler.clone();
        async move { answer(&handler, request).await }
    })
    .await;
}

/// Serves HTTP/1 on `listener` until `signal` changes: each connection on a task of its own,
/// each request answered by `answer`, open connections closed gracefully at the signal.
/// `label` names the server in its debug lines. The replay server and the lab's recording
/// proxy both run on it.
pub async fn serve_http1<F, Fut>(
    listener: TcpListener,
    mut signal: watch::Receiver<()>,
    label: &'static str,
    answer: F,
) where
    F: Fn(Request<Incoming>) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    loop {
        let stream = tokio::select! {
            biased;
            _ = signal.changed() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::debug!("{label}: accept failed: {e}");
                    continue;
                }
            },
        };
        let answer = answer.clone();
        let mut signal = signal.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let reply = answer(request);
                async move { Ok::<_, Infallible>(reply.await) }
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.timer(TokioTimer::new());
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            loop {
                tokio::select! {
                    result = connection.as_mut() => {
                        if let Err(e) = result {
                            tracing::debug!("{label}: connection closed: {e}");
                        }
                        break;
                    }
                    _ = signal.changed() => connection.as_mut().graceful_shutdown(),
                }
            }
        });
    }
}

async fn answer(handler: &Handler, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let (parts, body) = request.into_parts();
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => return bad_request(&format!("cannot read the request body: {e}")),
    };
    let target = match parts.uri.authority() {
        Some(_) => parts.uri.to_string(),
        None => format!("http://localhost{}", parts.uri),
    };
    let url = match Url::parse(&target) {
        Ok(url) => url,
        Err(e) => return bad_request(&format!("the request target is not a URL: {e}")),
    };
    let header = |name: HeaderName| parts.headers.get(name);
    let arrived = Arrived {
        method: parts.method.as_str().to_ascii_uppercase(),
        url,
        content_type: header(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned(),
        authorization: header(hyper::header::AUTHORIZATION).cloned(),
        body,
    };
    let reply = handler(arrived);
    if let Some(delay) = reply.delay {
        tokio::time::sleep(delay).await;
    }
    reply.into_response()
}

fn bad_request(message: &str) -> Response<Full<Bytes>> {
    Reply::json(
        StatusCode::BAD_REQUEST,
        &serde_json::json!({"errors": [format!("replay: {message}")]}),
    )
    .into_response()
}
