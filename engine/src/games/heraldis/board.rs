//! The 5×5 board as 25-bit bitboards.
//!
//! Cell `a1` is bit 0, `b1` bit 1, …, `e1` bit 4, `a2` bit 5, …, `e5` bit 24:
//! `index = 5 × (rank − 1) + file`.

/// Board width and height.
pub const SIZE: usize = 5;
/// Number of cells.
pub const CELLS: usize = SIZE * SIZE;
/// All 25 cells.
pub const FULL: u32 = (1 << CELLS) - 1;

/// A set of cells, one bit per cell.
pub type Bitboard = u32;

/// Bit of a cell.
pub const fn bit(cell: usize) -> Bitboard {
    1 << cell
}

/// Cell index of a file (0 = `a`) and a rank (0 = `1`).
pub const fn cell_at(file: usize, rank: usize) -> usize {
    rank * SIZE + file
}

/// File (0 = `a`) of a cell.
pub const fn file_of(cell: usize) -> usize {
    cell % SIZE
}

/// Rank (0 = `1`) of a cell.
pub const fn rank_of(cell: usize) -> usize {
    cell / SIZE
}

/// Name of a cell: `a1` … `e5`.
pub fn cell_name(cell: usize) -> String {
    let file = char::from(b'a' + file_of(cell) as u8);
    let rank = char::from(b'1' + rank_of(cell) as u8);
    format!("{file}{rank}")
}

/// Reads a cell name (`a1` … `e5`).
pub fn parse_cell(text: &str) -> Option<usize> {
    match text.as_bytes() {
        &[file @ b'a'..=b'e', rank @ b'1'..=b'5'] => {
            Some(cell_at(usize::from(file - b'a'), usize::from(rank - b'1')))
        }
        _ => None,
    }
}

/// Mask of the cells whose file is at most `max_file` and rank at most
/// `max_rank`, and at least `min_file`.
const fn region(min_file: usize, max_file: usize, max_rank: usize) -> Bitboard {
    let mut mask = 0;
    let mut cell = 0;
    while cell < CELLS {
        let (file, rank) = (file_of(cell), rank_of(cell));
        if file >= min_file && file <= max_file && rank <= max_rank {
            mask |= bit(cell);
        }
        cell += 1;
    }
    mask
}

/// Starting cells of horizontal lines (files a–b).
const HORIZONTAL_STARTS: Bitboard = region(0, 1, 4);
/// Starting cells of vertical lines (ranks 1–2).
const VERTICAL_STARTS: Bitboard = region(0, 4, 1);
/// Starting cells of up-right diagonals (a1, b1, a2, b2).
const DIAGONAL_STARTS: Bitboard = region(0, 1, 1);
/// Starting cells of up-left diagonals (d1, e1, d2, e2).
const ANTI_DIAGONAL_STARTS: Bitboard = region(3, 4, 1);

/// Whether `pieces` holds four cells in a row in any of the 28 lines.
#[inline]
pub fn has_four_in_row(pieces: Bitboard) -> bool {
    let horizontal = pieces & (pieces >> 1) & (pieces >> 2) & (pieces >> 3) & HORIZONTAL_STARTS;
    let vertical = pieces & (pieces >> 5) & (pieces >> 10) & (pieces >> 15) & VERTICAL_STARTS;
    let diagonal = pieces & (pieces >> 6) & (pieces >> 12) & (pieces >> 18) & DIAGONAL_STARTS;
    let anti_diagonal =
        pieces & (pieces >> 4) & (pieces >> 8) & (pieces >> 12) & ANTI_DIAGONAL_STARTS;
    (horizontal | vertical | diagonal | anti_diagonal) != 0
}

/// The cells that would give `pieces` four in a row if one more piece stood
/// there (whether or not they are free).
#[inline]
pub fn completing_cells(pieces: Bitboard) -> Bitboard {
    #[inline(always)]
    fn direction(pieces: Bitboard, step: u32, starts: Bitboard) -> Bitboard {
        let p0 = pieces & starts;
        let p1 = (pieces >> step) & starts;
        let p2 = (pieces >> (2 * step)) & starts;
        let p3 = (pieces >> (3 * step)) & starts;
        // For each window start, the window misses exactly the cell at
        // offset j and holds the other three.
        (p1 & p2 & p3)
            | ((p0 & p2 & p3) << step)
            | ((p0 & p1 & p3) << (2 * step))
            | ((p0 & p1 & p2) << (3 * step))
    }
    direction(pieces, 1, HORIZONTAL_STARTS)
        | direction(pieces, 5, VERTICAL_STARTS)
        | direction(pieces, 6, DIAGONAL_STARTS)
        | direction(pieces, 4, ANTI_DIAGONAL_STARTS)
}

/// The 28 four-cell lines, each as a bitboard.
pub fn lines() -> Vec<Bitboard> {
    let directions: [(Bitboard, usize); 4] = [
        (HORIZONTAL_STARTS, 1),
        (VERTICAL_STARTS, 5),
        (DIAGONAL_STARTS, 6),
        (ANTI_DIAGONAL_STARTS, 4),
    ];
    let mut result = Vec::with_capacity(28);
    for (starts, step) in directions {
        for start in 0..CELLS {
            if starts & bit(start) != 0 {
                result.push((0..4).map(|k| bit(start + k * step)).sum());
            }
        }
    }
    result
}

