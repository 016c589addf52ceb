//! `bench tactics`: the speed of the search's tactics, the short
//! alpha-beta searches on the game's heuristic
//! ([`grandmaitre_engine::search::Tactics`]), on one thread.

use std::time::Instant;

use grandmaitre_engine::Hints;
use grandmaitre_engine::agent::Agent;
use grandmaitre_engine::alphabeta::{AlphaBeta, HeuristicEvaluation};
use grandmaitre_engine::game::random_states;

/// Random plies that open each game the positions are drawn from.
const OPENING_PLIES: usize = 4;
/// The most plies of the one-ply search after the opening.
const MAX_PLIES: u64 = 160;

/// What the leaf searches of one depth cost on one thread.
#[derive(Clone, Debug, PartialEq)]
pub struct TacticsTimes {
    /// Plies of each search.
    pub depth: u32,
    /// The positions searched.
    pub positions: usize,
    /// Nodes visited in all.
    pub nodes: u64,
    /// Mean time of a search, in milliseconds.
    pub mean: f64,
    /// Its 95th percentile.
    pub percentile_95: f64,
    /// The slowest.
    pub max: f64,
    /// Nodes per second over all the searches.
    pub nodes_per_second: f64,
}

impl std::fmt::Display for TacticsTimes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "alpha-beta on the heuristic, {} plies, one thread, {} positions: mean {:.2} ms, 95th percentile {:.2} ms, max {:.2} ms; {:.0} nodes a search, {:.2} M nodes/s",
            self.depth,
            self.positions,
            self.mean,
            self.percentile_95,
            self.max,
            self.nodes as f64 / self.positions as f64,
            self.nodes_per_second / 1e6
        )
    }
}

/// Times a `depth`-ply alpha-beta on the game's heuristic, as the tactics
/// search from a tree's positions, from `positions` positions of play:
/// each after [`OPENING_PLIES`] random plies and up to [`MAX_PLIES`] of a
/// one-ply search on the same heuristic (seeded, so every run times the
/// same positions).
pub fn tactics<G: Hints>(game: &G, depth: u32, positions: usize) -> TacticsTimes {
    let states = positions_of_play(game, positions.max(1));
    let mut times = Vec::with_capacity(states.len());
    let mut nodes = 0;
    let mut total = 0.0;
    for state in &states {
        let mut searcher = AlphaBeta::new(depth, 0, HeuristicEvaluation);
        let start = Instant::now();
        std::hint::black_box(searcher.value(game, state));
        let seconds = start.elapsed().as_secs_f64();
        total += seconds;
        times.push(seconds * 1e3);
        nodes += searcher.nodes;
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    TacticsTimes {
        depth,
        positions: times.len(),
        nodes,
        mean: times.iter().sum::<f64>() / times.len() as f64,
        percentile_95: at(0.95),
        max: at(1.0),
        nodes_per_second: nodes as f64 / total.max(f64::MIN_POSITIVE),
    }
}

/// `count` live positions along games of a one-ply search on the game's
/// heuristic, each from its own random opening.
fn positions_of_play<G: Hints>(game: &G, count: usize) -> Vec<G::State> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
    let openings = random_states(game, count, OPENING_PLIES, 13);
    openings
        .into_iter()
        .enumerate()
        .map(|(index, mut state)| {
            let mut player = AlphaBeta::new(1, index as u64, HeuristicEvaluation);
            for _ in 0..rng.random_range(0..=MAX_PLIES) {
                if game.outcome(&state).is_some() {
                    break;
                }
                // A move that ends the game is not played: the position
                // before it is the one searched.
                let action = player.select(game, &state);
                let next = game
                    .play(&state, action)
                    .expect("the player's move is legal");
                if game.outcome(&next).is_some() {
                    break;
                }
                state = next;
            }
            state
        })
        .filter(|state| game.outcome(state).is_none())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use grandmaitre_engine::bulltricker::Bulltricker;

    #[test]
    fn every_position_timed_is_live_and_each_search_visits_nodes() {
        let game = Bulltricker::default();
        let times = tactics(&game, 2, 12);
        assert_eq!(times.positions, 12, "the openings are short, no game ends");
        assert!(times.nodes >= 12 * 2, "{times:?}");
        assert!(times.mean <= times.max && times.percentile_95 <= times.max);
    }
}
