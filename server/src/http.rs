//! The streamable HTTP transport: the same server (tools, gate, errors) behind
//! `POST/GET/DELETE /mcp` on a local port, next to stdio.
//!
//! Safe by default: it listens on loopback only and refuses any other address unless
//! [`HttpOptions::allow_remote`] is set; even then every request's `Host` header must name an
//! allowed host and a browser `Origin` must be an allowed origin (DNS-rebinding protection,
//! enforced by rmcp's [`StreamableHttpService`] before anything else runs). Each MCP session
//! (`Mcp-Session-Id`) gets a clone of the handler, so every session shares one registry and one
//! Modyo client.
//!
//! The server is plain HTTP/1.1 (hyper), with a graceful shutdown: when the `shutdown` future
//! completes, no new connection is accepted, open sessions and event streams are ended, and
//! in-flight requests get a short grace period.
//!
//! Limits keep a careless or hostile client from holding the process:
//!
//! - a connection that has not sent its whole request head within the header-read timeout is
//!   closed (`--header-timeout-ms`, `MODYO_HTTP_HEADER_TIMEOUT_MS`, default 30 s; an idle
//!   keep-alive connection is closed after as long, which must stay well above the clients'
//!   own keep-alive (Node's is 4 s): a client reusing a connection the server closes at that
//!   instant sees a failed request, as the TypeScript SDK did once on a loaded machine with
//!   10 s);
//! - a request body is read whole before anything acts on it, within its own size (16 MiB),
//!   a body timeout (`--body-timeout-ms`, `MODYO_HTTP_BODY_TIMEOUT_MS`, default 30 s) and one
//!   budget of 128 MiB for every body being read (see `intake.rs`), so a body that trickles in
//!   holds only its own connection, never the turn new sessions wait for;
//! - at most `--max-connections` (`MODYO_HTTP_MAX_CONNECTIONS`, default 256) connections are
//!   open at once: past it, new ones wait in the listen queue until one closes;
//! - at most `--max-sessions` (`MODYO_HTTP_MAX_SESSIONS`, default 1,024) MCP sessions are open
//!   at once: past it `initialize` is answered `503` until a session ends (`DELETE /mcp`, or
//!   rmcp's idle timeout of 5 minutes). The default is sized for clients that never end their
//!   session: the MCP Inspector CLI opens one per call and leaves it to the idle timeout, so a
//!   cap of 64 refused the 65th call of a sweep. Memory per session is not measured here: an
//!   adversarial run against the release binary saw 5,000 `initialize` add 277 MB (about 55 kB
//!   each), so 1,024 would be about 57 MB; `make bench` does not cover it.
//!
//! Each body is screened like a stdio line (`screen.rs`) before rmcp sees it: a parse error or
//! a batch is answered `400` with its JSON-RPC error, params that do not fit an MCP method
//! `-32602`.

use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::screen::{Screened, screen};
use crate::server::{ModyoServer, ServerError};

/// The path the MCP endpoint answers on (`http://127.0.0.1:8808/mcp`).
pub const MCP_PATH: &str = "/mcp";

/// How long in-flight requests may run once shutdown has begun.
const GRACE: Duration = Duration::from_secs(5);

mod intake;
mod options;

pub use intake::{BUFFERED_BYTES_BUDGET, MAX_REQUEST_BYTES};
pub use options::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_SESSIONS,
    DEFAULT_PORT, HttpArgs, HttpError, HttpOptions,
};

use intake::{Answer, Intake, json_answer};

/// A bound socket, ready to serve: binding first lets a caller learn the port (`--http
/// 127.0.0.1:0`) before serving.
#[derive(Debug)]
pub struct HttpListener {
    listener: TcpListener,
    addr: SocketAddr,
    options: HttpOptions,
}

