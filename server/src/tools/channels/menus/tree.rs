//! A menu's item tree as Modyo documents it: a menu read (`GET .../menus/{id}`) answers its
//! `items` flat, each linked to its parent by `parent_id`; a menu write (`PUT .../menus/{id}`)
//! takes the whole tree as `menus`: the top-level items, each with its `children`. Items are
//! not a resource of their own (no item endpoint is documented), so every item edit is a read
//! of the menu, an edit of this tree, and a `PUT` of the menu.
//!
//! The documented write nests one level (a child carries no `children`), so a tree deeper than
//! two levels cannot be written back without losing items: [`Tree::of`] refuses it. The
//! specification types an item's `id`, `parent_id` and `position` as strings; ids are compared
//! by their text, so a number answers as well.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::contract::{ErrorCode, ToolError};
use crate::tools::engine::{body, lenient, view};

/// The keys of a documented menu item (the `MenuItem` definition): what a write carries.
const ITEM_KEYS: [&str; 13] = [
    "id",
    "uuid",
    "label",
    "url",
    "position",
    "parent_id",
    "private",
    "restriction_enabled",
    "target_blank",
    "layout_page_uuid",
    "targets",
    "description",
    "classes",
];

/// The keys of an item a copy carries into another menu (no identity, no link to a page of
/// the source site).
const COPIED_KEYS: [&str; 7] = [
    "label",
    "url",
    "private",
    "restriction_enabled",
    "target_blank",
    "description",
    "classes",
];

/// The text of an id, whether the API typed it as a string or a number.
pub(super) fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The key of a menu that holds its items.
#[derive(Default, Deserialize)]
#[serde(default)]
pub(super) struct MenuKeys {
    /// Its items, when an array.
    #[serde(deserialize_with = "lenient")]
    pub(super) items: Option<Vec<Value>>,
}

/// The keys of a menu item that place it in the tree (`id`, `parent_id`, `children`) or that
/// a write is matched by (`label`), each as sent (`null` included).
#[derive(Default, Deserialize)]
#[serde(default)]
pub(super) struct ItemKeys {
    #[serde(deserialize_with = "lenient")]
    id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    parent_id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    pub(super) label: Option<Value>,
    /// Its children, when an array.
    #[serde(deserialize_with = "lenient")]
    pub(super) children: Option<Vec<Value>>,
}

impl ItemKeys {
    /// The text of the item's id.
    pub(super) fn id(&self) -> Option<String> {
        self.id.as_ref().and_then(id_text)
    }
}

/// The text of a menu item's id.
pub(super) fn item_id(item: &Value) -> Option<String> {
    view::<ItemKeys>(item).id()
}

/// The documented write body of a menu's items.
#[derive(Serialize)]
struct MenusBody {
    menus: Vec<Value>,
}

/// An item's position as a number, however typed; items without one sort last.
fn position_of(item: &Map<String, Value>) -> u64 {
    match item.get("position") {
        Some(Value::Number(n)) => n.as_u64().unwrap_or(u64::MAX),
        Some(Value::String(s)) => s.trim().parse().unwrap_or(u64::MAX),
        _ => u64::MAX,
    }
}

/// One item and its children.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Node {
    /// The item's documented keys.
    pub(super) item: Map<String, Value>,
    pub(super) children: Vec<Node>,
}

impl Node {
    /// A new item (no id yet) with these keys.
    pub(super) fn new(item: Map<String, Value>) -> Node {
        Node {
            item,
            children: Vec::new(),
        }
    }

    /// The text of the item's id.
    pub(super) fn id(&self) -> Option<String> {
        self.item.get("id").and_then(id_text)
    }
}

/// Where an item sits in a [`Tree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    Top(usize),
    Child(usize, usize),
}

/// A menu's items as a two-level tree, siblings in position order.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Tree {
    pub(super) items: Vec<Node>,
}

fn too_deep(menu: &str) -> ToolError {
    ToolError::new(
        ErrorCode::InvalidParameters,
        format!(
            "{menu} would nest items more than two levels deep; Modyo documents a menu write with top-level items \
and their children only, so this tool cannot write such a tree without losing items (edit it in Modyo's UI)"
        ),
    )
}

