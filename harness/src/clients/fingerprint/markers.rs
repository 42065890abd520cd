//! The markers of the marker server, by the part of the server they stand for, and how they are
//! found in a string: a marker (`MARK_DESC_OK`) where no capital or underscore follows it (so
//! `MARK_PROMPT` is not found in `MARK_PROMPT_DESC`), a tool name (`mk_ok`) where no letter or
//! digit is on either side (so it is found in `mcp__marker__mk_ok`).

use serde::{Deserialize, Serialize};

/// A part of an MCP server that a client may put in front of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// The tools' names.
    Names,
    /// A tool's `description`.
    Description,
    /// A tool's `inputSchema`.
    InputSchema,
    /// A tool's `outputSchema`.
    OutputSchema,
    /// A tool's `title`.
    Title,
    /// A tool's `annotations`.
    Annotations,
    /// A tool's `_meta`.
    ToolMeta,
    /// The server's `instructions`.
    Instructions,
    /// The server's `title` (`serverInfo.title`).
    ServerTitle,
    /// The `content[].text` of a result that also has `structuredContent`.
    Text,
    /// A result's `structuredContent`.
    StructuredContent,
    /// A result's `_meta`.
    ResultMeta,
    /// The text of an `isError` result.
    ErrorText,
    /// The text of a text-only result.
    TextOnly,
    /// The JSON text of an `isError` result of a tool that lists an `outputSchema`.
    SchemaErrorText,
    /// A prompt (name, title, description or text).
    Prompt,
    /// A resource (title, description or text).
    Resource,
}

impl Part {
    /// Every part, in the order the reports list them.
    pub const ALL: [Part; 17] = [
        Part::Names,
        Part::Description,
        Part::InputSchema,
        Part::OutputSchema,
        Part::Title,
        Part::Annotations,
        Part::ToolMeta,
        Part::Instructions,
        Part::ServerTitle,
        Part::Text,
        Part::StructuredContent,
        Part::ResultMeta,
        Part::ErrorText,
        Part::TextOnly,
        Part::SchemaErrorText,
        Part::Prompt,
        Part::Resource,
    ];

    /// The markers that stand for it (any one found means the part reached the model).
    pub fn markers(self) -> &'static [&'static str] {
        match self {
            Part::Names => &["mk_ok", "mk_err", "mk_txt", "mk_jerr"],
            Part::Description => &[
                "MARK_DESC_OK",
                "MARK_DESC_ERR",
                "MARK_DESC_TXT",
                "MARK_DESC_JERR",
            ],
            Part::InputSchema => &[
                "MARK_INSCHEMA_OK",
                "MARK_INSCHEMA_ERR",
                "MARK_INSCHEMA_TXT",
                "MARK_INSCHEMA_JERR",
            ],
            Part::OutputSchema => &["MARK_OUTSCHEMA_OK", "MARK_OUTSCHEMA_JERR"],
            Part::Title => &["MARK_TITLE_OK", "MARK_TITLE_ERR"],
            Part::Annotations => &["MARK_ANNOT_OK", "MARK_ANNOT_ERR"],
            Part::ToolMeta => &["MARK_TOOLMETA_OK"],
            Part::Instructions => &["MARK_INSTR"],
            Part::ServerTitle => &["MARK_SERVERTITLE"],
            Part::Text => &["MARK_TEXT_OK"],
            Part::StructuredContent => &["MARK_STRUCT_OK"],
            Part::ResultMeta => &["MARK_RESULTMETA_OK"],
            Part::ErrorText => &["MARK_ERRTEXT"],
            Part::TextOnly => &["MARK_TEXT_TXT"],
            Part::SchemaErrorText => &["MARK_ERRJSON"],
            Part::Prompt => &[
                "MARK_PROMPT",
                "MARK_PROMPT_DESC",
                "MARK_PROMPT_TITLE",
                "mk_prompt",
            ],
            Part::Resource => &[
                "MARK_RESOURCE",
                "MARK_RESOURCE_DESC",
                "MARK_RESOURCE_TITLE",
                "mk_res",
            ],
        }
    }

    /// As the reports name it.
    pub fn label(self) -> &'static str {
        match self {
            Part::Names => "names",
            Part::Description => "description",
            Part::InputSchema => "input schema",
            Part::OutputSchema => "output schema",
            Part::Title => "title",
            Part::Annotations => "annotations",
            Part::ToolMeta => "tool _meta",
            Part::Instructions => "instructions",
            Part::ServerTitle => "server title",
            Part::Text => "text",
            Part::StructuredContent => "structuredContent",
            Part::ResultMeta => "result _meta",
            Part::ErrorText => "error text",
            Part::TextOnly => "text-only result",
            Part::SchemaErrorText => "error under an output schema",
            Part::Prompt => "prompt",
            Part::Resource => "resource",
        }
    }
}

