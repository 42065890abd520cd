//! Content spaces: `content-spaces-list`, `-get`, `-manage` and `-copy`.

use std::collections::BTreeMap;

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::entries::{copied_field_values, read_entry};
use super::types::{copied_field, create_type};
use super::{Need, SPACES, Space, id_key, numeric_id, resolve_space, space_schema, unconfirmed};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::schema::{array, integer, strict, string};
use crate::contract::{
    Coverage, ErrorCode, PostCondition, Reply, Resource, ToolClass, ToolError, legacy, schema,
};
use crate::modyo::list::walk;
use crate::modyo::{CmsError, ModyoClient, Query};
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::{Call, CallError, ToolDef, ToolResult, fanout, persisted, tool};

/// Arguments of `content-spaces-list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListArgs {
    #[serde(flatten)]
    paging: Paging,
}

pub(crate) fn list_tool() -> ToolDef {
    tool("content-spaces-list", Module::Content, ToolClass::Read)
        .describe("List the account's content spaces, one page at a time.")
        .data(schema::array(space_schema()))
        .state()
        .handle(list)
}

async fn list(call: Call, args: ListArgs) -> ToolResult {
    let query = Query::new().page(args.paging.page, args.paging.per_page);
    let page = call.client()?.list(SPACES, "spaces", &query).await?;
    let coverage = Coverage::page(page.items.len(), page.meta.as_ref());
    let legacy_items = page.items.clone();
    Ok(Reply::new(page.items.into())
        .state(coverage)
        .legacy(call.mode, || {
            legacy::list("spaces", legacy_items.into(), page.raw_meta.as_ref())
        })
        .into())
}

/// Arguments of `content-spaces-get`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GetArgs {
    /// Space id, uid or name.
    space: Ident,
}

pub(crate) fn get_tool() -> ToolDef {
    tool("content-spaces-get", Module::Content, ToolClass::Read)
        .describe("Get one content space by id, uid or name (resolved in that order; ambiguous names fail).")
        .data(space_schema())
        .resource()
        .handle(get)
}

async fn get(call: Call, args: GetArgs) -> ToolResult {
    let space = resolve_space(call.client()?, &args.space, Need::Object).await?;
    let resource = space.resource();
    let object = space.object.unwrap_or_default();
    let legacy_object = object.clone();
    Ok(Reply::new(object)
        .resource(resource)
        .legacy(call.mode, || legacy_object)
        .into())
}

/// Actions of `content-spaces-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ManageAction {
    List,
    Get,
    Create,
    Update,
    Delete,
}

/// Arguments of `content-spaces-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), create, update or delete.
    action: Option<ManageAction>,
    /// Space id, uid or name (get, update, delete).
    space: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Name (create, update).
    name: Option<String>,
    /// Unique identifier (create).
    uid: Option<String>,
    /// Default locale, such as es or en (create, update).
    default_locale: Option<String>,
    /// Enabled locales (create, update).
    locales: Option<Vec<String>>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

fn manage_schema() -> Value {
    let mut data = space_schema();
    data["properties"]["spaces"] = schema::array(space_schema());
    data
}

