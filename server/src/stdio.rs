//! The stdio transport: newline-delimited JSON-RPC on a reader and a writer, with an answer
//! for every line a client may wait on.
//!
//! rmcp's own stdio transport drops a line it cannot parse without a word (to avoid echo
//! storms with peers that answer errors with errors), drops an over-long line the same way,
//! and answers a message that is JSON but not a request with `-32600` and no `id`. A client
//! waiting on that request then hangs. [`LineTransport`] reads the lines itself: a line longer
//! than [`MAX_LINE_BYTES`] is answered `-32700 Parse error` with `id: null`, and every other
//! line goes through the screen both transports share (`screen.rs`: parse errors, batches,
//! invalid requests and params that do not fit an MCP method are answered there).
//!
//! Everything else reaches rmcp unchanged. Writes are serialized on one writer, one message
//! per line.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use crate::screen::{PARSE_ERROR, Screened, error, screen};

/// The longest line read (16 MiB, rmcp's own limit); a longer one is answered `-32700`.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

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

    fn classify(&self) -> Screened {
        screen(&self.line)
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
                Ok(Some(false)) => Screened::Answer(error(
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
                Screened::Message(message) => return Some(*message),
                Screened::Answer(message) => {
                    if let Err(e) = answer(self.write.clone(), message).await {
                        tracing::error!("writing an error answer failed: {e}");
                        return None;
                    }
                }
                Screened::Nothing => {}
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
    use crate::screen::INVALID_REQUEST;
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
    async fn a_batch_line_is_answered() {
        // Before, `[]` on stdio got no answer at all.
        let (delivered, answers) = run(b"[]\n", 1024).await;
        assert!(delivered.is_empty());
        assert_eq!(answers.len(), 1);
        assert_eq!(answers[0]["error"]["code"], INVALID_REQUEST);
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
