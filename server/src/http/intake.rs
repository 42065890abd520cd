//! A request body, read whole before anything acts on it, within three limits: its own size,
//! the time it may take to arrive, and the bytes all bodies in flight may hold together.
//!
//! Reading first is what keeps one slow client from holding the others: a `POST` that opens a
//! session (`initialize`) waits for the one-at-a-time turn that guards the session cap, and
//! before this it waited holding that turn while its body trickled in (one byte every 2 s held
//! every new session for as long). Now the turn is taken only once the body is whole.
//!
//! - **Size**: at most [`MAX_REQUEST_BYTES`] (16 MiB, the stdio line limit): a longer body is
//!   answered `413` as soon as its `Content-Length` or its bytes say so.
//! - **Time**: the whole body within the body timeout (`--body-timeout-ms`,
//!   `MODYO_HTTP_BODY_TIMEOUT_MS`, default 30 s), else `408` and the connection is closed.
//! - **Memory**: bodies being read hold their bytes against one budget of
//!   [`BUFFERED_BYTES_BUDGET`] (128 MiB) for the whole server; a chunk that does not fit is
//!   answered `503` at once (60 unfinished 3.9 MiB bodies once took the process from 25 to
//!   291 MiB, and nothing bounded more of them).

use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Bytes, Incoming};
use hyper::{Response, StatusCode};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The longest request body read (the stdio transport's line limit).
pub const MAX_REQUEST_BYTES: usize = crate::stdio::MAX_LINE_BYTES;

/// The bytes every body being read may hold together.
pub const BUFFERED_BYTES_BUDGET: usize = 128 * 1024 * 1024;

/// The budget is counted in KiB (a semaphore's permits are `u32`).
const UNIT: usize = 1024;

/// A response of the HTTP layer.
pub(super) type Answer =
    Response<http_body_util::combinators::BoxBody<Bytes, std::convert::Infallible>>;

/// What every connection's bodies share: the limits and the byte budget.
#[derive(Clone, Debug)]
pub(super) struct Intake {
    budget: Arc<Semaphore>,
    max_bytes: usize,
    timeout: Duration,
}

/// A body read whole, with its share of the budget (returned when dropped).
#[derive(Debug)]
pub(super) struct ReadBody {
    pub(super) bytes: Bytes,
    _held: Option<OwnedSemaphorePermit>,
}

impl Intake {
    /// Limits for bodies: `timeout` to arrive, [`MAX_REQUEST_BYTES`] each,
    /// [`BUFFERED_BYTES_BUDGET`] together.
    pub(super) fn new(timeout: Duration) -> Intake {
        Intake::with_limits(timeout, MAX_REQUEST_BYTES, BUFFERED_BYTES_BUDGET)
    }

    fn with_limits(timeout: Duration, max_bytes: usize, budget: usize) -> Intake {
        Intake {
            budget: Arc::new(Semaphore::new(budget.div_ceil(UNIT))),
            max_bytes,
            timeout,
        }
    }

    /// Reads `body` whole within the limits, or the answer that says which one it broke.
    pub(super) async fn read(&self, body: Incoming) -> Result<ReadBody, Answer> {
        self.read_body(body).await
    }

    async fn read_body<B>(&self, mut body: B) -> Result<ReadBody, Answer>
    where
        B: Body<Data = Bytes> + Unpin,
        B::Error: std::fmt::Display,
    {
        if body
            .size_hint()
            .exact()
            .or(body.size_hint().upper())
            .is_some_and(|n| n > self.max_bytes as u64)
            || body.size_hint().lower() > self.max_bytes as u64
        {
            return Err(too_large(self.max_bytes));
        }
        let mut bytes: Vec<u8> = Vec::new();
        let mut held: Option<OwnedSemaphorePermit> = None;
        let reading = async {
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(|e| {
                    plain(
                        StatusCode::BAD_REQUEST,
                        format!("the request body failed: {e}"),
                    )
                })?;
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                if bytes.len() + data.len() > self.max_bytes {
                    return Err(too_large(self.max_bytes));
                }
                let needed = (bytes.len() + data.len()).div_ceil(UNIT);
                let have = held.as_ref().map_or(0, |p| p.num_permits());
                if needed > have {
                    let more = u32::try_from(needed - have).unwrap_or(u32::MAX);
                    let permit = self
                        .budget
                        .clone()
                        .try_acquire_many_owned(more)
                        .map_err(|_| busy())?;
                    match held.as_mut() {
                        Some(all) => all.merge(permit),
                        None => held = Some(permit),
                    }
                }
                bytes.extend_from_slice(&data);
            }
            Ok(())
        };
        match tokio::time::timeout(self.timeout, reading).await {
            Ok(Ok(())) => Ok(ReadBody {
                bytes: Bytes::from(bytes),
                _held: held,
            }),
            Ok(Err(answer)) => Err(answer),
            Err(_) => Err(plain(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} ms (--body-timeout-ms, MODYO_HTTP_BODY_TIMEOUT_MS)",
                    self.timeout.as_millis()
                ),
            )),
        }
    }
}

