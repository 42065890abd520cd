//! Site assets (files a site's templates reference): `channels-site-assets-manage` under
//! `/api/admin/sites/{site_id}/site_assets`.
//!
//! Upload sends the file as JSON (`data` in base64, with `file_name` and `content_type`): the
//! path is synthetic and its body undocumented, and a JSON body is what the replay harness can
//! match exactly. The bytes come from a local file (`path`) or inline (`data_base64`).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    Need, body, check_persisted, deleted, list_page, list_reply, not_found_as, object_reply,
    resolve_site, unconfirmed, write, written,
};
use crate::config::Module;
use crate::contract::schema::{self, Kind};
use crate::contract::{ErrorCode, Resource, ToolClass, ToolError};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::{Call, CallError, ToolDef, ToolResult, tool};

const TOOL: &str = "channels-site-assets-manage";

/// The largest file `upload` sends.
pub(crate) const MAX_UPLOAD_BYTES: u64 = 20 * 1024 * 1024;

/// The JSON schema of a site asset as the API returns it (loose: echoed).
fn asset_schema() -> Value {
    use Kind::*;
    schema::echo(&[
        ("id", Int),
        ("uuid", Str),
        ("name", Str),
        ("description", Str),
        ("file_name", Str),
        ("content_type", Str),
        ("size", Int),
        ("url", Str),
        ("site_id", Int),
        ("created_at", Str),
        ("updated_at", Str),
    ])
}

/// Actions of `channels-site-assets-manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    List,
    Get,
    Upload,
    Update,
    Delete,
}

/// Arguments of `channels-site-assets-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default), upload, update or delete.
    action: Option<Action>,
    /// Site id, host, uuid or name.
    site: Ident,
    /// Site asset id (get, update, delete).
    asset_id: Option<u64>,
    #[serde(flatten)]
    paging: Paging,
    /// Local file to upload (upload).
    path: Option<String>,
    /// File bytes in base64, instead of path (upload).
    data_base64: Option<String>,
    /// File name (upload: default the path's; update).
    file_name: Option<String>,
    /// MIME type, such as image/png (upload).
    content_type: Option<String>,
    /// Display name (upload, update).
    name: Option<String>,
    /// Description (upload, update).
    description: Option<String>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

fn manage_schema() -> Value {
    let mut data = asset_schema();
    data["properties"]["site_assets"] = schema::array(asset_schema());
    data
}

pub(crate) fn manage_tool() -> ToolDef {
    tool(TOOL, Module::Channels, ToolClass::Gated)
        .describe(
            "List, get, upload, update or delete a site's assets. list: data.site_assets + coverage; get/upload/\
update: the asset as persisted; delete (confirmDelete: true): data null.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["upload", "update", "delete"])
        .handle(manage)
}

fn asset_resource(object: &Value) -> Resource {
    Resource::from_object("site_asset", object, None)
}

/// The bytes and file name of an upload, from `path` or `data_base64`.
async fn upload_bytes(args: &ManageArgs) -> Result<(Vec<u8>, String), CallError> {
    match (&args.path, &args.data_base64) {
        (Some(_), Some(_)) => Err(CallError::Arguments(
            "upload takes path or data_base64, not both".into(),
        )),
        (None, None) => Err(CallError::Arguments(
            "upload needs path or data_base64".into(),
        )),
        (None, Some(data)) => {
            let bytes = BASE64.decode(data.trim()).map_err(|e| {
                CallError::Arguments(format!("data_base64 is not valid base64: {e}"))
            })?;
            let name = args.file_name.clone().ok_or_else(|| {
                CallError::Arguments("upload with data_base64 needs file_name".into())
            })?;
            Ok((bytes, name))
        }
        (Some(path), None) => {
            let io = |e: std::io::Error| {
                ToolError::new(ErrorCode::LocalIo, format!("cannot read {path}: {e}"))
            };
            let meta = std::fs::metadata(path).map_err(io)?;
            if !meta.is_file() {
                return Err(
                    ToolError::new(ErrorCode::LocalIo, format!("{path} is not a file")).into(),
                );
            }
            if meta.len() > MAX_UPLOAD_BYTES {
                return Err(ToolError::invalid_parameters(format!(
                    "{path} is {} bytes; site assets are uploaded up to {MAX_UPLOAD_BYTES} bytes",
                    meta.len()
                ))
                .into());
            }
            let bytes = std::fs::read(path).map_err(io)?;
            let name = args.file_name.clone().unwrap_or_else(|| {
                std::path::Path::new(path)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| path.clone())
            });
            Ok((bytes, name))
        }
    }
}

