//! End users of a realm: `customers-users-list`, `customers-users-upsert` and
//! `customers-users-bulk`.
//!
//! Paths are `[synthetic]` (`/api/admin/customers/{realm_uid}/users[/{id}]`). Users resolve by
//! id or by email (`?query=` then an exact, then case-blind, email match). Activation is a
//! `PUT` of `active`, checked after the write (C7).

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Realm, resolve_realm};
use crate::config::Module;
use crate::contract::{Control, ToolClass, ToolError};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::{
    Answer, Echo, Echoed, Member, Names, Rules, bulk, echoed, persist, reply,
};
use crate::tools::{Call, ToolDef, tool};

echoed! {
    /// An end user as the API returns it.
    RealmUser = "realm user" {
        id: i64, uuid: String, external_id: String, name: String, first_name: String,
        last_name: String, second_last_name: String, email: String, username: String,
        status: String, active: bool, avatar: Object, custom_fields: List,
        sign_in_count: i64, last_sign_in_at: String, created_at: String, updated_at: String
    }
}

impl Member for RealmUser {
    const RULES: Rules = Rules::new("realm_user", "users")
        .names(Names::EMAIL)
        .slug("email")
        .legacy("user", "User")
        .hint("call customers-users-list to see the realm's users");
}

/// User status filter.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Inactive => "inactive",
        }
    }
}

/// Arguments of `customers-users-list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListArgs {
    /// Realm uid or name.
    realm: Ident,
    #[serde(flatten)]
    paging: Paging,
    /// Text filter on name or email.
    query: Option<String>,
    /// Exact email.
    email: Option<String>,
    /// Only users in this status.
    status: Option<Status>,
}

pub(crate) fn list_tool() -> ToolDef {
    tool("customers-users-list", Module::Customers, ToolClass::Read)
        .describe("List a realm's end users, one page at a time (filters: query, email, status).")
        .resource()
        .state()
        .handle(list)
}

async fn list(call: Call, args: ListArgs) -> Answer<Vec<Echo<RealmUser>>> {
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let query = Query::new()
        .push_opt("query", args.query.as_deref())
        .push_opt("email", args.email.as_deref())
        .push_opt("status", args.status.map(Status::as_str))
        .page(args.paging.page, args.paging.per_page);
    let page = realm.collection::<RealmUser>().page(client, &query).await?;
    Ok(reply::rows(page, Some(realm.resource())).into())
}

/// One `{key, value}` custom field of an end user.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
struct CustomField {
    /// The custom field's key.
    key: String,
    /// Its value.
    value: Value,
}

/// The profile fields a create or update may send.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
struct Profile {
    /// First name.
    first_name: Option<String>,
    /// Last name.
    last_name: Option<String>,
    /// Second last name.
    second_last_name: Option<String>,
    /// Username.
    username: Option<String>,
    /// Identifier in an external system.
    external_id: Option<String>,
    /// Custom field values.
    custom_fields: Option<Vec<CustomField>>,
}

impl Profile {
    /// The given fields, after `email` when there is one: the body of a write.
    fn fields(&self, email: Option<&str>) -> Value {
        let mut body = persist::body(vec![("email", email.map(Value::from))]);
        persist::extend(&mut body, persist::given(self));
        body
    }
}

/// Arguments of `customers-users-upsert`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UpsertArgs {
    /// Realm uid or name.
    realm: Ident,
    /// Email: the natural key. An existing user with it is updated, else one is created.
    email: String,
    #[serde(flatten)]
    profile: Profile,
}

pub(crate) fn upsert_tool() -> ToolDef {
    tool("customers-users-upsert", Module::Customers, ToolClass::Mutation)
        .describe(
            "Create or update a realm's end user by email. data is the user as persisted; state.status is \
created, updated or unchanged (found, nothing to change: no write).",
        )
        .resource()
        .state()
        .handle(upsert)
}

