//! [`CassetteError`]: everything that can go wrong reading, resolving or writing cassettes.
//!
//! Every variant names the file or the cassette it is about, and where it helps the JSON path
//! inside it (`interactions[3].response.status`), so a broken cassette can be fixed without a
//! debugger.

use std::path::PathBuf;

/// A cassette that cannot be read, parsed, resolved or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CassetteError {
    /// The cassettes directory itself does not exist.
    #[error("cassettes directory {} does not exist (pass --cassettes DIR, or a cassette FILE where one is accepted)", .path.display())]
    MissingRoot {
        /// The directory that was looked for.
        path: PathBuf,
    },
    /// `Cassette::load` was asked for a cassette that has no file.
    #[error("cassette '{name}' not found: {} does not exist", .path.display())]
    NotFound {
        /// The cassette name asked for.
        name: String,
        /// The file that was looked for.
        path: PathBuf,
    },
    /// The file exists but could not be read or listed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A cassette path that is not a regular file (a FIFO, a device, a socket): it is never
    /// opened, since reading it could block or never end.
    #[error("{}: not a regular file ({kind}); a cassette is a .json file", .path.display())]
    NotRegular {
        /// The path (a link is followed to what it points at).
        path: PathBuf,
        /// What it is instead.
        kind: &'static str,
    },
    /// A cassette file larger than [`super::MAX_CASSETTE_BYTES`].
    #[error("{}: {bytes} bytes, more than the {limit} a cassette may hold", .path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size (at least; reading stopped past the limit).
        bytes: u64,
        /// The most a cassette may hold.
        limit: u64,
    },
    /// A single file given where cassettes are read that cannot be one.
    #[error("{}: {reason}", .path.display())]
    NotACassetteFile {
        /// The file.
        path: PathBuf,
        /// Why (not `.json`, a `.new.json` candidate).
        reason: String,
    },
    /// The file is not valid JSON or does not have the shape of format v1.
    #[error("{}: at {json_path}: {source}", .path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Where in the document the parser stopped (`.` for the root).
        json_path: String,
        /// The parser's own message, with line and column.
        #[source]
        source: serde_json::Error,
    },
    /// The document parses but breaks a rule of the format (bad method, duplicate scenario...).
    #[error("cassette '{name}': at {json_path}: {reason}")]
    Invalid {
        /// The cassette name.
        name: String,
        /// Where in the document the problem is.
        json_path: String,
        /// What is wrong and, where it helps, what is expected.
        reason: String,
    },
    /// A name that cannot be a cassette name (`..`, empty segment, absolute path...).
    #[error("'{name}' is not a valid cassette name: {reason}")]
    InvalidName {
        /// The offending name.
        name: String,
        /// Why.
        reason: String,
    },
    /// An `include` names a cassette that has no file.
    #[error(
        "cassette '{cassette}' includes '{include}', which does not exist ({} not found)",
        .path.display()
    )]
    MissingInclude {
        /// The cassette whose `include` is broken.
        cassette: String,
        /// The include that could not be found.
        include: String,
        /// The file that was looked for.
        path: PathBuf,
    },
    /// Includes form a cycle.
    #[error("include cycle: {}", .chain.join(" -> "))]
    IncludeCycle {
        /// The names along the cycle, the first repeated at the end.
        chain: Vec<String>,
    },
    /// A cassette could not be serialized (a bug: every cassette value serializes).
    #[error("cassette '{name}' cannot be serialized: {source}")]
    Serialize {
        /// The cassette name.
        name: String,
        /// The serializer's error.
        #[source]
        source: serde_json::Error,
    },
}
