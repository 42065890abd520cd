//! Typed `data`: every tool answers with a Rust type whose `outputSchema` is derived from the
//! same type (schemars), so the published schema and the answer cannot drift apart.
//!
//! The server's own results are plain structs (strict: `deny_unknown_fields`). A Modyo object
//! the tool echoes is an [`Echo`]: the object exactly as the API sent it (C8: drift adds keys
//! and breaks nothing), typed by a struct of the keys we rely on, declared with [`echoed!`].
//! [`Managed`] is the one loose object of a `-manage` tool (C15).

use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use super::collection::Member;
use crate::contract::schema::RareState;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// The `data` of a tool's answer.
pub(crate) trait Data: Serialize + JsonSchema + Send + 'static {
    /// Why the root is loose (C10): it is a Modyo object, or a list of them, echoed whole.
    /// `None` for a root the server writes key by key (strict).
    fn echoed() -> Option<String> {
        None
    }

    /// The rare `state` keys (C5) every answer of this type comes with: a tool answering it
    /// declares them without saying so.
    fn state() -> RareState {
        RareState::default()
    }

    /// `data` as JSON. The `data` types serialize infallibly (structs of strings, numbers and
    /// JSON values), so `null` never stands in for a real answer; if it did, the exit's
    /// validation would refuse it. Echoed objects are already JSON: they move into the answer
    /// as they are, instead of being serialized into a copy (the same value either way).
    fn into_value(self) -> Value
    where
        Self: Sized,
    {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A kind of Modyo object a tool echoes: the keys it declares (the type's own schema), and
/// what it is called.
pub(crate) trait Echoed: JsonSchema + Send + 'static {
    /// What the object is, for the lint's echoed-root reasons (`space`, `admin user`).
    const NAME: &'static str;
}

/// Declares the keys of an echoed Modyo object: a struct whose fields are the keys the server
/// relies on or guarantees, each optional (`null` and absence both allowed) and typed `i64`,
/// `f64`, `bool`, `String`, `List` (an array of anything), `Object` (an object of anything) or
/// `Value` (any value). The struct is never built: it is the schema of an [`Echo`], which keeps
/// the object as sent.
///
/// Which keys: the identity keys (`id`, `uuid`, `name`; for a [`Member`], every key its rules
/// read, which `server.rs` checks) and the keys the tool itself reads (a `published` flag, the
/// `fields` of a content type, the `steps` of an origination). Every other key travels under
/// `additionalProperties`: declaring few is the minimum contract the tool keeps while the API
/// changes around it, not under-declaring, and each declared key costs every client that reads
/// the `outputSchema`. A key read only to be passed on as it is (`Value`) promises nothing and
/// is not declared.
macro_rules! echoed {
    ($(#[$doc:meta])* $name:ident = $what:literal { $($key:ident: $kind:ident),* $(,)? }) => {
        $(#[$doc])*
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)] // a declaration of keys, read through the schema only
        pub(crate) struct $name {
            $($key: $crate::tools::engine::data::key_type!($kind),)*
        }

        impl $crate::tools::engine::data::Echoed for $name {
            const NAME: &'static str = $what;
        }
    };
}
pub(crate) use echoed;

/// The Rust type of a declared key.
macro_rules! key_type {
    (Value) => { Option<serde_json::Value> };
    (List) => { Option<Vec<serde_json::Value>> };
    (Object) => { Option<serde_json::Map<String, serde_json::Value>> };
    ($kind:ident) => { Option<$kind> };
}
pub(crate) use key_type;

/// The keys the engine reads of a member `T` ([`Rules::keys_read`]) that its declaration lacks:
/// none, or `server.rs` refuses the tool.
///
/// [`Rules::keys_read`]: super::collection::Rules::keys_read
pub(crate) fn undeclared<T: Member>() -> Vec<&'static str> {
    let declared = crate::contract::schema::derived::<T>();
    T::RULES
        .keys_read()
        .into_iter()
        .filter(|key| declared["properties"].get(*key).is_none())
        .collect()
}

/// A Modyo object echoed whole: serialized exactly as the API sent it, described by the keys
/// `T` declares, every other key allowed (C8).
pub(crate) struct Echo<T> {
    object: Value,
    keys: PhantomData<fn() -> T>,
}

impl<T> Echo<T> {
    /// The object as the API sent it.
    pub(crate) fn new(object: Value) -> Echo<T> {
        Echo {
            object,
            keys: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for Echo<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.object.fmt(f)
    }
}

impl<T> Serialize for Echo<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.object.serialize(serializer)
    }
}

impl<T: Echoed> JsonSchema for Echo<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }

    fn inline_schema() -> bool {
        true
    }
}

impl<T: Echoed> Data for Echo<T> {
    fn echoed() -> Option<String> {
        Some(format!("data is the API's {} object", T::NAME))
    }

    fn into_value(self) -> Value {
        self.object
    }
}

impl<T: Echoed> Data for Vec<Echo<T>> {
    fn echoed() -> Option<String> {
        Some(format!("rows are the API's {} objects", T::NAME))
    }

    fn into_value(self) -> Value {
        Value::Array(self.into_iter().map(|row| row.object).collect())
    }
}

impl<T: Echoed> Data for Option<Echo<T>> {
    fn echoed() -> Option<String> {
        Some(format!("data is the API's {} object, or null", T::NAME))
    }

    fn into_value(self) -> Value {
        self.map_or(Value::Null, |echo| echo.object)
    }
}

/// An id as the API sent it: a number, or a string in APIs that use string ids.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub(crate) struct Id(pub(crate) Value);

