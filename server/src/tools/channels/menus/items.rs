//! `channels-menu-items-manage`: a site's menus read with their item trees, and their items
//! written (create, update, move, delete).

use futures::{StreamExt, TryStreamExt, stream};
use reqwest::Method;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::super::in_site;
use super::{Menu, resolve_menu};
use crate::config::Module;
use crate::contract::{ErrorCode, Legacy, Resource, ToolError};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::collection::id_of;
use crate::tools::engine::reply::{self, Object};
use crate::tools::engine::{
    Action, Answer, Ctx, Data, Echo, Found, Given, Managed, Need, Scope, echoed, manage_as, persist,
};
use crate::tools::{Call, CallError, ToolDef};

echoed! {
    /// A menu with its item tree, or one menu item, as the API returns them: the `data` of
    /// every action but `list`, one loose object (C15).
    MenuOrItem = "menu" {
        id: i64, uuid: String, name: String, site_id: i64, status: String, published: bool,
        items: List, created_at: String, updated_at: String, label: String, url: String,
        position: i64, target: String, classes: String, description: String, parent_id: i64,
        menu_id: i64, child_items: List
    }
}

/// The `data` of `channels-menu-items-manage`: a menu (with its tree) or an item, or the
/// listed menus.
pub(crate) struct MenuData(Managed<Menu>);

impl From<Managed<Menu>> for MenuData {
    fn from(managed: Managed<Menu>) -> MenuData {
        MenuData(managed)
    }
}

impl Object for MenuData {
    fn object(object: Value) -> Self {
        MenuData(Managed::one(object))
    }
}

impl Serialize for MenuData {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl JsonSchema for MenuData {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "MenuData".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = MenuOrItem::json_schema(generator);
        let menus = Echo::<Menu>::json_schema(generator);
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            let list = serde_json::json!({"type": "array", "items": menus});
            properties.insert("menus".into(), list);
        }
        schema
    }

    fn inline_schema() -> bool {
        true
    }
}

impl Data for MenuData {
    fn echoed() -> Option<String> {
        Some(
            "C15 multi-action root: the API's menu (with its item tree) or menu item as persisted, or the listed menus"
                .into(),
        )
    }
}

/// Arguments of `channels-menu-items-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
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

pub(crate) fn items_manage_tool() -> ToolDef {
    manage_as::<ItemsArgs, Menu, MenuData>(
        "channels-menu-items-manage",
        Module::Channels,
        in_site(),
    )
    .describe(
        "Read a site's menus with their item trees, and write menu items. list: data.menus (each with items) + \
coverage; get (default): one menu with its tree; create/update/move: the item as persisted; delete (confirmDelete: \
true): data null.",
    )
    .target("menu", "id or name")
    .resolve(menu)
    .fields(&["label", "url", "target", "classes", "description"])
    .mutating(&["parent_id", "position"])
    .action("list", list)
    .get()
    .action("create", |ctx| write(ctx, Write::Create))
    .on_target()
    .needs(&["label", "url"])
    .action("update", |ctx| write(ctx, Write::Update))
    .on_target()
    .needs(&["item_id"])
    .action("delete", delete)
    .on_target()
    .needs(&["item_id"])
    .confirmed()
    .action("move", |ctx| write(ctx, Write::Move))
    .on_target()
    .needs(&["item_id"])
    .build()
}

type Items = Ctx<ItemsArgs, Menu>;

/// The `menu` argument: by id, or by exact name within the site; its tree read when needed.
async fn menu(
    call: Call,
    given: Given,
    scope: Scope<Menu>,
    need: Need,
) -> Result<Found, CallError> {
    let client = call.client()?;
    let menus = scope.coll;
    let found = resolve_menu(client, &menus, &given.text("menu").unwrap_or_default()).await?;
    let object = match need {
        Need::Id => None,
        Need::Object | Need::Row => Some(menus.fetch(client, found.id).await?),
    };
    Ok(Found {
        id: found.id,
        object,
    })
}

/// Menu trees read at once when a list page lacks them.
const TREE_READS: usize = 4;

