//! Content assets: `content-assets-list`, `-get`, `-manage` and `-bulk`.
//!
//! Assets live in a space's library (synthetic paths). Uploads read the local file
//! the caller names and send it as `multipart/form-data` (`file`, plus `title`, `alt_text`,
//! `description` and repeated `tags[]`), after the documented size limits are checked locally
//! (images up to 6 MB, other files up to 10 MB). The API normalizes file names (one dot, other
//! characters to `_`), so what an upload reports is the asset the API answered with (C7), never
//! the name sent. `content-assets-bulk` fans out one upload per file ([`crate::tools::fanout`]).

use std::path::Path;

use reqwest::Method;
use reqwest::multipart::{Form, Part};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Need, Space, id_key, read_one, resolve_space, unconfirmed};
use crate::config::Module;
use crate::contract::schema::{self, Kind, array, integer, strict, string};
use crate::contract::{
    Coverage, ErrorCode, PostCondition, Reply, Resource, ToolClass, ToolError, legacy,
};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, is_uuid, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging, any_given};
use crate::tools::{Call, CallError, ToolDef, ToolResult, fanout, persisted, tool};

/// The largest image the API accepts (documented upload rule).
const MAX_IMAGE_BYTES: u64 = 6 * 1024 * 1024;
/// The largest video, audio or other file the API accepts.
const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// The JSON schema of an asset as the API returns it (loose: echoed).
pub(crate) fn asset_schema() -> Value {
    schema::echo(&[
        ("id", Kind::Int),
        ("uuid", Kind::Str),
        ("name", Kind::Str),
        ("title", Kind::Str),
        ("alt_text", Kind::Str),
        ("description", Kind::Str),
        ("data_file_name", Kind::Str),
        ("content_type", Kind::Str),
        ("size", Kind::Int),
        ("tags", Kind::List),
        ("url", Kind::Str),
        ("thumbnail_url", Kind::Str),
        ("thumbnails", Kind::Obj),
        ("sizes", Kind::Obj),
        ("author", Kind::Obj),
        ("library", Kind::Obj),
        ("created_at", Kind::Str),
        ("updated_at", Kind::Str),
    ])
}

fn assets_path(space: &Space) -> String {
    format!("{}/assets", space.path())
}

/// Resolves an asset by id (one read), uuid or exact file name (a filtered walk).
async fn resolve(client: &ModyoClient, space: &Space, input: &str) -> Result<Value, ToolError> {
    let input = input.trim();
    if is_id(input) {
        return read_one(client, &format!("{}/{input}", assets_path(space)), || {
            format!(
                "asset {input} not found in space {}; call content-assets-list to see its assets",
                space.id
            )
        })
        .await;
    }
    let (filter, stage) = if is_uuid(input) {
        (
            Query::new().push("uuid", input),
            Stage::exact("uuid", "uuid", input),
        )
    } else {
        (
            Query::new().push("query", input),
            Stage::exact("file name", "name", input),
        )
    };
    let (rows, _) = walk(client, &assets_path(space), "assets", &filter).await?;
    Ok(pick("asset", input, &rows, &[stage])?.clone())
}

/// Arguments of `content-assets-list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListArgs {
    /// Space id, uid or name.
    space: Ident,
    #[serde(flatten)]
    paging: Paging,
    /// Filter on names and titles.
    query: Option<String>,
}

pub(crate) fn list_tool() -> ToolDef {
    tool("content-assets-list", Module::Content, ToolClass::Read)
        .describe("List the assets of a space's library, one page at a time.")
        .data(schema::array(asset_schema()))
        .resource()
        .state()
        .handle(list)
}

async fn list(call: Call, args: ListArgs) -> ToolResult {
    let client = call.client()?;
    let space = resolve_space(client, &args.space, Need::Object).await?;
    let query = Query::new()
        .page(args.paging.page, args.paging.per_page)
        .push_opt("query", args.query.as_deref());
    let page = client.list(&assets_path(&space), "assets", &query).await?;
    let coverage = Coverage::page(page.items.len(), page.meta.as_ref());
    let items = Value::Array(page.items);
    let legacy_items = items.clone();
    Ok(Reply::new(items)
        .resource(space.resource())
        .state(coverage)
        .legacy(call.mode, || {
            legacy::list("assets", legacy_items, page.raw_meta.as_ref())
        })
        .into())
}

/// Arguments of `content-assets-get`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GetArgs {
    /// Space id, uid or name.
    space: Ident,
    /// Asset id, uuid or exact file name.
    asset: Ident,
}

