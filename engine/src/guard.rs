//! The solver before the search's move: the Grand Maître at full strength
//! (the levels that play their best, the advice, `genmove`) asks the exact
//! solver ([`crate::solve`]), within a small budget of positions, before it
//! trusts its search.
//!
//! A search of a few thousand simulations can rate a losing move highest
//! where the refutation is a narrow forced line (in Heraldis
//! `L4/D2D1/DL3/3L1/5 l - 6` level 10's search gives b2 69 %, and b2 loses
//! in 5 plies, while c2 wins), and can prefer a move that only draws where
//! a win is forced. The guard keeps what the solver proves:
//! - where the side to move has a proven win, it plays a winning move (the
//!   search's own if that one is proven to win, else the solver's);
//! - where the position is a proven draw, it never plays a move proven
//!   lost;
//! - where the position is not solved within the budget but the search's
//!   move is proven lost, it plays the move the search liked best among
//!   those not proven lost (if there is one);
//! - otherwise the search's move stands.
//!
//! The budget counts positions, not seconds, so that a move does not depend
//! on the machine's speed. Bulltricker's repetition rule is the solver's
//! blind spot (see [`crate::solve`]): there a "proof" that runs through a
//! repetition can be wrong.

use crate::agent::Agent;
use crate::game::{Action, Hints, Outcome, Symmetric};
use crate::search::SearchResult;
use crate::solve::{Budget, Solution, Solver};

/// Positions each solve may expand, for the games that opt in
/// ([`crate::game::Hints::guard_nodes`]): about 60 ms in Heraldis, 200 ms in
/// Halma. Havannah (170 moves a position, 12 symmetries: seconds) and
/// Bulltricker (repetitions, which the solver does not see) keep none.
pub const GUARD_NODES: u64 = 20_000;

/// Solves the guard may run for one move beyond the root's: the search's
/// move and the alternatives after it.
const MAX_CHILD_SOLVES: usize = 8;

/// The move the guard plays, and what the solver proved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guarded {
    /// The move to play.
    pub action: Action,
    /// The value of the position for the side to move, where the solver
    /// proved it.
    pub proven: Option<Outcome>,
    /// Whether the solver overruled the search's move.
    pub overruled: bool,
}

/// The solver of the guard, kept from one move to the next (its table
/// keeps what earlier moves proved).
#[derive(Debug)]
pub struct Guard<G: Symmetric> {
    solver: Solver<G>,
    nodes: u64,
}

impl<G: Symmetric> Guard<G> {
    /// A guard for `game`, each solve within `nodes` positions.
    pub fn new(game: G, nodes: u64) -> Guard<G> {
        Guard {
            solver: Solver::new(game),
            nodes,
        }
    }

    fn budget(&self) -> Budget {
        Budget {
            nodes: self.nodes,
            seconds: f64::INFINITY,
        }
    }

    fn solve(&mut self, state: &G::State) -> Option<Outcome> {
        match self.solver.solve(state, self.budget()).solution {
            Solution::Solved(outcome) => Some(outcome),
            Solution::Unknown => None,
        }
    }

    /// The value for the side to move at `state` of playing `action`, where
    /// the solver proves it.
    fn value_of(&mut self, game: &G, state: &G::State, action: Action) -> Option<Outcome> {
        let mover = game.current_player(state);
        let child = game.play(state, action).ok()?;
        let value = self.solve(&child)?;
        Some(if game.current_player(&child) == mover {
            value
        } else {
            value.flipped()
        })
    }

    /// [`Guard::check`] with the search's preference taken from its
    /// result (its moves, most visited first), if it has one.
    pub fn check_search(
        &mut self,
        game: &G,
        state: &G::State,
        searched: Action,
        result: Option<&SearchResult>,
    ) -> Guarded {
        let preference: Vec<Action> = result
            .map(|r| r.children.iter().map(|c| c.action).collect())
            .unwrap_or_default();
        self.check(game, state, searched, &preference)
    }