impl HttpListener {
    /// Binds the socket; refuses a non-loopback address unless remote listening is allowed.
    pub async fn bind(options: HttpOptions) -> Result<HttpListener, HttpError> {
        let wanted = options.addr;
        if !wanted.ip().is_loopback() && !options.allow_remote {
            return Err(HttpError::NotLoopback { addr: wanted });
        }
        let listener = TcpListener::bind(wanted)
            .await
            .map_err(|source| HttpError::Bind {
                addr: wanted,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| HttpError::Bind {
            addr: wanted,
            source,
        })?;
        Ok(HttpListener {
            listener,
            addr,
            options,
        })
    }

    /// The address actually bound (the real port when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The MCP endpoint URL (`http://127.0.0.1:PORT/mcp`; a wildcard bind shows loopback).
    pub fn url(&self) -> String {
        let ip = match self.addr.ip() {
            ip if ip.is_unspecified() && ip.is_ipv4() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            ip if ip.is_unspecified() => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        format!("http://{}{MCP_PATH}", SocketAddr::new(ip, self.addr.port()))
    }

    /// Serves `handler` (one clone per MCP session) until `shutdown` completes.
    pub async fn serve<H>(
        self,
        handler: H,
        shutdown: impl Future<Output = ()> + Send,
    ) -> Result<(), ServerError>
    where
        H: ServerHandler + Clone + Send + Sync + 'static,
    {
        let stop = CancellationToken::new();
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(self.options.hosts())
            .with_allowed_origins(self.options.origins())
            .enforce_origin_validation()
            .with_cancellation_token(stop.child_token());
        let sessions = Arc::new(LocalSessionManager::default());
        let service = Arc::new(StreamableHttpService::new(
            move || Ok(handler.clone()),
            sessions.clone(),
            config,
        ));
        let cap = SessionCap {
            sessions,
            max: self.options.max_sessions,
            opening: Arc::new(tokio::sync::Mutex::new(())),
        };
        let header_timeout = self.options.header_timeout;
        let intake = Intake::new(self.options.body_timeout);
        let connections = Arc::new(tokio::sync::Semaphore::new(self.options.max_connections));
        let graceful = GracefulShutdown::new();
        tracing::info!(url = %self.url(), "serving MCP over streamable HTTP");
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            // A place first: past the cap, new connections wait in the listen queue.
            let place = tokio::select! {
                place = connections.clone().acquire_owned() => match place {
                    Ok(place) => place,
                    Err(_) => break,
                },
                () = &mut shutdown => break,
            };
            let (stream, peer) = tokio::select! {
                accepted = self.listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        tracing::warn!("accepting a connection failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
                () = &mut shutdown => break,
            };
            let service = service.clone();
            let cap = cap.clone();
            let intake = intake.clone();
            let route = hyper::service::service_fn(move |request: Request<Incoming>| {
                route(request, service.clone(), cap.clone(), intake.clone())
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(TokioIo::new(stream), route);
            let connection = graceful.watch(connection);
            tokio::spawn(async move {
                if let Err(e) = connection.await {
                    tracing::debug!(%peer, "HTTP connection ended: {e}");
                }
                drop(place);
            });
        }
        drop(self.listener);
        stop.cancel();
        tokio::select! {
            () = graceful.shutdown() => {}
            () = tokio::time::sleep(GRACE) => {
                tracing::warn!("HTTP connections still open after {GRACE:?}; closing them");
            }
        }
        Ok(())
    }
}

/// One request on `/mcp`: its body read whole within the limits ([`Intake`]), screened like a
/// stdio line (a parse error, a batch, params that do not fit an MCP method are answered
/// here), then handed to rmcp; a `POST` that opens a session takes its turn for the cap only
/// once its body is whole, so a slow body holds nobody else.
async fn route<H>(
    request: Request<Incoming>,
    service: Arc<StreamableHttpService<H, LocalSessionManager>>,
    cap: SessionCap,
    intake: Intake,
) -> Result<Answer, Infallible>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    if request.uri().path() != MCP_PATH {
        return Ok(not_found());
    }
    let (parts, body) = request.into_parts();
    let body = match intake.read(body).await {
        Ok(body) => body,
        Err(refused) => return Ok(refused),
    };
    let post = parts.method == hyper::Method::POST;
    if post && let Screened::Answer(answer) = screen(&body.bytes) {
        let status = if answer.is_array()
            || matches!(
                answer["error"]["code"].as_i64(),
                Some(crate::screen::PARSE_ERROR | crate::screen::INVALID_REQUEST)
            ) {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        };
        return Ok(json_answer(status, &answer));
    }
    let delete = parts.method == hyper::Method::DELETE;
    // A POST without a session id opens one (`initialize`): one at a time, and only while
    // there is room.
    let opens = post && !parts.headers.contains_key(SESSION_HEADER);
    let request = Request::from_parts(parts, Full::new(body.bytes.clone()));
    let _turn = if opens {
        let turn = cap.opening.clone().lock_owned().await;
        if cap.sessions.sessions.read().await.len() >= cap.max {
            return Ok(sessions_full(cap.max));
        }
        Some(turn)
    } else {
        None
    };
    let mut response = service.handle(request).await;
    drop(body);
    // A session closed by DELETE answers 204 No Content, the status clients expect (rmcp says
    // 202, which the Python SDK logs as a failed termination); the body is empty either way.
    if delete && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    Ok(response)
}

/// The header that names an MCP session.
const SESSION_HEADER: &str = "mcp-session-id";

/// The open sessions, their cap, and the turn a new session waits for (so two `initialize`
/// requests cannot both take the last place).
#[derive(Clone)]
struct SessionCap {
    sessions: Arc<LocalSessionManager>,
    max: usize,
    opening: Arc<tokio::sync::Mutex<()>>,
}

/// `503`: no room for another session, as a JSON-RPC error a client can show.
fn sessions_full(max: usize) -> Response<http_body_util::combinators::BoxBody<Bytes, Infallible>> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32000,
            "message": format!(
                "the server already holds {max} MCP sessions, its cap (--max-sessions, MODYO_HTTP_MAX_SESSIONS); \
    close one (DELETE /mcp with its Mcp-Session-Id) or retry later"
            ),
        },
    });
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    headers.insert(
        hyper::header::RETRY_AFTER,
        hyper::header::HeaderValue::from_static("5"),
    );
    response
}