async fn upsert(call: Call, args: UpsertArgs) -> Answer<Echo<RealmUser>> {
    let email = args.email.trim();
    if !email.contains('@') {
        return Err(ToolError::invalid_parameters(format!(
            "'{email}' is not an email; customers-users-upsert matches users by email"
        ))
        .into());
    }
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let users = realm.collection::<RealmUser>();
    let lookup = users.lookup(client, email).await;
    let (object, status) = users
        .upsert(client, lookup, args.profile.fields(None), |_| {
            args.profile.fields(Some(email))
        })
        .await?;
    let resource = users.resource(&object, None);
    Ok(reply::saved::<RealmUser, _>(object, resource, status).into())
}

/// Actions of `customers-users-bulk`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum BulkAction {
    Create,
    Activate,
    Deactivate,
    Delete,
}

impl BulkAction {
    fn as_str(self) -> &'static str {
        match self {
            BulkAction::Create => "create",
            BulkAction::Activate => "activate",
            BulkAction::Deactivate => "deactivate",
            BulkAction::Delete => "delete",
        }
    }
}

/// One user of a bulk call: id or email to act on; email and profile to create.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
struct BulkUser {
    /// User id (activate, deactivate, delete).
    id: Option<u64>,
    /// Email (create; or to find the user).
    email: Option<String>,
    #[serde(flatten)]
    profile: Profile,
}

/// Arguments of `customers-users-bulk`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BulkArgs {
    /// Realm uid or name.
    realm: Ident,
    /// create, activate, deactivate or delete.
    action: BulkAction,
    /// The users, 1 to 100.
    #[schemars(length(min = 1, max = 100))]
    users: Vec<BulkUser>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

pub(crate) fn bulk_tool() -> ToolDef {
    tool("customers-users-bulk", Module::Customers, ToolClass::Mutation)
        .describe(
            "Create, activate, deactivate or delete many end users of a realm, one request each, 4 at a time; never \
stops at a failure. Items: {email, profile...} to create, {id} or {email} otherwise. data.succeeded: user ids; \
data.failed: [{index, error{code, message}}]; state.affected: successes; delete needs confirmDelete: true.",
        )
        .state()
        .control()
        .handle(bulk)
}

async fn bulk(call: Call, args: BulkArgs) -> Answer<bulk::Bulk> {
    if args.action == BulkAction::Delete && args.confirm_delete != Some(true) {
        return Ok(Control::cancelled_unconfirmed("customers-users-bulk", "delete").into());
    }
    let client = call.client()?;
    let realm = resolve_realm(client, &args.realm).await?;
    let action = args.action;
    let out = bulk::run(args.users, |_, user| {
        let realm = &realm;
        async move { one(client, realm, action, user).await }
    })
    .await;
    Ok(bulk::answer(action.as_str(), out)?.into())
}

/// One item of a bulk call; its id on success.
async fn one(
    client: &ModyoClient,
    realm: &Realm,
    action: BulkAction,
    user: BulkUser,
) -> Result<Value, ToolError> {
    let users = realm.collection::<RealmUser>();
    if action == BulkAction::Create {
        let email = user
            .email
            .as_deref()
            .filter(|e| e.contains('@'))
            .ok_or_else(|| ToolError::invalid_parameters("create needs an email for every user"))?;
        let body = user.profile.fields(Some(email));
        let object = persist::create(client, &users.path, &body, RealmUser::NAME).await?;
        return Ok(object.get("id").cloned().unwrap_or(Value::Null));
    }
    let id = match (user.id, user.email.as_deref()) {
        (Some(id), _) => id,
        (None, Some(email)) => users.lookup(client, email).await?.id,
        (None, None) => {
            return Err(ToolError::invalid_parameters(format!(
                "{} needs an id or an email for every user",
                action.as_str()
            )));
        }
    };
    let path = users.item(id);
    match action {
        BulkAction::Delete => {
            client
                .send(Method::DELETE, &path, &Query::new(), None)
                .await?;
        }
        _ => {
            let active = json!(action == BulkAction::Activate);
            let request = json!({"active": active});
            let object = persist::write(client, Method::PUT, &path, Some(&request), &path).await?;
            persist::check_key(&object, "active", &active, &format!("realm user {id}"))?;
        }
    }
    Ok(Value::from(id))
}
