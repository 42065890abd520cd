//! Content assets: `content-assets-list`, `-get`, `-manage` and `-bulk`.
//!
//! Modyo keeps one asset library per account, not per space: the documented resource is
//! `/api/admin/content/assets` (list filtered by `query`, `tags[]`, `extensions[]`) and
//! `/api/admin/content/assets/{asset_id}` (read, update, delete; the id is an integer). These
//! tools therefore take no space. A uuid is looked up by walking the account's list (no uuid
//! filter is documented) and a file name through the documented `query` (it searches the file
//! name), kept only on an exact `name`.
//!
//! An upload reads the local file the caller names and sends it as `multipart/form-data` with
//! the documented fields `data` (the file) and `klass` (`picture`, `video`, `audio` or `file`,
//! from its MIME type), after the documented size limits are checked locally (images up to
//! 6 MB, other files up to 10 MB). The create form takes no metadata: title, alt text,
//! description and tags go in the documented update form (`PUT`, multipart: `title`, `alt_text`,
//! `description`, repeated `tags[]`). Both writes answer a summary (`id`, `thumb`, `type`), so
//! what a write reports is the asset read back afterwards (C7), never the input: the API
//! normalizes file names. `content-assets-bulk` fans out one upload per file
//! ([`crate::tools::fanout`]).

use std::path::Path;

use reqwest::Method;
use reqwest::multipart::{Form, Part};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{id_key, read_one};
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, Legacy, PostCondition, Reply, Resource, ToolClass, ToolError};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, is_uuid, pick};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::tool::{Call, ToolDef, tool};
use crate::tools::engine::{
    Answer, Collection, Data, Echo, Id, Identity, Member, Rules, body, echoed, reply, view,
};
use crate::tools::fanout;
use crate::uploads::{ReadError, UploadRoots};

mod manage;

pub(crate) use manage::manage_tool;

/// The account's asset library (documented, account-level).
const ASSETS: &str = "/api/admin/content/assets";

/// The largest image the API accepts (documented upload rule).
const MAX_IMAGE_BYTES: u64 = 6 * 1024 * 1024;
/// The largest video, audio or other file the API accepts.
const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

echoed! {
    /// An asset as the API returns it (the documented keys).
    AssetObject = "asset" {
        id: i64, uuid: String, name: String
    }
}

impl Member for AssetObject {
    const RULES: Rules =
        Rules::new("asset", "assets").hint("call content-assets-list to see the account's assets");
}

fn asset_path(id: &str) -> String {
    format!("{ASSETS}/{id}")
}

/// Resolves an asset by id (one read), uuid (a walk of the account's list) or exact file name
/// (a walk filtered by the documented `query`).
async fn resolve(client: &ModyoClient, input: &str) -> Result<Value, ToolError> {
    let input = input.trim();
    if is_id(input) {
        return read_one(client, &asset_path(input), || {
            format!("asset {input} not found; call content-assets-list to see the account's assets")
        })
        .await;
    }
    let (filter, stage) = if is_uuid(input) {
        (Query::new(), Stage::exact("uuid", "uuid", input))
    } else {
        (
            Query::new().push("query", input),
            Stage::exact("file name", "name", input),
        )
    };
    let (rows, _) = walk(client, ASSETS, "assets", &filter).await?;
    Ok(pick("asset", input, &rows, &[stage])?.clone())
}

/// The asset's id as a path segment: the input itself when it is one, else its resolution's.
async fn resolve_id(client: &ModyoClient, input: &str) -> Result<String, ToolError> {
    let input = input.trim();
    if is_id(input) {
        return Ok(input.to_owned());
    }
    let object = resolve(client, input).await?;
    Ok(asset_id(&object))
}

/// An asset's id as a path segment ([`id_key`]; `null` when it has none).
fn asset_id(object: &Value) -> String {
    id_key(&view::<Identity>(object).id.unwrap_or(Value::Null))
}

/// The documented list filters, shared by `content-assets-list` and `-manage list`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct Filters {
    /// Keywords, searched in the file name and the author's name.
    query: Option<String>,
    /// Only assets carrying these tags.
    tags: Option<Vec<String>>,
    /// Only files with these extensions (e.g. jpg, pdf).
    extensions: Option<Vec<String>>,
}

impl Filters {
    /// The filters as query parameters (the paging is added by the caller).
    fn query(&self) -> Query {
        let mut query = Query::new().push_opt("query", self.query.as_deref());
        for tag in self.tags.iter().flatten() {
            query = query.push("tags[]", tag);
        }
        for extension in self.extensions.iter().flatten() {
            query = query.push("extensions[]", extension);
        }
        query
    }
}

/// Arguments of `content-assets-list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListArgs {
    #[serde(flatten)]
    paging: Paging,
    #[serde(flatten)]
    filters: Filters,
}

