//! Collections: where the members of a kind of Modyo object live, how an identifier the
//! caller typed resolves into one of them (`server/CONTRACT.md`, "Name resolution"), and the
//! `resource` that echoes it (C4).
//!
//! A kind declares its static facts once ([`Member::RULES`]); a [`Collection`] is that kind at
//! one path (the account's groups, one realm's forms, one site's variables).

use std::marker::PhantomData;

use reqwest::Method;
use serde_json::{Map, Value};

use super::data::Echoed;
use super::persist;
use crate::contract::{ErrorCode, Resource, ToolError};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, is_id, pick};
use crate::modyo::{CmsError, ListPage, ModyoClient, Query};

/// How a non-numeric identifier is matched: stages tried in order (the first with any match
/// decides), and whether the list is narrowed with `query=<input>` first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Names {
    steps: &'static [(&'static str, &'static str, Match)],
    query: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Match {
    Exact,
    Caseless,
}

impl Names {
    /// Exact `name`, then `name` without regard to case (groups, forms, data sets, ...).
    pub(crate) const NAME: Names = Names {
        steps: &[
            ("name", "name", Match::Exact),
            ("name without case", "name", Match::Caseless),
        ],
        query: false,
    };
    /// Exact `email`, then without regard to case, the list narrowed by `query` (people).
    pub(crate) const EMAIL: Names = Names {
        steps: &[
            ("email", "email", Match::Exact),
            ("email without case", "email", Match::Caseless),
        ],
        query: true,
    };
    /// Exact `key` (roles).
    pub(crate) const KEY: Names = Names {
        steps: &[("key", "key", Match::Exact)],
        query: false,
    };
    /// Exact `slug`, then exact `name`, then `name` without case (realms).
    pub(crate) const SLUG_OR_NAME: Names = Names {
        steps: &[
            ("slug", "slug", Match::Exact),
            ("name", "name", Match::Exact),
            ("name without case", "name", Match::Caseless),
        ],
        query: false,
    };

    pub(crate) fn stages(self, input: &str) -> Vec<Stage<'_>> {
        self.steps
            .iter()
            .map(|(label, key, how)| match how {
                Match::Exact => Stage::exact(label, key, input),
                Match::Caseless => Stage::caseless(label, key, input),
            })
            .collect()
    }

    /// What a non-numeric identifier is matched against, for messages (`name`, `email`).
    pub(crate) fn label(self) -> &'static str {
        self.steps.first().map_or("id", |(_, key, _)| key)
    }
}

/// The static facts of a kind of object kept in collections.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules {
    /// `resource.type` of a member (`group`, `realm_user`).
    pub(crate) resource: &'static str,
    /// The list root key (`groups`).
    pub(crate) root: &'static str,
    /// The key a `-manage` tool's `list` answers under, when it is not the API's root key.
    pub(crate) listed: Option<&'static str>,
    /// How a non-numeric identifier resolves.
    pub(crate) names: Names,
    /// The key echoed as `resource.slug` (`email`, `key`, `slug`).
    pub(crate) slug: Option<&'static str>,
    /// The key of the entity in the old payloads (`user`, `dataSet`; C21).
    pub(crate) legacy: &'static str,
    /// The noun of the old canned messages, when it is not the capitalized name (`User`).
    pub(crate) noun: Option<&'static str>,
    /// The key of a deleted member's id in the old payloads, when it is not `<legacy>Id`.
    pub(crate) gone_key: Option<&'static str>,
    /// What to call to see the members (appended to `not_found` messages).
    pub(crate) hint: &'static str,
    /// Whether a member says it is published (`published`, else `status`), read back into
    /// the post-condition of a write (C5).
    pub(crate) published: bool,
    /// The key echoed as `resource.path` (pages).
    pub(crate) path: Option<&'static str>,
    /// The key echoed as `resource.uuid` when it is not `uuid` (a page widget's `wid`).
    pub(crate) uuid: Option<&'static str>,
}

impl Rules {
    /// A kind whose members are `resource`s listed under `root`, resolved by name, whose old
    /// payloads keyed them as `resource`.
    pub(crate) const fn new(resource: &'static str, root: &'static str) -> Rules {
        Rules {
            resource,
            root,
            listed: None,
            names: Names::NAME,
            slug: None,
            legacy: resource,
            noun: None,
            gone_key: None,
            hint: "",
            published: false,
            path: None,
            uuid: None,
        }
    }

    /// `list` answers under `key` rather than the API's root key (C15).
    pub(crate) const fn listed(mut self, key: &'static str) -> Rules {
        self.listed = Some(key);
        self
    }

