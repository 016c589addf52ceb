//! Move generation on bitboards: the piece is lifted, then its steps (an
//! empty neighbour) and its jumps, flood-filled: from the cells reached so
//! far, over any piece in any of the eight directions onto an empty cell
//! not reached yet, until nothing new is reached. A move is its two ends,
//! so jump paths to the same cell are one move.

use super::board::{Board, Cells, DIRECTIONS};

/// The moves of a position's pieces. What the position allows is found
/// once for all of them: per direction, the cells a jump can take off
/// from (a piece next, an empty cell beyond).
#[derive(Clone, Copy, Debug)]
pub struct Moves<'a> {
    board: &'a Board,
    empty: Cells,
    /// Per direction of [`DIRECTIONS`]: the take-off cells of a jump.
    open: [Cells; 8],
    /// The take-off cells of any jump.
    take_off: Cells,
}

/// Direction `index` reversed.
#[inline(always)]
const fn opposite(index: usize) -> usize {
    (index + DIRECTIONS.len() / 2) % DIRECTIONS.len()
}

/// The bit shift of a step in direction `index` on the N × N board. The
/// board's size is a constant of the move generator's code, so that its
/// 128-bit shifts are by constants (about half the time of shifts by a
/// variable).
#[inline(always)]
const fn step_shift<const N: i32>(index: usize) -> i32 {
    DIRECTIONS[index].0 + N * DIRECTIONS[index].1
}

/// `cells` shifted by `amount` bits, towards the higher ones if positive.
#[inline(always)]
fn shift(cells: Cells, amount: i32) -> Cells {
    if amount >= 0 {
        cells << amount
    } else {
        cells >> -amount
    }
}

impl<'a> Moves<'a> {
    /// The moves with `occupied` the pieces on the board.
    pub fn new(board: &'a Board, occupied: Cells) -> Moves<'a> {
        match board.size() {
            8 => Moves::sized::<8>(board, occupied),
            _ => Moves::sized::<10>(board, occupied),
        }
    }

    #[inline(always)]
    fn sized<const N: i32>(board: &'a Board, occupied: Cells) -> Moves<'a> {
        let empty = board.cells() & !occupied;
        let mut open = [0; 8];
        for (index, open) in open.iter_mut().enumerate() {
            // Stepping the pieces and the empty cells backwards.
            let back = opposite(index);
            let (stays, amount) = (board.stays(back), step_shift::<N>(back));
            let next = shift(occupied & stays, amount);
            let beyond = shift(shift(empty & stays, amount) & stays, amount);
            *open = next & beyond;
        }
        let take_off = open.iter().fold(0, |all, &open| all | open);
        Moves {
            board,
            empty,
            open,
            take_off,
        }
    }

    /// The cells the piece on `from` can move to: its steps and its jumps.
    #[inline]
    pub fn targets(&self, from: usize) -> Cells {
        (self.board.around(from) & self.empty) | self.jumps(from)
    }

    /// The cells the piece on `from` reaches by jumps alone.
    #[inline]
    pub fn jumps(&self, from: usize) -> Cells {
        let origin: Cells = 1 << from;
        if self.take_off & origin == 0 {
            return 0;
        }
        match self.board.size() {
            8 => self.flood::<8>(origin),
            _ => self.flood::<10>(origin),
        }
    }

    fn flood<const N: i32>(&self, origin: Cells) -> Cells {
        // The piece is lifted: no jump goes over its own cell (a landing
        // there is no move's end, and the cell is reached already).
        let mut open = self.open;
        for (index, open) in open.iter_mut().enumerate() {
            let back = opposite(index);
            *open &= !shift(origin & self.board.stays(back), step_shift::<N>(back));
        }
        let mut reached = origin;
        let mut frontier = origin;
        while frontier != 0 {
            let mut landed = 0;
            for (index, &open) in open.iter().enumerate() {
                landed |= shift(frontier & open, 2 * step_shift::<N>(index));
            }
            frontier = landed & !reached;
            reached |= frontier;
        }
        reached & !origin
    }
}

/// The cells the piece on `from` can move to, with `occupied` the pieces
/// on the board (the piece included); [`Moves`] serves all pieces of a
/// position.
pub fn targets(board: &Board, occupied: Cells, from: usize) -> Cells {
    Moves::new(board, occupied).targets(from)
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
            names(&board, Moves::new(&board, occupied).jumps(a1)),
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
        assert_eq!(Moves::new(&board, occupied).jumps(g1), 0);
        // c3 jumps c4 to c5, then d5 to e5 or b5 to a5; from c5 the jump
        // back over c4 lands on c3, the lifted piece's own cell, which is
        // never a move's end.
        let occupied = named(&board, &["c3", "c4", "d5", "b5"]);
        let c3 = board.parse_cell("c3").expect("cell");
        assert_eq!(
            names(&board, Moves::new(&board, occupied).jumps(c3)),
            ["a5", "c5", "e5"]
        );
    }
}