impl Tree {
    /// The tree of a menu as read: flat `items` linked by `parent_id` (an item that carries
    /// `children` is taken as nested). `menu` names it in errors.
    pub(super) fn of(object: &Value, menu: &str) -> Result<Tree, ToolError> {
        let mut flat: Vec<(Map<String, Value>, Option<String>)> = Vec::new();
        let mut known: Vec<Option<String>> = Vec::new();
        let mut stack: Vec<(Value, Option<String>)> = view::<MenuKeys>(object)
            .items
            .map(|items| items.into_iter().rev().map(|i| (i, None)).collect())
            .unwrap_or_default();
        while let Some((item, nested_in)) = stack.pop() {
            let keys: ItemKeys = view(&item);
            let Value::Object(fields) = item else {
                continue;
            };
            let parent = nested_in.or_else(|| keys.parent_id.as_ref().and_then(id_text));
            let id = keys.id();
            if let Some(children) = keys.children {
                stack.extend(children.into_iter().rev().map(|c| (c, id.clone())));
            }
            let kept: Map<String, Value> = fields
                .into_iter()
                .filter(|(k, _)| ITEM_KEYS.contains(&k.as_str()))
                .collect();
            flat.push((kept, parent));
            known.push(id);
        }
        let mut items: Vec<Node> = Vec::new();
        let mut children: Vec<(String, Node)> = Vec::new();
        for (item, parent) in flat {
            match parent {
                Some(parent) if known.contains(&Some(parent.clone())) => {
                    children.push((parent, Node::new(item)));
                }
                Some(parent) => {
                    return Err(ToolError::new(
                        ErrorCode::InvalidUpstreamResponse,
                        format!(
                            "{menu} has an item whose parent {parent} is not among its items; read the menu again"
                        ),
                    ));
                }
                None => items.push(Node::new(item)),
            }
        }
        for (parent, child) in children {
            match items
                .iter_mut()
                .find(|n| n.id().as_deref() == Some(&parent))
            {
                Some(node) => node.children.push(child),
                // The parent is itself a child: a third level.
                None => return Err(too_deep(menu)),
            }
        }
        items.sort_by_key(|n| position_of(&n.item));
        for node in &mut items {
            node.children.sort_by_key(|n| position_of(&n.item));
        }
        Ok(Tree { items })
    }

    /// Where item `id` is.
    pub(super) fn find(&self, id: &str) -> Option<Place> {
        for (i, node) in self.items.iter().enumerate() {
            if node.id().as_deref() == Some(id) {
                return Some(Place::Top(i));
            }
            if let Some(j) = node
                .children
                .iter()
                .position(|c| c.id().as_deref() == Some(id))
            {
                return Some(Place::Child(i, j));
            }
        }
        None
    }

    /// The item at `place`.
    pub(super) fn node_mut(&mut self, place: Place) -> &mut Node {
        match place {
            Place::Top(i) => &mut self.items[i],
            Place::Child(i, j) => &mut self.items[i].children[j],
        }
    }

    /// Takes the item at `place` out, with its children.
    pub(super) fn remove(&mut self, place: Place) -> Node {
        match place {
            Place::Top(i) => self.items.remove(i),
            Place::Child(i, j) => self.items[i].children.remove(j),
        }
    }

    /// Puts `node` under the top-level item `parent` (or at the top when `None`), at `position`
    /// among its siblings (the end when absent or past it). `menu` names it in errors.
    pub(super) fn insert(
        &mut self,
        node: Node,
        parent: Option<&str>,
        position: Option<usize>,
        menu: &str,
    ) -> Result<(), ToolError> {
        let siblings = match parent {
            None => &mut self.items,
            Some(parent) => match self.find(parent) {
                Some(Place::Top(i)) if node.children.is_empty() => &mut self.items[i].children,
                Some(_) => return Err(too_deep(menu)),
                None => {
                    return Err(ToolError::not_found(format!(
                        "{menu} has no item {parent} to put the item under; call channels-menu-items-manage (action get) to see its tree"
                    )));
                }
            },
        };
        let at = position.unwrap_or(siblings.len()).min(siblings.len());
        siblings.insert(at, node);
        Ok(())
    }

