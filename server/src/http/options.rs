//! The HTTP transport's options: the `--http` flags, the address and limits they parse into,
//! the hosts and origins a listener accepts, and why it could not start.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

/// The port used when `--http` names none.
pub const DEFAULT_PORT: u16 = 8808;

/// How long a client may take to send a request head, by default.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(30);

/// How many MCP sessions may be open at once, by default.
pub const DEFAULT_MAX_SESSIONS: usize = 1024;

/// How long a client may take to send a whole request body, by default.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// How many connections may be open at once, by default.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;

/// Host names a loopback server always accepts in the `Host` header (any port).
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Browser origins a loopback server always accepts (any port).
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// The HTTP flags shared by `modyo-mcp` and `modyo-lab serve`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HttpArgs {
    /// Serve MCP over streamable HTTP at ADDR (`[HOST:]PORT`, default 127.0.0.1:8808; port 0
    /// picks a free one) instead of stdio. The endpoint is http://ADDR/mcp.
    #[arg(
        long,
        value_name = "ADDR",
        num_args = 0..=1,
        default_missing_value = "",
    )]
    pub http: Option<String>,
    /// Allow a non-loopback ADDR. The server has no authentication of its own: anyone who can
    /// reach the port acts with the configured token. Host and Origin are still checked.
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
    /// Also accept this `Host` header (`name` or `name:port`; repeatable). Needed for the names
    /// clients use to reach a remote listener.
    #[arg(long = "allowed-host", value_name = "HOST", requires = "http")]
    pub allowed_hosts: Vec<String>,
    /// Also accept this browser `Origin` (`scheme://host[:port|:*]`; repeatable).
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http")]
    pub allowed_origins: Vec<String>,
    /// Close a connection that has not sent its whole request head (or sat idle between
    /// requests) this many milliseconds [default: 30000].
    #[arg(
        long,
        value_name = "MS",
        env = "MODYO_HTTP_HEADER_TIMEOUT_MS",
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub header_timeout_ms: Option<u64>,
    /// The most MCP sessions open at once; past it `initialize` is refused with 503 until one
    /// ends [default: 1024].
    #[arg(
        long,
        value_name = "N",
        env = "MODYO_HTTP_MAX_SESSIONS",
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub max_sessions: Option<u64>,
    /// Answer `408` and close a connection whose request body has not fully arrived this many
    /// milliseconds after its head [default: 30000].
    #[arg(
        long,
        value_name = "MS",
        env = "MODYO_HTTP_BODY_TIMEOUT_MS",
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub body_timeout_ms: Option<u64>,
    /// The most connections open at once; past it new connections wait to be accepted until
    /// one closes [default: 256].
    #[arg(
        long,
        value_name = "N",
        env = "MODYO_HTTP_MAX_CONNECTIONS",
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub max_connections: Option<u64>,
}

impl HttpArgs {
    /// The HTTP options these flags ask for, or `None` for stdio.
    pub fn options(&self) -> Result<Option<HttpOptions>, HttpError> {
        let Some(addr) = &self.http else {
            return Ok(None);
        };
        let mut options = HttpOptions::parse(addr)?.allow_remote(self.allow_remote);
        options
            .allowed_hosts
            .extend(self.allowed_hosts.iter().cloned());
        options
            .allowed_origins
            .extend(self.allowed_origins.iter().cloned());
        if let Some(ms) = self.header_timeout_ms {
            options = options.header_timeout(Duration::from_millis(ms));
        }
        if let Some(max) = self.max_sessions {
            options = options.max_sessions(usize::try_from(max).unwrap_or(usize::MAX));
        }
        if let Some(ms) = self.body_timeout_ms {
            options = options.body_timeout(Duration::from_millis(ms));
        }
        if let Some(max) = self.max_connections {
            options = options.max_connections(usize::try_from(max).unwrap_or(usize::MAX));
        }
        Ok(Some(options))
    }
}

/// Where and how to listen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    pub(super) addr: SocketAddr,
    pub(super) allow_remote: bool,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
    pub(super) header_timeout: Duration,
    pub(super) max_sessions: usize,
    pub(super) body_timeout: Duration,
    pub(super) max_connections: usize,
}

