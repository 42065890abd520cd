//! Streamable HTTP helpers: the server (or the offline server) on a loopback port in-process,
//! an rmcp client over HTTP, and the binaries started with `--http 127.0.0.1:0`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use modyo_lab::serve::{Offline, ServeError};
use modyo_mcp::{HttpListener, HttpOptions, ModyoServer};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A server answering on `url` in this process until [`HttpServing::stop`].
pub(crate) struct HttpServing {
    pub(crate) url: String,
    stop: oneshot::Sender<()>,
    task: JoinHandle<Result<(), ServeError>>,
}

impl HttpServing {
    /// Shuts the server down and waits for it (it must stop cleanly).
    pub(crate) async fn stop(self) {
        let _ = self.stop.send(());
        self.task
            .await
            .expect("the HTTP server task does not panic")
            .expect("the HTTP server stops cleanly");
    }
}

async fn listener() -> HttpListener {
    HttpListener::bind(HttpOptions::loopback(0))
        .await
        .expect("a free loopback port")
}

/// `server` on a free loopback port.
pub(crate) async fn serve(server: ModyoServer) -> HttpServing {
    let listener = listener().await;
    let url = listener.url();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        server
            .serve_http(listener, async {
                let _ = stopped.await;
            })
            .await
            .map_err(ServeError::from)
    });
    HttpServing { url, stop, task }
}

/// The offline server (replay included) on a free loopback port.
pub(crate) async fn serve_offline(offline: Offline) -> HttpServing {
    let listener = listener().await;
    let url = listener.url();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        offline
            .serve_http(listener, async {
                let _ = stopped.await;
            })
            .await
    });
    HttpServing { url, stop, task }
}

/// An initialized rmcp client session over streamable HTTP.
pub(crate) async fn client(url: &str) -> RunningService<RoleClient, ()> {
    ().serve(StreamableHttpClientTransport::from_uri(url.to_owned()))
        .await
        .expect("the MCP client connects over HTTP")
}

/// A binary started with `--http 127.0.0.1:0`, and the URL it announced on stderr.
pub(crate) struct Spawned {
    pub(crate) child: Child,
    pub(crate) url: String,
}

impl Spawned {
    /// Starts `command` (which must include `--http ...`) and reads stderr up to the URL line.
    pub(crate) fn start(mut command: Command) -> Spawned {
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("the binary starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let mut lines = BufReader::new(stderr).lines();
        let mut seen = String::new();
        let url = loop {
            let Some(Ok(line)) = lines.next() else {
                let _ = child.kill();
                panic!("the binary exited before announcing its URL:\n{seen}");
            };
            if let Some((_, url)) = line.split_once("MCP over streamable HTTP at ") {
                break url.trim().to_owned();
            }
            seen.push_str(&line);
            seen.push('\n');
        };
        // Keep draining stderr so the child never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Spawned { child, url }
    }

    /// Sends SIGTERM and waits: the exit status.
    pub(crate) fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "SIGTERM delivered");
        self.child.wait().expect("the binary exits")
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
