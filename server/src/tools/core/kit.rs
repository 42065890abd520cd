//! Plumbing shared by the core and customers tools: lookups by id or by a name-like key,
//! list pages, the replies of reads and writes, confirmations, read-back checks (C7) and the
//! reply of fan-out bulk tools (the requests themselves run through `tools::fanout`).
//!
//! Both modules are account-administration CRUD over similar collections, so one
//! [`Collection`] describes each (path, root key, resource type, how names resolve) and the
//! tools only say what differs. It lives under `core` because `tools/mod.rs` registers modules,
//! not helpers; customers imports it from here.

use reqwest::Method;
use serde_json::{Map, Value, json};

use crate::contract::schema;
use crate::contract::{
    Control, Coverage, ErrorCode, Mode, Outcome, PostCondition, Reply, Resource, ToolError, legacy,
};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{ListPage, ModyoClient, Query};
use crate::tools::fanout::FanOut;
use crate::tools::{Call, CallError, ToolResult};

/// How much of an entity a tool needs after resolving it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    /// Its id is enough (the write's response says the rest).
    Id,
    /// The object itself (it is the payload, or a check reads it).
    Object,
}

/// How a non-numeric identifier is matched (catalogue "Heuristic resolution").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum By {
    /// Exact `name`, then `name` without regard to case (groups, forms, data sets, ...).
    Name,
    /// Exact `email`, then without regard to case (people).
    Email,
    /// Exact `key` (roles).
    Key,
}

impl By {
    fn stages(self, input: &str) -> Vec<Stage<'_>> {
        match self {
            By::Name => vec![
                Stage::exact("name", "name", input),
                Stage::caseless("name without case", "name", input),
            ],
            By::Email => vec![
                Stage::exact("email", "email", input),
                Stage::caseless("email without case", "email", input),
            ],
            By::Key => vec![Stage::exact("key", "key", input)],
        }
    }

    fn label(self) -> &'static str {
        match self {
            By::Name => "name",
            By::Email => "email",
            By::Key => "key",
        }
    }
}

/// One Modyo collection: where it lives and how its members are named and echoed.
#[derive(Debug, Clone)]
pub(crate) struct Collection {
    /// The `resource.type` of a member (`group`, `realm_user`).
    pub(crate) kind: &'static str,
    /// A member, for messages (`group`, `data set`).
    pub(crate) what: &'static str,
    /// The collection path (`/api/admin/groups`).
    pub(crate) path: String,
    /// The list root key (`groups`).
    pub(crate) root: &'static str,
    /// How a non-numeric identifier resolves.
    pub(crate) by: By,
    /// Whether the lookup narrows the list with `query=<input>` first (people).
    pub(crate) query_filter: bool,
    /// The key echoed as `resource.slug` (`email`, `key`, `uid`).
    pub(crate) slug_key: Option<&'static str>,
    /// The key of the entity in the old write payloads (`user`, `group`).
    pub(crate) legacy_key: &'static str,
    /// What to call to see the members (for not-found messages).
    pub(crate) hint: &'static str,
}

/// An entity resolved from an id, a name, an email or a key.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    /// Its numeric id.
    pub(crate) id: u64,
    /// The object, when the lookup read it (always with [`Need::Object`]).
    pub(crate) object: Option<Value>,
}

impl Found {
    /// The object (an empty object when only the id was resolved).
    pub(crate) fn object(&self) -> Value {
        self.object.clone().unwrap_or_else(|| json!({}))
    }
}

impl Collection {
    /// `<path>/<id>`.
    pub(crate) fn item(&self, id: u64) -> String {
        format!("{}/{id}", self.path)
    }

    /// The `resource` echo of a member (C4); `id` fills in when the object lacks one.
    pub(crate) fn resource(&self, object: &Value, id: Option<u64>) -> Resource {
        let resource = Resource::from_object(self.kind, object, self.slug_key);
        match (resource.id_value().is_none(), id) {
            (true, Some(id)) => resource.id(id),
            _ => resource,
        }
    }

