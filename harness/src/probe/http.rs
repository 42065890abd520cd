//! The probe over streamable HTTP: each JSON-RPC message is one `POST` to the server's MCP
//! endpoint, answered with a JSON body or an event stream (`text/event-stream`) whose `data`
//! lines are JSON-RPC messages; the session id the server gives on `initialize` goes with every
//! later message, and `DELETE` ends the session.
//!
//! The messages are kept as the exact text the server sent, like the lines of a stdio server,
//! so the probe sizes what was on the wire the same way for both transports.

use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use serde_json::Value;

use super::ProbeError;

/// The header that names an MCP session.
const SESSION: &str = "mcp-session-id";
/// The header that names the protocol version once negotiated.
const PROTOCOL: &str = "mcp-protocol-version";

/// One streamable HTTP endpoint, and the session it gave.
#[derive(Debug)]
pub(super) struct HttpIo {
    client: reqwest::Client,
    url: String,
    session: Option<String>,
    protocol: Option<String>,
}

impl HttpIo {
    /// A client for `url`, each request given at most `timeout`.
    pub(super) fn new(url: &str, timeout: Duration) -> Result<HttpIo, ProbeError> {
        let parsed = url::Url::parse(url).map_err(|e| ProbeError::Http {
            method: "connect".into(),
            reason: format!("{url} is not a URL: {e}"),
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(ProbeError::Http {
                method: "connect".into(),
                reason: format!("{url} is not an http(s) URL"),
            });
        }
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .no_proxy()
            .build()
            .map_err(|e| ProbeError::Http {
                method: "connect".into(),
                reason: format!("cannot build an HTTP client: {e}"),
            })?;
        Ok(HttpIo {
            client,
            url: url.to_owned(),
            session: None,
            protocol: None,
        })
    }

    /// Posts `message`; returns the JSON-RPC messages the answer carried, each as sent.
    pub(super) async fn post(
        &mut self,
        message: &Value,
        method: &str,
    ) -> Result<Vec<String>, ProbeError> {
        let failed = |reason: String| ProbeError::Http {
            method: method.to_owned(),
            reason,
        };
        let mut request = self
            .client
            .post(&self.url)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(message.to_string());
        if let Some(session) = &self.session {
            request = request.header(SESSION, session);
        }
        if let Some(protocol) = &self.protocol {
            request = request.header(PROTOCOL, protocol);
        }
        let response = request.send().await.map_err(|e| {
            if e.is_timeout() {
                failed("no answer in time (--timeout)".into())
            } else {
                failed(format!("the request failed: {e}"))
            }
        })?;
        let status = response.status();
        if let Some(session) = response.headers().get(SESSION).and_then(header_text) {
            self.session = Some(session);
        }
        let event_stream = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(header_text)
            .is_some_and(|t| t.starts_with("text/event-stream"));
        let body = response
            .text()
            .await
            .map_err(|e| failed(format!("the answer did not arrive whole: {e}")))?;
        if !status.is_success() {
            let head: String = body.chars().take(300).collect();
            return Err(failed(format!("HTTP {status}: {head}")));
        }
        let messages = if event_stream {
            events(&body)
        } else if body.trim().is_empty() {
            Vec::new()
        } else {
            vec![body.trim().to_owned()]
        };
        if method == "initialize"
            && let Some(version) = messages
                .iter()
                .filter_map(|m| serde_json::from_str::<Value>(m).ok())
                .find_map(|m| {
                    m.pointer("/result/protocolVersion")?
                        .as_str()
                        .map(str::to_owned)
                })
        {
            self.protocol = Some(version);
        }
        Ok(messages)
    }

    /// Ends the session (`DELETE`), if the server gave one.
    pub(super) async fn close(&mut self) {
        if let Some(session) = self.session.take() {
            let _ = self
                .client
                .delete(&self.url)
                .header(SESSION, session)
                .send()
                .await;
        }
    }
}

fn header_text(value: &HeaderValue) -> Option<String> {
    value.to_str().ok().map(str::to_owned)
}

/// The `data` of every event of a `text/event-stream` body (multi-line data joined with
/// newlines, as the format says), skipping events without data.
fn events(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut data: Vec<&str> = Vec::new();
    for line in body.lines().chain(std::iter::once("")) {
        if line.is_empty() {
            if !data.is_empty() {
                out.push(data.join("\n"));
                data.clear();
            }
        } else if let Some(rest) = line.strip_prefix("data:") {
            data.push(rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
    out.retain(|d| !d.trim().is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_read_from_an_event_stream() {
        let body = "id: 1\nevent: message\ndata: {\"a\":1}\n\n: comment\ndata:\n\ndata: {\"b\":\ndata: 2}\n\n";
        assert_eq!(events(body), ["{\"a\":1}", "{\"b\":\n2}"]);
        assert!(events("").is_empty());
    }
}
