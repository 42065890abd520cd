//! Where a recorded request's answer comes from: the live account (forwarded, held to the
//! guard, retried when throttled, compared with the replay for the drift check) or the replay
//! server; and the answer as the server gets it and as a cassette records it.

use std::time::Instant;

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::{Value, json};
use url::Url;

use crate::record::drift::{Difference, json_differences};
use crate::record::guard::Refusal;
use crate::record::redact::Redactor;
use modyo_replay::cassette::{
    Interaction, RecordedRequest, RecordedResponse, ResponseBody, request_line,
};
use modyo_replay::replay::MISS_HEADER;

use super::{Answer, Exchange, HOP_BY_HOP, Incoming1, Origin, State};

pub(super) async fn forward(
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
pub(super) fn refused(
    stored: RecordedRequest,
    refusal: &Refusal,
    redactor: &Redactor,
) -> (Answer, Exchange) {
    let reason = refusal.to_string();
    tracing::debug!(request = %request_line(&stored), "{reason}");
    let answer = proxy_error(refusal.status(), &reason);
    let exchange = exchange_of(stored, &answer, Origin::Refused(reason), None, redactor);
    (answer, exchange)
}

/// Offers the (redacted) request to the replay server.
pub(super) async fn replay(state: &State, stored: &RecordedRequest) -> (Answer, Origin) {
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

pub(super) fn exchange_of(
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
pub(super) fn response_of(answer: &Answer, delay_ms: Option<u64>) -> RecordedResponse {
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

pub(super) fn proxy_error(status: u16, message: &str) -> Answer {
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

pub(super) fn local_error(status: u16, message: &str) -> Response<Full<Bytes>> {
    to_hyper(proxy_error(status, message))
}

pub(super) fn to_hyper(answer: Answer) -> Response<Full<Bytes>> {
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
