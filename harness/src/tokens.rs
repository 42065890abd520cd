//! The three counters of M2: characters at 2.902 per token (primary), and real BPE counts with
//! tiktoken's `o200k_base` and `cl100k_base`.
//!
//! 2.902 characters per token is a field measurement with the model's own tokenizer on this
//! server's JSON (`chars/4` underestimates dense JSON); it is the figure the rollout compares
//! with the field. Characters are Unicode scalar values, not bytes. Each BPE encoder is built
//! once per process (building one parses a 200k-entry vocabulary).
//!
//! Counts of separate texts add up (two responses, or the text and the structured copy of one
//! response, are separate inputs). Characters also add up inside one text, which is why slot
//! breakdowns are in characters; BPE counts do not (a token can straddle two slots).

use std::ops::{Add, AddAssign};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use tiktoken_rs::CoreBPE;

/// Characters per token measured in the field: the primary counter.
pub const CHARS_PER_TOKEN: f64 = 2.902;

/// The name of the primary counter, as reports print it.
pub const PRIMARY: &str = "chars/2.902";

/// The names of the BPE counters, as reports print them.
pub const BPE: [&str; 2] = ["o200k_base", "cl100k_base"];

/// The counter a report's headline figures are read with. Every figure carries all three;
/// this picks the one tables and charts show first.
///
/// `chars/2.902` is calibrated on this server's JSON with one model's tokenizer, so it is the
/// headline of our own reports only; for any other server the default is `o200k_base`, a real
/// tokenizer that needs no calibration (on a small Python server, chars/2.902 once said -20.3%
/// per call where both BPE counters said +30%).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
pub enum Counter {
    /// Characters / 2.902.
    #[default]
    #[serde(rename = "chars/2.902")]
    #[value(name = "chars/2.902")]
    Chars,
    /// tiktoken's `o200k_base`.
    #[serde(rename = "o200k_base")]
    #[value(name = "o200k_base")]
    O200k,
    /// tiktoken's `cl100k_base`.
    #[serde(rename = "cl100k_base")]
    #[value(name = "cl100k_base")]
    Cl100k,
}

impl Counter {
    /// Every counter, the primary first.
    pub const ALL: [Counter; 3] = [Counter::Chars, Counter::O200k, Counter::Cl100k];

    /// Its name as reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Counter::Chars => PRIMARY,
            Counter::O200k => BPE[0],
            Counter::Cl100k => BPE[1],
        }
    }

    /// A size under this counter.
    pub fn tokens(self, t: &Tokens) -> f64 {
        match self {
            Counter::Chars => t.primary,
            Counter::O200k => t.o200k_base as f64,
            Counter::Cl100k => t.cl100k_base as f64,
        }
    }

    /// A mean under this counter.
    pub fn per(self, p: &PerUnit) -> f64 {
        match self {
            Counter::Chars => p.primary,
            Counter::O200k => p.o200k_base,
            Counter::Cl100k => p.cl100k_base,
        }
    }

    /// A difference under this counter.
    pub fn delta(self, d: &Delta) -> f64 {
        match self {
            Counter::Chars => d.primary,
            Counter::O200k => d.o200k_base as f64,
            Counter::Cl100k => d.cl100k_base as f64,
        }
    }

    /// A percent change under this counter.
    pub fn percent(self, p: &Percent) -> f64 {
        match self {
            Counter::Chars => p.primary,
            Counter::O200k => p.o200k_base,
            Counter::Cl100k => p.cl100k_base,
        }
    }

    /// A count under this counter, in tokens.
    pub fn count(self, c: &Count) -> f64 {
        match self {
            Counter::Chars => c.tokens(),
            Counter::O200k => c.o200k_base as f64,
            Counter::Cl100k => c.cl100k_base as f64,
        }
    }
}

fn o200k() -> &'static CoreBPE {
    static ENCODER: OnceLock<CoreBPE> = OnceLock::new();
    // The vocabulary ships inside the crate: building it cannot fail on a sound install.
    ENCODER.get_or_init(|| tiktoken_rs::o200k_base().expect("tiktoken-rs ships o200k_base"))
}