/// Whether `marker` is in `text` as a marker (see the module's documentation).
pub(crate) fn found(text: &str, marker: &str) -> bool {
    positions(text, marker).next().is_some()
}

/// Where `marker` is in `text` as a marker.
fn positions<'a>(text: &'a str, marker: &'a str) -> impl Iterator<Item = usize> + 'a {
    let name = !marker.starts_with("MARK_");
    text.match_indices(marker)
        .map(|(at, _)| at)
        .filter(move |&at| {
            let before = text[..at].chars().next_back();
            let after = text[at + marker.len()..].chars().next();
            if name {
                !before.is_some_and(|c| c.is_ascii_alphanumeric())
                    && !after.is_some_and(|c| c.is_ascii_alphanumeric())
            } else {
                !after.is_some_and(|c| c.is_ascii_uppercase() || c == '_')
            }
        })
}

/// Whether any marker of any part is in `text`.
pub(crate) fn has_any(text: &str) -> bool {
    (text.contains("MARK_") || text.contains("mk_"))
        && Part::ALL
            .iter()
            .flat_map(|p| p.markers())
            .any(|m| found(text, m))
}

/// The pieces of `text` within `width` characters of a marker, overlapping pieces merged, in
/// order (char boundaries respected).
pub(crate) fn windows(text: &str, width: usize) -> Vec<&str> {
    let mut spans: Vec<(usize, usize)> = Part::ALL
        .iter()
        .flat_map(|p| p.markers())
        .flat_map(|m| positions(text, m).map(move |at| (at, at + m.len())))
        .map(|(start, end)| (back(text, start, width), forward(text, end, width)))
        .collect();
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (start, end) in spans {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged.into_iter().map(|(s, e)| &text[s..e]).collect()
}

fn back(text: &str, at: usize, width: usize) -> usize {
    text[..at]
        .char_indices()
        .rev()
        .nth(width.saturating_sub(1))
        .map_or(0, |(i, _)| i)
}

fn forward(text: &str, at: usize, width: usize) -> usize {
    text[at..]
        .char_indices()
        .nth(width)
        .map_or(text.len(), |(i, _)| at + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_names_are_found_on_their_boundaries() {
        assert!(found("x MARK_PROMPT y", "MARK_PROMPT"));
        assert!(!found("MARK_PROMPT_DESC", "MARK_PROMPT"));
        assert!(found("MARK_INSTR: the", "MARK_INSTR"));
        assert!(found("mcp__marker__mk_ok", "mk_ok"));
        assert!(found("mcp_marker_mk_ok", "mk_ok"));
        assert!(!found("mk_okay", "mk_ok"));
        assert!(!found("xmk_ok", "mk_ok"));
        assert!(has_any("…tools: mk_txt."));
        assert!(!has_any("MARK_NOTHING mk_other"));
    }

    #[test]
    fn windows_merge_and_respect_characters() {
        let text = format!(
            "{}MARK_INSTR é{}MARK_TEXT_OK{}",
            "α".repeat(100),
            "β".repeat(10),
            "γ".repeat(100)
        );
        let pieces = windows(&text, 20);
        assert_eq!(pieces.len(), 1, "{pieces:?}");
        assert!(pieces[0].starts_with(&"α".repeat(20)) && pieces[0].ends_with(&"γ".repeat(20)));
        assert!(windows("no marker", 5).is_empty());
        let every: Vec<&str> = Part::ALL
            .iter()
            .flat_map(|p| p.markers())
            .copied()
            .collect();
        assert!(every.iter().all(|m| has_any(m)));
    }
}
