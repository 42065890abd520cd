//! Site assets (files a site's templates reference): `channels-site-assets-manage` under
//! `/api/admin/sites/{site_id}/site_assets`.
//!
//! Upload sends the file as `multipart/form-data`, like every upload Modyo documents (the
//! content asset upload, `POST /api/admin/content/assets`, takes its file in the form field
//! `data`): the file in `data` (with its file name and content type), `name` and, when given,
//! `description` as text fields. The path is synthetic and no source shows this form's fields:
//! they are our inference from the documented upload. (It was base64 in a JSON body until
//! issue 33, chosen so the replay could match it; replay matches forms too.) The bytes come
//! from a local file (`path`) or inline (`data_base64`).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use reqwest::Method;
use reqwest::multipart::{Form, Part};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Site;
use crate::config::Module;
use crate::contract::{ErrorCode, ToolError};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::{CallError, ToolDef};
use crate::tools::engine::{
    Action, Answer, Ctx, Echoed, Managed, Member, Rules, Verb, command, echoed, manage, persist,
    reply, standard, within,
};
use crate::uploads::{ReadError, UploadRoots};

/// The largest file `upload` sends.
pub(crate) const MAX_UPLOAD_BYTES: u64 = 20 * 1024 * 1024;

echoed! {
    /// A site asset as the API returns it.
    SiteAsset = "site asset" {
        id: i64, uuid: String, name: String, size: i64
    }
}

impl Member for SiteAsset {
    const RULES: Rules = Rules::new("site_asset", "site_assets")
        .published()
        .gone_key("assetId")
        .hint("call channels-site-assets-manage (action list) to see them");
}

/// Arguments of `channels-site-assets-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
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

command! {
    /// What `channels-site-assets-manage` can be asked.
    enum SiteAssetCommand for ManageArgs {
        List => Verb::list(),
        Get { asset_id: u64 } => Verb::read("get"),
        Upload => Verb::write("upload"),
        Update { asset_id: u64 } => Verb::write("update").changes(),
        Delete { asset_id: u64 } => Verb::write("delete").confirmed(),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, SiteAsset, SiteAssetCommand>("channels-site-assets-manage", Module::Channels, within::<Site, _>())
        .describe(
            "List, get, upload, update or delete a site's assets. list: data.site_assets + coverage; get/upload/\
update: the asset as persisted; delete (confirmDelete: true): data null.",
        )
        .target("asset_id", "the site asset's id")
        .fields(&["name", "description", "file_name"])
        .mutating(&["path", "data_base64"])
        .run(run)
}

/// Runs one command of `channels-site-assets-manage`.
async fn run(ctx: Ctx<ManageArgs, SiteAsset, SiteAssetCommand>) -> Answer<Managed<SiteAsset>> {
    match &ctx.command {
        SiteAssetCommand::List => standard::list(&ctx, Query::new()).await,
        SiteAssetCommand::Get { .. } => standard::get(&ctx).await,
        SiteAssetCommand::Upload => upload(ctx).await,
        SiteAssetCommand::Update { .. } => standard::update(&ctx).await,
        SiteAssetCommand::Delete { .. } => standard::delete(&ctx).await,
    }
}

/// The bytes and file name of an upload, from `path` (read only where [`UploadRoots`] allows)
/// or `data_base64`.
async fn upload_bytes(
    args: &ManageArgs,
    roots: &UploadRoots,
) -> Result<(Vec<u8>, String), CallError> {
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
            let bytes = match roots.read_async(path, MAX_UPLOAD_BYTES).await {
                Ok(bytes) => bytes,
                Err(ReadError::Refused(why)) => {
                    return Err(ToolError::new(ErrorCode::LocalIo, why.to_string()).into());
                }
                Err(ReadError::TooLarge { size }) => {
                    return Err(ToolError::invalid_parameters(format!(
                        "{path} is {size} bytes; site assets are uploaded up to {MAX_UPLOAD_BYTES} bytes"
                    ))
                    .into());
                }
            };
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

/// The upload form: the file in `data` (its name and content type, `application/octet-stream`
/// when none is given), then `name` and `description` from `described` as text fields.
fn upload_form(bytes: Vec<u8>, described: &Value) -> Result<Form, ToolError> {
    let text = |key: &str| {
        described
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let mime = text("content_type").unwrap_or_else(|| "application/octet-stream".into());
    let part = Part::bytes(bytes)
        .file_name(text("file_name").unwrap_or_else(|| "upload".into()))
        .mime_str(&mime)
        .map_err(|e| ToolError::invalid_parameters(format!("bad content_type {mime}: {e}")))?;
    let mut form = Form::new().part("data", part);
    for key in ["name", "description"] {
        if let Some(value) = text(key) {
            form = form.text(key, value);
        }
    }
    Ok(form)
}

async fn upload(ctx: Ctx<ManageArgs, SiteAsset, SiteAssetCommand>) -> Answer<Managed<SiteAsset>> {
    let args = &ctx.args;
    let (bytes, file_name) = upload_bytes(args, &ctx.call.app.config.upload_roots).await?;
    let described = persist::body(vec![
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
    let size = bytes.len() as u64;
    let form = upload_form(bytes, &described)?;
    let response = ctx
        .client()?
        .send_multipart(Method::POST, &ctx.coll.path, form)
        .await?;
    let object = persist::created(response, SiteAsset::NAME)?;
    persist::check_sent(SiteAsset::NAME, &object, &described)?;
    if let Some(stored) = object.get("size").and_then(Value::as_u64)
        && stored != size
    {
        return Err(ToolError::new(
            ErrorCode::PersistedMismatch,
            format!(
                "the site asset was uploaded, but the API stored {stored} bytes of the {size} sent; upload it again"
            ),
        )
        .into());
    }
    let resource = ctx.coll.resource(&object, None);
    let post = reply::post::<SiteAsset>("created", &object);
    let message = "Site asset uploaded successfully";
    Ok(reply::saved_as::<SiteAsset, _>(object, resource, post, "created", message).into())
}