    /// The ids of every item.
    pub(super) fn ids(&self) -> Vec<String> {
        self.items
            .iter()
            .flat_map(|n| std::iter::once(n).chain(&n.children))
            .filter_map(Node::id)
            .collect()
    }

    /// How many items it holds.
    pub(super) fn len(&self) -> usize {
        self.items.iter().map(|n| 1 + n.children.len()).sum()
    }

    /// The documented write body: `{"menus": [top-level items, each with children]}`, every
    /// item's `position` its index among its siblings and a child's `parent_id` its parent's id
    /// when the parent has one (both typed as the specification types them: strings); the
    /// nesting itself says the rest.
    pub(super) fn body(&self) -> Value {
        let item = |node: &Node, at: usize, parent: Option<String>| {
            let mut item = node.item.clone();
            item.insert("position".into(), Value::from(at.to_string()));
            match parent {
                Some(parent) => item.insert("parent_id".into(), Value::from(parent)),
                None => item.remove("parent_id"),
            };
            item
        };
        let menus: Vec<Value> = self
            .items
            .iter()
            .enumerate()
            .map(|(at, node)| {
                let children: Vec<Value> = node
                    .children
                    .iter()
                    .enumerate()
                    .map(|(c, child)| Value::Object(item(child, c, node.id())))
                    .collect();
                let mut top = item(node, at, None);
                top.insert("children".into(), Value::Array(children));
                Value::Object(top)
            })
            .collect();
        body(MenusBody { menus })
    }

    /// The same tree as new items for another menu: only the keys a copy carries.
    pub(super) fn copied(&self) -> Tree {
        let strip = |node: &Node| {
            node.item
                .iter()
                .filter(|(k, _)| COPIED_KEYS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
        Tree {
            items: self
                .items
                .iter()
                .map(|node| Node {
                    item: strip(node),
                    children: node.children.iter().map(|c| Node::new(strip(c))).collect(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn menu() -> Value {
        json!({"id": 1, "items": [
            {"id": "12", "label": "B", "position": "1", "parent_id": null, "menu_id": 1},
            {"id": "11", "label": "A", "position": "0", "parent_id": null},
            {"id": "13", "label": "B1", "position": "0", "parent_id": "12"},
        ]})
    }

    #[test]
    fn a_flat_read_becomes_the_documented_nested_write() {
        let tree = Tree::of(&menu(), "menu 1").unwrap();
        assert_eq!(
            tree.body(),
            json!({"menus": [
                {"id": "11", "label": "A", "position": "0", "children": []},
                {"id": "12", "label": "B", "position": "1", "children": [
                    {"id": "13", "label": "B1", "position": "0", "parent_id": "12"}
                ]},
            ]})
        );
        assert_eq!(tree.len(), 3);
        assert_eq!(tree.find("13"), Some(Place::Child(1, 0)));
    }

    #[test]
    fn nested_reads_and_numeric_ids_are_understood() {
        let nested =
            json!({"items": [{"id": 5, "position": 0, "children": [{"id": 6, "position": 0}]}]});
        let tree = Tree::of(&nested, "menu").unwrap();
        assert_eq!(tree.find("6"), Some(Place::Child(0, 0)));
    }

    #[test]
    fn a_third_level_is_refused_on_read_and_on_insert() {
        let deep = json!({"items": [
            {"id": "1", "parent_id": null}, {"id": "2", "parent_id": "1"}, {"id": "3", "parent_id": "2"}
        ]});
        let error = Tree::of(&deep, "menu 9").unwrap_err();
        assert_eq!(error.code(), ErrorCode::InvalidParameters);
        let mut tree = Tree::of(&menu(), "menu 1").unwrap();
        let new = Node::new(Map::new());
        assert!(tree.insert(new.clone(), Some("13"), None, "m").is_err());
        assert_eq!(
            tree.insert(new, Some("99"), None, "m").unwrap_err().code(),
            ErrorCode::NotFound
        );
    }

    #[test]
    fn a_copy_carries_no_identity() {
        let copied = Tree::of(&menu(), "menu 1").unwrap().copied();
        assert_eq!(
            copied.body()["menus"][1],
            json!({"label": "B", "position": "1", "children": [
                {"label": "B1", "position": "0"}
            ]})
        );
        assert!(copied.ids().is_empty());
    }
}