    /// Reads one member by id; a 404 says what to call to see the members.
    pub(crate) async fn fetch(&self, client: &ModyoClient, id: u64) -> Result<Value, ToolError> {
        client
            .get(&self.item(id), &Query::new())
            .await
            .map_err(|e| {
                let not_found = e.is_not_found();
                let error = ToolError::from(e);
                if not_found {
                    error.with_message(format!("{} {id} not found; {}", self.what, self.hint))
                } else {
                    error
                }
            })
    }

    /// Resolves an id (all digits) or a name-like identifier into one member. A name walks
    /// every page of the collection and never guesses (`ambiguous`, `not_found`).
    pub(crate) async fn find(
        &self,
        client: &ModyoClient,
        input: &str,
        need: Need,
    ) -> Result<Found, ToolError> {
        let input = input.trim();
        if input.is_empty() {
            return Err(ToolError::invalid_parameters(format!(
                "the {} identifier is empty; pass an id or a {}",
                self.what,
                self.by.label()
            )));
        }
        if is_id(input) {
            let id = parse_id(input, self.what)?;
            let object = match need {
                Need::Id => None,
                Need::Object => Some(self.fetch(client, id).await?),
            };
            return Ok(Found { id, object });
        }
        self.lookup(client, input).await
    }

    /// Resolves a name-like identifier only (never as an id: an upsert's natural key may be
    /// all digits), walking every page of the collection.
    pub(crate) async fn lookup(
        &self,
        client: &ModyoClient,
        input: &str,
    ) -> Result<Found, ToolError> {
        let items = self.walk(client, input).await?;
        self.pick_from(&items, input)
    }

    /// Resolves several identifiers with at most one walk of the collection (a call that
    /// names a source and a target reads the list once).
    pub(crate) async fn find_each(
        &self,
        client: &ModyoClient,
        inputs: &[&str],
    ) -> Result<Vec<Found>, ToolError> {
        let inputs: Vec<&str> = inputs.iter().map(|i| i.trim()).collect();
        let name = inputs.iter().find(|i| !is_id(i));
        let items = match name {
            Some(name) => self.walk(client, name).await?,
            None => Vec::new(),
        };
        inputs
            .iter()
            .map(|input| {
                if is_id(input) {
                    Ok(Found {
                        id: parse_id(input, self.what)?,
                        object: None,
                    })
                } else {
                    self.pick_from(&items, input)
                }
            })
            .collect()
    }

    async fn walk(&self, client: &ModyoClient, input: &str) -> Result<Vec<Value>, ToolError> {
        let filters = if self.query_filter {
            Query::new().push("query", input)
        } else {
            Query::new()
        };
        Ok(walk(client, &self.path, self.root, &filters).await?.0)
    }

    fn pick_from(&self, items: &[Value], input: &str) -> Result<Found, ToolError> {
        let keys: Vec<&str> = self.slug_key.into_iter().chain(["context"]).collect();
        let found = pick(self.what, input, items, &self.by.stages(input))
            .map_err(|e| self.hinted(with_candidates(e, items, &keys)))?;
        Ok(Found {
            id: id_of(found, self.what)?,
            object: Some(found.clone()),
        })
    }

    fn hinted(&self, error: ToolError) -> ToolError {
        if error.code() == ErrorCode::NotFound {
            let message = format!("{}; {}", error.message(), self.hint);
            error.with_message(message)
        } else {
            error
        }
    }

    /// One page of the collection (`page`, `per_page` and filters in `query`).
    pub(crate) async fn page(
        &self,
        client: &ModyoClient,
        query: &Query,
    ) -> Result<ListPage, CallError> {
        Ok(client.list(&self.path, self.root, query).await?)
    }
}

/// Whether a lookup error means "nothing has that key" (a lookup miss carries no HTTP
/// status; a 404 of the list endpoint itself does, and is a real failure).
pub(crate) fn is_miss(error: &ToolError) -> bool {
    error.code() == ErrorCode::NotFound && error.status().is_none()
}

