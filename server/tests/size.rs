//! Two size limits on the server's source, checked so they stay true: no file in `server/src`
//! over [`MAX_FILE_LINES`] lines, and no handler in `server/src/tools` over
//! [`MAX_HANDLER_LINES`] lines. Neither has exceptions.
//!
//! The scan reads the source as text, which is enough because `cargo fmt` fixes its layout:
//!
//! - A file's length is its number of lines.
//! - A function starts at a line whose first word (after `pub`, `pub(crate)`, `pub(super)`,
//!   `async`, `const`) is `fn`, and ends at the first later line that is a `}` alone at the
//!   indentation of that first line (rustfmt closes every body there). A signature that ends
//!   in `;` (a trait method without a body) or a body on one line is skipped. Its length
//!   counts both lines and all between.
//! - A handler is a function in `server/src/tools` that runs a call: one of its parameters is
//!   `call: Call` (a tool's handler), `call: &Call` (one action of a tool, called by its
//!   handler) or `ctx: Ctx<…>` (an action of a `-manage` tool). Helpers that take no call are
//!   not handlers.
//!
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most lines a file in `server/src` may have.
const MAX_FILE_LINES: usize = 600;

/// The most lines a handler in `server/src/tools` may have, signature and braces included.
const MAX_HANDLER_LINES: usize = 60;

/// A function found by the scan.
#[derive(Debug, PartialEq)]
struct Function {
    name: String,
    /// 1-based line of its first line.
    line: usize,
    lines: usize,
    is_handler: bool,
}

fn source_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file below `dir`, as (path relative to `root` with `/`, text), sorted.
fn sources(root: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable source directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).expect("below the root");
                let rel = rel.to_string_lossy().replace('\\', "/");
                let text = std::fs::read_to_string(&path).expect("a UTF-8 source file");
                files.insert(rel, text);
            }
        }
    }
    files
}

/// The name of the function a line starts, with its indentation.
fn function_start(line: &str) -> Option<(&str, &str)> {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let mut rest = body;
    for prefix in ["pub(crate) ", "pub(super) ", "pub ", "const ", "async "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| (indent, &rest[..end]))
}

/// The functions of one source text (see the module doc for the rule).
fn functions(text: &str) -> Vec<Function> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some((indent, name)) = function_start(line) else {
            continue;
        };
        let Some(open) = (start..lines.len()).find(|&i| {
            let l = lines[i].trim_end();
            l.ends_with('{') || l.ends_with(';') || l.ends_with('}')
        }) else {
            continue;
        };
        let last = lines[open].trim_end();
        if !last.ends_with('{') {
            continue;
        }
        let close = format!("{indent}}}");
        let Some(end) = (open + 1..lines.len()).find(|&i| lines[i] == close) else {
            continue;
        };
        let signature = lines[start..=open].join(" ");
        found.push(Function {
            name: name.to_owned(),
            line: start + 1,
            lines: end - start + 1,
            is_handler: ["call: Call", "call: &Call", "ctx: Ctx<"]
                .iter()
                .any(|p| signature.contains(p)),
        });
    }
    found
}

#[test]
fn no_file_in_server_src_is_over_the_limit() {
    let over: Vec<String> = sources(&source_root())
        .into_iter()
        .map(|(path, text)| (path, text.lines().count()))
        .filter(|(_, lines)| *lines > MAX_FILE_LINES)
        .map(|(path, lines)| {
            format!("server/src/{path}: {lines} lines, over {MAX_FILE_LINES}: split it by job")
        })
        .collect();
    assert!(over.is_empty(), "{}", over.join("\n"));
}

/// The handlers of the sources in `files` (path under `server/src`, text) that are over
/// [`MAX_HANDLER_LINES`], as messages.
fn handlers_over_the_limit(files: &BTreeMap<String, String>) -> Vec<String> {
    let mut over = Vec::new();
    for (path, text) in files {
        if !path.starts_with("tools/") {
            continue;
        }
        for function in functions(text) {
            let Function {
                name,
                line,
                lines,
                is_handler,
            } = &function;
            if *is_handler && *lines > MAX_HANDLER_LINES {
                over.push(format!(
                    "server/src/{path}:{line} {name}: {lines} lines, over {MAX_HANDLER_LINES}: split it along its phases, or move what is not its own into helpers or the engine"
                ));
            }
        }
    }
    over
}

#[test]
fn no_handler_in_server_src_tools_is_over_the_limit() {
    let over = handlers_over_the_limit(&sources(&source_root()));
    assert!(over.is_empty(), "{}", over.join("\n"));
}

#[test]
fn a_handler_over_the_limit_is_named_and_a_helper_is_not() {
    let long = |signature: &str| {
        let body = "    let x = 1;\n".repeat(MAX_HANDLER_LINES - 2);
        format!("{signature} {{\n{body}}}\n")
    };
    let files = BTreeMap::from([
        (
            "tools/a.rs".to_owned(),
            long("async fn act(call: Call, args: Args) -> Answer"),
        ),
        (
            "tools/b.rs".to_owned(),
            long("async fn over(call: Call, args: Args) -> Answer").replacen(
                "let x",
                "let y = 2;\n    let x",
                1,
            ),
        ),
        (
            "tools/c.rs".to_owned(),
            long("fn helper(value: &Value) -> bool").replacen("let x", "let y = 2;\n    let x", 1),
        ),
        (
            "modyo/d.rs".to_owned(),
            long("async fn outside(ctx: Ctx<A, T>) -> Answer").replacen(
                "let x",
                "let y = 2;\n    let x",
                1,
            ),
        ),
    ]);
    let over = handlers_over_the_limit(&files);
    assert_eq!(over.len(), 1, "{over:?}");
    assert!(
        over[0].starts_with(&format!(
            "server/src/tools/b.rs:1 over: {} lines",
            MAX_HANDLER_LINES + 1
        )),
        "{over:?}"
    );
}

#[test]
fn the_scan_measures_a_function_from_its_signature_to_its_closing_brace() {
    let text = "\
impl Thing {
    pub(crate) async fn run(
        call: Call,
        args: Args,
    ) -> Answer {
        let x = 1;
        x
    }

    fn declared(&self);

    fn short(&self) { }
}

async fn act(ctx: Ctx<A, T>) -> Answer {
    if x {
    }
}
";
    let found = functions(text);
    assert_eq!(
        found,
        [
            Function {
                name: "run".into(),
                line: 2,
                lines: 7,
                is_handler: true
            },
            Function {
                name: "act".into(),
                line: 15,
                lines: 4,
                is_handler: true
            },
        ]
    );
}
