//! Random walks from a set of pieces: the starts of self-play other than
//! the game's own (reverse starts from the end, opening walks from the
//! start).

use rand::Rng;
use rand::rngs::SmallRng;

use super::board::cells_of;
use super::{Cells, Halma, Position, Status, moves};
use crate::game::Player;

impl Halma {
    /// The live position after `plies[i]` random moves of side `sides[i]`
    /// (drawn with `rng`, in turn) from `pieces`, the rules' ends
    /// ignored on the way (a side walked into its goal moves on until it is
    /// out); `forward[side]`: the chance that a move of that side is drawn
    /// among those that bring the piece nearer its goal corner (among all
    /// where none does) rather than among all. The move counts start at 0,
    /// White to move. `None` if a side cannot leave its goal.
    pub(super) fn walk(
        &self,
        mut pieces: [Cells; 2],
        sides: [Player; 2],
        plies: [u32; 2],
        forward: [f64; 2],
        rng: &mut SmallRng,
    ) -> Option<Position> {
        let board = &*self.board;
        let goals = [board.yard(Player::Second), board.yard(Player::First)];
        let mut choices = Vec::new();
        let mut step = |pieces: &mut [Cells; 2], side: Player| {
            let moves = moves::Moves::new(board, pieces[0] | pieces[1]);
            let corner = board.goal_corner(side);
            choices.clear();
            for from in cells_of(pieces[side.index()]) {
                choices.extend(cells_of(moves.targets(from)).map(|to| (from, to)));
            }
            let purpose = forward[side.index()];
            if purpose > 0.0 && rng.random_bool(purpose) {
                let nearer = |&(from, to): &(usize, usize)| {
                    board.manhattan(to, corner) < board.manhattan(from, corner)
                };
                if choices.iter().any(nearer) {
                    choices.retain(nearer);
                }
            }
            if let Some(&(from, to)) = choices.get(rng.random_range(0..choices.len().max(1))) {
                pieces[side.index()] ^= (1 << from) | (1 << to);
            }
        };
        for round in 0..plies[0].max(plies[1]) {
            for (side, count) in sides.into_iter().zip(plies) {
                if round < count {
                    step(&mut pieces, side);
                }
            }
        }
        // Neither side may be done.
        for side in sides {
            for _ in 0..board.pieces_per_side() {
                if pieces[side.index()] != goals[side.index()] {
                    break;
                }
                step(&mut pieces, side);
            }
        }
        if pieces[0] == goals[0] || pieces[1] == goals[1] {
            return None;
        }
        Some(Position {
            pieces,
            moves: [0, 0],
            side: Player::First,
            passed: false,
            ply: 0,
            status: Status::Playing,
        })
    }
}
