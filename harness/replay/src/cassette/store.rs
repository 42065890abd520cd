//! Cassettes on disk: loading one or all, resolving `include`, and the deterministic writer.
//!
//! A cassette named `content/spaces-list` lives at `<root>/content/spaces-list.json`. The walk
//! of [`Cassette::load_all`] skips hidden entries, non-JSON files and `*.new.json` (a candidate
//! written beside a cassette for review, never a cassette itself).
//!
//! A cassette is only ever read from a regular file of at most [`MAX_CASSETTE_BYTES`]: a FIFO
//! named `*.json` would block the reader, a link to `/dev/zero` would never end, so both are
//! refused before they are opened. [`load_path`] also takes one cassette file instead of a
//! directory (`modyo-lab serve --cassettes FILE`).

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use super::error::CassetteError;
use super::model::Cassette;
use super::validate::check_name;

/// The default cassettes directory: `cassettes/` of the workspace, found at run time (see
/// [`crate::workspace`]), else `./cassettes`.
pub fn default_dir() -> PathBuf {
    crate::workspace::dir("cassettes")
}

/// The most bytes a cassette file may hold (the largest committed one is under 2 MB).
pub const MAX_CASSETTE_BYTES: u64 = 64 * 1024 * 1024;

/// The names of every cassette file under `root` (recursively, sorted), without loading
/// them: the walk of [`Cassette::load_all`], for tools that report each broken file.
pub fn names(root: &Path) -> Result<Vec<String>, CassetteError> {
    if !root.is_dir() {
        return Err(CassetteError::MissingRoot {
            path: root.to_owned(),
        });
    }
    let mut names = Vec::new();
    walk(root, "", &mut names)?;
    names.sort();
    Ok(names)
}

/// The file that holds cassette `name` under `root`.
pub fn path_of(root: &Path, name: &str) -> PathBuf {
    root.join(format!("{name}.json"))
}

impl Cassette {
    /// Loads and validates the cassette `name` (e.g. `content/spaces-list`) from `root`.
    pub fn load(root: impl AsRef<Path>, name: &str) -> Result<Cassette, CassetteError> {
        check_name(name)?;
        let path = path_of(root.as_ref(), name);
        let text = match read_file(&path) {
            Err(CassetteError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                return Err(CassetteError::NotFound {
                    name: name.to_owned(),
                    path,
                });
            }
            other => other?,
        };
        Cassette::parse(name, &path, &text)
    }

    /// Parses `text` as cassette `name`; `path` is only used to name the file in errors.
    pub fn parse(name: &str, path: &Path, text: &str) -> Result<Cassette, CassetteError> {
        check_name(name)?;
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let mut cassette: Cassette =
            serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
                CassetteError::Parse {
                    path: path.to_owned(),
                    json_path: e.path().to_string(),
                    source: e.into_inner(),
                }
            })?;
        deserializer.end().map_err(|source| CassetteError::Parse {
            path: path.to_owned(),
            json_path: ".".to_owned(),
            source,
        })?;
        cassette.name = name.to_owned();
        cassette.validate()?;
        Ok(cassette)
    }

    /// Loads every cassette under `root` (recursively), sorted by name. An empty directory
    /// gives an empty list; a missing one is an error.
    pub fn load_all(root: impl AsRef<Path>) -> Result<Vec<Cassette>, CassetteError> {
        let root = root.as_ref();
        if !root.is_dir() {
            return Err(CassetteError::MissingRoot {
                path: root.to_owned(),
            });
        }
        let mut names = Vec::new();
        walk(root, "", &mut names)?;
        names.sort();
        names
            .iter()
            .map(|name| Cassette::load(root, name))
            .collect()
    }

    /// This cassette followed by everything it includes, transitively, each once, in mount
    /// order (see [`resolve`]).
    pub fn with_includes(self, root: impl AsRef<Path>) -> Result<Vec<Cassette>, CassetteError> {
        resolve(root, vec![self])
    }

    /// The cassette as its file: 2-space pretty JSON, keys in stored order, trailing newline.
    /// The same cassette always gives the same bytes. Fails if the cassette is invalid.
    pub fn to_json(&self) -> Result<String, CassetteError> {
        self.validate()?;
        let mut text =
            serde_json::to_string_pretty(self).map_err(|source| CassetteError::Serialize {
                name: self.name.clone(),
                source,
            })?;
        text.push('\n');
        Ok(text)
    }

    /// Writes the cassette to `<root>/<name>.json` (creating directories) and returns the path.
    pub fn save(&self, root: impl AsRef<Path>) -> Result<PathBuf, CassetteError> {
        let text = self.to_json()?;
        let path = path_of(root.as_ref(), &self.name);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|source| CassetteError::Io {
                path: dir.to_owned(),
                source,
            })?;
        }
        fs::write(&path, text).map_err(|source| CassetteError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }
}