fn cl100k() -> &'static CoreBPE {
    static ENCODER: OnceLock<CoreBPE> = OnceLock::new();
    ENCODER.get_or_init(|| tiktoken_rs::cl100k_base().expect("tiktoken-rs ships cl100k_base"))
}

/// `o200k_base` tokens of one text (the encoder is built on first use).
pub fn o200k_base(text: &str) -> u64 {
    o200k().encode_ordinary(text).len() as u64
}

/// `cl100k_base` tokens of one text (the encoder is built on first use).
pub fn cl100k_base(text: &str) -> u64 {
    cl100k().encode_ordinary(text).len() as u64
}

/// The size of a text (or of several separate texts) under every counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Count {
    /// Unicode characters.
    pub chars: u64,
    /// `o200k_base` tokens.
    pub o200k_base: u64,
    /// `cl100k_base` tokens.
    pub cl100k_base: u64,
}

impl Count {
    /// Counts one text with every counter.
    pub fn of(text: &str) -> Count {
        if text.is_empty() {
            return Count::default();
        }
        Count {
            chars: text.chars().count() as u64,
            o200k_base: o200k_base(text),
            cl100k_base: cl100k_base(text),
        }
    }

    /// Tokens under the primary counter (characters / 2.902), unrounded.
    pub fn tokens(&self) -> f64 {
        self.chars as f64 / CHARS_PER_TOKEN
    }

    /// The three token figures, for reports: primary rounded to one decimal.
    pub fn tokens_all(&self) -> Tokens {
        Tokens {
            chars: self.chars,
            primary: round1(self.tokens()),
            o200k_base: self.o200k_base,
            cl100k_base: self.cl100k_base,
        }
    }

    /// `self` minus `other` per counter, never below zero.
    pub fn saturating_sub(self, other: Count) -> Count {
        Count {
            chars: self.chars.saturating_sub(other.chars),
            o200k_base: self.o200k_base.saturating_sub(other.o200k_base),
            cl100k_base: self.cl100k_base.saturating_sub(other.cl100k_base),
        }
    }

    /// `self` divided by `n` (a mean, or a cost per row), per counter.
    pub fn per(&self, n: u64) -> PerUnit {
        let n = n.max(1) as f64;
        PerUnit {
            chars: round1(self.chars as f64 / n),
            primary: round1(self.tokens() / n),
            o200k_base: round1(self.o200k_base as f64 / n),
            cl100k_base: round1(self.cl100k_base as f64 / n),
        }
    }
}

impl Add for Count {
    type Output = Count;
    fn add(self, other: Count) -> Count {
        Count {
            chars: self.chars + other.chars,
            o200k_base: self.o200k_base + other.o200k_base,
            cl100k_base: self.cl100k_base + other.cl100k_base,
        }
    }
}

impl AddAssign for Count {
    fn add_assign(&mut self, other: Count) {
        *self = *self + other;
    }
}

impl std::iter::Sum for Count {
    fn sum<I: Iterator<Item = Count>>(iter: I) -> Count {
        iter.fold(Count::default(), Add::add)
    }
}

/// A size as reports print it: every number names its counter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tokens {
    /// Unicode characters.
    pub chars: u64,
    /// Characters / 2.902 (the primary counter), one decimal.
    #[serde(rename = "chars/2.902")]
    pub primary: f64,
    /// `o200k_base` tokens.
    pub o200k_base: u64,
    /// `cl100k_base` tokens.
    pub cl100k_base: u64,
}

impl Tokens {
    /// The counts behind these figures.
    pub fn count(&self) -> Count {
        Count {
            chars: self.chars,
            o200k_base: self.o200k_base,
            cl100k_base: self.cl100k_base,
        }
    }
}

/// A size divided by a count (per row, per call), one decimal per counter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PerUnit {
    /// Unicode characters.
    pub chars: f64,
    /// Characters / 2.902 (the primary counter).
    #[serde(rename = "chars/2.902")]
    pub primary: f64,
    /// `o200k_base` tokens.
    pub o200k_base: f64,
    /// `cl100k_base` tokens.
    pub cl100k_base: f64,
}