pub(crate) fn manage_tool() -> ToolDef {
    tool("content-spaces-manage", Module::Content, ToolClass::Gated)
        .describe(
            "List, get, create, update or delete content spaces. list: data.spaces + coverage; get/create/update: \
data is the space as persisted; delete (confirmDelete: true) sends the space's name as Modyo's validation and \
starts Modyo's background deletion: data null, state.status queued, state.pending true.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["create", "update", "delete"])
        .handle(manage)
        .writes_state(RareState {
            pending: true,
            ..RareState::default()
        })
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let writes = any_given(&[
        args.name.is_some(),
        args.uid.is_some(),
        args.default_locale.is_some(),
        args.locales.is_some(),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if writes => {
            return Err(CallError::Arguments(
                "action is required when name, uid, default_locale or locales are given (create or update)".into(),
            ));
        }
        None => ManageAction::Get,
    };
    let _ = args.verify;
    // Decided before any request: an unconfirmed delete sends nothing.
    if action == ManageAction::Delete && args.confirm_delete != Some(true) {
        return Ok(unconfirmed("content-spaces-manage", "delete"));
    }
    let client = call.client()?;
    let need_space = || {
        args.space.as_deref().ok_or_else(|| {
            CallError::Arguments(format!("{action:?} needs space (id, uid or name)").to_lowercase())
        })
    };
    let body = || {
        let mut body = Map::new();
        for (key, value) in [
            ("name", args.name.clone().map(Value::from)),
            ("uid", args.uid.clone().map(Value::from)),
            (
                "default_locale",
                args.default_locale.clone().map(Value::from),
            ),
            ("locales", args.locales.clone().map(Value::from)),
        ] {
            if let Some(value) = value {
                body.insert(key.to_owned(), value);
            }
        }
        Value::Object(body)
    };
    match action {
        ManageAction::List => {
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            let page = client.list(SPACES, "spaces", &query).await?;
            let coverage = Coverage::page(page.items.len(), page.meta.as_ref());
            let items = Value::Array(page.items);
            let legacy_items = items.clone();
            Ok(Reply::new(json!({"spaces": items}))
                .state(coverage)
                .legacy(call.mode, || {
                    legacy::list("spaces", legacy_items, page.raw_meta.as_ref())
                })
                .into())
        }
        ManageAction::Get => {
            let space = resolve_space(client, need_space()?, Need::Object).await?;
            let resource = space.resource();
            let object = space.object.unwrap_or_default();
            let legacy_object = object.clone();
            Ok(Reply::new(object)
                .resource(resource)
                .legacy(call.mode, || legacy_object)
                .into())
        }
        ManageAction::Create => {
            if args.name.is_none() {
                return Err(CallError::Arguments("create needs name".into()));
            }
            let response = client
                .send(Method::POST, SPACES, &Query::new(), Some(&body()))
                .await?;
            let id = response.get("id").cloned().unwrap_or(Value::Null);
            let object = persisted(client, response, &format!("{SPACES}/{id}")).await?;
            let resource = Resource::from_object("space", &object, Some("uid"));
            let legacy_object = object.clone();
            Ok(Reply::new(object)
                .resource(resource)
                .state(PostCondition::status("created"))
                .legacy(call.mode, || {
                    legacy::write(
                        "created",
                        "Space created successfully",
                        "space",
                        legacy_object,
                    )
                })
                .into())
        }
        ManageAction::Update => {
            if !writes {
                return Err(CallError::Arguments(
                    "update needs at least one of name, default_locale, locales".into(),
                ));
            }
            let space = resolve_space(client, need_space()?, Need::Id).await?;
            let response = client
                .send(Method::PUT, &space.path(), &Query::new(), Some(&body()))
                .await?;
            let object = persisted(client, response, &space.path()).await?;
            let resource = Resource::from_object("space", &object, Some("uid")).id(space.id);
            let legacy_object = object.clone();
            Ok(Reply::new(object)
                .resource(resource)
                .state(PostCondition::status("updated"))
                .legacy(call.mode, || {
                    legacy::write(
                        "updated",
                        "Space updated successfully",
                        "space",
                        legacy_object,
                    )
                })
                .into())
        }
        ManageAction::Delete => {
            let space = resolve_space(client, need_space()?, Need::Object).await?;
            let name = space
                .object
                .as_ref()
                .and_then(|o| o.get("name"))
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    ToolError::new(
                        ErrorCode::InvalidUpstreamResponse,
                        format!(
                            "space {} has no name; Modyo's delete needs it as validation",
                            space.id
                        ),
                    )
                })?
                .to_owned();
            let id = space.id;
            client
                .send(
                    Method::DELETE,
                    &space.path(),
                    &Query::new().push("validation", &name),
                    None,
                )
                .await
                .map_err(|e| delete_refused(e, id, &name))?;
            let resource = space.resource();
            Ok(Reply::new(Value::Null)
                .resource(resource)
                .state(PostCondition::status("queued").pending(true))
                .legacy(call.mode, || json!({"message": "Space deletion started", "action": "queued", "spaceId": id}))
                .into())
        }
    }
}

/// A refused space delete. Modyo answers 401 when `validation` is not the space's name: after
/// the space was read with the same token, that 401 is the validation, not the credentials.
fn delete_refused(error: CmsError, id: u64, name: &str) -> ToolError {
    if error.status() == Some(401) {
        return ToolError::new(
            ErrorCode::Rejected,
            format!(
                "Modyo refused to delete space {id}: its validation (the space's name, '{name}') did not match (401)"
            ),
        )
        .retryable(false);
    }
    ToolError::from(error)
}

