//! The square board of Halma as bitboards: cell `x + N · y` (file `x` from
//! the left, rank `y` from the bottom, both from 0) is bit `x + N · y` of a
//! `u128`, which holds both the 8 × 8 and the 10 × 10 board. The yards, the
//! eight directions with the masks that keep a shift on the board, cell
//! names and the diagonal reflection that maps each yard onto itself.

use crate::game::{Player, grid_cell_name, parse_grid_cell};

/// A set of cells, bit `x + N · y` for cell (x, y).
pub type Cells = u128;

/// Board sizes the rules know: 8 × 8 (10 pieces a side) and 10 × 10 (15).
pub const SIZES: [usize; 2] = [8, 10];

/// The corner of White's yard (Black's is the opposite one): the club's
/// start diagram could not be read, so it is a parameter; the two are
/// mirror images and only the notation changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Corner {
    /// White's yard around a1 (the default), Black's around the far corner.
    A1,
    /// White's yard around the last file of rank 1 (h1 on 8 × 8, j1 on
    /// 10 × 10).
    LastFile,
}

/// The eight king-move directions (dx, dy); direction `i + 4` (mod 8) is
/// the opposite of direction `i`.
pub const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// The board's geometry and tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    size: usize,
    corner: Corner,
    cells: Cells,
    /// White's yard, then Black's.
    yards: [Cells; 2],
    /// Per direction: the bit shift of a step, and the cells a step in
    /// that direction stays on the board from.
    steps: [(i32, Cells); 8],
    /// Each cell's neighbours (king moves).
    around: Vec<Cells>,
    /// The cell each cell goes to under the reflection that maps the yards
    /// onto themselves.
    reflection: Vec<u8>,
    /// Per player: each cell's files plus ranks to its goal corner.
    to_goal: [Vec<u8>; 2],
}

impl Board {
    /// The board of `size` (8 or 10) with White's yard at `corner`.
    ///
    /// # Panics
    ///
    /// Panics if `size` is not 8 or 10 (`Halma::with_parameters` checks).
    pub fn new(size: usize, corner: Corner) -> Board {
        assert!(SIZES.contains(&size), "Halma is played on 8 × 8 or 10 × 10");
        let n = size as i32;
        let depth = yard_depth(size) as i32;
        let mut cells = 0;
        let mut yards = [0; 2];
        let mut steps = [(0, 0); 8];
        let mut reflection = vec![0; size * size];
        for y in 0..n {
            for x in 0..n {
                let cell = (x + n * y) as usize;
                cells |= 1 << cell;
                // Distance from White's corner along the anti-diagonals.
                let from_corner = match corner {
                    Corner::A1 => x + y,
                    Corner::LastFile => (n - 1 - x) + y,
                };
                if from_corner <= depth {
                    yards[0] |= 1 << cell;
                }
                if from_corner >= 2 * (n - 1) - depth {
                    yards[1] |= 1 << cell;
                }
                let (rx, ry) = match corner {
                    Corner::A1 => (y, x),
                    Corner::LastFile => (n - 1 - y, n - 1 - x),
                };
                reflection[cell] = (rx + n * ry) as u8;
                for (index, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
                    if (0..n).contains(&(x + dx)) && (0..n).contains(&(y + dy)) {
                        steps[index].1 |= 1 << cell;
                    }
                    steps[index].0 = dx + n * dy;
                }
            }
        }
        let mut board = Board {
            size,
            corner,
            cells,
            yards,
            steps,
            around: Vec::new(),
            reflection,
            to_goal: [Vec::new(), Vec::new()],
        };
        board.around = (0..size * size)
            .map(|cell| board.neighbours(1 << cell))
            .collect();
        board.to_goal = [Player::First, Player::Second].map(|player| {
            let goal = board.goal_corner(player);
            (0..size * size)
                .map(|cell| board.manhattan(cell, goal) as u8)
                .collect()
        });
        board
    }

