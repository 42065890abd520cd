//! Widget projects on the local disk: `widgets-scaffold` (mutation) and `widgets-validate`
//! (read).
//!
//! Relative paths resolve against the server's working directory; `resource.path` always
//! reports the absolute path. File-system work runs off the async runtime.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{
    Coverage, ErrorCode, Evidence, Legacy, PostCondition, Reply, Resource, ToolClass, ToolError,
};
use crate::tools::engine::tool::{Call, ToolDef, tool};
use crate::tools::engine::{Answer, Data};
use crate::widgets::scaffold::{self, DEFAULT_PATTERN, FileOnDisk, ScaffoldError};
use crate::widgets::validate::{self, Finding, ValidateError};
use crate::widgets::{Pattern, catalogue};

/// Arguments of `widgets-scaffold`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ScaffoldArgs {
    /// Widget name in kebab-case, such as promo-banner; the project folder and mount id.
    name: String,
    /// Folder to create the project in (as targetDir/name); created if missing.
    #[serde(rename = "targetDir")]
    target_dir: String,
    /// Catalogue pattern for src/App.jsx (widgets-list-patterns); default login-form.
    pattern: Option<String>,
}

fn path_text(path: &std::path::Path) -> String {
    path.to_string_lossy().into_owned()
}

/// What `widgets-scaffold` wrote: the pattern the project starts from and every file of the
/// project as read back from disk (C7).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Scaffold {
    /// The catalogue pattern of `src/App.jsx`.
    pattern: &'static str,
    /// The files on disk, sorted by path.
    files: Vec<FileOnDisk>,
}

impl Data for Scaffold {}

pub(crate) fn scaffold_tool() -> ToolDef {
    tool("widgets-scaffold", Module::Widgets, ToolClass::Mutation)
        .describe(
            "Create a Modyo widget project (React, Vite, Dynamic UI, Modyo CLI settings) in targetDir/name from a \
catalogue pattern. Refuses a non-empty folder. data.files: the files on disk (path, bytes), read back.",
        )
        .resource()
        .state()
        .new_params(&["pattern"])
        .handle(scaffold)
        .writes_state(RareState::AFFECTED)
        .writes_resource_path()
}

fn local_io(error: ScaffoldError) -> ToolError {
    let message = error.to_string();
    match error {
        // Every message names the file or folder.
        ScaffoldError::Mismatch(_) => ToolError::new(
            ErrorCode::PersistedMismatch,
            format!("{message}; the files this call wrote were removed"),
        ),
        ScaffoldError::NotEmpty(_) | ScaffoldError::NotADirectory(_) => {
            ToolError::new(ErrorCode::LocalIo, message)
        }
        ScaffoldError::Io { .. } => ToolError::new(
            ErrorCode::LocalIo,
            format!("{message}; the files this call wrote were removed"),
        ),
    }
}

/// The project's target folder, checked: not empty, and no `~` (which is not expanded).
fn target_dir(input: &str) -> Result<PathBuf, ToolError> {
    let target = input.trim();
    if target.is_empty() {
        return Err(ToolError::invalid_parameters(
            "targetDir is empty; give the folder to create the project in, such as ./widgets",
        ));
    }
    if target.starts_with('~') {
        return Err(ToolError::invalid_parameters(format!(
            "targetDir '{target}' starts with ~, which is not expanded; give an absolute path"
        )));
    }
    Ok(PathBuf::from(target))
}

/// The catalogue pattern asked for (default [`DEFAULT_PATTERN`]); an unknown one names those
/// there are.
fn pattern(input: Option<&str>) -> Result<&'static Pattern, ToolError> {
    let c = catalogue();
    let key = input.map(str::trim).filter(|p| !p.is_empty());
    c.pattern(key.unwrap_or(DEFAULT_PATTERN)).ok_or_else(|| {
        let ids: Vec<&str> = c.patterns.iter().map(|p| p.id.as_str()).collect();
        ToolError::not_found(format!(
            "no widget pattern '{}'; patterns: {}",
            key.unwrap_or_default(),
            ids.join(", ")
        ))
    })
}