pub(crate) fn list_tool() -> ToolDef {
    tool("content-assets-list", Module::Content, ToolClass::Read)
        .describe(
            "List the account's asset library, one page at a time (Modyo keeps assets per account, not per space). \
Filters: query (file name, author), tags, extensions.",
        )
        .state()
        .handle(list)
        .writes_state(RareState::PAGED)
}

async fn list(call: Call, args: ListArgs) -> Answer<Vec<Echo<AssetObject>>> {
    let page = Collection::<AssetObject>::at(ASSETS)
        .page(
            call.client()?,
            &args
                .filters
                .query()
                .page(args.paging.page, args.paging.per_page),
        )
        .await?;
    Ok(reply::rows(page, None).into())
}

/// Arguments of `content-assets-get`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GetArgs {
    /// Asset id, uuid or exact file name.
    asset: Ident,
}

pub(crate) fn get_tool() -> ToolDef {
    tool("content-assets-get", Module::Content, ToolClass::Read)
        .describe(
            "Get one asset of the account's library by id, uuid or exact file name (a uuid or name walks the account's list).",
        )
        .resource()
        .handle(get)
}

async fn get(call: Call, args: GetArgs) -> Answer<Echo<AssetObject>> {
    let object = resolve(call.client()?, &args.asset).await?;
    let resource = Resource::from_object("asset", &object, None);
    Ok(reply::one(object, resource).into())
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

/// Reads the local file (only where [`UploadRoots`] allows) and builds the create form
/// (`klass`, `data`); fails with `local_io` before any request when the file cannot or may not
/// be read, and with `invalid_parameters` when it is over the API's limit.
async fn upload_form(roots: &UploadRoots, spec: &FileSpec) -> Result<Form, ToolError> {
    let path = Path::new(spec.path.trim()).to_path_buf();
    let mime = mime_of(&path);
    let limit = if mime.starts_with("image/") {
        MAX_IMAGE_BYTES
    } else {
        MAX_FILE_BYTES
    };
    let bytes = match roots.read_async(spec.path.trim(), limit).await {
        Ok(bytes) => bytes,
        Err(ReadError::Refused(why)) => {
            return Err(ToolError::new(ErrorCode::LocalIo, why.to_string()));
        }
        Err(ReadError::TooLarge { size }) => {
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
    Ok(Form::new().text("klass", klass_of(mime)).part("data", part))
}

/// The documented upload class of a file, from its MIME type.
fn klass_of(mime: &str) -> &'static str {
    match mime.split('/').next().unwrap_or_default() {
        "image" => "picture",
        "video" => "video",
        "audio" => "audio",
        _ => "file",
    }
}

/// An asset's metadata as the documented update form takes it.
#[derive(Debug, Clone, Default)]
struct Metadata {
    title: Option<String>,
    alt_text: Option<String>,
    description: Option<String>,
    tags: Option<Vec<String>>,
}

impl Metadata {
    fn of(spec: &FileSpec) -> Metadata {
        Metadata {
            title: spec.title.clone(),
            alt_text: spec.alt_text.clone(),
            description: spec.description.clone(),
            tags: spec.tags.clone(),
        }
    }

    /// The update form (`title`, `alt_text`, `description`, repeated `tags[]`), or `None` when
    /// nothing is given. An empty tag list is refused: the form cannot say "no tags".
    fn form(&self) -> Result<Option<Form>, ToolError> {
        if self.tags.as_ref().is_some_and(Vec::is_empty) {
            return Err(ToolError::invalid_parameters(
                "tags: give at least one tag; the documented update form cannot send an empty list",
            ));
        }
        let mut form = Form::new();
        let mut any = false;
        for (key, value) in [
            ("title", &self.title),
            ("alt_text", &self.alt_text),
            ("description", &self.description),
        ] {
            if let Some(value) = value {
                form = form.text(key, value.clone());
                any = true;
            }
        }
        for tag in self.tags.iter().flatten() {
            form = form.text("tags[]", tag.clone());
            any = true;
        }
        Ok(any.then_some(form))
    }
}

/// Sends the update form of asset `id` when there is one, then reads the asset back (C7).
async fn update_and_read(
    client: &ModyoClient,
    id: &str,
    metadata: &Metadata,
) -> Result<Value, ToolError> {
    let path = asset_path(id);
    if let Some(form) = metadata.form()? {
        client.send_multipart(Method::PUT, &path, form).await?;
    }
    Ok(client.get(&path, &Query::new()).await?)
}

/// Uploads one file (create form), sets its metadata (update form) and returns the asset read
/// back. The local file and the metadata are checked before any request.
pub(crate) async fn upload(
    client: &ModyoClient,
    roots: &UploadRoots,
    spec: &FileSpec,
) -> Result<Value, ToolError> {
    let metadata = Metadata::of(spec);
    metadata.form()?;
    let form = upload_form(roots, spec).await?;
    let summary = client.send_multipart(Method::POST, ASSETS, form).await?;
    let id = match view::<Identity>(&summary).id {
        Some(id @ Value::Number(_)) => id_key(&id),
        _ => {
            return Err(ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                "the upload was answered without an asset id; list the account's assets (content-assets-list) before retrying",
            ));
        }
    };
    update_and_read(client, &id, &metadata).await
}

/// Arguments of `content-assets-bulk`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BulkArgs {
    /// Files to upload (1 to 100), each with optional metadata.
    #[schemars(length(min = 1, max = 100))]
    files: Vec<FileSpec>,
}

