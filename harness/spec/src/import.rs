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

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::{Map, Value};

use super::SpecError;
use super::shape::Shape;
use super::surface::{Operation, Required, SourceProvenance, Surface, sha256_hex};
use modyo_replay::Template;

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

/// Resolves references against the whole document.
struct Reader<'a> {
    raw: &'a Value,
    api: &'a str,
}

/// A parameter's place in a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    Path,
    Query,
    Form,
    Body,
    Unlocated,
    Ignored,
}

impl Reader<'_> {
    fn invalid(&self, reason: String) -> SpecError {
        SpecError::Document {
            api: self.api.to_owned(),
            reason,
        }
    }

    /// The value a local reference (`#/definitions/Entry`) points at.
    fn target(&self, reference: &str) -> Result<&Value, SpecError> {
        reference
            .strip_prefix('#')
            .and_then(|pointer| self.raw.pointer(pointer))
            .ok_or_else(|| {
                self.invalid(format!(
                    "reference '{reference}' does not resolve (only local references are read)"
                ))
            })
    }

    /// The object a reference points at, read as `T`; `None` when it does not resolve.
    fn resolved<T: for<'de> Deserialize<'de>>(
        &self,
        reference: &str,
    ) -> Result<Option<T>, SpecError> {
        let Ok(target) = self.target(reference) else {
            return Ok(None);
        };
        serde_json::from_value(target.clone())
            .map(Some)
            .map_err(|e| self.invalid(format!("'{reference}': {e}")))
    }

    /// Parameters with references resolved, keyed by (name, location).
    fn parameters(
        &self,
        parameters: &[Parameter],
    ) -> Result<BTreeMap<(String, String), Parameter>, SpecError> {
        let mut out = BTreeMap::new();
        for parameter in parameters {
            // A parameter reference that does not resolve names no parameter: nothing to keep.
            let parameter = match &parameter.reference {
                Some(reference) => match self.resolved::<Parameter>(reference)? {
                    Some(parameter) => parameter,
                    None => continue,
                },
                None => parameter.clone(),
            };
            let Some(name) = parameter.name.clone() else {
                continue;
            };
            let location = parameter.location.clone().unwrap_or_default();
            out.insert((name, location), parameter);
        }
        Ok(out)
    }

    fn operation(
        &self,
        template: &Template,
        method: &str,
        shared: &BTreeMap<(String, String), Parameter>,
        op: &DocOperation,
    ) -> Result<Operation, SpecError> {
        let mut parameters = shared.clone();
        parameters.extend(self.parameters(&op.parameters)?);
        let mut operation = Operation {
            method: method.to_ascii_uppercase(),
            path: template.as_str().to_owned(),
            path_params: template
                .variables()
                .map(|v| (v.to_owned(), Shape::Any))
                .collect(),
            query: BTreeMap::new(),
            form: BTreeMap::new(),
            unlocated: BTreeMap::new(),
            body: None,
            required: Required::default(),
            responses: BTreeMap::new(),
        };
        for ((name, location), parameter) in &parameters {
            let place = match location.as_str() {
                "path" if template.has_variable(name) => Place::Path,
                "query" => Place::Query,
                "formData" => Place::Form,
                "body" => Place::Body,
                "header" | "cookie" => Place::Ignored,
                _ => Place::Unlocated,
            };
            let shape = match (&parameter.schema, place) {
                (Some(schema), _) => self.shape(schema, &mut Vec::new())?,
                (None, Place::Body) => Shape::Any,
                (None, _) => {
                    let mut schema = Map::new();
                    if let Some(kind) = &parameter.kind {
                        schema.insert("type".into(), kind.clone());
                    }
                    if let Some(items) = &parameter.items {
                        schema.insert("items".into(), items.clone());
                    }
                    if let Some(values) = &parameter.values {
                        schema.insert("enum".into(), values.clone());
                    }
                    self.shape(&Value::Object(schema), &mut Vec::new())?
                }
            };
            let required = parameter.required == Some(Value::Bool(true));
            if let (Place::Body, Some(schema)) = (place, &parameter.schema) {
                let mut keys = BTreeSet::new();
                self.required_keys(schema, "$", &mut Vec::new(), &mut keys);
                operation.required.body.extend(keys);
            }
            if required {
                match place {
                    Place::Query => {
                        operation.required.query.insert(name.clone());
                    }
                    Place::Form => {
                        operation.required.form.insert(name.clone());
                    }
                    Place::Body => {
                        operation.required.body.insert("$".to_owned());
                    }
                    Place::Path | Place::Unlocated | Place::Ignored => {}
                }
            }
            let name = name.clone();
            match place {
                Place::Path => {
                    operation.path_params.insert(name, shape);
                }
                Place::Query => {
                    operation.query.insert(name, shape);
                }
                Place::Form => {
                    operation.form.insert(name, shape);
                }
                Place::Body => operation.body = Some(shape),
                Place::Unlocated => {
                    operation.unlocated.insert(name, shape);
                }
                Place::Ignored => {}
            }
        }
        if let Some(body) = &op.request_body {
            let resolved;
            let body = match &body.reference {
                Some(reference) => match self.resolved::<RequestBody>(reference)? {
                    Some(found) => {
                        resolved = found;
                        &resolved
                    }
                    None => {
                        operation.body = Some(Shape::Unresolved(reference.clone()));
                        body
                    }
                },
                None => body,
            };
            self.request_body(body, &mut operation)?;
        }
        for (status, response) in &op.responses {
            let resolved;
            let response = match &response.reference {
                Some(reference) => match self.resolved::<Response>(reference)? {
                    Some(found) => {
                        resolved = found;
                        &resolved
                    }
                    None => {
                        let shape = Shape::Unresolved(reference.clone());
                        operation.responses.insert(status.clone(), Some(shape));
                        continue;
                    }
                },
                None => response,
            };
            let schema = response
                .schema
                .as_ref()
                .or_else(|| json_media(&response.content).and_then(|m| m.schema.as_ref()));
            let shape = match schema {
                Some(schema) => Some(self.shape(schema, &mut Vec::new())?),
                None => None,
            };
            operation.responses.insert(status.clone(), shape);
        }
        Ok(operation)
    }

    /// An OpenAPI 3 request body: JSON into `body`, a form into `form`, with what each marks
    /// required.
    fn request_body(&self, body: &RequestBody, operation: &mut Operation) -> Result<(), SpecError> {
        let required = body.required == Some(Value::Bool(true));
        if let Some(media) = json_media(&body.content) {
            if let Some(schema) = &media.schema {
                operation.body = Some(self.shape(schema, &mut Vec::new())?);
                let mut keys = BTreeSet::new();
                self.required_keys(schema, "$", &mut Vec::new(), &mut keys);
                operation.required.body.extend(keys);
            }
            if required {
                operation.required.body.insert("$".to_owned());
            }
            return Ok(());
        }
        let form = body.content.iter().find(|(kind, _)| {
            kind.starts_with("multipart/form-data")
                || kind.starts_with("application/x-www-form-urlencoded")
        });
        if let Some((_, media)) = form {
            if let Some(schema) = &media.schema {
                match self.shape(schema, &mut Vec::new())? {
                    Shape::Object(fields) => {
                        operation.form.extend(fields);
                        // A form's fields are flat: only its top-level required keys count.
                        let mut keys = BTreeSet::new();
                        self.required_keys(schema, "$", &mut Vec::new(), &mut keys);
                        operation.required.form.extend(
                            keys.iter()
                                .filter_map(|k| k.strip_prefix("$."))
                                .filter(|k| !k.contains(['.', '[']))
                                .map(str::to_owned),
                        );
                    }
                    other => operation.body = Some(other),
                }
            }
            return Ok(());
        }
        if let Some(schema) = body.content.values().find_map(|m| m.schema.as_ref()) {
            operation.body = Some(self.shape(schema, &mut Vec::new())?);
        }
        Ok(())
    }

    /// A schema's shape. `stack` holds the references being expanded, to cut cycles.
    fn shape(&self, schema: &Value, stack: &mut Vec<String>) -> Result<Shape, SpecError> {
        let Value::Object(schema) = schema else {
            return Ok(Shape::Any);
        };
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            if stack.iter().any(|r| r == reference) {
                let name = reference.rsplit('/').next().unwrap_or(reference);
                return Ok(Shape::Cycle(name.to_owned()));
            }
            let Ok(target) = self.target(reference) else {
                return Ok(Shape::Unresolved(reference.to_owned()));
            };
            stack.push(reference.to_owned());
            let shape = self.shape(target, stack);
            stack.pop();
            return shape;
        }
        if let Some(Value::Array(parts)) = schema.get("allOf") {
            let parts = parts
                .iter()
                .map(|p| self.shape(p, stack))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(merge_all_of(parts));
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(options)) = schema.get(key) {
                let mut shapes: Vec<Shape> = Vec::new();
                for option in options {
                    let shape = self.shape(option, stack)?;
                    if !shapes.contains(&shape) {
                        shapes.push(shape);
                    }
                }
                return Ok(match shapes.len() {
                    0 => Shape::Any,
                    1 => shapes.swap_remove(0),
                    _ => Shape::AnyOf(shapes),
                });
            }
        }
        let kind = match schema.get("type") {
            Some(Value::String(kind)) => Some(kind.as_str()),
            // OpenAPI 3.1: ["string", "null"].
            Some(Value::Array(kinds)) => kinds
                .iter()
                .filter_map(Value::as_str)
                .find(|k| *k != "null"),
            _ => None,
        };
        let properties = schema.get("properties").and_then(Value::as_object);
        let scalar = |shape: Shape| enumerated(shape, schema.get("enum"));
        Ok(match kind {
            Some("array") => self.array(schema, stack)?,
            Some("object") => self.object(properties, stack)?,
            Some("string" | "date" | "date-time") => scalar(Shape::String),
            Some("integer") => scalar(Shape::Integer),
            Some("number") => scalar(Shape::Number),
            Some("boolean") => scalar(Shape::Boolean),
            Some("file") => Shape::File,
            Some(_) => scalar(Shape::Any),
            None if properties.is_some() => self.object(properties, stack)?,
            None if schema.contains_key("items") => self.array(schema, stack)?,
            None => scalar(Shape::Any),
        })
    }

    /// The JSON paths of the keys a schema marks required (`required: [...]` of an object),
    /// under `at`: through references (a reference back into itself stops), `allOf` parts,
    /// object properties and array items (`[]`). `oneOf`/`anyOf` alternatives are not read:
    /// which one a body follows is not known beforehand, so none of their keys is required.
    fn required_keys(
        &self,
        schema: &Value,
        at: &str,
        stack: &mut Vec<String>,
        out: &mut BTreeSet<String>,
    ) {
        let Value::Object(schema) = schema else {
            return;
        };
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            if stack.iter().any(|r| r == reference) {
                return;
            }
            if let Ok(target) = self.target(reference) {
                stack.push(reference.to_owned());
                self.required_keys(target, at, stack, out);
                stack.pop();
            }
            return;
        }
        if let Some(Value::Array(parts)) = schema.get("allOf") {
            for part in parts {
                self.required_keys(part, at, stack, out);
            }
            return;
        }
        if let Some(Value::Array(names)) = schema.get("required") {
            out.extend(
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|name| format!("{at}.{name}")),
            );
        }
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                self.required_keys(property, &format!("{at}.{name}"), stack, out);
            }
        }
        if let Some(items) = schema.get("items") {
            self.required_keys(items, &format!("{at}[]"), stack, out);
        }
    }

    fn array(
        &self,
        schema: &Map<String, Value>,
        stack: &mut Vec<String>,
    ) -> Result<Shape, SpecError> {
        let item = match schema.get("items") {
            Some(items) => self.shape(items, stack)?,
            None => Shape::Any,
        };
        Ok(Shape::Array(Box::new(item)))
    }

    fn object(
        &self,
        properties: Option<&Map<String, Value>>,
        stack: &mut Vec<String>,
    ) -> Result<Shape, SpecError> {
        match properties {
            Some(properties) if !properties.is_empty() => properties
                .iter()
                .map(|(k, v)| Ok((k.clone(), self.shape(v, stack)?)))
                .collect::<Result<BTreeMap<_, _>, SpecError>>()
                .map(Shape::Object),
            _ => Ok(Shape::FreeObject),
        }
    }
}

