//! Heraldis positions and their notation.
//!
//! `<ranks> <side> <truce> <ply>`, FEN-like: ranks 5 to 1 separated by `/`,
//! `L` a Light piece, `D` a Dark piece, a digit 1–5 a run of empty cells; side
//! `l` or `d`; the truce cell or `-`; plies played so far. The start is
//! `5/5/5/5/5 l - 0`.

use super::board::{self, Bitboard, CELLS, SIZE, bit, cell_at};
use crate::game::{Player, write_rank};

/// Pieces each player owns, on the board and in reserve together.
pub const PIECES_PER_PLAYER: u32 = 13;

/// Marker for "no truce cell".
pub(crate) const NO_TRUCE: u8 = CELLS as u8;

/// A Heraldis position: 8 bytes.
///
/// The side to move follows from the ply (Light moves at even plies, Dark at
/// odd ones, passes included), and each reserve is 13 minus that colour's
/// pieces on the board, so neither is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Pieces on the board: `pieces[0]` Light's, `pieces[1]` Dark's.
    pub(crate) pieces: [Bitboard; 2],
    /// Plies played since the start.
    pub(crate) ply: u16,
    /// The cell the side to move may not capture on this turn (the cell the
    /// opponent just captured from it), or [`NO_TRUCE`].
    pub(crate) truce: u8,
}

impl Position {
    /// The empty board, Light to move.
    pub fn start() -> Position {
        Position {
            pieces: [0, 0],
            ply: 0,
            truce: NO_TRUCE,
        }
    }

    /// The side to move: [`Player::First`] is Light.
    #[inline]
    pub fn side_to_move(&self) -> Player {
        if self.ply.is_multiple_of(2) {
            Player::First
        } else {
            Player::Second
        }
    }

    /// Pieces of `player` on the board.
    #[inline]
    pub fn pieces(&self, player: Player) -> Bitboard {
        self.pieces[player.index()]
    }

    /// Occupied cells.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.pieces[0] | self.pieces[1]
    }

    /// Pieces `player` still has in reserve.
    #[inline]
    pub fn reserve(&self, player: Player) -> u32 {
        PIECES_PER_PLAYER - self.pieces(player).count_ones()
    }

    /// Plies played since the start.
    pub fn ply(&self) -> usize {
        usize::from(self.ply)
    }

    /// The cell under Truce for the side to move, if any.
    pub fn truce(&self) -> Option<usize> {
        (self.truce != NO_TRUCE).then_some(usize::from(self.truce))
    }

    /// Reads the board, side, truce and ply fields; the rules-dependent
    /// checks are the game's (see `Heraldis::parse_position`).
    pub(crate) fn parse_fields(text: &str) -> Result<Position, String> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [ranks, side, truce, ply] = fields[..] else {
            return Err(format!(
                "expected 4 fields '<ranks> <side> <truce> <ply>', found {}",
                fields.len()
            ));
        };
        let pieces = parse_ranks(ranks)?;
        let ply: u16 = ply
            .parse()
            .map_err(|_| format!("bad ply '{ply}': expected a number of plies"))?;
        let side = match side {
            "l" => Player::First,
            "d" => Player::Second,
            other => return Err(format!("bad side '{other}': expected 'l' or 'd'")),
        };
        let position = Position {
            pieces,
            ply,
            truce: match truce {
                "-" => NO_TRUCE,
                name => board::parse_cell(name)
                    .ok_or_else(|| format!("bad truce '{name}': expected a cell or '-'"))?
                    as u8,
            },
        };
        if position.side_to_move() != side {
            return Err(format!(
                "side '{}' cannot move at ply {ply}: Light moves at even plies, Dark at odd ones",
                side_letter(side)
            ));
        }
        Ok(position)
    }

    /// The position in its notation.
    pub fn to_notation(&self) -> String {
        let mut text = String::new();
        for rank in (0..SIZE).rev() {
            let cells = (0..SIZE).map(|file| {
                let cell = bit(cell_at(file, rank));
                if self.pieces[0] & cell != 0 {
                    Some('L')
                } else if self.pieces[1] & cell != 0 {
                    Some('D')
                } else {
                    None
                }
            });
            write_rank(&mut text, cells);
            if rank > 0 {
                text.push('/');
            }
        }
        let truce = self.truce().map_or("-".to_string(), board::cell_name);
        format!(
            "{text} {} {truce} {}",
            side_letter(self.side_to_move()),
            self.ply
        )
    }
}

/// `l` for Light, `d` for Dark.
pub fn side_letter(player: Player) -> char {
    match player {
        Player::First => 'l',
        Player::Second => 'd',
    }
}

fn parse_ranks(ranks: &str) -> Result<[Bitboard; 2], String> {
    let rows: Vec<&str> = ranks.split('/').collect();
    if rows.len() != SIZE {
        return Err(format!(
            "expected 5 ranks separated by '/', found {}",
            rows.len()
        ));
    }
    let mut pieces = [0; 2];
    for (row, text) in rows.iter().enumerate() {
        let rank = SIZE - 1 - row;
        let mut file = 0;
        for symbol in text.chars() {
            let run = match symbol {
                'L' | 'D' => 1,
                '1'..='5' => symbol as usize - '0' as usize,
                other => {
                    return Err(format!(
                        "bad character '{other}' in rank {}: expected L, D or a digit 1-5",
                        rank + 1
                    ));
                }
            };
            if file + run > SIZE {
                return Err(format!("rank {} has more than 5 cells", rank + 1));
            }
            match symbol {
                'L' => pieces[0] |= bit(cell_at(file, rank)),
                'D' => pieces[1] |= bit(cell_at(file, rank)),
                _ => {}
            }
            file += run;
        }
        if file != SIZE {
            return Err(format!("rank {} has {file} cells, expected 5", rank + 1));
        }
    }
    Ok(pieces)
}
