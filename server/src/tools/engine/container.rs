//! Containers: what a collection lives in (a content space, a site, a realm), named by one
//! argument of the call and resolved by the container's own rules (`server/CONTRACT.md`, "Name
//! resolution"), the same way for every tool.
//!
//! A [`Container`] says what its argument is called, how a typed identifier resolves into it
//! (given how much of it the call [`Need`]s), its `resource` (C4) and where its members of a
//! kind live. A `-manage` tool whose members live in one declares it with [`within`]; its
//! actions get it back with [`Container::of`]; other tools call [`Container::resolve`].

use std::sync::Arc;

use super::collection::{Collection, Found, Member, Need, parse_id};
use super::command::Verb;
use super::ctx::{Ctx, Given, Scope};
use super::manage::{Where, scoped};
use super::tool::{Call, CallError};
use crate::contract::{ErrorCode, Resource, ToolError};
use crate::modyo::ModyoClient;
use crate::modyo::resolve::is_id;

/// What a collection lives in: a content space, a site, a realm.
pub(crate) trait Container: Clone + Send + Sync + 'static {
    /// The argument that names it (`space`, `site`, `realm`).
    const PARAM: &'static str;

    /// Resolves what the caller typed by the container's own rules; with [`Need::Id`] an id
    /// is enough and no request is sent for one (a realm is always read: its paths use its
    /// slug).
    fn resolve(
        client: &ModyoClient,
        input: &str,
        need: Need,
    ) -> impl Future<Output = Result<Self, ToolError>> + Send;

    /// Its `resource` echo (C4).
    fn resource(&self) -> Resource;

    /// Its members of kind `T`.
    fn collection<T: Member>(&self) -> Collection<T>;

    /// Where a copy goes: `target` resolved (its id is enough), else the source's own.
    fn target(
        client: &ModyoClient,
        target: Option<&str>,
        source: &Self,
    ) -> impl Future<Output = Result<Self, ToolError>> + Send {
        async move {
            match target {
                Some(target) => Self::resolve(client, target, Need::Id).await,
                None => Ok(source.clone()),
            }
        }
    }

    /// The container a call of a `-manage` tool declared [`within`] it resolved.
    fn of<A, T, K>(ctx: &Ctx<A, T, K>) -> Result<Self, ToolError> {
        let held = ctx.held.as_deref().and_then(|c| c.downcast_ref::<Self>());
        held.cloned().ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!("the call resolved no {}", Self::PARAM),
            )
        })
    }
}

/// The members of kind `T` live in the container `C` the call names: [`scope`].
pub(crate) fn within<C: Container, T: Member>() -> Where<T> {
    scoped(scope::<C, T>)
}

/// The container argument resolved (read whole only when the action lists, which echoes it as
/// `resource`), and `T`'s collection in it.
pub(crate) async fn scope<C: Container, T: Member>(
    call: Call,
    given: Given,
    verb: &'static Verb,
) -> Result<Scope<T>, CallError> {
    let input = given.text(C::PARAM).unwrap_or_default();
    let need = if verb.lists { Need::Object } else { Need::Id };
    let container = C::resolve(call.client()?, &input, need).await?;
    Ok(Scope {
        coll: container.collection(),
        container: Some(container.resource()),
        held: Some(Arc::new(container)),
    })
}

/// The target of a container's own `-manage` tool (a space, a site): its argument resolved as
/// every tool resolves it.
pub(crate) async fn as_target<C, T>(
    call: Call,
    given: Given,
    _: Scope<T>,
    need: Need,
) -> Result<Found, CallError>
where
    C: Container + Into<Found>,
{
    let input = given.text(C::PARAM).unwrap_or_default();
    Ok(C::resolve(call.client()?, &input, need).await?.into())
}

/// An all-digit identifier as the member of `members` it names (`None` for any other input):
/// its id, and the member read unless the id is enough.
pub(crate) async fn by_id<T: Member>(
    client: &ModyoClient,
    members: &Collection<T>,
    input: &str,
    need: Need,
) -> Result<Option<Found>, ToolError> {
    if !is_id(input) {
        return Ok(None);
    }
    let id = parse_id(input, T::NAME)?;
    let object = match need {
        Need::Id => None,
        Need::Object | Need::Row => Some(members.fetch(client, id).await?),
    };
    Ok(Some(Found { id, object }))
}