pub(crate) fn get_tool() -> ToolDef {
    tool("content-assets-get", Module::Content, ToolClass::Read)
        .describe("Get one asset by id, uuid or exact file name.")
        .data(asset_schema())
        .resource()
        .handle(get)
}

async fn get(call: Call, args: GetArgs) -> ToolResult {
    let client = call.client()?;
    let space = resolve_space(client, &args.space, Need::Id).await?;
    let object = resolve(client, &space, &args.asset).await?;
    let resource = Resource::from_object("asset", &object, None);
    let legacy_object = object.clone();
    Ok(Reply::new(object)
        .resource(resource)
        .legacy(call.mode, || legacy_object)
        .into())
}

/// The MIME type sent for a file, from its extension (the API rejects a mismatch since 10.2).
fn mime_of(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "jpg" | "jpeg" => "image/jpeg",
        "png" => "image/png",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "txt" => "text/plain",
        "csv" => "text/csv",
        "json" => "application/json",
        "zip" => "application/zip",
        "doc" => "application/msword",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls" => "application/vnd.ms-excel",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        _ => "application/octet-stream",
    }
}

/// One file to upload and its metadata.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct FileSpec {
    /// Local path of the file to upload.
    path: String,
    /// Title.
    title: Option<String>,
    /// Alternative text for images.
    alt_text: Option<String>,
    /// Description.
    description: Option<String>,
    /// Tags.
    tags: Option<Vec<String>>,
}

/// Reads the local file and builds the multipart form; fails with `local_io` before any request
/// when the file cannot be read, and with `invalid_parameters` when it is over the API's limit.
async fn upload_form(spec: &FileSpec) -> Result<Form, ToolError> {
    let path = Path::new(spec.path.trim()).to_path_buf();
    let local = |e: std::io::Error| {
        ToolError::new(
            ErrorCode::LocalIo,
            format!("cannot read '{}': {e}", path.display()),
        )
    };
    let mime = mime_of(&path);
    let limit = if mime.starts_with("image/") {
        MAX_IMAGE_BYTES
    } else {
        MAX_FILE_BYTES
    };
    // File reads block: they run on the blocking pool (tokio's `fs` feature is not enabled).
    let reading = path.clone();
    let read = tokio::task::spawn_blocking(move || -> std::io::Result<Result<Vec<u8>, u64>> {
        let meta = std::fs::metadata(&reading)?;
        if !meta.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "it is not a file",
            ));
        }
        if meta.len() > limit {
            return Ok(Err(meta.len()));
        }
        std::fs::read(&reading).map(Ok)
    })
    .await
    .map_err(|e| {
        ToolError::new(
            ErrorCode::LocalIo,
            format!("the file read did not finish: {e}"),
        )
    })?;
    let bytes = match read.map_err(local)? {
        Ok(bytes) => bytes,
        Err(size) => {
            return Err(ToolError::invalid_parameters(format!(
                "'{}' is {size} bytes; the API accepts {} up to {} MB",
                path.display(),
                if limit == MAX_IMAGE_BYTES {
                    "images"
                } else {
                    "files"
                },
                limit / (1024 * 1024)
            )));
        }
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "upload".into());
    let part = Part::bytes(bytes)
        .file_name(file_name)
        .mime_str(mime)
        .map_err(|e| ToolError::invalid_parameters(format!("bad MIME type {mime}: {e}")))?;
    let mut form = Form::new().part("file", part);
    for (key, value) in [
        ("title", &spec.title),
        ("alt_text", &spec.alt_text),
        ("description", &spec.description),
    ] {
        if let Some(value) = value {
            form = form.text(key, value.clone());
        }
    }
    for tag in spec.tags.iter().flatten() {
        form = form.text("tags[]", tag.clone());
    }
    Ok(form)
}