async fn list(ctx: Items) -> Answer<MenuData> {
    let client = ctx.client()?;
    let page = ctx.coll.page(client, &ctx.paged(Query::new())).await?;
    let reads: Vec<_> = page
        .items
        .iter()
        .map(|row| {
            let client = client.clone();
            let menus = ctx.coll.clone();
            let row = row.clone();
            async move {
                if row.get("items").is_some_and(Value::is_array) {
                    return Ok(row);
                }
                menus.fetch(&client, id_of(&row, "menu")?).await
            }
        })
        .collect();
    let trees: Vec<Value> = stream::iter(reads)
        .buffered(TREE_READS)
        .try_collect::<Vec<Value>>()
        .await?;
    let page = crate::modyo::ListPage {
        items: trees,
        ..page
    };
    Ok(reply::page(page, ctx.container.clone())
        .map(MenuData)
        .into())
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

/// The item writes: what each sends, and the status it leaves the item in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Write {
    Create,
    Update,
    Move,
}

impl Write {
    fn sent(self, args: &ItemsArgs) -> Result<Value, CallError> {
        let text = |v: &Option<String>| v.clone().map(Value::from);
        let place = [
            ("parent_id", args.parent_id.map(Value::from)),
            ("position", args.position.map(Value::from)),
        ];
        let mut fields = vec![
            ("label", text(&args.label)),
            ("url", text(&args.url)),
            ("target", text(&args.target)),
            ("classes", text(&args.classes)),
            ("description", text(&args.description)),
        ];
        match self {
            Write::Create => fields.extend(place),
            Write::Update => {}
            Write::Move => fields = place.to_vec(),
        }
        let sent = persist::body(fields);
        if self != Write::Create && persist::is_empty(&sent) {
            return Err(CallError::Arguments(match self {
                Write::Move => "move needs parent_id or position".into(),
                _ => "update needs label, url, target, classes or description".into(),
            }));
        }
        Ok(sent)
    }

    fn status(self) -> &'static str {
        match self {
            Write::Create => "created",
            Write::Update => "updated",
            Write::Move => "moved",
        }
    }
}

async fn write(ctx: Items, how: Write) -> Answer<MenuData> {
    let sent = how.sent(&ctx.args)?;
    let client = ctx.client()?;
    let found = ctx.found(Need::Id).await?;
    let items = ctx.coll.item(format!("{}/items", found.id));
    let (method, target) = match (how, ctx.args.item_id) {
        (Write::Create, _) | (_, None) => (Method::POST, items),
        (_, Some(id)) => (Method::PUT, format!("{items}/{id}")),
    };
    let response = client
        .send(method, &target, &Query::new(), Some(&sent))
        .await?;
    let object = if response.is_object() {
        response
    } else {
        // No body: the menu's tree says what was persisted.
        let menu = ctx.coll.fetch(client, found.id).await?;
        match ctx.args.item_id.and_then(|id| find_item(&menu, id)) {
            Some(item) if how != Write::Create => item.clone(),
            _ => {
                return Err(ToolError::new(
                    ErrorCode::InvalidUpstreamResponse,
                    format!("{target} answered without the item; read the menu to check what was written"),
                )
                .into());
            }
        }
    };
    persist::check_sent("menu item", &object, &sent)?;
    let resource = item_resource(&object);
    let status = how.status();
    let post = reply::post::<Menu>(status, &object);
    let old = Legacy::write(status, format!("Menu item {status} successfully"), "item");
    Ok(reply::written::<MenuData>(object, resource, post, old).into())
}

async fn delete(ctx: Items) -> Answer<MenuData> {
    let id = ctx.args.item_id.unwrap_or_default();
    let found = ctx.found(Need::Object).await?;
    let menu = found.object();
    let Some(item) = find_item(&menu, id) else {
        return Err(ToolError::not_found(format!(
            "menu {} has no item {id}; call channels-menu-items-manage (action get) to see its tree",
            found.id
        ))
        .into());
    };
    let resource = item_resource(item);
    ctx.client()?
        .send(
            Method::DELETE,
            &ctx.coll.item(format!("{}/items/{id}", found.id)),
            &Query::new(),
            None,
        )
        .await?;
    let old = Legacy::gone("deleted", "Menu item permanently deleted", "itemId", id);
    Ok(reply::gone_as::<Managed<Menu>>(resource, "deleted", old)
        .map(MenuData)
        .into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
