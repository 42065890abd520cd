//! A small, forgiving reader of the JSX a widget project uses: the names a file imports from
//! the component package, and the elements it renders with their attributes.
//!
//! It is not a JavaScript parser. It finds `import { ... } from '<package>'` statements, then
//! every `<Name` or `<Name.Sub` tag whose `Name` is one of those imports, and reads the tag's
//! attributes: string literals, `{expressions}` (balanced braces, skipping string literals
//! and reading tags nested in them), spreads and boolean shorthands. It runs in one pass over
//! the text, never indexes out of bounds, and gives up on a tag it cannot read (that tag is
//! then reported as unreadable, never guessed). Tags inside comments are read like any other.

/// A name imported from the component package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Import {
    /// The exported name (`DButton` in `DButton as Button`).
    pub(crate) imported: String,
    /// The local binding (`Button`).
    pub(crate) local: String,
    /// 1-based line of the `import` keyword.
    pub(crate) line: usize,
}

/// What an attribute was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AttrValue {
    /// `disabled` alone: `true`.
    Shorthand,
    /// `text="Save"`.
    Str(String),
    /// `text={label}`: the expression's text, without the braces.
    Expr(String),
}

/// One attribute of a tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Attr {
    /// Its name.
    pub(crate) name: String,
    /// Its value.
    pub(crate) value: AttrValue,
    /// 1-based line of the name.
    pub(crate) line: usize,
}

/// One opening tag of an imported component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Element {
    /// The local name (`DCard`).
    pub(crate) local: String,
    /// The static subcomponent (`Header` in `DCard.Header`).
    pub(crate) sub: Option<String>,
    /// 1-based line of the `<`.
    pub(crate) line: usize,
    /// Its attributes, in order.
    pub(crate) attrs: Vec<Attr>,
    /// `{...props}` appeared: any prop may come from it.
    pub(crate) spread: bool,
    /// Not self-closing: it has children.
    pub(crate) has_children: bool,
    /// The tag could not be read to its end; `attrs` holds what was read before.
    pub(crate) unreadable: bool,
    /// Character offset of the `<` (source order of nested tags).
    offset: usize,
}

/// What a file imports from `package`, in source order. Type-only imports are skipped.
pub(crate) fn imports(source: &str, package: &str) -> Vec<Import> {
    let mut out = Vec::new();
    for quote in ['\'', '"'] {
        let needle = format!("{quote}{package}{quote}");
        let mut from = 0;
        while let Some(found) = source.get(from..).and_then(|s| s.find(&needle)) {
            let at = from + found;
            from = at + needle.len();
            let Some(before) = source.get(..at) else {
                continue;
            };
            let Some(keyword) = before.rfind("import") else {
                continue;
            };
            let clause = before.get(keyword + "import".len()..).unwrap_or_default();
            let clause = clause.trim_end();
            let Some(clause) = clause.strip_suffix("from") else {
                continue;
            };
            let clause = clause.trim();
            // The nearest `import` before the package must be this statement's own keyword.
            if clause.contains(';') {
                continue;
            }
            if clause.starts_with("type ") || clause.starts_with("type{") {
                continue;
            }
            let line = line_of(source, keyword);
            let (Some(open), Some(close)) = (clause.find('{'), clause.rfind('}')) else {
                continue;
            };
            let Some(names) = clause.get(open + 1..close) else {
                continue;
            };
            for spec in names.split(',') {
                let spec = spec.trim();
                if spec.is_empty() || spec.starts_with("type ") {
                    continue;
                }
                let mut parts = spec.split_whitespace();
                let imported = parts.next().unwrap_or_default();
                let local = match (parts.next(), parts.next()) {
                    (Some("as"), Some(local)) => local,
                    _ => imported,
                };
                if is_identifier(imported) && is_identifier(local) {
                    out.push(Import {
                        imported: imported.to_owned(),
                        local: local.to_owned(),
                        line,
                    });
                }
            }
        }
    }
    out.sort_by_key(|i| i.line);
    out
}