/// Sends one upload and returns the asset as persisted (the response, or a re-read).
async fn upload(client: &ModyoClient, space: &Space, form: Form) -> Result<Value, ToolError> {
    let response = client
        .send_multipart(Method::POST, &assets_path(space), form)
        .await?;
    let id = response.get("id").map(id_key).unwrap_or_default();
    persisted(client, response, &format!("{}/{id}", assets_path(space))).await
}

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
    /// Space id, uid or name.
    space: Ident,
    /// Asset id, uuid or exact file name (get, update, delete).
    asset: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    /// Local path of the file to upload (upload).
    file: Option<String>,
    /// Title (upload, update).
    title: Option<String>,
    /// Alternative text (upload, update).
    alt_text: Option<String>,
    /// Description (upload, update).
    description: Option<String>,
    /// Tags (upload, update).
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
            "List, get, upload, update or delete a space's assets. list: data.assets + coverage; get/upload/update: \
data is the asset as persisted (the API normalizes file names); upload reads the local file `file`; delete \
(confirmDelete: true): data null, state.status deleted.",
        )
        .data(manage_schema())
        .resource()
        .state()
        .actions(&["list", "get"], &["upload", "update", "delete"])
        .handle(manage)
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
                "action is required when file, title, alt_text, description or tags are given (upload or update)".into(),
            ));
        }
        None => Action::Get,
    };
    let _ = args.verify;
    if action == Action::Delete && args.confirm_delete != Some(true) {
        return Ok(unconfirmed("content-assets-manage", "delete"));
    }
    let client = call.client()?;
    let need_asset = || {
        args.asset.as_deref().ok_or_else(|| {
            CallError::Arguments(
                format!("{action:?} needs asset (id, uuid or file name)").to_lowercase(),
            )
        })
    };
    match action {
        Action::List => {
            let space = resolve_space(client, &args.space, Need::Object).await?;
            let query = Query::new().page(args.paging.page, args.paging.per_page);
            let page = client.list(&assets_path(&space), "assets", &query).await?;
            let coverage = Coverage::page(page.items.len(), page.meta.as_ref());
            let items = Value::Array(page.items);
            let legacy_items = items.clone();
            Ok(Reply::new(json!({"assets": items}))
                .resource(space.resource())
                .state(coverage)
                .legacy(call.mode, || {
                    legacy::list("assets", legacy_items, page.raw_meta.as_ref())
                })
                .into())
        }
        Action::Get => {
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let object = resolve(client, &space, need_asset()?).await?;
            let resource = Resource::from_object("asset", &object, None);
            let legacy_object = object.clone();
            Ok(Reply::new(object)
                .resource(resource)
                .legacy(call.mode, || legacy_object)
                .into())
        }
        Action::Upload => {
            let Some(file) = args.file.clone() else {
                return Err(CallError::Arguments(
                    "upload needs file (a local path)".into(),
                ));
            };
            let spec = FileSpec {
                path: file,
                title: args.title.clone(),
                alt_text: args.alt_text.clone(),
                description: args.description.clone(),
                tags: args.tags.clone(),
            };
            // The file is read before the space is resolved: a missing file costs no request.
            let form = upload_form(&spec).await?;
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let object = upload(client, &space, form).await?;
            write_reply(&call, object, "created", "Asset uploaded successfully")
        }
        Action::Update => {
            let mut body = Map::new();
            for (key, value) in [
                ("title", &args.title),
                ("alt_text", &args.alt_text),
                ("description", &args.description),
            ] {
                if let Some(value) = value {
                    body.insert(key.into(), Value::from(value.clone()));
                }
            }
            if let Some(tags) = &args.tags {
                body.insert("tags".into(), json!(tags));
            }
            if body.is_empty() {
                return Err(CallError::Arguments(
                    "update needs at least one of title, alt_text, description, tags".into(),
                ));
            }
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let input = need_asset()?.trim();
            let id = if is_id(input) {
                input.to_owned()
            } else {
                id_key(
                    resolve(client, &space, input)
                        .await?
                        .get("id")
                        .unwrap_or(&Value::Null),
                )
            };
            let path = format!("{}/{id}", assets_path(&space));
            let response = client
                .send(
                    Method::PUT,
                    &path,
                    &Query::new(),
                    Some(&Value::Object(body)),
                )
                .await?;
            let object = persisted(client, response, &path).await?;
            write_reply(&call, object, "updated", "Asset updated successfully")
        }
        Action::Delete => {
            let space = resolve_space(client, &args.space, Need::Id).await?;
            let object = resolve(client, &space, need_asset()?).await?;
            let id = id_key(object.get("id").unwrap_or(&Value::Null));
            client
                .send(
                    Method::DELETE,
                    &format!("{}/{id}", assets_path(&space)),
                    &Query::new(),
                    None,
                )
                .await?;
            let resource = Resource::from_object("asset", &object, None);
            Ok(Reply::new(Value::Null)
                .resource(resource)
                .state(PostCondition::status("deleted"))
                .legacy(call.mode, || {
                    json!({"message": "Asset permanently deleted", "action": "deleted", "assetId": id})
                })
                .into())
        }
    }
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

