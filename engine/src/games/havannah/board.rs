//! The hexagonal board of base `n`: its cells in OpenSpiel's coordinates, the
//! tables that map action ids to bits, neighbours, corners, edges and the 12
//! symmetries of the hexagon.
//!
//! A cell `(x, y)` of the `(2n − 1)²` grid is on the board iff
//! `|x − y| < n`. Its action id is `x + y × (2n − 1)` (OpenSpiel's), its bit
//! `x + y × 2n` (see [`super::bitboard`]), its name the letter `a + x` then
//! `y + 1` (`h8` is the centre of base 8).

use super::bitboard::{BITS, Bitboard};
use crate::game::{grid_cell_name, parse_grid_cell};

/// Smallest supported base.
pub const MIN_BASE: usize = 2;
/// Largest supported base (the grid must fit in a [`Bitboard`]).
pub const MAX_BASE: usize = 10;
/// Number of symmetries of the hexagon: 6 rotations, 6 reflections.
pub const SYMMETRY_COUNT: usize = 12;

/// Marks "no cell" in the tables.
const NO_CELL: u16 = u16::MAX;

/// Steps to the six neighbours `(dx, dy)`, clockwise from `(−1, −1)` as in
/// OpenSpiel: consecutive directions point at neighbours of each other.
pub const DIRECTIONS: [(i32, i32); 6] = [(-1, -1), (0, -1), (1, 0), (1, 1), (0, 1), (-1, 0)];

/// The board of one base, with its precomputed tables.
#[derive(Clone, Debug)]
pub struct Board {
    base: usize,
    diameter: usize,
    width: usize,
    cell_count: usize,
    cells: Bitboard,
    boundary: Bitboard,
    corners: Bitboard,
    edges: [Bitboard; 6],
    /// By action id: the cell's bit, or [`NO_CELL`] off the hexagon.
    bit_of_action: Vec<u16>,
    /// By bit: the cell's action id, or [`NO_CELL`] off the hexagon.
    action_of_bit: [u16; BITS],
    /// By bit: the bits of the six neighbours in [`DIRECTIONS`] order; a
    /// neighbour off the board is the spare bit of row 0, never set.
    neighbours: Vec<[u16; 6]>,
    /// By symmetry, then action id: the image's action id (off-hexagon ids
    /// map to themselves).
    symmetric_actions: Vec<Vec<u16>>,
    /// By symmetry, then bit: the image's bit (for bits of cells).
    symmetric_bits: Vec<Vec<u16>>,
}

impl Board {
    /// The board of base `base`, in `MIN_BASE..=MAX_BASE`.
    ///
    /// # Panics
    ///
    /// Panics if `base` is out of range.
    pub fn new(base: usize) -> Board {
        assert!(
            (MIN_BASE..=MAX_BASE).contains(&base),
            "base {base} is not in {MIN_BASE}..={MAX_BASE}"
        );
        let diameter = 2 * base - 1;
        let width = diameter + 1;
        debug_assert!(diameter * width <= BITS);
        let last = base as i32 - 1;
        let end = 2 * last;
        let on_board = |x: i32, y: i32| {
            (0..diameter as i32).contains(&x)
                && (0..diameter as i32).contains(&y)
                && (x - y).abs() <= last
        };
        let bit = |x: i32, y: i32| y as usize * width + x as usize;

        let mut bit_of_action = vec![NO_CELL; diameter * diameter];
        let mut action_of_bit = [NO_CELL; BITS];
        let mut neighbours = vec![[diameter as u16; 6]; BITS];
        let mut cells = Bitboard::EMPTY;
        let mut corners = Bitboard::EMPTY;
        let mut edges = [Bitboard::EMPTY; 6];
        for y in 0..diameter as i32 {
            for x in 0..diameter as i32 {
                if !on_board(x, y) {
                    continue;
                }
                let action = x as usize + y as usize * diameter;
                bit_of_action[action] = bit(x, y) as u16;
                action_of_bit[bit(x, y)] = action as u16;
                cells.insert(bit(x, y));
                for (slot, (dx, dy)) in DIRECTIONS.into_iter().enumerate() {
                    if on_board(x + dx, y + dy) {
                        neighbours[bit(x, y)][slot] = bit(x + dx, y + dy) as u16;
                    }
                }
                let corner = [
                    (0, 0),
                    (last, 0),
                    (end, last),
                    (end, end),
                    (last, end),
                    (0, last),
                ]
                .contains(&(x, y));
                if corner {
                    corners.insert(bit(x, y));
                    continue;
                }
                let edge = [
                    y == 0,
                    x - y == last,
                    x == end,
                    y == end,
                    y - x == last,
                    x == 0,
                ]
                .iter()
                .position(|&on_edge| on_edge);
                if let Some(edge) = edge {
                    edges[edge].insert(bit(x, y));
                }
            }
        }
        let boundary = edges.iter().fold(corners, |all, &edge| all | edge);

        let mut symmetric_actions = Vec::with_capacity(SYMMETRY_COUNT);
        let mut symmetric_bits = Vec::with_capacity(SYMMETRY_COUNT);
        for symmetry in 0..SYMMETRY_COUNT {
            let mut actions: Vec<u16> = (0..(diameter * diameter) as u16).collect();
            let mut bits = vec![NO_CELL; BITS];
            for y in 0..diameter as i32 {
                for x in 0..diameter as i32 {
                    if !on_board(x, y) {
                        continue;
                    }
                    let (a, b) = symmetric_point(x - last, y - last, symmetry);
                    let (to_x, to_y) = (a + last, b + last);
                    debug_assert!(on_board(to_x, to_y));
                    actions[x as usize + y as usize * diameter] =
                        (to_x as usize + to_y as usize * diameter) as u16;
                    bits[bit(x, y)] = bit(to_x, to_y) as u16;
                }
            }
            symmetric_actions.push(actions);
            symmetric_bits.push(bits);
        }

        Board {
            base,
            diameter,
            width,
            cell_count: cells.count() as usize,
            cells,
            boundary,
            corners,
            edges,
            bit_of_action,
            action_of_bit,
            neighbours,
            symmetric_actions,
            symmetric_bits,
        }
    }