/// `413`: the body is longer than a request may be.
fn too_large(max: usize) -> Answer {
    plain(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!(
            "the request body is longer than {} MiB, the most one message may hold",
            max / (1024 * 1024)
        ),
    )
}

/// `503`: the bodies in flight already hold the whole budget.
fn busy() -> Answer {
    let mut answer = plain(
        StatusCode::SERVICE_UNAVAILABLE,
        format!(
            "the server is already reading {} MiB of request bodies, its limit; retry shortly",
            BUFFERED_BYTES_BUDGET / (1024 * 1024)
        ),
    );
    answer.headers_mut().insert(
        hyper::header::RETRY_AFTER,
        hyper::header::HeaderValue::from_static("1"),
    );
    answer
}

/// A JSON-RPC error without an id, as the HTTP answer with `status`.
fn plain(status: StatusCode, message: String) -> Answer {
    json_answer(
        status,
        &crate::screen::error(serde_json::Value::Null, -32000, message),
    )
}

/// `value` as an `application/json` answer with `status`; a request that failed a limit is
/// the last on its connection.
pub(super) fn json_answer(status: StatusCode, value: &serde_json::Value) -> Answer {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())).boxed());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    if status.is_client_error() || status.is_server_error() {
        headers.insert(
            hyper::header::CONNECTION,
            hyper::header::HeaderValue::from_static("close"),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::StreamBody;
    use hyper::body::Frame;

    type Chunk = Result<Frame<Bytes>, std::convert::Infallible>;

    fn chunks(parts: Vec<Vec<u8>>) -> StreamBody<futures::stream::Iter<std::vec::IntoIter<Chunk>>> {
        let frames: Vec<Chunk> = parts
            .into_iter()
            .map(|p| Ok(Frame::data(Bytes::from(p))))
            .collect();
        StreamBody::new(futures::stream::iter(frames))
    }

    #[tokio::test]
    async fn a_body_is_read_whole_within_its_size() {
        let intake = Intake::with_limits(Duration::from_secs(5), 10, 64 * UNIT);
        let read = intake
            .read_body(chunks(vec![b"abc".to_vec(), b"def".to_vec()]))
            .await
            .expect("read");
        assert_eq!(&read.bytes[..], b"abcdef");
        let refused = intake
            .read_body(chunks(vec![vec![b'x'; 6], vec![b'y'; 6]]))
            .await
            .expect_err("too long");
        assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
    }

    #[tokio::test]
    async fn bodies_in_flight_share_one_budget() {
        // A budget of 4 KiB: a 3 KiB body held, a second one cannot fit until it is dropped.
        let intake = Intake::with_limits(Duration::from_secs(5), 1 << 20, 4 * UNIT);
        let first = intake
            .read_body(chunks(vec![vec![0; 3 * UNIT]]))
            .await
            .expect("fits");
        let second = intake
            .read_body(chunks(vec![vec![0; 2 * UNIT]]))
            .await
            .expect_err("over the budget");
        assert_eq!(second.status(), StatusCode::SERVICE_UNAVAILABLE);
        drop(first);
        assert!(
            intake
                .read_body(chunks(vec![vec![0; 2 * UNIT]]))
                .await
                .is_ok()
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_never_ends_times_out() {
        let intake = Intake::with_limits(Duration::from_millis(200), 1 << 20, 64 * UNIT);
        let never = http_body_util::StreamBody::new(futures::stream::pending::<
            Result<Frame<Bytes>, std::convert::Infallible>,
        >());
        let refused = intake.read_body(never).await.expect_err("timed out");
        assert_eq!(refused.status(), StatusCode::REQUEST_TIMEOUT);
    }
}