fn not_found() -> Response<http_body_util::combinators::BoxBody<Bytes, Infallible>> {
    let mut response = Response::new(
        Full::new(Bytes::from_static(b"Not Found: the MCP endpoint is /mcp")).boxed(),
    );
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

impl ModyoServer {
    /// Serves MCP over streamable HTTP on `listener` until `shutdown` completes.
    pub async fn serve_http(
        self,
        listener: HttpListener,
        shutdown: impl Future<Output = ()> + Send,
    ) -> Result<(), ServerError> {
        listener.serve(self, shutdown).await
    }
}

/// Completes on Ctrl-C or, on Unix, SIGTERM: the shutdown signal of the binaries.
pub async fn termination() {
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(e) => {
                    tracing::warn!("cannot listen for SIGTERM: {e}");
                    let _ = tokio::signal::ctrl_c().await;
                    return;
                }
            };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> SocketAddr {
        HttpOptions::parse(text).expect("parses").addr()
    }

    #[test]
    fn addresses_default_to_loopback_and_the_documented_port() {
        assert_eq!(parsed(""), "127.0.0.1:8808".parse().unwrap());
        assert_eq!(parsed("9000"), "127.0.0.1:9000".parse().unwrap());
        assert_eq!(parsed(":9000"), "127.0.0.1:9000".parse().unwrap());
        assert_eq!(parsed("localhost:0"), "127.0.0.1:0".parse().unwrap());
        assert_eq!(parsed("LOCALHOST"), "127.0.0.1:8808".parse().unwrap());
        assert_eq!(parsed("[::1]:9000"), "[::1]:9000".parse().unwrap());
        assert_eq!(parsed("::1"), "[::1]:8808".parse().unwrap());
        assert_eq!(parsed("0.0.0.0:80"), "0.0.0.0:80".parse().unwrap());
        assert_eq!(parsed("10.1.2.3"), "10.1.2.3:8808".parse().unwrap());
    }

    #[test]
    fn unusable_addresses_say_what_is_expected() {
        for bad in [
            "example.com:80",
            "99999",
            ":x",
            "localhost:port",
            "1.2.3.4:99999",
        ] {
            let err = HttpOptions::parse(bad).expect_err(bad).to_string();
            assert!(err.starts_with(&format!("--http {bad}: ")), "{err}");
        }
    }

    #[tokio::test]
    async fn a_non_loopback_bind_is_refused_without_allow_remote() {
        let options = HttpOptions::parse("0.0.0.0:0").unwrap();
        let err = HttpListener::bind(options).await.expect_err("refused");
        assert!(matches!(err, HttpError::NotLoopback { .. }), "{err}");
        assert!(err.to_string().contains("--allow-remote"), "{err}");
    }

    #[tokio::test]
    async fn a_loopback_bind_reports_its_port_and_url() {
        let listener = HttpListener::bind(HttpOptions::loopback(0)).await.unwrap();
        let port = listener.local_addr().port();
        assert_ne!(port, 0);
        assert_eq!(listener.url(), format!("http://127.0.0.1:{port}/mcp"));
    }

    #[test]
    fn remote_listening_accepts_the_listening_ip_and_the_extra_hosts() {
        let options = HttpOptions::parse("192.0.2.7:80")
            .unwrap()
            .allow_remote(true)
            .allowed_host("mcp.example.test");
        let hosts = options.hosts();
        assert!(hosts.contains(&"192.0.2.7".to_owned()), "{hosts:?}");
        assert!(hosts.contains(&"mcp.example.test".to_owned()), "{hosts:?}");
        assert!(hosts.contains(&"localhost".to_owned()), "{hosts:?}");
        let wildcard = HttpOptions::parse("0.0.0.0:80").unwrap().allow_remote(true);
        assert!(!wildcard.hosts().contains(&"0.0.0.0".to_owned()));
    }

    #[test]
    fn http_flags_without_http_mean_stdio() {
        assert_eq!(HttpArgs::default().options().unwrap(), None);
        let args = HttpArgs {
            http: Some("127.0.0.1:0".into()),
            allowed_origins: vec!["https://app.example.test".into()],
            ..HttpArgs::default()
        };
        let options = args.options().unwrap().expect("http");
        assert!(
            options
                .origins()
                .contains(&"https://app.example.test".to_owned())
        );
    }
}
