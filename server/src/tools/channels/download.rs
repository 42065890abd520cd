//! `channels-download`: a custom widget's ZIP (`GET .../widget_definitions/{id}/download`),
//! unpacked into a local directory.
//!
//! The archive is checked whole before anything touches the disk: an entry whose path would
//! land outside `targetDir` (`..`, an absolute path, a drive prefix, a backslash), a symbolic
//! link, two entries for one path, a file where another entry needs a directory (`a` and
//! `a/b`), or an archive past the size limits refuses the call with `local_io` and nothing is
//! written. Then the disk: existing files are not overwritten unless `overwrite: true`, and a
//! symbolic link already inside `targetDir`, or a file where the archive needs a directory,
//! refuses the call too. Only then are the files written, into a staging directory beside
//! their destination, and moved into place once all of them are written: a write that fails
//! (a full disk) leaves nothing behind. The files reported are read back from the disk after
//! writing (C7).

use std::collections::HashSet;
use std::io::{Cursor, Read};
use std::path::{Component, Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::Site;
use super::widgets::{Widget, find_widget};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, Legacy, PostCondition, Reply, ToolClass, ToolError};
use crate::modyo::Query;
use crate::tools::args::Ident;
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{Answer, Container, Data, Need};

/// The most entries an archive may hold.
pub(crate) const MAX_ENTRIES: usize = 10_000;
/// The most bytes an archive may unpack to.
pub(crate) const MAX_UNPACKED_BYTES: u64 = 200 * 1024 * 1024;

/// Arguments of `channels-download`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct DownloadArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Widget: exact name (looked up first) or id.
    widget: Ident,
    /// Local directory to unpack into (created if missing).
    #[serde(rename = "targetDir")]
    target_dir: String,
    /// Replace files that already exist (default false: refuse).
    #[serde(default)]
    overwrite: bool,
}

/// What a download wrote: the directory, and each file with its size on disk.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct Downloaded {
    path: String,
    files: Vec<File>,
}

/// One file written.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct File {
    path: String,
    bytes: u64,
}

impl Data for Downloaded {}

pub(crate) fn download_tool() -> ToolDef {
    tool("channels-download", Module::Channels, ToolClass::Mutation)
        .describe(
            "Download a custom widget's code (ZIP) and unpack it into targetDir on this machine. Entries that would \
escape targetDir, links, and existing files (unless overwrite) refuse the call before anything is written. data: \
the directory and the files written, read back from disk; state.affected: files written. \
The platform rebuilds the ZIP: <uuid>.js/.css/.html, chunks without folders, source maps; not redeployable.",
        )
        .resource()
        .state()
        .handle(download)
        .writes_state(RareState::AFFECTED)
}

async fn download(call: Call, args: DownloadArgs) -> Answer<Downloaded> {
    if args.target_dir.trim().is_empty() {
        return Err(CallError::Arguments("targetDir is empty".into()));
    }
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Id).await?;
    let widgets = site.collection::<Widget>();
    let found = find_widget(client, &widgets, &args.widget).await?;
    let path = format!("{}/download", widgets.item(found.id));
    let zip = client.get_bytes(&path, &Query::new()).await.map_err(|e| {
        let missing = e.is_not_found();
        let error = ToolError::from(e);
        if missing {
            error.with_message(format!(
                "widget {} of site {} has no download; check the widget with channels-widgets-manage (action get)",
                found.id, site.id
            ))
        } else {
            error
        }
    })?;
    let target = PathBuf::from(args.target_dir.trim());
    let overwrite = args.overwrite;
    let files = tokio::task::spawn_blocking(move || unpack(&zip, &target, overwrite))
        .await
        .map_err(|e| {
            ToolError::new(
                ErrorCode::LocalIo,
                format!("the unpacking task failed: {e}"),
            )
        })??;
    let resource = found.resource();
    let affected = files.files.len();
    let data = Downloaded {
        path: files.root.display().to_string(),
        files: files
            .files
            .into_iter()
            .map(|(path, bytes)| File { path, bytes })
            .collect(),
    };
    let old = Legacy::custom(
        |result| json!({"message": "Widget downloaded successfully", "action": "downloaded", "result": result}),
    );
    Ok(Reply::new(data)
        .resource(resource)
        .state(PostCondition::status("downloaded").affected(affected))
        .old(old)
        .into())
}