    /// Checks `searched`, the search's move at `state`, against the solver;
    /// `preference` lists the other moves the search would play, best
    /// first (its children by visits).
    ///
    /// # Panics
    ///
    /// Panics if `searched` is not legal at `state`.
    pub fn check(
        &mut self,
        game: &G,
        state: &G::State,
        searched: Action,
        preference: &[Action],
    ) -> Guarded {
        let report = self.solver.solve(state, self.budget());
        let keep = |proven| Guarded {
            action: searched,
            proven,
            overruled: false,
        };
        let overrule = |action, proven| Guarded {
            action,
            proven,
            overruled: action != searched,
        };
        match (report.solution, report.best_move) {
            (Solution::Solved(Outcome::Win), Some(winning)) => {
                if self.value_of(game, state, searched) == Some(Outcome::Win) {
                    keep(Some(Outcome::Win))
                } else {
                    overrule(winning, Some(Outcome::Win))
                }
            }
            (Solution::Solved(Outcome::Draw), Some(drawing)) => {
                if self.value_of(game, state, searched) == Some(Outcome::Loss) {
                    overrule(drawing, Some(Outcome::Draw))
                } else {
                    keep(Some(Outcome::Draw))
                }
            }
            (Solution::Solved(outcome), _) => keep(Some(outcome)),
            (Solution::Unknown, _) => {
                if self.value_of(game, state, searched) != Some(Outcome::Loss) {
                    return keep(None);
                }
                let alternatives = preference.iter().copied().filter(|&a| a != searched);
                for action in alternatives.take(MAX_CHILD_SOLVES) {
                    if self.value_of(game, state, action) != Some(Outcome::Loss) {
                        return overrule(action, None);
                    }
                }
                keep(None)
            }
        }
    }
}

/// An agent whose moves pass the guard: the search's move unless the
/// solver proves better (arena players with `solver=1`).
pub struct GuardedAgent<G: Symmetric> {
    inner: Box<dyn Agent<G>>,
    guard: Option<Guard<G>>,
    nodes: u64,
}

impl<G: Symmetric> std::fmt::Debug for GuardedAgent<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuardedAgent")
            .field("nodes", &self.nodes)
            .finish_non_exhaustive()
    }
}

impl<G: Symmetric> GuardedAgent<G> {
    /// `inner`, its moves checked by a guard of `nodes` positions a solve
    /// (none with 0).
    pub fn new(inner: Box<dyn Agent<G>>, nodes: u64) -> GuardedAgent<G> {
        GuardedAgent {
            inner,
            guard: None,
            nodes,
        }
    }
}

impl<G: Symmetric + Hints + 'static> Agent<G> for GuardedAgent<G> {
    fn select(&mut self, game: &G, state: &G::State) -> Action {
        let searched = self.inner.select(game, state);
        if self.nodes == 0 {
            return searched;
        }
        let nodes = self.nodes;
        let guard = self
            .guard
            .get_or_insert_with(|| Guard::new(game.clone(), nodes));
        guard
            .check_search(game, state, searched, self.inner.last_result())
            .action
    }

    fn observe(&mut self, game: &G, state: &G::State, action: Action) {
        self.inner.observe(game, state, action);
    }

    fn last_result(&self) -> Option<&SearchResult> {
        self.inner.last_result()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Notation;
    use crate::heraldis::Heraldis;

    #[test]
    fn a_move_proven_lost_is_replaced_by_the_proven_win() {
        // Level 10's search plays b2 here, which loses in 5 plies; c2 wins.
        let game = Heraldis::default();
        let state = game
            .parse_state("L4/D2D1/DL3/3L1/5 l - 6")
            .expect("position");
        let b2 = game.parse_action(&state, "b2").expect("b2");
        let mut guard = Guard::new(game.clone(), GUARD_NODES);
        let guarded = guard.check(&game, &state, b2, &[]);
        assert_eq!(guarded.proven, Some(Outcome::Win));
        assert!(guarded.overruled);
        assert_eq!(
            guard.value_of(&game, &state, guarded.action),
            Some(Outcome::Win)
        );
        assert_eq!(guard.value_of(&game, &state, b2), Some(Outcome::Loss));
        // A winning move of the search's own stands.
        let kept = guard.check(&game, &state, guarded.action, &[]);
        assert_eq!(kept.action, guarded.action);
        assert!(!kept.overruled);
    }
}
