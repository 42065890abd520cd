//! A small SVG writer for the charts, the font metrics their layout uses, and [`problems`],
//! which checks a finished chart: every text inside the canvas, no two texts overlapping.
//!
//! Text extents are estimated from the advance widths of DejaVu Sans (Book and Bold, ASCII 32
//! to 126, in 1/2048 em; any other character counts one em), the font the charts ask for
//! first. It is wider than Arial or Helvetica, so a label that fits with these metrics fits in
//! the fonts a browser falls back to.

use std::fmt::Write;

/// The font the charts ask for; DejaVu Sans is also what [`text_width`] measures.
pub(super) const FONT_FAMILY: &str = "DejaVu Sans, Verdana, Arial, sans-serif";

/// The default font size of a chart.
pub(super) const FONT_SIZE: f64 = 11.0;

/// DejaVu Sans (Book) advance widths of ASCII 32..=126, 1/2048 em.
const BOOK: [u16; 95] = [
    651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690, 1303,
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1087, 2048,
    1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612, 1235,
    1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799, 690, 799, 1716, 1024, 1024,
    1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995, 1298, 1253, 1300,
    1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, 1303, 690, 1303, 1716,
];

/// DejaVu Sans Bold advance widths of ASCII 32..=126, 1/2048 em.
const BOLD: [u16; 95] = [
    713, 934, 1067, 1716, 1425, 2052, 1786, 627, 936, 936, 1071, 1716, 778, 850, 778, 748, 1425,
    1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 819, 819, 1716, 1716, 1716, 1188, 2048,
    1585, 1561, 1503, 1700, 1399, 1399, 1681, 1714, 762, 762, 1587, 1305, 2038, 1714, 1741, 1501,
    1741, 1577, 1475, 1397, 1663, 1585, 2259, 1579, 1483, 1485, 936, 748, 936, 1716, 1024, 1024,
    1382, 1466, 1214, 1466, 1389, 891, 1466, 1458, 702, 702, 1362, 702, 2134, 1458, 1407, 1466,
    1466, 1010, 1219, 979, 1458, 1335, 1892, 1321, 1335, 1192, 1458, 748, 1458, 1716,
];

/// Ascent and descent of DejaVu Sans, in em (rounded up).
const ASCENT: f64 = 0.93;
const DESCENT: f64 = 0.24;

/// The estimated advance width of `text` at `size` pixels.
pub fn text_width(text: &str, size: f64, bold: bool) -> f64 {
    let table = if bold { &BOLD } else { &BOOK };
    let units: u32 = text
        .chars()
        .map(|c| match c as u32 {
            code @ 32..=126 => u32::from(table[(code - 32) as usize]),
            _ => 2048,
        })
        .sum();
    f64::from(units) * size / 2048.0
}

/// `&`, `<`, `>` and `"` escaped.
pub(super) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// Where a text hangs from its `x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn attr(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// A text to draw.
#[derive(Debug, Clone)]
pub(super) struct Label {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) text: String,
    pub(super) size: f64,
    pub(super) anchor: Anchor,
    pub(super) bold: bool,
    pub(super) fill: &'static str,
}

impl Label {
    /// Regular 11 px black text, anchored at its start.
    pub(super) fn new(x: f64, y: f64, text: impl Into<String>) -> Label {
        Label {
            x,
            y,
            text: text.into(),
            size: FONT_SIZE,
            anchor: Anchor::Start,
            bold: false,
            fill: "#222",
        }
    }
    pub(super) fn size(mut self, size: f64) -> Self {
        self.size = size;
        self
    }
    pub(super) fn anchor(mut self, anchor: Anchor) -> Self {
        self.anchor = anchor;
        self
    }
    pub(super) fn bold(mut self) -> Self {
        self.bold = true;
        self
    }
    pub(super) fn fill(mut self, fill: &'static str) -> Self {
        self.fill = fill;
        self
    }
    /// Its estimated width.
    pub(super) fn width(&self) -> f64 {
        text_width(&self.text, self.size, self.bold)
    }
    /// Made to fit in `max` pixels: smaller, down to 8 px, then cut with an ellipsis.
    pub(super) fn fit(mut self, max: f64) -> Self {
        while self.width() > max && self.size > 8.0 {
            self.size -= 0.5;
        }
        if self.width() > max {
            let mut kept: Vec<char> = self.text.chars().collect();
            self.text = "…".into();
            while kept.pop().is_some() {
                let candidate = format!("{}…", kept.iter().collect::<String>().trim_end());
                if text_width(&candidate, self.size, self.bold) <= max {
                    self.text = candidate;
                    break;
                }
            }
        }
        self
    }
}

/// An SVG being written: fixed size, one element per line, one decimal.
pub(super) struct Svg {
    width: f64,
    height: f64,
    body: String,
}

impl Svg {
    pub(super) fn new(width: f64, height: f64) -> Svg {
        Svg {
            width: width.ceil(),
            height: height.ceil(),
            body: String::new(),
        }
    }

