//! `content-assets-manage`: list, get, upload, update or delete assets of the account's
//! library.
//!
//! [`manage`] decides what is decided locally (which action, the confirmation of a delete)
//! before any request, then runs the action; an upload or an update answers the asset read
//! back (C7).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    FileSpec, Filters, Metadata, asset_path, asset_schema, get_reply, list_page, resolve,
    resolve_id, update_and_read, upload,
};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{PostCondition, Reply, Resource, ToolClass, legacy, schema};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::content::{id_key, unconfirmed};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

/// Actions of `content-assets-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    List,
    Get,
    Upload,
    Update,
    Delete,
}

/// Arguments of `content-assets-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
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
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
    /// Accepted for compatibility; writes are always read back.
    verify: Option<bool>,
}

fn manage_schema() -> Value {
    let mut data = asset_schema();
    data["properties"]["assets"] = schema::array(asset_schema());
    data
}

pub(crate) fn manage_tool() -> ToolDef {
    tool("content-assets-manage", Module::Content, ToolClass::Gated)
        .describe(
            "List, get, upload, update or delete assets of the account's library (Modyo keeps assets per account, \
not per space). list (query, tags, extensions): data.assets + coverage; get/upload/update: data is the asset \
read back (the API normalizes file names); upload reads the local file `file`, then sets title/alt_text/\
description/tags with an update; update cannot clear tags; delete (confirmDelete: true): data null, \
state.status deleted.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["upload", "update", "delete"])
        .handle(manage)
        .writes_state(RareState::PAGED)
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let writes = any_given(&[
        args.file.is_some(),
        args.title.is_some(),
        args.alt_text.is_some(),
        args.description.is_some(),
        args.tags.is_some(),
    ]);
    let action = match args.action {
        Some(action) => action,
        None if writes => {
            return Err(CallError::Arguments(
                "action is required when file, title, alt_text, description or tags are given (list, upload or update)".into(),
            ));
        }
        None => Action::Get,
    };
    let _ = args.verify;
    if action == Action::Delete && args.confirm_delete != Some(true) {
        return Ok(unconfirmed("content-assets-manage", "delete"));
    }
    let client = call.client()?;
    match action {
        Action::List => list(&call, client, &args).await,
        Action::Get => {
            let object = resolve(client, asset_arg(&args, action)?).await?;
            get_reply(&call, object)
        }
        Action::Upload => upload_file(&call, client, &args).await,
        Action::Update => update(&call, client, &args).await,
        Action::Delete => delete(&call, client, &args).await,
    }
}

/// The `asset` argument an action needs, or the argument error that names it.
fn asset_arg(args: &ManageArgs, action: Action) -> Result<&str, CallError> {
    args.asset.as_deref().ok_or_else(|| {
        CallError::Arguments(
            format!("{action:?} needs asset (id, uuid or file name)").to_lowercase(),
        )
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

async fn list(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let filters = Filters {
        query: args.query.clone(),
        tags: args.tags.clone(),
        extensions: args.extensions.clone(),
    };
    let (items, coverage, raw_meta) = list_page(client, &args.paging, &filters).await?;
    let legacy_items = items.clone();
    Ok(Reply::new(json!({"assets": items}))
        .state(coverage)
        .legacy(call.mode, || {
            legacy::list("assets", legacy_items, raw_meta.as_ref())
        })
        .into())
}

async fn upload_file(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let Some(file) = args.file.clone() else {
        return Err(CallError::Arguments(
            "upload needs file (a local path)".into(),
        ));
    };
    let metadata = metadata(args);
    let spec = FileSpec {
        path: file,
        title: metadata.title,
        alt_text: metadata.alt_text,
        description: metadata.description,
        tags: metadata.tags,
    };
    let object = upload(client, &spec).await?;
    write_reply(call, object, "created", "Asset uploaded successfully")
}

async fn update(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let metadata = metadata(args);
    if metadata.form()?.is_none() {
        return Err(CallError::Arguments(
            "update needs at least one of title, alt_text, description, tags".into(),
        ));
    }
    let id = resolve_id(client, asset_arg(args, Action::Update)?).await?;
    let object = update_and_read(client, &id, &metadata).await?;
    write_reply(call, object, "updated", "Asset updated successfully")
}

async fn delete(call: &Call, client: &ModyoClient, args: &ManageArgs) -> ToolResult {
    let object = resolve(client, asset_arg(args, Action::Delete)?).await?;
    let id = id_key(object.get("id").unwrap_or(&Value::Null));
    client
        .send(Method::DELETE, &asset_path(&id), &Query::new(), None)
        .await?;
    let resource = Resource::from_object("asset", &object, None);
    Ok(Reply::new(Value::Null)
        .resource(resource)
        .state(PostCondition::status("deleted"))
        .legacy(
            call.mode,
            || json!({"message": "Asset permanently deleted", "action": "deleted", "assetId": id}),
        )
        .into())
}

fn write_reply(call: &Call, object: Value, status: &str, message: &str) -> ToolResult {
    let resource = Resource::from_object("asset", &object, None);
    let legacy_object = object.clone();
    Ok(Reply::new(object)
        .resource(resource)
        .state(PostCondition::status(status))
        .legacy(call.mode, || {
            legacy::write(status, message, "asset", legacy_object)
        })
        .into())
}
