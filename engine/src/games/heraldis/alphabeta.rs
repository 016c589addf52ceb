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

use super::board::{self, Bitboard, completing_cells};
use super::{Heraldis, PASS, Position};
use crate::alphabeta::{AlphaBeta, Evaluation};
use crate::game::{Action, Player};

/// Alpha-beta on the Heraldis evaluation.
pub type AlphaBetaAgent = AlphaBeta<HeraldisEvaluation>;

impl AlphaBetaAgent {
    /// A searcher of `depth` plies (at least 1); `seed` breaks ties between
    /// equally scored root moves.
    pub fn heraldis(depth: u32, seed: u64) -> AlphaBetaAgent {
        AlphaBeta::new(
            depth,
            seed,
            HeraldisEvaluation {
                lines: board::lines(),
            },
        )
    }
}

/// The evaluation in the module header, with its move ordering.
#[derive(Debug)]
pub struct HeraldisEvaluation {
    lines: Vec<Bitboard>,
}

impl Evaluation<Heraldis> for HeraldisEvaluation {
    fn evaluate(&self, game: &Heraldis, state: &Position) -> i32 {
        let side = state.side_to_move();
        self.colour_score(game, state, side) - self.colour_score(game, state, side.opponent())
    }

    /// Winning moves first, then captures, then placements.
    fn ordered_moves(&self, game: &Heraldis, state: &Position, moves: &mut Vec<Action>) {
        moves.clear();
        let mask = game.legal_mask(state);
        if mask == 1 << PASS.0 {
            moves.push(PASS);
            return;
        }
        let side = state.side_to_move();
        let winning = completing_cells(state.pieces(side));
        let captures = state.pieces(side.opponent());
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
    }
}

impl HeraldisEvaluation {
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
