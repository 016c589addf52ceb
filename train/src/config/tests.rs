//! `from_toml` under random and mangled text: never a panic, a bad
//! text gets one non-empty line, a good one writes back to itself.

use proptest::prelude::*;
use proptest::sample::select;

use super::*;

/// A configuration as shipped with a checkpoint, every field set.
const SHIPPED: &str = include_str!("../../../checkpoints/heraldis/training-config.toml");

/// Characters that start a new line on a terminal or in a log.
const LINE_BREAKS: [char; 7] = [
    '\n', '\r', '\u{0b}', '\u{0c}', '\u{85}', '\u{2028}', '\u{2029}',
];

/// Fails unless `text` reads as a configuration that writes back to
/// itself, or gets a one-line error.
fn check(text: &str) -> Result<(), TestCaseError> {
    match TrainingConfig::from_toml(text) {
        Ok(config) => {
            prop_assert_eq!(config.validate(), Ok(()));
            let written = config.to_toml();
            prop_assert_eq!(
                TrainingConfig::from_toml(&written),
                Ok(config),
                "{}",
                written
            );
        }
        Err(error) => {
            prop_assert!(!error.trim().is_empty(), "empty error for {text:?}");
            prop_assert!(!error.contains(LINE_BREAKS), "not one line: {error:?}");
        }
    }
    Ok(())
}

/// The keys of every table, some of them misspelt.
const KEYS: &[&str] = &[
    "channels",
    "blocks",
    "games_per_generation",
    "games_per_shard",
    "games_in_flight",
    "full_simulations",
    "cheap_simulations",
    "full_search_fraction",
    "temperature_plies",
    "dirichlet_weight",
    "gumbel",
    "layouts",
    "batch_size",
    "steps_per_generation",
    "learning_rate",
    "learning_rate_decay",
    "weight_decay",
    "replay_positions",
    "every",
    "games",
    "simulations",
    "anchors",
    "network",
    "width",
    "\"quoted key\"",
    "'a\\nb'",
    "\"a\\nb\"",
];

const TABLES: &[&str] = &[
    "[network]",
    "[selfplay]",
    "[optimizer]",
    "[evaluation]",
    "[[network]]",
    "[network.channels]",
    "[other]",
    "[\"line\\nbreak\"]",
    "[]",
    "[network",
];

const VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "32",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "9223372036854775807",
    "99999999999999999999",
    "0.5",
    "-0.5",
    "1e308",
    "1e309",
    "-1e-320",
    "nan",
    "+nan",
    "-nan",
    "inf",
    "-inf",
    "true",
    "false",
    "\"default\"",
    "\"random\"",
    "\"mixed\"",
    "\"square\"",
    "\"\"",
    "\"a\\nb\"",
    "'''\nline\n'''",
    "[]",
    "[\"alphabeta:depth=4\"]",
    "[1, 2]",
    "{}",
    "{ channels = 1 }",
    "1979-05-27T07:32:00Z",
    "0x10",
    "1_000",
    "",
];

/// A TOML-like line: a table header, a key and a value, or noise.
fn a_line() -> impl Strategy<Value = String> {
    prop_oneof![
        select(TABLES).prop_map(str::to_string),
        (select(KEYS), select(VALUES)).prop_map(|(k, v)| format!("{k} = {v}")),
        "[a-z_\\[\\]=\"' .0-9#-]{0,24}",
    ]
}

/// One edit of a text (positions modulo its length).
#[derive(Clone, Debug)]
enum Edit {
    DeleteChar(usize),
    InsertChar(usize, char),
    ReplaceChar(usize, char),
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    ReplaceLine(usize, String),
}

fn an_edit() -> impl Strategy<Value = Edit> {
    let index = any::<usize>();
    let a_char = prop_oneof![
        4 => select(&['=', '[', ']', '"', '\'', '\n', ' ', '.', '-', '0', '9', 'e', '#', ','][..]),
        1 => any::<char>(),
    ];
    prop_oneof![
        index.prop_map(Edit::DeleteChar),
        (index, a_char.clone()).prop_map(|(i, c)| Edit::InsertChar(i, c)),
        (index, a_char).prop_map(|(i, c)| Edit::ReplaceChar(i, c)),
        index.prop_map(Edit::DeleteLine),
        index.prop_map(Edit::DuplicateLine),
        (index, index).prop_map(|(i, j)| Edit::SwapLines(i, j)),
        (index, a_line()).prop_map(|(i, l)| Edit::ReplaceLine(i, l)),
    ]
}

