//! The stdio transport: newline-delimited JSON-RPC on a reader and a writer, with an answer
//! for every line a client may wait on.
//!
//! rmcp's own stdio transport drops a line it cannot parse without a word (to avoid echo
//! storms with peers that answer errors with errors), drops an over-long line the same way,
//! and answers a message that is JSON but not a request with `-32600` and no `id`. A client
//! waiting on that request then hangs. [`LineTransport`] reads the lines itself and answers:
//!
//! - a line that is not JSON (bad syntax, invalid UTF-8, nesting deeper than serde_json's 128
//!   levels) or longer than [`MAX_LINE_BYTES`]: `-32700 Parse error` with `id: null`, as JSON-RPC
//!   2.0 says (its id cannot be read);
//! - JSON that is not a valid message: `-32600 Invalid Request` with the `id` it carries when
//!   that is a string or an integer, else `null`; a message without `id` is a notification
//!   and is never answered, even when it is invalid (so two such peers cannot loop).
//!
//! Everything else reaches rmcp unchanged. Writes are serialized on one writer, one message
//! per line.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest line read (16 MiB, rmcp's own limit); a longer one is answered `-32700`.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// JSON-RPC's parse error.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's invalid request.
const INVALID_REQUEST: i64 = -32600;

/// The server side of newline-delimited JSON-RPC over a reader and a writer.
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// An over-long line is being skipped until its newline.
    skipping: bool,
    max_line: usize,
    write: Arc<Mutex<Option<W>>>,
}

impl<R, W> std::fmt::Debug for LineTransport<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineTransport")
            .field("max_line", &self.max_line)
            .finish_non_exhaustive()
    }
}

/// The process's stdin and stdout as a [`LineTransport`].
pub fn stdio() -> LineTransport<tokio::io::Stdin, tokio::io::Stdout> {
    LineTransport::new(tokio::io::stdin(), tokio::io::stdout())
}

/// What one line turned out to be.
enum Line {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    Answer(Value),
    Nothing,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Reads requests from `read`, writes answers to `write`.
    pub fn new(read: R, write: W) -> LineTransport<R, W> {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            skipping: false,
            max_line: MAX_LINE_BYTES,
            write: Arc::new(Mutex::new(Some(write))),
        }
    }

    /// Another longest line (tests use a small one).
    pub fn max_line(mut self, bytes: usize) -> LineTransport<R, W> {
        self.max_line = bytes;
        self
    }

    /// Reads one line into `self.line`, never holding more than `max_line` bytes of it.
    /// `Ok(Some(true))`: a line; `Ok(Some(false))`: an over-long line, dropped; `Ok(None)`:
    /// end of input. Cancel-safe: a partial line stays in `self.line` for the next call.
    async fn read_line(&mut self) -> std::io::Result<Option<bool>> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(None);
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let outcome = if self.skipping {
                // The rest of a line already answered: drop it up to its newline.
                if newline.is_some() {
                    self.skipping = false;
                }
                None
            } else if self.line.len() + take > self.max_line {
                self.line.clear();
                match newline {
                    Some(_) => Some(false),
                    None => {
                        self.skipping = true;
                        // Answer now: the client should not wait for the rest of the line.
                        self.read.consume(take);
                        return Ok(Some(false));
                    }
                }
            } else {
                self.line.extend_from_slice(&available[..take]);
                newline.map(|_| true)
            };
            self.read.consume(take);
            if let Some(whole) = outcome {
                return Ok(Some(whole));
            }
        }
    }

    fn classify(&self) -> Line {
        let mut bytes = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
        bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Line::Nothing;
        }
        if let Ok(message) = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(bytes) {
            return Line::Message(Box::new(message));
        }
        let value = match serde_json::from_slice::<Value>(bytes) {
            Ok(value) => value,
            Err(e) => {
                tracing::debug!("unparsable stdio line: {e}");
                return Line::Answer(error(Value::Null, PARSE_ERROR, format!("Parse error: {e}")));
            }
        };
        match value.get("id") {
            // A notification (no id) is never answered, even when it is not a valid one.
            None => {
                tracing::debug!("ignoring an invalid or unknown notification");
                Line::Nothing
            }
            Some(id) => {
                let id = match id {
                    Value::String(_) => id.clone(),
                    Value::Number(n) if n.is_i64() || n.is_u64() => id.clone(),
                    _ => Value::Null,
                };
                Line::Answer(error(
                    id,
                    INVALID_REQUEST,
                    "Invalid Request: not a JSON-RPC 2.0 request, response or notification this server knows".into(),
                ))
            }
        }
    }
}

