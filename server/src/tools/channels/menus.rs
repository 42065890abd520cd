//! Navigation menus: `channels-menus-upsert`, `-copy`, `-delete` write the menu containers;
//! `channels-menu-items-manage` reads menus (each with its item tree) and writes their items.
//!
//! A menu is addressed by id or by exact name within the site. Items nest through
//! `child_items`.

use futures::{StreamExt, TryStreamExt, stream};
use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    Need, Site, body, check_persisted, deleted, id_of, not_found_as, object_reply, resolve_site,
    unconfirmed, write, written,
};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{ErrorCode, PostCondition, Reply, Resource, ToolClass, ToolError, legacy};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

fn menu_keys() -> Vec<(&'static str, Kind)> {
    use Kind::*;
    vec![
        ("id", Int),
        ("uuid", Str),
        ("name", Str),
        ("site_id", Int),
        ("status", Str),
        ("published", Bool),
        ("items", List),
        ("created_at", Str),
        ("updated_at", Str),
    ]
}

fn item_keys() -> Vec<(&'static str, Kind)> {
    use Kind::*;
    vec![
        ("id", Int),
        ("uuid", Str),
        ("label", Str),
        ("url", Str),
        ("position", Int),
        ("target", Str),
        ("classes", Str),
        ("description", Str),
        ("parent_id", Int),
        ("menu_id", Int),
        ("child_items", List),
        ("created_at", Str),
        ("updated_at", Str),
    ]
}

/// The JSON schema of a menu as the API returns it (loose: echoed).
fn menu_schema() -> Value {
    schema::echo(&menu_keys())
}

fn menu_resource(object: &Value) -> Resource {
    Resource::from_object("menu", object, None)
}

fn item_resource(object: &Value) -> Resource {
    let resource = Resource::from_object("menu_item", object, None);
    match object
        .get("label")
        .and_then(Value::as_str)
        .filter(|l| !l.is_empty())
    {
        Some(label) => resource.name(label),
        None => resource,
    }
}

fn menus_path(site: &Site) -> String {
    site.at("menus")
}

/// A menu, resolved: its id and, when a lookup read it, its list row.
struct MenuRef {
    id: u64,
    row: Option<Value>,
}

