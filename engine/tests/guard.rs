//! The guard (the solver before the search's move) on Heraldis positions
//! with a forced result within 9 plies, found by the solver under a ply
//! limit 9 plies away (a win proven under a shorter limit is a win under
//! the real one: the lines are the same until the limit). Each forced win
//! is checked first with the naive rules of the tests, which share no code
//! with the engine: the solver's proof replayed, every line a win within
//! the 9 plies.

mod support;

use std::collections::{HashMap, HashSet};

use support::naive::{DEFAULT_LAYOUT, NaiveGame, notation};

use grandmaitre_engine::agent::{Agent, MctsAgent};
use grandmaitre_engine::guard::{GUARD_NODES, Guard};
use grandmaitre_engine::heraldis::{Heraldis, Layout};
use grandmaitre_engine::search::{MoveChoice, SearchConfig, UniformEvaluator};
use grandmaitre_engine::solve::{Budget, Solution, Solver};
use grandmaitre_engine::{Action, Game, Notation, Outcome};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const HORIZON: u16 = 9;

const GENEROUS: Budget = Budget {
    nodes: 2_000_000,
    seconds: f64::INFINITY,
};

/// The value for the side to move of playing `action`, under `game`'s
/// rules, where a generous solve proves it.
fn value_of(game: &Heraldis, state: &<Heraldis as Game>::State, action: Action) -> Option<Outcome> {
    let child = game.play(state, action).expect("legal");
    let mover = game.current_player(state);
    match Solver::new(game.clone()).solve(&child, GENEROUS).solution {
        Solution::Solved(value) if game.current_player(&child) == mover => Some(value),
        Solution::Solved(value) => Some(value.flipped()),
        Solution::Unknown => None,
    }
}

/// `count` positions of random games whose value within 9 plies (under
/// the ply limit 9 plies on: a draw there means nothing is forced within
/// 9 plies) is `wanted`, with that value.
fn positions(
    count: usize,
    seed: u64,
    wanted: impl Fn(Outcome) -> bool,
) -> Vec<(<Heraldis as Game>::State, Outcome)> {
    let game = Heraldis::default();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut found = Vec::new();
    let mut actions = Vec::new();
    while found.len() < count {
        let mut state = game.initial_state();
        for _ in 0..rng.random_range(4..24) {
            game.legal_actions(&state, &mut actions);
            if actions.is_empty() {
                break;
            }
            game.apply_unchecked(&mut state, actions[rng.random_range(0..actions.len())]);
        }
        if game.outcome(&state).is_some() {
            continue;
        }
        let near =
            Heraldis::with_ply_limit(Layout::default_layout(), game.ply(&state) as u16 + HORIZON);
        if let Solution::Solved(value) = Solver::new(near).solve(&state, GENEROUS).solution
            && wanted(value)
        {
            found.push((state, value));
        }
    }
    found
}

/// Whether the solver's proof that the side to move wins `state` within
/// 9 plies holds under the naive rules: at the winner's positions the
/// proof's move is legal, at the other side's every legal move is
/// followed, and every line ends in the winner's win before the limit 9
/// plies on.
fn naive_rules_confirm(game: &Heraldis, state: &<Heraldis as Game>::State) -> bool {
    let near = Heraldis::with_ply_limit(Layout::default_layout(), game.ply(state) as u16 + HORIZON);
    let mover = game.current_player(state);
    let Some(proof) = Solver::new(near.clone()).proof(state, mover) else {
        return false;
    };
    let book: HashMap<String, String> = proof
        .iter()
        .map(|(at, action)| (near.format_state(at), near.format_action(at, *action)))
        .collect();
    let mut naive = NaiveGame::new(&DEFAULT_LAYOUT.replace(" / ", "/"));
    naive.ply_limit = game.ply(state) as u32 + u32::from(HORIZON);
    let start = naive.parse(&game.format_state(state));
    let winner = start.to_move;
    let mut seen = HashSet::new();
    let mut stack = vec![start];
    while let Some(at) = stack.pop() {
        let name = notation(&at);
        if !seen.insert(name.clone()) {
            continue;
        }
        if naive.is_over(&at) {
            if naive.winner(&at) != Some(winner) {
                return false;
            }
            continue;
        }
        let moves = naive.moves(&at);
        if at.to_move == winner {
            let Some(wanted) = book.get(&name) else {
                return false;
            };
            let Some(&action) = moves.iter().find(|&&m| naive.move_name(&at, m) == *wanted) else {
                return false;
            };
            stack.push(naive.play(&at, action));
        } else {
            stack.extend(moves.into_iter().map(|m| naive.play(&at, m)));
        }
    }
    true
}

