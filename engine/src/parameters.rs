//! The one reader of rules parameters written as `key=value` fields
//! separated by spaces (`base=8 swap=1`, `size=10 limit=50`), for every game
//! whose rules have them, with one format for its errors:
//! `invalid game parameters '<text>': <reason>`, where the reason names the
//! field and what it accepts.

use std::fmt::Display;
use std::str::FromStr;

use crate::game::{OneLine, ParseError};

/// Reads `text` field by field: each `key=value` goes to `read(key,
/// value)`, which stores the value or says what is wrong with it. `fields`
/// lists the keys a game reads, each with what it accepts (`("base",
/// "<n>")`), for the error of a field that is not one of them. Any field
/// may be left out: what is not read keeps its default.
pub fn read_fields(
    text: &str,
    fields: &[(&str, &str)],
    mut read: impl FnMut(&str, &str) -> Result<(), String>,
) -> Result<(), ParseError> {
    let error = |reason: String| ParseError::new("game parameters", text, reason);
    for field in text.split_whitespace() {
        match field.split_once('=') {
            Some((key, value)) if fields.iter().any(|&(known, _)| known == key) => {
                read(key, value).map_err(error)?;
            }
            _ => {
                let expected: Vec<String> = fields
                    .iter()
                    .map(|(key, accepts)| format!("{key}={accepts}"))
                    .collect();
                return Err(error(format!(
                    "unknown field '{field}': expected {}",
                    expected.join(", ")
                )));
            }
        }
    }
    Ok(())
}

/// `value` as a whole number from `low` to `high`.
pub fn whole_number<T>(key: &str, value: &str, low: T, high: T) -> Result<T, String>
where
    T: FromStr + PartialOrd + Display + Copy,
{
    value
        .parse::<T>()
        .ok()
        .filter(|n| (low..=high).contains(n))
        .ok_or_else(|| {
            format!(
                "{key} must be a whole number from {low} to {high}, not '{}'",
                OneLine(value)
            )
        })
}

/// The choice `value` names among `choices` (a name and what it stands
/// for; several names may stand for the same).
pub fn choice<T: Copy>(key: &str, value: &str, choices: &[(&str, T)]) -> Result<T, String> {
    choices
        .iter()
        .find(|&&(name, _)| name == value)
        .map(|&(_, chosen)| chosen)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|&(name, _)| name).collect();
            let (last, rest) = names.split_last().expect("at least one choice");
            let names = if rest.is_empty() {
                (*last).to_string()
            } else {
                format!("{} or {last}", rest.join(", "))
            };
            format!("{key} must be {names}, not '{}'", OneLine(value))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: &[(&str, &str)] = &[("base", "<n>"), ("swap", "0|1")];

    fn read(text: &str) -> Result<(u32, bool), ParseError> {
        let (mut base, mut swap) = (8, true);
        read_fields(text, FIELDS, |key, value| {
            match key {
                "base" => base = whole_number(key, value, 2, 10)?,
                _ => swap = choice(key, value, &[("1", true), ("0", false)])?,
            }
            Ok(())
        })?;
        Ok((base, swap))
    }

    #[test]
    fn fields_in_any_order_any_left_out_and_the_errors_name_the_field() {
        assert_eq!(read(""), Ok((8, true)));
        assert_eq!(read("swap=0 base=5"), Ok((5, false)));
        let reason = |text: &str| read(text).expect_err(text).reason;
        assert_eq!(
            reason("base=11"),
            "base must be a whole number from 2 to 10, not '11'"
        );
        assert_eq!(reason("swap=yes"), "swap must be 1 or 0, not 'yes'");
        assert_eq!(
            reason("size=8"),
            "unknown field 'size=8': expected base=<n>, swap=0|1"
        );
        assert_eq!(
            reason("base"),
            "unknown field 'base': expected base=<n>, swap=0|1"
        );
        assert_eq!(
            read("base=x").expect_err("x").to_string(),
            "invalid game parameters 'base=x': base must be a whole number from 2 to 10, not 'x'"
        );
    }
}