/// Adds what tells the candidates of an `ambiguous` lookup apart (their email, key, uid or
/// context) to the `{id, name}` the resolver lists.
pub(crate) fn with_candidates(error: ToolError, items: &[Value], keys: &[&str]) -> ToolError {
    if error.code() != ErrorCode::Ambiguous || keys.is_empty() {
        return error;
    }
    let ids: Vec<Value> = match error.to_value().get("candidates") {
        Some(Value::Array(candidates)) => candidates
            .iter()
            .filter_map(|c| c.get("id").cloned())
            .collect(),
        _ => return error,
    };
    let candidates: Vec<Value> = items
        .iter()
        .filter(|item| item.get("id").is_some_and(|id| ids.contains(id)))
        .map(|item| {
            let mut candidate = Map::new();
            for key in ["id", "name"].iter().chain(keys) {
                if let Some(value) = item.get(*key) {
                    candidate.insert((*key).to_owned(), value.clone());
                }
            }
            Value::Object(candidate)
        })
        .collect();
    error.detail("candidates", Value::Array(candidates))
}

/// Parses an all-digit identifier.
pub(crate) fn parse_id(input: &str, what: &str) -> Result<u64, ToolError> {
    input
        .parse()
        .map_err(|_| ToolError::invalid_parameters(format!("{what} id '{input}' is too large")))
}

/// The numeric `id` of an API object, or `invalid_upstream_response`.
pub(crate) fn id_of(object: &Value, what: &str) -> Result<u64, ToolError> {
    match object.get("id") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) if is_id(s) => s.parse().ok(),
        _ => None,
    }
    .ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!("the API returned a {what} without a numeric id"),
        )
    })
}

/// A JSON object of the given fields, skipping the absent ones (the write body: only what
/// the caller asked to change is sent).
pub(crate) fn body(fields: Vec<(&str, Option<Value>)>) -> Value {
    let map: Map<String, Value> = fields
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
        .collect();
    Value::Object(map)
}

/// Whether a write body carries nothing.
pub(crate) fn is_empty(body: &Value) -> bool {
    body.as_object().is_none_or(Map::is_empty)
}

/// A required argument of an action, or the JSON-RPC argument error that names it.
pub(crate) fn required<T>(value: Option<T>, action: &str, what: &str) -> Result<T, CallError> {
    value.ok_or_else(|| CallError::Arguments(format!("{action} needs {what}")))
}

/// The arguments error of a `-manage` call that gives mutating fields without an action.
pub(crate) fn action_required(fields: &str) -> CallError {
    CallError::Arguments(format!(
        "action is required when {fields} are given; without an action the call is a get"
    ))
}

/// C7: the API must have persisted `wanted` under `key`, or the call fails visibly.
pub(crate) fn check_persisted(
    object: &Value,
    key: &str,
    wanted: &Value,
    what: &str,
) -> Result<(), ToolError> {
    let got = object.get(key).unwrap_or(&Value::Null);
    if got == wanted {
        Ok(())
    } else {
        Err(ToolError::new(
            ErrorCode::PersistedMismatch,
            format!(
                "{what}: the write was sent with {key} = {wanted} but the API persisted {key} = {got}; read it again before retrying"
            ),
        )
        .detail("field", key)
        .detail("sent", wanted.clone())
        .detail("persisted", got.clone()))
    }
}

/// A list page as a reply: `{<root>: items}` inside a `-manage` tool (`wrap`), the bare array
/// in a list tool; coverage from `meta` (C5, C6); the container as `resource` when there is
/// one; the old payload with `meta` echoed (C21).
pub(crate) fn list_reply(
    mode: Mode,
    root: &str,
    page: ListPage,
    wrap: bool,
    container: Option<Resource>,
) -> Outcome {
    let coverage = Coverage::page(page.items.len(), page.meta.as_ref());
    let items = Value::Array(page.items);
    let old =
        (mode == Mode::Legacy).then(|| legacy::list(root, items.clone(), page.raw_meta.as_ref()));
    let data = if wrap {
        let mut map = Map::new();
        map.insert(root.to_owned(), items);
        Value::Object(map)
    } else {
        items
    };
    let mut reply = Reply::new(data).state(coverage);
    if let Some(container) = container {
        reply = reply.resource(container);
    }
    reply.legacy(mode, || old.unwrap_or_default()).into()
}

/// A read of one entity: the object is `data`, its identity is `resource`.
pub(crate) fn object_reply(mode: Mode, resource: Resource, object: Value) -> Outcome {
    let old = (mode == Mode::Legacy).then(|| object.clone());
    Reply::new(object)
        .resource(resource)
        .legacy(mode, || old.unwrap_or_default())
        .into()
}

