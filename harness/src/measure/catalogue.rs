//! M3: the cost of `tools/list` before and after, broken down by slot, and what of it reaches
//! the model.
//!
//! Two views of the same catalogue. The **wire** is the `tools` array as sent. The **context**
//! is what a model sees when the client drops the output schema: each tool with only its
//! [`CONTEXT_MEMBERS`] (`name`, `title`, `description`, `inputSchema`, `annotations`), the way
//! the clients observed so far build their prompts. Each view is a real text, counted with every
//! counter; [`definition`] prices one tool by slot (description, input schema, output schema,
//! the rest).
//!
//! Everything here is in characters of the compact serialization the server sent (the probe
//! checks every line is canonical, so the serialization of any sub-value is an exact slice of
//! it). Characters add up inside one text, so the rows sum exactly to the difference of the two
//! `tools` arrays: each member of a JSON object costs its key, its colon, its value and one
//! comma (every member but the first), and each object its two braces. BPE counts are only
//! given for the totals: a token can straddle two slots, so they do not add up by slot.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::report::slots::{Definition, Group, SlotRow};
use crate::tokens::{Count, chars_to_tokens};

/// The envelope slots (C1) besides `data`, in envelope order.
pub const ENVELOPE_SLOTS: [&str; 4] = ["platform", "resource", "state", "control"];

/// The compact serialization of a value (exactly the bytes the server sent for it).
pub fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Characters of the compact serialization.
pub fn chars(value: &Value) -> i64 {
    compact(value).chars().count() as i64
}

/// The members of an object with their cost: key, colon, value, and a comma for every member
/// but the first. The object itself costs these plus its two braces.
pub fn members(object: &Map<String, Value>) -> Vec<(&str, &Value, i64)> {
    object
        .iter()
        .enumerate()
        .map(|(i, (key, value))| {
            let key_chars = compact(&Value::String(key.clone())).chars().count() as i64;
            (
                key.as_str(),
                value,
                key_chars + 1 + chars(value) + i64::from(i > 0),
            )
        })
        .collect()
}

/// The cost of a member's framing: its key, its colon and its comma (without the value).
fn framing(key: &str, first: bool) -> i64 {
    compact(&Value::String(key.to_owned())).chars().count() as i64 + 1 + i64::from(!first)
}

type Rows = BTreeMap<(Group, String), i64>;

fn add(rows: &mut Rows, group: Group, slot: impl Into<String>, chars: i64) {
    *rows.entry((group, slot.into())).or_default() += chars;
}

/// The rows of one tool, pricing every character of `tool` plus its comma in the array.
fn decompose(name: &str, tool: &Map<String, Value>, rows: &mut Rows) {
    add(rows, Group::Tools, "tools array", 1); // this tool's comma (the array gives one back)
    add(
        rows,
        Group::Outside,
        format!("{name}: tool object braces"),
        2,
    );
    for (i, (key, value, cost)) in members(tool).into_iter().enumerate() {
        match (key, value) {
            ("outputSchema", Value::Object(schema)) => {
                add(
                    rows,
                    Group::Scaffolding,
                    "scaffolding",
                    framing(key, i == 0) + 2,
                );
                for (j, (key2, value2, cost2)) in members(schema).into_iter().enumerate() {
                    match (key2, value2) {
                        ("properties", Value::Object(slots)) => {
                            add(
                                rows,
                                Group::Scaffolding,
                                "scaffolding",
                                framing(key2, j == 0) + 2,
                            );
                            for (slot, _, cost3) in members(slots) {
                                if ENVELOPE_SLOTS.contains(&slot) {
                                    add(rows, Group::Envelope, slot, cost3);
                                } else if slot == "data" {
                                    add(rows, Group::Data, format!("data: {name}"), cost3);
                                } else {
                                    add(
                                        rows,
                                        Group::Data,
                                        format!("{name}: outputSchema property {slot}"),
                                        cost3,
                                    );
                                }
                            }
                        }
                        _ => add(rows, Group::Scaffolding, "scaffolding", cost2),
                    }
                }
            }
            ("inputSchema", Value::Object(input)) => {
                let other = format!("{name}: inputSchema (type, required, braces...)");
                add(
                    rows,
                    Group::Outside,
                    other.clone(),
                    framing(key, i == 0) + 2,
                );
                for (j, (key2, value2, cost2)) in members(input).into_iter().enumerate() {
                    match (key2, value2) {
                        ("properties", Value::Object(params)) => {
                            add(
                                rows,
                                Group::Outside,
                                other.clone(),
                                framing(key2, j == 0) + 2,
                            );
                            for (param, _, cost3) in members(params) {
                                add(
                                    rows,
                                    Group::Outside,
                                    format!("{name}: parameter {param}"),
                                    cost3,
                                );
                            }
                        }
                        _ => add(rows, Group::Outside, other.clone(), cost2),
                    }
                }
            }
            _ => add(rows, Group::Outside, format!("{name}: {key}"), cost),
        }
    }
}

