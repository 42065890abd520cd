//! A small, forgiving reader of the JSX a widget project uses: the names a file imports from
//! the component package, and the elements it renders with their attributes.
//!
//! It is not a JavaScript parser. It finds `import { ... } from '<package>'` statements, then
//! every `<Name` or `<Name.Sub` tag whose `Name` is one of those imports, and reads the tag's
//! attributes: string literals, `{expressions}` (balanced braces, skipping string literals
//! and reading tags nested in them), spreads and boolean shorthands. It runs in one pass over
//! the text, never indexes out of bounds, and gives up on a tag it cannot read (that tag is
//! then reported as unreadable, never guessed). Tags inside comments are read like any other.
//!
//! Tags nested in attribute expressions are read by recursion, at most [`MAX_NESTING`] deep: a
//! hostile file nesting `<DButton a={` thousands of times once overflowed a worker's stack and
//! aborted the whole server. The tag at the limit is reported unreadable (once per file) and
//! what it holds is read as plain text.

mod imports;

pub(crate) use imports::imports;

/// The deepest a tag may sit inside other tags' attribute expressions and still be read.
/// Real widgets nest a handful (a badge in a collapse's header); each level costs two frames
/// of the reader, so 64 stays far below any worker's stack.
pub(crate) const MAX_NESTING: usize = 64;

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

/// Every opening tag whose name is one of `locals`, in source order (nested tags inside
/// attribute expressions included).
pub(crate) fn elements(source: &str, locals: &[&str]) -> Vec<Element> {
    let mut reader = Reader {
        chars: source.chars().collect(),
        pos: 0,
        line: 1,
        locals,
        found: Vec::new(),
        depth: 0,
        too_deep: false,
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

pub(super) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

struct Reader<'a> {
    chars: Vec<char>,
    pos: usize,
    line: usize,
    locals: &'a [&'a str],
    found: Vec<Element>,
    /// How many tags the reader is inside (through attribute expressions).
    depth: usize,
    /// A tag past [`MAX_NESTING`] was met (and reported once).
    too_deep: bool,
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
                '<' if self.depth >= MAX_NESTING && self.tag_name_ahead().is_some() => {
                    self.too_deep();
                    text.push(c);
                    self.bump();
                }
                '<' if self.tag_name_ahead().is_some() => {
                    let start = self.pos;
                    self.depth += 1;
                    self.element();
                    self.depth -= 1;
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

    /// At a tag nested past [`MAX_NESTING`]: records it once as unreadable; the caller reads
    /// it as text.
    fn too_deep(&mut self) {
        if self.too_deep {
            return;
        }
        self.too_deep = true;
        if let Some((local, sub)) = self.tag_name_ahead() {
            self.found.push(Element {
                local,
                sub,
                line: self.line,
                attrs: Vec::new(),
                spread: false,
                has_children: false,
                unreadable: true,
                offset: self.pos,
            });
        }
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
    }

    #[test]
    fn deep_nesting_is_cut_at_the_limit_not_a_stack_overflow() {
        // Before the limit, this file (60 KB, 5,000 levels) overflowed the reader's stack and
        // aborted the process; run on a 256 KiB thread, smaller than a tokio worker's 2 MiB.
        let deep = "<DButton a={".repeat(5_000);
        let found = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || elements(&deep, &["DButton"]))
            .expect("thread")
            .join()
            .expect("no stack overflow");
        let unreadable = found.iter().filter(|e| e.unreadable).count();
        assert!(found.len() <= MAX_NESTING + 2, "{}", found.len());
        assert!(unreadable >= 1);
        // Nesting within the limit is still read whole.
        let fine = format!(
            "{}<DButton />{}",
            "<DButton a={".repeat(10),
            "} />".repeat(10)
        );
        let found = elements(&fine, &["DButton"]);
        assert_eq!(found.len(), 11);
        assert!(found.iter().all(|e| !e.unreadable), "{found:?}");
    }

    #[test]
    fn names_that_only_start_like_an_import_are_not_tags() {
        let found = elements("<DButtonIcon /> <DButton/>", &["DButton"]);
        assert_eq!(found.len(), 1);
        assert!(!found[0].has_children);
    }
}
