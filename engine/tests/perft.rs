//! Perft counts from `fixtures/heraldis.perft`, checked against the engine's
//! fast count, its move-by-move count, and a naive array-based
//! implementation. The deep counts are checked move by move with the
//! sequences that reach the same position merged, level by level.

mod support;

use std::collections::HashMap;

use grandmaitre_engine::game::perft_by_moves;
use grandmaitre_engine::heraldis::{Heraldis, Layout};
use grandmaitre_engine::{Game, Notation, Player};
use rayon::prelude::*;
use support::naive::NaiveGame;

/// Largest count the naive implementation checks on every test run.
const NAIVE_BUDGET: u64 = 300_000;
/// Largest count the move-by-move reference checks on every test run.
const BY_MOVES_BUDGET: u64 = 100_000_000;

#[derive(Debug)]
struct Fixture {
    line: usize,
    layout: String,
    position: String,
    /// `rules` or `derived`, as the fixture file explains.
    source: String,
    depth: u32,
    count: u64,
}

fn fixtures() -> Vec<Fixture> {
    let text = include_str!("fixtures/heraldis.perft");
    let mut layout = None;
    let mut position = None;
    let mut source = None;
    let mut result = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("layout:") {
            layout = Some(rest.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("position:") {
            position = Some(rest.trim().to_string());
            source = None;
        } else if let Some(rest) = line.strip_prefix("source:") {
            let rest = rest.trim();
            assert!(
                ["rules", "derived"].contains(&rest),
                "line {}: unknown source '{rest}'",
                index + 1
            );
            source = Some(rest.to_string());
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let (depth, count) = rest.split_once(' ').expect("perft D N");
            result.push(Fixture {
                line: index + 1,
                layout: layout.clone().expect("a layout before perft"),
                position: position.clone().expect("a position before perft"),
                source: source.clone().expect("a source after each position"),
                depth: depth.parse().expect("depth"),
                count: count.parse().expect("count"),
            });
        } else {
            panic!("line {}: unknown fixture line '{line}'", index + 1);
        }
    }
    result
}

fn engine(fixture: &Fixture) -> (Heraldis, <Heraldis as Game>::State) {
    let layout: Layout = fixture.layout.parse().expect("fixture layout");
    let game = Heraldis::new(layout);
    let state = game
        .parse_state(&fixture.position)
        .expect("fixture position");
    (game, state)
}

/// Runs `count_of` on every fixture whose count is at most `budget`; fails
/// with the list of lines that disagree.
fn check_fixtures(budget: u64, count_of: impl Fn(&Fixture) -> u64) -> usize {
    let mut checked = 0;
    let mut failures = Vec::new();
    for fixture in fixtures().iter().filter(|f| f.count <= budget) {
        let found = count_of(fixture);
        checked += 1;
        if found != fixture.count {
            failures.push(format!(
                "line {}: perft {} of '{}' is {found}, fixture ({}) says {}",
                fixture.line, fixture.depth, fixture.position, fixture.source, fixture.count
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

/// [`perft_by_moves`] level by level through the distinct positions: for
/// each position `depth - 2` plies down, the number of move sequences that
/// reach it, times the number of its two-ply sequences (counted in
/// parallel). Every move is listed by the engine's `legal_actions` and made
/// with `apply_unchecked`, as in `perft_by_moves`.
///
/// Exact because a state determines the moves below it; the many placement
/// orders that reach the same position make the deep counts affordable.
fn perft_by_moves_and_positions<G: Game>(game: &G, root: &G::State, depth: u32) -> u64 {
    if depth <= 2 {
        return perft_by_moves(game, root, depth);
    }
    let mut level = HashMap::from([(root.clone(), 1u64)]);
    let mut actions = Vec::new();
    for _ in 2..depth {
        let mut next_level = HashMap::new();
        for (state, &sequences) in &level {
            game.legal_actions(state, &mut actions);
            for &action in &actions {
                let mut next = state.clone();
                game.apply_unchecked(&mut next, action);
                *next_level.entry(next).or_insert(0) += sequences;
            }
        }
        level = next_level;
    }
    level
        .into_par_iter()
        .map_init(
            || (Vec::new(), Vec::new()),
            |(actions, replies), (state, sequences)| {
                game.legal_actions(&state, actions);
                let mut two_plies = 0;
                for &action in actions.iter() {
                    let mut next = state.clone();
                    game.apply_unchecked(&mut next, action);
                    game.legal_actions(&next, replies);
                    two_plies += replies.len() as u64;
                }
                sequences * two_plies
            },
        )
        .sum()
}

#[test]
fn the_engine_matches_every_fixture() {
    let checked = check_fixtures(u64::MAX, |fixture| {
        let (game, state) = engine(fixture);
        game.perft(&state, fixture.depth)
    });
    assert_eq!(checked, fixtures().len());
}

#[test]
fn counting_every_move_matches_the_fast_count() {
    let checked = check_fixtures(BY_MOVES_BUDGET, |fixture| {
        let (game, state) = engine(fixture);
        perft_by_moves(&game, &state, fixture.depth)
    });
    assert!(checked >= 70, "only {checked} fixtures checked");
}

#[test]
fn counting_every_move_position_by_position_matches_every_fixture() {
    let checked = check_fixtures(u64::MAX, |fixture| {
        let (game, state) = engine(fixture);
        perft_by_moves_and_positions(&game, &state, fixture.depth)
    });
    assert_eq!(checked, fixtures().len());
}

#[test]
#[ignore = "20 minutes: run with --ignored to count the deep fixtures move by move without merging positions"]
fn counting_every_move_matches_every_fixture() {
    check_fixtures(u64::MAX, |fixture| {
        let (game, state) = engine(fixture);
        perft_by_moves(&game, &state, fixture.depth)
    });
}

#[test]
fn the_naive_implementation_matches_the_small_fixtures() {
    let checked = check_fixtures(NAIVE_BUDGET, |fixture| {
        let naive = NaiveGame::new(&fixture.layout);
        naive.perft(&naive.parse(&fixture.position), fixture.depth)
    });
    assert!(checked >= 60, "only {checked} fixtures checked");
}

#[test]
fn the_naive_implementation_counting_by_positions_matches_every_fixture() {
    let checked = check_fixtures(u64::MAX, |fixture| {
        let naive = NaiveGame::new(&fixture.layout);
        naive.perft_by_positions(&naive.parse(&fixture.position), fixture.depth)
    });
    assert_eq!(checked, fixtures().len());
}

#[test]
fn divide_agrees_with_the_naive_implementation_at_every_fixture_position() {
    for fixture in fixtures().iter().filter(|f| f.depth == 3) {
        let (game, state) = engine(fixture);
        let naive = NaiveGame::new(&fixture.layout);
        let naive_state = naive.parse(&fixture.position);
        let mut ours: Vec<(String, u64)> = Vec::new();
        let mut actions = Vec::new();
        game.legal_actions(&state, &mut actions);
        for &action in &actions {
            let next = game.play(&state, action).expect("legal");
            ours.push((game.format_action(&state, action), game.perft(&next, 2)));
        }
        let mut theirs: Vec<(String, u64)> = naive
            .moves(&naive_state)
            .into_iter()
            .map(|m| {
                let next = naive.play(&naive_state, m);
                (naive.move_name(&naive_state, m), naive.perft(&next, 2))
            })
            .collect();
        ours.sort();
        theirs.sort();
        assert_eq!(ours, theirs, "line {}", fixture.line);
    }
}

#[test]
fn the_rules_positions_arise_from_their_moves() {
    let game = Heraldis::default();
    let cases = [
        (
            "d5 e3 b1 b5 c5 d4 a5 xb1 a3 d1 b2 c3 c2 xd5",
            "LDLD1/3D1/L1D1D/1LL2/1D1D1 l d5 14",
        ),
        (
            "d2 a5 e3 b3 b2 e1 xb3 b5 d5 a3 d1 d4 c2 xd2",
            "DD1L1/3D1/DL2L/1LLD1/3LD l d2 14",
        ),
    ];
    for (moves, expected) in cases {
        let mut state = game.initial_state();
        for text in moves.split(' ') {
            let action = game.parse_action(&state, text).expect(text);
            state = game.play(&state, action).expect(text);
        }
        assert_eq!(game.format_state(&state), expected);
    }
    // In the first, Light (8 in reserve) has 13 placements and the one
    // capture xc3; d5 is under Truce.
    let state = game
        .parse_state("LDLD1/3D1/L1D1D/1LL2/1D1D1 l d5 14")
        .expect("position");
    assert_eq!(state.reserve(Player::First), 8);
    let mut actions = Vec::new();
    game.legal_actions(&state, &mut actions);
    let captures: Vec<String> = actions
        .iter()
        .map(|&a| game.format_action(&state, a))
        .filter(|m| m.starts_with('x'))
        .collect();
    assert_eq!(captures, ["xc3"]);
    assert_eq!(actions.len(), 14);
}