/// Arguments of `content-spaces-copy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CopyArgs {
    /// Space to copy (id, uid or name).
    space: Ident,
    /// Name of the copy.
    name: String,
    /// uid of the copy.
    uid: String,
    /// Also copy the categories.
    #[serde(default)]
    include_categories: bool,
    /// Also copy the entries, as drafts (their categories too).
    #[serde(default)]
    include_entries: bool,
}

fn copy_schema() -> Value {
    let counts = strict(
        &[
            ("types", integer()),
            ("categories", integer()),
            ("entries", integer()),
        ],
        &["types", "categories", "entries"],
    );
    let error = schema::loose(
        &[
            ("code", string()),
            ("message", string()),
            ("status", integer()),
            ("retryable", schema::boolean()),
            ("retry_after_s", integer()),
        ],
        &["code", "message"],
    );
    let failed = strict(
        &[
            ("kind", string()),
            ("source_id", schema::id()),
            ("error", error),
        ],
        &["kind", "source_id", "error"],
    );
    strict(
        &[
            ("space", space_schema()),
            ("copied", counts),
            ("failed", array(failed)),
        ],
        &["space", "copied", "failed"],
    )
}

pub(crate) fn copy_tool() -> ToolDef {
    tool("content-spaces-copy", Module::Content, ToolClass::Mutation)
        .describe(
            "Copy a space and its content types into a new space (name, uid); categories and entries (as drafts) only \
when asked. data.space is the copy as persisted, data.copied the counts, data.failed [{kind, source_id, error}]; \
state.affected = children created, state.status created or partial.",
        )
        .data(copy_schema())
        .resource()
        .state()
        .handle(copy)
}

/// One child that could not be copied.
fn failure(kind: &str, source_id: &Value, error: &ToolError) -> Value {
    json!({"kind": kind, "source_id": source_id, "error": error.to_value()})
}

/// Categories in creation order: every parent before its children.
fn parents_first(categories: &[Value]) -> Vec<&Value> {
    let ids: Vec<Option<u64>> = categories
        .iter()
        .map(|c| c.get("id").and_then(Value::as_u64))
        .collect();
    let mut ordered: Vec<&Value> = Vec::new();
    let mut placed: Vec<u64> = Vec::new();
    let mut pending: Vec<&Value> = categories.iter().collect();
    while !pending.is_empty() {
        let before = pending.len();
        pending.retain(|c| {
            let ready = match c.get("parent_id").and_then(Value::as_u64) {
                None => true,
                Some(parent) => placed.contains(&parent) || !ids.contains(&Some(parent)),
            };
            if ready {
                ordered.push(c);
                if let Some(id) = c.get("id").and_then(Value::as_u64) {
                    placed.push(id);
                }
            }
            !ready
        });
        if pending.len() == before {
            // A cycle: keep the rest in list order; their parents will be missing.
            ordered.append(&mut pending);
        }
    }
    ordered
}

