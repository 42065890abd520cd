//! The harness's shape, held by a test: no import cycle between the folders of a harness
//! crate, and no source file over 600 lines.
//!
//! A folder is a top-level module of a crate's `src/` (`measure/`, or a file such as
//! `tokens.rs`). Folder A uses folder B when a file under A names `crate::B` (also inside a
//! `crate::{..}` group) or reaches B through enough `super::` to climb out of A; comments are
//! not read. Between crates Cargo forbids cycles already: `modyo-lab` depends on `modyo-spec`,
//! which depends on `modyo-replay`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::util::workspace;

/// Every harness crate's `src/`, lowest first.
const CRATES: [&str; 3] = ["harness/replay/src", "harness/spec/src", "harness/src"];

/// The most lines a source file of the harness may have.
const MAX_LINES: usize = 600;

/// The `.rs` files under `dir`, sorted.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("reads the source directory") {
            let path = entry.expect("reads an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The module path of a file under `src/`: `measure/budget.rs` is `[measure, budget]`,
/// `measure/mod.rs` is `[measure]`, `lib.rs` and `main.rs` are the root (`[]`).
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().unwrap_or_default();
    let stem = file.trim_end_matches(".rs");
    let root_file = parts.is_empty() && matches!(stem, "lib" | "main");
    if stem != "mod" && !root_file {
        parts.push(stem.to_owned());
    }
    parts
}

/// The code of a file without its comments (`//` to the end of the line; block comments are
/// not used in the harness).
fn code(text: &str) -> String {
    text.lines()
        .map(|line| line.find("//").map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level names a path starting at `rest` (just after `crate::`, or after the last
/// `super::` that reaches the root) names: one identifier, or each entry of a `{..}` group.
fn names_at(rest: &str) -> Vec<String> {
    if let Some(group) = rest.strip_prefix('{') {
        let mut names = Vec::new();
        let (mut depth, mut current, mut at_name) = (0usize, String::new(), true);
        for c in group.chars() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    names.push(std::mem::take(&mut current));
                    at_name = true;
                }
                c if depth == 0 && at_name && (c.is_alphanumeric() || c == '_') => current.push(c),
                c if depth == 0 && !c.is_whitespace() => at_name = false,
                _ => {}
            }
        }
        names.push(current);
        names.retain(|n| !n.is_empty());
        names
    } else {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        vec![name]
    }
}

/// The folders each folder of the crate at `src` uses, with the files that do.
fn folder_uses(src: &Path) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let files = sources(src);
    let folders: BTreeSet<String> = files
        .iter()
        .filter_map(|p| {
            module_path(p.strip_prefix(src).expect("under src"))
                .first()
                .cloned()
        })
        .collect();
    let mut uses: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in &files {
        let relative = file.strip_prefix(src).expect("under src");
        let module = module_path(relative);
        let Some(folder) = module.first() else {
            continue;
        };
        let text = code(&std::fs::read_to_string(file).expect("reads a source file"));
        let mut named = Vec::new();
        for (at, _) in text.match_indices("crate::") {
            let before = text[..at].chars().next_back();
            if before.is_none_or(|c| !(c.is_alphanumeric() || c == '_')) {
                named.extend(names_at(&text[at + "crate::".len()..]));
            }
        }
        for (at, _) in text.match_indices("super::") {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut rest = &text[at..];
            let mut climbs = 0;
            while let Some(r) = rest.strip_prefix("super::") {
                climbs += 1;
                rest = r;
            }
            if climbs >= module.len() {
                named.extend(names_at(rest));
            }
        }
        for name in named {
            if name != *folder && folders.contains(&name) {
                uses.entry(folder.clone())
                    .or_default()
                    .entry(name)
                    .or_default()
                    .insert(relative.display().to_string());
            }
        }
    }
    uses
}

/// A cycle in `uses`, if there is one: the folders around it, the first repeated at the end.
fn cycle(uses: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>) -> Option<Vec<String>> {
    fn visit(
        folder: &str,
        uses: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|f| f == folder) {
            let mut found = path[at..].to_vec();
            found.push(folder.to_owned());
            return Some(found);
        }
        if done.contains(folder) {
            return None;
        }
        path.push(folder.to_owned());
        for next in uses.get(folder).into_iter().flat_map(BTreeMap::keys) {
            if let Some(found) = visit(next, uses, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(folder.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    uses.keys()
        .find_map(|folder| visit(folder, uses, &mut Vec::new(), &mut done))
}

#[test]
fn no_import_cycle_between_the_folders_of_a_harness_crate() {
    for krate in CRATES {
        let uses = folder_uses(&workspace().join(krate));
        if let Some(cycle) = cycle(&uses) {
            let edges: Vec<String> = cycle
                .windows(2)
                .map(|pair| {
                    let files = &uses[&pair[0]][&pair[1]];
                    let files: Vec<&str> = files.iter().map(String::as_str).collect();
                    format!("{} -> {} ({})", pair[0], pair[1], files.join(", "))
                })
                .collect();
            panic!(
                "{krate}: the folders {} use each other:\n{}",
                cycle.join(" -> "),
                edges.join("\n")
            );
        }
    }
}

#[test]
fn the_folder_graph_reads_crate_paths_groups_and_supers() {
    assert_eq!(
        module_path(Path::new("measure/budget.rs")),
        ["measure", "budget"]
    );
    assert_eq!(module_path(Path::new("measure/mod.rs")), ["measure"]);
    assert_eq!(module_path(Path::new("tokens.rs")), ["tokens"]);
    assert!(module_path(Path::new("lib.rs")).is_empty());
    assert_eq!(names_at("report::ModuleReport;"), ["report"]);
    assert_eq!(
        names_at("{cassette::{self, Cassette}, tokens, report::table};"),
        ["cassette", "tokens", "report"]
    );
    assert_eq!(code("use a; // crate::b\nuse c;"), "use a; \nuse c;");
}

#[test]
fn no_harness_source_file_is_over_600_lines() {
    let root = workspace();
    let mut over = Vec::new();
    for krate in CRATES {
        for file in sources(&root.join(krate)) {
            let lines = std::fs::read_to_string(&file)
                .expect("reads a source file")
                .lines()
                .count();
            if lines > MAX_LINES {
                let relative = file.strip_prefix(&root).expect("under the workspace");
                over.push(format!("{} ({lines} lines)", relative.display()));
            }
        }
    }
    assert!(
        over.is_empty(),
        "over {MAX_LINES} lines: {over:?}; split them by concern into submodules"
    );
}
