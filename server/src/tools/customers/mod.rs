//! The customers module: realms and what lives in them (end users, segments, forms,
//! submissions, data sets and originations with their steps and rules).
//!
//! Admin paths sit under `/api/admin/customers/{realm_uid}/...`; most are `[synthetic]` in
//! `catalog.md` (the forms, originations and submissions lists are documented). Every tool
//! takes `realm` as a uid or a name, resolved by [`resolve_realm`] (exact uid, then exact
//! name, then name without case; ambiguous names fail). Forms, data sets, originations and
//! segments resolve by id or by name within the realm, end users by id or email.

use serde_json::Value;

use super::ToolDef;
use super::core::kit::{By, Collection, segment, with_candidates};
use crate::contract::{ErrorCode, Resource, ToolError};
use crate::modyo::list::walk;
use crate::modyo::resolve::{Stage, pick};
use crate::modyo::{ModyoClient, Query};

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

/// The realms collection (`[synthetic]`).
pub(crate) const REALMS: &str = "/api/admin/customers/realms";

/// A realm, resolved: paths under it use its uid.
#[derive(Debug, Clone)]
pub(crate) struct Realm {
    /// The realm's uid.
    pub(crate) uid: String,
    /// The realm as the realms list returned it.
    pub(crate) object: Value,
}

impl Realm {
    /// `/api/admin/customers/realms/{uid}`: the realm itself.
    pub(crate) fn path(&self) -> String {
        format!("{REALMS}/{}", segment(&self.uid))
    }

    /// `/api/admin/customers/{uid}`: the prefix of everything in the realm.
    pub(crate) fn base(&self) -> String {
        format!("/api/admin/customers/{}", segment(&self.uid))
    }

    /// The `resource` echo of the realm (C4): uid in `slug`.
    pub(crate) fn resource(&self) -> Resource {
        Resource::from_object("realm", &self.object, Some("uid"))
    }

    fn collection(
        &self,
        kind: &'static str,
        what: &'static str,
        root: &'static str,
        by: By,
        legacy_key: &'static str,
        hint: &'static str,
    ) -> Collection {
        Collection {
            kind,
            what,
            path: format!("{}/{root}", self.base()),
            root,
            by,
            query_filter: by == By::Email,
            slug_key: (by == By::Email).then_some("email"),
            legacy_key,
            hint,
        }
    }

    /// End users of the realm, by id or email.
    pub(crate) fn users(&self) -> Collection {
        self.collection(
            "realm_user",
            "realm user",
            "users",
            By::Email,
            "user",
            "call customers-users-list to see the realm's users",
        )
    }

    /// Segments, by id or name.
    pub(crate) fn segments(&self) -> Collection {
        self.collection(
            "segment",
            "segment",
            "segments",
            By::Name,
            "segment",
            "call customers-segments-manage with action list to see the realm's segments",
        )
    }

    /// Forms, by id or name.
    pub(crate) fn forms(&self) -> Collection {
        self.collection(
            "form",
            "form",
            "forms",
            By::Name,
            "form",
            "call customers-forms-manage with action list to see the realm's forms",
        )
    }

    /// Data sets, by id or name.
    pub(crate) fn data_sets(&self) -> Collection {
        self.collection(
            "dataset",
            "data set",
            "data_sets",
            By::Name,
            "dataSet",
            "call customers-datasets-manage with action list to see the realm's data sets",
        )
    }

    /// Originations, by id or name.
    pub(crate) fn originations(&self) -> Collection {
        self.collection(
            "origination",
            "origination",
            "originations",
            By::Name,
            "origination",
            "call customers-originations-manage with action list to see the realm's originations",
        )
    }
}

/// Resolves `realm`: exact `uid`, then exact `name`, then `name` without regard to case,
/// across every page of the realms list. More than one match fails with `ambiguous`.
pub(crate) async fn resolve_realm(client: &ModyoClient, input: &str) -> Result<Realm, ToolError> {
    let mut realms = resolve_realms(client, &[input]).await?;
    realms
        .pop()
        .ok_or_else(|| ToolError::not_found(format!("no realm matches '{input}'")))
}

/// Resolves several realms (a source and a target) with one walk of the realms list.
pub(crate) async fn resolve_realms(
    client: &ModyoClient,
    inputs: &[&str],
) -> Result<Vec<Realm>, ToolError> {
    if let Some(empty) = inputs.iter().find(|i| i.trim().is_empty()) {
        return Err(ToolError::invalid_parameters(format!(
            "realm '{empty}' is empty; pass its uid or name"
        )));
    }
    let (realms, _) = walk(client, REALMS, "realms", &Query::new()).await?;
    inputs
        .iter()
        .map(|input| pick_realm(&realms, input.trim()))
        .collect()
}

fn pick_realm(realms: &[Value], input: &str) -> Result<Realm, ToolError> {
    let stages = [
        Stage::exact("uid", "uid", input),
        Stage::exact("name", "name", input),
        Stage::caseless("name without case", "name", input),
    ];
    let realm = pick("realm", input, realms, &stages).map_err(|e| {
        let e = with_candidates(e, realms, &["uid"]);
        if e.code() == ErrorCode::NotFound {
            let message = format!(
                "{}; call customers-realms-manage with action list to see the realms",
                e.message()
            );
            e.with_message(message)
        } else {
            e
        }
    })?;
    let uid = realm
        .get("uid")
        .and_then(Value::as_str)
        .filter(|uid| !uid.is_empty())
        .ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!("realm '{input}' came back without a uid"),
            )
        })?;
    Ok(Realm {
        uid: uid.to_owned(),
        object: realm.clone(),
    })
}