/// The one menu named exactly `name`: `Ok(None)` when none is.
async fn menu_named(
    client: &ModyoClient,
    site: &Site,
    name: &str,
) -> Result<Option<Value>, ToolError> {
    let (rows, _) = walk(client, &menus_path(site), "menus", &Query::new()).await?;
    match pick("menu", name, &rows, &[Stage::exact("name", "name", name)]) {
        Ok(row) => Ok(Some(row.clone())),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Resolves a menu by id, or by exact name within the site.
async fn resolve_menu(
    client: &ModyoClient,
    site: &Site,
    input: &str,
) -> Result<MenuRef, ToolError> {
    let input = input.trim();
    if is_id(input) {
        let id = input.parse().map_err(|_| {
            ToolError::invalid_parameters(format!("menu id '{input}' is too large"))
        })?;
        return Ok(MenuRef { id, row: None });
    }
    match menu_named(client, site, input).await? {
        Some(row) => Ok(MenuRef {
            id: id_of(&row, "menu")?,
            row: Some(row),
        }),
        None => Err(ToolError::not_found(format!(
            "site {} has no menu named '{input}'; call channels-menu-items-manage (action list) to see its menus",
            site.id
        ))
        .detail("tried", json!(["id", "name"]))),
    }
}

/// `GET .../menus/{id}`: the menu with its item tree.
async fn read_menu(client: &ModyoClient, site: &Site, id: u64) -> Result<Value, ToolError> {
    client
        .get(&format!("{}/{id}", menus_path(site)), &Query::new())
        .await
        .map_err(not_found_as(|| {
            format!(
                "menu {id} not found in site {}; call channels-menu-items-manage (action list) to see its menus",
                site.id
            )
        }))
}

/// The item `id` anywhere in a menu's tree.
fn find_item(menu: &Value, id: u64) -> Option<&Value> {
    let mut stack: Vec<&Value> = menu
        .get("items")
        .and_then(Value::as_array)
        .map(|items| items.iter().collect())
        .unwrap_or_default();
    while let Some(item) = stack.pop() {
        if item.get("id").and_then(Value::as_u64) == Some(id) {
            return Some(item);
        }
        if let Some(children) = item.get("child_items").and_then(Value::as_array) {
            stack.extend(children.iter());
        }
    }
    None
}

/// Arguments of `channels-menus-upsert`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UpsertArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Exact menu name: the natural key.
    name: String,
    /// Rename the menu found by name.
    new_name: Option<String>,
}

pub(crate) fn upsert_tool() -> ToolDef {
    tool("channels-menus-upsert", Module::Channels, ToolClass::Mutation)
        .describe(
            "Create a menu with this name, or rename the existing one (new_name). data: the menu as persisted; \
state.status created, updated or unchanged. Items: channels-menu-items-manage.",
        )
        .data(menu_schema())
        .resource()
        .state()
        .handle(upsert)
}

async fn upsert(call: Call, args: UpsertArgs) -> ToolResult {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let name = args.name.trim();
    let path = menus_path(&site);
    let (object, status, sent) = match menu_named(client, &site, name).await? {
        Some(row) => {
            let id = id_of(&row, "menu")?;
            match &args.new_name {
                Some(new_name) if new_name != name => {
                    let sent = json!({"name": new_name});
                    let target = format!("{path}/{id}");
                    let object = write(client, Method::PUT, &target, Some(&sent), |_| {
                        target.clone()
                    })
                    .await?;
                    (object, "updated", sent)
                }
                _ => (read_menu(client, &site, id).await?, "unchanged", json!({})),
            }
        }
        None => {
            let sent = json!({"name": args.new_name.as_deref().unwrap_or(name)});
            let object = write(client, Method::POST, &path, Some(&sent), |r| {
                format!("{path}/{}", r.get("id").cloned().unwrap_or_default())
            })
            .await?;
            (object, "created", sent)
        }
    };
    check_persisted("menu", &object, &sent)?;
    let resource = menu_resource(&object);
    let message = match status {
        "created" => "Menu created successfully",
        "updated" => "Menu updated successfully",
        _ => "Menu already up to date",
    };
    Ok(written(
        call.mode, object, resource, status, "menu", message,
    ))
}

/// Arguments of `channels-menus-copy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CopyArgs {
    /// Site id, host, uuid or name of the source menu.
    site: Ident,
    /// Source menu id or exact name.
    menu: Ident,
    /// Target site id, host, uuid or name (default: the same site).
    target_site: Option<Ident>,
    /// Name of the copy (default: the source's; needed within one site).
    name: Option<String>,
}

/// Item attributes a copy carries over.
const ITEM_COPIED: [&str; 6] = [
    "label",
    "url",
    "position",
    "target",
    "classes",
    "description",
];

pub(crate) fn copy_tool() -> ToolDef {
    tool("channels-menus-copy", Module::Channels, ToolClass::Mutation)
        .describe(
            "Copy a menu with its whole item tree, within a site or to another site. data: the copy as persisted \
(re-read); state.affected: items created.",
        )
        .data(menu_schema())
        .resource()
        .state()
        .handle(copy)
}