    /// The key a `-manage` tool's `list` answers under.
    pub(crate) const fn list_key(self) -> &'static str {
        match self.listed {
            Some(key) => key,
            None => self.root,
        }
    }

    /// Members say whether they are published, and writes report it.
    pub(crate) const fn published(mut self) -> Rules {
        self.published = true;
        self
    }

    /// The keys echoed as `resource.path` and (instead of `uuid`) `resource.uuid`.
    pub(crate) const fn echo(
        mut self,
        path: Option<&'static str>,
        uuid: Option<&'static str>,
    ) -> Rules {
        self.path = path;
        self.uuid = uuid;
        self
    }

    /// How a non-numeric identifier resolves.
    pub(crate) const fn names(mut self, names: Names) -> Rules {
        self.names = names;
        self
    }

    /// The key echoed as `resource.slug`.
    pub(crate) const fn slug(mut self, key: &'static str) -> Rules {
        self.slug = Some(key);
        self
    }

    /// The key of the entity in the old payloads.
    pub(crate) const fn legacy(mut self, key: &'static str, noun: &'static str) -> Rules {
        self.legacy = key;
        self.noun = Some(noun);
        self
    }

    /// The key of a deleted member's id in the old payloads (`assetId`).
    pub(crate) const fn gone_key(mut self, key: &'static str) -> Rules {
        self.gone_key = Some(key);
        self
    }

    /// What to call to see the members.
    pub(crate) const fn hint(mut self, hint: &'static str) -> Rules {
        self.hint = hint;
        self
    }

    /// The keys of a member the engine relies on: `id`, the keys a name is matched against,
    /// and those it echoes as `resource.slug`, `.path` and `.uuid` (C4). The member's echoed
    /// type must declare each (`server.rs` refuses a tool whose type does not).
    pub(crate) fn keys_read(self) -> Vec<&'static str> {
        let mut keys = vec!["id"];
        let steps = self.names.steps.iter().map(|(_, key, _)| *key);
        for key in steps.chain(self.slug).chain(self.path).chain(self.uuid) {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys
    }
}

/// A kind of Modyo object kept in collections: echoed, listed under a root key, resolved by
/// its rules.
pub(crate) trait Member: Echoed {
    /// Its static facts.
    const RULES: Rules;

    /// The noun of the old canned messages (`Data set`).
    fn noun() -> String {
        match Self::RULES.noun {
            Some(noun) => noun.to_owned(),
            None => capitalized(Self::NAME),
        }
    }
}

/// How much of a member a call needs after resolving it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    /// Its id is enough (the write's response says the rest).
    Id,
    /// The object itself (it is the payload, or a check reads it).
    Object,
    /// Enough to echo its identity: the list row a name lookup read will do (a delete).
    Row,
}

/// A member resolved from an id or a name-like identifier.
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
        self.object
            .clone()
            .unwrap_or_else(|| Value::Object(Map::new()))
    }
}

/// The members of kind `T` at one path.
pub(crate) struct Collection<T> {
    /// The collection path (`/api/admin/groups`).
    pub(crate) path: String,
    /// Where the collection is, for messages (`site 12`, `the account`).
    within: Option<String>,
    kind: PhantomData<fn() -> T>,
}

impl<T> Clone for Collection<T> {
    fn clone(&self) -> Self {
        Collection {
            path: self.path.clone(),
            within: self.within.clone(),
            kind: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for Collection<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.path)
    }
}

impl<T> Collection<T> {
    /// The collection at `path`.
    pub(crate) fn at(path: impl Into<String>) -> Collection<T> {
        Collection {
            path: path.into(),
            within: None,
            kind: PhantomData,
        }
    }

    /// Where the collection is, as messages name it (`site 12`).
    pub(crate) fn place(&self) -> &str {
        self.within.as_deref().unwrap_or("the account")
    }

    /// The same collection, named in messages as being in `container` (`site 12`).
    pub(crate) fn within(mut self, container: impl Into<String>) -> Collection<T> {
        self.within = Some(container.into());
        self
    }
}

impl<T: Member> Collection<T> {
    /// `<path>/<id>`.
    pub(crate) fn item(&self, id: impl std::fmt::Display) -> String {
        format!("{}/{id}", self.path)
    }

