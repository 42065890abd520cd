//! Data sets of a realm (the option lists questions draw from): `customers-datasets-manage`
//! and `customers-datasets-copy`.
//!
//! Paths are `[synthetic]` (`/api/admin/customers/{realm_uid}/data_sets[/{id}]`). Data sets
//! expose `use_external_ids` and an `external_id` on each alternative (documented); a copy
//! keeps both.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::copy::Realms;
use super::{Described, Realm};
use crate::config::Module;
use crate::contract::{PostCondition, ToolClass};
use crate::modyo::Query;
use crate::tools::args::{Ident, Paging};
use crate::tools::engine::copy::{copy_name, without_owned};
use crate::tools::engine::tool::{Call, ToolDef, tool};
use crate::tools::engine::{
    Action, Answer, Container, Ctx, Echo, Echoed, Identity, Managed, Member, Need, Rules, Verb,
    command, echoed, lenient, manage, persist, reply, standard, view, within,
};

echoed! {
    /// A data set as the API returns it.
    DataSet = "data set" {
        id: i64, uuid: String, name: String, alternatives: List
    }
}

impl Member for DataSet {
    const RULES: Rules = Rules::new("dataset", "data_sets")
        .legacy("dataSet", "Data set")
        .hint("call customers-datasets-manage with action list to see the realm's data sets");
}

/// Arguments of `customers-datasets-manage`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// Realm slug or name.
    realm: Ident,
    /// list, get (default), create, update or delete.
    action: Option<Action>,
    /// Data set id or name (get, update, delete).
    data_set: Option<Ident>,
    #[serde(flatten)]
    paging: Paging,
    #[serde(flatten)]
    described: Described,
    /// Whether alternatives carry an external_id (create, update).
    use_external_ids: Option<bool>,
    /// Alternatives such as {label, value, external_id}, replacing the current ones (create, update).
    alternatives: Option<Vec<Value>>,
    /// Must be true for delete.
    #[serde(rename = "confirmDelete")]
    confirm_delete: Option<bool>,
}

command! {
    /// What `customers-datasets-manage` can be asked.
    enum DataSetCommand for ManageArgs {
        List => Verb::list(),
        Get { data_set: Ident } => Verb::read("get"),
        Create { name in described: String } => Verb::write("create"),
        Update { data_set: Ident } => Verb::write("update").changes(),
        Delete { data_set: Ident } => Verb::write("delete").confirmed(),
    }
}

pub(crate) fn manage_tool() -> ToolDef {
    manage::<ManageArgs, DataSet, DataSetCommand>("customers-datasets-manage", Module::Customers, within::<Realm, _>())
        .describe(
            "List, get, create, update or delete a realm's data sets (option lists for questions). data_set: id or \
name. list: data.data_sets + coverage, resource = the realm; other actions: data is the data set as persisted; \
delete needs confirmDelete: true.",
        )
        .target("data_set", "id or name")
        .fields(&["name", "description", "use_external_ids", "alternatives"])
        .run(run)
}

/// Runs one command of `customers-datasets-manage`.
async fn run(ctx: Ctx<ManageArgs, DataSet, DataSetCommand>) -> Answer<Managed<DataSet>> {
    match &ctx.command {
        DataSetCommand::List => standard::list(&ctx, Query::new()).await,
        DataSetCommand::Get { .. } => standard::get(&ctx).await,
        DataSetCommand::Create { .. } => standard::create(&ctx).await,
        DataSetCommand::Update { .. } => standard::update(&ctx).await,
        DataSetCommand::Delete { .. } => standard::delete(&ctx).await,
    }
}

/// Arguments of `customers-datasets-copy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CopyArgs {
    /// Realm slug or name of the data set to copy.
    realm: Ident,
    /// Data set id or name.
    data_set: Ident,
    /// Realm slug or name to copy into (default: the same realm).
    target_realm: Option<Ident>,
    /// Name of the copy (default: the same name in another realm, "<name> (copy)" in the same one).
    name: Option<String>,
}

pub(crate) fn copy_tool() -> ToolDef {
    tool("customers-datasets-copy", Module::Customers, ToolClass::Mutation)
        .describe(
            "Copy a data set with its alternatives (external ids kept), within its realm or into another. data is \
the copy as persisted; resource is the copy.",
        )
        .resource()
        .state()
        .handle(copy)
}

/// The keys of the source a data set copy keeps, each as sent (`null` included).
#[derive(Default, Deserialize)]
#[serde(default)]
struct Kept {
    #[serde(deserialize_with = "lenient")]
    description: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    use_external_ids: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    alternatives: Option<Value>,
}

async fn copy(call: Call, args: CopyArgs) -> Answer<Echo<DataSet>> {
    let client = call.client()?;
    let realms = Realms::resolve(client, &args.realm, args.target_realm.as_deref()).await?;
    let data_sets = realms.source.collection::<DataSet>();
    let found = data_sets.find(client, &args.data_set, Need::Id).await?;
    let source = data_sets.fetch(client, found.id).await?;
    let source_name = view::<Identity>(&source).name;
    let name = copy_name(
        args.name.as_deref(),
        source_name.as_deref(),
        "data set",
        realms.same(),
    );
    let kept: Kept = view(&source);
    let alternatives = without_owned(&kept.alternatives.unwrap_or(Value::Array(Vec::new())));
    let request = persist::body(vec![
        ("name", Some(Value::from(name))),
        ("description", kept.description),
        ("use_external_ids", kept.use_external_ids),
        ("alternatives", Some(alternatives)),
    ]);
    let target = realms.target.collection::<DataSet>();
    let object = persist::create(client, &target.path, &request, DataSet::NAME).await?;
    let resource = target.resource(&object, None);
    let post = PostCondition::status("created");
    let message = format!("Data set copied successfully from data set {}", found.id);
    Ok(reply::saved_as::<DataSet, _>(object, resource, post, "copied", message).into())
}