async fn manage(call: Call, args: ManageArgs) -> ToolResult {
    let action = match args.action {
        Some(action) => action,
        None if args.name.is_some()
            || args.description.is_some()
            || args.path.is_some()
            || args.data_base64.is_some() =>
        {
            return Err(CallError::Arguments(
                "action is required when asset fields are given (upload or update)".into(),
            ));
        }
        None => Action::Get,
    };
    let client = call.client()?;
    let need = if action == Action::List {
        Need::Object
    } else {
        Need::Id
    };
    let site = resolve_site(client, &args.site, need).await?;
    let base = site.at("site_assets");
    let asset_id = || {
        args.asset_id.ok_or_else(|| {
            CallError::Arguments(format!(
                "{} needs asset_id",
                format!("{action:?}").to_lowercase()
            ))
        })
    };
    let read = |id: u64| {
        let path = format!("{base}/{id}");
        let site_id = site.id;
        async move {
            client.get(&path, &Query::new()).await.map_err(not_found_as(|| {
                format!("site asset {id} not found in site {site_id}; call channels-site-assets-manage (action list) to see them")
            }))
        }
    };
    match action {
        Action::List => {
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            let listed = list_page(client, &base, "site_assets", &query).await?;
            Ok(list_reply(
                call.mode,
                "site_assets",
                listed,
                Some(site.resource()),
            ))
        }
        Action::Get => {
            let object = read(asset_id()?).await?;
            let resource = asset_resource(&object);
            Ok(object_reply(call.mode, object, resource))
        }
        Action::Upload => {
            let (bytes, file_name) = upload_bytes(&args).await?;
            let described = body(vec![
                (
                    "name",
                    Some(Value::from(
                        args.name.clone().unwrap_or_else(|| file_name.clone()),
                    )),
                ),
                ("description", args.description.clone().map(Value::from)),
                ("file_name", Some(Value::from(file_name))),
                ("content_type", args.content_type.clone().map(Value::from)),
            ]);
            let mut sent = described.clone();
            sent["data"] = json!(BASE64.encode(&bytes));
            let object = write(client, Method::POST, &base, Some(&sent), |r| {
                format!("{base}/{}", r.get("id").cloned().unwrap_or_default())
            })
            .await?;
            check_persisted("site asset", &object, &described)?;
            if let Some(size) = object.get("size").and_then(Value::as_u64)
                && size != bytes.len() as u64
            {
                return Err(ToolError::new(
                    ErrorCode::PersistedMismatch,
                    format!(
                        "the site asset was uploaded, but the API stored {size} bytes of the {} sent; upload it again",
                        bytes.len()
                    ),
                )
                .into());
            }
            let resource = asset_resource(&object);
            Ok(written(
                call.mode,
                object,
                resource,
                "created",
                "site_asset",
                "Site asset uploaded successfully",
            ))
        }
        Action::Update => {
            let id = asset_id()?;
            let sent = body(vec![
                ("name", args.name.clone().map(Value::from)),
                ("description", args.description.clone().map(Value::from)),
                ("file_name", args.file_name.clone().map(Value::from)),
            ]);
            if sent.as_object().is_some_and(|m| m.is_empty()) {
                return Err(CallError::Arguments(
                    "update needs name, description or file_name".into(),
                ));
            }
            let path = format!("{base}/{id}");
            let object = write(client, Method::PUT, &path, Some(&sent), |_| path.clone()).await?;
            check_persisted("site asset", &object, &sent)?;
            let resource = asset_resource(&object);
            Ok(written(
                call.mode,
                object,
                resource,
                "updated",
                "site_asset",
                "Site asset updated successfully",
            ))
        }
        Action::Delete => {
            let id = asset_id()?;
            if args.confirm_delete != Some(true) {
                return Ok(unconfirmed(TOOL, "delete"));
            }
            let object = read(id).await?;
            client
                .send(Method::DELETE, &format!("{base}/{id}"), &Query::new(), None)
                .await?;
            Ok(deleted(
                call.mode,
                asset_resource(&object),
                "deleted",
                "Site asset permanently deleted",
                "assetId",
                id,
            ))
        }
    }
}