/// A write: `data` is the object as persisted (C7), `state.status` what happened, and the old
/// `{message, action, <entity>}` payload.
pub(crate) fn written(
    mode: Mode,
    resource: Resource,
    object: Value,
    state: PostCondition,
    old_action: &str,
    old_message: String,
    legacy_key: &str,
) -> Outcome {
    let old = (mode == Mode::Legacy)
        .then(|| legacy::write(old_action, old_message, legacy_key, object.clone()));
    Reply::new(object)
        .resource(resource)
        .state(state)
        .legacy(mode, || old.unwrap_or_default())
        .into()
}

/// A delete that ran: `data` is null, `state.status` is `deleted`.
pub(crate) fn deleted(
    mode: Mode,
    resource: Resource,
    old_message: String,
    id_key: &str,
    id: Value,
) -> Outcome {
    Reply::new(Value::Null)
        .resource(resource)
        .state(PostCondition::status("deleted"))
        .legacy(mode, || {
            let mut old = Map::new();
            old.insert("message".into(), Value::from(old_message));
            old.insert("action".into(), Value::from("deleted"));
            old.insert(id_key.to_owned(), id);
            Value::Object(old)
        })
        .into()
}

/// `list`: one page of the collection (`page`, `per_page` and filters in `query`), under its
/// root key, with coverage, and `container` (the realm, the team) as `resource`.
pub(crate) async fn list_page(
    call: &Call,
    coll: &Collection,
    query: &Query,
    container: Option<Resource>,
) -> ToolResult {
    let page = coll.page(call.client()?, query).await?;
    Ok(list_reply(call.mode, coll.root, page, true, container))
}

/// `get`: resolves `input` (id or name-like key) and answers with the object.
pub(crate) async fn get_one(call: &Call, coll: &Collection, input: &str) -> ToolResult {
    let client = call.client()?;
    let found = coll.find(client, input, Need::Object).await?;
    let object = found.object();
    Ok(object_reply(
        call.mode,
        coll.resource(&object, Some(found.id)),
        object,
    ))
}

/// `create`: `POST` the body to the collection; the answer is the created object (C7).
pub(crate) async fn create_one(call: &Call, coll: &Collection, request: &Value) -> ToolResult {
    let client = call.client()?;
    let response = client
        .send(Method::POST, &coll.path, &Query::new(), Some(request))
        .await?;
    let object = created_object(response, coll.what)?;
    Ok(written(
        call.mode,
        coll.resource(&object, None),
        object,
        PostCondition::status("created"),
        "created",
        format!("{} created successfully", capitalized(coll.what)),
        coll.legacy_key,
    ))
}

/// `update`-like writes: `PUT` the body to the member and read it back (C7); `check` names
/// a key whose persisted value must equal what was sent (`enabled` for enable/disable).
pub(crate) async fn put_one(
    call: &Call,
    coll: &Collection,
    input: &str,
    request: &Value,
    status: &str,
    check: Option<&str>,
) -> ToolResult {
    let client = call.client()?;
    let found = coll.find(client, input, Need::Id).await?;
    let what = format!("{} {}", coll.what, found.id);
    let object = put_checked(client, &coll.item(found.id), request, check, &what).await?;
    Ok(written(
        call.mode,
        coll.resource(&object, Some(found.id)),
        object,
        PostCondition::status(status),
        status,
        format!("{} {status} successfully", capitalized(coll.what)),
        coll.legacy_key,
    ))
}

