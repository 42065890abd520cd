//! The catalogue's prices by slot as the report holds them: one tool's [`Definition`] (its
//! description, input schema, output schema and the rest, and its two views) and one
//! [`SlotRow`] of the before/after breakdown, both computed by `measure::catalogue`.

use serde::{Deserialize, Serialize};

use crate::tokens::Tokens;

/// What a row of the breakdown prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// An envelope slot (`platform`, `resource`, `state`, `control`), over every tool.
    Envelope,
    /// One tool's own `data` schema.
    Data,
    /// Schema scaffolding: the `outputSchema` key, `type`, `properties`, `required`,
    /// `additionalProperties`, `$schema`, braces and commas.
    Scaffolding,
    /// Changes outside `outputSchema`: parameters, descriptions, annotations.
    Outside,
    /// Tools listed on one side only, and the `tools` array itself.
    Tools,
}

/// One row of the breakdown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlotRow {
    /// What kind of slot.
    pub group: Group,
    /// The slot (`platform`, `data: content-entries-list`, `content-entries-list: parameter fields`).
    pub slot: String,
    /// After minus before, in characters (additive).
    pub chars: i64,
    /// The same in tokens at 2.902 characters per token.
    #[serde(rename = "chars/2.902")]
    pub tokens: f64,
}

/// One tool's definition by slot. Each named slot is priced as the member it is on the wire
/// (its key, colon, value and the comma before it), counted as its own text; `other` is the
/// remainder of the tool (`name`, `title`, `annotations`, any other member, the braces), so
/// under every counter the four slots add up to `wire`. `context` and `wire` are the two views
/// of the tool, each counted as one text.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Definition {
    /// `"description":"..."`.
    pub description: Tokens,
    /// `"inputSchema":{...}`.
    pub input_schema: Tokens,
    /// `"outputSchema":{...}`, when the tool has one.
    pub output_schema: Option<Tokens>,
    /// The rest: `name`, `title`, `annotations`, any other member, the braces (`wire` minus
    /// the three slots above).
    pub other: Tokens,
    /// The tool as a client that drops the output schema puts it in context.
    pub context: Tokens,
    /// The tool as sent.
    pub wire: Tokens,
}
