//! The standard actions of a `-manage` tool: `list`, `get`, `create`, `update`, `delete` and a
//! transition (`POST <member>/<action>`), each with its read-back (C7) and its answer; and
//! [`update_with`], the `update` of a tool that builds its own body. A tool's command runs
//! them from its `match`; each answers the tool's `data`, into which a [`Managed`] turns.

use reqwest::Method;
use serde_json::Value;

use super::collection::{Member, Need};
use super::ctx::Ctx;
use super::data::Managed;
use super::manage::Answer;
use super::{persist, reply};
use crate::modyo::Query;

/// `list`: one page of the collection, filtered by `query` (the paging is added).
pub(crate) async fn list<A, T: Member, C, D: From<Managed<T>>>(
    ctx: &Ctx<A, T, C>,
    query: Query,
) -> Answer<D> {
    let query = ctx.paged(query);
    let page = ctx.coll.page(ctx.client()?, &query).await?;
    Ok(reply::page(page, ctx.container.clone()).map(D::from).into())
}

/// `get`: the member, resolved from the target.
pub(crate) async fn get<A, T: Member, C, D: From<Managed<T>>>(ctx: &Ctx<A, T, C>) -> Answer<D> {
    let found = ctx.found(Need::Object).await?;
    let object = found.object();
    let resource = ctx.coll.resource(&object, Some(found.id));
    Ok(reply::one::<Managed<T>>(object, resource)
        .map(D::from)
        .into())
}

/// `create`: `POST` the given fields, read back and checked.
pub(crate) async fn create<A, T: Member, C, D: From<Managed<T>>>(ctx: &Ctx<A, T, C>) -> Answer<D> {
    let body = ctx.body();
    let object = persist::create(ctx.client()?, &ctx.coll.path, &body, T::NAME).await?;
    persist::check_sent(T::NAME, &object, &body)?;
    let resource = ctx.coll.resource(&object, None);
    Ok(reply::saved::<T, Managed<T>>(object, resource, "created")
        .map(D::from)
        .into())
}

/// `update`: `PUT` the given fields to the member, read back and checked.
pub(crate) async fn update<A, T: Member, C, D: From<Managed<T>>>(ctx: &Ctx<A, T, C>) -> Answer<D> {
    update_with(ctx, ctx.body()).await
}

/// `update` with a body of the tool's own: `PUT` of the member, read back and checked (C7).
pub(crate) async fn update_with<A, T: Member, C, D: From<Managed<T>>>(
    ctx: &Ctx<A, T, C>,
    body: Value,
) -> Answer<D> {
    let found = ctx.found(Need::Id).await?;
    let path = ctx.coll.item(found.id);
    let object = persist::write(ctx.client()?, Method::PUT, &path, Some(&body), &path)
        .await
        .map_err(ctx.coll.missing(found.id))?;
    persist::check_sent(T::NAME, &object, &body)?;
    let resource = ctx.coll.resource(&object, Some(found.id));
    Ok(reply::saved::<T, Managed<T>>(object, resource, "updated")
        .map(D::from)
        .into())
}

/// A state change: `POST <member>/<action>` without a body, then the member as persisted,
/// in `status` (`archive` leaves it `archived`).
pub(crate) async fn transition<A, T: Member, C, D: From<Managed<T>>>(
    ctx: &Ctx<A, T, C>,
    status: &str,
) -> Answer<D> {
    let found = ctx.found(Need::Id).await?;
    let path = ctx.coll.item(found.id);
    let to = format!("{path}/{}", ctx.verb.word);
    let object = persist::write(ctx.client()?, Method::POST, &to, None, &path)
        .await
        .map_err(ctx.coll.missing(found.id))?;
    let resource = ctx.coll.resource(&object, Some(found.id));
    Ok(reply::saved::<T, Managed<T>>(object, resource, status)
        .map(D::from)
        .into())
}

/// `delete`: `DELETE` the member (the engine asked for the confirmation).
pub(crate) async fn delete<A, T: Member, C, D: From<Managed<T>>>(ctx: &Ctx<A, T, C>) -> Answer<D> {
    let found = ctx.found(Need::Row).await?;
    let client = ctx.client()?;
    client
        .send(
            Method::DELETE,
            &ctx.coll.item(found.id),
            &Query::new(),
            None,
        )
        .await?;
    let resource = ctx.coll.resource(&found.object(), Some(found.id));
    let message = format!("{} permanently deleted", T::noun());
    Ok(
        reply::gone::<T, Managed<T>>(resource, found.id, "deleted", message)
            .map(D::from)
            .into(),
    )
}

/// An action Modyo documents no endpoint for: the engine refuses it before the command runs
/// (its [`Verb::refused`]), and this arm of a command's `match` answers the same refusal.
///
/// [`Verb::refused`]: super::Verb::refused
pub(crate) async fn refused<A, T, C, D>(ctx: &Ctx<A, T, C>) -> Answer<D> {
    let why = ctx.verb.refused.unwrap_or("this action is not available");
    Err(crate::contract::ToolError::invalid_parameters(why).into())
}