/// Every opening tag whose name is one of `locals`, in source order (nested tags inside
/// attribute expressions included).
pub(crate) fn elements(source: &str, locals: &[&str]) -> Vec<Element> {
    let mut reader = Reader {
        chars: source.chars().collect(),
        pos: 0,
        line: 1,
        locals,
        found: Vec::new(),
    };
    while reader.pos < reader.chars.len() {
        if reader.peek() == Some('<') && reader.tag_name_ahead().is_some() {
            reader.element();
        } else {
            reader.bump();
        }
    }
    reader.found.sort_by_key(|e| e.offset);
    reader.found
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn line_of(source: &str, byte: usize) -> usize {
    source
        .get(..byte)
        .map_or(1, |s| s.matches('\n').count() + 1)
}

struct Reader<'a> {
    chars: Vec<char>,
    pos: usize,
    line: usize,
    locals: &'a [&'a str],
    found: Vec<Element>,
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    /// At a `<`: the `(local, sub)` of an imported tag that starts here, if any.
    fn tag_name_ahead(&self) -> Option<(String, Option<String>)> {
        let mut i = self.pos + 1;
        let read = |i: &mut usize| {
            let mut name = String::new();
            while let Some(c) = self.chars.get(*i).copied() {
                if c.is_ascii_alphanumeric() || c == '_' || c == '$' {
                    name.push(c);
                    *i += 1;
                } else {
                    break;
                }
            }
            name
        };
        let local = read(&mut i);
        if !self.locals.contains(&local.as_str()) {
            return None;
        }
        let sub = if self.chars.get(i) == Some(&'.') {
            i += 1;
            Some(read(&mut i)).filter(|s| !s.is_empty())
        } else {
            None
        };
        let next = self.chars.get(i).copied();
        if next.is_none_or(|c| c.is_whitespace() || c == '/' || c == '>' || c == '{') {
            Some((local, sub))
        } else {
            None
        }
    }

    /// Reads one opening tag from its `<`; records it.
    fn element(&mut self) {
        let Some((local, sub)) = self.tag_name_ahead() else {
            self.bump();
            return;
        };
        let line = self.line;
        let offset = self.pos;
        self.bump(); // '<'
        for _ in 0..local.chars().count() {
            self.bump();
        }
        if let Some(sub) = &sub {
            for _ in 0..=sub.chars().count() {
                self.bump();
            }
        }
        let mut element = Element {
            local,
            sub,
            line,
            attrs: Vec::new(),
            spread: false,
            has_children: false,
            unreadable: false,
            offset,
        };
        loop {
            self.skip_whitespace();
            match self.peek() {
                None => {
                    element.unreadable = true;
                    break;
                }
                Some('>') => {
                    self.bump();
                    element.has_children = true;
                    break;
                }
                Some('/') if self.peek_at(1) == Some('>') => {
                    self.bump();
                    self.bump();
                    break;
                }
                Some('{') => {
                    self.bump();
                    match self.expression() {
                        Some(text) if text.trim_start().starts_with("...") => element.spread = true,
                        Some(_) => {}
                        None => {
                            element.unreadable = true;
                            break;
                        }
                    }
                }
                Some(_) => {
                    let attr_line = self.line;
                    let mut name = String::new();
                    while let Some(c) = self.peek() {
                        if c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '-' | ':') {
                            name.push(c);
                            self.bump();
                        } else {
                            break;
                        }
                    }
                    if name.is_empty() {
                        element.unreadable = true;
                        break;
                    }
                    self.skip_whitespace();
                    let value = if self.peek() == Some('=') {
                        self.bump();
                        self.skip_whitespace();
                        match self.peek() {
                            Some(quote @ ('"' | '\'')) => {
                                self.bump();
                                let mut text = String::new();
                                let mut closed = false;
                                while let Some(c) = self.bump() {
                                    if c == quote {
                                        closed = true;
                                        break;
                                    }
                                    text.push(c);
                                }
                                if !closed {
                                    element.unreadable = true;
                                    break;
                                }
                                AttrValue::Str(text)
                            }
                            Some('{') => {
                                self.bump();
                                match self.expression() {
                                    Some(text) => AttrValue::Expr(text),
                                    None => {
                                        element.unreadable = true;
                                        break;
                                    }
                                }
                            }
                            _ => {
                                element.unreadable = true;
                                break;
                            }
                        }
                    } else {
                        AttrValue::Shorthand
                    };
                    element.attrs.push(Attr {
                        name,
                        value,
                        line: attr_line,
                    });
                }
            }
        }
        self.found.push(element);
    }

    /// After a `{`: the text up to the matching `}` (consumed), reading nested imported
    /// tags on the way. `None` when the text ends first.
    fn expression(&mut self) -> Option<String> {
        let mut depth = 1usize;
        let mut text = String::new();
        while let Some(c) = self.peek() {
            match c {
                '{' => {
                    depth += 1;
                    text.push(c);
                    self.bump();
                }
                '}' => {
                    depth -= 1;
                    self.bump();
                    if depth == 0 {
                        return Some(text);
                    }
                    text.push(c);
                }
                '\'' | '"' | '`' => {
                    if let Some(literal) = self.string_literal(c) {
                        text.push_str(&literal);
                    } else {
                        text.push(c);
                        self.bump();
                    }
                }
                '<' if self.tag_name_ahead().is_some() => {
                    let start = self.pos;
                    self.element();
                    text.extend(self.chars.get(start..self.pos).unwrap_or_default());
                }
                _ => {
                    text.push(c);
                    self.bump();
                }
            }
        }
        None
    }

    /// At a quote: consumes a string literal and returns it with its quotes, or `None` (and
    /// consumes nothing) when it does not close: a `'` or `"` that meets a line end first is
    /// JSX text (an apostrophe), not a string.
    fn string_literal(&mut self, quote: char) -> Option<String> {
        let mut i = self.pos + 1;
        let mut escaped = false;
        while let Some(c) = self.chars.get(i).copied() {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == quote {
                let literal: String = self.chars.get(self.pos..=i)?.iter().collect();
                while self.pos <= i {
                    self.bump();
                }
                return Some(literal);
            } else if c == '\n' && quote != '`' {
                return None;
            }
            i += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PKG: &str = "@dynamic-framework/ui-react";

    #[test]
    fn imports_read_named_aliased_and_multiline_specifiers() {
        let src = "import React from 'react';\nimport {\n  DButton,\n  DCard as Card,\n  type DTabOption,\n} from '@dynamic-framework/ui-react';\nimport '@dynamic-framework/ui-react/dist/css/dynamic-ui.css';\nimport type { Props } from \"@dynamic-framework/ui-react\";\n";
        let found = imports(src, PKG);
        assert_eq!(
            found,
            vec![
                Import {
                    imported: "DButton".into(),
                    local: "DButton".into(),
                    line: 2
                },
                Import {
                    imported: "DCard".into(),
                    local: "Card".into(),
                    line: 2
                },
            ]
        );
    }

    #[test]
    fn elements_read_every_attribute_form() {
        let src = "<div>\n  <DButton text=\"Save\" theme='danger' disabled onClick={() => save({ a: 1 })} {...rest} />\n  <DCard.Header>Hi</DCard.Header>\n  <DButtonIcon />\n</div>";
        let found = elements(src, &["DButton", "DCard"]);
        assert_eq!(found.len(), 2);
        let button = &found[0];
        assert_eq!(button.line, 2);
        assert!(button.spread && !button.has_children && !button.unreadable);
        let attrs: Vec<(&str, &AttrValue)> = button
            .attrs
            .iter()
            .map(|a| (a.name.as_str(), &a.value))
            .collect();
        assert_eq!(
            attrs,
            vec![
                ("text", &AttrValue::Str("Save".into())),
                ("theme", &AttrValue::Str("danger".into())),
                ("disabled", &AttrValue::Shorthand),
                ("onClick", &AttrValue::Expr("() => save({ a: 1 })".into())),
            ]
        );
        assert_eq!(found[1].sub.as_deref(), Some("Header"));
        assert!(found[1].has_children);
    }

    #[test]
    fn tags_nested_in_attribute_expressions_are_read_too() {
        let src = "<DCollapse Component={<DBadge text=\"Don't miss\" />} id='x'>\n  It's here\n</DCollapse>";
        let found = elements(src, &["DCollapse", "DBadge"]);
        let names: Vec<&str> = found.iter().map(|e| e.local.as_str()).collect();
        assert_eq!(names, vec!["DCollapse", "DBadge"]);
        assert_eq!(found[0].attrs.len(), 2, "{:?}", found[0].attrs);
        assert!(!found[0].unreadable);
    }

    #[test]
    fn an_apostrophe_in_jsx_text_inside_an_expression_is_not_a_string() {
        let src = "<DCollapse Component={<p>Don't panic</p>} />";
        let found = elements(src, &["DCollapse"]);
        assert_eq!(found.len(), 1);
        assert!(!found[0].unreadable);
        assert_eq!(found[0].attrs[0].name, "Component");
    }

    #[test]
    fn truncated_input_is_unreadable_never_a_panic() {
        for src in [
            "<DButton",
            "<DButton text=",
            "<DButton text=\"open",
            "<DButton onClick={() => {",
            "<DButton =",
            "<DButton.",
            "<DButton {",
            "<DButton é=1",
            "<",
        ] {
            let found = elements(src, &["DButton"]);
            assert!(found.iter().all(|e| e.unreadable), "{src}: {found:?}");
        }
        assert!(imports("import { from '@dynamic-framework/ui-react'", PKG).is_empty());
        assert!(imports("'@dynamic-framework/ui-react'", PKG).is_empty());
        assert!(
            imports(
                "import a from 'a';\nexport { DButton } from '@dynamic-framework/ui-react';",
                PKG
            )
            .is_empty(),
            "a re-export is not this file's import"
        );
    }

    #[test]
    fn names_that_only_start_like_an_import_are_not_tags() {
        let found = elements("<DButtonIcon /> <DButton/>", &["DButton"]);
        assert_eq!(found.len(), 1);
        assert!(!found[0].has_children);
    }
}
