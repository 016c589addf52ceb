//! Network input for Havannah, from the side to move's point of view.
//!
//! 7 planes of `(2n − 1) × (2n − 1)` (15 × 15 for base 8), plane-major; cell
//! `(x, y)` is at offset `y × (2n − 1) + x` within a plane, which is its
//! action id, so the policy head and the planes share one layout. Grid cells
//! off the hexagon are 0 in every plane but the constant ones. Colours are
//! not given: "own" and "opponent" carry them.
//!
//! | plane | meaning |
//! |---|---|
//! | 0 | stones of the side to move |
//! | 1 | stones of the opponent |
//! | 2 | empty cells |
//! | 3 | cells of the hexagon |
//! | 4 | the six corners |
//! | 5 | the six edges (corners excluded) |
//! | 6 | constant 1 while the side to move may swap (take over the first stone) |
//!
//! Planes 0–2 are OpenSpiel's observation tensor for the side to move.

use super::bitboard::Bitboard;
use super::{Havannah, Position};

/// Number of input planes.
pub const PLANE_COUNT: usize = 7;
/// The plane of the hexagon's cells.
pub const BOARD_PLANE: usize = 3;

/// One line per plane, for documentation and export metadata.
pub const PLANE_NAMES: [&str; PLANE_COUNT] = [
    "own stones",
    "opponent stones",
    "empty cells",
    "cells of the hexagon",
    "corner cells",
    "edge cells",
    "swap available",
];

/// Writes the planes of `position` into `planes`.
pub(super) fn encode(game: &Havannah, position: &Position, planes: &mut [f32]) {
    let board = game.board();
    let area = board.action_count();
    assert_eq!(planes.len(), PLANE_COUNT * area, "plane buffer size");
    planes.fill(0.0);
    let side = position.side_to_move();
    let mine = position.stones(side);
    let theirs = position.stones(side.opponent());
    let edges = board
        .edges()
        .iter()
        .fold(Bitboard::EMPTY, |all, &edge| all | edge);
    let cell_planes = [
        mine,
        theirs,
        board.cells().without(mine | theirs),
        board.cells(),
        board.corners(),
        edges,
    ];
    for (plane, cells) in cell_planes.into_iter().enumerate() {
        let plane = &mut planes[plane * area..(plane + 1) * area];
        for bit in cells.iter() {
            plane[board.action_of_bit(bit)] = 1.0;
        }
    }
    if game.swap_available(position) {
        planes[6 * area..7 * area].fill(1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;
    use crate::game::Action;

    #[test]
    fn planes_follow_the_side_to_move_and_the_swap() {
        let game = Havannah::new(3, true);
        let area = 25;
        let mut planes = vec![0.0; PLANE_COUNT * area];
        let start = game.initial_state();
        game.encode(&start, &mut planes);
        assert_eq!(planes[3 * area..4 * area].iter().sum::<f32>(), 19.0);
        assert_eq!(planes[2 * area..3 * area].iter().sum::<f32>(), 19.0);
        assert_eq!(planes[4 * area..5 * area].iter().sum::<f32>(), 6.0);
        assert_eq!(planes[5 * area..6 * area].iter().sum::<f32>(), 6.0);
        assert_eq!(planes[6 * area], 0.0);
        // White plays the centre (c3, id 12): Black sees it as the opponent's
        // stone and may swap.
        let after = game.play(&start, Action(12)).expect("legal");
        game.encode(&after, &mut planes);
        assert_eq!(planes[area + 12], 1.0);
        assert_eq!(planes[12], 0.0);
        assert!(planes[6 * area..7 * area].iter().all(|&v| v == 1.0));
        // Black swaps: the stone is White's opponent's, and no swap remains.
        let swapped = game.play(&after, Action(12)).expect("swap");
        game.encode(&swapped, &mut planes);
        assert_eq!(planes[area + 12], 1.0);
        assert_eq!(planes[6 * area], 0.0);
    }
}