/// What was written: the canonical target directory and each file (relative path with `/`,
/// size on disk), sorted by path.
#[derive(Debug)]
pub(crate) struct Unpacked {
    pub(crate) root: PathBuf,
    pub(crate) files: Vec<(String, u64)>,
}

fn refused(message: String) -> ToolError {
    ToolError::new(ErrorCode::LocalIo, message)
}

/// The safe relative path of an entry name, or why it is refused.
fn safe_relative(name: &str) -> Result<PathBuf, String> {
    if name.contains('\\') || name.contains('\0') {
        return Err(format!("entry '{name}' has a backslash or NUL in its path"));
    }
    let path = Path::new(name);
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => {
                let part_text = part.to_string_lossy();
                // A drive prefix ("C:") is a plain component on Unix: refuse it everywhere.
                if part_text.len() >= 2 && part_text.as_bytes()[1] == b':' {
                    return Err(format!("entry '{name}' starts with a drive prefix"));
                }
                out.push(part);
            }
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(format!(
                    "entry '{name}' climbs out of the directory with '..'"
                ));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(format!("entry '{name}' is an absolute path"));
            }
        }
    }
    if out.as_os_str().is_empty() {
        return Err(format!("entry '{name}' has an empty path"));
    }
    Ok(out)
}

enum Entry {
    Dir(PathBuf),
    File(PathBuf, Vec<u8>),
}

/// Reads and checks every entry of the archive; nothing touches the disk.
fn plan(zip: &[u8]) -> Result<Vec<Entry>, ToolError> {
    let mut archive = zip::ZipArchive::new(Cursor::new(zip)).map_err(|e| {
        ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!("the widget download is not a readable ZIP: {e}"),
        )
    })?;
    if archive.has_duplicate_names() {
        return Err(refused(
            "the widget ZIP holds two entries with the same name, and only one could be kept; nothing was written"
                .into(),
        ));
    }
    if archive.len() > MAX_ENTRIES {
        return Err(refused(format!(
            "the widget ZIP has {} entries, more than the {MAX_ENTRIES} this tool unpacks; nothing was written",
            archive.len()
        )));
    }
    let mut entries = Vec::new();
    let mut total: u64 = 0;
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).map_err(|e| {
            ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!("the widget ZIP's entry {i} cannot be read: {e}"),
            )
        })?;
        let name = file
            .name()
            .map_err(|e| {
                refused(format!(
                    "the widget ZIP's entry {i} has a name that cannot be read ({e}); nothing was written"
                ))
            })?
            .into_owned();
        let is_link = file.is_symlink()
            || file
                .unix_mode()
                .is_some_and(|mode| mode & 0o170_000 == 0o120_000);
        if is_link {
            return Err(refused(format!(
                "entry '{name}' is a symbolic link, which could point outside targetDir; nothing was written"
            )));
        }
        let relative = safe_relative(&name).map_err(|why| {
            refused(format!(
                "{why}: it would land outside targetDir; nothing was written"
            ))
        })?;
        if file.is_dir() {
            entries.push(Entry::Dir(relative));
            continue;
        }
        let budget = MAX_UNPACKED_BYTES - total;
        let mut data = Vec::new();
        (&mut file)
            .take(budget + 1)
            .read_to_end(&mut data)
            .map_err(|e| {
                ToolError::new(
                    ErrorCode::InvalidUpstreamResponse,
                    format!("the widget ZIP's entry '{name}' cannot be unpacked: {e}"),
                )
            })?;
        if data.len() as u64 > budget {
            return Err(refused(format!(
                "the widget ZIP unpacks to more than {MAX_UNPACKED_BYTES} bytes; nothing was written"
            )));
        }
        total += data.len() as u64;
        entries.push(Entry::File(relative, data));
    }
    check_tree(&entries)?;
    Ok(entries)
}