    /// Cells per side.
    pub fn base(&self) -> usize {
        self.base
    }

    /// Width and height of the grid the hexagon sits in: `2n − 1`.
    pub fn diameter(&self) -> usize {
        self.diameter
    }

    /// Number of cells on the hexagon: `3n² − 3n + 1`.
    pub fn cell_count(&self) -> usize {
        self.cell_count
    }

    /// Number of action ids: the whole grid, `(2n − 1)²`.
    pub fn action_count(&self) -> usize {
        self.diameter * self.diameter
    }

    /// The cells of the hexagon.
    #[inline]
    pub fn cells(&self) -> Bitboard {
        self.cells
    }

    /// Cells with fewer than six neighbours: corners and edges.
    #[inline]
    pub fn boundary(&self) -> Bitboard {
        self.boundary
    }

    /// The six corner cells.
    #[inline]
    pub fn corners(&self) -> Bitboard {
        self.corners
    }

    /// The six edges, corners excluded, in OpenSpiel's order: `y = 0`,
    /// `x − y = n − 1`, `x = 2n − 2`, `y = 2n − 2`, `y − x = n − 1`, `x = 0`.
    #[inline]
    pub fn edges(&self) -> &[Bitboard; 6] {
        &self.edges
    }

    /// The bit of action id `action`, if it is a cell of the hexagon.
    #[inline]
    pub fn bit_of_action(&self, action: usize) -> Option<usize> {
        match self.bit_of_action.get(action) {
            Some(&bit) if bit != NO_CELL => Some(usize::from(bit)),
            _ => None,
        }
    }

    /// The action id of the cell at `bit`.
    #[inline]
    pub fn action_of_bit(&self, bit: usize) -> usize {
        debug_assert!(self.cells.contains(bit));
        usize::from(self.action_of_bit[bit])
    }

    /// The bit of the cell `(x, y)`, if it is on the hexagon.
    pub fn bit_at(&self, x: usize, y: usize) -> Option<usize> {
        if x < self.diameter && y < self.diameter {
            self.bit_of_action(x + y * self.diameter)
        } else {
            None
        }
    }

    /// The bits of the six neighbours of `bit` (a neighbour off the board is
    /// a bit that is never set).
    #[inline]
    pub fn neighbours(&self, bit: usize) -> &[u16; 6] {
        &self.neighbours[bit]
    }

    /// `(x, y)` of action id `action`.
    pub fn coordinates(&self, action: usize) -> (usize, usize) {
        (action % self.diameter, action / self.diameter)
    }

    /// The name of action id `action`: `a1`, `h8`, …
    pub fn cell_name(&self, action: usize) -> String {
        let (x, y) = self.coordinates(action);
        grid_cell_name(x, y)
    }

    /// The action id of a cell name, if it names a cell of the hexagon.
    pub fn parse_cell(&self, name: &str) -> Option<usize> {
        let (x, y) = parse_grid_cell(name)?;
        let bit = self.bit_at(x, y)?;
        Some(self.action_of_bit(bit))
    }

    /// The image of action id `action` under `symmetry` (ids off the hexagon
    /// map to themselves).
    #[inline]
    pub fn symmetric_action(&self, action: usize, symmetry: usize) -> usize {
        usize::from(self.symmetric_actions[symmetry][action])
    }

    /// The image of a set of cells under `symmetry`.
    pub fn symmetric_cells(&self, cells: Bitboard, symmetry: usize) -> Bitboard {
        let map = &self.symmetric_bits[symmetry];
        let mut image = Bitboard::EMPTY;
        for bit in cells.iter() {
            image.insert(usize::from(map[bit]));
        }
        image
    }

