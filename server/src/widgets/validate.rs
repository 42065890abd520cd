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

use serde_json::{Map, Value, json};

use super::jsx::{self, AttrValue, Element};
use super::{Catalogue, Component, PropType};

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

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Severity {
    /// The widget will not build or will misbehave.
    Error,
    /// Worth a look; the widget may still work.
    Warning,
}

impl Severity {
    fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One problem found in a project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    /// Stable identifier a consumer branches on.
    pub(crate) code: &'static str,
    /// Error or warning.
    pub(crate) severity: Severity,
    /// For humans.
    pub(crate) message: String,
    /// Path relative to the project, with `/`.
    pub(crate) file: Option<String>,
    /// 1-based line.
    pub(crate) line: Option<usize>,
    /// The component concerned (`DButton`, `DCard.Title`).
    pub(crate) component: Option<String>,
    /// The prop concerned.
    pub(crate) prop: Option<String>,
    /// What the catalogue expects (a type, a file, a package).
    pub(crate) expected: Option<String>,
    /// What the project has instead.
    pub(crate) found: Option<String>,
    /// The allowed values of an enum prop.
    pub(crate) allowed: Vec<String>,
}

impl Finding {
    fn new(code: &'static str, severity: Severity, message: impl Into<String>) -> Finding {
        Finding {
            code,
            severity,
            message: message.into(),
            file: None,
            line: None,
            component: None,
            prop: None,
            expected: None,
            found: None,
            allowed: Vec::new(),
        }
    }

    fn file(mut self, file: &str) -> Finding {
        self.file = Some(file.to_owned());
        self
    }

    fn line(mut self, line: usize) -> Finding {
        self.line = Some(line);
        self
    }

    fn component(mut self, component: impl Into<String>) -> Finding {
        self.component = Some(component.into());
        self
    }

    fn prop(mut self, prop: &str) -> Finding {
        self.prop = Some(prop.to_owned());
        self
    }

    fn expected(mut self, expected: impl Into<String>) -> Finding {
        self.expected = Some(expected.into());
        self
    }

    fn found(mut self, found: impl Into<String>) -> Finding {
        self.found = Some(found.into());
        self
    }

    /// The data face: declared keys only, absent ones omitted.
    pub(crate) fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("code".into(), json!(self.code));
        map.insert("severity".into(), json!(self.severity.as_str()));
        map.insert("message".into(), json!(self.message));
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                map.insert(key.into(), value);
            }
        };
        put("file", self.file.as_ref().map(|v| json!(v)));
        put("line", self.line.map(|v| json!(v)));
        put("component", self.component.as_ref().map(|v| json!(v)));
        put("prop", self.prop.as_ref().map(|v| json!(v)));
        put("expected", self.expected.as_ref().map(|v| json!(v)));
        put("found", self.found.as_ref().map(|v| json!(v)));
        if !self.allowed.is_empty() {
            put("allowed", Some(json!(self.allowed)));
        }
        Value::Object(map)
    }

    /// Whether this finding is an error.
    pub(crate) fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The strict schema of one finding (C8, C13: `message` beside `code`).
