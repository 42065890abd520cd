//! One finding of `widgets-validate` (C13: a `code` to branch on, a `message` beside it):
//! the `data` the tool answers, strict (the server writes it key by key, C8), absent keys
//! left out.

use schemars::JsonSchema;
use serde::Serialize;

/// How serious a finding is: `error` (the widget will not build or will misbehave) or
/// `warning` (worth a look; the widget may still work). The variants carry no docs of their
/// own, so the derived schema is a plain `enum` of the wire names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Severity {
    Error,
    Warning,
}

/// One problem found in a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct Finding {
    /// Stable identifier a consumer branches on.
    pub(crate) code: &'static str,
    /// Error or warning.
    pub(crate) severity: Severity,
    /// For humans.
    pub(crate) message: String,
    /// Path relative to the project, with `/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub(crate) file: Option<String>,
    /// 1-based line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    pub(crate) line: Option<usize>,
    /// The component concerned (`DButton`, `DCard.Title`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub(crate) component: Option<String>,
    /// The prop concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub(crate) prop: Option<String>,
    /// What the catalogue expects (a type, a file, a package).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub(crate) expected: Option<String>,
    /// What the project has instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub(crate) found: Option<String>,
    /// The allowed values of an enum prop; absent for the others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) allowed: Vec<String>,
}

impl Finding {
    pub(super) fn new(
        code: &'static str,
        severity: Severity,
        message: impl Into<String>,
    ) -> Finding {
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

    pub(super) fn file(mut self, file: &str) -> Finding {
        self.file = Some(file.to_owned());
        self
    }

    pub(super) fn line(mut self, line: usize) -> Finding {
        self.line = Some(line);
        self
    }

    pub(super) fn component(mut self, component: impl Into<String>) -> Finding {
        self.component = Some(component.into());
        self
    }

    pub(super) fn prop(mut self, prop: &str) -> Finding {
        self.prop = Some(prop.to_owned());
        self
    }

    pub(super) fn expected(mut self, expected: impl Into<String>) -> Finding {
        self.expected = Some(expected.into());
        self
    }

    pub(super) fn found(mut self, found: impl Into<String>) -> Finding {
        self.found = Some(found.into());
        self
    }

    /// Whether this finding is an error.
    pub(crate) fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
