//! The local files an upload tool may read: regular files under the folders the operator
//! allowed, nothing else.
//!
//! An upload sends a local file's bytes to the Modyo account, where an asset may be public.
//! The path comes from the model, and a model can be steered by text it read, so a path is
//! never trusted: `content-assets-manage {action: upload, file: "/proc/self/environ"}` once
//! sent the server's own environment, `MODYO_TOKEN` included, to the account. Every upload
//! reads through [`UploadRoots::read`], which refuses, before any request leaves:
//!
//! - a path that does not resolve (after following every link) to somewhere under one of the
//!   roots: a link inside a root that points out of it is refused like the place it points to;
//! - anything under `/proc`, `/sys` or `/dev`, even when a root contains them (their files are
//!   the process's memory, environment and devices, and `/proc` files claim to be regular);
//! - a hidden file or a file in a hidden folder below the root (`.env`, `.git/`, `.ssh/`,
//!   `.aws/`: where credentials live, and never an asset);
//! - anything that is not a regular file (a folder, a FIFO, a socket, a device);
//! - a file larger than the tool's limit (read at most one byte past it, whatever the file
//!   claims its size is).
//!
//! The roots come from `MODYO_UPLOAD_ROOTS`: folders separated by `:` (the `PATH` separator of
//! the platform), each of which must exist when the server starts (a root that does not is a
//! configuration error: the server refuses to start naming it). Unset, the one root is the
//! folder the server was started in, unless that is `/` or a system folder, where no upload is
//! allowed until a root is set. Set but empty (or `none`), uploads are off.

use std::fmt;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The variable that names the upload roots.
pub const UPLOAD_ROOTS_VAR: &str = "MODYO_UPLOAD_ROOTS";

/// Folders no upload reads from, even under a root: the kernel's views of processes, devices
/// and drivers.
const SYSTEM_PREFIXES: [&str; 3] = ["/proc", "/sys", "/dev"];

/// Where uploads may read from (canonical folders), and how that was decided.
#[derive(Clone, PartialEq, Eq)]
pub struct UploadRoots {
    roots: Vec<PathBuf>,
    origin: Origin,
}

/// How the roots were chosen: said in every refusal, so an operator knows what to change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// `MODYO_UPLOAD_ROOTS` named them.
    Configured,
    /// Unset: the working directory.
    WorkingDirectory,
    /// Unset, and the working directory was `/` or a system folder.
    UnsafeWorkingDirectory,
    /// Set to nothing or `none`.
    Off,
}

impl fmt::Debug for UploadRoots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UploadRoots")
            .field("roots", &self.roots)
            .field("origin", &self.origin)
            .finish()
    }
}

/// `MODYO_UPLOAD_ROOTS` named a folder that cannot be a root.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "MODYO_UPLOAD_ROOTS: '{root}' {reason}; name existing folders separated by ':' (or 'none' to turn uploads off)"
)]
pub struct RootError {
    root: String,
    reason: String,
}

/// Why a local file was not read for an upload. The message names the path, the rule and the
/// setting that would change it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UploadRefused(String);

/// What kind of refusal: too large is the caller's parameter, the rest a local refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The path is outside the roots, hidden, a system file, not a regular file, or unreadable.
    Refused(UploadRefused),
    /// The file holds more than the limit (its size as far as it was read).
    TooLarge {
        /// Bytes read before giving up (the limit plus one, or the size the file claims).
        size: u64,
    },
}

impl UploadRoots {
    /// The roots a setting gives: `value` is `MODYO_UPLOAD_ROOTS` (`None` when unset), `cwd`
    /// the folder the server runs in.
    pub fn from_setting(value: Option<&str>, cwd: Option<&Path>) -> Result<UploadRoots, RootError> {
        let Some(value) = value else {
            return Ok(Self::default_for(cwd));
        };
        let trimmed = value.trim();
        if trimmed.is_empty() || trimmed.eq_ignore_ascii_case("none") {
            return Ok(UploadRoots {
                roots: Vec::new(),
                origin: Origin::Off,
            });
        }
        let mut roots = Vec::new();
        for part in std::env::split_paths(trimmed) {
            if part.as_os_str().is_empty() {
                continue;
            }
            let shown = part.display().to_string();
            let refuse = |reason: String| RootError {
                root: shown.clone(),
                reason,
            };
            if !part.is_absolute() {
                return Err(refuse("is not an absolute path".into()));
            }
            let canonical = std::fs::canonicalize(&part)
                .map_err(|e| refuse(format!("cannot be used ({e})")))?;
            if !canonical.is_dir() {
                return Err(refuse("is not a folder".into()));
            }
            if is_system(&canonical) {
                return Err(refuse(
                    "is a system folder (/proc, /sys and /dev are never read)".into(),
                ));
            }
            if canonical.parent().is_none() {
                return Err(refuse(
                    "is the whole file system; name the folders uploads may read".into(),
                ));
            }
            if !roots.contains(&canonical) {
                roots.push(canonical);
            }
        }
        let origin = if roots.is_empty() {
            Origin::Off
        } else {
            Origin::Configured
        };
        Ok(UploadRoots { roots, origin })
    }

