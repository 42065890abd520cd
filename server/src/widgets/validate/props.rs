//! The props of one JSX element judged against its catalogue component: known props,
//! required ones given, and literal values of the prop's type (and, for an enum, an allowed
//! value). A value computed at run time is not judged.

use super::{Finding, Severity};
use crate::widgets::jsx::{AttrValue, Element};
use crate::widgets::{Component, PropType};

pub(super) fn check_element(
    rel: &str,
    element: &Element,
    component: &Component,
    findings: &mut Vec<Finding>,
) {
    let name = &component.name;
    if element.unreadable {
        findings.push(
            Finding::new(
                "unreadable_element",
                Severity::Warning,
                format!("this {name} tag could not be read to its end; its props were not checked"),
            )
            .file(rel)
            .line(element.line)
            .component(name.clone()),
        );
        return;
    }
    if let Some(sub) = &element.sub {
        if !component.subcomponents.contains(sub) {
            let has = if component.subcomponents.is_empty() {
                format!("{name} has no subcomponents")
            } else {
                format!("{name} has {}", component.subcomponents.join(", "))
            };
            findings.push(
                Finding::new(
                    "unknown_subcomponent",
                    Severity::Error,
                    format!("{name}.{sub} does not exist; {has}"),
                )
                .file(rel)
                .line(element.line)
                .component(format!("{name}.{sub}")),
            );
        }
        return;
    }
    for attr in &element.attrs {
        let Some(prop) = component.props.iter().find(|p| p.name == attr.name) else {
            if !component.passthrough && !Component::accepts_base(&attr.name) {
                findings.push(
                    Finding::new(
                        "unknown_prop",
                        Severity::Warning,
                        format!(
                            "{name} has no prop '{}'; call widgets-get-component-props for its props",
                            attr.name
                        ),
                    )
                    .file(rel)
                    .line(attr.line)
                    .component(name.clone())
                    .prop(&attr.name),
                );
            }
            continue;
        };
        let given = Given::of(&attr.value);
        match judge(prop.kind, &prop.values, &given) {
            Verdict::Fits => {}
            Verdict::WrongType => findings.push(
                Finding::new(
                    "wrong_prop_type",
                    Severity::Error,
                    format!(
                        "{name} '{}' takes {}, not {}",
                        prop.name,
                        article(prop.kind),
                        given.describe()
                    ),
                )
                .file(rel)
                .line(attr.line)
                .component(name.clone())
                .prop(&prop.name)
                .expected(prop.kind.as_str())
                .found(given.kind()),
            ),
            Verdict::NotAllowed(value) => {
                let mut finding = Finding::new(
                    "invalid_prop_value",
                    Severity::Error,
                    format!(
                        "{name} '{}' is one of {}, not '{value}'",
                        prop.name,
                        prop.values.join(", ")
                    ),
                )
                .file(rel)
                .line(attr.line)
                .component(name.clone())
                .prop(&prop.name)
                .found(value);
                finding.allowed = prop.values.clone();
                findings.push(finding);
            }
        }
    }
    if element.spread {
        return;
    }
    for prop in component.props.iter().filter(|p| p.required) {
        let given = element.attrs.iter().any(|a| a.name == prop.name)
            || (prop.name == "children" && element.has_children);
        if !given {
            findings.push(
                Finding::new(
                    "missing_required_prop",
                    Severity::Error,
                    format!("{name} needs '{}' ({})", prop.name, prop.description),
                )
                .file(rel)
                .line(element.line)
                .component(name.clone())
                .prop(&prop.name)
                .expected(prop.kind.as_str()),
            );
        }
    }
}

fn article(kind: PropType) -> &'static str {
    match kind {
        PropType::String => "a string",
        PropType::Number => "a number",
        PropType::Boolean => "a boolean",
        PropType::Enum => "one of its values",
        PropType::Array => "an array",
        PropType::Object => "an object",
        PropType::Function => "a function",
        PropType::Node => "a node",
    }
}

/// What a literal attribute value is, as far as the text tells.
#[derive(Debug, Clone, PartialEq)]
enum Given {
    /// A string; its text when it is a plain literal.
    Str(Option<String>),
    Number,
    Bool,
    Array,
    Object,
    Function,
    Element,
    /// `null` or `undefined`: the prop is left unset.
    Nullish,
    /// Computed at run time (an identifier, a call, a ternary): not judged.
    Unknown,
}