    /// `cells` and all their neighbours (off-hexagon bits included; mask the
    /// result).
    #[inline]
    pub fn dilate(&self, cells: Bitboard) -> Bitboard {
        let width = self.width as u32;
        let right = cells.shifted_up(1);
        let left = cells.shifted_down(1);
        // (x, y + 1) and (x + 1, y + 1); (x, y − 1) and (x − 1, y − 1).
        let below = (cells | right).shifted_up(width);
        let above = (cells | left).shifted_down(width);
        cells | right | left | below | above
    }

    /// The cells of `allowed` connected to `seeds` through `allowed`
    /// (`seeds` must lie in `allowed`).
    #[inline]
    pub fn flood(&self, seeds: Bitboard, allowed: Bitboard) -> Bitboard {
        let mut region = seeds;
        loop {
            let grown = self.dilate(region) & allowed;
            if grown.same_as(region) {
                return region;
            }
            region = grown;
        }
    }
}

/// The image of the point `(a, b)` (relative to the centre) under
/// `symmetry`: rotations by `symmetry × 60°` for `0..6`, the reflection
/// `(a, b) → (b, a)` followed by a rotation by `(symmetry − 6) × 60°` for
/// `6..12`.
fn symmetric_point(a: i32, b: i32, symmetry: usize) -> (i32, i32) {
    let (mut a, mut b) = if symmetry >= 6 { (b, a) } else { (a, b) };
    for _ in 0..symmetry % 6 {
        // A 60° turn: (1, 0) → (1, 1) → (0, 1) → (−1, 0) → …
        (a, b) = (a - b, a);
    }
    (a, b)
}

/// The symmetry that undoes `symmetry`: the opposite rotation, or the same
/// reflection.
pub fn inverse_symmetry(symmetry: usize) -> usize {
    if symmetry < 6 {
        (6 - symmetry) % 6
    } else {
        symmetry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_eight_has_169_cells_with_six_corners_and_six_edges_of_six() {
        let board = Board::new(8);
        assert_eq!(board.cell_count(), 169);
        assert_eq!(board.action_count(), 225);
        assert_eq!(board.corners().count(), 6);
        for edge in board.edges() {
            assert_eq!(edge.count(), 6);
        }
        assert_eq!(board.boundary().count(), 42);
        assert_eq!(board.parse_cell("h8"), Some(7 + 7 * 15));
        assert_eq!(board.parse_cell("a9"), None);
        assert_eq!(
            board.parse_cell("o15").map(|a| board.cell_name(a)),
            Some("o15".into())
        );
    }

    #[test]
    fn boundary_cells_are_those_with_fewer_than_six_neighbours() {
        for base in MIN_BASE..=MAX_BASE {
            let board = Board::new(base);
            assert_eq!(board.cell_count(), 3 * base * base - 3 * base + 1);
            for bit in board.cells().iter() {
                let inside = board
                    .neighbours(bit)
                    .iter()
                    .filter(|&&n| board.cells().contains(usize::from(n)))
                    .count();
                assert_eq!(
                    inside < 6,
                    board.boundary().contains(bit),
                    "base {base} bit {bit}"
                );
                let dilated = board.dilate(Bitboard::single(bit)) & board.cells();
                assert_eq!(dilated.count() as usize, inside + 1);
            }
        }
    }

    #[test]
    fn symmetries_keep_neighbours_corners_and_edges() {
        let board = Board::new(5);
        for symmetry in 0..SYMMETRY_COUNT {
            assert_eq!(
                board.symmetric_cells(board.cells(), symmetry),
                board.cells()
            );
            assert_eq!(
                board.symmetric_cells(board.corners(), symmetry),
                board.corners()
            );
            let mut edges: Vec<Bitboard> = board
                .edges()
                .iter()
                .map(|&e| board.symmetric_cells(e, symmetry))
                .collect();
            edges.sort_by_key(|e| e.first());
            let mut expected = board.edges().to_vec();
            expected.sort_by_key(|e| e.first());
            assert_eq!(edges, expected);
            let inverse = inverse_symmetry(symmetry);
            for bit in board.cells().iter() {
                let image = board.symmetric_cells(Bitboard::single(bit), symmetry);
                assert_eq!(board.symmetric_cells(image, inverse), Bitboard::single(bit));
                let around = board.dilate(Bitboard::single(bit)) & board.cells();
                assert_eq!(
                    board.symmetric_cells(around, symmetry),
                    board.dilate(image) & board.cells()
                );
            }
        }
        // The twelve are distinct.
        let corner = board.parse_cell("b1").expect("cell");
        let images: std::collections::BTreeSet<usize> = (0..SYMMETRY_COUNT)
            .map(|s| board.symmetric_action(corner, s))
            .collect();
        assert_eq!(images.len(), 12);
    }
}
