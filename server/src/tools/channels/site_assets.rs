//! Site assets (files a site's templates reference): `channels-site-assets-manage` under
//! `/api/admin/sites/{site_id}/site_assets`.
//!
//! Upload sends the file as JSON (`data` in base64, with `file_name` and `content_type`): the
//! path is synthetic and its body undocumented, and a JSON body is what the replay harness can
//! match exactly. The bytes come from a local file (`path`) or inline (`data_base64`).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::in_site;
use crate::config::Module;
use crate::contract::{ErrorCode, ToolError};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::{
    Action, Answer, Ctx, Echoed, Managed, Member, Rules, echoed, manage, persist, reply,
};
use crate::tools::{CallError, ToolDef};
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

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, SiteAsset>("channels-site-assets-manage", Module::Channels, in_site())
        .describe(
            "List, get, upload, update or delete a site's assets. list: data.site_assets + coverage; get/upload/\
update: the asset as persisted; delete (confirmDelete: true): data null.",
        )
        .target("asset_id", "the site asset's id")
        .fields(&["name", "description", "file_name"])
        .mutating(&["path", "data_base64"])
        .list(|_| Query::new())
        .get()
        .action("upload", upload)
        .update()
        .delete()
        .build()
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

async fn upload(ctx: Ctx<ManageArgs, SiteAsset>) -> Answer<Managed<SiteAsset>> {
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
    let mut sent = described.clone();
    sent["data"] = json!(BASE64.encode(&bytes));
    let object = persist::create(ctx.client()?, &ctx.coll.path, &sent, SiteAsset::NAME).await?;
    persist::check_sent(SiteAsset::NAME, &object, &described)?;
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
    let resource = ctx.coll.resource(&object, None);
    let post = reply::post::<SiteAsset>("created", &object);
    let message = "Site asset uploaded successfully";
    Ok(reply::saved_as::<SiteAsset, _>(object, resource, post, "created", message).into())
}