/// A scalar with the document's `enum`, when it has one that says something: its string,
/// number and boolean values in the document's order, each once (`null`, which conforms
/// anywhere, and structured values are left out); an enumeration of both booleans is the
/// boolean type itself.
fn enumerated(shape: Shape, declared: Option<&Value>) -> Shape {
    let Some(Value::Array(declared)) = declared else {
        return shape;
    };
    let mut values: Vec<Value> = Vec::new();
    for value in declared {
        if matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_))
            && !values.contains(value)
        {
            values.push(value.clone());
        }
    }
    let both_booleans = shape == Shape::Boolean
        && values.contains(&Value::Bool(true))
        && values.contains(&Value::Bool(false));
    if values.is_empty() || both_booleans {
        return shape;
    }
    Shape::Enum {
        of: Box::new(shape),
        values,
    }
}

/// The JSON media type of a content map (`application/json`, or any `+json` / `json` kind).
fn json_media(content: &BTreeMap<String, MediaType>) -> Option<&MediaType> {
    content.get("application/json").or_else(|| {
        content
            .iter()
            .find(|(kind, _)| kind.contains("json"))
            .map(|(_, m)| m)
    })
}

/// `allOf`: objects merge their keys (a later part wins a key both list); a part that is a
/// cycle makes the whole a cycle; otherwise the first part that says anything.
fn merge_all_of(parts: Vec<Shape>) -> Shape {
    if let Some(cycle) = parts.iter().find(|p| matches!(p, Shape::Cycle(_))) {
        return cycle.clone();
    }
    let objects = parts
        .iter()
        .all(|p| matches!(p, Shape::Object(_) | Shape::FreeObject | Shape::Any));
    if objects && parts.iter().any(|p| !matches!(p, Shape::Any)) {
        let mut keys = BTreeMap::new();
        for part in parts {
            if let Shape::Object(part) = part {
                keys.extend(part);
            }
        }
        return if keys.is_empty() {
            Shape::FreeObject
        } else {
            Shape::Object(keys)
        };
    }
    parts
        .into_iter()
        .find(|p| !matches!(p, Shape::Any))
        .unwrap_or(Shape::Any)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn surface(document: Value) -> Surface {
        let bytes = serde_json::to_vec(&document).expect("bytes");
        import(ImportInput {
            api: "demo",
            bytes: &bytes,
            provenance: SourceProvenance::default(),
        })
        .expect("imports")
    }

    #[test]
    fn api_names_come_from_file_names() {
        assert_eq!(api_name("admin-swagger.json"), "admin");
        assert_eq!(api_name("dir/customers.openapi.json"), "customers");
        assert_eq!(api_name("content.json"), "content");
    }

    #[test]
    fn misplaced_and_unlocated_parameters_are_kept_apart() {
        let s = surface(json!({
            "swagger": "2.0", "basePath": "/api/x/",
            "paths": {"/things/{id}": {"delete": {
                "parameters": [
                    {"name": "id", "in": "path", "type": "integer"},
                    {"name": "validation", "in": "path", "type": "string"},
                    {"name": "token", "in": "header", "type": "string"},
                    {"name": "loose", "type": "string"}
                ],
                "responses": {"200": {"description": "ok"}}
            }}}
        }));
        assert_eq!(s.base_path, "/api/x");
        let op = &s.operations[0];
        assert_eq!(op.path_params["id"], Shape::Integer);
        assert_eq!(
            op.unlocated.keys().collect::<Vec<_>>(),
            ["loose", "validation"]
        );
        assert!(op.query.is_empty());
        assert_eq!(op.responses["200"], None);
    }

    #[test]
    fn cycles_are_cut_and_all_of_merges() {
        let s = surface(json!({
            "swagger": "2.0",
            "paths": {"/n": {"get": {"responses": {"200": {"schema": {"$ref": "#/definitions/Node"}}}}}},
            "definitions": {
                "Base": {"properties": {"id": {"type": "integer"}}},
                "Node": {"allOf": [
                    {"$ref": "#/definitions/Base"},
                    {"properties": {"next": {"$ref": "#/definitions/Node"}, "at": {"type": "date-time"}}}
                ]}
            }
        }));
        let body = s.operations[0].responses["200"].clone().expect("a body");
        assert_eq!(
            serde_json::to_value(&body).expect("writes"),
            json!({"object": {"at": "string", "id": "integer", "next": {"cycle": "Node"}}})
        );
    }

    #[test]
    fn enumerations_are_kept_where_they_say_something() {
        let s = surface(json!({
            "swagger": "2.0",
            "paths": {"/sites": {"get": {
                "parameters": [
                    {"name": "status", "in": "query", "type": "string", "enum": ["enabled", "draft", "enabled"]},
                    {"name": "states[]", "in": "query", "type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
                    {"name": "all", "in": "query", "type": "boolean", "enum": [false, true]}
                ],
                "responses": {"200": {"schema": {"properties": {
                    "status": {"type": "integer", "enum": [0, 2, null]},
                    "tags": {"type": "object", "enum": [{}]}
                }}}}
            }}}
        }));
        let op = &s.operations[0];
        let written = |shape: &Shape| serde_json::to_value(shape).expect("writes");
        assert_eq!(
            written(&op.query["status"]),
            json!({"string": ["enabled", "draft"]})
        );
        assert_eq!(
            written(&op.query["states[]"]),
            json!({"array": {"string": ["a", "b"]}})
        );
        assert_eq!(op.query["all"], Shape::Boolean);
        let body = op.responses["200"].as_ref().expect("a body");
        assert_eq!(
            written(body),
            json!({"object": {"status": {"integer": [0, 2]}, "tags": "object"}})
        );
    }

    #[test]
    fn unresolved_references_are_kept_and_unknown_versions_are_errors() {
        let s = surface(json!({
            "swagger": "2.0",
            "paths": {"/n": {"get": {
                "parameters": [{"$ref": "#/parameters/Gone"}],
                "responses": {"200": {"schema": {"$ref": "#/definitions/Gone"}}}
            }}}
        }));
        // A schema reference is a fact of the document; a parameter reference names nothing.
        assert_eq!(
            s.operations[0].responses["200"],
            Some(Shape::Unresolved("#/definitions/Gone".into()))
        );
        let err = import(ImportInput {
            api: "demo",
            bytes: br#"{"swagger": "1.2", "paths": {}}"#,
            provenance: SourceProvenance::default(),
        })
        .expect_err("old");
        assert!(err.to_string().contains("neither Swagger 2.0"), "{err}");
    }
}