/// Reads a cassette file: a regular file (links followed) of at most [`MAX_CASSETTE_BYTES`],
/// as UTF-8. Anything else is refused before it is opened.
fn read_file(path: &Path) -> Result<String, CassetteError> {
    use std::io::Read as _;
    let io = |source| CassetteError::Io {
        path: path.to_owned(),
        source,
    };
    let meta = fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(CassetteError::NotRegular {
            path: path.to_owned(),
            kind: kind_of(&meta),
        });
    }
    let too_large = |bytes| CassetteError::TooLarge {
        path: path.to_owned(),
        bytes,
        limit: MAX_CASSETTE_BYTES,
    };
    if meta.len() > MAX_CASSETTE_BYTES {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    fs::File::open(path)
        .map_err(io)?
        .take(MAX_CASSETTE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_CASSETTE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes)
        .map_err(|e| io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
}

/// What a path that is not a regular file is.
fn kind_of(meta: &fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// The cassettes at `path`: every cassette under a directory ([`Cassette::load_all`]), or the
/// one cassette file `path` names. Returns the root its includes resolve from with them: the
/// directory, or for a file the nearest parent directory under which everything it includes
/// exists (its name is its path from there, without `.json`).
pub fn load_path(path: &Path) -> Result<(PathBuf, Vec<Cassette>), CassetteError> {
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(CassetteError::MissingRoot {
                path: path.to_owned(),
            });
        }
        Err(source) => {
            return Err(CassetteError::Io {
                path: path.to_owned(),
                source,
            });
        }
    };
    if meta.is_dir() {
        return Ok((path.to_owned(), Cassette::load_all(path)?));
    }
    if !meta.is_file() {
        return Err(CassetteError::NotRegular {
            path: path.to_owned(),
            kind: kind_of(&meta),
        });
    }
    let not_one = |reason: &str| CassetteError::NotACassetteFile {
        path: path.to_owned(),
        reason: reason.to_owned(),
    };
    let file_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| not_one("the file name is not UTF-8"))?;
    let Some(stem) = file_name.strip_suffix(".json") else {
        return Err(not_one(
            "not a cassette: a cassette file's name ends in .json (or pass the cassettes directory)",
        ));
    };
    if stem.ends_with(".new") {
        return Err(not_one(
            "a .new.json file is a candidate for review, not a cassette; rename it to serve it",
        ));
    }
    let parent = path.parent().unwrap_or(Path::new("."));
    let text = read_file(path)?;
    let cassette = Cassette::parse(stem, path, &text)?;
    if cassette.include.is_empty() {
        return Ok((parent.to_owned(), vec![cassette]));
    }
    // The root is where the includes are: the nearest parent under which they all exist.
    let mut name = stem.to_owned();
    let mut dir = Some(parent);
    while let Some(root) = dir {
        if cassette
            .include
            .iter()
            .all(|include| path_of(root, include).is_file())
        {
            return Ok((root.to_owned(), vec![Cassette::parse(&name, path, &text)?]));
        }
        let Some(up) = root.file_name().and_then(|n| n.to_str()) else {
            break;
        };
        name = format!("{up}/{name}");
        dir = root.parent();
    }
    let include = cassette.include[0].clone();
    Err(CassetteError::MissingInclude {
        cassette: stem.to_owned(),
        include: include.clone(),
        path: path_of(parent, &include),
    })
}

fn walk(dir: &Path, prefix: &str, names: &mut Vec<String>) -> Result<(), CassetteError> {
    let io = |source| CassetteError::Io {
        path: dir.to_owned(),
        source,
    };
    for entry in fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        if file_name.starts_with('.') {
            continue;
        }
        let file_type = entry.file_type().map_err(io)?;
        if file_type.is_dir() {
            walk(&entry.path(), &format!("{prefix}{file_name}/"), names)?;
        } else if let Some(stem) = file_name.strip_suffix(".json")
            && !stem.ends_with(".new")
        {
            names.push(format!("{prefix}{stem}"));
        }
    }
    Ok(())
}