impl Given {
    fn of(value: &AttrValue) -> Given {
        match value {
            AttrValue::Shorthand => Given::Bool,
            AttrValue::Str(text) => Given::Str(Some(text.clone())),
            AttrValue::Expr(text) => Given::classify(text.trim()),
        }
    }

    fn classify(expr: &str) -> Given {
        match expr {
            "true" | "false" => return Given::Bool,
            "null" | "undefined" => return Given::Nullish,
            _ => {}
        }
        let mut chars = expr.chars();
        let first = chars.next();
        let last = expr.chars().last();
        match (first, last) {
            (Some(q @ ('"' | '\'')), Some(l)) if l == q && expr.len() >= 2 => {
                let inner = expr.get(1..expr.len() - 1).unwrap_or_default();
                if inner.contains(q) {
                    Given::Unknown
                } else {
                    Given::Str(Some(inner.to_owned()))
                }
            }
            (Some('`'), Some('`')) if expr.len() >= 2 => {
                let inner = expr.get(1..expr.len() - 1).unwrap_or_default();
                if inner.contains("${") || inner.contains('`') {
                    Given::Str(None)
                } else {
                    Given::Str(Some(inner.to_owned()))
                }
            }
            (Some('['), _) => Given::Array,
            (Some('{'), _) => Given::Object,
            (Some('<'), _) => Given::Element,
            (Some(c), _) if c.is_ascii_digit() || c == '-' || c == '.' => {
                if expr.replace('_', "").parse::<f64>().is_ok() {
                    Given::Number
                } else if expr.contains("=>") {
                    Given::Function
                } else {
                    Given::Unknown
                }
            }
            _ if expr.starts_with("function") || arrow(expr) => Given::Function,
            _ => Given::Unknown,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Given::Str(_) => "string",
            Given::Number => "number",
            Given::Bool => "boolean",
            Given::Array => "array",
            Given::Object => "object",
            Given::Function => "function",
            Given::Element => "element",
            Given::Nullish => "null",
            Given::Unknown => "unknown",
        }
    }

    fn describe(&self) -> String {
        match self {
            Given::Str(Some(text)) => format!("the string \"{text}\""),
            other => format!("a {}", other.kind()),
        }
    }
}

/// `() => ...`, `(e) => ...`, `async (x) => ...`, `x => ...`: an arrow function literal.
fn arrow(expr: &str) -> bool {
    let rest = expr.strip_prefix("async").map_or(expr, str::trim_start);
    if rest.starts_with('(') {
        return rest.contains("=>");
    }
    let ident: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
        .collect();
    !ident.is_empty()
        && rest
            .get(ident.len()..)
            .is_some_and(|r| r.trim_start().starts_with("=>"))
}

enum Verdict {
    Fits,
    WrongType,
    NotAllowed(String),
}

fn judge(kind: PropType, values: &[String], given: &Given) -> Verdict {
    use Given as G;
    use PropType as P;
    match (kind, given) {
        (_, G::Unknown | G::Nullish) | (P::Node, _) => Verdict::Fits,
        (P::Enum, G::Str(Some(text))) if !values.contains(text) => {
            Verdict::NotAllowed(text.clone())
        }
        (P::String | P::Enum, G::Str(_))
        | (P::Number, G::Number)
        | (P::Boolean, G::Bool)
        | (P::Array, G::Array)
        | (P::Object, G::Object)
        | (P::Function, G::Function) => Verdict::Fits,
        _ => Verdict::WrongType,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_are_classified_conservatively() {
        for (expr, kind) in [
            ("12", "number"),
            ("-1.5", "number"),
            ("'a'", "string"),
            ("`a${b}`", "string"),
            ("() => x", "function"),
            ("async (e) => x", "function"),
            ("e => x", "function"),
            ("function () {}", "function"),
            ("[1]", "array"),
            ("{ a: 1 }", "object"),
            ("<b />", "element"),
            ("label", "unknown"),
            ("a ? 'x' : 'y'", "unknown"),
            ("'a' + b + 'c'", "unknown"),
            ("t('key')", "unknown"),
            ("null", "null"),
        ] {
            assert_eq!(Given::classify(expr).kind(), kind, "{expr}");
        }
    }
}