impl HttpOptions {
    /// Loopback (`127.0.0.1`) on `port`; 0 picks a free port.
    pub fn loopback(port: u16) -> HttpOptions {
        HttpOptions::at(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port))
    }

    /// Exactly `addr` (binding refuses a non-loopback one unless [`Self::allow_remote`]).
    pub fn at(addr: SocketAddr) -> HttpOptions {
        HttpOptions {
            addr,
            allow_remote: false,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            max_sessions: DEFAULT_MAX_SESSIONS,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
        }
    }

    /// Parses `[HOST:]PORT`: `""` is `127.0.0.1:8808`, `"9000"` and `":9000"` are
    /// `127.0.0.1:9000`, `localhost:9000` is `127.0.0.1:9000`, an IP without a port gets 8808,
    /// and `[::1]:9000` or `0.0.0.0:9000` are taken as written. Host names other than
    /// `localhost` are refused: name the address to listen on.
    pub fn parse(addr: &str) -> Result<HttpOptions, HttpError> {
        let text = addr.trim();
        let bad = |reason: &str| HttpError::Address {
            addr: text.to_owned(),
            reason: reason.to_owned(),
        };
        if text.is_empty() {
            return Ok(HttpOptions::loopback(DEFAULT_PORT));
        }
        let port_only = text.strip_prefix(':').unwrap_or(text);
        if port_only.bytes().all(|b| b.is_ascii_digit()) {
            let port = port_only
                .parse::<u16>()
                .map_err(|_| bad("the port must be 0 to 65535"))?;
            return Ok(HttpOptions::loopback(port));
        }
        if let Ok(addr) = text.parse::<SocketAddr>() {
            return Ok(HttpOptions::at(addr));
        }
        if let Ok(ip) = text.trim_matches(['[', ']']).parse::<IpAddr>() {
            return Ok(HttpOptions::at(SocketAddr::new(ip, DEFAULT_PORT)));
        }
        match text.rsplit_once(':') {
            Some((host, port)) if host.eq_ignore_ascii_case("localhost") => {
                let port = port
                    .parse::<u16>()
                    .map_err(|_| bad("the port must be 0 to 65535"))?;
                Ok(HttpOptions::loopback(port))
            }
            None if text.eq_ignore_ascii_case("localhost") => {
                Ok(HttpOptions::loopback(DEFAULT_PORT))
            }
            _ => Err(bad(
                "expected [HOST:]PORT with HOST an IP address or localhost, e.g. 127.0.0.1:8808",
            )),
        }
    }

    /// Allows (or not) a non-loopback listening address.
    pub fn allow_remote(mut self, allow: bool) -> HttpOptions {
        self.allow_remote = allow;
        self
    }

    /// Also accepts `host` (`name` or `name:port`) in the `Host` header.
    pub fn allowed_host(mut self, host: impl Into<String>) -> HttpOptions {
        self.allowed_hosts.push(host.into());
        self
    }

    /// Also accepts the browser origin `origin` (`scheme://host[:port|:*]`).
    pub fn allowed_origin(mut self, origin: impl Into<String>) -> HttpOptions {
        self.allowed_origins.push(origin.into());
        self
    }

    /// Closes a connection whose request head has not fully arrived after `timeout` (and an
    /// idle keep-alive connection after as long).
    pub fn header_timeout(mut self, timeout: Duration) -> HttpOptions {
        self.header_timeout = timeout;
        self
    }

    /// Allows at most `max` MCP sessions open at once (at least one).
    pub fn max_sessions(mut self, max: usize) -> HttpOptions {
        self.max_sessions = max.max(1);
        self
    }

    /// Answers `408` to a request whose body has not fully arrived `timeout` after its head.
    pub fn body_timeout(mut self, timeout: Duration) -> HttpOptions {
        self.body_timeout = timeout;
        self
    }

    /// Keeps at most `max` connections open at once (at least one).
    pub fn max_connections(mut self, max: usize) -> HttpOptions {
        self.max_connections = max.max(1);
        self
    }

    /// The address to listen on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The `Host` values accepted: loopback names, the listening IP when remote listening is
    /// allowed and the IP is a specific one, and the extra ones given.
    pub(super) fn hosts(&self) -> Vec<String> {
        let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect();
        let ip = self.addr.ip();
        if self.allow_remote && !ip.is_unspecified() && !ip.is_loopback() {
            hosts.push(ip.to_string());
        }
        hosts.extend(self.allowed_hosts.iter().cloned());
        hosts
    }

    pub(super) fn origins(&self) -> Vec<String> {
        let mut origins: Vec<String> = LOOPBACK_ORIGINS.iter().map(|o| (*o).to_owned()).collect();
        origins.extend(self.allowed_origins.iter().cloned());
        origins
    }
}

/// Why the HTTP transport could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// The address does not parse.
    #[error("--http {addr}: {reason}")]
    Address {
        /// What was given.
        addr: String,
        /// What is wrong.
        reason: String,
    },
    /// A non-loopback address without `--allow-remote`.
    #[error(
        "refusing to listen on {addr}: it is not a loopback address, and the server has no \
authentication of its own (anyone reaching the port acts with the configured token). Listen on \
127.0.0.1, or pass --allow-remote (with --allowed-host for the names clients use) behind your own \
access control"
    )]
    NotLoopback {
        /// The address.
        addr: SocketAddr,
    },
    /// The socket could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}
