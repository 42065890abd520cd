//! `widgets-validate`: checks a widget project on the local disk against the catalogue and
//! reports findings as data (`{code, severity, message, file?, line?, ...}`, C13). It reads
//! and never writes.
//!
//! Project checks: `package.json` exists, parses and depends on the component package when
//! sources import it; an entry file exists (`src/main.*` or `src/index.*`); a Modyo CLI
//! settings file exists (`.env.example` or `.env`, checked by name only: `.env` holds the
//! token and is never read). Source checks (`.js`, `.jsx`, `.ts`, `.tsx` outside
//! `node_modules`, build output and hidden folders): every name imported from the package is
//! a catalogue component, subcomponents exist, props are known, required props are given,
//! and literal values have the prop's type and, for enums, an allowed value. Values computed
//! at run time (`text={label}`) are not judged.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::jsx;
use super::{Catalogue, Component};

/// Source files read at most; past it the findings are incomplete (`complete: false`).
pub(crate) const MAX_FILES: usize = 1000;
/// Larger files are skipped with a `file_too_large` finding.
pub(crate) const MAX_FILE_BYTES: u64 = 1 << 20;
/// Folders deeper than this are not walked.
const MAX_DEPTH: usize = 24;
/// Directory entries looked at, at most (a wrong `projectDir` such as `/` stays cheap); past
/// it the findings are incomplete.
const MAX_ENTRIES: usize = 20_000;
/// Folders that hold dependencies or build output, never sources.
const SKIPPED_DIRS: [&str; 5] = ["node_modules", "dist", "build", "coverage", "out"];
/// Extensions of the files whose JSX is checked.
const SOURCE_EXTENSIONS: [&str; 4] = ["js", "jsx", "ts", "tsx"];
/// Where the widget's entry may live.
pub(crate) const ENTRY_CANDIDATES: [&str; 8] = [
    "src/main.jsx",
    "src/main.tsx",
    "src/main.js",
    "src/main.ts",
    "src/index.jsx",
    "src/index.tsx",
    "src/index.js",
    "src/index.ts",
];

mod finding;
mod props;

pub(crate) use finding::{Finding, Severity};
use props::check_element;

/// What a validation found.
#[derive(Debug, Clone)]
pub(crate) struct Report {
    /// The project directory, absolute.
    pub(crate) root: PathBuf,
    /// `package.json` `name`, when it has one.
    pub(crate) name: Option<String>,
    /// The findings, sorted by file, line and code.
    pub(crate) findings: Vec<Finding>,
    /// Files read (`package.json` and sources).
    pub(crate) searched: usize,
    /// The walk stopped at [`MAX_FILES`]: files were left unread.
    pub(crate) capped: bool,
}

/// Why a project could not be validated at all.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ValidateError {
    /// Nothing at that path.
    #[error("no project directory at {0}")]
    NotFound(PathBuf),
    /// A file, not a directory.
    #[error("{0} is a file, not a project directory")]
    NotADirectory(PathBuf),
    /// The directory could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// What could not be read.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// Validates the project at `dir` against `catalogue`. Blocking: call it off the runtime.