    /// Each cell's files plus ranks to `player`'s goal corner.
    pub fn to_goal(&self, player: Player) -> &[u8] {
        &self.to_goal[player.index()]
    }

    /// `player`'s race: the files plus ranks of `pieces` to its goal
    /// corner, summed.
    pub fn race(&self, player: Player, pieces: Cells) -> u32 {
        let to_goal = self.to_goal(player);
        cells_of(pieces).map(|cell| u32::from(to_goal[cell])).sum()
    }

    /// Cells per side.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Number of cells.
    pub fn cell_count(&self) -> usize {
        self.size * self.size
    }

    /// White's yard corner.
    pub fn corner(&self) -> Corner {
        self.corner
    }

    /// Every cell.
    pub fn cells(&self) -> Cells {
        self.cells
    }

    /// `player`'s own yard, where its pieces start.
    pub fn yard(&self, player: Player) -> Cells {
        self.yards[player.index()]
    }

    /// Pieces a side: the cells of a yard.
    pub fn pieces_per_side(&self) -> u32 {
        self.yards[0].count_ones()
    }

    /// `cells` moved one step in direction `index` of [`DIRECTIONS`] (cells
    /// that would leave the board are dropped).
    #[inline]
    pub fn step(&self, cells: Cells, index: usize) -> Cells {
        let (shift, stays) = self.steps[index];
        let cells = cells & stays;
        if shift >= 0 {
            cells << shift
        } else {
            cells >> -shift
        }
    }

    /// The cells a step in direction `index` stays on the board from.
    #[inline]
    pub fn stays(&self, index: usize) -> Cells {
        self.steps[index].1
    }

    /// The cells next to any of `cells` (king moves), on the board.
    pub fn neighbours(&self, cells: Cells) -> Cells {
        (0..DIRECTIONS.len()).fold(0, |all, index| all | self.step(cells, index))
    }

    /// The cells next to `cell`.
    #[inline]
    pub fn around(&self, cell: usize) -> Cells {
        self.around[cell]
    }

    /// The image of `cell` under the reflection that maps each yard onto
    /// itself (the diagonal through the yards' corners).
    pub fn reflect(&self, cell: usize) -> usize {
        usize::from(self.reflection[cell])
    }

    /// The image of a set of cells under the reflection.
    pub fn reflect_cells(&self, cells: Cells) -> Cells {
        cells_of(cells).fold(0, |image, cell| image | 1 << self.reflect(cell))
    }

    /// The cell (x, y).
    pub fn cell_at(&self, x: usize, y: usize) -> usize {
        x + self.size * y
    }

    /// File and rank of `cell`, from 0.
    pub fn coordinates(&self, cell: usize) -> (usize, usize) {
        (cell % self.size, cell / self.size)
    }

    /// The name of `cell`: its file letter, then its rank from 1 (`e3`).
    pub fn cell_name(&self, cell: usize) -> String {
        let (x, y) = self.coordinates(cell);
        grid_cell_name(x, y)
    }

    /// The cell a name stands for, if it is on the board.
    pub fn parse_cell(&self, text: &str) -> Option<usize> {
        let (x, y) = parse_grid_cell(text)?;
        (x < self.size && y < self.size).then(|| self.cell_at(x, y))
    }

    /// The last file's letter (`h` or `j`).
    pub fn last_file(&self) -> char {
        char::from(b'a' + self.size as u8 - 1)
    }

    /// The cell of `player`'s target yard farthest from its own: the corner
    /// its pieces head for.
    pub fn goal_corner(&self, player: Player) -> usize {
        let n = self.size - 1;
        let white_corner = match self.corner {
            Corner::A1 => self.cell_at(0, 0),
            Corner::LastFile => self.cell_at(n, 0),
        };
        let black_corner = match self.corner {
            Corner::A1 => self.cell_at(n, n),
            Corner::LastFile => self.cell_at(0, n),
        };
        match player {
            Player::First => black_corner,
            Player::Second => white_corner,
        }
    }

