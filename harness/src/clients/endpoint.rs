//! The capture endpoint: a wiremock server on `127.0.0.1` (random port) that stands in for a
//! model API. Every request is kept (path and body; headers, and so the dummy key, are never
//! read) and answered by a [`Model`], a pure function of the request, so the same
//! conversation gets the same answers whatever the timing.

use serde_json::Value;
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// One request as the endpoint received it.
#[derive(Debug, Clone)]
pub(crate) struct Captured {
    /// The path and query (`/v1/messages?beta=true`).
    pub(crate) path: String,
    /// The body as JSON (`Null` when it was not JSON).
    pub(crate) body: Value,
}

impl Captured {
    fn of(request: &Request) -> Captured {
        let url = &request.url;
        let path = match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_owned(),
        };
        Captured {
            path,
            body: serde_json::from_slice(&request.body).unwrap_or(Value::Null),
        }
    }
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

    /// A server-sent event stream (sent whole: the client reads it as it would a stream).
    pub(crate) fn event_stream(body: String) -> Answer {
        Answer {
            status: 200,
            content_type: "text/event-stream",
            body,
        }
    }
}

/// The scripted model: the answer to one request, from its path and body alone.
pub(crate) trait Model: Send + Sync + 'static {
    /// Answers one request.
    fn answer(&self, path: &str, body: &Value) -> Answer;
}

impl Model for super::api::Script {
    fn answer(&self, path: &str, body: &Value) -> Answer {
        super::api::Script::answer(self, path, body)
    }
}

struct Scripted(Box<dyn Model>);

impl Respond for Scripted {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let captured = Captured::of(request);
        let answer = self.0.answer(&captured.path, &captured.body);
        ResponseTemplate::new(answer.status).set_body_raw(answer.body, answer.content_type)
    }
}

/// A running capture endpoint; stops when dropped.
pub(crate) struct Endpoint {
    server: MockServer,
}

impl Endpoint {
    /// Binds a random loopback port and serves `script`.
    pub(crate) async fn start(script: Box<dyn Model>) -> Endpoint {
        let server = MockServer::start().await;
        Mock::given(any())
            .respond_with(Scripted(script))
            .mount(&server)
            .await;
        Endpoint { server }
    }

    /// `http://127.0.0.1:<port>`, the base URL to give the client.
    pub(crate) fn uri(&self) -> String {
        self.server.uri()
    }

    /// Every request so far, in arrival order.
    pub(crate) async fn captured(&self) -> Vec<Captured> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .map(Captured::of)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Echo;

    impl Model for Echo {
        fn answer(&self, path: &str, body: &Value) -> Answer {
            Answer::json(200, &json!({"path": path, "got": body}))
        }
    }

    #[tokio::test]
    async fn keeps_every_request_and_answers_from_the_script() {
        let endpoint = Endpoint::start(Box::new(Echo)).await;
        assert!(endpoint.uri().starts_with("http://127.0.0.1:"));
        let client = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client");
        let answer = client
            .post(format!("{}/v1/messages?beta=true", endpoint.uri()))
            .body(r#"{"a":1}"#)
            .send()
            .await
            .expect("answers");
        assert_eq!(
            answer.headers()["content-type"],
            "application/json",
            "the script's content type"
        );
        let answer: Value = answer.json().await.expect("json");
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
        let captured = endpoint.captured().await;
        assert_eq!(captured.len(), 2);
        assert_eq!(captured[0].body, json!({"a": 1}));
        assert_eq!(
            (captured[1].path.as_str(), &captured[1].body),
            ("/other", &Value::Null)
        );
    }
}
