//! Move generation on bitboards: the piece is lifted, then its steps (an
//! empty neighbour) and its jumps, flood-filled: from the cells reached so
//! far, over any piece in any of the eight directions onto an empty cell
//! not reached yet, until nothing new is reached. A move is its two ends,
//! so jump paths to the same cell are one move.

use super::board::{Board, Cells, DIRECTIONS};

/// The cells the piece on `from` can move to, with `occupied` the pieces
/// on the board (the piece included).
#[inline]
pub fn targets(board: &Board, occupied: Cells, from: usize) -> Cells {
    let origin: Cells = 1 << from;
    // The piece is lifted: its own cell counts as empty.
    let others = occupied & !origin;
    let empty = board.cells() & !others;
    let mut steps = 0;
    for index in 0..DIRECTIONS.len() {
        steps |= board.step(origin, index);
    }
    steps &= empty;
    let mut reached = origin;
    let mut frontier = origin;
    while frontier != 0 {
        let mut landed = 0;
        for index in 0..DIRECTIONS.len() {
            let over = board.step(frontier, index) & others;
            landed |= board.step(over, index);
        }
        frontier = landed & empty & !reached;
        reached |= frontier;
    }
    (steps | reached) & !origin
}

/// The cells reached by jumps alone (no step), for the players that
/// prefer jumps.
pub fn jump_targets(board: &Board, occupied: Cells, from: usize) -> Cells {
    let origin: Cells = 1 << from;
    let others = occupied & !origin;
    let empty = board.cells() & !others;
    let mut reached = origin;
    let mut frontier = origin;
    while frontier != 0 {
        let mut landed = 0;
        for index in 0..DIRECTIONS.len() {
            landed |= board.step(board.step(frontier, index) & others, index);
        }
        frontier = landed & empty & !reached;
        reached |= frontier;
    }
    reached & !origin
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::halma::board::{Corner, cells_of};

    fn named(board: &Board, cells: &[&str]) -> Cells {
        cells.iter().fold(0, |all, name| {
            all | 1 << board.parse_cell(name).expect("cell")
        })
    }

    fn names(board: &Board, cells: Cells) -> Vec<String> {
        cells_of(cells).map(|c| board.cell_name(c)).collect()
    }

    #[test]
    fn a_lone_piece_steps_to_its_neighbours() {
        let board = Board::new(8, Corner::A1);
        let d4 = board.parse_cell("d4").expect("cell");
        assert_eq!(targets(&board, 1 << d4, d4).count_ones(), 8);
        let a1 = board.parse_cell("a1").expect("cell");
        assert_eq!(
            names(&board, targets(&board, 1 << a1, a1)),
            ["b1", "a2", "b2"]
        );
    }

    #[test]
    fn jumps_chain_over_pieces_of_either_colour_and_may_stop_anywhere() {
        let board = Board::new(8, Corner::A1);
        // a1 jumps b2 to c3, then d4 to e5, then e6 to e7; or b1 to c1,
        // then b2 (again, the other way) to a3.
        let occupied = named(&board, &["a1", "b2", "d4", "e6", "b1"]);
        let a1 = board.parse_cell("a1").expect("cell");
        assert_eq!(
            names(&board, jump_targets(&board, occupied, a1)),
            ["c1", "a3", "c3", "e5", "e7"]
        );
        // The one step: a2 (b1 and b2 are taken).
        assert_eq!(
            names(&board, targets(&board, occupied, a1)),
            ["c1", "a2", "a3", "c3", "e5", "e7"]
        );
    }

    #[test]
    fn a_jump_needs_an_empty_landing_on_the_board() {
        let board = Board::new(8, Corner::A1);
        // g1 over h1 would land off the board; g1 over f1 onto e1 is taken.
        let occupied = named(&board, &["g1", "h1", "f1", "e1"]);
        let g1 = board.parse_cell("g1").expect("cell");
        assert_eq!(jump_targets(&board, occupied, g1), 0);
        // c3 jumps c4 to c5, then d5 to e5 or b5 to a5; from c5 the jump
        // back over c4 lands on c3, the lifted piece's own cell, which is
        // never a move's end.
        let occupied = named(&board, &["c3", "c4", "d5", "b5"]);
        let c3 = board.parse_cell("c3").expect("cell");
        assert_eq!(
            names(&board, jump_targets(&board, occupied, c3)),
            ["a5", "c5", "e5"]
        );
    }
}