pub(crate) fn validate(dir: &Path, catalogue: &Catalogue) -> Result<Report, ValidateError> {
    let root = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let meta = match std::fs::metadata(&root) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(ValidateError::NotFound(root));
        }
        Err(source) => return Err(ValidateError::Io { path: root, source }),
    };
    if !meta.is_dir() {
        return Err(ValidateError::NotADirectory(root));
    }
    let root = root.canonicalize().unwrap_or(root);
    let mut findings = Vec::new();
    let mut searched = 0;

    let mut walk_state = Walk::default();
    walk(&root, &root, 0, &mut walk_state, &mut findings).map_err(|source| ValidateError::Io {
        path: root.clone(),
        source,
    })?;
    let Walk {
        sources, capped, ..
    } = walk_state;

    let mut imports_package = false;
    for (rel, path) in &sources {
        match std::fs::metadata(path) {
            Ok(meta) if meta.len() > MAX_FILE_BYTES => {
                findings.push(
                    Finding::new(
                        "file_too_large",
                        Severity::Warning,
                        format!(
                            "{rel} is larger than {} KiB and was not checked",
                            MAX_FILE_BYTES / 1024
                        ),
                    )
                    .file(rel),
                );
                continue;
            }
            _ => {}
        }
        match std::fs::read_to_string(path) {
            Ok(source) => {
                searched += 1;
                imports_package |= check_source(rel, &source, catalogue, &mut findings);
            }
            Err(e) => findings.push(
                Finding::new(
                    "unreadable_file",
                    Severity::Warning,
                    format!("{rel} could not be read as UTF-8 text ({e}) and was not checked"),
                )
                .file(rel),
            ),
        }
    }

    let name = check_package_json(
        &root,
        &catalogue.package,
        imports_package,
        &mut findings,
        &mut searched,
    );
    if !ENTRY_CANDIDATES.iter().any(|c| root.join(c).is_file()) {
        findings.push(
            Finding::new(
                "missing_entry",
                Severity::Error,
                format!(
                    "no entry file; the widget starts from one of {}",
                    ENTRY_CANDIDATES.join(", ")
                ),
            )
            .expected("src/main.jsx"),
        );
    }
    if !root.join(".env.example").is_file() && !root.join(".env").is_file() {
        findings.push(
            Finding::new(
                "missing_modyo_config",
                Severity::Warning,
                "no .env.example (or .env) with the Modyo CLI settings (MODYO_ACCOUNT_URL, MODYO_SITE_HOST, MODYO_BUILD_DIRECTORY) used by `modyo-cli push`",
            )
            .expected(".env.example"),
        );
    }
    findings.sort_by(|a, b| {
        (
            a.file.as_deref().unwrap_or(""),
            a.line,
            a.code,
            &a.component,
            &a.prop,
        )
            .cmp(&(
                b.file.as_deref().unwrap_or(""),
                b.line,
                b.code,
                &b.component,
                &b.prop,
            ))
    });
    Ok(Report {
        root,
        name,
        findings,
        searched,
        capped,
    })
}

/// What the walk found so far.
#[derive(Default)]
struct Walk {
    /// `(relative path, path)` of the source files, in walk order.
    sources: Vec<(String, PathBuf)>,
    /// Directory entries looked at.
    entries: usize,
    /// A limit stopped the walk.
    capped: bool,
}

/// Collects the source files under `dir`, sorted by name at each level, without following
/// symbolic links.
fn walk(
    root: &Path,
    dir: &Path,
    depth: usize,
    state: &mut Walk,
    findings: &mut Vec<Finding>,
) -> io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        state.entries += 1;
        if state.entries > MAX_ENTRIES {
            state.capped = true;
        }
        if state.capped {
            return Ok(());
        }
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        let rel = relative(root, &path);
        if kind.is_dir() {
            if name.starts_with('.') || SKIPPED_DIRS.contains(&name.as_ref()) {
                continue;
            }
            if depth >= MAX_DEPTH {
                continue;
            }
            if let Err(e) = walk(root, &path, depth + 1, state, findings) {
                findings.push(
                    Finding::new(
                        "unreadable_file",
                        Severity::Warning,
                        format!("folder {rel} could not be read ({e}) and was not checked"),
                    )
                    .file(&rel),
                );
            }
        } else if kind.is_file() {
            let is_source = Path::new(name.as_ref())
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e));
            if !is_source {
                continue;
            }
            if state.sources.len() >= MAX_FILES {
                state.capped = true;
                return Ok(());
            }
            state.sources.push((rel, path));
        }
    }
    Ok(())
}

fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Checks `package.json`; returns the project name it declares.
fn check_package_json(
    root: &Path,
    package: &str,
    imports_package: bool,
    findings: &mut Vec<Finding>,
    searched: &mut usize,
) -> Option<String> {
    let path = root.join("package.json");
    let unchecked = |findings: &mut Vec<Finding>, code: &'static str, why: String| {
        findings.push(Finding::new(code, Severity::Warning, why).file("package.json"));
    };
    let meta = match std::fs::metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            findings.push(
                Finding::new(
                    "missing_file",
                    Severity::Error,
                    "no package.json: the widget cannot be installed or built",
                )
                .file("package.json")
                .expected("package.json"),
            );
            return None;
        }
        Err(e) => {
            let why = format!("package.json could not be read ({e}) and was not checked");
            unchecked(findings, "unreadable_file", why);
            return None;
        }
        Ok(meta) => meta,
    };
    if !meta.is_file() {
        let why = "package.json is not a regular file and was not read".to_owned();
        unchecked(findings, "unreadable_file", why);
        return None;
    }
    if meta.len() > MAX_FILE_BYTES {
        let why = format!(
            "package.json is larger than {} KiB and was not checked",
            MAX_FILE_BYTES / 1024
        );
        unchecked(findings, "file_too_large", why);
        return None;
    }
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            let why = format!("package.json could not be read ({e}) and was not checked");
            unchecked(findings, "unreadable_file", why);
            return None;
        }
    };
    *searched += 1;
    let parsed = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(manifest)) => Ok(manifest),
        Ok(other) => Err(format!(
            "package.json is JSON but not an object (it is {}); npm reads an object of name, version and dependencies",
            crate::modyo::list::kind(&other)
        )),
        Err(e) => Err(format!("package.json does not parse as JSON: {e}")),
    };
    let manifest = match parsed {
        Ok(manifest) => manifest,
        Err(why) => {
            findings.push(
                Finding::new("invalid_package_json", Severity::Error, why).file("package.json"),
            );
            return None;
        }
    };
    let depends = ["dependencies", "devDependencies", "peerDependencies"]
        .iter()
        .any(|key| {
            manifest
                .get(*key)
                .and_then(Value::as_object)
                .is_some_and(|deps| deps.contains_key(package))
        });
    if imports_package && !depends {
        findings.push(
            Finding::new(
                "missing_dependency",
                Severity::Error,
                format!("sources import {package} but package.json does not depend on it"),
            )
            .file("package.json")
            .expected(package),
        );
    }
    manifest
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
}

/// Checks one source file; returns whether it imports the component package.
fn check_source(
    rel: &str,
    source: &str,
    catalogue: &Catalogue,
    findings: &mut Vec<Finding>,
) -> bool {
    let imports = jsx::imports(source, &catalogue.package);
    if imports.is_empty() {
        return false;
    }
    let mut known: Vec<(&str, &Component)> = Vec::new();
    for import in &imports {
        match catalogue.by_name(&import.imported) {
            Some(component) => known.push((import.local.as_str(), component)),
            None => findings.push(
                Finding::new(
                    "unknown_component",
                    Severity::Error,
                    format!(
                        "{} is not in the widget catalogue of {}; call widgets-list-components for the components",
                        import.imported, catalogue.package
                    ),
                )
                .file(rel)
                .line(import.line)
                .component(&import.imported),
            ),
        }
    }
    let locals: Vec<&str> = known.iter().map(|(local, _)| *local).collect();
    for element in jsx::elements(source, &locals) {
        let Some((_, component)) = known.iter().find(|(local, _)| *local == element.local) else {
            continue;
        };
        check_element(rel, &element, component, findings);
    }
    true
}