/// A weak search's move (16 simulations, the uniform policy) and its
/// preference: what the guard is given to check.
fn weak_search(game: &Heraldis, state: &<Heraldis as Game>::State) -> (Action, Vec<Action>) {
    let config = SearchConfig {
        simulations: 16,
        ..SearchConfig::default()
    };
    let mut agent = MctsAgent::new(
        config,
        UniformEvaluator,
        MoveChoice::LowerConfidenceBound,
        7,
    );
    let action = agent.select(game, state);
    let preference = agent
        .last_result()
        .map(|r| r.children.iter().map(|c| c.action).collect())
        .unwrap_or_default();
    (action, preference)
}

#[test]
fn a_forced_win_within_nine_plies_is_never_let_go() {
    let game = Heraldis::default();
    let wins = positions(20, 11, |value| value == Outcome::Win);
    let mut actions = Vec::new();
    for (state, _) in &wins {
        let text = game.format_state(state);
        assert!(
            naive_rules_confirm(&game, state),
            "{text}: the naive rules disagree"
        );
        let mut guard = Guard::new(game.clone(), GUARD_NODES);
        // The search's own move, and every move that does not win, each
        // as the move the guard is asked to check.
        let (searched, preference) = weak_search(&game, state);
        game.legal_actions(state, &mut actions);
        let losing_or_drawing: Vec<Action> = actions
            .iter()
            .copied()
            .filter(|&a| value_of(&game, state, a) != Some(Outcome::Win))
            .take(3)
            .collect();
        for checked in std::iter::once(searched).chain(losing_or_drawing) {
            let guarded = guard.check(&game, state, checked, &preference);
            assert_eq!(guarded.proven, Some(Outcome::Win), "{text}");
            assert_eq!(
                value_of(&game, state, guarded.action),
                Some(Outcome::Win),
                "{text}: {} does not win",
                game.format_action(state, guarded.action)
            );
        }
    }
}

#[test]
fn a_move_proven_lost_is_not_played_while_another_is_not_proven_lost() {
    let game = Heraldis::default();
    let mut actions = Vec::new();
    let mut checked_positions = 0;
    // Positions the side to move does not lose within 9 plies (a forced
    // win, or nothing forced): every move proven lost is offered to the
    // guard, with the others as the search's preference.
    for (state, _) in positions(30, 23, |value| value != Outcome::Loss) {
        // Lost within 9 plies: under the ply limit 9 plies on.
        let near =
            Heraldis::with_ply_limit(Layout::default_layout(), game.ply(&state) as u16 + HORIZON);
        game.legal_actions(&state, &mut actions);
        let (lost, others): (Vec<Action>, Vec<Action>) = actions
            .iter()
            .partition(|&&a| value_of(&near, &state, a) == Some(Outcome::Loss));
        if lost.is_empty() || others.is_empty() {
            continue;
        }
        checked_positions += 1;
        let text = game.format_state(&state);
        let mut guard = Guard::new(game.clone(), GUARD_NODES);
        for &searched in lost.iter().take(3) {
            let guarded = guard.check(&game, &state, searched, &others);
            assert!(guarded.overruled, "{text}");
            assert_ne!(
                value_of(&near, &state, guarded.action),
                Some(Outcome::Loss),
                "{text}: {} loses",
                game.format_action(&state, guarded.action)
            );
        }
    }
    assert!(checked_positions >= 5, "only {checked_positions} positions");
}
