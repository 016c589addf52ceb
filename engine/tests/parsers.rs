//! Every parser of the engine under random and mangled text: positions,
//! moves, layouts and game parameters of both games.
//!
//! Inputs are arbitrary strings (any Unicode, or the notation's alphabet),
//! near-valid texts built field by field, and valid texts taken from random
//! games then mangled (characters and tokens deleted, inserted, replaced,
//! duplicated, swapped). Whatever the input: no panic; an error is one
//! non-empty line; a text that parses writes back to a text that parses to
//! the same value.

use std::sync::LazyLock;

use grandmaitre_engine::game::random_states;
use grandmaitre_engine::havannah::{DEFAULT_BASE, Havannah, MAX_BASE, MIN_BASE};
use grandmaitre_engine::heraldis::{Heraldis, Layout};
use grandmaitre_engine::{Game, Notation, ParseError};
use proptest::prelude::*;
use proptest::sample::select;
use rand::SeedableRng;
use rand::rngs::StdRng;

/// Cases per property: thousands, and the whole file in a few seconds.
const CASES: u32 = 3000;

/// Characters that start a new line on a terminal or in a log.
const LINE_BREAKS: [char; 7] = [
    '\n', '\r', '\u{0b}', '\u{0c}', '\u{85}', '\u{2028}', '\u{2029}',
];

/// Fails unless `error` reads as one non-empty line.
fn one_line(error: &ParseError) -> Result<(), TestCaseError> {
    let message = error.to_string();
    prop_assert!(!error.reason.is_empty(), "no reason: {message:?}");
    prop_assert!(!message.contains(LINE_BREAKS), "not one line: {message:?}");
    Ok(())
}

// ---------------------------------------------------------------------------
// Mangling valid texts

/// Characters of the notations (both games, layouts, parameters), the
/// separators, and a few look-alikes from further away.
const ALPHABET: &[char] = &[
    'L', 'D', 'A', 'O', 'C', 'S', 'W', 'B', 'l', 'd', 'w', 'b', 'x', 'a', 'c', 'e', 'f', 'h', 'k',
    'o', 'p', 's', 'z', '-', '0', '1', '2', '3', '4', '5', '6', '9', '/', ' ', ' ', '|', '=', ':',
    '.', '+', '\t', '\n', '\r', '\u{0}', '\u{1b}', '\u{85}', '\u{a0}', '\u{2028}', 'é', '５', '𝟙',
];

/// Tokens worth putting where another token was.
const TOKENS: &[&str] = &[
    "",
    "pass",
    "swap",
    "x",
    "xx",
    "-",
    "--",
    "0",
    "00",
    "-1",
    "+1",
    "1e3",
    "65535",
    "65536",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "l",
    "d",
    "w",
    "b",
    "a0",
    "a1",
    "e5",
    "f6",
    "i9",
    "s19",
    "z99",
    "xa1",
    "xe5",
    "base",
    "base=",
    "base=1",
    "base=11",
    "swap=",
    "swap=2",
    "random:",
    "random:-1",
    "default",
    "LL",
    "AA",
    "OC",
    "LAO",
    "5",
    "6",
    "4L",
    "LLLLLL",
    "W",
    "B",
    "WB",
    "W18446744073709551615",
    "|",
    "/",
    "//",
    "=",
];

/// One edit of a text; positions are taken modulo the text's length.
#[derive(Clone, Debug)]
enum Edit {
    DeleteChar(usize),
    InsertChar(usize, char),
    ReplaceChar(usize, char),
    DuplicateChar(usize),
    DeleteToken(usize),
    DuplicateToken(usize),
    SwapTokens(usize, usize),
    ReplaceToken(usize, String),
}

fn a_char() -> impl Strategy<Value = char> {
    prop_oneof![4 => select(ALPHABET), 1 => any::<char>()]
}

fn an_edit() -> impl Strategy<Value = Edit> {
    let index = any::<usize>();
    prop_oneof![
        index.prop_map(Edit::DeleteChar),
        (index, a_char()).prop_map(|(i, c)| Edit::InsertChar(i, c)),
        (index, a_char()).prop_map(|(i, c)| Edit::ReplaceChar(i, c)),
        index.prop_map(Edit::DuplicateChar),
        index.prop_map(Edit::DeleteToken),
        index.prop_map(Edit::DuplicateToken),
        (index, index).prop_map(|(i, j)| Edit::SwapTokens(i, j)),
        (index, select(TOKENS)).prop_map(|(i, t)| Edit::ReplaceToken(i, t.to_string())),
        (index, "[a-zA-Z0-9=:|/ -]{0,4}").prop_map(|(i, t)| Edit::ReplaceToken(i, t)),
    ]
}