/// The `data` of `content-assets-bulk`: the uploads that succeeded and the files that failed,
/// by input position.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Uploads {
    succeeded: Vec<Uploaded>,
    failed: Vec<fanout::Failure>,
}

/// Every answer counts the uploads that succeeded (`state.affected`).
impl Data for Uploads {
    fn state() -> RareState {
        RareState::AFFECTED
    }
}

/// One upload that succeeded: the asset's id, uuid and name as persisted.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Uploaded {
    index: usize,
    id: Id,
    #[schemars(with = "Option<String>")]
    uuid: Value,
    #[schemars(with = "Option<String>")]
    name: Value,
}

pub(crate) fn bulk_tool() -> ToolDef {
    tool("content-assets-bulk", Module::Content, ToolClass::Mutation)
        .describe(
            "Upload many local files to the account's asset library (assets are per account, not per space), 4 at a time; one failure does not stop the others. \
data.succeeded [{index, id, uuid, name}] (names as persisted), data.failed [{index, error}]; state.status \
completed|partial|failed, state.affected = uploads that succeeded.",
        )
        .state()
        .handle(bulk)
}

async fn bulk(call: Call, args: BulkArgs) -> Answer<Uploads> {
    let client = call.client()?;
    let roots = &call.app.config.upload_roots;
    let out = fanout::run(args.files, |_, spec| async move {
        upload(client, roots, &spec).await
    })
    .await;
    if let Some(error) = out.call_level() {
        return Err(error.into());
    }
    let key = |asset: &Value, key: &str| asset.get(key).cloned().unwrap_or(Value::Null);
    let succeeded: Vec<Uploaded> = out
        .succeeded
        .iter()
        .map(|(index, asset)| Uploaded {
            index: *index,
            id: Id(key(asset, "id")),
            uuid: key(asset, "uuid"),
            name: key(asset, "name"),
        })
        .collect();
    let post = PostCondition::status(out.status()).affected(out.succeeded.len());
    let legacy_results: Vec<OldResult> = out
        .succeeded
        .iter()
        .map(|(index, asset)| OldResult {
            index: *index,
            success: true,
            asset: Some(asset.clone()),
            error: None,
        })
        .chain(out.failed.iter().map(|(index, error)| OldResult {
            index: *index,
            success: false,
            asset: None,
            error: Some(error.message().to_owned()),
        }))
        .collect();
    let counts = (out.succeeded.len(), out.succeeded.len() + out.failed.len());
    Ok(Reply::new(Uploads {
        succeeded,
        failed: out.failures(),
    })
    .state(post)
    .old(Legacy::custom(move |_| {
        body(OldUploads {
            message: format!("Uploaded {} of {} assets", counts.0, counts.1),
            action: "created",
            results: legacy_results,
        })
    }))
    .into())
}

/// The old payload of `content-assets-bulk`: a prose summary and each upload's result.
#[derive(Serialize)]
struct OldUploads {
    message: String,
    action: &'static str,
    results: Vec<OldResult>,
}

/// One upload of the old payload: the asset as persisted, or the error.
#[derive(Serialize)]
struct OldResult {
    index: usize,
    success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    asset: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
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
        let dir = std::env::temp_dir().join(format!("modyo-assets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let roots = UploadRoots::from_setting(Some(dir.to_str().unwrap()), None).expect("a root");
        let err = upload_form(&roots, &spec("/nonexistent/modyo/x.png"))
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::LocalIo);
        let big = dir.join("big.png");
        std::fs::write(&big, vec![0u8; (MAX_IMAGE_BYTES + 1) as usize]).unwrap();
        let err = upload_form(&roots, &spec(big.to_str().unwrap()))
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidParameters);
        assert!(
            err.message().contains("images up to 6 MB"),
            "{}",
            err.message()
        );
        let ok = dir.join("ok.txt");
        std::fs::write(&ok, b"hola").unwrap();
        assert!(
            upload_form(&roots, &spec(ok.to_str().unwrap()))
                .await
                .is_ok()
        );
        // The server's environment (the token with it) is never read for an upload.
        let err = upload_form(&roots, &spec("/proc/self/environ"))
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::LocalIo);
        assert!(err.message().contains("system file"), "{}", err.message());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