/// `delete`: needs `confirmDelete: true` (else `control`), then `DELETE`; `data` is null.
pub(crate) async fn delete_one(
    call: &Call,
    coll: &Collection,
    tool: &str,
    input: &str,
    confirm: Option<bool>,
) -> ToolResult {
    if let Err(control) = confirmed(confirm, tool, "delete") {
        return Ok(control);
    }
    let client = call.client()?;
    let found = coll.find(client, input, Need::Object).await?;
    client
        .send(Method::DELETE, &coll.item(found.id), &Query::new(), None)
        .await?;
    Ok(deleted(
        call.mode,
        coll.resource(&found.object(), Some(found.id)),
        format!("{} permanently deleted", capitalized(coll.what)),
        &format!("{}Id", coll.legacy_key),
        Value::from(found.id),
    ))
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A destructive action without `confirmDelete: true` did not run (C18).
pub(crate) fn unconfirmed(tool: &str, action: &str) -> Outcome {
    let control = Control::cancelled_unconfirmed(tool, action);
    let legacy = json!({"message": control.message(), "action": "cancelled"});
    Outcome::Control { control, legacy }
}

/// Whether a destructive action may run; `Err` carries the `control` answer.
pub(crate) fn confirmed(confirm: Option<bool>, tool: &str, action: &str) -> Result<(), Outcome> {
    if confirm == Some(true) {
        Ok(())
    } else {
        Err(unconfirmed(tool, action))
    }
}

/// The data schema of a `-manage` tool (C15): the echoed entity, plus the list root key for
/// the `list` action. One loose object, every field optional.
pub(crate) fn manage_schema(item: Value, root: &str) -> Value {
    let mut data = item.clone();
    data["properties"][root] = schema::array(item);
    data
}

/// The persisted object after a write (C7): the response body when it is an object, else a
/// re-read of `path` (a `204` or an empty `200`).
pub(crate) async fn read_back(
    client: &ModyoClient,
    response: Value,
    path: &str,
) -> Result<Value, ToolError> {
    if response.is_object() {
        return Ok(response);
    }
    Ok(client.get(path, &Query::new()).await?)
}

/// `PUT request` to `path`: the object as persisted (C7), and, when `check` names a key of
/// the request, the persisted value of that key must be the one sent (`what` names the object
/// in the `persisted_mismatch` error).
pub(crate) async fn put_checked(
    client: &ModyoClient,
    path: &str,
    request: &Value,
    check: Option<&str>,
    what: &str,
) -> Result<Value, ToolError> {
    let response = client
        .send(Method::PUT, path, &Query::new(), Some(request))
        .await?;
    let object = read_back(client, response, path).await?;
    if let Some(key) = check {
        let wanted = request.get(key).cloned().unwrap_or(Value::Null);
        check_persisted(&object, key, &wanted, what)?;
    }
    Ok(object)
}

/// The object a create answered with (C7: it is what was persisted). A create that answers
/// without the object cannot say what it made, so that is an `invalid_upstream_response`.
pub(crate) fn created_object(response: Value, what: &str) -> Result<Value, ToolError> {
    if response.get("id").is_some() {
        Ok(response)
    } else {
        Err(ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!(
                "the API accepted the new {what} but answered without it (no id); list the collection to find it before retrying"
            ),
        ))
    }
}

// ---------------------------------------------------------------------------------------------
// Fan-out bulk (catalogue "Bulk and async"): the requests run through `tools::fanout`.

/// The reply of a fan-out bulk tool: `data.succeeded` (the ids, in input order),
/// `data.failed` (`{index, error{code, message, ...}}`), `state.status` and `state.affected`,
/// no `resource` (C4). Every item failing with the same call-level error is one C16 error.
/// The old payload listed each item with a prose summary.
pub(crate) fn bulk_reply(mode: Mode, action: &str, out: FanOut) -> Result<Outcome, ToolError> {
    if let Some(error) = out.call_level() {
        return Err(error);
    }
    let succeeded: Vec<Value> = out.succeeded.iter().map(|(_, id)| id.clone()).collect();
    let affected = succeeded.len();
    let old = (mode == Mode::Legacy).then(|| {
        let failed = out.failed.len();
        json!({
            "message": format!("Bulk {action} finished: {affected} succeeded, {failed} failed"),
            "action": action,
            "succeeded": succeeded.clone(),
            "errors": out.failed.iter().map(|(index, e)| json!({"index": index, "error": e.message()})).collect::<Vec<_>>(),
            "summary": {"total": affected + failed, "succeeded": affected, "failed": failed},
        })
    });
    Ok(
        Reply::new(json!({"succeeded": succeeded, "failed": out.failed_json()}))
            .state(PostCondition::status(out.status()).affected(affected))
            .legacy(mode, || old.unwrap_or_default())
            .into(),
    )
}

