//! The 15 × 15 grid of Bulltricker and its names.
//!
//! Grid cell `g = 15 · r + c` (row `r` from the top, Black's side, column
//! `c` from the left as White sees it). Its kind follows the parities: a
//! junction (*butée*) where both are even, a horizontal rectangle where the
//! row is even and the column odd, a vertical rectangle where the row is
//! odd and the column even, a royal square where both are odd. A rectangle
//! is exactly an odd `g`, so the 112 rectangles are the bits `g / 2` of a
//! `u128` ([`Rects`]); royal squares hold only the Kings, which are kept
//! as grid cells.
//!
//! Names (engine rule, after the seed's H and V lines): an even row is the
//! H line `H1` (row 0, Black's back line) to `H8` (row 14, White's); an odd
//! row is the allée `A1` (row 13, White's side) to `A7` (row 1); an even
//! column is the V line `V1` (column 0) to `V8`; an odd column is `C1` to
//! `C7`. A cell is its row then its column: `A1V1`, `H7C1`, `A1C4`.

use std::cmp::Ordering;

/// Rows and columns of the grid.
pub const SIZE: usize = 15;
/// Cells of the grid, junctions included.
pub const GRID: usize = SIZE * SIZE;
/// Rectangles (horizontal and vertical).
pub const RECTS: usize = GRID / 2;

/// A set of rectangles: bit `g / 2` for the rectangle at grid cell `g`.
pub type Rects = u128;

/// What stands at a grid cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A junction: never occupied, never in the way.
    Junction,
    /// A rectangle lying along its row (on an H line).
    Horizontal,
    /// A rectangle lying along its column (on a V line).
    Vertical,
    /// A square for the Kings.
    Royal,
}

/// The kind of grid cell `g`.
pub fn kind(g: usize) -> Kind {
    match (g / SIZE % 2, g % SIZE % 2) {
        (0, 0) => Kind::Junction,
        (0, _) => Kind::Horizontal,
        (_, 0) => Kind::Vertical,
        _ => Kind::Royal,
    }
}

/// Whether grid cell `g` is a rectangle.
pub fn is_rect(g: usize) -> bool {
    g % 2 == 1
}

/// The bit of the rectangle at grid cell `g` (which must be one).
pub fn bit(g: usize) -> Rects {
    debug_assert!(is_rect(g));
    1 << (g / 2)
}

/// The grid cells of the rectangles in `rects`, in increasing order.
pub fn rect_cells(mut rects: Rects) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (rects != 0).then(|| {
            let index = rects.trailing_zeros() as usize;
            rects &= rects - 1;
            2 * index + 1
        })
    })
}

/// The grid cell at row `r`, column `c`, if both are on the grid.
pub fn at(r: i32, c: i32) -> Option<usize> {
    let size = SIZE as i32;
    ((0..size).contains(&r) && (0..size).contains(&c)).then(|| (r * size + c) as usize)
}

/// Row and column of grid cell `g`.
pub fn row_col(g: usize) -> (i32, i32) {
    ((g / SIZE) as i32, (g % SIZE) as i32)
}

/// The four directions of a line, as row and column steps: up, down,
/// left, right.
pub const DIRECTIONS: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

/// The rectangles strictly beyond each grid cell in each of the
/// [`DIRECTIONS`], to the grid's edge.
static RAYS: [[Rects; 4]; GRID] = {
    let mut rays = [[0; 4]; GRID];
    let mut g = 0;
    while g < GRID {
        let mut d = 0;
        while d < 4 {
            let (dr, dc) = DIRECTIONS[d];
            let (mut r, mut c) = ((g / SIZE) as i32 + dr, (g % SIZE) as i32 + dc);
            while r >= 0 && r < SIZE as i32 && c >= 0 && c < SIZE as i32 {
                let cell = (r * SIZE as i32 + c) as usize;
                if cell % 2 == 1 {
                    rays[g][d] |= 1 << (cell / 2);
                }
                r += dr;
                c += dc;
            }
            d += 1;
        }
        g += 1;
    }
    rays
};

/// The rectangles strictly between grid cells `from` and `to` when they
/// share a row or a column; none otherwise.
pub fn between(from: usize, to: usize) -> Rects {
    let ((r0, c0), (r1, c1)) = (row_col(from), row_col(to));
    let direction = match (r1.cmp(&r0), c1.cmp(&c0)) {
        (Ordering::Less, Ordering::Equal) => 0,
        (Ordering::Greater, Ordering::Equal) => 1,
        (Ordering::Equal, Ordering::Less) => 2,
        (Ordering::Equal, Ordering::Greater) => 3,
        _ => return 0,
    };
    // Beyond `from` up to `to`, `to` included where it is a rectangle.
    let through = RAYS[from][direction] & !RAYS[to][direction];
    if is_rect(to) {
        through & !bit(to)
    } else {
        through
    }
}

