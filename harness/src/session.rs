//! In-process sessions: a replay server with a set of cassettes, the real server pointed at
//! it, and an MCP client talking to it over `tokio::io::duplex`.
//!
//! Tests, the scenario runner and the lint use this to run the real server code against
//! cassettes without a child process. The server's token is [`CANARY_TOKEN`], so a test can
//! prove it never appears in a response, a cassette or a log.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use modyo_mcp::{Module, ModyoServer};
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{RunningService, ServiceError};
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use tokio::task::JoinHandle;

use crate::serve::{ServeError, offline_config};
use modyo_replay::cassette::{self, Cassette, CassetteError, Scenario};
use modyo_replay::replay::{ReplayError, ReplayOptions, ReplayServer};

/// The token in-process sessions give the server: a canary that must never come back.
pub const CANARY_TOKEN: &str = "canary-7f3a9c51-modyo-token";

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The cassettes did not mount.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The server configuration or start-up failed.
    #[error(transparent)]
    Serve(#[from] ServeError),
    /// The MCP client could not connect.
    #[error("MCP client: {0}")]
    Client(String),
}

/// A running in-process session.
pub struct Session {
    replay: ReplayServer,
    server: ModyoServer,
    client: RunningService<RoleClient, ()>,
    serving: JoinHandle<()>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("replay", &self.replay.uri())
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Mounts `cassettes` (in mount order, no repeats), starts the server with `env` and
    /// connects a client.
    pub async fn start(
        cassettes: &[Cassette],
        env: &[(String, String)],
    ) -> Result<Session, SessionError> {
        Session::start_with(cassettes, env, ReplayOptions::default()).await
    }

    /// [`Session::start`] with explicit replay options.
    pub async fn start_with(
        cassettes: &[Cassette],
        env: &[(String, String)],
        options: ReplayOptions,
    ) -> Result<Session, SessionError> {
        let replay = ReplayServer::start(options).await;
        replay.mount(cassettes).await?;
        let config = offline_config(&replay.uri(), env, CANARY_TOKEN)?;
        Session::connect(replay, config).await
    }

    /// Connects a session to an already started replay server with an explicit configuration
    /// (the fault tests point the server at a closed port or set a short timeout).
    pub async fn connect(
        replay: ReplayServer,
        config: modyo_mcp::Config,
    ) -> Result<Session, SessionError> {
        let server = ModyoServer::new(config).map_err(ServeError::from)?;
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        let serving_server = server.clone();
        let serving = tokio::spawn(async move {
            if let Err(e) = serving_server.serve(server_io).await {
                tracing::debug!("in-process server stopped: {e}");
            }
        });
        let client = ().serve(client_io).await.map_err(|e| SessionError::Client(e.to_string()))?;
        Ok(Session {
            replay,
            server,
            client,
            serving,
        })
    }

    /// Calls a tool.
    pub async fn call(&self, tool: &str, arguments: Value) -> Result<CallToolResult, ServiceError> {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(map) = arguments {
            params.arguments = Some(map);
        }
        self.client.call_tool(params).await
    }

    /// `tools/list`.
    pub async fn tools(&self) -> Result<Vec<Tool>, ServiceError> {
        self.client.list_all_tools().await
    }

    /// The MCP client (for requests the session has no helper for).
    pub fn client(&self) -> &RunningService<RoleClient, ()> {
        &self.client
    }

    /// The replay server (received requests, misses).
    pub fn replay(&self) -> &ReplayServer {
        &self.replay
    }

    /// The server.
    pub fn server(&self) -> &ModyoServer {
        &self.server
    }

    /// Closes the client and waits for the server to stop.
    pub async fn close(self) {
        let _ = self.client.cancel().await;
        let _ = self.serving.await;
    }
}

/// Every cassette under a root, by name, with mount sets resolved from memory.
#[derive(Debug, Clone)]
pub struct Library {
    root: PathBuf,
    cassettes: BTreeMap<String, Cassette>,
}

impl Library {
    /// Loads every cassette under `root`.
    pub fn load(root: impl AsRef<Path>) -> Result<Library, CassetteError> {
        let root = root.as_ref().to_path_buf();
        let cassettes = Cassette::load_all(&root)?
            .into_iter()
            .map(|c| (c.name().to_owned(), c))
            .collect();
        Ok(Library { root, cassettes })
    }

    /// The workspace's `cassettes/` directory.
    pub fn workspace() -> Result<Library, CassetteError> {
        Library::load(cassette::default_dir())
    }

    /// The cassettes, sorted by name.
    pub fn cassettes(&self) -> impl Iterator<Item = &Cassette> {
        self.cassettes.values()
    }

    /// One cassette.
    pub fn get(&self, name: &str) -> Option<&Cassette> {
        self.cassettes.get(name)
    }

    /// Every scenario, with the cassette that holds it, sorted by cassette then scenario order.
    pub fn scenarios(&self) -> Vec<(&Cassette, &Scenario)> {
        self.cassettes
            .values()
            .flat_map(|c| c.scenarios.iter().map(move |s| (c, s)))
            .collect()
    }

    /// `name` and everything it includes, in mount order: every cassette before the ones it
    /// includes (so it shadows them), includes in their listed order.
    pub fn mount_set(&self, name: &str) -> Result<Vec<Cassette>, CassetteError> {
        let lookup = |from: &str, wanted: &str| {
            self.cassettes
                .get(wanted)
                .ok_or_else(|| CassetteError::MissingInclude {
                    cassette: from.to_owned(),
                    include: wanted.to_owned(),
                    path: cassette::path_of(&self.root, wanted),
                })
        };
        // The reachable set, and how many reachable cassettes include each one.
        let mut indegree: BTreeMap<&str, usize> = BTreeMap::new();
        let mut stack = vec![(name, name)];
        while let Some((from, next)) = stack.pop() {
            let cassette = lookup(from, next)?;
            if indegree.insert(cassette.name(), 0).is_none() {
                stack.extend(
                    cassette
                        .include
                        .iter()
                        .map(|i| (cassette.name(), i.as_str())),
                );
            }
        }
        for n in indegree.keys().copied().collect::<Vec<_>>() {
            for include in &self.cassettes[n].include {
                *indegree.entry(include.as_str()).or_default() += 1;
            }
        }
        let mut queue = std::collections::VecDeque::from([name]);
        let mut order = Vec::new();
        while let Some(n) = queue.pop_front() {
            let cassette = &self.cassettes[n];
            order.push(cassette.clone());
            for include in &cassette.include {
                let d = indegree.entry(include.as_str()).or_default();
                *d -= 1;
                if *d == 0 {
                    queue.push_back(include.as_str());
                }
            }
        }
        if order.len() < indegree.len() {
            return Err(CassetteError::IncludeCycle {
                chain: vec![name.to_owned()],
            });
        }
        Ok(order)
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// The module of a tool: its name up to the first `-`.
pub fn module_of(tool: &str) -> Option<Module> {
    Module::parse(tool.split('-').next().unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_is_the_tool_prefix() {
        assert_eq!(module_of("content-entries-list"), Some(Module::Content));
        assert_eq!(module_of("channels-sites-list"), Some(Module::Channels));
        assert_eq!(module_of("nothing"), None);
    }
}