async fn copy(call: Call, args: CopyArgs) -> ToolResult {
    let client = call.client()?;
    let source = resolve_space(client, &args.space, Need::Object).await?;
    let source_object = source.object.clone().unwrap_or_default();
    // Everything is read before anything is written: a failed read creates nothing.
    let (type_rows, _) = walk(
        client,
        &format!("{}/types", source.path()),
        "types",
        &Query::new(),
    )
    .await?;
    let mut types = Vec::with_capacity(type_rows.len());
    for row in type_rows {
        if row.get("fields").is_some() {
            types.push(row);
        } else {
            let id = numeric_id(&row, "a content type")?;
            types.push(super::types::fetch_type(client, &source, &id.to_string()).await?);
        }
    }
    let categories = if args.include_categories || args.include_entries {
        walk(
            client,
            &format!("{}/categories", source.path()),
            "categories",
            &Query::new(),
        )
        .await?
        .0
    } else {
        Vec::new()
    };
    let entries = if args.include_entries {
        let (rows, _) = walk(
            client,
            &format!("{}/entries", source.path()),
            "entries",
            &Query::new(),
        )
        .await?;
        let ids: Vec<String> = rows
            .iter()
            .map(|r| r.get("id").map(id_key).unwrap_or_default())
            .collect();
        let read = fanout::run(ids, |_, id| {
            let source = &source;
            async move { read_entry(client, source, &id).await }
        })
        .await;
        if let Some((_, error)) = read.failed.into_iter().next() {
            return Err(error.context("reading the entries to copy").into());
        }
        read.succeeded
            .into_iter()
            .map(|(_, detail)| detail)
            .collect()
    } else {
        Vec::new()
    };

    let mut body = Map::new();
    body.insert("name".into(), Value::from(args.name.clone()));
    body.insert("uid".into(), Value::from(args.uid.clone()));
    for key in ["default_locale", "locales"] {
        if let Some(value) = source_object.get(key).filter(|v| !v.is_null()) {
            body.insert(key.into(), value.clone());
        }
    }
    let response = client
        .send(
            Method::POST,
            SPACES,
            &Query::new(),
            Some(&Value::Object(body)),
        )
        .await?;
    let id = response.get("id").map(id_key).unwrap_or_default();
    let new_object = persisted(client, response, &format!("{SPACES}/{id}")).await?;
    let copy = Space {
        id: numeric_id(&new_object, "the new space")?,
        object: Some(new_object.clone()),
    };

    let mut failed = Vec::new();
    let mut copied = (0, 0, 0);
    // Types: old type id -> (new type id, field name -> new field id).
    let mut type_map: BTreeMap<String, (Value, BTreeMap<String, Value>)> = BTreeMap::new();
    for content_type in &types {
        let source_id = content_type.get("id").cloned().unwrap_or(Value::Null);
        let fields = content_type
            .get("fields")
            .and_then(Value::as_array)
            .map(|fields| fields.iter().map(copied_field).collect::<Vec<_>>())
            .unwrap_or_default();
        let created = create_type(
            client,
            &format!("{}/types", copy.path()),
            content_type
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default(),
            content_type
                .get("uid")
                .and_then(Value::as_str)
                .unwrap_or_default(),
            content_type.get("single").and_then(Value::as_bool),
            fields,
        )
        .await;
        match created {
            Ok(created) => {
                copied.0 += 1;
                let fields: BTreeMap<String, Value> = created
                    .get("fields")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|f| {
                        Some((f.get("name")?.as_str()?.to_owned(), f.get("id")?.clone()))
                    })
                    .collect();
                let names: BTreeMap<String, String> = content_type
                    .get("fields")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|f| {
                        Some((id_key(f.get("id")?), f.get("name")?.as_str()?.to_owned()))
                    })
                    .collect();
                // old field id -> new field id, through the field name.
                let by_old: BTreeMap<String, Value> = names
                    .into_iter()
                    .filter_map(|(old, name)| Some((old, fields.get(&name)?.clone())))
                    .collect();
                type_map.insert(
                    id_key(&source_id),
                    (created.get("id").cloned().unwrap_or(Value::Null), by_old),
                );
            }
            Err(error) => failed.push(failure("type", &source_id, &error)),
        }
    }
    // Categories, parents first: old id -> new id.
    let mut category_map: BTreeMap<u64, u64> = BTreeMap::new();
    for category in parents_first(&categories) {
        let source_id = category.get("id").cloned().unwrap_or(Value::Null);
        let mut body = Map::new();
        for key in ["name", "slug"] {
            if let Some(value) = category.get(key).filter(|v| !v.is_null()) {
                body.insert(key.into(), value.clone());
            }
        }
        if let Some(parent) = category.get("parent_id").and_then(Value::as_u64) {
            match category_map.get(&parent) {
                Some(new_parent) => {
                    body.insert("parent_id".into(), Value::from(*new_parent));
                }
                None => {
                    let error = ToolError::new(
                        ErrorCode::Rejected,
                        format!("its parent category {parent} was not copied"),
                    );
                    failed.push(failure("category", &source_id, &error));
                    continue;
                }
            }
        }
        match post(
            client,
            &format!("{}/categories", copy.path()),
            &Value::Object(body),
        )
        .await
        {
            Ok(created) => {
                copied.1 += 1;
                if let (Some(old), Some(new)) = (
                    source_id.as_u64(),
                    created.get("id").and_then(Value::as_u64),
                ) {
                    category_map.insert(old, new);
                }
            }
            Err(error) => failed.push(failure("category", &source_id, &error)),
        }
    }
    // Entries, as drafts, with type, fields and category mapped to the copy.
    let mut bodies = Vec::new();
    for entry in &entries {
        let source_id = entry.get("id").cloned().unwrap_or(Value::Null);
        let Some((new_type, fields)) = entry
            .get("content_type_id")
            .map(id_key)
            .and_then(|t| type_map.get(&t))
        else {
            let error = ToolError::new(ErrorCode::Rejected, "its content type was not copied");
            failed.push(failure("entry", &source_id, &error));
            continue;
        };
        let field_values = match copied_field_values(entry, |old| fields.get(&id_key(old)).cloned())
        {
            Ok(values) => values,
            Err(error) => {
                failed.push(failure("entry", &source_id, &error));
                continue;
            }
        };
        let mut body = Map::new();
        body.insert("content_type_id".into(), new_type.clone());
        for key in ["name", "slug", "tags", "locale"] {
            if let Some(value) = entry.get(key).filter(|v| !v.is_null()) {
                body.insert(key.into(), value.clone());
            }
        }
        if let Some(category) = entry
            .get("category_id")
            .and_then(Value::as_u64)
            .and_then(|c| category_map.get(&c))
        {
            body.insert("category_id".into(), Value::from(*category));
        }
        body.insert("field_values".into(), Value::Array(field_values));
        bodies.push((source_id, Value::Object(body)));
    }
    let entries_path = format!("{}/entries", copy.path());
    let sources: Vec<Value> = bodies.iter().map(|(id, _)| id.clone()).collect();
    let posted = fanout::run(bodies, |_, (_, body)| {
        let entries_path = &entries_path;
        async move { post(client, entries_path, &body).await }
    })
    .await;
    copied.2 = posted.succeeded.len();
    for (index, error) in &posted.failed {
        failed.push(failure(
            "entry",
            sources.get(*index).unwrap_or(&Value::Null),
            error,
        ));
    }

    let affected = copied.0 + copied.1 + copied.2;
    let status = if failed.is_empty() {
        "created"
    } else {
        "partial"
    };
    let resource = Resource::from_object("space", &new_object, Some("uid"));
    let counts = json!({"types": copied.0, "categories": copied.1, "entries": copied.2});
    let legacy_space = new_object.clone();
    let legacy_counts = counts.clone();
    Ok(Reply::new(json!({"space": new_object, "copied": counts, "failed": failed}))
        .resource(resource)
        .state(PostCondition::status(status).affected(affected))
        .legacy(call.mode, || {
            json!({"message": "Space copied successfully", "action": "copied", "space": legacy_space, "copied": legacy_counts})
        })
        .into())
}

