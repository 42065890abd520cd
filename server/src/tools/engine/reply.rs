//! The answers of collection actions: a page, one object, a write, a delete, each with its
//! `resource` (C4), its `state` (C5) and the shape of its old payload (C21).

use serde::Deserialize;
use serde_json::Value;

use super::collection::Member;
use super::data::{Echo, Managed};
use super::view::{lenient, view};
use crate::contract::{Coverage, Legacy, PostCondition, Reply, Resource};
use crate::modyo::ListPage;

/// A `data` type that holds one Modyo object as the API sent it.
pub(crate) trait Object: Sized {
    /// The object, as `data`.
    fn object(object: Value) -> Self;
}

impl<T> Object for Echo<T> {
    fn object(object: Value) -> Self {
        Echo::new(object)
    }
}

impl<T> Object for Managed<T> {
    fn object(object: Value) -> Self {
        Managed::one(object)
    }
}

impl<T> Object for Option<Echo<T>> {
    fn object(object: Value) -> Self {
        Some(Echo::new(object))
    }
}

impl Absent for super::data::Nothing {
    fn absent() -> Self {
        super::data::Nothing
    }
}

/// A `data` type that can say "nothing" (a delete's `null`).
pub(crate) trait Absent {
    /// Nothing.
    fn absent() -> Self;
}

impl<T> Absent for Managed<T> {
    fn absent() -> Self {
        Managed::Gone
    }
}

impl<E> Absent for Option<E> {
    fn absent() -> Self {
        None
    }
}

/// Coverage of one page (C5, C6): from the API's `meta` only.
pub(crate) fn coverage(page: &ListPage) -> Coverage {
    Coverage::page(page.items.len(), page.meta.as_ref(), page.asked_page)
}

/// The raw `meta` of a page, for the old payload.
fn raw_meta(page: &ListPage) -> Option<Value> {
    page.raw_meta.clone()
}

/// A page of a list tool: the bare array of rows, coverage, the container as `resource`;
/// the old payload was `{<root>: rows, meta}`.
pub(crate) fn rows<T: Member>(page: ListPage, container: Option<Resource>) -> Reply<Vec<Echo<T>>> {
    let state = coverage(&page);
    let old = Legacy::list(T::RULES.root, raw_meta(&page));
    let reply = Reply::new(page.items.into_iter().map(Echo::new).collect())
        .state(state)
        .old(old);
    match container {
        Some(container) => reply.resource(container),
        None => reply,
    }
}

/// The `list` action of a `-manage` tool: `{<root>: rows}` (C15), coverage, the container as
/// `resource`; the old payload added the API's `meta`.
pub(crate) fn page<T: Member>(page: ListPage, container: Option<Resource>) -> Reply<Managed<T>> {
    let state = coverage(&page);
    let meta = raw_meta(&page);
    let rules = T::RULES;
    let old = match rules.listed {
        None => Legacy::paged(meta),
        // The old payload kept the API's root key.
        Some(key) => Legacy::custom(move |mut data| {
            let items = data.get_mut(key).map(Value::take).unwrap_or_default();
            Legacy::list(rules.root, meta).render(items)
        }),
    };
    let reply = Reply::new(Managed::Page(
        page.items.into_iter().map(Echo::new).collect(),
    ))
    .state(state)
    .old(old);
    match container {
        Some(container) => reply.resource(container),
        None => reply,
    }
}

/// A read of one object: the object is `data`, its identity `resource`.
pub(crate) fn one<D: Object>(object: Value, resource: Resource) -> Reply<D> {
    Reply::new(D::object(object)).resource(resource)
}

/// A write: `data` is the object as persisted (C7), `state.status` what happened; the old
/// payload was `{message, action, <entity>}` with the canned "<Noun> <status> successfully".
pub(crate) fn saved<T: Member, D: Object>(
    object: Value,
    resource: Resource,
    status: &str,
) -> Reply<D> {
    let message = format!("{} {status} successfully", T::noun());
    let post = post::<T>(status, &object);
    saved_as::<T, D>(object, resource, post, status, message)
}

/// The post-condition of a write in `status`, with `published` as read back when members of
/// `T` say it.
pub(crate) fn post<T: Member>(status: &str, object: &Value) -> PostCondition {
    let post = PostCondition::status(status);
    match published_of(object).filter(|_| T::RULES.published) {
        Some(published) => post.published(published),
        None => post,
    }
}

/// The keys that say whether an object is published.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Publication {
    #[serde(deserialize_with = "lenient")]
    published: Option<bool>,
    #[serde(deserialize_with = "lenient")]
    status: Option<String>,
}

/// Whether a persisted object says it is published: its boolean `published`, else its
/// `status` (`published` or anything else). `None` when it says neither.
pub(crate) fn published_of(object: &Value) -> Option<bool> {
    let publication: Publication = view(object);
    publication
        .published
        .or_else(|| match publication.status.as_deref() {
            Some("") | None => None,
            Some(status) => Some(status == "published"),
        })
}

/// A write whose post-condition, old `action` word or old message are its own.
pub(crate) fn saved_as<T: Member, D: Object>(
    object: Value,
    resource: Resource,
    post: PostCondition,
    word: &str,
    message: impl Into<String>,
) -> Reply<D> {
    written(
        object,
        resource,
        post,
        Legacy::write(word, message, T::RULES.legacy),
    )
}

/// A write whose old payload is its own.
pub(crate) fn written<D: Object>(
    object: Value,
    resource: Resource,
    post: PostCondition,
    old: Legacy,
) -> Reply<D> {
    Reply::new(D::object(object))
        .resource(resource)
        .state(post)
        .old(old)
}

/// A delete that ran: `data` is null, `state.status` is `status`; the old payload was
/// `{message, action, <entity>Id: id}`.
pub(crate) fn gone<T: Member, D: Absent>(
    resource: Resource,
    id: impl Into<Value>,
    status: &str,
    message: impl Into<String>,
) -> Reply<D> {
    let id_key = match T::RULES.gone_key {
        Some(key) => key.to_owned(),
        None => format!("{}Id", T::RULES.legacy),
    };
    gone_as(resource, status, Legacy::gone(status, message, id_key, id))
}

/// A delete that ran, whose old payload is its own.
pub(crate) fn gone_as<D: Absent>(resource: Resource, status: &str, old: Legacy) -> Reply<D> {
    Reply::new(D::absent())
        .resource(resource)
        .state(PostCondition::status(status))
        .old(old)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn published_is_read_from_the_flag_then_the_status() {
        assert_eq!(
            published_of(&json!({"published": false, "status": "published"})),
            Some(false)
        );
        assert_eq!(published_of(&json!({"status": "published"})), Some(true));
        assert_eq!(published_of(&json!({"status": "draft"})), Some(false));
        assert_eq!(published_of(&json!({"name": "x"})), None);
    }
}
