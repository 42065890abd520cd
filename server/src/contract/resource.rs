//! C4: `resource = {type, uuid?, id?, slug?, path?, name?}`, the one entity a call resolved
//! or acted on, with every identifier it has that `data` does not already carry at its root
//! (a read of the entity itself names only its type here: its ids are in `data`).
//!
//! Heuristic lookups (a space by uid, a site by host) echo the resolved entity here. For a
//! collection read the resource is the container; bulk work and root listings omit it.

use serde::Serialize;
use serde_json::{Map, Value};

/// The entity a call resolved or acted on.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Resource {
    #[serde(rename = "type")]
    kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uuid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    slug: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

impl Resource {
    /// A resource of the given type with no identifiers yet.
    pub fn new(kind: impl Into<String>) -> Resource {
        Resource {
            kind: kind.into(),
            ..Resource::default()
        }
    }

    /// Reads `id`, `uuid` and `name` from an API object, and `slug` from `slug_key`
    /// (`uid` for spaces and types, `host` for sites, `slug` for entries).
    pub fn from_object(
        kind: impl Into<String>,
        object: &Value,
        slug_key: Option<&str>,
    ) -> Resource {
        let empty = Map::new();
        let map = object.as_object().unwrap_or(&empty);
        let text = |key: &str| match map.get(key) {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            _ => None,
        };
        Resource {
            kind: kind.into(),
            uuid: text("uuid"),
            id: map
                .get("id")
                .filter(|v| v.is_u64() || v.is_i64() || v.is_string())
                .cloned(),
            slug: slug_key.and_then(text),
            path: None,
            name: text("name"),
        }
    }

    /// Sets the numeric or string id.
    pub fn id(mut self, id: impl Into<Value>) -> Resource {
        self.id = Some(id.into());
        self
    }

    /// Sets the uuid.
    pub fn uuid(mut self, uuid: impl Into<String>) -> Resource {
        self.uuid = Some(uuid.into());
        self
    }

    /// Sets the slug (uid, host or slug, depending on the type).
    pub fn slug(mut self, slug: impl Into<String>) -> Resource {
        self.slug = Some(slug.into());
        self
    }

    /// Sets the full path (categories, local directories).
    pub fn path(mut self, path: impl Into<String>) -> Resource {
        self.path = Some(path.into());
        self
    }

    /// Sets the name.
    pub fn name(mut self, name: impl Into<String>) -> Resource {
        self.name = Some(name.into());
        self
    }

    /// The resource type (`space`, `entry`, ...).
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The id, if known.
    pub fn id_value(&self) -> Option<&Value> {
        self.id.as_ref()
    }

    /// The name, if known.
    pub fn name_value(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The resource as the envelope carries it beside `data`: every identifier `data`'s root
    /// already holds with the same value left out (the slug also under the key it is read
    /// from, `uid` or `host`), so nothing is said twice.
    pub fn beside(&self, data: &Value) -> Resource {
        let Some(root) = data.as_object() else {
            return self.clone();
        };
        let held = |keys: &[&str], value: &Value| keys.iter().any(|k| root.get(*k) == Some(value));
        let text = |keys: &[&str], value: &Option<String>| {
            value
                .clone()
                .filter(|v| !held(keys, &Value::String(v.clone())))
        };
        Resource {
            kind: self.kind.clone(),
            uuid: text(&["uuid"], &self.uuid),
            id: self.id.clone().filter(|id| !held(&["id"], id)),
            slug: text(&["slug", "uid", "host"], &self.slug),
            path: text(&["path"], &self.path),
            name: text(&["name"], &self.name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn from_object_takes_every_identifier_and_skips_empty_ones() {
        let space = json!({"id": 636, "uuid": "u-1", "uid": "sucursales", "name": "Sucursales", "extra": 1});
        let r = Resource::from_object("space", &space, Some("uid"));
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"type": "space", "uuid": "u-1", "id": 636, "slug": "sucursales", "name": "Sucursales"})
        );
        let bare = Resource::from_object("entry", &json!({"id": 1, "uuid": ""}), Some("slug"));
        assert_eq!(
            serde_json::to_value(&bare).unwrap(),
            json!({"type": "entry", "id": 1})
        );
    }

    #[test]
    fn beside_data_the_resource_keeps_only_what_data_does_not_say() {
        let site = Resource::new("site")
            .id(12)
            .uuid("u-12")
            .slug("banco-andino.modyo.cloud")
            .name("Banco Andino");
        let itself = json!({"id": 12, "uuid": "u-12", "host": "banco-andino.modyo.cloud", "name": "Banco Andino", "status": "enabled"});
        assert_eq!(
            serde_json::to_value(site.beside(&itself)).unwrap(),
            json!({"type": "site"})
        );
        let projected = json!({"name": "Banco Andino"});
        assert_eq!(
            serde_json::to_value(site.beside(&projected)).unwrap(),
            json!({"type": "site", "uuid": "u-12", "id": 12, "slug": "banco-andino.modyo.cloud"})
        );
        let other = json!({"id": "12", "name": "Otro"});
        assert_eq!(
            site.beside(&other),
            site,
            "a string id, another name: different values"
        );
        for list in [json!([itself]), Value::Null] {
            assert_eq!(site.beside(&list), site, "a list or nothing: the container");
        }
    }
}