fn mangled(text: &str, edits: &[Edit]) -> String {
    let mut text = text.to_string();
    for edit in edits {
        let mut chars: Vec<char> = text.chars().collect();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let (n, l) = (chars.len(), lines.len());
        text = match edit {
            Edit::InsertChar(i, c) => {
                chars.insert(i % (n + 1), *c);
                chars.into_iter().collect()
            }
            Edit::DeleteChar(i) if n > 0 => {
                chars.remove(i % n);
                chars.into_iter().collect()
            }
            Edit::ReplaceChar(i, c) if n > 0 => {
                chars[i % n] = *c;
                chars.into_iter().collect()
            }
            Edit::DeleteLine(i) if l > 0 => {
                lines.remove(i % l);
                lines.join("\n")
            }
            Edit::DuplicateLine(i) if l > 0 => {
                lines.insert(i % l, lines[i % l].clone());
                lines.join("\n")
            }
            Edit::SwapLines(i, j) if l > 0 => {
                lines.swap(i % l, j % l);
                lines.join("\n")
            }
            Edit::ReplaceLine(i, line) if l > 0 => {
                lines[i % l] = line.clone();
                lines.join("\n")
            }
            _ => text,
        };
    }
    text
}

/// Every field, by table.
const FIELDS: &[(&str, &str)] = &[
    ("network", "channels"),
    ("network", "blocks"),
    ("selfplay", "games_per_generation"),
    ("selfplay", "games_per_shard"),
    ("selfplay", "games_in_flight"),
    ("selfplay", "full_simulations"),
    ("selfplay", "cheap_simulations"),
    ("selfplay", "full_search_fraction"),
    ("selfplay", "temperature_plies"),
    ("selfplay", "dirichlet_weight"),
    ("selfplay", "gumbel"),
    ("selfplay", "layouts"),
    ("optimizer", "batch_size"),
    ("optimizer", "steps_per_generation"),
    ("optimizer", "learning_rate"),
    ("optimizer", "learning_rate_decay"),
    ("optimizer", "weight_decay"),
    ("optimizer", "replay_positions"),
    ("evaluation", "every"),
    ("evaluation", "games"),
    ("evaluation", "simulations"),
    ("evaluation", "anchors"),
];

/// A value in TOML: an odd one, or any number.
fn a_value() -> impl Strategy<Value = String> {
    prop_oneof![
        select(VALUES).prop_map(str::to_string),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| format!("{x:?}")),
        any::<f32>().prop_map(|x| format!("{x:e}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn any_value_in_any_field(
        fields in prop::collection::vec((select(FIELDS), a_value()), 1..4),
    ) {
        let text: String = fields
            .iter()
            .map(|((table, key), value)| format!("[{table}]\n{key} = {value}\n"))
            .collect();
        check(&text)?;
    }

    #[test]
    fn any_text(text in any::<String>()) {
        check(&text)?;
    }

    #[test]
    fn toml_like_lines(lines in prop::collection::vec(a_line(), 0..12)) {
        check(&lines.join("\n"))?;
    }

    #[test]
    fn mangled_configurations(
        which in 0..3usize,
        edits in prop::collection::vec(an_edit(), 0..5),
    ) {
        let valid = match which {
            0 => SHIPPED.to_string(),
            1 => TrainingConfig::default().to_toml(),
            _ => "[network]\nchannels = 8\nblocks = 1\n".to_string(),
        };
        check(&mangled(&valid, &edits))?;
    }
}

#[test]
fn numbers_that_cannot_train_are_refused() {
    // NaN read, and then wrote back to a configuration unequal to itself.
    for (text, message) in [
        (
            "[selfplay]\ndirichlet_weight = nan",
            "selfplay.dirichlet_weight must be between 0 and 1",
        ),
        (
            "[optimizer]\nlearning_rate = inf",
            "optimizer.learning_rate must be positive",
        ),
        (
            "[optimizer]\nlearning_rate_decay = nan",
            "optimizer.learning_rate_decay must be positive",
        ),
        (
            "[optimizer]\nweight_decay = -1e-4",
            "optimizer.weight_decay must be zero or positive",
        ),
    ] {
        assert_eq!(TrainingConfig::from_toml(text), Err(message.to_string()));
    }
}
