//! C22: the result form, chosen by the operator for the client the server is wired into
//! (`MODYO_RESULTS`, `--results`), and whether `tools/list` publishes the output schemas
//! (`MODYO_OUTPUT_SCHEMA`).
//!
//! One response form cannot be the cheapest for every client: a client that reads only
//! `structuredContent` never reads the text, one that forwards the whole result pays the
//! payload twice, one that copies `outputSchema` into every request pays the schemas on every
//! call. The exit builds every answer whole and validates it (C8); the token is scrubbed from
//! it; only then does [`ResultForm::shape`] take away what the chosen form does not keep. Errors
//! (C16) are text in every form, and legacy modules (C21) answer the old way whatever the form.

use std::fmt;
use std::str::FromStr;

use rmcp::model::CallToolResult;
use serde_json::Value;

/// What a migrated tool's successful (or controlled) answer carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum ResultForm {
    /// `structuredContent` and its compact serialization as the one text block (C17); the
    /// tool lists its `outputSchema`. The default.
    #[default]
    Both,
    /// `structuredContent` alone, with an empty `content` array; the tool lists its
    /// `outputSchema`. For a client that reads only `structuredContent`.
    Structured,
    /// The compact serialization as the one text block, no `structuredContent`, and the tool
    /// lists no `outputSchema`. For a client that reads only the text.
    Text,
}

impl ResultForm {
    /// Every form, in the documented order.
    pub const ALL: [ResultForm; 3] = [ResultForm::Both, ResultForm::Structured, ResultForm::Text];

    /// The name used in `MODYO_RESULTS` and `--results`.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultForm::Both => "both",
            ResultForm::Structured => "structured",
            ResultForm::Text => "text",
        }
    }

    /// Parses a form name (any case, surrounding space ignored).
    pub fn parse(value: &str) -> Option<ResultForm> {
        let value = value.trim().to_ascii_lowercase();
        ResultForm::ALL.into_iter().find(|f| f.as_str() == value)
    }

    /// Whether the tools list their `outputSchema` in this form (before `MODYO_OUTPUT_SCHEMA`
    /// has its say): a schema promises `structuredContent`, which `text` never sends.
    pub fn lists_output_schema(self) -> bool {
        self != ResultForm::Text
    }

    /// What an answer keeps in this form, for the start-up line.
    pub fn keeps(self) -> &'static str {
        match self {
            ResultForm::Both => "structuredContent and the same JSON as text",
            ResultForm::Structured => "structuredContent only, content empty (errors stay text)",
            ResultForm::Text => "the JSON as text only, no structuredContent",
        }
    }

    /// Takes from a migrated answer what this form does not keep. An answer without
    /// `structuredContent` (an error, a legacy answer) is left as it is.
    pub fn shape(self, result: &mut CallToolResult) {
        if result.structured_content.is_none() || result.is_error == Some(true) {
            return;
        }
        match self {
            ResultForm::Both => {}
            ResultForm::Structured => result.content.clear(),
            ResultForm::Text => result.structured_content = None,
        }
    }

    /// The envelope of an answer as a client of this form reads it: `structuredContent`, or
    /// the JSON of the text in the `text` form. `None` when there is neither.
    pub fn envelope(result: &CallToolResult) -> Option<Value> {
        if let Some(structured) = &result.structured_content {
            return Some(structured.clone());
        }
        let text = result.content.first()?.as_text()?;
        serde_json::from_str(&text.text).ok()
    }
}

impl fmt::Display for ResultForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A form name that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a result form; valid: both, structured, text")]
pub struct UnknownForm(pub String);

impl FromStr for ResultForm {
    type Err = UnknownForm;

    fn from_str(value: &str) -> Result<ResultForm, UnknownForm> {
        ResultForm::parse(value).ok_or_else(|| UnknownForm(value.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ContentBlock;
    use serde_json::json;

    fn answered() -> CallToolResult {
        let envelope = json!({"platform": {"name": "a", "host": "h"}, "data": [1]});
        let mut result = CallToolResult::success(vec![ContentBlock::text(envelope.to_string())]);
        result.structured_content = Some(envelope);
        result
    }

    #[test]
    fn names_parse_in_any_case_and_nothing_else_does() {
        for form in ResultForm::ALL {
            assert_eq!(ResultForm::parse(form.as_str()), Some(form));
            assert_eq!(
                ResultForm::parse(&format!(" {} ", form.as_str().to_uppercase())),
                Some(form)
            );
        }
        for bad in ["", "bogus", "json", "both,text", "structuredContent"] {
            assert_eq!(ResultForm::parse(bad), None, "{bad:?}");
        }
        let err = "bogus".parse::<ResultForm>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "'bogus' is not a result form; valid: both, structured, text"
        );
    }

    #[test]
    fn each_form_keeps_what_it_says() {
        let whole = answered();
        let mut both = whole.clone();
        ResultForm::Both.shape(&mut both);
        assert_eq!(both, whole);

        let mut structured = whole.clone();
        ResultForm::Structured.shape(&mut structured);
        assert!(structured.content.is_empty());
        assert_eq!(structured.structured_content, whole.structured_content);
        assert_eq!(structured.is_error, Some(false));

        let mut text = whole.clone();
        ResultForm::Text.shape(&mut text);
        assert_eq!(text.structured_content, None);
        assert_eq!(text.content, whole.content);
        for result in [&both, &structured, &text] {
            assert_eq!(
                ResultForm::envelope(result),
                whole.structured_content.clone()
            );
        }
    }

    #[test]
    fn errors_and_answers_without_structured_content_are_left_whole() {
        let error = CallToolResult::error(vec![ContentBlock::text(r#"{"error":"x"}"#)]);
        let legacy = CallToolResult::success(vec![ContentBlock::text("{\n  \"a\": 1\n}")]);
        for form in ResultForm::ALL {
            for result in [&error, &legacy] {
                let mut shaped = result.clone();
                form.shape(&mut shaped);
                assert_eq!(&shaped, result, "{form}");
            }
        }
        assert!(!ResultForm::Text.lists_output_schema());
        assert!(ResultForm::Structured.lists_output_schema());
    }
}
