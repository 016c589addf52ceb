//! A fixed-depth alpha-beta searcher with a hand-written evaluation: the
//! Heraldis anchor that measures the Grand Maître without any learning.
//!
//! Evaluation, from the side to move (positive is good):
//! - each of the 28 lines is worth 2, 8 or 32 to a colour for 1, 2 or 3 of
//!   its pieces in it, plus 1 for each of them on a House (never captured);
//!   a quarter of that while opponent pieces on Alliances stand in the line,
//!   nothing once an opponent piece on a House does;
//! - each opponent piece the side could capture: 3; each own piece exposed
//!   to the opponent: −3;
//! - each House symbol owned: 2;
//! - each own piece on a House: 3.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::board::{self, Bitboard, completing_cells};
use super::{Heraldis, PASS, Position};
use crate::agent::Agent;
use crate::game::{Action, Game, Outcome, Player};

/// Score of a won game at the root; wins sooner score higher.
const WIN: i32 = 100_000;

/// Alpha-beta to a fixed depth in plies.
#[derive(Debug)]
pub struct AlphaBetaAgent {
    depth: u32,
    rng: SmallRng,
    lines: Vec<Bitboard>,
    /// Nodes visited by the last search.
    pub nodes: u64,
}

impl AlphaBetaAgent {
    /// A searcher of `depth` plies (at least 1); `seed` breaks ties between
    /// equally scored root moves.
    pub fn new(depth: u32, seed: u64) -> AlphaBetaAgent {
        AlphaBetaAgent {
            depth: depth.max(1),
            rng: SmallRng::seed_from_u64(seed),
            lines: board::lines(),
            nodes: 0,
        }
    }

    /// The score of every legal move at the root, for the side to move.
    pub fn score_moves(&mut self, game: &Heraldis, state: &Position) -> Vec<(Action, i32)> {
        self.nodes = 0;
        let moves = self.ordered_moves(game, state);
        let mut scored = Vec::with_capacity(moves.len());
        let mut alpha = -WIN - 1;
        for action in moves {
            let mut next = *state;
            game.apply_unchecked(&mut next, action);
            // A window one below alpha keeps equal scores exact for ties.
            let score = -self.negamax(game, &next, self.depth - 1, 1, -WIN - 1, -(alpha - 1));
            alpha = alpha.max(score);
            scored.push((action, score));
        }
        scored
    }

    fn negamax(
        &mut self,
        game: &Heraldis,
        state: &Position,
        depth: u32,
        ply: i32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.nodes += 1;
        match game.outcome(state) {
            Some(Outcome::Loss) => return -WIN + ply,
            Some(Outcome::Win) => return WIN - ply,
            Some(Outcome::Draw) => return 0,
            None => {}
        }
        if depth == 0 {
            return self.evaluate(game, state);
        }
        let mut best = -WIN - 1;
        for action in self.ordered_moves(game, state) {
            let mut next = *state;
            game.apply_unchecked(&mut next, action);
            let score = -self.negamax(game, &next, depth - 1, ply + 1, -beta, -alpha);
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// Winning moves first, then captures, then placements.
    fn ordered_moves(&self, game: &Heraldis, state: &Position) -> Vec<Action> {
        let mask = game.legal_mask(state);
        if mask == 1 << PASS.0 {
            return vec![PASS];
        }
        let side = state.side_to_move();
        let winning = completing_cells(state.pieces(side));
        let captures = state.pieces(side.opponent());
        let mut moves = Vec::with_capacity(mask.count_ones() as usize);
        for group in [
            mask & winning,
            mask & captures & !winning,
            mask & !captures & !winning,
        ] {
            let mut rest = group;
            while rest != 0 {
                moves.push(Action(rest.trailing_zeros() as u16));
                rest &= rest - 1;
            }
        }
        moves
    }

    /// The evaluation in the module header.
    pub fn evaluate(&self, game: &Heraldis, state: &Position) -> i32 {
        let side = state.side_to_move();
        self.colour_score(game, state, side) - self.colour_score(game, state, side.opponent())
    }

    fn colour_score(&self, game: &Heraldis, state: &Position, player: Player) -> i32 {
        const LINE_VALUE: [i32; 5] = [0, 2, 8, 32, 128];
        let mine = state.pieces(player);
        let theirs = state.pieces(player.opponent());
        let houses = game.layout().houses();
        let mut score = 0;
        for &line in &self.lines {
            if line & theirs & houses != 0 {
                continue; // an immune opponent piece closes the line for good
            }
            let count = (line & mine).count_ones() as usize;
            let permanent = (line & mine & houses).count_ones() as i32;
            let value = LINE_VALUE[count] + permanent;
            // Opponent pieces on Alliances only close the line until taken.
            score += if line & theirs == 0 { value } else { value / 4 };
        }
        let captures = game.capturable_by(state, player).count_ones() as i32;
        let owned = super::Symbol::ALL
            .iter()
            .filter(|&&s| mine & game.layout().houses_of(s) != 0)
            .count() as i32;
        let house_pieces = (mine & houses).count_ones() as i32;
        score + 3 * captures + 2 * owned + 3 * house_pieces
    }
}

impl Agent<Heraldis> for AlphaBetaAgent {
    fn select(&mut self, game: &Heraldis, state: &Position) -> Action {
        let scored = self.score_moves(game, state);
        let best = scored.iter().map(|&(_, s)| s).max().expect("a legal move");
        let ties: Vec<Action> = scored
            .iter()
            .filter(|&&(_, s)| s == best)
            .map(|&(a, _)| a)
            .collect();
        ties[self.rng.random_range(0..ties.len())]
    }
}
