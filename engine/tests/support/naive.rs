//! A deliberately naive Heraldis, written for the tests only: a 5×5 array of
//! cells, its own layout and position readers, lines found by walking the
//! board in four directions, moves as cells. It shares no code with the
//! engine, so that the two can check each other.
//!
//! Two counts of move sequences: [`NaiveGame::perft`] makes every move, and
//! [`NaiveGame::perft_by_positions`] goes level by level through the
//! distinct positions (the deep fixture counts are out of reach otherwise).

use std::collections::HashMap;

use rayon::prelude::*;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Piece {
    Light,
    Dark,
}

/// A cell as `(rank, file)`, both in `0..5`; rank 0 is rank 1.
pub type Cell = (usize, usize);

/// `board[rank][file]`, rank 0 is rank 1.
#[derive(Clone, Debug)]
pub struct NaiveState {
    pub board: [[Option<Piece>; 5]; 5],
    pub to_move: Piece,
    pub truce: Option<Cell>,
    pub ply: u32,
}

/// Each cell's symbols: one letter for a House, two for an Alliance.
pub struct NaiveGame {
    pub sites: [[Vec<char>; 5]; 5],
    pub ply_limit: u32,
    /// The 28 lines of four cells.
    lines: Vec<[Cell; 4]>,
}

impl NaiveGame {
    pub fn new(layout: &str) -> NaiveGame {
        let ranks: Vec<&str> = layout.split('/').collect();
        assert_eq!(ranks.len(), 5);
        let mut sites: [[Vec<char>; 5]; 5] = Default::default();
        for (row, text) in ranks.iter().enumerate() {
            let tokens: Vec<&str> = text.split_whitespace().collect();
            assert_eq!(tokens.len(), 5);
            for (file, token) in tokens.iter().enumerate() {
                sites[4 - row][file] = token.chars().collect();
            }
        }
        NaiveGame {
            sites,
            ply_limit: 150,
            lines: lines_of_four(),
        }
    }

    pub fn parse(&self, text: &str) -> NaiveState {
        let fields: Vec<&str> = text.split(' ').collect();
        let mut board = [[None; 5]; 5];
        for (row, rank_text) in fields[0].split('/').enumerate() {
            let mut file = 0;
            for c in rank_text.chars() {
                match c {
                    'L' => {
                        board[4 - row][file] = Some(Piece::Light);
                        file += 1;
                    }
                    'D' => {
                        board[4 - row][file] = Some(Piece::Dark);
                        file += 1;
                    }
                    digit => file += digit.to_digit(10).expect("digit") as usize,
                }
            }
        }
        let truce = if fields[2] == "-" {
            None
        } else {
            let b = fields[2].as_bytes();
            Some(((b[1] - b'1') as usize, (b[0] - b'a') as usize))
        };
        NaiveState {
            board,
            to_move: if fields[1] == "l" {
                Piece::Light
            } else {
                Piece::Dark
            },
            truce,
            ply: fields[3].parse().expect("ply"),
        }
    }

    fn four_in_row(&self, state: &NaiveState, piece: Piece) -> bool {
        self.lines.iter().any(|line| {
            line.iter()
                .all(|&(rank, file)| state.board[rank][file] == Some(piece))
        })
    }

    /// The winner of a finished game: the side that just moved, if it
    /// has four in a row (else a full board or the ply limit drew).
    pub fn winner(&self, state: &NaiveState) -> Option<Piece> {
        let last = other(state.to_move);
        self.four_in_row(state, last).then_some(last)
    }

    pub fn is_over(&self, state: &NaiveState) -> bool {
        let last = other(state.to_move);
        if self.four_in_row(state, last) {
            return true;
        }
        let full = state.board.iter().flatten().all(|c| c.is_some());
        full || state.ply >= self.ply_limit
    }

    /// Whether `piece` stands on a House of each symbol, by the symbol's
    /// letter (`'A'` first).
    fn houses_of(&self, state: &NaiveState, piece: Piece) -> [bool; 26] {
        let mut houses = [false; 26];
        for rank in 0..5 {
            for file in 0..5 {
                let site = &self.sites[rank][file];
                if site.len() == 1 && state.board[rank][file] == Some(piece) {
                    houses[letter(site[0])] = true;
                }
            }
        }
        houses
    }

    /// Legal moves as `(rank, file)` targets, or `None` for a pass.
    pub fn moves(&self, state: &NaiveState) -> Vec<Option<Cell>> {
        let mut moves = Vec::with_capacity(25);
        if self.is_over(state) {
            return moves;
        }
        let me = state.to_move;
        let on_board = state
            .board
            .iter()
            .flatten()
            .filter(|&&c| c == Some(me))
            .count();
        if on_board == 13 {
            moves.push(None);
            return moves;
        }
        let houses = self.houses_of(state, me);
        for rank in 0..5 {
            for file in 0..5 {
                let site = &self.sites[rank][file];
                match state.board[rank][file] {
                    None => {
                        if state.ply == 0 && site.len() == 1 {
                            continue; // the First Oath
                        }
                        moves.push(Some((rank, file)));
                    }
                    Some(p) if p != me => {
                        if site.len() == 2
                            && site.iter().all(|&symbol| houses[letter(symbol)])
                            && state.truce != Some((rank, file))
                        {
                            moves.push(Some((rank, file)));
                        }
                    }
                    Some(_) => {}
                }
            }
        }
        moves
    }

    pub fn play(&self, state: &NaiveState, action: Option<Cell>) -> NaiveState {
        let mut next = state.clone();
        next.truce = None;
        if let Some((rank, file)) = action {
            if state.board[rank][file].is_some() {
                next.truce = Some((rank, file));
            }
            next.board[rank][file] = Some(state.to_move);
        }
        next.to_move = other(state.to_move);
        next.ply += 1;
        next
    }

