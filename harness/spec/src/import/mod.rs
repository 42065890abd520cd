//! `modyo-lab spec import`: a Swagger 2.0 or OpenAPI 3 document in, a [`Surface`] out.
//!
//! The document is read into serde structs of our own (`Document` and the types below it)
//! rather than a published OpenAPI crate: the maintained ones read OpenAPI 3 only, while
//! Modyo publishes Swagger 2.0, and its documents are loose in ways a strict reader rejects
//! (format names used as types, `in: path` for parameters the template lacks, parameters with
//! no location, `type` beside `$ref`). The structs have no field for descriptions, summaries
//! or examples, so nothing of the document's prose can reach a surface.
//!
//! What the import does:
//!
//! - base path: Swagger's `basePath`, or the path of OpenAPI's first `servers` URL;
//! - parameters: path-level ones merged into each operation's (the operation's win); `path`
//!   parameters named in the template go to `path_params`, other `path` parameters and those
//!   with no location to `unlocated`; `query`, `formData` (Swagger) and form bodies (OpenAPI)
//!   by name; `header` and `cookie` parameters are left out (replay never matches headers);
//!   a template variable nobody declares is `any`;
//! - schemas: local `$ref`s resolved (a reference back into itself becomes a `cycle`, one to a
//!   definition the document lacks stays `unresolved`),
//!   `allOf` merged, `oneOf`/`anyOf` kept as alternatives, `type` absent but `properties`
//!   present read as an object; `date` and `date-time` used as type names read as `string`,
//!   other unknown type names as `any`; a scalar's `enum` (of a parameter, an array's items or
//!   a body or response key) kept as its documented values, unless it lists both booleans;
//! - request bodies: Swagger's `in: body` schema, OpenAPI's JSON `requestBody` (a form
//!   `requestBody` fills `form` instead); responses: each status with its JSON schema;
//! - required: a `query` or `formData` parameter with `required: true` by name, a required body
//!   (`in: body` or `requestBody` with `required: true`) as `$`, and every key a request body
//!   schema lists in an object's `required` as its JSON path (`$.steps[].name`); a form body
//!   schema's top-level required keys as form fields. Path parameters are required by their
//!   template, and response schemas' `required` lists are not read.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::SpecError;
use super::surface::{SourceProvenance, Surface, sha256_hex};
use modyo_replay::Template;

mod reader;
use reader::Reader;

/// The HTTP methods a path item may hold, in the order they are read.
const METHODS: [&str; 7] = ["get", "put", "post", "delete", "options", "head", "patch"];