/// Writes one answer as a line.
async fn answer<W: AsyncWrite + Unpin>(
    write: Arc<Mutex<Option<W>>>,
    message: Value,
) -> std::io::Result<()> {
    let mut bytes = message.to_string().into_bytes();
    bytes.push(b'\n');
    write_line(&write, bytes).await
}

fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

async fn write_line<W: AsyncWrite + Unpin>(
    write: &Mutex<Option<W>>,
    bytes: Vec<u8>,
) -> std::io::Result<()> {
    let mut guard = write.lock().await;
    let Some(writer) = guard.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "the transport is closed",
        ));
    };
    writer.write_all(&bytes).await?;
    writer.flush().await
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        async move {
            let mut bytes = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            bytes.push(b'\n');
            write_line(&write, bytes).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let line = match self.read_line().await {
                Ok(Some(true)) => {
                    let line = self.classify();
                    self.line.clear();
                    line
                }
                Ok(Some(false)) => Line::Answer(error(
                    Value::Null,
                    PARSE_ERROR,
                    format!(
                        "Parse error: the message is longer than {} MiB, the most one line may hold",
                        self.max_line / (1024 * 1024)
                    ),
                )),
                Ok(None) => return None,
                Err(e) => {
                    tracing::error!("reading stdin failed: {e}");
                    return None;
                }
            };
            match line {
                Line::Message(message) => return Some(*message),
                Line::Answer(message) => {
                    if let Err(e) = answer(self.write.clone(), message).await {
                        tracing::error!("writing an error answer failed: {e}");
                        return None;
                    }
                }
                Line::Nothing => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let mut guard = self.write.lock().await;
        if let Some(mut writer) = guard.take() {
            writer.shutdown().await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, duplex};

    /// Feeds `input` to a transport and returns the messages it delivers and what it wrote.
    async fn run(input: &[u8], max_line: usize) -> (Vec<RxJsonRpcMessage<RoleServer>>, Vec<Value>) {
        let (mut client, server) = duplex(1 << 16);
        let (read, write) = tokio::io::split(server);
        let mut transport = LineTransport::new(read, write).max_line(max_line);
        client.write_all(input).await.unwrap();
        client.shutdown().await.unwrap();
        let mut delivered = Vec::new();
        while let Some(message) = transport.receive().await {
            delivered.push(message);
        }
        transport.close().await.unwrap();
        let mut written = String::new();
        client.read_to_string(&mut written).await.unwrap();
        let answers = written
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (delivered, answers)
    }

    #[tokio::test]
    async fn valid_lines_pass_and_malformed_ones_are_answered() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\
\n\
not json\n\
{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"x\":\"\xff\"}\n\
{\"jsonrpc\":\"2.0\",\"id\":3.5,\"method\":7}\n\
{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":7}\n\
{\"jsonrpc\":\"2.0\",\"method\":7}\n\
\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n";
        let (delivered, answers) = run(input, 1024).await;
        assert_eq!(delivered.len(), 2, "the two pings (one with a BOM)");
        let codes: Vec<(Value, i64)> = answers
            .iter()
            .map(|a| (a["id"].clone(), a["error"]["code"].as_i64().unwrap()))
            .collect();
        assert_eq!(
            codes,
            [
                (Value::Null, PARSE_ERROR),
                (Value::Null, PARSE_ERROR),
                (Value::Null, INVALID_REQUEST),
                (Value::Null, INVALID_REQUEST),
            ]
        );
    }

    #[tokio::test]
    async fn an_over_long_line_is_answered_and_the_next_one_read() {
        let mut input = vec![b'x'; 5000];
        input.push(b'\n');
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n");
        let (delivered, answers) = run(&input, 1024).await;
        assert_eq!(delivered.len(), 1);
        assert_eq!(answers.len(), 1);
        assert_eq!(answers[0]["error"]["code"], PARSE_ERROR);
        assert_eq!(answers[0]["id"], Value::Null);
    }
}
