//! The probe (M1): the built `modyo-mcp` binary as a child process, driven with raw JSON-RPC
//! over its stdio (newline-delimited JSON), keeping the exact bytes of every response line.
//!
//! No MCP client library sits in between, so nothing re-serializes what the server sent. The
//! protocol version is pinned ([`PROTOCOL_VERSION`]): the bytes of a result depend on it. The
//! child gets a cleared environment plus the variables given, so nothing from the caller's
//! shell (`MODYO_READ_ONLY`, `RUST_LOG`...) changes what is measured.
//!
//! Every response line is checked to be the canonical compact serialization of its own parse
//! (what serde_json writes); that makes every sub-value's compact serialization an exact slice
//! of the line, so sizes of `structuredContent`, a tool or a slot are sizes of bytes the server
//! sent, not estimates.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// The MCP protocol version the probe asks for in `initialize`.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// The server binary's name.
pub const SERVER_BINARY: &str = "modyo-mcp";

/// How long one request may take before the probe gives up on the server, unless told
/// otherwise ([`Probe::start_command_within`], [`Probe::connect_http`]).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

mod http;

/// How much of the child's stderr is kept for diagnostics.
const STDERR_TAIL: usize = 4096;

/// Why a probe failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProbeError {
    /// The server binary is not there.
    #[error(
        "server binary not found at {}: run cargo build -p modyo-mcp (make measure builds it), or pass --server PATH",
        path.display()
    )]
    MissingServer {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The child could not be started.
    #[error("cannot start {}: {source}", path.display())]
    Spawn {
        /// The binary.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Reading from or writing to the child failed.
    #[error("stdio with the server: {0}")]
    Io(#[from] std::io::Error),
    /// The child closed stdout (it exited or crashed).
    #[error("the server closed its stdout during {method}; its stderr ended with:\n{stderr}")]
    Closed {
        /// The request in flight.
        method: String,
        /// The tail of its stderr.
        stderr: String,
    },
    /// The child did not answer in time.
    #[error("the server did not answer {method} within {} s (--timeout)", after.as_secs_f64())]
    Timeout {
        /// The request.
        method: String,
        /// How long it was given.
        after: Duration,
    },
    /// An HTTP server answered a message with an error status or could not be reached.
    #[error("{method} over HTTP: {reason}")]
    Http {
        /// The request.
        method: String,
        /// What went wrong.
        reason: String,
    },
    /// A line on stdout is not a JSON-RPC message the probe understands.
    #[error("malformed response to {method}: {reason}")]
    Malformed {
        /// The request.
        method: String,
        /// What is wrong.
        reason: String,
    },
    /// A JSON-RPC error where a result was required (`initialize`, `tools/list`).
    #[error("{method} failed: JSON-RPC error {code}: {message}")]
    Rpc {
        /// The request.
        method: String,
        /// The JSON-RPC error code.
        code: i64,
        /// Its message.
        message: String,
    },
}

/// The server binary next to the running executable (`target/<profile>/modyo-mcp`; a test
/// binary lives one level down, in `deps/`), or `explicit` when given. Fails when the file is
/// not there.
pub fn locate_server(explicit: Option<&Path>) -> Result<PathBuf, ProbeError> {
    let path = match explicit {
        Some(path) => path.to_path_buf(),
        None => {
            let exe = std::env::current_exe().unwrap_or_default();
            let mut dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
            if dir.file_name().is_some_and(|n| n == "deps") {
                dir.pop();
            }
            dir.join(format!("{SERVER_BINARY}{}", std::env::consts::EXE_SUFFIX))
        }
    };
    if path.is_file() {
        Ok(path)
    } else {
        Err(ProbeError::MissingServer { path })
    }
}

/// One JSON-RPC response as the server sent it.
#[derive(Debug, Clone)]
pub struct Response {
    /// The exact line (without its newline).
    pub line: String,
    /// The `result` member, or the `error` member's code and message.
    pub result: Result<Value, (i64, String)>,
}

/// A response line read and matched to its request, not parsed further yet
/// ([`Probe::send_call`]).
#[derive(Debug)]
pub struct Answered {
    /// The request's method.
    method: String,
    /// The exact line (without its newline).
    line: String,
    /// From before the request was sent to its answer's line read and matched.
    pub elapsed: Duration,
}

/// What identifies a message on stdout: its `id`, and a `method` when it is a request or a
/// notification of the server's. Every other member is skipped unbuilt.
#[derive(Deserialize)]
struct Head {
    id: Option<Value>,
    method: Option<IgnoredAny>,
}

/// How the probe reaches its server.
// One per probe, so the stdio variant's size (its buffered reader) costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum Io {
    /// A child speaking newline-delimited JSON-RPC on its stdio.
    Stdio {
        child: Child,
        stdin: ChildStdin,
        stdout: BufReader<ChildStdout>,
        stderr: Arc<Mutex<VecDeque<u8>>>,
    },
    /// A streamable HTTP endpoint.
    Http(http::HttpIo),
}

/// A running MCP server, reached on a child's stdio or over streamable HTTP, initialized.
#[derive(Debug)]
pub struct Probe {
    io: Io,
    /// How long one request may take.
    timeout: Duration,
    next_id: u64,
    /// Whether a non-canonical response line is an error (our server) or only counted.
    exact: bool,
    lines: usize,
    non_canonical: usize,
    /// The `initialize` response.
    pub initialize: Response,
}

impl Probe {
    /// Starts `server` with exactly `env` (on a cleared environment) and completes the MCP
    /// handshake at [`PROTOCOL_VERSION`].
    pub async fn start(server: &Path, env: &[(String, String)]) -> Result<Probe, ProbeError> {
        Probe::start_with_args(server, &[], env).await
    }

    /// [`Probe::start`] with command-line arguments (`modyo-lab serve` is a server too).
    pub async fn start_with_args(
        server: &Path,
        args: &[&str],
        env: &[(String, String)],
    ) -> Result<Probe, ProbeError> {
        let mut command = tokio::process::Command::new(server);
        command
            .args(args)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        Probe::spawn(command, server, true, REQUEST_TIMEOUT).await
    }

    /// Any stdio MCP server: `command` with the caller's environment (less the variables it
    /// removes). Its response lines need not be canonical JSON (see [`Probe::non_canonical`]).
    pub async fn start_command(command: &crate::lint::ServerCommand) -> Result<Probe, ProbeError> {
        Probe::start_command_within(command, REQUEST_TIMEOUT).await
    }

    /// [`Probe::start_command`], each request given at most `timeout`.
    pub async fn start_command_within(
        command: &crate::lint::ServerCommand,
        timeout: Duration,
    ) -> Result<Probe, ProbeError> {
        let mut child = tokio::process::Command::new(&command.program);
        child.args(&command.args);
        for key in &command.env_remove {
            child.env_remove(key);
        }
        child.envs(command.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        Probe::spawn(child, Path::new(&command.program), false, timeout).await
    }

    /// Any MCP server over streamable HTTP at `url` (`http://127.0.0.1:8808/mcp`), each request
    /// given at most `timeout`. Its messages need not be canonical JSON.
    pub async fn connect_http(url: &str, timeout: Duration) -> Result<Probe, ProbeError> {
        let io = Io::Http(http::HttpIo::new(url, timeout)?);
        Probe::initialized(io, false, timeout).await
    }

    async fn spawn(
        mut command: tokio::process::Command,
        server: &Path,
        exact: bool,
        timeout: Duration,
    ) -> Result<Probe, ProbeError> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(|source| ProbeError::Spawn {
            path: server.to_path_buf(),
            source,
        })?;
        let (Some(stdin), Some(stdout), Some(mut stderr_pipe)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(ProbeError::Io(std::io::Error::other(
                "the child's stdio was not piped",
            )));
        };
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let tail = stderr.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr_pipe.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                tail.extend(&buf[..n]);
                let excess = tail.len().saturating_sub(STDERR_TAIL);
                tail.drain(..excess);
            }
        });
        let io = Io::Stdio {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            stderr,
        };
        Probe::initialized(io, exact, timeout).await
    }

    /// Completes the MCP handshake at [`PROTOCOL_VERSION`] over `io`.
    async fn initialized(io: Io, exact: bool, timeout: Duration) -> Result<Probe, ProbeError> {
        let mut probe = Probe {
            io,
            timeout,
            next_id: 1,
            exact,
            lines: 0,
            non_canonical: 0,
            initialize: Response {
                line: String::new(),
                result: Ok(Value::Null),
            },
        };
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "modyo-lab", "version": env!("CARGO_PKG_VERSION")}
        });
        let initialize = probe.request("initialize", params).await?;
        required("initialize", &initialize)?;
        probe.initialize = initialize;
        probe
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await?;
        Ok(probe)
    }

    /// Sends a message that gets no answer (a notification).
    async fn send(&mut self, message: &Value) -> Result<(), ProbeError> {
        match &mut self.io {
            Io::Stdio { stdin, .. } => {
                let mut line = message.to_string();
                line.push('\n');
                stdin.write_all(line.as_bytes()).await?;
                stdin.flush().await?;
            }
            Io::Http(http) => {
                http.post(message, "notification").await?;
            }
        }
        Ok(())
    }

    fn stderr_tail(&self) -> String {
        match &self.io {
            Io::Stdio { stderr, .. } => {
                let tail = stderr.lock().unwrap_or_else(|e| e.into_inner());
                String::from_utf8_lossy(&tail.iter().copied().collect::<Vec<u8>>()).into_owned()
            }
            Io::Http(_) => String::new(),
        }
    }

    /// Sends a request and returns the response with the same id (server notifications and
    /// requests in between are skipped).
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Response, ProbeError> {
        let answered = self.send_request(method, params).await?;
        self.response(answered)
    }

    /// Sends a request and reads until the line answering it: the line as sent, matched by
    /// its `id` only (the rest is skipped unbuilt), and how long it took from before sending.
    /// What a client must do to receive an answer, and nothing the probe checks besides:
    /// timings stop here ([`Probe::response`] parses and checks the line afterwards).
    async fn send_request(&mut self, method: &str, params: Value) -> Result<Answered, ProbeError> {
        let started = Instant::now();
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if let Io::Http(http) = &mut self.io {
            // One POST: its answer (JSON, or an event stream) holds the response.
            for line in http.post(&request, method).await? {
                let head: Head =
                    serde_json::from_str(&line).map_err(|e| ProbeError::Malformed {
                        method: method.to_owned(),
                        reason: format!("not JSON ({e}): {}", excerpt(&line)),
                    })?;
                if head.id == Some(json!(id)) && head.method.is_none() {
                    return Ok(Answered {
                        method: method.to_owned(),
                        line,
                        elapsed: started.elapsed(),
                    });
                }
            }
            return Err(ProbeError::Malformed {
                method: method.to_owned(),
                reason: "the HTTP answer held no response to the request".into(),
            });
        }
        self.send(&request).await?;
        let timeout = self.timeout;
        loop {
            let Io::Stdio { stdout, child, .. } = &mut self.io else {
                unreachable_http();
                return Err(ProbeError::Closed {
                    method: method.to_owned(),
                    stderr: String::new(),
                });
            };
            let mut line = String::new();
            let read = tokio::time::timeout(timeout, stdout.read_line(&mut line))
                .await
                .map_err(|_| ProbeError::Timeout {
                    method: method.to_owned(),
                    after: timeout,
                })??;
            if read == 0 {
                // Give the stderr reader a moment to drain what the child wrote before dying.
                let _ = tokio::time::timeout(Duration::from_millis(200), child.wait()).await;
                tokio::task::yield_now().await;
                return Err(ProbeError::Closed {
                    method: method.to_owned(),
                    stderr: self.stderr_tail(),
                });
            }
            line.truncate(line.trim_end_matches(['\n', '\r']).len());
            let head: Head = serde_json::from_str(&line).map_err(|e| ProbeError::Malformed {
                method: method.to_owned(),
                reason: format!("not JSON ({e}): {}", excerpt(&line)),
            })?;
            if head.id != Some(json!(id)) || head.method.is_some() {
                continue;
            }
            return Ok(Answered {
                method: method.to_owned(),
                line,
                elapsed: started.elapsed(),
            });
        }
    }

    /// The response of an answered request: its line parsed, held to its compact
    /// serialization (counted, or refused for an exact probe), its result or error read.
    pub fn response(&mut self, answered: Answered) -> Result<Response, ProbeError> {
        let Answered { method, line, .. } = answered;
        let malformed = |reason: String| ProbeError::Malformed {
            method: method.clone(),
            reason,
        };
        let value: Value = serde_json::from_str(&line)
            .map_err(|e| malformed(format!("not JSON ({e}): {}", excerpt(&line))))?;
        self.lines += 1;
        if serde_json::to_string(&value).ok().as_deref() != Some(line.as_str()) {
            if self.exact {
                return Err(malformed(
                    "the line is not the compact serialization of its own parse, so its parts cannot be sized exactly".into(),
                ));
            }
            self.non_canonical += 1;
        }
        let result = match take_result(value) {
            Some(result) => result,
            None => {
                return Err(malformed(format!(
                    "neither result nor error: {}",
                    excerpt(&line)
                )));
            }
        };
        Ok(Response { line, result })
    }

    /// `tools/list`, following `nextCursor`: every tool object, in the order listed, and the
    /// response lines.
    pub async fn tools_list(&mut self) -> Result<(Vec<Value>, Vec<Response>), ProbeError> {
        let mut tools = Vec::new();
        let mut responses = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let response = self.request("tools/list", params).await?;
            let result = required("tools/list", &response)?;
            let page = result
                .get("tools")
                .and_then(Value::as_array)
                .ok_or_else(|| ProbeError::Malformed {
                    method: "tools/list".into(),
                    reason: "no tools array".into(),
                })?;
            tools.extend(page.iter().cloned());
            cursor = result
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            responses.push(response);
            if cursor.is_none() {
                return Ok((tools, responses));
            }
        }
    }

    /// Response lines read so far, and how many of them were not the compact serialization of
    /// their own parse (always zero for a probe of our server, which fails on one).
    pub fn non_canonical(&self) -> (usize, usize) {
        (self.non_canonical, self.lines)
    }

    /// The child's process id (while it runs; none over HTTP).
    pub fn pid(&self) -> Option<u32> {
        match &self.io {
            Io::Stdio { child, .. } => child.id(),
            Io::Http(_) => None,
        }
    }

    /// `tools/call`.
    pub async fn call(&mut self, tool: &str, arguments: &Value) -> Result<Response, ProbeError> {
        let answered = self.send_call(tool, arguments).await?;
        self.response(answered)
    }

    /// `tools/call` up to its answer's line read and matched by `id`, nothing else parsed:
    /// what a timing covers; [`Probe::response`] parses and checks it afterwards.
    pub async fn send_call(
        &mut self,
        tool: &str,
        arguments: &Value,
    ) -> Result<Answered, ProbeError> {
        let mut params = Map::new();
        params.insert("name".into(), json!(tool));
        params.insert("arguments".into(), arguments.clone());
        self.send_request("tools/call", Value::Object(params)).await
    }

    /// Closes stdin (the server's cue to stop) and waits for the child, killing it if it
    /// lingers.
    pub async fn close(self) {
        self.close_within(Duration::from_secs(5)).await;
    }

    /// [`Probe::close`], waiting up to `patience` before killing the child (a profiler
    /// wrapping the server writes its data after the server exits).
    pub async fn close_within(self, patience: Duration) {
        match self.io {
            Io::Stdio {
                mut child, stdin, ..
            } => {
                drop(stdin);
                if tokio::time::timeout(patience, child.wait()).await.is_err() {
                    let _ = child.kill().await;
                }
            }
            Io::Http(mut http) => http.close().await,
        }
    }
}

/// The HTTP side answers in [`Probe::send_request`] before the stdio loop; never reached.
fn unreachable_http() {
    debug_assert!(false, "the stdio loop runs for a stdio probe only");
}

fn required<'a>(method: &str, response: &'a Response) -> Result<&'a Value, ProbeError> {
    response
        .result
        .as_ref()
        .map_err(|(code, message)| ProbeError::Rpc {
            method: method.to_owned(),
            code: *code,
            message: message.clone(),
        })
}

/// A response's `result`, or its `error`'s code and message; `None` when it has neither or
/// both. The result is moved out, not copied.
fn take_result(value: Value) -> Option<Result<Value, (i64, String)>> {
    let Value::Object(mut message) = value else {
        return None;
    };
    match (message.remove("result"), message.remove("error")) {
        (Some(result), None) => Some(Ok(result)),
        (None, Some(error)) => Some(Err((
            error.get("code").and_then(Value::as_i64).unwrap_or(0),
            error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        ))),
        _ => None,
    }
}

fn excerpt(line: &str) -> String {
    line.chars().take(200).collect()
}

#[cfg(test)]
mod tests;
