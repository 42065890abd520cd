//! Navigation menus: `channels-menus-upsert`, `-copy`, `-delete` write the menu containers;
//! `channels-menu-items-manage` ([`items`]) reads menus (each with its item tree) and writes
//! their items.
//!
//! A menu is addressed by id or by exact name within the site. Its items are part of it: read
//! with the menu and written with a `PUT` of the menu ([`tree`]).

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Site, copy_name};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, PostCondition, ToolClass, ToolError};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::Ident;
use crate::tools::engine::collection::{id_of, parse_id};
use crate::tools::engine::tool::{Call, ToolDef, tool};
use crate::tools::engine::{
    Answer, Collection, Container, Echo, Echoed, Found, Member, Need, Nothing, Rules, body, echoed,
    persist, reply,
};

mod items;
mod tree;

use tree::Tree;

pub(crate) use items::items_manage_tool;

echoed! {
    /// A menu (with its item tree) as the API returns it.
    Menu = "menu" {
        id: i64, uuid: String, name: String, status: String, published: bool, items: List
    }
}

impl Member for Menu {
    const RULES: Rules = Rules::new("menu", "menus")
        .published()
        .hint("call channels-menu-items-manage (action list) to see its menus");
}

/// The one menu named exactly `name`: `Ok(None)` when none is.
async fn menu_named(
    client: &ModyoClient,
    menus: &Collection<Menu>,
    name: &str,
) -> Result<Option<Value>, ToolError> {
    let (rows, _) = walk(client, &menus.path, "menus", &Query::new()).await?;
    match pick("menu", name, &rows, &[Stage::exact("name", "name", name)]) {
        Ok(row) => Ok(Some(row.clone())),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Resolves a menu by id, or by exact name within the site (its list row kept).
async fn resolve_menu(
    client: &ModyoClient,
    menus: &Collection<Menu>,
    input: &str,
) -> Result<Found, ToolError> {
    let input = input.trim();
    if is_id(input) {
        let id = parse_id(input, "menu")?;
        return Ok(Found { id, object: None });
    }
    match menu_named(client, menus, input).await? {
        Some(row) => Ok(Found {
            id: id_of(&row, "menu")?,
            object: Some(row),
        }),
        None => Err(ToolError::not_found(format!(
            "{} has no menu named '{input}'; call channels-menu-items-manage (action list) to see its menus",
            menus.place()
        ))),
    }
}

/// The body of a menu write: its name (a menu's only key of its own).
#[derive(Serialize)]
struct MenuBody<'a> {
    name: &'a str,
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
        .resource()
        .state()
        .handle(upsert)
        .writes_state(RareState::PUBLISHED)
}

async fn upsert(call: Call, args: UpsertArgs) -> Answer<Echo<Menu>> {
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Id).await?;
    let menus = site.collection::<Menu>();
    let name = args.name.trim();
    let (object, status, sent) = match menu_named(client, &menus, name).await? {
        Some(row) => {
            let id = id_of(&row, "menu")?;
            match &args.new_name {
                Some(new_name) if new_name != name => {
                    let sent = body(MenuBody { name: new_name });
                    let path = menus.item(id);
                    let object =
                        persist::write(client, Method::PUT, &path, Some(&sent), &path).await?;
                    (object, "updated", sent)
                }
                _ => (
                    menus.fetch(client, id).await?,
                    "unchanged",
                    Value::Object(Map::new()),
                ),
            }
        }
        None => {
            let sent = body(MenuBody {
                name: args.new_name.as_deref().unwrap_or(name),
            });
            let object = persist::create(client, &menus.path, &sent, Menu::NAME).await?;
            (object, "created", sent)
        }
    };
    persist::check_sent(Menu::NAME, &object, &sent)?;
    let resource = menus.resource(&object, None);
    let message = match status {
        "created" => "Menu created successfully",
        "updated" => "Menu updated successfully",
        _ => "Menu already up to date",
    };
    let post = reply::post::<Menu>(status, &object);
    Ok(reply::saved_as::<Menu, _>(object, resource, post, status, message).into())
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

pub(crate) fn copy_tool() -> ToolDef {
    tool("channels-menus-copy", Module::Channels, ToolClass::Mutation)
        .describe(
            "Copy a menu with its item tree (two levels: top-level items and their children), within a site or to \
another site: the menu is created, then its tree written with a PUT of the new menu (Modyo has no item endpoint). \
data: the copy as persisted; state.affected: items written.",
        )
        .resource()
        .state()
        .handle(copy)
        .writes_state(RareState::AFFECTED.union(RareState::PUBLISHED))
}

async fn copy(call: Call, args: CopyArgs) -> Answer<Echo<Menu>> {
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Id).await?;
    let menus = site.collection::<Menu>();
    let found = resolve_menu(client, &menus, &args.menu).await?;
    let source = menus.fetch(client, found.id).await?;
    let target = Site::target(client, args.target_site.as_deref(), &site).await?;
    let name = copy_name(args.name.as_deref(), &source, &format!("menu {}", found.id))?;
    // Refused before anything is created when the source cannot be written back whole.
    let tree = Tree::of(&source, &format!("menu {}", found.id))?.copied();
    let copies = target.collection::<Menu>();
    let sent = body(MenuBody { name: &name });
    let created = persist::create(client, &copies.path, &sent, Menu::NAME).await?;
    let copy_id = id_of(&created, "menu")?;
    let path = copies.item(copy_id);
    // The copy as persisted, with the items it now has (C7): the answer of the write.
    let object = if tree.len() == 0 {
        created
    } else {
        persist::write(client, Method::PUT, &path, Some(&tree.body()), &path)
            .await
            .map_err(|e| {
                e.context(format!(
                    "menu {copy_id} was created in site {} without items, then writing its item tree failed",
                    target.id
                ))
            })?
    };
    persist::check_sent("menu copy", &object, &sent)?;
    let resource = copies.resource(&object, None);
    let post = PostCondition::status("created").affected(tree.len());
    let message = "Menu copied successfully";
    Ok(reply::saved_as::<Menu, _>(object, resource, post, "created", message).into())
}

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
    tool(
        "channels-menus-delete",
        Module::Channels,
        ToolClass::Mutation,
    )
    .describe(
        "Delete a menu and its items (confirmDelete: true). data: null; state.status deleted.",
    )
    .resource()
    .state()
    .control()
    .handle(delete)
}

async fn delete(call: Call, args: DeleteArgs) -> Answer<Nothing> {
    if args.confirm_delete != Some(true) {
        let control =
            crate::contract::Control::cancelled_unconfirmed("channels-menus-delete", "delete");
        return Ok(control.into());
    }
    let client = call.client()?;
    let site = Site::resolve(client, &args.site, Need::Id).await?;
    let menus = site.collection::<Menu>();
    let found = resolve_menu(client, &menus, &args.menu).await?;
    let object = match found.object {
        Some(row) => row,
        None => menus.fetch(client, found.id).await?,
    };
    let resource = menus.resource(&object, None);
    client
        .send(Method::DELETE, &menus.item(found.id), &Query::new(), None)
        .await?;
    let message = "Menu permanently deleted";
    Ok(reply::gone::<Menu, _>(resource, found.id, "deleted", message).into())
}
