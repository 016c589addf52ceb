//! Network input for Heraldis, from the side to move's point of view.
//!
//! 30 planes of 5×5, plane-major, cell `(file, rank)` at offset
//! `rank × 5 + file` within a plane (rank 1 first). The board is not turned
//! for Dark: the layout planes carry the geometry, and "own"/"opponent" carry
//! the colours.
//!
//! | plane | meaning |
//! |---|---|
//! | 0 | pieces of the side to move |
//! | 1 | pieces of the opponent |
//! | 2 | Founding House cells |
//! | 3–7 | cells carrying symbol L, A, O, C, S (House or Alliance) |
//! | 8 | the Truce cell (the side to move may not capture there) |
//! | 9 | cells the side to move may capture now |
//! | 10 | cells the opponent could capture on its next turn |
//! | 11 | cells where the side to move wins now (a legal move that completes four in a row) |
//! | 12 | cells where the opponent would win on its next turn (free, or capturable by it) |
//! | 13 | cells that would complete a line of the side to move, free or not |
//! | 14 | cells that would complete a line of the opponent, free or not |
//! | 15–19 | constant 1 where the side to move owns a House of L, A, O, C, S |
//! | 20–24 | constant 1 where the opponent owns a House of L, A, O, C, S |
//! | 25 | constant: reserve of the side to move / 13 |
//! | 26 | constant: reserve of the opponent / 13 |
//! | 27 | constant 1 while the First Oath applies (ply 0) |
//! | 28 | constant: plies left before the ply limit / the limit |
//! | 29 | constant 1 (marks the board for zero-padded convolutions) |
//!
//! Planes 11–14 (version 2) spell out the four-in-a-row threats, which in
//! Heraldis hinge on capture rights anywhere on the board: a small network
//! reads them directly instead of spending layers rediscovering them.

use super::board::{Bitboard, CELLS, FULL, bit, completing_cells};
use super::{Heraldis, PIECES_PER_PLAYER, Position, Symbol};

/// Number of input planes.
pub const PLANE_COUNT: usize = 30;

/// Planes that depend on cells (the rest are constant over the board).
const CELL_PLANES: usize = 15;

/// One line per plane, for documentation and export metadata.
pub const PLANE_NAMES: [&str; PLANE_COUNT] = [
    "own pieces",
    "opponent pieces",
    "House cells",
    "cells with symbol L",
    "cells with symbol A",
    "cells with symbol O",
    "cells with symbol C",
    "cells with symbol S",
    "truce cell",
    "cells the side to move may capture",
    "cells the opponent could capture next turn",
    "cells where the side to move wins now",
    "cells where the opponent would win next turn",
    "cells completing a line of the side to move",
    "cells completing a line of the opponent",
    "side to move owns an L House",
    "side to move owns an A House",
    "side to move owns an O House",
    "side to move owns a C House",
    "side to move owns an S House",
    "opponent owns an L House",
    "opponent owns an A House",
    "opponent owns an O House",
    "opponent owns a C House",
    "opponent owns an S House",
    "reserve of the side to move / 13",
    "reserve of the opponent / 13",
    "First Oath in force",
    "plies left / ply limit",
    "ones",
];