/// Adds to `cassettes` everything they include (loaded from `root` when not already given),
/// checks for cycles, and returns the whole set in mount order: every cassette comes before
/// the cassettes it includes, so when mounted it shadows them. Ties keep the given order, then
/// the order includes were discovered in; a name given twice is kept once.
pub fn resolve(
    root: impl AsRef<Path>,
    cassettes: Vec<Cassette>,
) -> Result<Vec<Cassette>, CassetteError> {
    let root = root.as_ref();
    let mut set = IncludeGraph::default();
    for cassette in cassettes {
        set.add(cassette);
    }
    let given = set.nodes.len();
    let mut state = vec![Visit::New; given];
    for i in 0..given {
        let mut stack = Vec::new();
        set.visit(root, i, &mut state, &mut stack)?;
    }
    Ok(set.into_mount_order())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Visit {
    New,
    OnStack,
    Done,
}

#[derive(Default)]
struct IncludeGraph {
    nodes: Vec<Cassette>,
    index: HashMap<String, usize>,
    edges: Vec<Vec<usize>>,
}

impl IncludeGraph {
    fn add(&mut self, cassette: Cassette) -> usize {
        if let Some(&i) = self.index.get(cassette.name()) {
            return i;
        }
        let i = self.nodes.len();
        self.index.insert(cassette.name().to_owned(), i);
        self.nodes.push(cassette);
        self.edges.push(Vec::new());
        i
    }

    fn visit(
        &mut self,
        root: &Path,
        i: usize,
        state: &mut Vec<Visit>,
        stack: &mut Vec<usize>,
    ) -> Result<(), CassetteError> {
        if state[i] == Visit::Done {
            return Ok(());
        }
        state[i] = Visit::OnStack;
        stack.push(i);
        let includes = self.nodes[i].include.clone();
        for include in includes {
            let j = match self.index.get(&include) {
                Some(&j) => j,
                None => {
                    let loaded = Cassette::load(root, &include).map_err(|e| match e {
                        CassetteError::NotFound { path, .. } => CassetteError::MissingInclude {
                            cassette: self.nodes[i].name().to_owned(),
                            include: include.clone(),
                            path,
                        },
                        other => other,
                    })?;
                    let j = self.add(loaded);
                    state.push(Visit::New);
                    j
                }
            };
            self.edges[i].push(j);
            match state[j] {
                Visit::OnStack => {
                    let from = stack.iter().position(|&k| k == j).unwrap_or(0);
                    let mut chain: Vec<String> = stack[from..]
                        .iter()
                        .map(|&k| self.nodes[k].name().to_owned())
                        .collect();
                    chain.push(self.nodes[j].name().to_owned());
                    return Err(CassetteError::IncludeCycle { chain });
                }
                Visit::New => self.visit(root, j, state, stack)?,
                Visit::Done => {}
            }
        }
        stack.pop();
        state[i] = Visit::Done;
        Ok(())
    }

    /// Kahn's algorithm over "includes" edges, lowest index first among the ready nodes.
    fn into_mount_order(self) -> Vec<Cassette> {
        let n = self.nodes.len();
        let mut included_by = vec![0usize; n];
        for targets in &self.edges {
            for &j in targets {
                included_by[j] += 1;
            }
        }
        let mut ready: BTreeSet<usize> = (0..n).filter(|&i| included_by[i] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(i) = ready.pop_first() {
            order.push(i);
            for &j in &self.edges[i] {
                included_by[j] -= 1;
                if included_by[j] == 0 {
                    ready.insert(j);
                }
            }
        }
        let mut slots: Vec<Option<Cassette>> = self.nodes.into_iter().map(Some).collect();
        order.into_iter().filter_map(|i| slots[i].take()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cassette::{Interaction, Provenance};
    use serde_json::json;

    fn cassette(name: &str, includes: &[&str]) -> Cassette {
        includes.iter().fold(
            Cassette::new(name, Provenance::synthetic("2026-11-29", "test")),
            |c, i| c.include(*i),
        )
    }

    fn names(cassettes: &[Cassette]) -> Vec<&str> {
        cassettes.iter().map(Cassette::name).collect()
    }

    #[test]
    fn a_diamond_mounts_every_includer_before_what_it_includes() {
        let dir = tempfile::tempdir().expect("tempdir");
        cassette("b", &["d"]).save(dir.path()).expect("b");
        cassette("c", &["d"]).save(dir.path()).expect("c");
        cassette("d", &[]).save(dir.path()).expect("d");
        let order = cassette("a", &["b", "c"])
            .with_includes(dir.path())
            .expect("resolves");
        assert_eq!(names(&order), ["a", "b", "c", "d"]);
    }

    #[test]
    fn cycles_are_reported_with_their_chain() {
        let dir = tempfile::tempdir().expect("tempdir");
        cassette("x/b", &["x/c"]).save(dir.path()).expect("b");
        cassette("x/c", &["x/b"]).save(dir.path()).expect("c");
        let err = cassette("x/a", &["x/b"])
            .with_includes(dir.path())
            .expect_err("cycle");
        assert_eq!(err.to_string(), "include cycle: x/b -> x/c -> x/b");
        let err = cassette("self", &["self"])
            .with_includes(dir.path())
            .expect_err("self cycle");
        assert_eq!(err.to_string(), "include cycle: self -> self");
    }

    #[test]
    fn a_missing_include_names_the_includer_and_the_include() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = cassette("content/scenario", &["content/base"])
            .with_includes(dir.path())
            .expect_err("missing");
        let text = err.to_string();
        assert!(
            text.starts_with(
                "cassette 'content/scenario' includes 'content/base', which does not exist"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_writer_is_byte_stable_and_reads_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let original = cassette("content/w", &[]).interaction(
            Interaction::post("/api/x")
                .query("z", "1")
                .query("a", "2")
                .body(json!({"z": 1, "a": {"y": null, "b": 2.5}}))
                .respond(201, json!({"id": 1, "name": "ñandú"})),
        );
        let path = original.save(dir.path()).expect("writes");
        let text = fs::read_to_string(&path).expect("reads");
        assert!(text.ends_with("}\n") && !text.ends_with("\n\n"));
        assert!(text.contains("\n  \"provenance\": {\n    \"source\": \"synthetic\""));
        // Stored key order, not sorted order.
        assert!(
            text.find("\"z\": \"1\"") < text.find("\"a\": \"2\""),
            "{text}"
        );
        let back = Cassette::load(dir.path(), "content/w").expect("loads");
        assert_eq!(back, original);
        assert_eq!(back.to_json().expect("writes"), text);
    }

    #[test]
    fn load_all_walks_sorted_and_skips_candidates_and_hidden_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        for name in ["z", "content/b", "content/a", "content/deep/c"] {
            cassette(name, &[]).save(dir.path()).expect("saves");
        }
        fs::write(dir.path().join("content/a.new.json"), "not a cassette").expect("writes");
        fs::write(dir.path().join("README.md"), "docs").expect("writes");
        fs::write(dir.path().join(".hidden.json"), "{}").expect("writes");
        let all = Cassette::load_all(dir.path()).expect("loads");
        assert_eq!(
            names(&all),
            ["content/a", "content/b", "content/deep/c", "z"]
        );
        let err = Cassette::load_all(dir.path().join("nope")).expect_err("missing root");
        assert!(matches!(err, CassetteError::MissingRoot { .. }));
    }

    #[test]
    fn parse_errors_name_the_file_and_the_json_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut value = serde_json::to_value(
            cassette("c", &[]).interaction(Interaction::get("/x").respond(200, json!({}))),
        )
        .expect("value");
        value["interactions"][0]["response"]["statuz"] = json!(200);
        fs::write(dir.path().join("c.json"), value.to_string()).expect("writes");
        let err = Cassette::load(dir.path(), "c").expect_err("unknown field");
        let text = err.to_string();
        assert!(
            text.contains("c.json: at interactions[0].response.statuz: unknown field `statuz`"),
            "{text}"
        );

        fs::write(
            dir.path().join("c.json"),
            r#"{"format": "modyo-cassette/2"}"#,
        )
        .expect("writes");
        let text = Cassette::load(dir.path(), "c")
            .expect_err("format")
            .to_string();
        assert!(
            text.contains("at format: unsupported format 'modyo-cassette/2'"),
            "{text}"
        );

        fs::write(dir.path().join("c.json"), "{} trailing").expect("writes");
        Cassette::load(dir.path(), "c").expect_err("trailing characters");

        let err = Cassette::load(dir.path(), "absent").expect_err("absent");
        assert!(matches!(err, CassetteError::NotFound { .. }), "{err}");
    }
}
