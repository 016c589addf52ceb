//! `--games-in` files under damage: never a panic, a bad file gets a
//! one-line error, and games that read fit a calibration that a
//! checkpoint accepts.

use proptest::prelude::*;
use proptest::sample::select;

use super::*;
use crate::bar::BAR_SIMULATIONS;
use crate::calibration::measure::{
    Fitted, bar_predictions, bootstrap, calibration, network_predictions,
};

/// The header and the first 100 games of a shipped file (enough games
/// of one result for its curves to be fitted).
fn shipped() -> String {
    let text = include_str!("../../../checkpoints/heraldis/calibration-games/fit-1101.jsonl");
    text.lines().take(101).collect::<Vec<_>>().join("\n")
}

/// Characters that start a new line on a terminal or in a log.
const LINE_BREAKS: [char; 7] = [
    '\n', '\r', '\u{0b}', '\u{0c}', '\u{85}', '\u{2028}', '\u{2029}',
];

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "-1",
    "0.5",
    "-0.0",
    "1.0000001",
    "-0.1",
    "1e-40",
    "1e39",
    "-1e39",
    "1e999",
    "64",
    "65",
    "4294967296",
    "18446744073709551616",
    "1.5e308",
    "\"0.5\"",
    "null",
    "[]",
    "{}",
    "true",
];

const STRINGS: &[&str] = &[
    "",
    "heraldis",
    "havannah",
    "grandmaitre calibration games 1",
    "grandmaitre calibration games 2",
    "a\\nb",
    "\\u2028",
    "\\r",
];