/// The data schema of a fan-out bulk tool (strict: the server builds it).
pub(crate) fn bulk_schema() -> Value {
    let error = schema::strict(
        &[
            ("code", schema::string()),
            ("message", schema::string()),
            ("status", schema::integer()),
            ("retryable", schema::boolean()),
            ("retry_after_s", schema::integer()),
        ],
        &["code", "message"],
    );
    let failure = schema::strict(
        &[
            ("index", json!({"type": "integer", "minimum": 0})),
            ("error", error),
        ],
        &["index", "error"],
    );
    schema::strict(
        &[
            ("succeeded", schema::array(schema::id())),
            ("failed", schema::array(failure)),
        ],
        &["succeeded", "failed"],
    )
}

/// Keys the API owns: never sent back when copying an object.
const OWNED: [&str; 6] = [
    "id",
    "uuid",
    "origination_id",
    "created_at",
    "updated_at",
    "submissions_count",
];

/// A copy of an API object without the keys the API owns, at any depth (what a `-copy`
/// tool sends to create the copy).
pub(crate) fn without_owned(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !OWNED.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), without_owned(v)))
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_owned).collect()),
        other => other.clone(),
    }
}

/// Percent-encodes one path segment (realm uids and other identifiers the caller typed).
pub(crate) fn segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A `YYYY-MM-DD` date the API can parse (it drops a whole filter it cannot, and still
/// answers 200, so the check is local).
pub(crate) fn check_date(value: &str, what: &str) -> Result<(), ToolError> {
    let parts: Vec<&str> = value.split('-').collect();
    let ok = match parts.as_slice() {
        [y, m, d] if y.len() == 4 && m.len() == 2 && d.len() == 2 => {
            let num = |s: &str| s.parse::<u32>().ok();
            matches!((num(y), num(m), num(d)), (Some(_), Some(m), Some(d)) if (1..=12).contains(&m) && (1..=31).contains(&d))
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(ToolError::invalid_parameters(format!(
            "{what} '{value}' is not a YYYY-MM-DD date; the API would silently drop the whole filter"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bulk_reply_matches_its_schema_and_collapses_one_call_level_error() {
        let out = crate::tools::fanout::run(vec![7u64, 9], |_, id| async move {
            if id == 7 {
                Ok(json!(7))
            } else {
                Err(ToolError::not_found("user 9 not found")
                    .with_status(404)
                    .detail("tried", json!(["email"])))
            }
        })
        .await;
        let Ok(Outcome::Reply(reply)) = bulk_reply(Mode::Migrated, "activate", out) else {
            panic!("a reply")
        };
        assert_eq!(
            reply.data(),
            &json!({"succeeded": [7], "failed": [{"index": 1, "error": {"code": "not_found", "message": "user 9 not found", "status": 404}}]})
        );
        let validator =
            crate::contract::OutputValidator::new(bulk_schema().as_object().unwrap()).unwrap();
        assert!(validator.check(reply.data()).is_ok());
        let out = crate::tools::fanout::run(vec![1, 2], |_, _: i32| async {
            Err(ToolError::new(ErrorCode::Forbidden, "403").with_status(403))
        })
        .await;
        let err = bulk_reply(Mode::Migrated, "activate", out)
            .map(|_| ())
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::Forbidden);
    }

    #[test]
    fn dates_and_segments() {
        assert!(check_date("2026-03-04", "date_range").is_ok());
        for bad in ["2026-3-04", "04-03-2026", "2026-13-01", "2026-02-xx", ""] {
            assert!(check_date(bad, "date_range").is_err(), "{bad}");
        }
        assert_eq!(segment("mi realm/ñ"), "mi%20realm%2F%C3%B1");
        assert_eq!(segment("personas_2-b"), "personas_2-b");
    }

    #[test]
    fn check_persisted_names_both_values() {
        let err = check_persisted(
            &json!({"active": true}),
            "active",
            &json!(false),
            "admin user 7",
        )
        .unwrap_err();
        assert_eq!(err.code(), ErrorCode::PersistedMismatch);
        assert_eq!(err.to_value()["persisted"], json!(true));
        assert!(check_persisted(&json!({"active": false}), "active", &json!(false), "x").is_ok());
    }
}