/// The entries form one tree: no path twice as a file (`a` and `./a`), and no file where
/// another entry needs a directory (`a` and `a/b`, in either order).
fn check_tree(entries: &[Entry]) -> Result<(), ToolError> {
    let mut files: HashSet<&Path> = HashSet::new();
    let mut dirs: HashSet<&Path> = HashSet::new();
    for entry in entries {
        let (path, is_file) = match entry {
            Entry::Dir(path) => (path.as_path(), false),
            Entry::File(path, _) => (path.as_path(), true),
        };
        if is_file && !files.insert(path) {
            return Err(refused(format!(
                "the widget ZIP holds {} twice, and only one could be kept; nothing was written",
                path.display()
            )));
        }
        if !is_file {
            dirs.insert(path);
        }
        dirs.extend(
            path.ancestors()
                .skip(1)
                .filter(|a| !a.as_os_str().is_empty()),
        );
    }
    if let Some(both) = files.iter().find(|f| dirs.contains(*f)) {
        return Err(refused(format!(
            "the widget ZIP has {} both as a file and as a directory; nothing was written",
            both.display()
        )));
    }
    Ok(())
}

/// Whether any existing component of `path` below `root` is a symbolic link.
fn crosses_link(root: &Path, relative: &Path) -> Option<PathBuf> {
    let mut current = root.to_path_buf();
    for component in relative.components() {
        current.push(component);
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => return Some(current),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

/// An existing file on the way to `relative` below `root` (where a directory is needed).
fn file_in_the_way(root: &Path, relative: &Path) -> Option<PathBuf> {
    let mut current = root.to_path_buf();
    let parents: Vec<_> = relative.components().collect();
    for component in &parents[..parents.len().saturating_sub(1)] {
        current.push(component);
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if !meta.is_dir() => return Some(current),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

/// A directory that is removed (with what is in it) when dropped, unless kept.
struct Staging(Option<PathBuf>);

impl Drop for Staging {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A fresh staging directory inside `parent` (hidden, named after this process).
fn staging_in(parent: &Path) -> std::io::Result<Staging> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = parent.join(format!(".modyo-download-{}-{n}", std::process::id()));
    std::fs::create_dir(&dir)?;
    Ok(Staging(Some(dir)))
}

/// Unpacks `zip` into `target`: every check first, then the writes (staged, then moved into
/// place), then a read-back.
pub(crate) fn unpack(zip: &[u8], target: &Path, overwrite: bool) -> Result<Unpacked, ToolError> {
    let entries = plan(zip)?;
    let io =
        |what: &Path, e: std::io::Error| refused(format!("cannot write {}: {e}", what.display()));
    if target.exists() && !target.is_dir() {
        return Err(refused(format!(
            "targetDir {} exists and is not a directory",
            target.display()
        )));
    }
    // Checks against what is already on disk, before the first write.
    if target.is_dir() {
        let root = target.canonicalize().map_err(|e| io(target, e))?;
        for entry in &entries {
            let (relative, is_file) = match entry {
                Entry::Dir(r) => (r, false),
                Entry::File(r, _) => (r, true),
            };
            if let Some(link) = crosses_link(&root, relative) {
                return Err(refused(format!(
                    "{} is a symbolic link inside targetDir; nothing was written",
                    link.display()
                )));
            }
            let in_the_way = file_in_the_way(&root, relative).or_else(|| {
                (!is_file && root.join(relative).is_file()).then(|| root.join(relative))
            });
            if let Some(file) = in_the_way {
                return Err(refused(format!(
                    "{} is a file where the widget has a directory; nothing was written",
                    file.display()
                )));
            }
            let dest = root.join(relative);
            if is_file && dest.exists() && (!overwrite || dest.is_dir()) {
                return Err(refused(format!(
                    "{} already exists; pass overwrite: true to replace it (nothing was written)",
                    dest.display()
                )));
            }
        }
    }
    // A new targetDir is staged whole beside it and renamed into place; into an existing one,
    // every file is staged inside it first, then each is renamed to its place.
    let fresh = !target.is_dir();
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if fresh {
        std::fs::create_dir_all(&parent).map_err(|e| io(&parent, e))?;
    }
    let staged_in = if fresh {
        parent.clone()
    } else {
        target.to_path_buf()
    };
    let mut staging = staging_in(&staged_in).map_err(|e| io(&staged_in, e))?;
    let stage = staging.0.clone().unwrap_or_default();
    let mut written = Vec::new();
    for entry in &entries {
        match entry {
            Entry::Dir(relative) => {
                let dest = stage.join(relative);
                std::fs::create_dir_all(&dest).map_err(|e| io(&dest, e))?;
            }
            Entry::File(relative, data) => {
                let dest = stage.join(relative);
                if let Some(parent) = dest.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
                }
                std::fs::write(&dest, data).map_err(|e| io(&dest, e))?;
                written.push(relative.clone());
            }
        }
    }
    let root = if fresh {
        std::fs::rename(&stage, target).map_err(|e| io(target, e))?;
        staging.0 = None;
        target.canonicalize().map_err(|e| io(target, e))?
    } else {
        let root = target.canonicalize().map_err(|e| io(target, e))?;
        for entry in &entries {
            let relative = match entry {
                Entry::Dir(r) => r,
                Entry::File(r, _) => r,
            };
            let dest = root.join(relative);
            match entry {
                Entry::Dir(_) => std::fs::create_dir_all(&dest).map_err(|e| io(&dest, e))?,
                Entry::File(..) => {
                    if let Some(parent) = dest.parent() {
                        std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
                        let real = parent.canonicalize().map_err(|e| io(parent, e))?;
                        if !real.starts_with(&root) {
                            return Err(refused(format!(
                                "{} resolves outside targetDir; stopped before writing it",
                                dest.display()
                            )));
                        }
                    }
                    std::fs::rename(stage.join(relative), &dest).map_err(|e| io(&dest, e))?;
                }
            }
        }
        root
    };
    drop(staging);
    // Read back: what is on disk now, not what the archive said.
    let mut files = Vec::new();
    for relative in written {
        let dest = root.join(&relative);
        let size = std::fs::metadata(&dest).map_err(|e| io(&dest, e))?.len();
        let shown = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        files.push((shown, size));
    }
    files.sort();
    Ok(Unpacked { root, files })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_that_escape_are_refused() {
        assert_eq!(
            safe_relative("dist/main.js").unwrap(),
            PathBuf::from("dist/main.js")
        );
        assert_eq!(
            safe_relative("./a/b.css").unwrap(),
            PathBuf::from("a/b.css")
        );
        for bad in [
            "../x",
            "a/../../x",
            "/etc/passwd",
            "C:/x",
            "a\\..\\x",
            "",
            "./",
        ] {
            assert!(safe_relative(bad).is_err(), "{bad}");
        }
    }

    fn zip_of(files: &[(&str, &str)]) -> Vec<u8> {
        use std::io::Write as _;
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, body) in files {
            writer
                .start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            writer.write_all(body.as_bytes()).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    #[test]
    fn a_tree_with_conflicts_is_refused_before_any_write() {
        for files in [
            vec![("ok.txt", "x"), ("a", "file"), ("a/b", "x")],
            vec![("a/b/c", "x"), ("a/b", "file")],
            vec![("x.txt", "1"), ("./x.txt", "2")],
        ] {
            let dir = tempfile::tempdir().unwrap();
            let target = dir.path().join("w");
            let err = unpack(&zip_of(&files), &target, false).unwrap_err();
            assert!(
                err.message().contains("nothing was written"),
                "{}",
                err.message()
            );
            assert_eq!(
                std::fs::read_dir(dir.path()).unwrap().count(),
                0,
                "{files:?}"
            );
        }
    }

    #[test]
    fn into_an_existing_directory_nothing_is_left_behind() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("keep.txt"), "mine").unwrap();
        let unpacked = unpack(
            &zip_of(&[("dist/a.js", "go()"), ("b.css", "")]),
            dir.path(),
            false,
        )
        .unwrap();
        assert_eq!(
            unpacked.files,
            [("b.css".to_owned(), 0), ("dist/a.js".to_owned(), 4)]
        );
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["b.css", "dist", "keep.txt"],
            "no staging directory left"
        );
    }
}