fn tool_name(tool: &Value) -> String {
    tool.get("name")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_owned()
}

/// Adds `sign` times the rows of one side. Tools named in `whole` are priced as one row
/// labelled `label`, not slot by slot.
fn side(tools: &[Value], whole: &BTreeSet<String>, sign: i64, label: &str, rows: &mut Rows) {
    // The array's brackets, less the comma the first tool does not have.
    let brackets = if tools.is_empty() { 2 } else { 1 };
    add(rows, Group::Tools, "tools array", sign * brackets);
    for tool in tools {
        let name = tool_name(tool);
        match tool {
            Value::Object(map) if !whole.contains(&name) => {
                let mut own = Rows::new();
                decompose(&name, map, &mut own);
                for ((group, slot), cost) in own {
                    add(rows, group, slot, sign * cost);
                }
            }
            _ => add(
                rows,
                Group::Tools,
                format!("{label}: {name}"),
                sign * (chars(tool) + 1),
            ),
        }
    }
}

/// The breakdown of `after - before` (two `tools` arrays as listed), every row included (zero
/// rows too): the rows sum exactly to `chars(after) - chars(before)`.
pub fn breakdown(before: &[Value], after: &[Value]) -> Vec<SlotRow> {
    let names = |tools: &[Value]| -> BTreeSet<String> { tools.iter().map(tool_name).collect() };
    let (before_names, after_names) = (names(before), names(after));
    let removed = before_names.difference(&after_names).cloned().collect();
    let added = after_names.difference(&before_names).cloned().collect();
    let mut rows = Rows::new();
    side(after, &added, 1, "tool added", &mut rows);
    side(before, &removed, -1, "tool removed", &mut rows);
    rows.into_iter()
        .map(|((group, slot), chars)| SlotRow {
            group,
            slot,
            chars,
            tokens: chars_to_tokens(chars),
        })
        .collect()
}

/// The compact `tools` array (what the breakdown's totals are measured on).
pub fn tools_text(tools: &[Value]) -> String {
    compact(&Value::Array(tools.to_vec()))
}

/// The members of a tool definition that reach the model when the client drops the output
/// schema; everything else (`outputSchema`, `_meta`, `icons`...) is wire only.
pub const CONTEXT_MEMBERS: [&str; 5] =
    ["name", "title", "description", "inputSchema", "annotations"];