/// One edit of a records file; positions are taken modulo the sizes.
#[derive(Clone, Debug)]
enum Edit {
    /// The `number`-th number of line `line` becomes `text`.
    Number(usize, usize, &'static str),
    /// The `string`-th string of line `line` gets the content `text`.
    String(usize, usize, &'static str),
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    InsertChar(usize, char),
    DeleteChar(usize),
    Truncate(usize),
}

fn an_edit() -> impl Strategy<Value = Edit> {
    let index = any::<usize>();
    let a_char = prop_oneof![
        select(
            &[
                '[', ']', '{', '}', ',', ':', '"', '0', '1', '.', '-', 'e', '\n', ' '
            ][..]
        ),
        any::<char>(),
    ];
    prop_oneof![
        6 => (index, index, select(NUMBERS)).prop_map(|(l, k, t)| Edit::Number(l, k, t)),
        2 => (index, index, select(STRINGS)).prop_map(|(l, k, t)| Edit::String(l, k, t)),
        1 => index.prop_map(Edit::DeleteLine),
        1 => index.prop_map(Edit::DuplicateLine),
        1 => (index, index).prop_map(|(i, j)| Edit::SwapLines(i, j)),
        1 => (index, a_char).prop_map(|(i, c)| Edit::InsertChar(i, c)),
        1 => index.prop_map(Edit::DeleteChar),
        1 => index.prop_map(Edit::Truncate),
    ]
}

/// Byte ranges in `line` of its numbers (`number`) or of its strings'
/// contents.
fn spans(line: &str, number: bool) -> Vec<(usize, usize)> {
    let bytes = line.as_bytes();
    let mut spans = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'"' {
            let start = at + 1;
            at = start;
            while at < bytes.len() && bytes[at] != b'"' {
                at += if bytes[at] == b'\\' { 2 } else { 1 };
            }
            if !number {
                spans.push((start, at.min(bytes.len())));
            }
            at += 1;
        } else if bytes[at] == b'-' || bytes[at].is_ascii_digit() {
            let start = at;
            while at < bytes.len() && b"-+.eE0123456789".contains(&bytes[at]) {
                at += 1;
            }
            if number {
                spans.push((start, at));
            }
        } else {
            at += 1;
        }
    }
    spans
}

fn damaged(text: &str, edits: &[Edit]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for edit in edits {
        let count = lines.len();
        if count == 0 {
            break;
        }
        match edit {
            Edit::Number(l, k, new) | Edit::String(l, k, new) => {
                let line = &mut lines[l % count];
                let spans = spans(line, matches!(edit, Edit::Number(..)));
                if let Some(&(start, end)) = spans.get(k % spans.len().max(1)) {
                    line.replace_range(start..end, new);
                }
            }
            Edit::DeleteLine(i) => {
                lines.remove(i % count);
            }
            Edit::DuplicateLine(i) => lines.insert(i % count, lines[i % count].clone()),
            Edit::SwapLines(i, j) => lines.swap(i % count, j % count),
            Edit::InsertChar(..) | Edit::DeleteChar(_) | Edit::Truncate(_) => {
                let mut chars: Vec<char> = lines.join("\n").chars().collect();
                let n = chars.len();
                match edit {
                    Edit::InsertChar(i, c) => chars.insert(i % (n + 1), *c),
                    Edit::DeleteChar(i) if n > 0 => {
                        chars.remove(i % n);
                    }
                    Edit::Truncate(i) if n > 0 => chars.truncate(i % n),
                    _ => {}
                }
                let text: String = chars.into_iter().collect();
                lines = text.lines().map(str::to_string).collect();
            }
        }
    }
    lines.join("\n")
}

/// Fails unless `text` reads as consistent games or gets a one-line
/// error; returns the games.
fn check(text: &str) -> Result<Option<Vec<Played>>, TestCaseError> {
    match parse_records(text, Path::new("games.jsonl"), "heraldis", BAR_SIMULATIONS) {
        Ok((header, games)) => {
            prop_assert_eq!(header.game.as_str(), "heraldis");
            prop_assert!(games.len() >= 4);
            Ok(Some(games))
        }
        Err(error) => {
            let message = error;
            prop_assert!(message.len() > "games.jsonl: ".len(), "{message:?}");
            prop_assert!(!message.contains(LINE_BREAKS), "not one line: {message:?}");
            Ok(None)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn damaged_records_read_or_get_one_line_errors(
        edits in prop::collection::vec(an_edit(), 1..5),
    ) {
        check(&damaged(&shipped(), &edits))?;
    }

    #[test]
    fn any_text_reads_or_gets_a_one_line_error(text in any::<String>()) {
        check(&text)?;
    }
}

proptest! {
    // A fit takes a while: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(60))]

    #[test]
    fn damaged_records_that_read_fit_a_valid_calibration(
        edits in prop::collection::vec(an_edit(), 1..4),
    ) {
        let Some(games) = check(&damaged(&shipped(), &edits))? else {
            return Ok(());
        };
        let (fit, test) = games.split_at(games.len() / 2);
        let (fit, test): (Vec<&Played>, Vec<&Played>) =
            (fit.iter().collect(), test.iter().collect());
        let bar = Fitted::on(&fit, bar_predictions);
        let network = Fitted::on(&fit, network_predictions);
        bar.measure(&test, bar_predictions);
        bootstrap(&bar, &test, 1);
        let stored = calibration(
            &bar,
            &network,
            BAR_SIMULATIONS,
            [fit.len(), test.len()],
            [0.0, 0.0],
            None,
        );
        prop_assert_eq!(stored.check(), Ok(()));
    }
}

/// The games of [`shipped`].
fn shipped_games() -> Vec<Played> {
    let (_, games) = parse_records(
        &shipped(),
        Path::new("seed-1.jsonl"),
        "heraldis",
        BAR_SIMULATIONS,
    )
    .expect("records");
    games
}

#[test]
fn the_shipped_records_read() {
    assert_eq!(shipped_games().len(), 100);
}

/// `[p,` where p is the first game's first probability, as written.
fn first_value() -> String {
    let text = shipped();
    let line = text.lines().nth(1).expect("a game");
    let rest = line
        .strip_prefix("{\"predictions\":[[")
        .expect("predictions first");
    format!("[{},", rest.split(',').next().expect("a number"))
}

#[test]
fn a_probability_beyond_one_is_refused() {
    // 1e39 is beyond f32: it was once read as an infinite probability,
    // accepted, and fitted as if it were a probability of almost nothing.
    let text = shipped().replacen(&first_value(), "[1e39,", 1);
    let error = parse_records(&text, Path::new("games.jsonl"), "heraldis", BAR_SIMULATIONS)
        .expect_err("out of range");
    assert_eq!(
        error,
        "games.jsonl:2: bad game record: number out of range at line 1 column 21"
    );
    // 2 fits in an f32 but is no probability.
    let text = shipped().replacen(&first_value(), "[2.0,", 1);
    let error = parse_records(&text, Path::new("games.jsonl"), "heraldis", BAR_SIMULATIONS)
        .expect_err("beyond one");
    assert_eq!(error, "games.jsonl:2: inconsistent game record");
}

#[test]
fn repeated_games_are_dropped_before_the_split_and_a_held_out_copy_of_a_fitting_game_too() {
    let games = shipped_games();
    let (a, b, c) = (games[0].clone(), games[1].clone(), games[2].clone());
    // The fitting games: a, b, a again; held out: b (a fitting game), c, c.
    let fit = vec![a.clone(), b.clone(), a.clone()];
    let held_out = vec![b.clone(), c.clone(), c.clone()];
    let (fit, held_out, dropped) = distinct_games(fit, held_out);
    assert_eq!(fit, vec![a.clone(), b]);
    assert_eq!(held_out, vec![c]);
    assert_eq!(dropped, 3);
    // Records without moves (written before moves were recorded) are told
    // apart by their values: one value apart is another game.
    let bare = |game: &Played| Played {
        opening: Vec::new(),
        moves: Vec::new(),
        ..game.clone()
    };
    let mut other = bare(&a);
    other.predictions[0][0] = f32::from_bits(other.predictions[0][0].to_bits() + 1);
    let (fit, _, dropped) = distinct_games(vec![bare(&a), other, bare(&a)], Vec::new());
    assert_eq!((fit.len(), dropped), (2, 1));
    // Games whose moves are recorded are told apart by their moves and
    // levels alone: the same moves are one game, whatever the values.
    assert!(!a.moves.is_empty(), "the records keep their moves");
    let mut same_moves = a.clone();
    same_moves.predictions[0][0] = 0.5;
    let mut one_move_more = a.clone();
    one_move_more.opening.push("pass".to_string());
    let mut other_levels = a.clone();
    other_levels.levels = other_levels.levels.map(|[x, y]| [y, x % 10 + 1]);
    let (fit, _, dropped) =
        distinct_games(vec![a, same_moves, one_move_more, other_levels], Vec::new());
    assert_eq!((fit.len(), dropped), (3, 1));
}

#[test]
fn the_shipped_level_10_self_play_file_repeats_games() {
    // What the held-out measure once counted twice: level-10 self-play
    // has no noise, so two games from one opening are one game.
    let files = ["../checkpoints/heraldis/calibration-games/held-2104.jsonl"];
    let (_, per_file) = pool_records(&files, "heraldis", BAR_SIMULATIONS).expect("records");
    let games: Vec<Played> = per_file.into_iter().flat_map(|(_, g)| g).collect();
    let total = games.len();
    let (distinct, _, dropped) = distinct_games(games, Vec::new());
    assert_eq!(distinct.len() + dropped, total);
    assert!(dropped > 0, "{total} games, none repeated");
}
