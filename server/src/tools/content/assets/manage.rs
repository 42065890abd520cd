//! `content-assets-manage`: list, get, upload, update or delete assets of the account's
//! library, declared on the engine ([`crate::tools::engine::manage`]).
//!
//! `list` (with the documented filters), `get` and the confirmation of `delete` are the
//! engine's; an asset is named by id, uuid or exact file name ([`resolve`]). `upload` and
//! `update` send the documented multipart forms and answer the asset read back (C7).

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    ASSETS, AssetObject, FileSpec, Filters, Metadata, asset_id, asset_path, resolve, resolve_id,
    update_and_read, upload,
};
use crate::config::Module;
use crate::contract::Legacy;
use crate::modyo::Query;
use crate::modyo::resolve::is_id;
use crate::tools::args::{Ident, Paging};
use crate::tools::content::Confirm;
use crate::tools::engine::collection::id_of;
use crate::tools::engine::tool::{Call, CallError, ToolDef};
use crate::tools::engine::{
    self, Action, Answer, Ctx, Found, Given, Managed, Scope, Verb, at, command, manage, reply,
    standard,
};

/// Arguments of `content-assets-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), upload, update or delete.
    action: Option<Action>,
    /// Asset id, uuid or exact file name (get, update, delete).
    asset: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// list: keywords, searched in the file name and the author's name.
    query: Option<String>,
    /// list: only files with these extensions (e.g. jpg, pdf).
    extensions: Option<Vec<String>>,
    /// Local path of the file to upload (upload).
    file: Option<String>,
    /// Title (upload, update).
    title: Option<String>,
    /// Alternative text (upload, update).
    alt_text: Option<String>,
    /// Description (upload, update).
    description: Option<String>,
    /// Tags to set (upload, update); list: only assets carrying them.
    tags: Option<Vec<String>>,
    #[serde(flatten)]
    confirm: Confirm,
}

command! {
    /// What `content-assets-manage` can be asked.
    enum AssetCommand for ManageArgs {
        List => Verb::list(),
        Get { asset: Ident } => Verb::read("get"),
        Upload { file: String } => Verb::write("upload"),
        Update { asset: Ident } => Verb::write("update").changes(),
        Delete { asset: Ident } => Verb::write("delete").confirmed(),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, AssetObject, AssetCommand>("content-assets-manage", Module::Content, at(ASSETS))
        .describe(
            "List, get, upload, update or delete assets of the account's library (Modyo keeps assets per account, \
not per space). list (query, tags, extensions): data.assets + coverage; get/upload/update: data is the asset \
read back (the API normalizes file names); upload reads the local file `file`, then sets title/alt_text/\
description/tags with an update; update cannot clear tags; delete (confirmDelete: true): data null, \
state.status deleted.",
        )
        .target("asset", "id, uuid or file name")
        .fields(&["title", "alt_text", "description", "tags"])
        .mutating(&["file"])
        .resolve(find)
        .run(run)
}

/// Runs one command of `content-assets-manage`.
async fn run(ctx: Ctx<ManageArgs, AssetObject, AssetCommand>) -> Answer<Managed<AssetObject>> {
    match &ctx.command {
        AssetCommand::List => standard::list(&ctx, filters(&ctx.args)).await,
        AssetCommand::Get { .. } => standard::get(&ctx).await,
        AssetCommand::Upload { .. } => upload_file(ctx).await,
        AssetCommand::Update { .. } => update(ctx).await,
        AssetCommand::Delete { .. } => delete(ctx).await,
    }
}

type Assets = Ctx<ManageArgs, AssetObject, AssetCommand>;

/// The documented list filters (the engine adds the paging).
fn filters(args: &ManageArgs) -> Query {
    let filters = Filters {
        query: args.query.clone(),
        tags: args.tags.clone(),
        extensions: args.extensions.clone(),
    };
    filters.query()
}

/// An asset by id (read only when the action needs the object), uuid or exact file name.
async fn find(
    call: Call,
    given: Given,
    _: Scope<AssetObject>,
    need: engine::Need,
) -> Result<Found, CallError> {
    let input = given.text("asset").unwrap_or_default();
    let input = input.trim();
    if need == engine::Need::Id && is_id(input) {
        let id = engine::collection::parse_id(input, "asset")?;
        return Ok(Found { id, object: None });
    }
    let object = resolve(call.client()?, input).await?;
    Ok(Found {
        id: id_of(&object, "asset")?,
        object: Some(object),
    })
}

/// The metadata given (upload, update).
fn metadata(args: &ManageArgs) -> Metadata {
    Metadata {
        title: args.title.clone(),
        alt_text: args.alt_text.clone(),
        description: args.description.clone(),
        tags: args.tags.clone(),
    }
}

async fn upload_file(ctx: Assets) -> Answer<Managed<AssetObject>> {
    let metadata = metadata(&ctx.args);
    let spec = FileSpec {
        path: ctx.args.file.clone().unwrap_or_default(),
        title: metadata.title,
        alt_text: metadata.alt_text,
        description: metadata.description,
        tags: metadata.tags,
    };
    let object = upload(ctx.client()?, &ctx.call.app.config.upload_roots, &spec).await?;
    written(&ctx, object, "created", "Asset uploaded successfully")
}

async fn update(ctx: Assets) -> Answer<Managed<AssetObject>> {
    let client = ctx.client()?;
    let id = resolve_id(client, &ctx.target()?).await?;
    let object = update_and_read(client, &id, &metadata(&ctx.args)).await?;
    written(&ctx, object, "updated", "Asset updated successfully")
}

/// `DELETE` the asset; the old payload named its id as the text it was in the path.
async fn delete(ctx: Assets) -> Answer<Managed<AssetObject>> {
    let object = resolve(ctx.client()?, &ctx.target()?).await?;
    let id = asset_id(&object);
    ctx.client()?
        .send(Method::DELETE, &asset_path(&id), &Query::new(), None)
        .await?;
    let old = Legacy::gone("deleted", "Asset permanently deleted", "assetId", id);
    Ok(reply::gone_as(ctx.coll.resource(&object, None), "deleted", old).into())
}

fn written(
    ctx: &Assets,
    object: Value,
    status: &str,
    message: &str,
) -> Answer<Managed<AssetObject>> {
    let resource = ctx.coll.resource(&object, None);
    let post = reply::post::<AssetObject>(status, &object);
    Ok(reply::saved_as::<AssetObject, _>(object, resource, post, status, message).into())
}