/// Grid cell `g` seen in the mirror that swaps left and right (the rules'
/// one symmetry).
pub fn mirror(g: usize) -> usize {
    let (r, c) = row_col(g);
    (r as usize) * SIZE + (SIZE - 1 - c as usize)
}

/// The name of grid cell `g` (`A1V1`).
pub fn cell_name(g: usize) -> String {
    let (r, c) = row_col(g);
    let row = if r % 2 == 0 {
        format!("H{}", r / 2 + 1)
    } else {
        format!("A{}", (15 - r) / 2)
    };
    let column = if c % 2 == 0 {
        format!("V{}", c / 2 + 1)
    } else {
        format!("C{}", (c + 1) / 2)
    };
    row + &column
}

/// The grid cell a name stands for, in any case (`a1v1`), junctions
/// included; `None` if it names no cell.
pub fn parse_cell(text: &str) -> Option<usize> {
    let upper = text.to_ascii_uppercase();
    let bytes = upper.as_bytes();
    let split = bytes.iter().skip(1).position(|b| b.is_ascii_alphabetic())? + 1;
    let number = |part: &[u8]| -> Option<i32> {
        let digits = std::str::from_utf8(part.get(1..)?).ok()?;
        (digits.len() == 1).then_some(())?;
        digits.parse().ok()
    };
    let (row_part, column_part) = bytes.split_at(split);
    let (row_number, column_number) = (number(row_part)?, number(column_part)?);
    let r = match row_part[0] {
        b'H' if (1..=8).contains(&row_number) => 2 * (row_number - 1),
        b'A' if (1..=7).contains(&row_number) => 15 - 2 * row_number,
        _ => return None,
    };
    let c = match column_part[0] {
        b'V' if (1..=8).contains(&column_number) => 2 * (column_number - 1),
        b'C' if (1..=7).contains(&column_number) => 2 * column_number - 1,
        _ => return None,
    };
    at(r, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_has_a_name_that_reads_back() {
        let mut counts = [0; 4];
        for g in 0..GRID {
            assert_eq!(parse_cell(&cell_name(g)), Some(g));
            assert_eq!(parse_cell(&cell_name(g).to_lowercase()), Some(g));
            assert_eq!(
                is_rect(g),
                matches!(kind(g), Kind::Horizontal | Kind::Vertical)
            );
            counts[kind(g) as usize] += 1;
            assert_eq!(mirror(mirror(g)), g);
            assert_eq!(kind(mirror(g)), kind(g));
        }
        // 64 junctions, 56 + 56 rectangles, 49 royal squares.
        assert_eq!(counts, [64, 56, 56, 49]);
        assert_eq!(cell_name(13 * SIZE), "A1V1");
        assert_eq!(cell_name(12 * SIZE + 1), "H7C1");
        assert_eq!(cell_name(13 * SIZE + 7), "A1C4");
        for bad in [
            "", "A1", "A8V1", "H9V1", "H0V1", "A1V9", "A1C8", "B1V1", "A1V10", "A1V1x",
        ] {
            assert_eq!(parse_cell(bad), None, "{bad}");
        }
    }

    #[test]
    fn between_holds_the_rectangles_a_walk_along_the_line_crosses() {
        for from in 0..GRID {
            for to in 0..GRID {
                let ((r0, c0), (r1, c1)) = (row_col(from), row_col(to));
                let mut walked: Rects = 0;
                if (r0 == r1) != (c0 == c1) {
                    let (dr, dc) = ((r1 - r0).signum(), (c1 - c0).signum());
                    let (mut r, mut c) = (r0 + dr, c0 + dc);
                    while (r, c) != (r1, c1) {
                        let g = at(r, c).expect("on the grid");
                        if is_rect(g) {
                            walked |= bit(g);
                        }
                        r += dr;
                        c += dc;
                    }
                }
                assert_eq!(between(from, to), walked, "{from} to {to}");
            }
        }
        // A1V1 to A1V4 crosses the vertical rectangles A1V2 and A1V3 (and
        // the royal squares between, which are no rectangles).
        let (from, to) = (parse_cell("A1V1").unwrap(), parse_cell("A1V4").unwrap());
        let crossed: Vec<String> = rect_cells(between(from, to)).map(cell_name).collect();
        assert_eq!(crossed, ["A1V2", "A1V3"]);
    }

    #[test]
    fn the_bits_of_the_rectangles_cover_a_u128_once() {
        let all: Rects = (0..GRID).filter(|&g| is_rect(g)).map(bit).sum();
        assert_eq!(all.count_ones() as usize, RECTS);
        assert_eq!(rect_cells(all).count(), RECTS);
        assert!(rect_cells(all).all(is_rect));
    }
}