/// A few edits (none: the valid text itself).
fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(an_edit(), 0..5)
}

/// `text` cut into tokens: runs of word characters, and each separator
/// (whitespace, `/`, `|`, `=`, `:`) alone.
fn tokens(text: &str) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_whitespace() || "/|=:".contains(c) {
            if !word.is_empty() {
                tokens.push(std::mem::take(&mut word));
            }
            tokens.push(c.to_string());
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    tokens
}

/// `text` after `edits`.
fn mangled(text: &str, edits: &[Edit]) -> String {
    let mut text = text.to_string();
    for edit in edits {
        let mut chars: Vec<char> = text.chars().collect();
        let mut words = tokens(&text);
        let (n, w) = (chars.len(), words.len());
        match edit {
            Edit::InsertChar(i, c) => chars.insert(i % (n + 1), *c),
            Edit::DeleteChar(i) if n > 0 => {
                chars.remove(i % n);
            }
            Edit::ReplaceChar(i, c) if n > 0 => chars[i % n] = *c,
            Edit::DuplicateChar(i) if n > 0 => chars.insert(i % n, chars[i % n]),
            Edit::DeleteToken(i) if w > 0 => {
                words.remove(i % w);
            }
            Edit::DuplicateToken(i) if w > 0 => words.insert(i % w, words[i % w].clone()),
            Edit::SwapTokens(i, j) if w > 0 => words.swap(i % w, j % w),
            Edit::ReplaceToken(i, t) if w > 0 => words[i % w] = t.clone(),
            _ => {}
        }
        text = match edit {
            Edit::InsertChar(..)
            | Edit::DeleteChar(_)
            | Edit::ReplaceChar(..)
            | Edit::DuplicateChar(_) => chars.into_iter().collect(),
            _ => words.concat(),
        };
    }
    text
}

// ---------------------------------------------------------------------------
// Heraldis

/// A Heraldis game drawn from `seed`: the default or a random layout, the
/// default or another ply limit.
fn heraldis(seed: u64) -> Heraldis {
    let mut rng = StdRng::seed_from_u64(seed);
    let layout = if seed.is_multiple_of(3) {
        Layout::default_layout()
    } else {
        Layout::random(&mut rng)
    };
    let ply_limit = if seed.is_multiple_of(5) {
        1 + (seed / 5 % 300) as u16
    } else {
        150
    };
    Heraldis::with_ply_limit(layout, ply_limit)
}

/// A position of `game` drawn from `seed` (most often an early one, where
/// moves remain), and its moves in notation (a made-up one when there are
/// none).
fn game_position<G: Notation>(game: &G, seed: u64) -> (G::State, Vec<String>) {
    let length = game.spec().max_game_length;
    let max_plies = if seed.is_multiple_of(4) {
        length
    } else {
        length / 4
    };
    let state = random_states(game, 1, max_plies, seed).remove(0);
    let mut actions = Vec::new();
    game.legal_actions(&state, &mut actions);
    let mut moves: Vec<String> = actions
        .iter()
        .map(|&a| game.format_action(&state, a))
        .collect();
    if moves.is_empty() {
        moves.push("a1".to_string());
    }
    (state, moves)
}

/// `text` read as a position of `game`: an error is one line, a position
/// writes back to itself.
fn check_position<G: Notation>(game: &G, text: &str) -> Result<(), TestCaseError> {
    match game.parse_state(text) {
        Ok(state) => {
            let written = game.format_state(&state);
            prop_assert_eq!(game.parse_state(&written), Ok(state), "{:?}", text);
        }
        Err(error) => one_line(&error)?,
    }
    Ok(())
}

/// `text` read as a move of `game` in `state`: an error is one line, a move
/// is legal and writes back to itself.
fn check_move<G: Notation>(game: &G, state: &G::State, text: &str) -> Result<(), TestCaseError> {
    match game.parse_action(state, text) {
        Ok(action) => {
            prop_assert!(
                game.is_legal(state, action),
                "{text:?} read as illegal {action:?}"
            );
            let written = game.format_action(state, action);
            prop_assert_eq!(game.parse_action(state, &written), Ok(action), "{:?}", text);
        }
        Err(error) => one_line(&error)?,
    }
    Ok(())
}

/// `text` read as game parameters: an error is one line, a game writes
/// back its parameters.
fn check_parameters<G: Game>(text: &str) -> Result<(), TestCaseError> {
    match G::with_rules(text) {
        Ok(game) => {
            let written = game.rules().to_string();
            let again = G::with_rules(&written).map(|g| g.rules().to_string());
            prop_assert_eq!(again, Ok(written), "{:?}", text);
        }
        Err(error) => one_line(&error)?,
    }
    Ok(())
}

