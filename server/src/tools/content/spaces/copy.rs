//! `content-spaces-copy`: a space and its content types into a new space; its categories and
//! its entries (as drafts) when asked.
//!
//! Everything is read before anything is written, so a failed read creates nothing. The copy
//! then runs in phases (the space, its types, its categories parents first, its entries), each
//! mapping the source's ids to the copy's; a child that cannot be copied is listed in
//! `data.failed` and the answer is `partial` (C7: counts are of what the API created).

use std::collections::BTreeMap;

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, Legacy, PostCondition, Reply, Resource, ToolClass, ToolError};
use crate::modyo::list::walk;
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::Ident;
use crate::tools::content::entries::{copied_field_values, read_entry};
use crate::tools::content::types::{FieldKeys, TypeView, copied_field, create_type, fetch_type};
use crate::tools::content::{SPACES, Space, SpaceObject, id_key, id_of, numeric_id};
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{Answer, Container, Data, Echo, Id, Need, body, persist, view};
use crate::tools::fanout;

mod views;

use views::{CategoryBody, CategoryView, EntryBody, EntryView, SpaceBody};

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

/// The `data` of `content-spaces-copy`: the copy as persisted, what was created in it, and
/// the children that could not be copied.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct SpaceCopy {
    space: Echo<SpaceObject>,
    copied: Copied,
    failed: Vec<Failure>,
}

/// Every answer counts the children it created (`state.affected`).
impl Data for SpaceCopy {
    fn state() -> RareState {
        RareState::AFFECTED
    }
}

/// How many children the API created in the copy, by kind (declared `integer`, without the
/// `minimum` a `usize` derives: the catalogue's output-schema budget has no room for it).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Copied {
    #[schemars(with = "i64")]
    types: usize,
    #[schemars(with = "i64")]
    categories: usize,
    #[schemars(with = "i64")]
    entries: usize,
}

/// One child that could not be copied.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Failure {
    kind: &'static str,
    source_id: Id,
    /// The C16 error, details included.
    #[schemars(with = "ChildError")]
    error: Value,
}

impl Failure {
    fn new(kind: &'static str, source_id: &Value, error: &ToolError) -> Failure {
        Failure {
            kind,
            source_id: Id(source_id.clone()),
            error: error.to_value(),
        }
    }
}

/// The keys of a child's C16 error the schema declares: the standard ones, and any detail
/// its code adds (`fields`, `tried`, ...) beside them. Never built: the schema of
/// [`Failure::error`].
#[derive(JsonSchema)]
#[allow(dead_code)]
struct ChildError {
    code: String,
    message: String,
    #[serde(default)]
    status: i64,
    #[serde(default)]
    retryable: bool,
    #[serde(default)]
    retry_after_s: i64,
}

pub(crate) fn copy_tool() -> ToolDef {
    tool("content-spaces-copy", Module::Content, ToolClass::Mutation)
        .describe(
            "Copy a space and its content types into a new space (name, uid); categories and entries (as drafts) only \
when asked. data.space is the copy as persisted, data.copied the counts, data.failed [{kind, source_id, error}]; \
state.affected = children created, state.status created or partial.",
        )
        .resource()
        .state()
        .handle(copy)
}

