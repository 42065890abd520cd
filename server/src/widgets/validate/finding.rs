//! One finding of `widgets-validate` (C13: a `code` to branch on, a `message` beside it) and
//! its strict schema.

use serde_json::{Map, Value, json};

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
