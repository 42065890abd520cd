//! The standard actions of a `-manage` tool: `list`, `get`, `create`, `update`, `delete` and a
//! transition (`POST <member>/<action>`), each with its read-back (C7) and its answer; and
//! [`update_with`], the `update` of a tool that builds its own body.

use reqwest::Method;
use serde_json::Value;

use super::collection::{Member, Need};
use super::ctx::Ctx;
use super::data::Managed;
use super::manage::Answer;
use super::{persist, reply};
use crate::modyo::Query;

pub(super) async fn list<A, T: Member>(ctx: Ctx<A, T>) -> Answer<Managed<T>> {
    let query = ctx.paged((ctx.query)(&ctx.args));
    let page = ctx.coll.page(ctx.client()?, &query).await?;
    Ok(reply::page(page, ctx.container).into())
}

pub(super) async fn get<A, T: Member>(ctx: Ctx<A, T>) -> Answer<Managed<T>> {
    let found = ctx.found(Need::Object).await?;
    let object = found.object();
    let resource = ctx.coll.resource(&object, Some(found.id));
    Ok(reply::one(object, resource).into())
}

pub(super) async fn create<A, T: Member>(ctx: Ctx<A, T>) -> Answer<Managed<T>> {
    let body = ctx.body();
    let object = persist::create(ctx.client()?, &ctx.coll.path, &body, T::NAME).await?;
    persist::check_sent(T::NAME, &object, &body)?;
    let resource = ctx.coll.resource(&object, None);
    Ok(reply::saved::<T, _>(object, resource, "created").into())
}

pub(super) async fn update<A, T: Member>(ctx: Ctx<A, T>) -> Answer<Managed<T>> {
    let body = ctx.body();
    update_with(ctx, body).await
}

/// `update` with a body of the tool's own: `PUT` of the member, read back and checked (C7).
pub(crate) async fn update_with<A, T: Member>(ctx: Ctx<A, T>, body: Value) -> Answer<Managed<T>> {
    let found = ctx.found(Need::Id).await?;
    let path = ctx.coll.item(found.id);
    let object = persist::write(ctx.client()?, Method::PUT, &path, Some(&body), &path)
        .await
        .map_err(ctx.coll.missing(found.id))?;
    persist::check_sent(T::NAME, &object, &body)?;
    let resource = ctx.coll.resource(&object, Some(found.id));
    Ok(reply::saved::<T, _>(object, resource, "updated").into())
}

pub(super) async fn transition<A, T: Member>(ctx: Ctx<A, T>, status: &str) -> Answer<Managed<T>> {
    let found = ctx.found(Need::Id).await?;
    let path = ctx.coll.item(found.id);
    let to = format!("{path}/{}", ctx.action);
    let object = persist::write(ctx.client()?, Method::POST, &to, None, &path)
        .await
        .map_err(ctx.coll.missing(found.id))?;
    let resource = ctx.coll.resource(&object, Some(found.id));
    Ok(reply::saved::<T, _>(object, resource, status).into())
}

pub(super) async fn delete<A, T: Member>(ctx: Ctx<A, T>) -> Answer<Managed<T>> {
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
    Ok(reply::gone::<T, _>(resource, found.id, "deleted", message).into())
}
