//! Argument pieces shared by many tools (pagination, identifiers).

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The longest identifier taken (an id, uid, uuid, slug, host, email or name).
pub(crate) const MAX_IDENT_CHARS: u64 = 1024;

/// An identifier as an agent passes it: a string (an id, uid, uuid, slug, host or name), or a
/// JSON integer, which is its decimal string (`{"space": 636}` is `{"space": "636"}`: an
/// agent that read `"id": 636` passes it as it read it). Its schema says both, so strict
/// clients that validate their arguments accept either.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ident(String);

impl Ident {
    /// The identifier as text.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Ident {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Ident {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Ident {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Ident, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Ident;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or an integer")
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Ident, E> {
                Ok(Ident(text.to_owned()))
            }

            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Ident, E> {
                Ok(Ident(text))
            }

            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Ident, E> {
                Ok(Ident(n.to_string()))
            }

            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Ident, E> {
                Ok(Ident(n.to_string()))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Written as its text: the engine reads a call's arguments by name from their serialized form.
impl Serialize for Ident {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl JsonSchema for Ident {
    fn schema_name() -> Cow<'static, str> {
        "Ident".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": ["string", "integer"], "maxLength": MAX_IDENT_CHARS})
    }
}

use crate::contract::ToolError;

/// `page` and `per_page`, with the bounds the API does not enforce itself
/// (`server/CONTRACT.md`, "HTTP conventions").
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
pub(crate) struct Paging {
    /// Page number, from 1.
    #[serde(default = "first_page")]
    #[schemars(range(min = 1))]
    pub(crate) page: u32,
    /// Items per page, 1 to 100.
    #[serde(default = "default_per_page")]
    #[schemars(range(min = 1, max = 100))]
    pub(crate) per_page: u32,
}

fn first_page() -> u32 {
    1
}

fn default_per_page() -> u32 {
    10
}

/// A `YYYY-MM-DD` date the API can parse (it drops a whole filter it cannot, and still
/// answers 200, so the check is local).
pub(crate) fn check_date(value: &str, what: &str) -> Result<(), ToolError> {
    let parts: Vec<&str> = value.split('-').collect();
    let ok = match parts.as_slice() {
        [y, m, d] if y.len() == 4 && m.len() == 2 && d.len() == 2 => {
            let num = |s: &str| s.parse::<u32>().ok();
            matches!((num(y), num(m), num(d)), (Some(_), Some(m), Some(d)) if (1..=12).contains(&m) && (1..=31).contains(&d))
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(ToolError::invalid_parameters(format!(
            "{what} '{value}' is not a YYYY-MM-DD date; the API would silently drop the whole filter"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dates_are_checked_locally() {
        assert!(check_date("2026-03-04", "date_range").is_ok());
        for bad in ["2026-3-04", "04-03-2026", "2026-13-01", "2026-02-xx", ""] {
            assert!(check_date(bad, "date_range").is_err(), "{bad}");
        }
    }

    #[test]
    fn an_identifier_is_a_string_or_an_integer() {
        let from = |v| serde_json::from_value::<Ident>(v).map(|i| i.to_string());
        assert_eq!(from(json!("blog")).unwrap(), "blog");
        assert_eq!(from(json!(636)).unwrap(), "636");
        assert_eq!(from(json!(-3)).unwrap(), "-3");
        assert!(from(json!(1.5)).is_err());
        assert!(from(json!(null)).is_err());
        assert!(from(json!(["636"])).is_err());
        let schema = serde_json::to_value(schemars::schema_for!(Ident)).unwrap();
        assert_eq!(schema["type"], json!(["string", "integer"]));
        assert_eq!(schema["maxLength"], MAX_IDENT_CHARS);
    }
}