/// `text` read as a layout, in notation and as a command-line spec.
fn check_layout(text: &str) -> Result<(), TestCaseError> {
    for parsed in [text.parse::<Layout>(), Layout::from_spec(text)] {
        match parsed {
            Ok(layout) => {
                let written = layout.to_string();
                prop_assert_eq!(written.parse::<Layout>(), Ok(layout.clone()));
                prop_assert_eq!(Layout::from_spec(&written), Ok(layout));
            }
            Err(error) => one_line(&error)?,
        }
    }
    Ok(())
}

/// A near-valid Heraldis position, built field by field: each cell empty
/// or a piece (from `cells`, one byte a cell), a side, a truce cell, a ply.
fn heraldis_fields() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(any::<u8>(), 25),
        select(&["l", "d"][..]),
        prop_oneof!["-", "[a-e][1-5]"],
        prop_oneof![0u32..40, 0u32..160, any::<u32>()],
    )
        .prop_map(|(cells, side, truce, ply)| {
            let ranks: Vec<String> = cells
                .chunks(5)
                .map(|rank| {
                    run_lengths(rank.iter().map(|&c| match c % 8 {
                        0 | 1 => Some('L'),
                        2 | 3 => Some('D'),
                        _ => None,
                    }))
                })
                .collect();
            format!("{} {side} {truce} {ply}", ranks.join("/"))
        })
}

/// A row of cells in notation: pieces as letters, runs of empty cells as
/// their length.
fn run_lengths(cells: impl Iterator<Item = Option<char>>) -> String {
    let mut row = String::new();
    let mut empty = 0;
    for cell in cells {
        match cell {
            Some(piece) => {
                if empty > 0 {
                    row.push_str(&empty.to_string());
                    empty = 0;
                }
                row.push(piece);
            }
            None => empty += 1,
        }
    }
    if empty > 0 {
        row.push_str(&empty.to_string());
    }
    row
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn heraldis_positions_from_any_text(text in any::<String>(), seed in any::<u64>()) {
        check_position(&heraldis(seed), &text)?;
    }

    #[test]
    fn heraldis_positions_from_the_notations_alphabet(
        text in "[LD0-9/ ldx\\-a-f]{0,40}",
        seed in any::<u64>(),
    ) {
        check_position(&heraldis(seed), &text)?;
    }

    #[test]
    fn heraldis_positions_built_field_by_field(text in heraldis_fields(), seed in any::<u64>()) {
        check_position(&heraldis(seed), &text)?;
        check_position(&Heraldis::default(), &text)?;
    }

    #[test]
    fn heraldis_positions_mangled(seed in any::<u64>(), other in any::<u64>(), edits in edits()) {
        let game = heraldis(seed);
        let (state, _) = game_position(&game, seed);
        let text = mangled(&game.format_state(&state), &edits);
        check_position(&game, &text)?;
        // The same text on other rules (another layout, ply limit).
        check_position(&heraldis(other), &text)?;
    }

    #[test]
    fn heraldis_moves_mangled(seed in any::<u64>(), pick in any::<usize>(), edits in edits()) {
        let game = heraldis(seed);
        let (state, moves) = game_position(&game, seed);
        let text = mangled(&moves[pick % moves.len()], &edits);
        check_move(&game, &state, &text)?;
    }

    #[test]
    fn heraldis_moves_from_any_text(text in any::<String>(), seed in any::<u64>()) {
        let game = heraldis(seed);
        let (state, _) = game_position(&game, seed);
        check_move(&game, &state, &text)?;
    }

    #[test]
    fn layouts_from_any_text(text in any::<String>()) {
        check_layout(&text)?;
    }

    #[test]
    fn layouts_mangled(seed in any::<u64>(), edits in edits()) {
        let layout = heraldis(seed).layout().to_string();
        let text = if seed % 7 == 0 {
            format!("random:{seed}")
        } else {
            layout
        };
        check_layout(&mangled(&text, &edits))?;
    }

    #[test]
    fn heraldis_parameters_mangled(seed in any::<u64>(), edits in edits()) {
        check_parameters::<Heraldis>(&mangled(&heraldis(seed).rules().to_string(), &edits))?;
    }

    #[test]
    fn heraldis_parameters_from_any_text(text in any::<String>()) {
        check_parameters::<Heraldis>(&text)?;
    }
}

// ---------------------------------------------------------------------------
// Havannah

