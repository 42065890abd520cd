//! Reads over the component catalogue: `widgets-list-components`,
//! `widgets-get-component-props` and `widgets-list-patterns`.
//!
//! The catalogue is held whole in memory, so lists are complete by evidence (C6, case 3) and
//! say how much they searched; filters narrow the answer, never the corpus.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{Coverage, Evidence, Legacy, Outcome, Reply, Resource, ToolClass, ToolError};
use crate::tools::args::Ident;
use crate::tools::engine::tool::{Call, ToolDef, tool};
use crate::tools::engine::{Answer, Data};
use crate::widgets::{Catalogue, ComponentDetail, ComponentSummary, PatternDetail, catalogue};

impl Data for Vec<ComponentSummary<'static>> {}
impl Data for ComponentDetail<'static> {}
impl Data for Vec<PatternDetail<'static>> {}

/// Arguments of `widgets-list-components`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListComponentsArgs {
    /// Only this category (actions, data, feedback, forms, layout, media, navigation, overlays, setup).
    category: Option<String>,
    /// Only components whose id, name or description contains this text (any case).
    query: Option<String>,
}

pub(crate) fn list_components_tool() -> ToolDef {
    tool("widgets-list-components", Module::Widgets, ToolClass::Read)
        .describe(
            "List the widget components of the built-in catalogue (Dynamic UI, @dynamic-framework/ui-react): \
id, name, category, description. Props: widgets-get-component-props.",
        )
        .state()
        .handle(list_components)
        .writes_state(RareState::SEARCHED)
}

/// Whether one of `texts` (an entry's id, name and description) contains `query` (already
/// lower case), in any case; every entry matches no query.
fn matches(query: Option<&str>, texts: [&str; 3]) -> bool {
    query.is_none_or(|q| texts.iter().any(|t| t.to_lowercase().contains(q)))
}

/// A list of catalogue entries: complete by evidence (the catalogue is held whole), having
/// searched `searched` entries; its old payload was `{<root>: items, total}`.
fn whole_list<T>(items: Vec<T>, searched: usize, root: &'static str) -> Outcome<Vec<T>> {
    let coverage = Coverage::with_evidence(items.len(), Evidence::WholeCorpus).searched(searched);
    Reply::new(items)
        .state(coverage)
        .old(Legacy::custom(move |items| {
            let total = items.as_array().map_or(0, Vec::len);
            let mut old = Map::new();
            old.insert(root.to_owned(), items);
            old.insert("total".to_owned(), Value::from(total));
            Value::Object(old)
        }))
        .into()
}

async fn list_components(
    _call: Call,
    args: ListComponentsArgs,
) -> Answer<Vec<ComponentSummary<'static>>> {
    let c = catalogue();
    let category = args
        .category
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    if let Some(category) = category
        && !c
            .categories()
            .iter()
            .any(|k| k.eq_ignore_ascii_case(category))
    {
        return Err(ToolError::invalid_parameters(format!(
            "no component category '{category}'; categories: {}",
            c.categories().join(", ")
        ))
        .into());
    }
    let query = args.query.as_deref().map(|q| q.trim().to_lowercase());
    let items: Vec<ComponentSummary<'_>> = c
        .components
        .iter()
        .filter(|x| category.is_none_or(|k| x.category.eq_ignore_ascii_case(k)))
        .filter(|x| matches(query.as_deref(), [&x.id, &x.name, &x.description]))
        .map(|x| x.summary())
        .collect();
    Ok(whole_list(items, c.components.len(), "components"))
}

/// Arguments of `widgets-get-component-props`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GetComponentPropsArgs {
    /// Component id or name, such as button or DButton.
    component: Ident,
}

pub(crate) fn get_component_props_tool() -> ToolDef {
    tool("widgets-get-component-props", Module::Widgets, ToolClass::Read)
        .describe(
            "Get one catalogue component with its typed props (name, type, required, default, allowed values), \
subcomponents and a usage example.",
        )
        .resource()
        .handle(get_component_props)
}

fn not_found(c: &Catalogue, key: &str) -> ToolError {
    let ids: Vec<&str> = c.components.iter().map(|x| x.id.as_str()).collect();
    ToolError::not_found(format!(
        "no widget component '{key}'; call widgets-list-components, or use one of: {}",
        ids.join(", ")
    ))
}

async fn get_component_props(
    _call: Call,
    args: GetComponentPropsArgs,
) -> Answer<ComponentDetail<'static>> {
    let c = catalogue();
    let component = c
        .component(&args.component)
        .ok_or_else(|| not_found(c, args.component.trim()))?;
    let resource = Resource::new("component")
        .id(component.id.clone())
        .name(component.name.clone());
    Ok(Reply::new(component.detail(&c.package))
        .resource(resource)
        .into())
}

/// Arguments of `widgets-list-patterns`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ListPatternsArgs {
    /// Only patterns that use this component (id or name).
    component: Option<Ident>,
    /// Only patterns whose id, name or description contains this text (any case).
    query: Option<String>,
}

pub(crate) fn list_patterns_tool() -> ToolDef {
    tool("widgets-list-patterns", Module::Widgets, ToolClass::Read)
        .describe(
            "List the widget patterns of the catalogue: compositions of components with their setup code \
and JSX, ready to paste or to scaffold (widgets-scaffold pattern).",
        )
        .state()
        .handle(list_patterns)
        .writes_state(RareState::SEARCHED)
}

async fn list_patterns(_call: Call, args: ListPatternsArgs) -> Answer<Vec<PatternDetail<'static>>> {
    let c = catalogue();
    let component = match args
        .component
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(key) => Some(c.component(key).ok_or_else(|| not_found(c, key))?),
        None => None,
    };
    let query = args.query.as_deref().map(|q| q.trim().to_lowercase());
    let items: Vec<PatternDetail<'_>> = c
        .patterns
        .iter()
        .filter(|p| component.is_none_or(|x| p.components.contains(&x.id)))
        .filter(|p| matches(query.as_deref(), [&p.id, &p.name, &p.description]))
        .map(|p| p.detail(c))
        .collect();
    Ok(whole_list(items, c.patterns.len(), "patterns"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_category_argument_names_exactly_the_catalogue_categories() {
        let input = crate::contract::schema::input_schema::<ListComponentsArgs>();
        let doc = input["properties"]["category"]["description"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let listed: Vec<&str> = doc
            .split_once('(')
            .and_then(|(_, rest)| rest.split_once(')'))
            .map(|(names, _)| names.split(", ").collect())
            .unwrap_or_default();
        assert_eq!(listed, catalogue().categories(), "{doc}");
    }
}