    /// The `resource` echo of a member (C4); `id` fills in when the object lacks one.
    pub(crate) fn resource(&self, object: &Value, id: Option<u64>) -> Resource {
        let rules = T::RULES;
        let mut resource = Resource::from_object(rules.resource, object, rules.slug);
        let text = |key: Option<&str>| {
            key.and_then(|k| object.get(k))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        if let Some(uuid) = text(rules.uuid) {
            resource = resource.uuid(uuid);
        }
        if let Some(path) = text(rules.path) {
            resource = resource.path(path);
        }
        match (resource.id_value().is_none(), id) {
            (true, Some(id)) => resource.id(id),
            _ => resource,
        }
    }

    /// `<what> <id> not found[ in <within>]; <hint>`.
    fn missing_message(&self, id: u64) -> String {
        let within = self
            .within
            .as_ref()
            .map(|w| format!(" in {w}"))
            .unwrap_or_default();
        format!("{} {id} not found{within}; {}", T::NAME, T::RULES.hint)
    }

    /// Turns the 404 of a write to member `id` into a `not_found` that says what to call next.
    pub(crate) fn missing(&self, id: u64) -> impl FnOnce(ToolError) -> ToolError + use<T> {
        let message = self.missing_message(id);
        move |e| {
            if e.code() == ErrorCode::NotFound && e.status() == Some(404) {
                e.with_message(message)
            } else {
                e
            }
        }
    }

    /// Reads one member by id; a 404 says what to call to see the members.
    pub(crate) async fn fetch(&self, client: &ModyoClient, id: u64) -> Result<Value, ToolError> {
        client
            .get(&self.item(id), &Query::new())
            .await
            .map_err(self.not_found(id))
    }

    /// Turns a 404 of member `id` into a `not_found` that says what to call next.
    pub(crate) fn not_found(&self, id: u64) -> impl FnOnce(CmsError) -> ToolError + use<T> {
        let message = self.missing_message(id);
        move |e| {
            let not_found = e.is_not_found();
            let error = ToolError::from(e);
            if not_found {
                error.with_message(message)
            } else {
                error
            }
        }
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
                T::NAME,
                T::RULES.names.label()
            )));
        }
        if is_id(input) {
            let id = parse_id(input, T::NAME)?;
            let object = match need {
                Need::Id => None,
                Need::Object | Need::Row => Some(self.fetch(client, id).await?),
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
                        id: parse_id(input, T::NAME)?,
                        object: None,
                    })
                } else {
                    self.pick_from(&items, input)
                }
            })
            .collect()
    }

    async fn walk(&self, client: &ModyoClient, input: &str) -> Result<Vec<Value>, ToolError> {
        let filters = if T::RULES.names.query {
            Query::new().push("query", input)
        } else {
            Query::new()
        };
        Ok(walk(client, &self.path, T::RULES.root, &filters).await?.0)
    }

    fn pick_from(&self, items: &[Value], input: &str) -> Result<Found, ToolError> {
        let keys: Vec<&str> = T::RULES.slug.into_iter().chain(["context"]).collect();
        let stages = T::RULES.names.stages(input);
        let found = pick(T::NAME, input, items, &stages)
            .map_err(|e| hinted(with_candidates(e, items, &keys), T::RULES.hint))?;
        Ok(Found {
            id: id_of(found, T::NAME)?,
            object: Some(found.clone()),
        })
    }

    /// An upsert on a natural key: the member `lookup` found gets `changes` (`unchanged`, and
    /// no write, when there are none), a miss creates `create`; either way the persisted
    /// object is read back and checked (C7). Returns it with the status.
    pub(crate) async fn upsert(
        &self,
        client: &ModyoClient,
        lookup: Result<Found, ToolError>,
        changes: Value,
        create: impl FnOnce(Value) -> Value,
    ) -> Result<(Value, &'static str), ToolError> {
        match lookup {
            Ok(found) if persist::is_empty(&changes) => Ok((found.object(), "unchanged")),
            Ok(found) => {
                let path = self.item(found.id);
                let object =
                    persist::write(client, Method::PUT, &path, Some(&changes), &path).await?;
                persist::check_sent(T::NAME, &object, &changes)?;
                Ok((object, "updated"))
            }
            Err(e) if is_miss(&e) => {
                let body = create(changes);
                let object = persist::create(client, &self.path, &body, T::NAME).await?;
                persist::check_sent(T::NAME, &object, &body)?;
                Ok((object, "created"))
            }
            Err(e) => Err(e),
        }
    }

    /// One page of the collection (`page`, `per_page` and filters in `query`).
    pub(crate) async fn page(
        &self,
        client: &ModyoClient,
        query: &Query,
    ) -> Result<ListPage, ToolError> {
        Ok(client.list(&self.path, T::RULES.root, query).await?)
    }
}

/// Appends what to call next to a `not_found` message.
pub(crate) fn hinted(error: ToolError, hint: &str) -> ToolError {
    if error.code() == ErrorCode::NotFound && !hint.is_empty() {
        let message = format!("{}; {hint}", error.message());
        error.with_message(message)
    } else {
        error
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
    let ids: Vec<Value> = match error.detail_value("candidates") {
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
    error.candidates(candidates)
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

/// `Data set` from `data set`.
pub(crate) fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_percent_encoded() {
        assert_eq!(segment("mi realm/ñ"), "mi%20realm%2F%C3%B1");
        assert_eq!(segment("personas_2-b"), "personas_2-b");
    }

    #[test]
    fn names_label_their_first_key() {
        assert_eq!(Names::EMAIL.label(), "email");
        assert_eq!(Names::SLUG_OR_NAME.label(), "slug");
    }
}