/// Categories in creation order: every parent before its children.
fn parents_first(categories: &[CategoryView]) -> Vec<&CategoryView> {
    let ids: Vec<Option<u64>> = categories.iter().map(CategoryView::numeric_id).collect();
    let mut ordered: Vec<&CategoryView> = Vec::new();
    let mut placed: Vec<u64> = Vec::new();
    let mut pending: Vec<&CategoryView> = categories.iter().collect();
    while !pending.is_empty() {
        let before = pending.len();
        pending.retain(|c| {
            let ready = match c.parent_id {
                None => true,
                Some(parent) => placed.contains(&parent) || !ids.contains(&Some(parent)),
            };
            if ready {
                ordered.push(c);
                if let Some(id) = c.numeric_id() {
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

/// What a copy reads from the source before it writes anything.
struct Source {
    object: Value,
    types: Vec<TypeView>,
    categories: Vec<CategoryView>,
    entries: Vec<Value>,
}

/// Old type id -> (new type id, old field id -> new field id).
type TypeMap = BTreeMap<String, (Value, BTreeMap<String, Value>)>;

async fn copy(call: Call, args: CopyArgs) -> Answer<SpaceCopy> {
    let client = call.client()?;
    let source = Space::resolve(client, &args.space, Need::Object).await?;
    let read = read_source(client, &source, &args).await?;
    let new_object = create_space(client, &args, &read.object).await?;
    let copy = Space {
        id: numeric_id(&new_object, "the new space")?,
        object: Some(new_object.clone()),
    };
    let mut failed = Vec::new();
    let (types, type_map) = copy_types(client, &copy, &read.types, &mut failed).await;
    let (categories, category_map) =
        copy_categories(client, &copy, &read.categories, &mut failed).await;
    let maps = (&type_map, &category_map);
    let entries = copy_entries(client, &copy, &read.entries, maps, &mut failed).await;
    let affected = types + categories + entries;
    let status = if failed.is_empty() {
        "created"
    } else {
        "partial"
    };
    let resource = Resource::from_object("space", &new_object, Some("uid"));
    let copied = Copied {
        types,
        categories,
        entries,
    };
    let old = Legacy::custom(
        |data| json!({"message": "Space copied successfully", "action": "copied", "space": data["space"], "copied": data["copied"]}),
    );
    Ok(Reply::new(SpaceCopy {
        space: Echo::new(new_object),
        copied,
        failed,
    })
    .resource(resource)
    .state(PostCondition::status(status).affected(affected))
    .old(old)
    .into())
}

/// Reads the source's types (with their fields), and its categories and entries when asked.
async fn read_source(
    client: &ModyoClient,
    source: &Space,
    args: &CopyArgs,
) -> Result<Source, CallError> {
    let (type_rows, _) = walk(
        client,
        &format!("{}/types", source.path()),
        "types",
        &Query::new(),
    )
    .await?;
    let mut types = Vec::with_capacity(type_rows.len());
    for row in type_rows {
        let read: TypeView = view(&row);
        if read.fields.is_some() {
            types.push(read);
        } else {
            let id = numeric_id(&row, "a content type")?;
            types.push(view(&fetch_type(client, source, &id.to_string()).await?));
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
        .iter()
        .map(view)
        .collect()
    } else {
        Vec::new()
    };
    let entries = if args.include_entries {
        read_entries(client, source).await?
    } else {
        Vec::new()
    };
    Ok(Source {
        object: source.object.clone().unwrap_or_default(),
        types,
        categories,
        entries,
    })
}

/// Every entry of the source, read in full.
async fn read_entries(client: &ModyoClient, source: &Space) -> Result<Vec<Value>, CallError> {
    let (rows, _) = walk(
        client,
        &format!("{}/entries", source.path()),
        "entries",
        &Query::new(),
    )
    .await?;
    let ids: Vec<String> = rows.iter().map(id_of).collect();
    let read = fanout::run(
        ids,
        |_, id| async move { read_entry(client, source, &id).await },
    )
    .await;
    if let Some((_, error)) = read.failed.into_iter().next() {
        return Err(error.context("reading the entries to copy").into());
    }
    Ok(read
        .succeeded
        .into_iter()
        .map(|(_, detail)| detail)
        .collect())
}

/// Creates the new space (name, uid, and the source's locales): the space as persisted.
async fn create_space(
    client: &ModyoClient,
    args: &CopyArgs,
    source: &Value,
) -> Result<Value, CallError> {
    let body = body(SpaceBody {
        name: &args.name,
        uid: &args.uid,
        locales: view(source),
    });
    let response = client
        .send(Method::POST, SPACES, &Query::new(), Some(&body))
        .await?;
    let id = id_of(&response);
    Ok(persist::read_back(client, response, &format!("{SPACES}/{id}")).await?)
}

/// Creates the types in the copy: how many, and the map of their ids and field ids.
async fn copy_types(
    client: &ModyoClient,
    copy: &Space,
    types: &[TypeView],
    failed: &mut Vec<Failure>,
) -> (usize, TypeMap) {
    let mut copied = 0;
    let mut type_map = TypeMap::new();
    for content_type in types {
        let source_id = content_type.id.clone().unwrap_or(Value::Null);
        let fields = content_type.fields().iter().map(copied_field).collect();
        let created = create_type(
            client,
            &format!("{}/types", copy.path()),
            content_type.name.as_deref().unwrap_or_default(),
            content_type.uid.as_deref().unwrap_or_default(),
            content_type.single,
            fields,
        )
        .await;
        match created {
            Ok(created) => {
                copied += 1;
                let created: TypeView = view(&created);
                let by_old = field_map(content_type, &created);
                let new_id = created.id.unwrap_or(Value::Null);
                type_map.insert(id_key(&source_id), (new_id, by_old));
            }
            Err(error) => failed.push(Failure::new("type", &source_id, &error)),
        }
    }
    (copied, type_map)
}

/// Old field id -> new field id, through the field name.
fn field_map(old: &TypeView, new: &TypeView) -> BTreeMap<String, Value> {
    let fields_of = |t: &TypeView| t.fields().iter().map(view).collect::<Vec<FieldKeys>>();
    let fields: BTreeMap<String, Value> = fields_of(new)
        .into_iter()
        .filter_map(|f| Some((f.name?, f.id?)))
        .collect();
    fields_of(old)
        .into_iter()
        .filter_map(|f| Some((id_key(&f.id?), f.name?)))
        .filter_map(|(old, name)| Some((old, fields.get(&name)?.clone())))
        .collect()
}

/// Creates the categories in the copy, parents first: how many, and old id -> new id.
async fn copy_categories(
    client: &ModyoClient,
    copy: &Space,
    categories: &[CategoryView],
    failed: &mut Vec<Failure>,
) -> (usize, BTreeMap<u64, u64>) {
    let mut copied = 0;
    let mut category_map: BTreeMap<u64, u64> = BTreeMap::new();
    for category in parents_first(categories) {
        let source_id = category.id.clone().unwrap_or(Value::Null);
        let parent_id = match category.parent_id {
            None => None,
            Some(parent) => match category_map.get(&parent) {
                Some(new_parent) => Some(*new_parent),
                None => {
                    let error = ToolError::new(
                        ErrorCode::Rejected,
                        format!("its parent category {parent} was not copied"),
                    );
                    failed.push(Failure::new("category", &source_id, &error));
                    continue;
                }
            },
        };
        let body = body(CategoryBody {
            name: category.name.as_ref(),
            slug: category.slug.as_ref(),
            parent_id,
        });
        let path = format!("{}/categories", copy.path());
        match post(client, &path, &body).await {
            Ok(created) => {
                copied += 1;
                let created: CategoryView = view(&created);
                if let (Some(old), Some(new)) = (source_id.as_u64(), created.numeric_id()) {
                    category_map.insert(old, new);
                }
            }
            Err(error) => failed.push(Failure::new("category", &source_id, &error)),
        }
    }
    (copied, category_map)
}

/// Creates the entries in the copy, as drafts, with type, fields and category mapped to the
/// copy: how many.
async fn copy_entries(
    client: &ModyoClient,
    copy: &Space,
    entries: &[Value],
    (type_map, category_map): (&TypeMap, &BTreeMap<u64, u64>),
    failed: &mut Vec<Failure>,
) -> usize {
    let mut bodies = Vec::new();
    for entry in entries {
        let read: EntryView = view(entry);
        let source_id = read.id.clone().unwrap_or(Value::Null);
        match entry_body(entry, &read, type_map, category_map) {
            Ok(body) => bodies.push((source_id, body)),
            Err(error) => failed.push(Failure::new("entry", &source_id, &error)),
        }
    }
    let entries_path = format!("{}/entries", copy.path());
    let sources: Vec<Value> = bodies.iter().map(|(id, _)| id.clone()).collect();
    let posted = fanout::run(bodies, |_, (_, body)| {
        let entries_path = &entries_path;
        async move { post(client, entries_path, &body).await }
    })
    .await;
    for (index, error) in &posted.failed {
        failed.push(Failure::new(
            "entry",
            sources.get(*index).unwrap_or(&Value::Null),
            error,
        ));
    }
    posted.succeeded.len()
}

/// The body that creates `entry` in the copy, or why it cannot be copied.
fn entry_body(
    entry: &Value,
    read: &EntryView,
    type_map: &TypeMap,
    category_map: &BTreeMap<u64, u64>,
) -> Result<Value, ToolError> {
    let Some((new_type, fields)) = read
        .content_type_id
        .as_ref()
        .map(id_key)
        .and_then(|t| type_map.get(&t))
    else {
        return Err(ToolError::new(
            ErrorCode::Rejected,
            "its content type was not copied",
        ));
    };
    let field_values = copied_field_values(entry, |old| fields.get(&id_key(old)).cloned())?;
    Ok(body(EntryBody {
        content_type_id: new_type,
        kept: &read.kept,
        category_id: read.category_id.and_then(|c| category_map.get(&c).copied()),
        field_values,
    }))
}

/// `POST path` with a JSON body; the created object as persisted.
async fn post(client: &ModyoClient, path: &str, body: &Value) -> Result<Value, ToolError> {
    let response = client
        .send(Method::POST, path, &Query::new(), Some(body))
        .await?;
    let id = id_of(&response);
    persist::read_back(client, response, &format!("{path}/{id}")).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_are_created_parents_first() {
        let categories = [
            json!({"id": 3, "parent_id": 2}),
            json!({"id": 2, "parent_id": 1}),
            json!({"id": 1, "parent_id": null}),
            json!({"id": 4, "parent_id": 99}),
        ];
        let categories: Vec<CategoryView> = categories.iter().map(view).collect();
        let order: Vec<u64> = parents_first(&categories)
            .iter()
            .filter_map(|c| c.numeric_id())
            .collect();
        assert_eq!(order, vec![1, 4, 2, 3]);
    }
}