    /// Unset: the working directory, unless it is `/` or a system folder.
    fn default_for(cwd: Option<&Path>) -> UploadRoots {
        let canonical = cwd.and_then(|cwd| std::fs::canonicalize(cwd).ok());
        match canonical {
            Some(dir) if dir.parent().is_some() && !is_system(&dir) => UploadRoots {
                roots: vec![dir],
                origin: Origin::WorkingDirectory,
            },
            _ => UploadRoots {
                roots: Vec::new(),
                origin: Origin::UnsafeWorkingDirectory,
            },
        }
    }

    /// The roots, canonical.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// One line for the start-up log: where uploads may read from.
    pub fn describe(&self) -> String {
        match self.origin {
            Origin::Off => "uploads are off (MODYO_UPLOAD_ROOTS is empty or none)".into(),
            Origin::UnsafeWorkingDirectory => format!(
                "uploads are off: the server runs in / or a system folder and {UPLOAD_ROOTS_VAR} is unset"
            ),
            Origin::WorkingDirectory => format!(
                "uploads read files under {} (the working directory; set {UPLOAD_ROOTS_VAR} to choose)",
                self.shown()
            ),
            Origin::Configured => {
                format!(
                    "uploads read files under {} ({UPLOAD_ROOTS_VAR})",
                    self.shown()
                )
            }
        }
    }

    fn shown(&self) -> String {
        self.roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(":")
    }

    /// Reads the file at `path` whole, if the rules allow it and it holds at most `limit`
    /// bytes. Blocking: call it from the blocking pool.
    pub fn read(&self, path: &str, limit: u64) -> Result<Vec<u8>, ReadError> {
        let refused = |why: String| ReadError::Refused(UploadRefused(why));
        let given = path.trim();
        if given.is_empty() {
            return Err(refused("the file path is empty".into()));
        }
        if self.roots.is_empty() {
            return Err(refused(format!(
                "cannot read '{given}': {}",
                self.describe()
            )));
        }
        let canonical = std::fs::canonicalize(given)
            .map_err(|e| refused(format!("cannot read '{given}': {e}")))?;
        if is_system(&canonical) {
            return Err(refused(format!(
                "'{given}' is a system file ({}); uploads never read /proc, /sys or /dev",
                canonical.display()
            )));
        }
        let Some(relative) = self
            .roots
            .iter()
            .find_map(|root| canonical.strip_prefix(root).ok())
        else {
            let via_link = canonical != Path::new(given);
            return Err(refused(format!(
                "'{given}'{} is not under an upload root; uploads read only files under {} ({}{UPLOAD_ROOTS_VAR} sets them)",
                if via_link {
                    format!(" (resolves to {})", canonical.display())
                } else {
                    String::new()
                },
                self.shown(),
                if self.origin == Origin::WorkingDirectory {
                    "the working directory; "
                } else {
                    ""
                },
            )));
        };
        if relative.components().any(
            |c| matches!(c, Component::Normal(name) if name.to_string_lossy().starts_with('.')),
        ) {
            return Err(refused(format!(
                "'{given}' is a hidden file or lies in a hidden folder (such as .env, .git or .ssh); uploads never read those"
            )));
        }
        let before = std::fs::metadata(&canonical)
            .map_err(|e| refused(format!("cannot read '{given}': {e}")))?;
        if !before.is_file() {
            return Err(refused(format!("'{given}' is not a regular file")));
        }
        let file = std::fs::File::open(&canonical)
            .map_err(|e| refused(format!("cannot read '{given}': {e}")))?;
        let opened = file
            .metadata()
            .map_err(|e| refused(format!("cannot read '{given}': {e}")))?;
        if !opened.is_file() || !same_file(&before, &opened) {
            return Err(refused(format!(
                "'{given}' changed while it was being opened; not read"
            )));
        }
        if opened.len() > limit {
            return Err(ReadError::TooLarge { size: opened.len() });
        }
        let mut bytes = Vec::with_capacity(usize::try_from(opened.len()).unwrap_or(0));
        file.take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| refused(format!("cannot read '{given}': {e}")))?;
        if bytes.len() as u64 > limit {
            return Err(ReadError::TooLarge {
                size: bytes.len() as u64,
            });
        }
        Ok(bytes)
    }
}

impl UploadRoots {
    /// [`UploadRoots::read`] on the blocking pool (file reads block; tokio's `fs` feature is
    /// not enabled).
    pub async fn read_async(&self, path: &str, limit: u64) -> Result<Vec<u8>, ReadError> {
        let roots = self.clone();
        let path = path.to_owned();
        tokio::task::spawn_blocking(move || roots.read(&path, limit))
            .await
            .unwrap_or_else(|e| {
                Err(ReadError::Refused(UploadRefused(format!(
                    "the file read did not finish: {e}"
                ))))
            })
    }
}