/// The findings of one source text (for tests and the catalogue's own patterns).
#[cfg(test)]
pub(crate) fn findings_of(rel: &str, source: &str, catalogue: &Catalogue) -> Vec<Finding> {
    let mut findings = Vec::new();
    check_source(rel, source, catalogue, &mut findings);
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::catalogue;

    fn codes(source: &str) -> Vec<(&'static str, Option<String>)> {
        findings_of("src/App.jsx", source, catalogue())
            .into_iter()
            .map(|f| (f.code, f.prop.or(f.component)))
            .collect()
    }

    const IMPORT: &str = "import { DButton, DModal, DCard, DInput, DTabs, DProgress } from '@dynamic-framework/ui-react';\n";

    #[test]
    fn literal_values_are_judged_by_the_prop_type() {
        let src = format!(
            "{IMPORT}<DButton text=\"Go\" theme=\"purple\" disabled=\"true\" onClick=\"go()\" loading />\n<DProgress currentValue=\"50\" />\n<DTabs options={{[]}} defaultSelected={{1}} />"
        );
        assert_eq!(
            codes(&src),
            vec![
                ("invalid_prop_value", Some("theme".into())),
                ("wrong_prop_type", Some("disabled".into())),
                ("wrong_prop_type", Some("onClick".into())),
                ("wrong_prop_type", Some("currentValue".into())),
                ("wrong_prop_type", Some("defaultSelected".into())),
            ]
        );
    }

    #[test]
    fn runtime_values_spreads_and_children_are_not_guessed() {
        let src = format!(
            "{IMPORT}<DButton text={{label}} theme={{dark ? 'dark' : 'light'}} disabled={{busy}} onClick={{handle}} />\n<DModal {{...props}} />\n<DModal name=\"m\">\n  <DModal.Body>x</DModal.Body>\n</DModal>"
        );
        assert!(codes(&src).is_empty(), "{:?}", codes(&src));
    }

    #[test]
    fn missing_required_unknown_props_and_subcomponents_are_reported() {
        let src = format!(
            "{IMPORT}<DModal centered color=\"red\" aria-label=\"x\" className=\"m\">\n<DCard.Title>t</DCard.Title>\n</DModal>"
        );
        assert_eq!(
            codes(&src),
            vec![
                ("unknown_prop", Some("color".into())),
                ("missing_required_prop", Some("name".into())),
                ("unknown_subcomponent", Some("DCard.Title".into())),
            ]
        );
    }

    #[test]
    fn imports_outside_the_catalogue_are_unknown_components() {
        let src = "import { DFancyTable, DButton as Btn } from '@dynamic-framework/ui-react';\n<Btn text={1} />\n<DFancyTable rows={[]} />";
        assert_eq!(
            codes(src),
            vec![
                ("unknown_component", Some("DFancyTable".into())),
                ("wrong_prop_type", Some("text".into())),
            ]
        );
    }

    /// Writes (or leaves out) a project's `package.json`.
    type Setup = Box<dyn FnOnce(&Path)>;

    /// What `check_package_json` finds in a project whose `package.json` `setup` writes.
    fn package_findings(
        setup: impl FnOnce(&Path),
    ) -> (Option<String>, Vec<(&'static str, String)>) {
        let dir = tempfile::tempdir().expect("tempdir");
        setup(&dir.path().join("package.json"));
        let (mut findings, mut searched) = (Vec::new(), 0);
        let name = check_package_json(dir.path(), "p", false, &mut findings, &mut searched);
        (
            name,
            findings.into_iter().map(|f| (f.code, f.message)).collect(),
        )
    }

    #[test]
    fn a_package_json_that_cannot_be_checked_says_why() {
        let write = |text: String| move |path: &Path| std::fs::write(path, text).expect("written");
        let deep = format!("{}1{}", "{\"a\":".repeat(200), "}".repeat(200));
        let large = format!("{}{{}}", " ".repeat(MAX_FILE_BYTES as usize));
        let cases: Vec<(Setup, &str, &str)> = vec![
            (Box::new(|_: &Path| {}), "missing_file", "no package.json"),
            (
                Box::new(write("{\"name\": \"x\",\n".into())),
                "invalid_package_json",
                "package.json does not parse as JSON: EOF while parsing a value at line 2 column 0",
            ),
            (
                Box::new(write(deep)),
                "invalid_package_json",
                "package.json does not parse as JSON: recursion limit exceeded",
            ),
            (
                Box::new(write("[]".into())),
                "invalid_package_json",
                "package.json is JSON but not an object (it is an array)",
            ),
            (
                Box::new(write(large)),
                "file_too_large",
                "package.json is larger than 1024 KiB",
            ),
            (
                Box::new(|path: &Path| std::fs::create_dir(path).expect("a directory")),
                "unreadable_file",
                "package.json is not a regular file",
            ),
        ];
        for (setup, code, message) in cases {
            let (name, found) = package_findings(setup);
            assert_eq!(name, None, "{code}");
            assert_eq!(found.len(), 1, "{found:?}");
            assert_eq!(found[0].0, code, "{found:?}");
            assert!(found[0].1.starts_with(message), "{found:?}");
        }
        let (name, found) = package_findings(write("{\"name\": \"promo\"}".into()));
        assert_eq!(
            (name.as_deref(), found.len()),
            (Some("promo"), 0),
            "{found:?}"
        );
    }

    #[test]
    fn a_file_without_the_package_is_not_checked() {
        assert!(codes("<DButton theme=\"purple\" />").is_empty());
    }

    #[test]
    fn every_pattern_and_example_of_the_catalogue_validates_clean() {
        let c = catalogue();
        for pattern in &c.patterns {
            let names = c.pattern_component_names(pattern).join(", ");
            let src = format!(
                "import {{ {names} }} from '{}';\n{}\n{}",
                c.package, pattern.setup, pattern.jsx
            );
            let found = findings_of("p.jsx", &src, c);
            assert!(found.is_empty(), "pattern {}: {found:?}", pattern.id);
        }
        for component in &c.components {
            let src = format!(
                "import {{ {} }} from '{}';\n{}",
                component.name, c.package, component.example
            );
            let found = findings_of("e.jsx", &src, c);
            assert!(found.is_empty(), "example of {}: {found:?}", component.id);
        }
    }
}
