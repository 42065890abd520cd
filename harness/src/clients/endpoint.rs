//! The capture endpoint: a small HTTP/1 server on `127.0.0.1` (random port) that stands in
//! for a model API. Every request is kept (path and body, nothing else: no header, so no key)
//! and answered by a [`Script`], a pure function of the request, so the same conversation gets
//! the same answers whatever the timing.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// One request as the endpoint received it.
#[derive(Debug, Clone)]
pub(crate) struct Captured {
    /// The path and query (`/v1/messages?beta=true`).
    pub(crate) path: String,
    /// The body as JSON (`Null` when it was not JSON).
    pub(crate) body: Value,
}

/// What the endpoint answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answer {
    /// HTTP status.
    pub(crate) status: u16,
    /// `Content-Type`.
    pub(crate) content_type: &'static str,
    /// The body.
    pub(crate) body: String,
}

impl Answer {
    /// A JSON answer.
    pub(crate) fn json(status: u16, body: &Value) -> Answer {
        Answer {
            status,
            content_type: "application/json",
            body: body.to_string(),
        }
    }

    /// A server-sent event stream.
    pub(crate) fn event_stream(body: String) -> Answer {
        Answer {
            status: 200,
            content_type: "text/event-stream",
            body,
        }
    }
}

/// The scripted model: the answer to one request, from its path and body alone.
pub(crate) trait Script: Send + Sync + 'static {
    /// Answers one request.
    fn answer(&self, path: &str, body: &Value) -> Answer;
}

struct State {
    script: Box<dyn Script>,
    captured: Mutex<Vec<Captured>>,
}

/// A running capture endpoint; stops when dropped.
pub(crate) struct Endpoint {
    address: SocketAddr,
    state: Arc<State>,
    shutdown: watch::Sender<()>,
}

impl Endpoint {
    /// Binds a random loopback port and serves `script`.
    pub(crate) async fn start(script: Box<dyn Script>) -> std::io::Result<Endpoint> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let address = listener.local_addr()?;
        let state = Arc::new(State {
            script,
            captured: Mutex::new(Vec::new()),
        });
        let (shutdown, signal) = watch::channel(());
        tokio::spawn(accept(listener, state.clone(), signal));
        Ok(Endpoint {
            address,
            state,
            shutdown,
        })
    }

    /// `http://127.0.0.1:<port>`, the base URL to give the client.
    pub(crate) fn uri(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Every request so far, in arrival order.
    pub(crate) fn captured(&self) -> Vec<Captured> {
        self.state
            .captured
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for Endpoint {
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
                    tracing::debug!("capture endpoint: accept failed: {e}");
                    continue;
                }
            },
        };
        let state = state.clone();
        let signal = signal.clone();
        tokio::spawn(connection(stream, state, signal));
    }
}

async fn connection(
    stream: tokio::net::TcpStream,
    state: Arc<State>,
    mut signal: watch::Receiver<()>,
) {
    let service = hyper::service::service_fn(move |request| {
        let state = state.clone();
        async move { Ok::<_, Infallible>(handle(&state, request).await) }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new());
    let served = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(served);
    tokio::select! {
        result = served.as_mut() => {
            if let Err(e) = result {
                tracing::debug!("capture endpoint: connection closed: {e}");
            }
        }
        _ = signal.changed() => {}
    }
}

async fn handle(state: &State, request: Request<hyper::body::Incoming>) -> Response<Full<Bytes>> {
    let path = request.uri().path_and_query().map_or_else(
        || request.uri().path().to_owned(),
        |p| p.as_str().to_owned(),
    );
    let body = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => {
            tracing::debug!("capture endpoint: reading a body failed: {e}");
            Bytes::new()
        }
    };
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let answer = state.script.answer(&path, &body);
    state
        .captured
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(Captured { path, body });
    let mut response = Response::new(Full::new(Bytes::from(answer.body)));
    *response.status_mut() =
        StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(answer.content_type),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Echo;

    impl Script for Echo {
        fn answer(&self, path: &str, body: &Value) -> Answer {
            Answer::json(200, &json!({"path": path, "got": body}))
        }
    }

    #[tokio::test]
    async fn keeps_every_request_and_answers_from_the_script() {
        let endpoint = Endpoint::start(Box::new(Echo)).await.expect("binds");
        assert!(endpoint.uri().starts_with("http://127.0.0.1:"));
        let client = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client");
        let answer: Value = client
            .post(format!("{}/v1/messages?beta=true", endpoint.uri()))
            .body(r#"{"a":1}"#)
            .send()
            .await
            .expect("answers")
            .json()
            .await
            .expect("json");
        assert_eq!(
            answer,
            json!({"path": "/v1/messages?beta=true", "got": {"a": 1}})
        );
        client
            .post(format!("{}/other", endpoint.uri()))
            .body("not json")
            .send()
            .await
            .expect("answers");
        let captured = endpoint.captured();
        assert_eq!(captured.len(), 2);
        assert_eq!(captured[0].body, json!({"a": 1}));
        assert_eq!(
            (captured[1].path.as_str(), &captured[1].body),
            ("/other", &Value::Null)
        );
    }
}