async fn scaffold(_call: Call, args: ScaffoldArgs) -> Answer<Scaffold> {
    let name = args.name.trim().to_owned();
    scaffold::check_name(&name).map_err(ToolError::invalid_parameters)?;
    let target = target_dir(&args.target_dir)?;
    let pattern = pattern(args.pattern.as_deref())?;
    let files = scaffold::files(&name, pattern, catalogue());
    let project = name.clone();
    let written = tokio::task::spawn_blocking(move || scaffold::write(&target, &project, &files))
        .await
        .map_err(|e| ToolError::new(ErrorCode::LocalIo, format!("the scaffold task failed: {e}")))?
        .map_err(local_io)?;
    let path = path_text(&written.root);
    let count = written.files.len();
    let legacy_path = path.clone();
    let data = Scaffold {
        pattern: &pattern.id,
        files: written.files,
    };
    Ok(Reply::new(data)
        .resource(Resource::new("widget_project").path(path).name(name))
        .state(PostCondition::status("created").affected(count))
        .old(Legacy::custom(move |data| {
            let files: Vec<Value> = data["files"]
                .as_array()
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(|f| f["path"].clone())
                .collect();
            json!({
                "success": true,
                "message": "Widget scaffolded",
                "path": legacy_path,
                "pattern": data["pattern"],
                "files": files,
            })
        }))
        .into())
}

/// Arguments of `widgets-validate`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ValidateArgs {
    /// The widget project folder (with package.json).
    #[serde(rename = "projectDir")]
    project_dir: String,
}

/// `widgets-validate` answers the findings, sorted by file, line and code.
impl Data for Vec<Finding> {}

pub(crate) fn validate_tool() -> ToolDef {
    tool("widgets-validate", Module::Widgets, ToolClass::Read)
        .describe(
            "Check a local widget project against the catalogue: package.json, entry file, Modyo CLI settings, \
unknown components or props, missing required props, wrong prop types or values. data: findings \
{code, severity, message, file, line, ...}; empty when clean. Changes nothing.",
        )
        .resource()
        .state()
        .handle(validate_project)
        .writes_state(RareState::SEARCHED)
        .writes_resource_path()
}

/// A project that could not be validated, as the error the tool answers.
fn not_validated(error: ValidateError) -> ToolError {
    let message = error.to_string();
    match error {
        // Every message names the path.
        ValidateError::NotFound(_) => ToolError::not_found(message),
        ValidateError::NotADirectory(_) => ToolError::invalid_parameters(message),
        ValidateError::Io { .. } => ToolError::new(ErrorCode::LocalIo, message),
    }
}

/// The old payload of a validation: its findings (`errors` of them errors, the rest warnings)
/// with a canned message.
fn validated_old(findings: Value, errors: usize) -> Value {
    let findings = findings.as_array().map_or(&[][..], Vec::as_slice);
    let warnings = findings.len() - errors;
    let message = if findings.is_empty() {
        "Widget project is valid".to_owned()
    } else {
        format!("Found {errors} error(s) and {warnings} warning(s)")
    };
    json!({
        "success": true,
        "valid": errors == 0,
        "message": message,
        "errors": errors,
        "warnings": warnings,
        "issues": findings,
    })
}

async fn validate_project(_call: Call, args: ValidateArgs) -> Answer<Vec<Finding>> {
    let dir = args.project_dir.trim();
    if dir.is_empty() {
        return Err(ToolError::invalid_parameters(
            "projectDir is empty; give the widget project folder (the one with package.json)",
        )
        .into());
    }
    let dir = PathBuf::from(dir);
    let report = tokio::task::spawn_blocking(move || validate::validate(&dir, catalogue()))
        .await
        .map_err(|e| {
            ToolError::new(
                ErrorCode::LocalIo,
                format!("the validation task failed: {e}"),
            )
        })?
        .map_err(not_validated)?;
    let evidence = if report.capped {
        Evidence::Capped
    } else {
        Evidence::WholeCorpus
    };
    let coverage =
        Coverage::with_evidence(report.findings.len(), evidence).searched(report.searched);
    let mut resource = Resource::new("widget_project").path(path_text(&report.root));
    if let Some(name) = &report.name {
        resource = resource.name(name.clone());
    }
    let errors = report.findings.iter().filter(|f| f.is_error()).count();
    Ok(Reply::new(report.findings)
        .resource(resource)
        .state(coverage)
        .old(Legacy::custom(move |findings| {
            validated_old(findings, errors)
        }))
        .into())
}