/// After minus before, per counter, with the change in percent of before (absent when before
/// is zero).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Delta {
    /// Characters.
    pub chars: i64,
    /// Characters / 2.902 (the primary counter), one decimal.
    #[serde(rename = "chars/2.902")]
    pub primary: f64,
    /// `o200k_base` tokens.
    pub o200k_base: i64,
    /// `cl100k_base` tokens.
    pub cl100k_base: i64,
    /// Percent change under each counter (chars and chars/2.902 share one figure).
    pub percent: Option<Percent>,
}

/// A change in percent, per counter, one decimal.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Percent {
    /// Characters (and so characters / 2.902).
    #[serde(rename = "chars/2.902")]
    pub primary: f64,
    /// `o200k_base`.
    pub o200k_base: f64,
    /// `cl100k_base`.
    pub cl100k_base: f64,
}

impl Delta {
    /// `after - before`.
    pub fn between(before: Count, after: Count) -> Delta {
        let diff = |a: u64, b: u64| a as i64 - b as i64;
        let pct = |a: u64, b: u64| round1((a as f64 - b as f64) * 100.0 / b as f64);
        Delta {
            chars: diff(after.chars, before.chars),
            primary: round1(after.tokens() - before.tokens()),
            o200k_base: diff(after.o200k_base, before.o200k_base),
            cl100k_base: diff(after.cl100k_base, before.cl100k_base),
            percent: (before.chars > 0 && before.o200k_base > 0 && before.cl100k_base > 0).then(
                || Percent {
                    primary: pct(after.chars, before.chars),
                    o200k_base: pct(after.o200k_base, before.o200k_base),
                    cl100k_base: pct(after.cl100k_base, before.cl100k_base),
                },
            ),
        }
    }
}

/// Rounds to one decimal (reports print one; the JSON keeps the same figure).
pub fn round1(x: f64) -> f64 {
    let r = (x * 10.0).round() / 10.0;
    // -0.0 and 0.0 must print the same.
    if r == 0.0 { 0.0 } else { r }
}

/// `1234567.8` -> `1,234,567.8`: `decimals` places, thousands grouped, no sign for a value
/// that rounds to zero.
pub fn grouped(x: f64, decimals: usize) -> String {
    let text = format!("{:.*}", decimals, x.abs());
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if x < 0.0 && text.chars().any(|c| c != '0' && c != '.') {
        "-"
    } else {
        ""
    };
    if frac.is_empty() {
        format!("{sign}{grouped}")
    } else {
        format!("{sign}{grouped}.{frac}")
    }
}

/// Characters / 2.902 of a character count, one decimal.
pub fn chars_to_tokens(chars: i64) -> f64 {
    round1(chars as f64 / CHARS_PER_TOKEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_are_unicode_scalars_not_bytes() {
        let c = Count::of("año");
        assert_eq!(c.chars, 3);
        assert!(c.o200k_base >= 1 && c.cl100k_base >= 1);
    }

    #[test]
    fn bpe_counts_are_real_tokenizations() {
        // Known tokenizations: "hello world" is two tokens in both vocabularies.
        let c = Count::of("hello world");
        assert_eq!((c.o200k_base, c.cl100k_base), (2, 2));
        assert_eq!(Count::of(""), Count::default());
    }

    #[test]
    fn primary_counter_is_chars_over_2_902() {
        let c = Count {
            chars: 2902,
            o200k_base: 0,
            cl100k_base: 0,
        };
        assert_eq!(c.tokens_all().primary, 1000.0);
        assert_eq!(chars_to_tokens(-29), -10.0);
    }

    #[test]
    fn delta_has_percent_only_against_a_nonzero_base() {
        let a = Count {
            chars: 100,
            o200k_base: 40,
            cl100k_base: 50,
        };
        let b = Count {
            chars: 50,
            o200k_base: 10,
            cl100k_base: 25,
        };
        let d = Delta::between(a, b);
        assert_eq!(d.chars, -50);
        let p = d.percent.unwrap();
        assert_eq!(
            (p.primary, p.o200k_base, p.cl100k_base),
            (-50.0, -75.0, -50.0)
        );
        assert!(Delta::between(Count::default(), a).percent.is_none());
    }
}