/// Every board size, with and without the swap rule (built once: the
/// tables of a board take a moment).
static HAVANNAH: LazyLock<Vec<Havannah>> = LazyLock::new(|| {
    (MIN_BASE..=MAX_BASE)
        .flat_map(|base| [Havannah::new(base, true), Havannah::new(base, false)])
        .collect()
});

/// A Havannah game drawn from `seed` (base 8 with the swap rule half of
/// the time).
fn havannah(seed: u64) -> &'static Havannah {
    let games = &*HAVANNAH;
    let index = if seed.is_multiple_of(2) {
        2 * (DEFAULT_BASE - MIN_BASE)
    } else {
        (seed / 2 % games.len() as u64) as usize
    };
    &games[index]
}

/// A near-valid Havannah position of `game`: every cell empty or a stone
/// (from `cells`, one byte a cell), then a side.
fn havannah_text(game: &Havannah, cells: &[u8], side: &str) -> String {
    let board = game.board();
    let diameter = board.diameter();
    let mut next = cells.iter().cycle();
    let rows: Vec<String> = (0..diameter)
        .map(|y| {
            let row: Vec<Option<char>> = (0..diameter)
                .filter(|&x| board.bit_at(x, y).is_some())
                .map(|_| match next.next().copied().unwrap_or(0) % 16 {
                    0 => Some('W'),
                    1 => Some('B'),
                    _ => None,
                })
                .collect();
            run_lengths(row.into_iter())
        })
        .collect();
    format!("{} {side}", rows.join("/"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn havannah_positions_from_any_text(text in any::<String>(), seed in any::<u64>()) {
        check_position(havannah(seed), &text)?;
    }

    #[test]
    fn havannah_positions_from_the_notations_alphabet(
        text in "[WB0-9/ wbs]{0,60}",
        seed in any::<u64>(),
    ) {
        check_position(havannah(seed), &text)?;
    }

    #[test]
    fn havannah_positions_built_cell_by_cell(
        seed in any::<u64>(),
        cells in prop::collection::vec(any::<u8>(), 1..64),
        side in select(&["w", "b"][..]),
    ) {
        let game = havannah(seed);
        check_position(game, &havannah_text(game, &cells, side))?;
    }

    #[test]
    fn havannah_positions_mangled(seed in any::<u64>(), other in any::<u64>(), edits in edits()) {
        let game = havannah(seed);
        let (state, _) = game_position(game, seed);
        let text = mangled(&game.format_state(&state), &edits);
        check_position(game, &text)?;
        // The same text on other rules (another size, the swap rule).
        check_position(havannah(other), &text)?;
    }

    #[test]
    fn havannah_moves_mangled(seed in any::<u64>(), pick in any::<usize>(), edits in edits()) {
        let game = havannah(seed);
        let (state, mut moves) = game_position(game, seed);
        moves.push("swap".to_string());
        let text = mangled(&moves[pick % moves.len()], &edits);
        check_move(game, &state, &text)?;
    }

    #[test]
    fn havannah_moves_from_any_text(text in any::<String>(), seed in any::<u64>()) {
        let game = havannah(seed);
        let (state, _) = game_position(game, seed);
        check_move(game, &state, &text)?;
    }

    #[test]
    fn havannah_parameters_mangled(seed in any::<u64>(), edits in edits()) {
        check_parameters::<Havannah>(&mangled(&havannah(seed).rules().to_string(), &edits))?;
    }

    #[test]
    fn havannah_parameters_from_any_text(text in any::<String>()) {
        check_parameters::<Havannah>(&text)?;
    }
}

// ---------------------------------------------------------------------------
// Cases the properties found, kept as plain tests

#[test]
fn a_text_with_line_breaks_gets_a_one_line_error() {
    let game = Heraldis::default();
    for text in ["5/5/5/5/5 l - 0\nextra", "\r5/5/5/5/5\u{2028}l\u{85}-\n0 0"] {
        let error = game.parse_state(text).expect_err(text).to_string();
        assert!(!error.contains(LINE_BREAKS), "{error:?}");
    }
    let error = Havannah::with_rules("base=8\nswap=2")
        .expect_err("bad swap")
        .to_string();
    assert!(!error.contains(LINE_BREAKS), "{error:?}");
    let error = "A\nB"
        .parse::<Layout>()
        .expect_err("bad layout")
        .to_string();
    assert_eq!(
        error,
        "invalid layout 'A\\nB': expected 5 ranks separated by '/', found 1"
    );
}

#[test]
fn a_havannah_run_too_long_to_count_is_refused() {
    let game = Havannah::new(2, true);
    let text = "W18446744073709551615W/3/2 b";
    let error = game.parse_state(text).expect_err(text).to_string();
    assert!(error.contains("row 1 has more than 2 cells"), "{error}");
}