/// Writes the planes of `position` into `planes` (length 30 × 25).
pub(super) fn encode(game: &Heraldis, position: &Position, planes: &mut [f32]) {
    assert_eq!(planes.len(), PLANE_COUNT * CELLS, "plane buffer size");
    let side = position.side_to_move();
    let opponent = side.opponent();
    let mine = position.pieces(side);
    let theirs = position.pieces(opponent);
    let layout = game.layout();

    let legal = game.legal_mask(position) & FULL;
    let may_capture = legal & theirs;
    let could_be_captured = if position.reserve(opponent) > 0 {
        game.capturable_by(position, opponent)
    } else {
        0
    };
    let completes_mine = completing_cells(mine);
    let completes_theirs = completing_cells(theirs);
    let free = FULL & !(mine | theirs);
    let opponent_may_play = if position.reserve(opponent) > 0 {
        free | could_be_captured
    } else {
        0
    };
    let mut bitboards: [Bitboard; CELL_PLANES] = [0; CELL_PLANES];
    bitboards[0] = mine;
    bitboards[1] = theirs;
    bitboards[2] = layout.houses();
    for symbol in Symbol::ALL {
        bitboards[3 + symbol.index()] = layout.cells_with_symbol(symbol);
    }
    bitboards[8] = position.truce().map_or(0, bit);
    bitboards[9] = may_capture;
    bitboards[10] = could_be_captured;
    bitboards[11] = completes_mine & legal;
    bitboards[12] = completes_theirs & opponent_may_play;
    bitboards[13] = completes_mine;
    bitboards[14] = completes_theirs;
    for (plane, &cells) in bitboards.iter().enumerate() {
        fill_cells(&mut planes[plane * CELLS..(plane + 1) * CELLS], cells);
    }

    let mut constants = [0.0f32; PLANE_COUNT - CELL_PLANES];
    for symbol in Symbol::ALL {
        let houses = layout.houses_of(symbol);
        constants[symbol.index()] = f32::from(u8::from(mine & houses != 0));
        constants[5 + symbol.index()] = f32::from(u8::from(theirs & houses != 0));
    }
    let per_player = PIECES_PER_PLAYER as f32;
    constants[10] = position.reserve(side) as f32 / per_player;
    constants[11] = position.reserve(opponent) as f32 / per_player;
    constants[12] = f32::from(u8::from(position.ply() == 0));
    let limit = f32::from(game.ply_limit());
    constants[13] = (limit - position.ply() as f32).max(0.0) / limit;
    constants[14] = 1.0;
    for (offset, &value) in constants.iter().enumerate() {
        let plane = CELL_PLANES + offset;
        planes[plane * CELLS..(plane + 1) * CELLS].fill(value);
    }
}

fn fill_cells(plane: &mut [f32], cells: Bitboard) {
    debug_assert_eq!(cells & !FULL, 0);
    for (cell, value) in plane.iter_mut().enumerate() {
        *value = f32::from(u8::from(cells & bit(cell) != 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;
    use crate::game::Notation;

    fn planes(text: &str) -> Vec<f32> {
        let game = Heraldis::default();
        let state = game.parse_state(text).expect("valid position");
        let mut planes = vec![0.0; PLANE_COUNT * CELLS];
        game.encode(&state, &mut planes);
        planes
    }

    fn marked(planes: &[f32], plane: usize) -> Vec<usize> {
        (0..CELLS)
            .filter(|&cell| planes[plane * CELLS + cell] == 1.0)
            .collect()
    }

    /// d2, the cell that completes a2–b2–c2.
    const D2: usize = 5 + 3;

    #[test]
    fn a_line_of_three_with_a_free_end_is_a_win_now_for_its_owner_and_a_threat_for_the_other() {
        // Light a2 b2 c2 to move: d2 wins now.
        let light = planes("4D/5/5/LLL2/DD3 l - 6");
        assert_eq!(marked(&light, 11), vec![D2]);
        assert_eq!(marked(&light, 13), vec![D2]);
        assert!(marked(&light, 12).is_empty() && marked(&light, 14).is_empty());
        // Dark to move sees the same cell as the opponent's winning threat.
        let dark = planes("5/5/5/LLL2/DD3 d - 5");
        assert_eq!(marked(&dark, 12), vec![D2]);
        assert_eq!(marked(&dark, 14), vec![D2]);
        assert!(marked(&dark, 11).is_empty() && marked(&dark, 13).is_empty());
    }

    #[test]
    fn a_blocked_completing_cell_is_not_a_win_but_still_a_line_cell() {
        // Dark holds d2, an L+A Alliance, and Light owns no L or A House
        // to capture it: Light's line cell stays on plane 13 but is no win.
        let light = planes("5/5/5/LLLD1/DD3 l - 6");
        assert!(marked(&light, 11).is_empty());
        assert_eq!(marked(&light, 13), vec![D2]);
    }
}