    pub(super) fn text(&mut self, label: Label) {
        let _ = write!(self.body, r#"<text x="{:.1}" y="{:.1}""#, label.x, label.y);
        if label.size != FONT_SIZE {
            let _ = write!(self.body, r#" font-size="{}""#, label.size);
        }
        if label.anchor != Anchor::Start {
            let _ = write!(self.body, r#" text-anchor="{}""#, label.anchor.attr());
        }
        if label.bold {
            self.body.push_str(r#" font-weight="bold""#);
        }
        let _ = writeln!(
            self.body,
            r#" fill="{}">{}</text>"#,
            label.fill,
            escape(&label.text)
        );
    }

    /// The chart's title (bold, 14 px) at the top left, fitted to the canvas.
    pub(super) fn heading(&mut self, title: &str) {
        let room = self.width - 20.0;
        self.text(Label::new(10.0, 20.0, title).size(14.0).bold().fit(room));
    }

    /// A grey 10 px line of explanation at `y`, fitted to the canvas.
    pub(super) fn note(&mut self, x: f64, y: f64, text: &str) {
        let room = self.width - x - 10.0;
        self.text(Label::new(x, y, text).size(10.0).fill("#444").fit(room));
    }

    /// A rectangle with a tooltip (`title`) when given.
    pub(super) fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, title: &str) {
        if w <= 0.0 || h <= 0.0 {
            return;
        }
        let _ = write!(
            self.body,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{fill}""#
        );
        if title.is_empty() {
            self.body.push_str("/>\n");
        } else {
            let _ = writeln!(self.body, "><title>{}</title></rect>", escape(title));
        }
    }

    pub(super) fn line(&mut self, from: (f64, f64), to: (f64, f64), stroke: &str, extra: &str) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{stroke}"{extra}/>"#,
            from.0, from.1, to.0, to.1
        );
    }

    pub(super) fn circle(&mut self, at: (f64, f64), r: f64, fill: &str, title: &str) {
        let _ = writeln!(
            self.body,
            r#"<circle cx="{:.1}" cy="{:.1}" r="{r:.1}" fill="{fill}"><title>{}</title></circle>"#,
            at.0,
            at.1,
            escape(title)
        );
    }

    /// The document.
    pub(super) fn finish(self, title: &str) -> String {
        let (w, h) = (self.width, self.height);
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"{FONT_FAMILY}\" font-size=\"{FONT_SIZE}\">\n<title>{}</title>\n<rect width=\"{w:.0}\" height=\"{h:.0}\" fill=\"white\"/>\n{}</svg>\n",
            escape(title),
            self.body
        )
    }
}

/// Round tick values from 0 to at least `max`: steps of 1, 2, 2.5 or 5 times a power of ten,
/// about `count` of them.
pub(super) fn ticks(max: f64, count: usize) -> Vec<f64> {
    ticks_in(max, count, &[1.0, 2.0, 2.5, 5.0, 10.0])
}

/// [`ticks`] for a count (of calls): whole steps of 1, 2 or 5 times a power of ten.
pub(super) fn whole_ticks(max: f64, count: usize) -> Vec<f64> {
    ticks_in(max.max(count as f64), count, &[1.0, 2.0, 5.0, 10.0])
}

fn ticks_in(max: f64, count: usize, multiples: &[f64]) -> Vec<f64> {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let raw = max / count.max(1) as f64;
    let power = 10_f64.powf(raw.log10().floor());
    let step = multiples
        .iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power);
    let n = (max / step - 1e-9).ceil().max(1.0) as usize;
    (0..=n).map(|i| i as f64 * step).collect()
}

/// A tick value, short: `950`, `1.5k`, `20k`, `1.2M`.
pub(super) fn short(value: f64) -> String {
    let trim = |x: f64| {
        let text = format!("{x:.1}");
        text.strip_suffix(".0").map(str::to_owned).unwrap_or(text)
    };
    if value.abs() >= 1_000_000.0 {
        format!("{}M", trim(value / 1_000_000.0))
    } else if value.abs() >= 1_000.0 {
        format!("{}k", trim(value / 1_000.0))
    } else {
        trim(value)
    }
}

/// A value with thousands separators and no decimals: `12,345`.
pub(super) fn whole(value: f64) -> String {
    crate::tokens::grouped(value, 0)
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let needle = format!(" {name}=\"");
    let start = tag.find(&needle)? + needle.len();
    let end = tag[start..].find('"')? + start;
    Some(tag[start..end].to_owned())
}