/// Whether `path` (canonical) is in one of the kernel's folders.
fn is_system(path: &Path) -> bool {
    SYSTEM_PREFIXES
        .iter()
        .any(|prefix| path.starts_with(prefix))
}

/// The same file on disk (device and inode on Unix; elsewhere trusted).
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots_of(dir: &Path) -> UploadRoots {
        UploadRoots::from_setting(Some(&dir.display().to_string()), None).expect("root")
    }

    fn refusal(result: Result<Vec<u8>, ReadError>) -> String {
        match result {
            Err(ReadError::Refused(UploadRefused(why))) => why,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_regular_file_under_a_root_is_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("img")).unwrap();
        std::fs::write(dir.path().join("img/logo.png"), b"png").unwrap();
        let roots = roots_of(dir.path());
        let path = dir.path().join("img/logo.png");
        assert_eq!(roots.read(&path.display().to_string(), 10).unwrap(), b"png");
        assert_eq!(
            roots.read(&path.display().to_string(), 2),
            Err(ReadError::TooLarge { size: 3 })
        );
    }

    #[test]
    fn system_files_are_refused_even_under_a_root_of_slash() {
        // `/` cannot be configured as a root holding /proc... but a root that contains a
        // link into /proc still cannot reach it.
        let dir = tempfile::tempdir().unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/proc/self/environ", dir.path().join("env.txt")).unwrap();
        let roots = roots_of(dir.path());
        for path in [
            "/proc/self/environ".to_owned(),
            "/dev/zero".to_owned(),
            "/sys/kernel/notes".to_owned(),
            dir.path().join("env.txt").display().to_string(),
        ] {
            let why = refusal(roots.read(&path, 1 << 20));
            assert!(why.contains(&path), "{why}");
        }
        let why = refusal(roots.read("/proc/self/environ", 1 << 20));
        assert!(why.contains("system file"), "{why}");
    }

    #[test]
    fn outside_the_roots_and_links_out_of_them_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), b"secret").unwrap();
        let dir = tempfile::tempdir().unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("ok.txt"))
            .unwrap();
        let roots = roots_of(dir.path());
        let direct = outside.path().join("secret.txt").display().to_string();
        let why = refusal(roots.read(&direct, 100));
        assert!(why.contains("not under an upload root"), "{why}");
        assert!(why.contains(UPLOAD_ROOTS_VAR), "{why}");
        let linked = dir.path().join("ok.txt").display().to_string();
        let why = refusal(roots.read(&linked, 100));
        assert!(why.contains("resolves to"), "{why}");
        let dotted = format!("{}/../{}", dir.path().display(), direct);
        let why = refusal(roots.read(&dotted, 100));
        assert!(
            why.contains("cannot read") || why.contains("not under"),
            "{why}"
        );
    }

    #[test]
    fn hidden_files_folders_and_non_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".env"), b"MODYO_TOKEN=x").unwrap();
        std::fs::create_dir(dir.path().join(".ssh")).unwrap();
        std::fs::write(dir.path().join(".ssh/id_rsa"), b"key").unwrap();
        std::fs::create_dir(dir.path().join("folder")).unwrap();
        let roots = roots_of(dir.path());
        for name in [".env", ".ssh/id_rsa"] {
            let why = refusal(roots.read(&dir.path().join(name).display().to_string(), 100));
            assert!(why.contains("hidden"), "{why}");
        }
        let why = refusal(roots.read(&dir.path().join("folder").display().to_string(), 100));
        assert!(why.contains("not a regular file"), "{why}");
    }

    #[test]
    fn settings_fail_closed() {
        let dir = tempfile::tempdir().unwrap();
        let off = UploadRoots::from_setting(Some("none"), Some(dir.path())).unwrap();
        assert!(off.roots().is_empty());
        let why = refusal(off.read("/etc/hostname", 100));
        assert!(why.contains("uploads are off"), "{why}");
        assert!(
            UploadRoots::from_setting(Some(""), None)
                .unwrap()
                .roots()
                .is_empty()
        );
        let missing = UploadRoots::from_setting(Some("/does/not/exist"), None).unwrap_err();
        assert!(
            missing.to_string().contains("'/does/not/exist'"),
            "{missing}"
        );
        assert!(UploadRoots::from_setting(Some("relative/dir"), None).is_err());
        assert!(UploadRoots::from_setting(Some("/proc"), None).is_err());
        assert!(UploadRoots::from_setting(Some("/"), None).is_err());
        // Unset: the working directory, unless it is `/`.
        let here = UploadRoots::from_setting(None, Some(dir.path())).unwrap();
        assert_eq!(here.roots().len(), 1);
        let slash = UploadRoots::from_setting(None, Some(Path::new("/"))).unwrap();
        assert!(slash.roots().is_empty());
        assert!(slash.describe().contains("uploads are off"));
        let two = format!("{}:{}", dir.path().display(), dir.path().display());
        assert_eq!(
            UploadRoots::from_setting(Some(&two), None)
                .unwrap()
                .roots()
                .len(),
            1
        );
    }
}
