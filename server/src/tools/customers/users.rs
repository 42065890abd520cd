//! End users of a realm: `customers-users-list`, `customers-users-upsert` and
//! `customers-users-bulk`.
//!
//! Modyo documents `/api/admin/customers/{realm_uid}/users[/{user_id}]`: a list filtered by
//! `query` (keywords over name, email, username, ...), `active` and `verified` (`1` or `0`),
//! create (`POST`), update (`PUT`), delete, and a bulk update
//! (`PATCH .../users/bulk?act=activate|deactivate` with the users' ids). Users resolve by id or
//! by email (`?query=` then an exact, then case-blind, email match). The tools keep their
//! `email` and `status` filters and translate them: `email` is searched as a keyword (Modyo has
//! no exact email filter), `status` is `active`.
use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Realm;
use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{ToolClass, ToolError};
use crate::modyo::{ModyoClient, Query};
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::bulk::FanOut;
use crate::tools::engine::tool::{Call, ToolDef, tool};
use crate::tools::engine::{
    Action, Answer, Command, Container, Echo, Echoed, Identity, Member, Names, Need, Rules, Verb,
    body, bulk, command, echoed, persist, reply, view,
};

echoed! {
    /// An end user as the API returns it.
    RealmUser = "realm user" {
        id: i64, uuid: String, name: String, email: String
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
    /// Modyo's `active` filter value.
    fn active(self) -> &'static str {
        match self {
            Status::Active => "1",
            Status::Inactive => "0",
        }
    }
}

/// Arguments of `customers-users-list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListArgs {
    /// Realm slug or name.
    realm: Ident,
    #[serde(flatten)]
    paging: Paging,
    /// Keywords searched in name, email, username, custom fields, tags and phone.
    query: Option<String>,
    /// An email, searched as a keyword (the same as query; Modyo has no exact email filter).
    email: Option<String>,
    /// Only active or only inactive users.
    status: Option<Status>,
    /// Only verified (true) or unverified (false) users.
    verified: Option<bool>,
}

pub(crate) fn list_tool() -> ToolDef {
    tool("customers-users-list", Module::Customers, ToolClass::Read)
        .describe(
            "List a realm's end users, one page at a time (filters: query, email, status, verified). email is \
searched as a keyword, like query: Modyo's list has no exact email filter.",
        )
        .resource()
        .state()
        .handle(list)
        .writes_state(RareState::PAGED)
}

