//! Havannah positions and their notation.
//!
//! `<rows> <side>`: the rows `y = 1` to `2n − 1` (top to bottom as
//! [`render`](crate::Game::render) draws them) separated by `/`, each listing
//! its cells from the lowest `x`: `W` a stone of White (the first player), `B`
//! a stone of Black, a number a run of empty cells; then the side to move,
//! `w` or `b`. The start of base 8 is
//! `8/9/10/11/12/13/14/15/14/13/12/11/10/9/8 w`.

use super::bitboard::Bitboard;
use super::board::Board;
use crate::game::{Player, write_rank};

/// Whether the game goes on, and how it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The game goes on.
    Playing,
    /// The player who just moved has won.
    Won,
    /// The board is full and nobody won.
    Drawn,
}

/// A Havannah position: the stones, the plies played and whether the game is
/// over.
///
/// The side to move follows from the ply (White moves at even plies), and
/// whether Black took over White's first stone follows from the number of
/// stones (one fewer than the plies), so neither is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Stones on the board: `stones[0]` White's, `stones[1]` Black's.
    pub(crate) stones: [Bitboard; 2],
    /// Plies played since the start, the swap included.
    pub(crate) ply: u16,
    /// Whether the game is over (a function of the stones, kept so that
    /// asking costs nothing).
    pub(crate) status: Status,
}

impl Position {
    /// The empty board, White to move.
    pub fn start() -> Position {
        Position {
            stones: [Bitboard::EMPTY; 2],
            ply: 0,
            status: Status::Playing,
        }
    }

    /// The side to move: [`Player::First`] is White.
    #[inline]
    pub fn side_to_move(&self) -> Player {
        if self.ply.is_multiple_of(2) {
            Player::First
        } else {
            Player::Second
        }
    }

    /// Stones of `player`.
    #[inline]
    pub fn stones(&self, player: Player) -> Bitboard {
        self.stones[player.index()]
    }

    /// Occupied cells.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.stones[0] | self.stones[1]
    }

    /// Plies played since the start.
    pub fn ply(&self) -> usize {
        usize::from(self.ply)
    }

    /// Whether the game goes on or how it ended.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Whether Black took over White's first stone.
    pub fn swapped(&self) -> bool {
        self.occupied().count() as usize + 1 == self.ply()
    }

    /// The winner, once the game is won.
    pub fn winner(&self) -> Option<Player> {
        (self.status == Status::Won).then(|| self.side_to_move().opponent())
    }

    /// The position in its notation.
    pub fn to_notation(&self, board: &Board) -> String {
        let mut text = String::new();
        for y in 0..board.diameter() {
            if y > 0 {
                text.push('/');
            }
            let cells = (0..board.diameter()).filter_map(|x| {
                let bit = board.bit_at(x, y)?;
                Some(if self.stones[0].contains(bit) {
                    Some('W')
                } else if self.stones[1].contains(bit) {
                    Some('B')
                } else {
                    None
                })
            });
            write_rank(&mut text, cells);
        }
        text.push(' ');
        text.push(side_letter(self.side_to_move()));
        text
    }
}

/// `w` for White, `b` for Black.
pub fn side_letter(player: Player) -> char {
    match player {
        Player::First => 'w',
        Player::Second => 'b',
    }
}

/// `White` or `Black`.
pub fn colour_name(player: Player) -> &'static str {
    match player {
        Player::First => "White",
        Player::Second => "Black",
    }
}

/// Reads the rows and the side to move; the rules-dependent checks are the
/// game's.
pub(crate) fn parse_fields(board: &Board, text: &str) -> Result<([Bitboard; 2], Player), String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [rows, side] = fields[..] else {
        return Err(format!(
            "expected 2 fields '<rows> <side>', found {}",
            fields.len()
        ));
    };
    let side = match side {
        "w" => Player::First,
        "b" => Player::Second,
        other => return Err(format!("bad side '{other}': expected 'w' or 'b'")),
    };
    let rows: Vec<&str> = rows.split('/').collect();
    if rows.len() != board.diameter() {
        return Err(format!(
            "expected {} rows separated by '/', found {}",
            board.diameter(),
            rows.len()
        ));
    }
    let mut stones = [Bitboard::EMPTY; 2];
    for (y, row) in rows.iter().enumerate() {
        let cells: Vec<usize> = (0..board.diameter())
            .filter_map(|x| board.bit_at(x, y))
            .collect();
        let mut filled = 0;
        let mut chars = row.char_indices().peekable();
        while let Some((start, symbol)) = chars.next() {
            let (run, colour) = match symbol {
                'W' => (1, Some(0)),
                'B' => (1, Some(1)),
                '1'..='9' => {
                    let mut end = start + 1;
                    while let Some(&(index, digit)) = chars.peek() {
                        if !digit.is_ascii_digit() {
                            break;
                        }
                        end = index + 1;
                        chars.next();
                    }
                    let run: usize = row[start..end]
                        .parse()
                        .map_err(|_| format!("bad run '{}' in row {}", &row[start..end], y + 1))?;
                    (run, None)
                }
                other => {
                    return Err(format!(
                        "bad character '{other}' in row {}: expected W, B or a number",
                        y + 1
                    ));
                }
            };
            // `filled` never passes the row's length; `run` may be any
            // number, so no sum that could overflow.
            if run > cells.len() - filled {
                return Err(format!("row {} has more than {} cells", y + 1, cells.len()));
            }
            if let Some(colour) = colour {
                stones[colour].insert(cells[filled]);
            }
            filled += run;
        }
        if filled != cells.len() {
            return Err(format!(
                "row {} has {filled} cells, expected {}",
                y + 1,
                cells.len()
            ));
        }
    }
    Ok((stones, side))
}
