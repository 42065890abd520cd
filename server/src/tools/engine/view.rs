//! Typed reads of Modyo objects: a handler that reads several keys of an object the API sent
//! deserializes it once into a view, a `#[derive(Deserialize)]` struct of the keys it relies
//! on, instead of reading them one by one by name.
//!
//! A view reads as leniently as `Value::get` and `Value::as_*` did: each key is
//! `#[serde(deserialize_with = "lenient")]` under a container `#[serde(default)]`, so a key
//! absent, `null` or of another type (a string id where a number was expected) is `None`, and
//! a view of something that is not an object is all `None`. An `Option<Value>` key read this
//! way is `Some(Value::Null)` for a `null`, as `get` was; a plain `Option<Value>` (no
//! `lenient`) is `None` for it, as `get(..).filter(|v| !v.is_null())` was.

use serde::Serialize;
use serde::de::{Deserialize, DeserializeOwned, Deserializer};
use serde_json::Value;

/// `object` read as the view `V`: its keys of the expected type, every other one `None`.
pub(crate) fn view<V: DeserializeOwned + Default>(object: &Value) -> V {
    match object {
        Value::Object(_) => V::deserialize(object).unwrap_or_default(),
        _ => V::default(),
    }
}

/// The keys that name an API object, the ones most handlers read: its `id` as sent (`null`
/// included; a string or a number), its `uuid`, `name` and `slug` when strings.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
pub(crate) struct Identity {
    #[serde(deserialize_with = "lenient")]
    pub(crate) id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    pub(crate) uuid: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(crate) name: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(crate) slug: Option<String>,
}

/// A key of a view: `None` when its value does not read as a `T` (`Value::as_*` returned
/// `None`), never an error. `T` is a value (a number, a string, a `Value`, a list of values),
/// not a nested view: a derived struct also reads an array, by position; a nested object is
/// read with [`views`], or kept as a `Value` and read with [`view()`].
pub(crate) fn lenient<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    Ok(T::deserialize(Value::deserialize(deserializer)?).ok())
}

/// A key holding a list of objects, each read as the view `V` (an element that is not an
/// object is an all-`None` view); `None` when the key is not an array.
pub(crate) fn views<'de, D, V>(deserializer: D) -> Result<Option<Vec<V>>, D::Error>
where
    D: Deserializer<'de>,
    V: DeserializeOwned + Default,
{
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(items) => Some(items.iter().map(view).collect()),
        _ => None,
    })
}

/// A body the server built (a derived `Serialize` struct), as the JSON the client sends. The
/// bodies serialize infallibly (strings, numbers and JSON values), as [`Data`] does.
///
/// [`Data`]: super::Data
pub(crate) fn body(body: impl Serialize) -> Value {
    serde_json::to_value(body).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Default, PartialEq, serde::Deserialize)]
    #[serde(default)]
    struct Thing {
        #[serde(deserialize_with = "lenient")]
        id: Option<u64>,
        #[serde(deserialize_with = "lenient")]
        name: Option<String>,
        #[serde(deserialize_with = "lenient")]
        any: Option<Value>,
        plain: Option<Value>,
        #[serde(deserialize_with = "views")]
        parts: Option<Vec<Thing>>,
    }

    #[test]
    fn a_view_reads_as_get_and_as_did() {
        let object = json!({"id": "7", "name": "a", "any": null, "plain": null, "extra": 1,
            "parts": [{"id": 2}, "x"]});
        let thing: Thing = view(&object);
        assert_eq!(thing.id, None);
        assert_eq!(thing.name.as_deref(), Some("a"));
        assert_eq!(thing.any, Some(Value::Null));
        assert_eq!(thing.plain, None);
        let parts = thing.parts.unwrap_or_default();
        assert_eq!(parts[0].id, Some(2));
        assert_eq!(parts[1], Thing::default());
        assert_eq!(view::<Thing>(&json!([1, 2])), Thing::default());
        assert_eq!(
            view::<Thing>(&json!({"id": -1, "parts": {}})),
            Thing::default()
        );
        assert_eq!(view::<Thing>(&json!({"id": 1.0})).id, None);
    }
}