    /// King-move (Chebyshev) distance between two cells: the fewest steps.
    pub fn distance(&self, a: usize, b: usize) -> usize {
        let (ax, ay) = self.coordinates(a);
        let (bx, by) = self.coordinates(b);
        ax.abs_diff(bx).max(ay.abs_diff(by))
    }

    /// Files plus ranks between two cells (Manhattan distance): unlike the
    /// king-move distance it counts a move along a ring around the corner
    /// as no progress and a move into the corner's depth as some.
    pub fn manhattan(&self, a: usize, b: usize) -> usize {
        let (ax, ay) = self.coordinates(a);
        let (bx, by) = self.coordinates(b);
        ax.abs_diff(bx) + ay.abs_diff(by)
    }
}

/// How deep a yard reaches from its corner: x + y ≤ 3 on 8 × 8 (10 cells),
/// ≤ 4 on 10 × 10 (15 cells).
pub fn yard_depth(size: usize) -> usize {
    if size == 8 { 3 } else { 4 }
}

/// The cells of a set, in increasing order.
pub fn cells_of(cells: Cells) -> impl Iterator<Item = usize> {
    let mut rest = cells;
    std::iter::from_fn(move || {
        if rest == 0 {
            return None;
        }
        let cell = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        Some(cell)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(board: &Board, cells: Cells) -> Vec<String> {
        cells_of(cells).map(|c| board.cell_name(c)).collect()
    }

    #[test]
    fn yards_are_the_corner_staircases_of_the_rules() {
        let board = Board::new(8, Corner::A1);
        let mut white = names(&board, board.yard(Player::First));
        white.sort();
        assert_eq!(
            white,
            ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "c1", "c2", "d1"]
        );
        let mut black = names(&board, board.yard(Player::Second));
        black.sort();
        assert_eq!(
            black,
            ["e8", "f7", "f8", "g6", "g7", "g8", "h5", "h6", "h7", "h8"]
        );
        let board = Board::new(10, Corner::A1);
        assert_eq!(board.pieces_per_side(), 15);
        assert_eq!(board.yard(Player::Second).count_ones(), 15);
        let board = Board::new(8, Corner::LastFile);
        assert!(names(&board, board.yard(Player::First)).contains(&"h1".to_string()));
        assert!(names(&board, board.yard(Player::Second)).contains(&"a8".to_string()));
    }

    #[test]
    fn steps_stay_on_the_board() {
        for size in SIZES {
            let board = Board::new(size, Corner::A1);
            // A corner has three neighbours, an edge cell five, others eight.
            assert_eq!(board.neighbours(1).count_ones(), 3);
            assert_eq!(board.neighbours(1 << board.cell_at(3, 0)).count_ones(), 5);
            assert_eq!(board.neighbours(1 << board.cell_at(3, 4)).count_ones(), 8);
            assert_eq!(board.neighbours(board.cells()), board.cells());
        }
    }

    #[test]
    fn the_reflection_maps_each_yard_onto_itself_and_undoes_itself() {
        for size in SIZES {
            for corner in [Corner::A1, Corner::LastFile] {
                let board = Board::new(size, corner);
                for player in [Player::First, Player::Second] {
                    assert_eq!(board.reflect_cells(board.yard(player)), board.yard(player));
                }
                for cell in 0..board.cell_count() {
                    assert_eq!(board.reflect(board.reflect(cell)), cell);
                }
                assert_ne!(board.reflect(board.cell_at(1, 0)), board.cell_at(1, 0));
            }
        }
    }

    #[test]
    fn cell_names_round_trip() {
        let board = Board::new(10, Corner::A1);
        for cell in 0..100 {
            assert_eq!(board.parse_cell(&board.cell_name(cell)), Some(cell));
        }
        assert_eq!(board.cell_name(99), "j10");
        for bad in ["k1", "a11", "a0", "a01", "A1", "", "a", "1a"] {
            assert_eq!(board.parse_cell(bad), None, "{bad}");
        }
    }
}