    /// Counts the move sequences of length `depth` by making every move (the
    /// last ply is counted from the list of moves).
    pub fn perft(&self, state: &NaiveState, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => self.moves(state).len() as u64,
            _ => self
                .moves(state)
                .into_iter()
                .map(|m| self.perft(&self.play(state, m), depth - 1))
                .sum(),
        }
    }

    /// Counts the move sequences of length `depth` level by level: for each
    /// distinct position `depth - 2` plies down, the number of sequences
    /// that reach it, times the [`perft`](NaiveGame::perft) of its last two
    /// plies (counted in parallel).
    ///
    /// Exact because the moves below a position depend on the position
    /// alone, and every position of one level has the same ply; Heraldis
    /// reaches the same position by many placement orders, so the levels
    /// hold far fewer positions than sequences.
    pub fn perft_by_positions(&self, root: &NaiveState, depth: u32) -> u64 {
        if depth <= 2 {
            return self.perft(root, depth);
        }
        let mut level = HashMap::from([(key(root), 1u64)]);
        let mut ply = root.ply;
        for _ in 2..depth {
            let mut next_level = HashMap::new();
            for (&position, &sequences) in &level {
                let state = from_key(position, ply);
                for m in self.moves(&state) {
                    *next_level.entry(key(&self.play(&state, m))).or_insert(0) += sequences;
                }
            }
            level = next_level;
            ply += 1;
        }
        level
            .into_par_iter()
            .map(|(position, sequences)| sequences * self.perft(&from_key(position, ply), 2))
            .sum()
    }

    pub fn move_name(&self, state: &NaiveState, action: Option<Cell>) -> String {
        match action {
            None => "pass".to_string(),
            Some((rank, file)) => {
                let name = format!("{}{}", (b'a' + file as u8) as char, rank + 1);
                if state.board[rank][file].is_some() {
                    format!("x{name}")
                } else {
                    name
                }
            }
        }
    }
}

/// Every line of four cells that fits on the board, walking right, up, and
/// along both diagonals from each cell.
fn lines_of_four() -> Vec<[Cell; 4]> {
    let mut lines = Vec::new();
    for rank in 0..5i32 {
        for file in 0..5i32 {
            for (dr, df) in [(0i32, 1i32), (1, 0), (1, 1), (1, -1)] {
                let cells = [0, 1, 2, 3].map(|k| (rank + k * dr, file + k * df));
                if cells
                    .iter()
                    .all(|&(r, f)| (0..5).contains(&r) && (0..5).contains(&f))
                {
                    lines.push(cells.map(|(r, f)| (r as usize, f as usize)));
                }
            }
        }
    }
    assert_eq!(lines.len(), 28);
    lines
}

/// A position without its ply, as a number: two bits per cell (0 empty,
/// 1 Light, 2 Dark) from a1 to e5, then the side to move (1 bit) and the
/// Truce cell (5 bits, 25 for none).
fn key(state: &NaiveState) -> u64 {
    let mut key = 0u64;
    for (index, cell) in state.board.iter().flatten().enumerate() {
        let code = match cell {
            None => 0,
            Some(Piece::Light) => 1,
            Some(Piece::Dark) => 2,
        };
        key |= code << (2 * index);
    }
    key |= u64::from(state.to_move == Piece::Dark) << 50;
    let truce = state.truce.map_or(25, |(rank, file)| 5 * rank + file);
    key | (truce as u64) << 51
}

/// The position written as `key`, at `ply`.
fn from_key(key: u64, ply: u32) -> NaiveState {
    let mut board = [[None; 5]; 5];
    for (index, cell) in board.iter_mut().flatten().enumerate() {
        *cell = match (key >> (2 * index)) & 3 {
            0 => None,
            1 => Some(Piece::Light),
            _ => Some(Piece::Dark),
        };
    }
    let truce = ((key >> 51) & 31) as usize;
    NaiveState {
        board,
        to_move: if (key >> 50) & 1 == 1 {
            Piece::Dark
        } else {
            Piece::Light
        },
        truce: (truce < 25).then_some((truce / 5, truce % 5)),
        ply,
    }
}

/// 0 for `'A'`, 25 for `'Z'`.
fn letter(symbol: char) -> usize {
    (symbol as u8 - b'A') as usize
}

fn other(piece: Piece) -> Piece {
    match piece {
        Piece::Light => Piece::Dark,
        Piece::Dark => Piece::Light,
    }
}

/// Heraldis's default layout, in the rules' words (ranks 5 to 1).
pub const DEFAULT_LAYOUT: &str =
    "A S OS CS AC / LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S A";

/// The position's notation, written here from the naive state: ranks 5 to
/// 1, `L` and `D` pieces, digits for empty runs; side; truce cell; ply.
pub fn notation(state: &NaiveState) -> String {
    let ranks: Vec<String> = (0..5)
        .rev()
        .map(|rank| {
            let mut text = String::new();
            let mut empty = 0;
            for file in 0..5 {
                match state.board[rank][file] {
                    None => empty += 1,
                    Some(piece) => {
                        if empty > 0 {
                            text.push_str(&empty.to_string());
                            empty = 0;
                        }
                        text.push(if piece == Piece::Light { 'L' } else { 'D' });
                    }
                }
            }
            if empty > 0 {
                text.push_str(&empty.to_string());
            }
            text
        })
        .collect();
    let truce = match state.truce {
        None => "-".to_string(),
        Some((rank, file)) => format!("{}{}", (b'a' + file as u8) as char, rank + 1),
    };
    let side = if state.to_move == Piece::Light {
        'l'
    } else {
        'd'
    };
    format!("{} {side} {truce} {}", ranks.join("/"), state.ply)
}