/// One tool as a client that drops the output schema puts it in context: only the
/// [`CONTEXT_MEMBERS`], in the order the server listed them.
pub fn context_view(tool: &Value) -> Value {
    match tool {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| CONTEXT_MEMBERS.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The context view of a whole catalogue, compact (the counterpart of [`tools_text`]).
pub fn context_text(tools: &[Value]) -> String {
    compact(&Value::Array(tools.iter().map(context_view).collect()))
}

/// Prices one listed tool by slot (see [`Definition`]).
pub fn definition(tool: &Value) -> Definition {
    let wire = Count::of(&compact(tool));
    let context = Count::of(&compact(&context_view(tool)));
    let slot = |name: &str| -> Option<Count> {
        let map = tool.as_object()?;
        let (i, value) = map
            .iter()
            .enumerate()
            .find(|(_, (k, _))| k.as_str() == name)
            .map(|(i, (_, v))| (i, v))?;
        let comma = if i > 0 { "," } else { "" };
        let key = compact(&Value::String(name.to_owned()));
        Some(Count::of(&format!("{comma}{key}:{}", compact(value))))
    };
    let description = slot("description").unwrap_or_default();
    let input_schema = slot("inputSchema").unwrap_or_default();
    let output_schema = slot("outputSchema");
    let named = description + input_schema + output_schema.unwrap_or_default();
    let other = Count {
        chars: wire.chars.saturating_sub(named.chars),
        o200k_base: wire.o200k_base.saturating_sub(named.o200k_base),
        cl100k_base: wire.cl100k_base.saturating_sub(named.cl100k_base),
    };
    Definition {
        description: description.tokens_all(),
        input_schema: input_schema.tokens_all(),
        output_schema: output_schema.map(|c| c.tokens_all()),
        other: other.tokens_all(),
        context: context.tokens_all(),
        wire: wire.tokens_all(),
    }
}

/// The characters of one tool's `outputSchema` member (`,"outputSchema":{...}`), zero when it
/// has none: what a client that maps the schema into every request pays per call.
pub fn output_schema_text(tool: &Value) -> Option<String> {
    tool.get("outputSchema").map(compact)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text_chars(tools: &[Value]) -> i64 {
        tools_text(tools).chars().count() as i64
    }

    fn sum(rows: &[SlotRow]) -> i64 {
        rows.iter().map(|r| r.chars).sum()
    }

    fn before() -> Vec<Value> {
        vec![
            json!({"name": "a-list", "description": "List a.", "inputSchema": {"type": "object", "properties": {"space": {"type": "string"}}, "required": ["space"], "additionalProperties": false}, "annotations": {"readOnlyHint": true}}),
            json!({"name": "a-get", "description": "Get ñ.", "inputSchema": {"type": "object", "properties": {}}}),
        ]
    }

    fn output_schema(data: Value) -> Value {
        json!({"type": "object", "properties": {"platform": {"type": "object", "properties": {"name": {"type": "string"}}}, "data": data, "state": {"type": "object"}}, "required": ["platform", "data"], "additionalProperties": false})
    }

    #[test]
    fn rows_sum_to_the_difference_and_name_each_slot() {
        let mut after = before();
        after[0]["inputSchema"]["properties"]["fields"] =
            json!({"type": "array", "items": {"type": "string"}});
        after[0]["outputSchema"] = output_schema(json!({"type": "array"}));
        after[1]["description"] = json!("Get one ñ.");
        after[1]["outputSchema"] = output_schema(json!({"type": "object"}));
        let rows = breakdown(&before(), &after);
        assert_eq!(sum(&rows), text_chars(&after) - text_chars(&before()));
        let row = |slot: &str| rows.iter().find(|r| r.slot == slot).map(|r| r.chars);
        // `,"fields":{"type":"array","items":{"type":"string"}}`
        assert_eq!(row("a-list: parameter fields"), Some(52));
        assert_eq!(row("a-get: description"), Some(4));
        assert_eq!(
            row("data: a-list"),
            Some(r#","data":{"type":"array"}"#.len() as i64)
        );
        assert_eq!(
            row("platform"),
            Some(
                2 * r#""platform":{"type":"object","properties":{"name":{"type":"string"}}}"#.len()
                    as i64
            )
        );
        assert_eq!(row("a-list: annotations"), Some(0));
        let scaffolding = r#","outputSchema":{"type":"object","properties":{},"required":["platform","data"],"additionalProperties":false}"#;
        assert_eq!(row("scaffolding"), Some(2 * scaffolding.len() as i64));
    }

    #[test]
    fn tools_on_one_side_only_are_priced_whole() {
        let mut after = before();
        after.push(json!({"name": "a-new", "description": "New.", "inputSchema": {}, "outputSchema": output_schema(json!({}))}));
        let removed: Vec<Value> = before()[..1].to_vec();
        let rows = breakdown(&removed, &after);
        assert_eq!(sum(&rows), text_chars(&after) - text_chars(&removed));
        let added: Vec<&SlotRow> = rows.iter().filter(|r| r.chars != 0).collect();
        assert_eq!(added.len(), 2, "{added:?}");
        assert_eq!(added[0].slot, "tool added: a-get");
        assert_eq!(added[1].slot, "tool added: a-new");
        assert_eq!(added[1].chars, chars(&after[2]) + 1);
        let gone = breakdown(&after, &[]);
        assert_eq!(sum(&gone), 2 - text_chars(&after));
    }
}

/// What a server offers besides its tools, as it sent it: the `instructions` of its
/// `initialize` result, and its `prompts/list` and `resources/list` answers when it declares
/// those capabilities. Clients differ in what they forward of these (see reports/clients.md);
/// the report prices them as sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extras {
    /// `initialize.result.instructions`.
    pub instructions: Option<String>,
    /// The `prompts` array, compact JSON.
    pub prompts: Option<String>,
    /// The `resources` array, compact JSON.
    pub resources: Option<String>,
}

impl Extras {
    /// Reads them from a running probe (one request for each list the server declares).
    pub async fn read(probe: &mut crate::probe::Probe) -> Extras {
        let initialized = probe.initialize.result.as_ref().ok().cloned();
        let instructions = initialized
            .as_ref()
            .and_then(|r| r.get("instructions"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let declares = |what: &str| {
            initialized
                .as_ref()
                .and_then(|r| r.pointer(&format!("/capabilities/{what}")))
                .is_some()
        };
        let mut list = async |method: &str, key: &str| -> Option<String> {
            let response = probe.request(method, serde_json::json!({})).await.ok()?;
            let items = response.result.ok()?.get(key)?.clone();
            // An empty list offers nothing to price.
            (items.as_array().is_some_and(|a| !a.is_empty())).then(|| compact(&items))
        };
        let prompts = if declares("prompts") {
            list("prompts/list", "prompts").await
        } else {
            None
        };
        let resources = if declares("resources") {
            list("resources/list", "resources").await
        } else {
            None
        };
        Extras {
            instructions,
            prompts,
            resources,
        }
    }
}