/// Arguments of `content-assets-bulk`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BulkArgs {
    /// Space id, uid or name.
    space: Ident,
    /// Files to upload (1 to 100), each with optional metadata.
    #[schemars(length(min = 1, max = 100))]
    files: Vec<FileSpec>,
}

fn bulk_schema() -> Value {
    // The C16 error object: its standard keys, and the details some codes add.
    let error = schema::loose(
        &[
            ("code", string()),
            ("message", string()),
            ("status", integer()),
            ("retryable", schema::boolean()),
            ("retry_after_s", integer()),
        ],
        &["code", "message"],
    );
    strict(
        &[
            (
                "succeeded",
                array(strict(
                    &[
                        ("index", integer()),
                        ("id", schema::id()),
                        ("uuid", schema::nullable(string())),
                        ("name", schema::nullable(string())),
                    ],
                    &["index", "id"],
                )),
            ),
            (
                "failed",
                array(strict(
                    &[("index", integer()), ("error", error)],
                    &["index", "error"],
                )),
            ),
        ],
        &["succeeded", "failed"],
    )
}

pub(crate) fn bulk_tool() -> ToolDef {
    tool("content-assets-bulk", Module::Content, ToolClass::Mutation)
        .describe(
            "Upload many local files to a space's library, 4 at a time; one failure does not stop the others. \
data.succeeded [{index, id, uuid, name}] (names as persisted), data.failed [{index, error}]; state.status \
completed|partial|failed, state.affected = uploads that succeeded.",
        )
        .data(bulk_schema())
        .state()
        .handle(bulk)
}

async fn bulk(call: Call, args: BulkArgs) -> ToolResult {
    let client = call.client()?;
    let space = resolve_space(client, &args.space, Need::Id).await?;
    let space = &space;
    let out = fanout::run(args.files, |_, spec| async move {
        upload(client, space, upload_form(&spec).await?).await
    })
    .await;
    if let Some(error) = out.call_level() {
        return Err(error.into());
    }
    let succeeded: Vec<Value> = out
        .succeeded
        .iter()
        .map(|(index, asset)| {
            json!({
                "index": index,
                "id": asset.get("id").cloned().unwrap_or(Value::Null),
                "uuid": asset.get("uuid").cloned().unwrap_or(Value::Null),
                "name": asset.get("name").cloned().unwrap_or(Value::Null),
            })
        })
        .collect();
    let post = PostCondition::status(out.status()).affected(out.succeeded.len());
    let legacy_results: Vec<Value> = out
        .succeeded
        .iter()
        .map(|(index, asset)| json!({"index": index, "success": true, "asset": asset}))
        .chain(out.failed.iter().map(
            |(index, error)| json!({"index": index, "success": false, "error": error.message()}),
        ))
        .collect();
    let counts = (out.succeeded.len(), out.succeeded.len() + out.failed.len());
    Ok(
        Reply::new(json!({"succeeded": succeeded, "failed": out.failed_json()}))
            .state(post)
            .legacy(call.mode, || {
                json!({
                    "message": format!("Uploaded {} of {} assets", counts.0, counts.1),
                    "action": "created",
                    "results": legacy_results,
                })
            })
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_types_follow_the_extension() {
        assert_eq!(mime_of(Path::new("/x/Fachada.JPG")), "image/jpeg");
        assert_eq!(mime_of(Path::new("plano.pdf")), "application/pdf");
        assert_eq!(mime_of(Path::new("noext")), "application/octet-stream");
    }

    #[tokio::test]
    async fn a_missing_file_is_a_local_error_and_a_big_image_is_refused() {
        let spec = |path: &str| FileSpec {
            path: path.into(),
            title: None,
            alt_text: None,
            description: None,
            tags: None,
        };
        let err = upload_form(&spec("/nonexistent/modyo/x.png"))
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::LocalIo);
        let dir = std::env::temp_dir().join(format!("modyo-assets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.png");
        std::fs::write(&big, vec![0u8; (MAX_IMAGE_BYTES + 1) as usize]).unwrap();
        let err = upload_form(&spec(big.to_str().unwrap())).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidParameters);
        assert!(
            err.message().contains("images up to 6 MB"),
            "{}",
            err.message()
        );
        let ok = dir.join("ok.txt");
        std::fs::write(&ok, b"hola").unwrap();
        assert!(upload_form(&spec(ok.to_str().unwrap())).await.is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
