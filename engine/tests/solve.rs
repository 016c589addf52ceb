//! The df-pn solver against an exhaustive minimax written here: the value
//! of whole small games (Havannah on the smallest board) and of Heraldis
//! positions a few plies from the ply limit, and the move it gives keeps
//! that value.

use std::collections::HashMap;

use grandmaitre_engine::game::random_states;
use grandmaitre_engine::havannah::Havannah;
use grandmaitre_engine::heraldis::{Heraldis, Layout};
use grandmaitre_engine::solve::{Budget, Solution, Solver};
use grandmaitre_engine::{Game, Notation, Outcome, Symmetric};

/// The value of `state` for the side to move, by trying every line.
fn minimax<G: Game>(game: &G, state: &G::State, memo: &mut HashMap<G::State, Outcome>) -> Outcome {
    if let Some(outcome) = game.outcome(state) {
        return outcome;
    }
    if let Some(&known) = memo.get(state) {
        return known;
    }
    let mut actions = Vec::new();
    game.legal_actions(state, &mut actions);
    let mut best = Outcome::Loss;
    for action in actions {
        let child = game.play(state, action).expect("legal");
        let value = minimax(game, &child, memo).flipped();
        if value == Outcome::Win {
            best = value;
            break;
        }
        if value == Outcome::Draw {
            best = Outcome::Draw;
        }
    }
    memo.insert(state.clone(), best);
    best
}

const UNLIMITED: Budget = Budget {
    nodes: u64::MAX,
    seconds: f64::INFINITY,
};

/// Solves `state` and checks the value and the move against minimax.
fn check<G: Notation + Symmetric>(
    game: &G,
    state: &G::State,
    memo: &mut HashMap<G::State, Outcome>,
) -> Outcome {
    let expected = minimax(game, state, memo);
    let report = Solver::new(game.clone()).solve(state, UNLIMITED);
    let text = game.format_state(state);
    assert_eq!(report.solution, Solution::Solved(expected), "{text}");
    let action = report
        .best_move
        .unwrap_or_else(|| panic!("{text}: no move for {report:?}"));
    let child = game.play(state, action).expect("legal");
    assert_eq!(
        minimax(game, &child, memo).flipped(),
        expected,
        "{text}: the move"
    );
    expected
}

#[test]
fn the_smallest_havannah_boards_are_solved_as_minimax_finds() {
    for rules in ["base=2 swap=0", "base=2 swap=1"] {
        let game = Havannah::with_rules(rules).expect("rules");
        let mut memo = HashMap::new();
        let start = game.initial_state();
        check(&game, &start, &mut memo);
        for state in random_states(&game, 20, 5, 3) {
            if game.outcome(&state).is_none() {
                check(&game, &state, &mut memo);
            }
        }
    }
}

#[test]
fn heraldis_positions_near_the_ply_limit_are_solved_as_minimax_finds() {
    // Drawn after 14 plies: from ply 9 on, five plies at most remain.
    let game = Heraldis::with_ply_limit(Layout::default(), 14);
    let mut memo = HashMap::new();
    let mut values = [0; 3];
    let mut actions = Vec::new();
    for state in random_states(&game, 400, 13, 11) {
        game.legal_actions(&state, &mut actions);
        if game.ply(&state) < 9 || actions.is_empty() {
            continue;
        }
        let value = check(&game, &state, &mut memo);
        values[(1.0 - value.value()) as usize] += 1;
    }
    // Wins, draws and losses all met.
    assert!(values.iter().all(|&n| n > 0), "{values:?}");
}

#[test]
fn a_spent_budget_leaves_the_position_unknown() {
    let game = Havannah::with_rules("base=3 swap=0").expect("rules");
    let budget = Budget {
        nodes: 50,
        seconds: f64::INFINITY,
    };
    let report = Solver::new(game.clone()).solve(&game.initial_state(), budget);
    assert_eq!(report.solution, Solution::Unknown);
    assert!(report.nodes <= 60);
    assert_eq!(report.best_move, None);
}