pub(crate) fn finding_schema() -> Value {
    use crate::contract::schema::{array, integer, strict, string};
    strict(
        &[
            ("code", string()),
            (
                "severity",
                json!({"type": "string", "enum": ["error", "warning"]}),
            ),
            ("message", string()),
            ("file", string()),
            ("line", integer()),
            ("component", string()),
            ("prop", string()),
            ("expected", string()),
            ("found", string()),
            ("allowed", array(string())),
        ],
        &["code", "severity", "message"],
    )
}

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
    if !path.is_file() {
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
    let parsed = std::fs::metadata(&path)
        .ok()
        .filter(|m| m.len() <= MAX_FILE_BYTES)
        .and_then(|_| std::fs::read_to_string(&path).ok())
        .map(|text| serde_json::from_str::<Value>(&text));
    let manifest = match parsed {
        Some(Ok(Value::Object(manifest))) => {
            *searched += 1;
            manifest
        }
        Some(Ok(_)) | Some(Err(_)) => {
            *searched += 1;
            findings.push(
                Finding::new(
                    "invalid_package_json",
                    Severity::Error,
                    "package.json is not a JSON object",
                )
                .file("package.json"),
            );
            return None;
        }
        None => {
            findings.push(
                Finding::new(
                    "unreadable_file",
                    Severity::Warning,
                    "package.json could not be read and was not checked",
                )
                .file("package.json"),
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

fn check_element(rel: &str, element: &Element, component: &Component, findings: &mut Vec<Finding>) {
    let name = &component.name;
    if element.unreadable {
        findings.push(
            Finding::new(
                "unreadable_element",
                Severity::Warning,
                format!("this {name} tag could not be read to its end; its props were not checked"),
            )
            .file(rel)
            .line(element.line)
            .component(name.clone()),
        );
        return;
    }
    if let Some(sub) = &element.sub {
        if !component.subcomponents.contains(sub) {
            let has = if component.subcomponents.is_empty() {
                format!("{name} has no subcomponents")
            } else {
                format!("{name} has {}", component.subcomponents.join(", "))
            };
            findings.push(
                Finding::new(
                    "unknown_subcomponent",
                    Severity::Error,
                    format!("{name}.{sub} does not exist; {has}"),
                )
                .file(rel)
                .line(element.line)
                .component(format!("{name}.{sub}")),
            );
        }
        return;
    }
    for attr in &element.attrs {
        let Some(prop) = component.props.iter().find(|p| p.name == attr.name) else {
            if !component.passthrough && !Component::accepts_base(&attr.name) {
                findings.push(
                    Finding::new(
                        "unknown_prop",
                        Severity::Warning,
                        format!(
                            "{name} has no prop '{}'; call widgets-get-component-props for its props",
                            attr.name
                        ),
                    )
                    .file(rel)
                    .line(attr.line)
                    .component(name.clone())
                    .prop(&attr.name),
                );
            }
            continue;
        };
        let given = Given::of(&attr.value);
        match judge(prop.kind, &prop.values, &given) {
            Verdict::Fits => {}
            Verdict::WrongType => findings.push(
                Finding::new(
                    "wrong_prop_type",
                    Severity::Error,
                    format!(
                        "{name} '{}' takes {}, not {}",
                        prop.name,
                        article(prop.kind),
                        given.describe()
                    ),
                )
                .file(rel)
                .line(attr.line)
                .component(name.clone())
                .prop(&prop.name)
                .expected(prop.kind.as_str())
                .found(given.kind()),
            ),
            Verdict::NotAllowed(value) => {
                let mut finding = Finding::new(
                    "invalid_prop_value",
                    Severity::Error,
                    format!(
                        "{name} '{}' is one of {}, not '{value}'",
                        prop.name,
                        prop.values.join(", ")
                    ),
                )
                .file(rel)
                .line(attr.line)
                .component(name.clone())
                .prop(&prop.name)
                .found(value);
                finding.allowed = prop.values.clone();
                findings.push(finding);
            }
        }
    }
    if element.spread {
        return;
    }
    for prop in component.props.iter().filter(|p| p.required) {
        let given = element.attrs.iter().any(|a| a.name == prop.name)
            || (prop.name == "children" && element.has_children);
        if !given {
            findings.push(
                Finding::new(
                    "missing_required_prop",
                    Severity::Error,
                    format!("{name} needs '{}' ({})", prop.name, prop.description),
                )
                .file(rel)
                .line(element.line)
                .component(name.clone())
                .prop(&prop.name)
                .expected(prop.kind.as_str()),
            );
        }
    }
}

fn article(kind: PropType) -> &'static str {
    match kind {
        PropType::String => "a string",
        PropType::Number => "a number",
        PropType::Boolean => "a boolean",
        PropType::Enum => "one of its values",
        PropType::Array => "an array",
        PropType::Object => "an object",
        PropType::Function => "a function",
        PropType::Node => "a node",
    }
}

/// What a literal attribute value is, as far as the text tells.
#[derive(Debug, Clone, PartialEq)]
enum Given {
    /// A string; its text when it is a plain literal.
    Str(Option<String>),
    Number,
    Bool,
    Array,
    Object,
    Function,
    Element,
    /// `null` or `undefined`: the prop is left unset.
    Nullish,
    /// Computed at run time (an identifier, a call, a ternary): not judged.
    Unknown,
}

impl Given {
    fn of(value: &AttrValue) -> Given {
        match value {
            AttrValue::Shorthand => Given::Bool,
            AttrValue::Str(text) => Given::Str(Some(text.clone())),
            AttrValue::Expr(text) => Given::classify(text.trim()),
        }
    }

    fn classify(expr: &str) -> Given {
        match expr {
            "true" | "false" => return Given::Bool,
            "null" | "undefined" => return Given::Nullish,
            _ => {}
        }
        let mut chars = expr.chars();
        let first = chars.next();
        let last = expr.chars().last();
        match (first, last) {
            (Some(q @ ('"' | '\'')), Some(l)) if l == q && expr.len() >= 2 => {
                let inner = expr.get(1..expr.len() - 1).unwrap_or_default();
                if inner.contains(q) {
                    Given::Unknown
                } else {
                    Given::Str(Some(inner.to_owned()))
                }
            }
            (Some('`'), Some('`')) if expr.len() >= 2 => {
                let inner = expr.get(1..expr.len() - 1).unwrap_or_default();
                if inner.contains("${") || inner.contains('`') {
                    Given::Str(None)
                } else {
                    Given::Str(Some(inner.to_owned()))
                }
            }
            (Some('['), _) => Given::Array,
            (Some('{'), _) => Given::Object,
            (Some('<'), _) => Given::Element,
            (Some(c), _) if c.is_ascii_digit() || c == '-' || c == '.' => {
                if expr.replace('_', "").parse::<f64>().is_ok() {
                    Given::Number
                } else if expr.contains("=>") {
                    Given::Function
                } else {
                    Given::Unknown
                }
            }
            _ if expr.starts_with("function") || arrow(expr) => Given::Function,
            _ => Given::Unknown,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Given::Str(_) => "string",
            Given::Number => "number",
            Given::Bool => "boolean",
            Given::Array => "array",
            Given::Object => "object",
            Given::Function => "function",
            Given::Element => "element",
            Given::Nullish => "null",
            Given::Unknown => "unknown",
        }
    }

    fn describe(&self) -> String {
        match self {
            Given::Str(Some(text)) => format!("the string \"{text}\""),
            other => format!("a {}", other.kind()),
        }
    }
}

/// `() => ...`, `(e) => ...`, `async (x) => ...`, `x => ...`: an arrow function literal.
fn arrow(expr: &str) -> bool {
    let rest = expr.strip_prefix("async").map_or(expr, str::trim_start);
    if rest.starts_with('(') {
        return rest.contains("=>");
    }
    let ident: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
        .collect();
    !ident.is_empty()
        && rest
            .get(ident.len()..)
            .is_some_and(|r| r.trim_start().starts_with("=>"))
}

enum Verdict {
    Fits,
    WrongType,
    NotAllowed(String),
}

fn judge(kind: PropType, values: &[String], given: &Given) -> Verdict {
    use Given as G;
    use PropType as P;
    match (kind, given) {
        (_, G::Unknown | G::Nullish) | (P::Node, _) => Verdict::Fits,
        (P::Enum, G::Str(Some(text))) if !values.contains(text) => {
            Verdict::NotAllowed(text.clone())
        }
        (P::String | P::Enum, G::Str(_))
        | (P::Number, G::Number)
        | (P::Boolean, G::Bool)
        | (P::Array, G::Array)
        | (P::Object, G::Object)
        | (P::Function, G::Function) => Verdict::Fits,
        _ => Verdict::WrongType,
    }
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

    #[test]
    fn expressions_are_classified_conservatively() {
        for (expr, kind) in [
            ("12", "number"),
            ("-1.5", "number"),
            ("'a'", "string"),
            ("`a${b}`", "string"),
            ("() => x", "function"),
            ("async (e) => x", "function"),
            ("e => x", "function"),
            ("function () {}", "function"),
            ("[1]", "array"),
            ("{ a: 1 }", "object"),
            ("<b />", "element"),
            ("label", "unknown"),
            ("a ? 'x' : 'y'", "unknown"),
            ("'a' + b + 'c'", "unknown"),
            ("t('key')", "unknown"),
            ("null", "null"),
        ] {
            assert_eq!(Given::classify(expr).kind(), kind, "{expr}");
        }
    }
}
