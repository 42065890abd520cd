//! A Markdown table, as the lab's reports write them: a header line with the column names, a
//! rule line with each column's alignment (`|---|---:|`), then one line per row, every line
//! `| a | b |` with a final newline.
//!
//! A cell is a value, written `| value |` (`|  |` when the value is empty), or a cell left
//! blank on purpose, written `| |`. A header column without a name is a blank cell. Values are
//! written as given: a caller escapes a `|` in one where it may occur.

/// How a column's values line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    /// To the left (text).
    Left,
    /// To the right (figures).
    Right,
}

/// One cell of a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cell {
    /// A value, written as given.
    Value(String),
    /// A cell left blank on purpose.
    Blank,
}

impl From<String> for Cell {
    fn from(value: String) -> Cell {
        Cell::Value(value)
    }
}

impl From<&str> for Cell {
    fn from(value: &str) -> Cell {
        Cell::Value(value.to_owned())
    }
}

/// A table being written.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    text: String,
}

impl Table {
    /// A table with these columns (name, alignment).
    pub(crate) fn new(columns: &[(&str, Align)]) -> Table {
        let mut table = Table {
            text: String::new(),
        };
        table.row(columns.iter().map(|(name, _)| {
            if name.is_empty() {
                Cell::Blank
            } else {
                Cell::from(*name)
            }
        }));
        table.text.push('|');
        for (_, align) in columns {
            table.text.push_str(match align {
                Align::Left => "---|",
                Align::Right => "---:|",
            });
        }
        table.text.push('\n');
        table
    }

    /// Adds a row.
    pub(crate) fn row(&mut self, cells: impl IntoIterator<Item = Cell>) {
        self.text.push('|');
        for cell in cells {
            match cell {
                Cell::Value(value) => {
                    self.text.push(' ');
                    self.text.push_str(&value);
                    self.text.push_str(" |");
                }
                Cell::Blank => self.text.push_str(" |"),
            }
        }
        self.text.push('\n');
    }

    /// The table's text, every line ending in a newline.
    pub(crate) fn into_text(self) -> String {
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_writes_its_header_rule_and_rows() {
        let mut table = Table::new(&[("tool", Align::Left), ("calls", Align::Right)]);
        table.row(["`a`".into(), "3".into()]);
        table.row([Cell::from(""), Cell::Blank]);
        assert_eq!(
            table.into_text(),
            "| tool | calls |\n|---|---:|\n| `a` | 3 |\n|  | |\n"
        );
        let blank = Table::new(&[("", Align::Left), ("", Align::Left)]);
        assert_eq!(blank.into_text(), "| | |\n|---|---|\n");
    }
}