/// `POST path` with a JSON body; the created object as persisted.
async fn post(client: &ModyoClient, path: &str, body: &Value) -> Result<Value, ToolError> {
    let response = client
        .send(Method::POST, path, &Query::new(), Some(body))
        .await?;
    let id = response.get("id").map(id_key).unwrap_or_default();
    persisted(client, response, &format!("{path}/{id}")).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(status: u16) -> CmsError {
        CmsError::Status {
            method: Method::DELETE,
            path: "/api/admin/content/spaces/7".into(),
            status,
            body: None,
            text: None,
            empty: true,
            retry_after: None,
        }
    }

    #[test]
    fn a_refused_delete_names_the_validation_not_the_credentials() {
        let refused = delete_refused(answered(401), 7, "Blog");
        assert_eq!(refused.code(), ErrorCode::Rejected);
        assert!(
            refused.to_value()["message"]
                .as_str()
                .unwrap()
                .contains("'Blog'")
        );
        assert_eq!(
            delete_refused(answered(404), 7, "Blog").code(),
            ErrorCode::NotFound
        );
    }

    #[test]
    fn categories_are_created_parents_first() {
        let categories = vec![
            json!({"id": 3, "parent_id": 2}),
            json!({"id": 2, "parent_id": 1}),
            json!({"id": 1, "parent_id": null}),
            json!({"id": 4, "parent_id": 99}),
        ];
        let order: Vec<u64> = parents_first(&categories)
            .iter()
            .filter_map(|c| c["id"].as_u64())
            .collect();
        assert_eq!(order, vec![1, 4, 2, 3]);
    }
}