/// Number of symmetries of the square.
pub const SYMMETRY_COUNT: usize = 8;

/// Names of the 8 symmetries, by index.
pub const SYMMETRY_NAMES: [&str; SYMMETRY_COUNT] = [
    "identity",
    "rotate-90",
    "rotate-180",
    "rotate-270",
    "mirror-files",
    "mirror-ranks",
    "transpose",
    "anti-transpose",
];

/// Where `symmetry` sends the square (file, rank).
const fn map_square(symmetry: usize, file: usize, rank: usize) -> (usize, usize) {
    let last = SIZE - 1;
    match symmetry {
        0 => (file, rank),
        1 => (rank, last - file),
        2 => (last - file, last - rank),
        3 => (last - rank, file),
        4 => (last - file, rank),
        5 => (file, last - rank),
        6 => (rank, file),
        _ => (last - rank, last - file),
    }
}

/// `CELL_MAPS[s][c]`: the cell that symmetry `s` sends cell `c` to.
pub const CELL_MAPS: [[u8; CELLS]; SYMMETRY_COUNT] = {
    let mut maps = [[0u8; CELLS]; SYMMETRY_COUNT];
    let mut symmetry = 0;
    while symmetry < SYMMETRY_COUNT {
        let mut cell = 0;
        while cell < CELLS {
            let (file, rank) = map_square(symmetry, file_of(cell), rank_of(cell));
            maps[symmetry][cell] = cell_at(file, rank) as u8;
            cell += 1;
        }
        symmetry += 1;
    }
    maps
};

/// The symmetry that undoes `symmetry`.
pub fn inverse_symmetry(symmetry: usize) -> usize {
    (0..SYMMETRY_COUNT)
        .find(|&candidate| {
            (0..CELLS).all(|cell| {
                usize::from(CELL_MAPS[candidate][usize::from(CELL_MAPS[symmetry][cell])]) == cell
            })
        })
        .expect("the symmetries of the square form a group")
}

/// `bitboard` seen through `symmetry`.
pub fn transform_bitboard(bitboard: Bitboard, symmetry: usize) -> Bitboard {
    let map = &CELL_MAPS[symmetry];
    let mut result = 0;
    let mut rest = bitboard;
    while rest != 0 {
        let cell = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        result |= bit(usize::from(map[cell]));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_28_distinct_lines_of_four_cells() {
        let lines = lines();
        assert_eq!(lines.len(), 28);
        for (i, line) in lines.iter().enumerate() {
            assert_eq!(line.count_ones(), 4);
            assert!(has_four_in_row(*line));
            assert!(!lines[..i].contains(line));
        }
    }

    #[test]
    fn a_line_with_one_cell_missing_is_not_four_in_row() {
        for line in lines() {
            let mut rest = line;
            while rest != 0 {
                let cell = rest & rest.wrapping_neg();
                rest ^= cell;
                assert!(!has_four_in_row(line ^ cell));
            }
        }
    }

    #[test]
    fn cells_wrapping_around_the_edge_are_no_line() {
        // d1 e1 a2 b2 are consecutive bits but not a row on the board.
        let wrapped = ["d1", "e1", "a2", "b2"]
            .iter()
            .map(|name| bit(parse_cell(name).expect("cell")))
            .sum();
        assert!(!has_four_in_row(wrapped));
    }

    #[test]
    fn completing_cells_are_exactly_the_cells_that_make_a_line() {
        let mut state = 0x2545_F491u32;
        for _ in 0..2000 {
            // xorshift: varied sparse and dense boards.
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let pieces = state & (state >> 7) & FULL;
            let completing = completing_cells(pieces);
            for cell in 0..CELLS {
                let makes_line = has_four_in_row(pieces | bit(cell));
                let already = has_four_in_row(pieces & !bit(cell));
                if !already {
                    assert_eq!(
                        completing & bit(cell) != 0,
                        makes_line,
                        "{pieces:#x} {cell}"
                    );
                }
            }
        }
    }

    #[test]
    fn cell_names_round_trip() {
        for cell in 0..CELLS {
            assert_eq!(parse_cell(&cell_name(cell)), Some(cell));
        }
        assert_eq!(cell_name(0), "a1");
        assert_eq!(cell_name(24), "e5");
        for bad in ["", "a", "f1", "a6", "a0", "A1", "a10"] {
            assert_eq!(parse_cell(bad), None, "{bad}");
        }
    }

    #[test]
    fn each_symmetry_is_a_permutation_undone_by_its_inverse() {
        for symmetry in 0..SYMMETRY_COUNT {
            let mut seen = [false; CELLS];
            for cell in 0..CELLS {
                seen[usize::from(CELL_MAPS[symmetry][cell])] = true;
            }
            assert!(seen.iter().all(|&s| s));
            let inverse = inverse_symmetry(symmetry);
            for bitboard in [0, FULL, 0b1011, 0x12_3456] {
                assert_eq!(
                    transform_bitboard(transform_bitboard(bitboard, symmetry), inverse),
                    bitboard
                );
            }
        }
    }

    #[test]
    fn symmetries_send_lines_to_lines() {
        let lines = lines();
        for symmetry in 0..SYMMETRY_COUNT {
            for line in &lines {
                assert!(lines.contains(&transform_bitboard(*line, symmetry)));
            }
        }
    }
}
