//! The document read with its references resolved: parameters by their place, request bodies,
//! responses and schemas turned into shapes (`allOf` merged, enumerations kept).

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::SpecError;
use crate::shape::Shape;
use crate::surface::{Operation, Required};
use modyo_replay::Template;

use super::{DocOperation, MediaType, Parameter, RequestBody, Response};

/// Resolves references against the whole document.
pub(super) struct Reader<'a> {
    pub(super) raw: &'a Value,
    pub(super) api: &'a str,
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
    pub(super) fn parameters(
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

    pub(super) fn operation(
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