/// The skeleton of a Swagger 2.0 or OpenAPI 3 document: only what a surface needs.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Document {
    swagger: Option<String>,
    openapi: Option<String>,
    info: Info,
    #[serde(rename = "basePath")]
    base_path: Option<String>,
    servers: Vec<Server>,
    paths: BTreeMap<String, PathItem>,
    security: Option<Vec<Value>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Info {
    title: Option<String>,
    version: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Server {
    url: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PathItem {
    parameters: Vec<Parameter>,
    get: Option<DocOperation>,
    put: Option<DocOperation>,
    post: Option<DocOperation>,
    delete: Option<DocOperation>,
    options: Option<DocOperation>,
    head: Option<DocOperation>,
    patch: Option<DocOperation>,
}

impl PathItem {
    fn operation(&self, method: &str) -> Option<&DocOperation> {
        match method {
            "get" => self.get.as_ref(),
            "put" => self.put.as_ref(),
            "post" => self.post.as_ref(),
            "delete" => self.delete.as_ref(),
            "options" => self.options.as_ref(),
            "head" => self.head.as_ref(),
            "patch" => self.patch.as_ref(),
            _ => None,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct DocOperation {
    parameters: Vec<Parameter>,
    #[serde(rename = "requestBody")]
    request_body: Option<RequestBody>,
    responses: BTreeMap<String, Response>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default)]
struct Parameter {
    #[serde(rename = "$ref")]
    reference: Option<String>,
    name: Option<String>,
    #[serde(rename = "in")]
    location: Option<String>,
    #[serde(rename = "type")]
    kind: Option<Value>,
    items: Option<Value>,
    #[serde(rename = "enum")]
    values: Option<Value>,
    schema: Option<Value>,
    /// Kept as written: a loose document may write anything here; only `true` requires.
    required: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RequestBody {
    #[serde(rename = "$ref")]
    reference: Option<String>,
    content: BTreeMap<String, MediaType>,
    required: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Response {
    #[serde(rename = "$ref")]
    reference: Option<String>,
    schema: Option<Value>,
    content: BTreeMap<String, MediaType>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct MediaType {
    schema: Option<Value>,
}

/// What to import and under which name and provenance.
#[derive(Debug, Clone)]
pub struct ImportInput<'a> {
    /// The API's short name (the surface file is `<api>.json`).
    pub api: &'a str,
    /// The document's bytes.
    pub bytes: &'a [u8],
    /// Where it came from; its `sha256` is computed here from `bytes`.
    pub provenance: SourceProvenance,
}

/// The API name a document's file name suggests: `admin-swagger.json` gives `admin`.
pub fn api_name(file_name: &str) -> String {
    let stem = file_name
        .rsplit('/')
        .next()
        .unwrap_or(file_name)
        .trim_end_matches(".json");
    [
        "-swagger", "-openapi", ".swagger", ".openapi", "_swagger", "_openapi",
    ]
    .iter()
    .find_map(|suffix| stem.strip_suffix(suffix))
    .unwrap_or(stem)
    .to_owned()
}

/// Reads a Swagger 2.0 or OpenAPI 3 document and returns its surface.
pub fn import(input: ImportInput<'_>) -> Result<Surface, SpecError> {
    let invalid = |reason: String| SpecError::Document {
        api: input.api.to_owned(),
        reason,
    };
    let raw: Value =
        serde_json::from_slice(input.bytes).map_err(|e| invalid(format!("not JSON: {e}")))?;
    let document: Document = serde_json::from_value(raw.clone())
        .map_err(|e| invalid(format!("not a Swagger/OpenAPI document: {e}")))?;
    let version = match (&document.swagger, &document.openapi) {
        (Some(v), _) if v.starts_with("2.") => Version::Swagger2,
        (_, Some(v)) if v.starts_with("3.") => Version::OpenApi3,
        _ => {
            return Err(invalid(
                "neither Swagger 2.0 (`swagger: \"2.0\"`) nor OpenAPI 3 (`openapi: \"3.x\"`)"
                    .into(),
            ));
        }
    };
    let reader = Reader {
        raw: &raw,
        api: input.api,
    };
    let base_path = match version {
        Version::Swagger2 => document.base_path.clone().unwrap_or_default(),
        Version::OpenApi3 => document
            .servers
            .first()
            .map(|s| server_path(&s.url))
            .unwrap_or_default(),
    };
    let base_path = base_path.trim_end_matches('/').to_owned();
    let mut operations = Vec::new();
    for (path, item) in &document.paths {
        let template = Template::parse(path).map_err(&invalid)?;
        let shared = reader.parameters(&item.parameters)?;
        for method in METHODS {
            let Some(op) = item.operation(method) else {
                continue;
            };
            operations.push(reader.operation(&template, method, &shared, op)?);
        }
    }
    let mut provenance = input.provenance;
    provenance.sha256 = sha256_hex(input.bytes);
    let mut surface = Surface::new(
        input.api,
        document.info.title.unwrap_or_default(),
        document.info.version.unwrap_or_default(),
        base_path,
        provenance,
        operations,
    );
    surface.authenticated = document.security.as_ref().is_some_and(|s| !s.is_empty());
    Ok(surface)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    Swagger2,
    OpenApi3,
}

/// The path part of an OpenAPI server URL (`https://{account}.modyo.com/api/admin` or
/// `/api/admin`); server variables in the host do not matter.
fn server_path(url: &str) -> String {
    let rest = match url.split_once("://") {
        Some((_, after_scheme)) => match after_scheme.find('/') {
            Some(slash) => &after_scheme[slash..],
            None => "",
        },
        None => url,
    };
    let path = rest.split(['?', '#']).next().unwrap_or_default();
    if path.starts_with('/') {
        path.to_owned()
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests;
