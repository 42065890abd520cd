//! `channels-menu-items-manage`: a site's menus read with their item trees, and their items
//! written (create, update, move, delete).
//!
//! Modyo documents no endpoint for a single menu item: every write reads the menu, edits its
//! item tree ([`Tree`]) and writes the whole tree back with `PUT .../menus/{id}`, whose answer
//! (the menu) says what was persisted.

use futures::{StreamExt, TryStreamExt, stream};
use reqwest::Method;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::tree::{ItemKeys, MenuKeys, Node, Place, Tree, item_id};
use super::{Menu, resolve_menu};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, Legacy, Resource, ToolError};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::channels::Site;
use crate::tools::engine::collection::id_of;
use crate::tools::engine::reply::{self, Object};
use crate::tools::engine::tool::{Call, CallError, ToolDef};
use crate::tools::engine::{
    Action, Answer, Ctx, Data, Echo, Found, Given, Managed, Need, Scope, Verb, command, echoed,
    manage_as, persist, standard, view, within,
};

echoed! {
    /// A menu with its item tree, or one menu item, as the API returns them: the `data` of
    /// every action but `list`, one loose object (C15).
    MenuOrItem = "menu" {
        id: Value, uuid: String, name: String, status: String, published: bool, items: List,
        label: String
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
    /// Modyo's target_blank (create, update), sent as given: the specification types it as a
    /// string; a get shows the values the menu's items hold.
    target_blank: Option<String>,
    /// CSS classes (create, update).
    classes: Option<String>,
    /// Description (create, update).
    description: Option<String>,
    /// Parent item id (create, move).
    parent_id: Option<u64>,
    /// Zero-based position among its siblings (create, move; default: last).
    position: Option<u32>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

command! {
    /// What `channels-menu-items-manage` can be asked.
    enum ItemCommand for ItemsArgs {
        List => Verb::list(),
        Get { menu: Ident } => Verb::read("get"),
        Create { menu: Ident, label: String, url: String } => Verb::write("create"),
        Update { menu: Ident, item_id: u64 } => Verb::write("update"),
        Delete { menu: Ident, item_id: u64 } => Verb::write("delete").confirmed(),
        Move { menu: Ident, item_id: u64 } => Verb::write("move"),
    }
}

pub(crate) fn items_manage_tool() -> ToolDef {
    manage_as::<ItemsArgs, Menu, ItemCommand, MenuData>(
        "channels-menu-items-manage",
        Module::Channels,
        within::<Site, _>(),
    )
    .describe(
        "Read a site's menus with their item trees, and write menu items. list: data.menus (each with items) + \
coverage; get (default): one menu with its tree. Modyo has no item endpoint: create/update/move/delete read the menu, \
edit its tree and write the whole menu back (PUT of the menu); two levels only (top-level items and their \
children: a parent_id must be a top-level item). create/update/move: the item as persisted; delete \
(confirmDelete: true; removes the item's children too): data null.",
    )
    .target("menu", "id or name")
    .resolve(menu)
    .fields(&["label", "url", "target_blank", "classes", "description"])
    .mutating(&["parent_id", "position"])
    .run(run)
    .writes_state(RareState::PAGED)
}

/// Runs one command of `channels-menu-items-manage`.
async fn run(ctx: Ctx<ItemsArgs, Menu, ItemCommand>) -> Answer<MenuData> {
    match &ctx.command {
        ItemCommand::List => list(ctx).await,
        ItemCommand::Get { .. } => standard::get(&ctx).await,
        ItemCommand::Create { .. } => write(ctx, Write::Create).await,
        ItemCommand::Update { .. } => write(ctx, Write::Update).await,
        ItemCommand::Delete { .. } => delete(ctx).await,
        ItemCommand::Move { .. } => write(ctx, Write::Move).await,
    }
}

type Items = Ctx<ItemsArgs, Menu, ItemCommand>;

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
                if view::<MenuKeys>(&row).items.is_some() {
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

fn item_resource(object: &Value) -> Resource {
    let resource = Resource::from_object("menu_item", object, None);
    let keys: ItemKeys = view(object);
    match keys
        .label
        .as_ref()
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
    /// The item keys the call sets (create, update); empty for a move.
    fn fields(self, args: &ItemsArgs) -> Result<Map<String, Value>, CallError> {
        let text = |v: &Option<String>| v.clone().map(Value::from);
        let fields = persist::body(vec![
            ("label", text(&args.label)),
            ("url", text(&args.url)),
            ("target_blank", text(&args.target_blank)),
            ("classes", text(&args.classes)),
            ("description", text(&args.description)),
        ]);
        let Value::Object(fields) = fields else {
            return Ok(Map::new());
        };
        match self {
            Write::Move if args.parent_id.is_none() && args.position.is_none() => Err(
                CallError::Arguments("move needs parent_id or position".into()),
            ),
            Write::Move => Ok(Map::new()),
            Write::Update if fields.is_empty() => Err(CallError::Arguments(
                "update needs label, url, target_blank, classes or description".into(),
            )),
            _ => Ok(fields),
        }
    }

    fn status(self) -> &'static str {
        match self {
            Write::Create => "created",
            Write::Update => "updated",
            Write::Move => "moved",
        }
    }
}

/// The menu read whole, and its item tree.
async fn read_tree(ctx: &Items) -> Result<(Found, Tree, String), CallError> {
    let found = ctx.found(Need::Object).await?;
    let label = format!("menu {}", found.id);
    let tree = Tree::of(&found.object(), &label)?;
    Ok((found, tree, label))
}

fn no_item(label: &str, id: u64) -> ToolError {
    ToolError::not_found(format!(
        "{label} has no item {id}; call channels-menu-items-manage (action get) to see its tree"
    ))
}

/// Writes the edited tree back (`PUT` of the menu): the menu as persisted.
async fn put_tree(ctx: &Items, found: &Found, tree: &Tree) -> Result<Value, CallError> {
    let path = ctx.coll.item(found.id);
    Ok(
        persist::write(ctx.client()?, Method::PUT, &path, Some(&tree.body()), &path)
            .await
            .map_err(ctx.coll.missing(found.id))?,
    )
}

/// The items of a persisted menu, however nested.
fn persisted_items(menu: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let mut stack = view::<MenuKeys>(menu).items.unwrap_or_default();
    while let Some(item) = stack.pop() {
        if let Some(children) = view::<ItemKeys>(&item).children {
            stack.extend(children);
        }
        out.push(item);
    }
    out
}

async fn write(ctx: Items, how: Write) -> Answer<MenuData> {
    let fields = how.fields(&ctx.args)?;
    let (found, mut tree, label) = read_tree(&ctx).await?;
    let parent = ctx.args.parent_id.map(|p| p.to_string());
    let position = ctx.args.position.map(|p| p as usize);
    let before = tree.ids();
    let wanted = match (how, ctx.args.item_id) {
        (Write::Create, _) => {
            tree.insert(
                Node::new(fields.clone()),
                parent.as_deref(),
                position,
                &label,
            )?;
            None
        }
        (_, Some(id)) => {
            let place = tree
                .find(&id.to_string())
                .ok_or_else(|| no_item(&label, id))?;
            match how {
                Write::Update => tree.node_mut(place).item.extend(fields.clone()),
                _ => {
                    let parent = match (&parent, place) {
                        (Some(parent), _) => Some(parent.clone()),
                        (None, Place::Top(_)) => None,
                        (None, Place::Child(i, _)) => tree.items[i].id(),
                    };
                    if parent.as_deref() == Some(id.to_string().as_str()) {
                        return Err(CallError::Arguments(
                            "an item cannot be moved under itself".into(),
                        ));
                    }
                    let node = tree.remove(place);
                    tree.insert(node, parent.as_deref(), position, &label)?;
                }
            }
            Some(id.to_string())
        }
        (_, None) => {
            return Err(CallError::Arguments(format!(
                "{} needs item_id",
                how.status()
            )));
        }
    };
    let menu = put_tree(&ctx, &found, &tree).await?;
    let items = persisted_items(&menu);
    let item = match &wanted {
        Some(id) => items
            .into_iter()
            .find(|i| item_id(i).as_deref() == Some(id.as_str())),
        None => {
            let label = ctx.args.label.as_deref().map(Value::from);
            let mut new: Vec<Value> = items
                .into_iter()
                .filter(|i| item_id(i).is_none_or(|id| !before.contains(&id)))
                .filter(|i| view::<ItemKeys>(i).label == label)
                .collect();
            (new.len() == 1).then(|| new.remove(0))
        }
    };
    let Some(object) = item else {
        return Err(ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!(
                "{label} was written, but its answer does not show the item; read the menu (action get) to check what was persisted"
            ),
        )
        .into());
    };
    persist::check_sent("menu item", &object, &Value::Object(fields))?;
    let resource = item_resource(&object);
    let status = how.status();
    let post = reply::post::<Menu>(status, &object);
    let old = Legacy::write(status, format!("Menu item {status} successfully"), "item");
    Ok(reply::written::<MenuData>(object, resource, post, old).into())
}

async fn delete(ctx: Items) -> Answer<MenuData> {
    let id = ctx.args.item_id.unwrap_or_default();
    let (found, mut tree, label) = read_tree(&ctx).await?;
    let place = tree
        .find(&id.to_string())
        .ok_or_else(|| no_item(&label, id))?;
    let removed = tree.remove(place);
    let resource = item_resource(&Value::Object(removed.item));
    let menu = put_tree(&ctx, &found, &tree).await?;
    if persisted_items(&menu)
        .iter()
        .any(|i| item_id(i) == Some(id.to_string()))
    {
        return Err(ToolError::new(
            ErrorCode::PersistedMismatch,
            format!("{label} was written without item {id}, but its answer still has it; read the menu to check"),
        )
        .into());
    }
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
    fn an_item_resource_is_named_by_its_label() {
        let r = item_resource(&json!({"id": 4, "label": "Inicio"}));
        assert_eq!(r.name_value(), Some("Inicio"));
    }
}
