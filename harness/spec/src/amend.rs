//! The surfaces amended by an erratum ([`crate::errata`]): where each of its places points
//! (an operation, a body or response and a JSON path in it, or a query parameter), what the
//! surface declares there, the refusal of an erratum that no longer matches, and the correction.

use crate::errata::{Erratum, Evidence, Part, Place, parse_shape};
use crate::shape::Shape;
use crate::surface::{Operation, Surface};

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Item,
}

/// `$.a[].b` as steps; `None` when it is not such a path.
fn steps(at: &str) -> Option<Vec<Step>> {
    let mut rest = at.strip_prefix('$')?;
    let mut out = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("[]") {
            out.push(Step::Item);
            rest = after;
        } else if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            out.push(Step::Key(after[..end].to_owned()));
            rest = &after[end..];
        } else {
            return None;
        }
    }
    Some(out)
}

fn operation<'a>(surfaces: &'a mut [Surface], place: &Place) -> Option<&'a mut Operation> {
    let (method, path) = place.operation.split_once(' ')?;
    surfaces
        .iter_mut()
        .find(|s| s.api == place.api)?
        .operations
        .iter_mut()
        .find(|o| o.method == method && o.path == path)
}

/// The shape of the part a place is in.
fn part<'a>(op: &'a mut Operation, place: &Place) -> Option<&'a mut Shape> {
    match place.part {
        Part::Body => op.body.as_mut(),
        Part::Response(status) => op.responses.get_mut(status)?.as_mut(),
        Part::Unlocated => op.unlocated.get_mut(place.at),
        // A query parameter is a whole; `declared_at` and `put` read and write it by name.
        Part::Query => None,
    }
}

/// The shape at `steps` in `shape`, or where it would go: the object holding the last key.
fn descend<'a>(shape: &'a mut Shape, steps: &[Step]) -> Option<&'a mut Shape> {
    let Some((first, rest)) = steps.split_first() else {
        return Some(shape);
    };
    match (first, shape) {
        (Step::Key(key), Shape::Object(keys)) => descend(keys.get_mut(key)?, rest),
        (Step::Item, Shape::Array(item)) => descend(item, rest),
        _ => None,
    }
}

/// What the surface declares at `place` (`Ok(None)`: an object without that key); an error
/// when the place does not exist.
fn declared_at(surfaces: &mut [Surface], place: &Place) -> Result<Option<Shape>, String> {
    let missing = || format!("{place}: no such place in the surface");
    let op = operation(surfaces, place).ok_or_else(missing)?;
    if place.part == Part::Query {
        return Ok(op.query.get(place.at).cloned());
    }
    let whole = part(op, place).ok_or_else(missing)?;
    if place.part == Part::Unlocated {
        return Ok(Some(whole.clone()));
    }
    let steps = steps(place.at).ok_or_else(|| format!("{place}: not a JSON path"))?;
    if let Some(found) = descend(whole, &steps) {
        return Ok(Some(found.clone()));
    }
    match steps.split_last() {
        Some((Step::Key(_), parent)) => match descend(whole, parent) {
            Some(Shape::Object(_)) => Ok(None),
            _ => Err(missing()),
        },
        _ => Err(missing()),
    }
}

/// Puts `shape` at `place` (which [`declared_at`] found).
fn put(surfaces: &mut [Surface], place: &Place, shape: Shape) -> Result<(), String> {
    let missing = || format!("{place}: no such place in the surface");
    let op = operation(surfaces, place).ok_or_else(missing)?;
    if place.part == Part::Query {
        op.query.insert(place.at.to_owned(), shape);
        return Ok(());
    }
    let whole = part(op, place).ok_or_else(missing)?;
    let steps = steps(place.at).ok_or_else(missing)?;
    match steps.split_last() {
        None => *whole = shape,
        Some((last, parent)) => match (last, descend(whole, parent).ok_or_else(missing)?) {
            (Step::Key(key), Shape::Object(keys)) => {
                keys.insert(key.clone(), shape);
            }
            (Step::Item, Shape::Array(item)) => **item = shape,
            _ => return Err(missing()),
        },
    }
    Ok(())
}

fn describe(shape: Option<&Shape>) -> String {
    shape.map_or_else(
        || "nothing (no such key)".to_owned(),
        |s| serde_json::to_string(s).unwrap_or_default(),
    )
}

/// Why `erratum` cannot be applied to `surfaces` (stale, or not a valid erratum), if it
/// cannot.
pub fn refusal(surfaces: &[Surface], erratum: &Erratum) -> Option<String> {
    let mut scratch = surfaces.to_vec();
    let mut why = Vec::new();
    if erratum.evidence.is_empty() {
        why.push("it gives no evidence".to_owned());
    }
    if erratum.places.is_empty() {
        why.push("it names no place".to_owned());
    }
    if let Err(e) = erratum.corrected_shape() {
        why.push(format!("its correction is no shape: {e}"));
    }
    let declared = match erratum.declared.map(parse_shape).transpose() {
        Ok(declared) => declared,
        Err(e) => {
            why.push(format!("its declared shape is no shape: {e}"));
            None
        }
    };
    for place in erratum.places {
        if place.part == Part::Unlocated {
            why.push(format!(
                "{place}: only evidence can be an unlocated parameter"
            ));
            continue;
        }
        match declared_at(&mut scratch, place) {
            Err(e) => why.push(e),
            Ok(found) if found != declared => why.push(format!(
                "{place}: the surface declares {}, the erratum expects {}",
                describe(found.as_ref()),
                describe(declared.as_ref())
            )),
            Ok(_) => {}
        }
    }
    for evidence in erratum.evidence {
        match evidence {
            Evidence::Spec { place, shape } => {
                let expected = parse_shape(shape).ok();
                match declared_at(&mut scratch, place) {
                    Err(e) => why.push(format!("evidence {e}")),
                    Ok(found) if found != expected => why.push(format!(
                        "evidence {place}: the surface declares {}, the erratum cites {shape}",
                        describe(found.as_ref())
                    )),
                    Ok(_) => {}
                }
            }
            Evidence::Source { source, shows } => {
                match modyo_replay::cassette::Evidence::parse(source) {
                    Ok(parsed) if parsed.is_none() => {
                        why.push("evidence `none` is no evidence".to_owned());
                    }
                    Ok(_) if shows.trim().is_empty() => {
                        why.push(format!("evidence {source}: say what it shows"));
                    }
                    Ok(_) => {}
                    Err(e) => why.push(format!("evidence {e}")),
                }
            }
        }
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// Applies `erratum` to `surfaces`, or says why it cannot (nothing is changed then).
pub fn apply(surfaces: &mut [Surface], erratum: &Erratum) -> Result<(), String> {
    if let Some(why) = refusal(surfaces, erratum) {
        return Err(why);
    }
    let corrected = erratum.corrected_shape()?;
    for place in erratum.places {
        put(surfaces, place, corrected.clone())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_paths_parse_into_steps() {
        assert_eq!(steps("$"), Some(vec![]));
        assert_eq!(
            steps("$.field_values[].value"),
            Some(vec![
                Step::Key("field_values".into()),
                Step::Item,
                Step::Key("value".into())
            ])
        );
        assert_eq!(steps("$[]"), Some(vec![Step::Item]));
        assert_eq!(steps("status"), None);
        assert_eq!(steps("$..a"), None);
    }
}
