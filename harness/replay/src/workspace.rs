//! Where the lab's files are, found at run time: the `cassettes/` and `reports/` of a checkout
//! of this project. Nothing is compiled in, so a binary that is moved or installed never points
//! at the machine that built it.
//!
//! The workspace is the nearest directory holding both a `Cargo.toml` and a `cassettes/`
//! directory, looked for first above the running executable (`target/debug/modyo-lab` stands
//! in its checkout), then at and above the current directory. Without one, the defaults are
//! `./cassettes` and `./reports`.

use std::path::{Path, PathBuf};

/// The help of an option whose default is `name` under the workspace (`cassettes`,
/// `reports`, `harness/spec`): `what`, then how the default is found. clap would print the path
/// this machine resolves, which says nothing about another one.
pub fn dir_help(what: &str, name: &str) -> String {
    format!(
        "{what} [default: {name}/ of the workspace this binary stands in, else of the workspace \
         around the current directory, else ./{name}]"
    )
}

/// The help of a `--cassettes` option: [`dir_help`] for `cassettes`.
pub fn cassettes_help(what: &str) -> String {
    dir_help(what, "cassettes")
}

/// The workspace of this process: around its executable, else around the current directory.
pub fn root() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok();
    let cwd = std::env::current_dir().ok();
    find(exe.as_deref().and_then(Path::parent), cwd.as_deref())
}

/// The nearest workspace at or above `beside_exe`, else at or above `cwd`.
pub fn find(beside_exe: Option<&Path>, cwd: Option<&Path>) -> Option<PathBuf> {
    [beside_exe, cwd]
        .into_iter()
        .flatten()
        .find_map(|start| start.ancestors().find(|dir| is_workspace(dir)))
        .map(Path::to_path_buf)
}

fn is_workspace(dir: &Path) -> bool {
    dir.join("Cargo.toml").is_file() && dir.join("cassettes").is_dir()
}

/// `name` under the workspace, else `./name`.
pub fn dir(name: &str) -> PathBuf {
    root().map_or_else(|| PathBuf::from(name), |root| root.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkout(at: &Path) {
        std::fs::create_dir_all(at.join("cassettes")).expect("mkdir");
        std::fs::create_dir_all(at.join("target/debug")).expect("mkdir");
        std::fs::write(at.join("Cargo.toml"), "[workspace]\n").expect("write");
    }

    #[test]
    fn the_checkout_around_the_executable_comes_first() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let built = tmp.path().join("built");
        let other = tmp.path().join("other");
        checkout(&built);
        checkout(&other);
        let found = find(
            Some(&built.join("target/debug")),
            Some(&other.join("cassettes")),
        );
        assert_eq!(found, Some(built));
    }

    #[test]
    fn an_installed_binary_uses_the_checkout_around_the_current_directory() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let bin = tmp.path().join("home/.cargo/bin");
        std::fs::create_dir_all(&bin).expect("mkdir");
        let work = tmp.path().join("work");
        checkout(&work);
        let inside = work.join("target/debug");
        assert_eq!(find(Some(&bin), Some(&inside)), Some(work));
    }

    #[test]
    fn a_directory_is_a_workspace_only_with_a_manifest_and_cassettes() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let only_cassettes = tmp.path().join("a");
        std::fs::create_dir_all(only_cassettes.join("cassettes")).expect("mkdir");
        let only_manifest = tmp.path().join("b");
        std::fs::create_dir_all(&only_manifest).expect("mkdir");
        std::fs::write(only_manifest.join("Cargo.toml"), "").expect("write");
        assert_eq!(find(Some(&only_cassettes), Some(&only_manifest)), None);
        assert_eq!(find(None, None), None);
    }
}
