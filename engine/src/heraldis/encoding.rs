//! Network input for Heraldis, from the side to move's point of view.
//!
//! 26 planes of 5×5, plane-major, cell `(file, rank)` at offset
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
//! | 11–15 | constant 1 where the side to move owns a House of L, A, O, C, S |
//! | 16–20 | constant 1 where the opponent owns a House of L, A, O, C, S |
//! | 21 | constant: reserve of the side to move / 13 |
//! | 22 | constant: reserve of the opponent / 13 |
//! | 23 | constant 1 while the First Oath applies (ply 0) |
//! | 24 | constant: plies left before the ply limit / the limit |
//! | 25 | constant 1 (marks the board for zero-padded convolutions) |

use super::board::{Bitboard, CELLS, FULL, bit};
use super::{Heraldis, PIECES_PER_PLAYER, Position, Symbol};

/// Number of input planes.
pub const PLANE_COUNT: usize = 26;

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

/// Writes the planes of `position` into `planes` (length 26 × 25).
pub(super) fn encode(game: &Heraldis, position: &Position, planes: &mut [f32]) {
    assert_eq!(planes.len(), PLANE_COUNT * CELLS, "plane buffer size");
    let side = position.side_to_move();
    let opponent = side.opponent();
    let mine = position.pieces(side);
    let theirs = position.pieces(opponent);
    let layout = game.layout();

    let may_capture = game.legal_mask(position) & theirs;
    let could_be_captured = if position.reserve(opponent) > 0 {
        game.capturable_by(position, opponent)
    } else {
        0
    };
    let mut bitboards: [Bitboard; 11] = [0; 11];
    bitboards[0] = mine;
    bitboards[1] = theirs;
    bitboards[2] = layout.houses();
    for symbol in Symbol::ALL {
        bitboards[3 + symbol.index()] = layout.cells_with_symbol(symbol);
    }
    bitboards[8] = position.truce().map_or(0, bit);
    bitboards[9] = may_capture;
    bitboards[10] = could_be_captured;
    for (plane, &cells) in bitboards.iter().enumerate() {
        fill_cells(&mut planes[plane * CELLS..(plane + 1) * CELLS], cells);
    }

    let mut constants = [0.0f32; PLANE_COUNT - 11];
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
        let plane = 11 + offset;
        planes[plane * CELLS..(plane + 1) * CELLS].fill(value);
    }
}

fn fill_cells(plane: &mut [f32], cells: Bitboard) {
    debug_assert_eq!(cells & !FULL, 0);
    for (cell, value) in plane.iter_mut().enumerate() {
        *value = f32::from(u8::from(cells & bit(cell) != 0));
    }
}