impl JsonSchema for Id {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Id".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": ["integer", "string"]})
    }

    fn inline_schema() -> bool {
        true
    }
}

/// The `data` of a `-manage` tool (C15): one loose object, every key optional and no union:
/// the object a read or a write returned, the page `list` returned under its root key, or
/// nothing (a delete).
pub(crate) enum Managed<T> {
    /// One object, as read or as persisted.
    One(Echo<T>),
    /// A page of the collection, under its root key.
    Page(Vec<Echo<T>>),
    /// Nothing: the object is gone.
    Gone,
}

impl<T> Managed<T> {
    /// One object as the API sent it.
    pub(crate) fn one(object: Value) -> Managed<T> {
        Managed::One(Echo::new(object))
    }
}

impl<T: Member> Serialize for Managed<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Managed::One(object) => object.serialize(serializer),
            Managed::Page(items) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry(T::RULES.list_key(), items)?;
                map.end()
            }
            Managed::Gone => serializer.serialize_unit(),
        }
    }
}

impl<T: Member> JsonSchema for Managed<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Managed{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = T::json_schema(generator);
        let items = T::json_schema(generator);
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            properties.insert(
                T::RULES.list_key().to_owned(),
                json_schema!({"type": "array", "items": items}).to_value(),
            );
        }
        schema
    }

    fn inline_schema() -> bool {
        true
    }
}

impl<T: Member> Data for Managed<T> {
    fn echoed() -> Option<String> {
        Some(format!(
            "C15 multi-action root: the API's {} object, or the listed {}",
            T::NAME,
            T::RULES.list_key()
        ))
    }
}

/// A key the server always writes, `null` when the value is unknown.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub(crate) struct Nullable<T>(pub(crate) Option<T>);

impl<T: JsonSchema> JsonSchema for Nullable<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Nullable{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let schema = crate::contract::schema::nullable(T::json_schema(generator).to_value());
        Schema::try_from(schema).unwrap_or_else(|_| json_schema!({}))
    }

    fn inline_schema() -> bool {
        true
    }
}

/// The `data` of a tool that only ever answers `null` (a delete) or `control`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Nothing;

impl Serialize for Nothing {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit()
    }
}

impl JsonSchema for Nothing {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Nothing".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": ["null"]})
    }

    fn inline_schema() -> bool {
        true
    }
}

impl Data for Nothing {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::schema;
    use serde_json::json;

    echoed! {
        /// A thing, for the tests.
        Thing = "thing" { id: i64, name: String, ok: bool, rate: f64, tags: List, role: Object, any: Value }
    }

    impl Member for Thing {
        const RULES: crate::tools::engine::collection::Rules =
            crate::tools::engine::collection::Rules::new("thing", "things");
    }

    #[test]
    fn echoed_keys_publish_each_kind_or_null_and_allow_other_keys() {
        let expected = json!({"type": "object", "properties": {
            "id": {"type": ["integer", "null"]},
            "name": {"type": ["string", "null"]},
            "ok": {"type": ["boolean", "null"]},
            "rate": {"type": ["number", "null"]},
            "tags": {"type": ["array", "null"]},
            "role": {"type": ["object", "null"]},
            "any": {},
        }});
        assert_eq!(schema::derived::<Echo<Thing>>(), expected);
        let mut managed = expected.clone();
        managed["properties"]["things"] = json!({"type": "array", "items": expected});
        assert_eq!(schema::derived::<Managed<Thing>>(), managed);
    }

    echoed! {
        /// A person found by email whose declaration forgot the email.
        Person = "person" { id: i64, name: String }
    }

    impl Member for Person {
        const RULES: crate::tools::engine::collection::Rules =
            crate::tools::engine::collection::Rules::new("person", "people")
                .names(crate::tools::engine::Names::EMAIL)
                .slug("email");
    }

    /// Arguments of `people-manage`.
    #[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
    struct PersonArgs {
        /// The person.
        person: Option<String>,
    }

    crate::tools::engine::command! {
        /// What `people-manage` can be asked.
        enum PersonCommand for PersonArgs {
            Get { person: String } => crate::tools::engine::Verb::read("get"),
        }
    }

    #[test]
    fn a_key_the_engine_reads_must_be_declared() {
        assert!(undeclared::<Thing>().is_empty());
        assert_eq!(undeclared::<Person>(), ["email"]);
        let mut def = crate::tools::engine::manage::<PersonArgs, Person, PersonCommand>(
            "people-manage",
            crate::config::Module::Core,
            crate::tools::engine::at("/people"),
        )
        .run(|ctx| async move { crate::tools::engine::standard::get(&ctx).await });
        assert_eq!(def.undeclared, ["email"]);
        let Err(e) = crate::server::check_declared(&def) else {
            panic!("a tool whose echoed type lacks a key the engine reads is refused")
        };
        assert_eq!(
            e.to_string(),
            "tool people-manage: the engine reads the key 'email' of its echoed objects, which their type does not declare"
        );
        def.undeclared.clear();
        assert!(crate::server::check_declared(&def).is_ok());
    }

    #[test]
    fn an_echo_is_the_object_as_sent() {
        let sent = json!({"name": "b", "id": 1, "extra": [1]});
        let echo: Echo<Thing> = Echo::new(sent.clone());
        assert_eq!(serde_json::to_value(&echo).unwrap(), sent);
        let page: Managed<Thing> = Managed::Page(vec![Echo::new(sent.clone())]);
        assert_eq!(
            serde_json::to_value(&page).unwrap(),
            json!({"things": [sent]})
        );
        let gone: Managed<Thing> = Managed::Gone;
        assert_eq!(serde_json::to_value(&gone).unwrap(), Value::Null);
    }
}