/// One text of a chart with its estimated box.
#[derive(Debug, Clone)]
struct TextBox {
    text: String,
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

fn boxes(svg: &str) -> Result<(f64, f64, Vec<TextBox>), String> {
    let root = svg.find("<svg").ok_or("no <svg> element")?;
    let root_tag = &svg[root..root + svg[root..].find('>').ok_or("unclosed <svg>")?];
    let number = |tag: &str, name: &str| -> Option<f64> { attr(tag, name)?.parse().ok() };
    let width = number(root_tag, "width").ok_or("the <svg> has no width")?;
    let height = number(root_tag, "height").ok_or("the <svg> has no height")?;
    let default_size = number(root_tag, "font-size").unwrap_or(16.0);
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find("<text") {
        let after = &rest[start..];
        let open_end = after.find('>').ok_or("unclosed <text>")?;
        let tag = &after[..open_end];
        let close = after.find("</text>").ok_or("<text> without </text>")?;
        let content = unescape(&after[open_end + 1..close]);
        if content.contains('<') {
            return Err(format!("nested markup in a text: {content}"));
        }
        let x = number(tag, "x").ok_or_else(|| format!("a text without x: {content}"))?;
        let y = number(tag, "y").ok_or_else(|| format!("a text without y: {content}"))?;
        let size = number(tag, "font-size").unwrap_or(default_size);
        let bold = attr(tag, "font-weight").is_some_and(|w| w == "bold");
        let w = text_width(&content, size, bold);
        let x0 = match attr(tag, "text-anchor").as_deref() {
            Some("middle") => x - w / 2.0,
            Some("end") => x - w,
            _ => x,
        };
        out.push(TextBox {
            text: content,
            x0,
            x1: x0 + w,
            y0: y - ASCENT * size,
            y1: y + DESCENT * size,
        });
        rest = &after[close + "</text>".len()..];
    }
    Ok((width, height, out))
}

/// What is wrong with the texts of a chart: a text reaching outside the canvas (clipped), or
/// two texts overlapping, by the metrics of [`text_width`]. Empty when every label is readable.
pub fn problems(svg: &str) -> Vec<String> {
    let (width, height, texts) = match boxes(svg) {
        Ok(parsed) => parsed,
        Err(e) => return vec![e],
    };
    let mut out = Vec::new();
    for t in &texts {
        if t.x0 < 0.0 || t.x1 > width || t.y0 < 0.0 || t.y1 > height {
            out.push(format!(
                "{:?} is clipped: it spans x {:.1}..{:.1}, y {:.1}..{:.1} on a {width} x {height} canvas",
                t.text, t.x0, t.x1, t.y0, t.y1
            ));
        }
    }
    for (i, a) in texts.iter().enumerate() {
        for b in &texts[i + 1..] {
            // Half a pixel of tolerance: neighbouring rows may touch.
            if a.x0 < b.x1 - 0.5 && b.x0 < a.x1 - 0.5 && a.y0 < b.y1 - 0.5 && b.y0 < a.y1 - 0.5 {
                out.push(format!("{:?} overlaps {:?}", a.text, b.text));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_follow_the_font() {
        // "Mi" in DejaVu Sans: 1767 + 569 units.
        assert!((text_width("Mi", 2048.0, false) - 2336.0).abs() < 1e-9);
        assert!(text_width("abc", 11.0, true) > text_width("abc", 11.0, false));
        assert_eq!(text_width("→", 2048.0, false), 2048.0);
    }

    #[test]
    fn ticks_are_round_and_reach_the_maximum() {
        assert_eq!(ticks(9.0, 5), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(22_321.0, 4), vec![0.0, 10_000.0, 20_000.0, 30_000.0]);
        assert_eq!(ticks(100.0, 4), vec![0.0, 25.0, 50.0, 75.0, 100.0]);
        assert_eq!(ticks(0.0, 4), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        assert_eq!(whole_ticks(12.5, 5), vec![0.0, 5.0, 10.0, 15.0]);
        assert_eq!(whole_ticks(3.0, 5), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(short(2_500.0), "2.5k");
        assert_eq!(short(20_000.0), "20k");
        assert_eq!(short(750.0), "750");
        assert_eq!(whole(12_345.4), "12,345");
    }

    #[test]
    fn a_label_too_long_shrinks_then_ends_in_an_ellipsis() {
        let label = Label::new(0.0, 0.0, "content-entries-list-and-a-very-long-name").fit(100.0);
        assert!(label.width() <= 100.0, "{label:?}");
        assert!(label.text.ends_with('…'), "{label:?}");
        assert_eq!(label.size, 8.0);
        let short = Label::new(0.0, 0.0, "ok").fit(100.0);
        assert_eq!((short.text.as_str(), short.size), ("ok", FONT_SIZE));
    }

    #[test]
    fn problems_name_a_clipped_label_and_an_overlap() {
        let mut svg = Svg::new(200.0, 40.0);
        svg.text(Label::new(4.0, 20.0, "fits"));
        assert!(problems(&svg.finish("t")).is_empty());

        let mut svg = Svg::new(200.0, 40.0);
        svg.text(Label::new(190.0, 20.0, "a long label that runs off"));
        svg.text(Label::new(60.0, 20.0, "right-aligned & long").anchor(Anchor::End));
        let found = problems(&svg.finish("t"));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].contains("a long label that runs off"), "{found:?}");
        assert!(found[1].contains("right-aligned & long"), "{found:?}");

        let mut svg = Svg::new(200.0, 40.0);
        svg.text(Label::new(10.0, 20.0, "one"));
        svg.text(Label::new(20.0, 22.0, "two"));
        let found = problems(&svg.finish("t"));
        assert_eq!(found, vec![r#""one" overlaps "two""#.to_owned()]);
    }
}