async fn copy(call: Call, args: CopyArgs) -> ToolResult {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let found = resolve_menu(client, &site, &args.menu).await?;
    let source = read_menu(client, &site, found.id).await?;
    let target = match &args.target_site {
        Some(t) => resolve_site(client, t, Need::Id).await?,
        None => site.clone(),
    };
    let name = args
        .name
        .clone()
        .or_else(|| {
            source
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!("menu {} has no name to copy; pass name", found.id),
            )
        })?;
    let path = menus_path(&target);
    let created = client
        .send(
            Method::POST,
            &path,
            &Query::new(),
            Some(&json!({"name": name})),
        )
        .await?;
    let copy_id = id_of(&created, "menu")?;
    let items_path = format!("{path}/{copy_id}/items");
    // Breadth first, parents before children, each child under its parent's new id.
    let mut queue: std::collections::VecDeque<(&Value, Option<u64>)> = source
        .get("items")
        .and_then(Value::as_array)
        .map(|items| items.iter().map(|i| (i, None)).collect())
        .unwrap_or_default();
    let mut created_items = 0;
    while let Some((item, parent)) = queue.pop_front() {
        let mut sent: serde_json::Map<String, Value> = ITEM_COPIED
            .iter()
            .filter_map(|k| {
                item.get(*k)
                    .filter(|v| !v.is_null())
                    .map(|v| ((*k).to_owned(), v.clone()))
            })
            .collect();
        if let Some(parent) = parent {
            sent.insert("parent_id".into(), Value::from(parent));
        }
        let response = client
            .send(Method::POST, &items_path, &Query::new(), Some(&Value::Object(sent)))
            .await
            .map_err(|e| {
                ToolError::from(e).context(format!(
                    "menu {copy_id} was created in site {} with {created_items} item(s), then copying an item failed",
                    target.id
                ))
            })?;
        created_items += 1;
        let new_id = id_of(&response, "menu item")?;
        if let Some(children) = item.get("child_items").and_then(Value::as_array) {
            queue.extend(children.iter().map(|c| (c, Some(new_id))));
        }
    }
    // The copy as persisted, with the items it now has (C7).
    let object = read_menu(client, &target, copy_id).await?;
    check_persisted("menu copy", &object, &json!({"name": name}))?;
    let resource = menu_resource(&object);
    let state = PostCondition::status("created").affected(created_items);
    let legacy_object = object.clone();
    Ok(Reply::new(object)
        .resource(resource)
        .state(state)
        .legacy(call.mode, || {
            legacy::write("created", "Menu copied successfully", "menu", legacy_object)
        })
        .into())
}

const DELETE: &str = "channels-menus-delete";

/// Arguments of `channels-menus-delete`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct DeleteArgs {
    /// Site id, host, uuid or name.
    site: Ident,
    /// Menu id or exact name.
    menu: Ident,
    /// Must be true.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

pub(crate) fn delete_tool() -> ToolDef {
    tool(DELETE, Module::Channels, ToolClass::Mutation)
        .describe(
            "Delete a menu and its items (confirmDelete: true). data: null; state.status deleted.",
        )
        .data(json!({"type": ["null"]}))
        .resource()
        .state()
        .control()
        .handle(delete)
}

async fn delete(call: Call, args: DeleteArgs) -> ToolResult {
    let client = call.client()?;
    let site = resolve_site(client, &args.site, Need::Id).await?;
    let found = resolve_menu(client, &site, &args.menu).await?;
    if args.confirm_delete != Some(true) {
        return Ok(unconfirmed(DELETE, "delete"));
    }
    let resource = match &found.row {
        Some(row) => menu_resource(row),
        None => menu_resource(&read_menu(client, &site, found.id).await?),
    };
    client
        .send(
            Method::DELETE,
            &format!("{}/{}", menus_path(&site), found.id),
            &Query::new(),
            None,
        )
        .await?;
    Ok(deleted(
        call.mode,
        resource,
        "deleted",
        "Menu permanently deleted",
        "menuId",
        found.id,
    ))
}

const ITEMS: &str = "channels-menu-items-manage";

/// Actions of `channels-menu-items-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    List,
    Get,
    Create,
    Update,
    Delete,
    Move,
}

/// Arguments of `channels-menu-items-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ItemsArgs {
    /// list (menus with their item trees), get (default: one menu's tree), create, update, delete or move.
    action: Option<Action>,
    /// Site id, host, uuid or name.
    site: Ident,
    /// Menu id or exact name (every action but list).
    menu: Option<Ident>,
    /// Menu item id (update, delete, move).
    item_id: Option<u64>,
    #[serde(flatten)]
    paging: Paging,
    /// Label (create, update).
    label: Option<String>,
    /// URL (create, update).
    url: Option<String>,
    /// Link target, such as _blank (create, update).
    target: Option<String>,
    /// CSS classes (create, update).
    classes: Option<String>,
    /// Description (create, update).
    description: Option<String>,
    /// Parent item id (create, move).
    parent_id: Option<u64>,
    /// Zero-based position among its siblings (create, move).
    position: Option<u32>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

