//! The customers module: realms and what lives in them (end users, segments, forms,
//! submissions, data sets and originations with their steps and rules).
//!
//! Admin paths sit under `/api/admin/customers/{realm_uid}/...`, where Modyo's `realm_uid` is
//! the realm's `slug` (the documented realm is `{id, name, slug, user_count, created_at}`).
//! Every tool takes `realm` as a slug or a name: a [`Realm`] is a [`Container`] (exact slug,
//! then exact name, then name without case; ambiguous names fail), and what lives in it is a
//! collection under it. Forms, data sets, originations and segments resolve by id or by name
//! within the realm, end users by id or email.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::engine::collection::{hinted, segment, with_candidates};
use super::engine::tool::ToolDef;
use super::engine::{Collection, Container, Echoed, Member, Names, Need, Rules, echoed};
use crate::contract::{ErrorCode, Resource, ToolError};
use crate::modyo::list::walk;
use crate::modyo::resolve::pick;
use crate::modyo::{ModyoClient, Query};

mod copy;
mod datasets;
mod forms;
mod originations;
mod realms;
mod segments;
mod submissions;
mod users;

/// The customers tools, in catalogue order.
pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        realms::manage_tool(),
        users::list_tool(),
        users::upsert_tool(),
        users::bulk_tool(),
        segments::manage_tool(),
        forms::manage_tool(),
        forms::copy_tool(),
        submissions::list_tool(),
        submissions::bulk_tool(),
        datasets::manage_tool(),
        datasets::copy_tool(),
        originations::manage_tool(),
        originations::validate_tool(),
        originations::steps_edit_tool(),
        originations::steps_clone_tool(),
        originations::rules_edit_tool(),
        originations::copy_tool(),
    ]
}

/// The realms collection (documented: list, create; delete at `/realms/{slug}`).
/// The name and description a realm's data set or segment is created or updated with (the
/// arguments of both `-manage` tools, flattened in place).
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct Described {
    /// Name (create, update).
    name: Option<String>,
    /// Description (create, update).
    description: Option<String>,
}

pub(crate) const REALMS: &str = "/api/admin/customers/realms";

echoed! {
    /// A realm as the API returns it.
    RealmObject = "realm" {
        id: i64, name: String, slug: String
    }
}

impl Member for RealmObject {
    const RULES: Rules = Rules::new("realm", "realms")
        .names(Names::SLUG_OR_NAME)
        .slug("slug")
        .hint("call customers-realms-manage with action list to see the realms");
}

/// A realm, resolved: paths under it use its slug (Modyo's `realm_uid`).
#[derive(Debug, Clone)]
pub(crate) struct Realm {
    /// The realm's slug.
    pub(crate) slug: String,
    /// The realm as the realms list returned it.
    pub(crate) object: Value,
}

impl Realm {
    /// `/api/admin/customers/realms/{slug}`: the realm itself (documented for `DELETE` only).
    pub(crate) fn path(&self) -> String {
        format!("{REALMS}/{}", segment(&self.slug))
    }
}

impl Container for Realm {
    const PARAM: &'static str = "realm";

    /// Exact `slug`, then exact `name`, then `name` without regard to case, across every page
    /// of the realms list (whatever the need: paths use the slug). More than one match fails
    /// with `ambiguous`.
    async fn resolve(client: &ModyoClient, input: &str, _: Need) -> Result<Realm, ToolError> {
        let mut realms = resolve_realms(client, &[input]).await?;
        realms
            .pop()
            .ok_or_else(|| ToolError::not_found(format!("no realm matches '{input}'")))
    }

    fn resource(&self) -> Resource {
        Resource::from_object("realm", &self.object, Some("slug"))
    }

    /// `/api/admin/customers/{slug}/{root}`.
    fn collection<T: Member>(&self) -> Collection<T> {
        Collection::at(format!(
            "/api/admin/customers/{}/{}",
            segment(&self.slug),
            T::RULES.root
        ))
    }
}

/// Resolves several realms (a source and a target) with one walk of the realms list.
pub(crate) async fn resolve_realms(
    client: &ModyoClient,
    inputs: &[&str],
) -> Result<Vec<Realm>, ToolError> {
    if let Some(empty) = inputs.iter().find(|i| i.trim().is_empty()) {
        return Err(ToolError::invalid_parameters(format!(
            "realm '{empty}' is empty; pass its slug or name"
        )));
    }
    let (realms, _) = walk(client, REALMS, "realms", &Query::new()).await?;
    inputs
        .iter()
        .map(|input| pick_realm(&realms, input.trim()))
        .collect()
}

fn pick_realm(realms: &[Value], input: &str) -> Result<Realm, ToolError> {
    let rules = RealmObject::RULES;
    let realm = pick(RealmObject::NAME, input, realms, &rules.names.stages(input))
        .map_err(|e| hinted(with_candidates(e, realms, &["slug"]), rules.hint))?;
    let slug = realm
        .get("slug")
        .and_then(Value::as_str)
        .filter(|slug| !slug.is_empty())
        .ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!("realm '{input}' came back without a slug"),
            )
        })?;
    Ok(Realm {
        slug: slug.to_owned(),
        object: realm.clone(),
    })
}