async fn list(call: Call, args: ListArgs) -> Answer<Vec<Echo<RealmUser>>> {
    let keywords = match (args.query.as_deref(), args.email.as_deref()) {
        (Some(_), Some(_)) => {
            return Err(ToolError::invalid_parameters(
                "pass query or email, not both: Modyo searches both as keywords in one `query` filter",
            )
            .into());
        }
        (query, email) => query.or(email),
    };
    let client = call.client()?;
    let realm = Realm::resolve(client, &args.realm, Need::Object).await?;
    let query = Query::new()
        .push_opt("query", keywords)
        .push_opt("active", args.status.map(Status::active))
        .push_opt("verified", args.verified.map(|v| if v { "1" } else { "0" }))
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
    /// Realm slug or name.
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
    let realm = Realm::resolve(client, &args.realm, Need::Object).await?;
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

command! {
    /// What `customers-users-bulk` can be asked.
    enum UsersBulkCommand for BulkArgs {
        Create => Verb::write("create"),
        Activate => Verb::write("activate"),
        Deactivate => Verb::write("deactivate"),
        Delete => Verb::write("delete").confirmed(),
    }
}

const USERS_BULK: &str = "customers-users-bulk";

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
    /// Realm slug or name.
    realm: Ident,
    /// create, activate, deactivate or delete.
    action: Action,
    /// The users, 1 to 100.
    #[schemars(length(min = 1, max = 100))]
    users: Vec<BulkUser>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

pub(crate) fn bulk_tool() -> ToolDef {
    tool(USERS_BULK, Module::Customers, ToolClass::Mutation)
        .describe(
            "Create, activate, deactivate or delete many end users of a realm; never stops at a failure. Create and \
delete send one request per user, 4 at a time; activate and deactivate send one bulk update for every user found \
(Modyo answers it without the users, so the result is what the API accepted, not read back). Items: \
{email, profile...} to create, {id} or {email} otherwise. data.succeeded: user ids; data.failed: [{index, \
error{code, message}}]; state.affected: successes; delete needs confirmDelete: true.",
        )
        .state()
        .control()
        .handle(bulk)
        .offers::<UsersBulkCommand>()
}

async fn bulk(call: Call, args: BulkArgs) -> Answer<bulk::Bulk> {
    let word = args.action.as_str();
    let command = command::parse::<UsersBulkCommand>(USERS_BULK, word, &args)?;
    if let Some(control) =
        command::unconfirmed::<UsersBulkCommand, _>(USERS_BULK, word, args.confirm_delete)
    {
        return control;
    }
    let client = call.client()?;
    let realm = Realm::resolve(client, &args.realm, Need::Object).await?;
    let verb = command.verb();
    let command = &command;
    let out = bulk::run(args.users, |_, user| {
        let realm = &realm;
        async move { one(client, realm, command, user).await }
    })
    .await;
    let out = match command {
        UsersBulkCommand::Activate | UsersBulkCommand::Deactivate => {
            update_all(client, &realm, verb.word, out).await
        }
        UsersBulkCommand::Create | UsersBulkCommand::Delete => out,
    };
    Ok(bulk::answer(verb.word, out)?.into())
}

/// One item of a bulk call: its id once created or deleted; for activate and deactivate, the
/// id of the user to update (found by email when no id was given).
async fn one(
    client: &ModyoClient,
    realm: &Realm,
    command: &UsersBulkCommand,
    user: BulkUser,
) -> Result<Value, ToolError> {
    let users = realm.collection::<RealmUser>();
    if let UsersBulkCommand::Create = command {
        let email = user
            .email
            .as_deref()
            .filter(|e| e.contains('@'))
            .ok_or_else(|| ToolError::invalid_parameters("create needs an email for every user"))?;
        let sent = user.profile.fields(Some(email));
        let object = persist::create(client, &users.path, &sent, RealmUser::NAME).await?;
        return Ok(view::<Identity>(&object).id.unwrap_or(Value::Null));
    }
    let id = match (user.id, user.email.as_deref()) {
        (Some(id), _) => id,
        (None, Some(email)) => users.lookup(client, email).await?.id,
        (None, None) => {
            return Err(ToolError::invalid_parameters(format!(
                "{} needs an id or an email for every user",
                command.verb().word
            )));
        }
    };
    if let UsersBulkCommand::Delete = command {
        client
            .send(Method::DELETE, &users.item(id), &Query::new(), None)
            .await?;
    }
    Ok(Value::from(id))
}

/// The body of a bulk update: the ids of the users.
#[derive(Serialize)]
struct IdsBody<'a> {
    id: Vec<&'a Value>,
}

/// `PATCH .../users/bulk?act=<act>` with every user found: each one succeeds with the update,
/// or fails with its error.
async fn update_all(client: &ModyoClient, realm: &Realm, act: &str, found: FanOut) -> FanOut {
    let ids: Vec<&Value> = found.succeeded.iter().map(|(_, id)| id).collect();
    if ids.is_empty() {
        return found;
    }
    let path = format!("{}/bulk", realm.collection::<RealmUser>().path);
    let sent = body(IdsBody { id: ids });
    let query = Query::new().push("act", act);
    match client.send(Method::PATCH, &path, &query, Some(&sent)).await {
        Ok(_) => found,
        Err(error) => {
            let error = ToolError::from(error);
            let mut failed = found.failed;
            failed.extend(found.succeeded.into_iter().map(|(i, _)| (i, error.clone())));
            failed.sort_by_key(|(i, _)| *i);
            FanOut {
                succeeded: Vec::new(),
                failed,
            }
        }
    }
}