fn items_schema() -> Value {
    let mut keys = menu_keys();
    keys.extend(
        item_keys()
            .into_iter()
            .filter(|(k, _)| !menu_keys().iter().any(|(m, _)| m == k)),
    );
    let mut data = schema::echo(&keys);
    data["properties"]["menus"] = schema::array(menu_schema());
    data
}

pub(crate) fn items_manage_tool() -> ToolDef {
    tool(ITEMS, Module::Channels, ToolClass::Gated)
        .describe(
            "Read a site's menus with their item trees, and write menu items. list: data.menus (each with items) + \
coverage; get (default): one menu with its tree; create/update/move: the item as persisted; delete (confirmDelete: \
true): data null.",
        )
        .data(items_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["create", "update", "delete", "move"])
        .handle(items)
}

/// Menu trees read at once when a list page lacks them.
const TREE_READS: usize = 4;

async fn items(call: Call, args: ItemsArgs) -> ToolResult {
    let writes = any_given(&[
        args.label.is_some(),
        args.url.is_some(),
        args.target.is_some(),
        args.classes.is_some(),
        args.description.is_some(),
        args.parent_id.is_some(),
        args.position.is_some(),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if writes => {
            return Err(CallError::Arguments(
                "action is required when item fields are given (create, update or move)".into(),
            ));
        }
        None => Action::Get,
    };
    let client = call.client()?;
    let verb = format!("{action:?}").to_lowercase();
    let menu_arg = || {
        args.menu
            .as_deref()
            .ok_or_else(|| CallError::Arguments(format!("{verb} needs menu (id or name)")))
    };
    let item_id = || {
        args.item_id
            .ok_or_else(|| CallError::Arguments(format!("{verb} needs item_id")))
    };
    match action {
        Action::List => {
            let site = resolve_site(client, &args.site, Need::Object).await?;
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            let page = client.list(&menus_path(&site), "menus", &query).await?;
            let coverage = crate::contract::Coverage::page(page.items.len(), page.meta.as_ref());
            let reads: Vec<_> = page
                .items
                .iter()
                .map(|row| {
                    let client = client.clone();
                    let site = site.clone();
                    let row = row.clone();
                    async move {
                        if row.get("items").is_some_and(Value::is_array) {
                            return Ok(row);
                        }
                        read_menu(&client, &site, id_of(&row, "menu")?).await
                    }
                })
                .collect();
            let menus: Vec<Value> = stream::iter(reads)
                .buffered(TREE_READS)
                .try_collect::<Vec<Value>>()
                .await?;
            let legacy_menus = Value::Array(menus.clone());
            let raw_meta = page.raw_meta;
            Ok(Reply::new(json!({"menus": menus}))
                .resource(site.resource())
                .state(coverage)
                .legacy(call.mode, || {
                    legacy::list("menus", legacy_menus, raw_meta.as_ref())
                })
                .into())
        }
        Action::Get => {
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let found = resolve_menu(client, &site, menu_arg()?).await?;
            let object = read_menu(client, &site, found.id).await?;
            let resource = menu_resource(&object);
            Ok(object_reply(call.mode, object, resource))
        }
        Action::Create | Action::Update | Action::Move => {
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let found = resolve_menu(client, &site, menu_arg()?).await?;
            let items_path = format!("{}/{}/items", menus_path(&site), found.id);
            let (method, target, sent, status, message) = match action {
                Action::Create => {
                    let (Some(label), Some(url)) = (&args.label, &args.url) else {
                        return Err(CallError::Arguments("create needs label and url".into()));
                    };
                    let sent = body(vec![
                        ("label", Some(Value::from(label.clone()))),
                        ("url", Some(Value::from(url.clone()))),
                        ("target", args.target.clone().map(Value::from)),
                        ("classes", args.classes.clone().map(Value::from)),
                        ("description", args.description.clone().map(Value::from)),
                        ("parent_id", args.parent_id.map(Value::from)),
                        ("position", args.position.map(Value::from)),
                    ]);
                    (
                        Method::POST,
                        items_path.clone(),
                        sent,
                        "created",
                        "Menu item created successfully",
                    )
                }
                Action::Update => {
                    let id = item_id()?;
                    let sent = body(vec![
                        ("label", args.label.clone().map(Value::from)),
                        ("url", args.url.clone().map(Value::from)),
                        ("target", args.target.clone().map(Value::from)),
                        ("classes", args.classes.clone().map(Value::from)),
                        ("description", args.description.clone().map(Value::from)),
                    ]);
                    if sent.as_object().is_some_and(|m| m.is_empty()) {
                        return Err(CallError::Arguments(
                            "update needs label, url, target, classes or description".into(),
                        ));
                    }
                    (
                        Method::PUT,
                        format!("{items_path}/{id}"),
                        sent,
                        "updated",
                        "Menu item updated successfully",
                    )
                }
                _ => {
                    let id = item_id()?;
                    if args.parent_id.is_none() && args.position.is_none() {
                        return Err(CallError::Arguments(
                            "move needs parent_id or position".into(),
                        ));
                    }
                    let sent = body(vec![
                        ("parent_id", args.parent_id.map(Value::from)),
                        ("position", args.position.map(Value::from)),
                    ]);
                    (
                        Method::PUT,
                        format!("{items_path}/{id}"),
                        sent,
                        "moved",
                        "Menu item moved successfully",
                    )
                }
            };
            let response = client
                .send(method, &target, &Query::new(), Some(&sent))
                .await?;
            let object = if response.is_object() {
                response
            } else {
                // No body: the menu's tree says what was persisted.
                let menu = read_menu(client, &site, found.id).await?;
                match args.item_id.and_then(|id| find_item(&menu, id)) {
                    Some(item) if action != Action::Create => item.clone(),
                    _ => {
                        return Err(ToolError::new(
                            ErrorCode::InvalidUpstreamResponse,
                            format!("{target} answered without the item; read the menu to check what was written"),
                        )
                        .into());
                    }
                }
            };
            check_persisted("menu item", &object, &sent)?;
            let resource = item_resource(&object);
            Ok(written(
                call.mode, object, resource, status, "item", message,
            ))
        }
        Action::Delete => {
            let id = item_id()?;
            if args.confirm_delete != Some(true) {
                return Ok(unconfirmed(ITEMS, "delete"));
            }
            let site = resolve_site(client, &args.site, Need::Id).await?;
            let found = resolve_menu(client, &site, menu_arg()?).await?;
            let menu = read_menu(client, &site, found.id).await?;
            let Some(item) = find_item(&menu, id) else {
                return Err(ToolError::not_found(format!(
                    "menu {} has no item {id}; call channels-menu-items-manage (action get) to see its tree",
                    found.id
                ))
                .into());
            };
            let resource = item_resource(item);
            client
                .send(
                    Method::DELETE,
                    &format!("{}/{}/items/{id}", menus_path(&site), found.id),
                    &Query::new(),
                    None,
                )
                .await?;
            Ok(deleted(
                call.mode,
                resource,
                "deleted",
                "Menu item permanently deleted",
                "itemId",
                id,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_found_at_any_depth() {
        let menu = json!({"items": [
            {"id": 1, "label": "A", "child_items": [{"id": 2, "label": "B", "child_items": []}]},
            {"id": 3, "label": "C"}
        ]});
        assert_eq!(find_item(&menu, 2).unwrap()["label"], "B");
        assert!(find_item(&menu, 9).is_none());
        assert!(find_item(&json!({}), 1).is_none());
    }

    #[test]
    fn an_item_resource_is_named_by_its_label() {
        let r = item_resource(&json!({"id": 4, "label": "Inicio"}));
        assert_eq!(r.name_value(), Some("Inicio"));
    }
}
