//! `modyo-spec`: Modyo's published API specification as the project's API surface, and every
//! cassette held to it.
//!
//! - [`surface`]: the surface files under `harness/spec/` (one per API), their canonical writer;
//! - [`shape`]: trees of keys, types and enumerated values, and how a JSON value conforms to one;
//! - [`import`]: `modyo-lab spec import`, a Swagger 2.0 or OpenAPI 3 document to a surface;
//! - [`source`]: where the published documents are read from (a git mirror or a directory),
//!   and the regeneration of the committed surfaces from them, byte for byte;
//! - [`pull`]: `modyo-lab spec pull`, an account's own specification over HTTP;
//! - [`conform`]: one interaction judged against the surfaces;
//! - [`errata`]: the corrections of the published specification, each with its evidence;
//!   [`amend`] applies them to the surfaces;
//! - [`contested`]: the calls a public source contradicts, and what was done about each;
//! - [`moved`]: the platform version each source describes, and what Modyo changed since the
//!   published specification;
//! - [`check`]: every cassette judged, the shrink-only list of [`known`] contradictions applied
//!   (part of `modyo-lab cassettes check`), its findings [`Problem`]s;
//!
//! Path templates are `modyo_replay::template` (a cassette's `undocumented` marks use them
//! too). The `modyo-lab spec` subcommands and the coverage report (`spec coverage`, which
//! replays every scenario through the server) are the lab's (`modyo-lab`).

pub mod amend;
pub mod check;
pub mod conform;
pub mod contested;
pub mod errata;
pub mod import;
pub mod known;
pub mod moved;
mod problem;
pub mod pull;
pub mod shape;
pub mod source;
pub mod surface;

use std::path::PathBuf;

pub use conform::Surfaces;
pub use problem::{Problem, ProblemKind};
pub use shape::Shape;
pub use surface::{Operation, SourceProvenance, Surface};

/// The default surface directory: `harness/spec/` of the workspace, found at run time (see
/// [`modyo_replay::workspace`]), else `./harness/spec`.
pub fn default_dir() -> PathBuf {
    modyo_replay::workspace::dir(DEFAULT_DIR)
}

/// [`default_dir`] relative to the workspace.
pub const DEFAULT_DIR: &str = "harness/spec";

/// Something wrong with a document, a surface file or a source.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// A file or directory could not be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A document that cannot be imported.
    #[error("{api}: {reason}")]
    Document {
        /// The API being imported.
        api: String,
        /// What is wrong.
        reason: String,
    },
    /// A surface file that does not parse.
    #[error("{}: {reason}", .path.display())]
    Surface {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A directory without surface files.
    #[error("{}: no surface file (*.json); run `make spec`", .path.display())]
    NoSurface {
        /// The directory.
        path: PathBuf,
    },
    /// The published document could not be read from its source.
    #[error("source: {0}")]
    Source(String),
    /// `spec pull` failed (never carries the token).
    #[error("pull: {0}")]
    Pull(String),
}
