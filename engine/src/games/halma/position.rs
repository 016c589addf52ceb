//! A Halma position and its notation:
//! `<ranks> <side> <white moves> <black moves>[ passed]`, ranks from the
//! last to rank 1 separated by `/`, `W` a White piece, `B` a Black one, a
//! number a run of empty cells; side `w` or `b`; each side's moves so far
//! (passes are not moves); `passed` when the last turn was a pass. The
//! 8 × 8 start is `4BBBB/5BBB/6BB/7B/W7/WW6/WWW5/WWWW4 w 0 0`.

use super::Halma;
use super::board::{Board, Cells};
use crate::game::{ParseError, Player, write_rank};

/// Whether the game goes on, and how it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The game goes on.
    Playing,
    /// This player won.
    Won(Player),
    /// Drawn: two passes in a row, or the move limit.
    Drawn,
}

/// A position: the pieces, the side to move, each side's moves so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// White's pieces, then Black's.
    pub pieces: [Cells; 2],
    /// Moves each side has made (passes are not counted).
    pub moves: [u16; 2],
    /// The side to move.
    pub side: Player,
    /// Whether the last turn was a pass.
    pub passed: bool,
    /// Turns played, passes included.
    pub ply: u16,
    /// Whether the game goes on.
    pub status: Status,
}

impl Position {
    /// Every piece in its own yard, White to move.
    pub fn start(board: &Board) -> Position {
        Position {
            pieces: [board.yard(Player::First), board.yard(Player::Second)],
            moves: [0, 0],
            side: Player::First,
            passed: false,
            ply: 0,
            status: Status::Playing,
        }
    }

    /// `player`'s pieces.
    pub fn pieces(&self, player: Player) -> Cells {
        self.pieces[player.index()]
    }

    /// Every piece.
    pub fn occupied(&self) -> Cells {
        self.pieces[0] | self.pieces[1]
    }

    /// The position's notation.
    pub fn to_notation(&self, board: &Board) -> String {
        let n = board.size();
        let mut ranks = Vec::with_capacity(n);
        for y in (0..n).rev() {
            let mut rank = String::new();
            let cells = (0..n).map(|x| {
                let bit = 1 << board.cell_at(x, y);
                if self.pieces[0] & bit != 0 {
                    Some('W')
                } else if self.pieces[1] & bit != 0 {
                    Some('B')
                } else {
                    None
                }
            });
            write_rank(&mut rank, cells);
            ranks.push(rank);
        }
        format!(
            "{} {} {} {}{}",
            ranks.join("/"),
            side_letter(self.side),
            self.moves[0],
            self.moves[1],
            if self.passed { " passed" } else { "" }
        )
    }
}

/// `w` or `b`.
pub fn side_letter(player: Player) -> char {
    match player {
        Player::First => 'w',
        Player::Second => 'b',
    }
}

/// "White" or "Black".
pub fn colour_name(player: Player) -> &'static str {
    match player {
        Player::First => "White",
        Player::Second => "Black",
    }
}

/// The fields of a position's notation: pieces, side, moves, passed; the
/// rules' checks (counts, the game's end) are the game's.
pub fn parse_fields(
    board: &Board,
    text: &str,
) -> Result<([Cells; 2], Player, [u16; 2], bool), String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if !(4..=5).contains(&fields.len()) {
        return Err(format!(
            "expected 4 or 5 fields: ranks, side (w or b), White's moves, Black's moves[, passed]; found {}",
            fields.len()
        ));
    }
    let n = board.size();
    let ranks: Vec<&str> = fields[0].split('/').collect();
    if ranks.len() != n {
        return Err(format!(
            "expected {n} ranks separated by '/', found {}",
            ranks.len()
        ));
    }
    let mut pieces = [0; 2];
    for (index, rank) in ranks.iter().enumerate() {
        let y = n - 1 - index;
        let mut x = 0;
        let mut digits = String::new();
        let flush = |digits: &mut String, x: &mut usize| -> Result<(), String> {
            if !digits.is_empty() {
                let run: usize =
                    digits.parse().ok().filter(|&run| run >= 1).ok_or_else(|| {
                        format!("rank {}: bad run of empty cells '{digits}'", y + 1)
                    })?;
                *x += run;
                digits.clear();
            }
            Ok(())
        };
        for c in rank.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
                continue;
            }
            flush(&mut digits, &mut x)?;
            let side = match c {
                'W' => 0,
                'B' => 1,
                other => {
                    return Err(format!(
                        "rank {}: unexpected '{other}' (W, B or a number of empty cells)",
                        y + 1
                    ));
                }
            };
            if x >= n {
                return Err(format!("rank {} has more than {n} cells", y + 1));
            }
            pieces[side] |= 1 << board.cell_at(x, y);
            x += 1;
        }
        flush(&mut digits, &mut x)?;
        if x != n {
            return Err(format!("rank {} has {x} cells, expected {n}", y + 1));
        }
    }
    let side = match fields[1] {
        "w" => Player::First,
        "b" => Player::Second,
        other => return Err(format!("side to move must be w or b, not '{other}'")),
    };
    let mut moves = [0; 2];
    for (index, field) in fields[2..4].iter().enumerate() {
        moves[index] = field.parse().map_err(|_| {
            format!(
                "{}'s moves must be a whole number, not '{field}'",
                colour_name([Player::First, Player::Second][index])
            )
        })?;
    }
    let passed = match fields.get(4) {
        None => false,
        Some(&"passed") => true,
        Some(other) => {
            return Err(format!(
                "the fifth field can only be 'passed', not '{other}'"
            ));
        }
    };
    Ok((pieces, side, moves, passed))
}

impl Halma {
    /// Reads a position, checking that it can arise in this game.
    pub fn parse_position(&self, text: &str) -> Result<Position, ParseError> {
        let error = |reason: String| ParseError::new("position", text, reason);
        let (pieces, side, moves, passed) = parse_fields(&self.board, text).map_err(error)?;
        let per_side = self.board.pieces_per_side();
        if pieces[0] & pieces[1] != 0 {
            return Err(error("a cell holds two pieces".to_string()));
        }
        for player in [Player::First, Player::Second] {
            let count = pieces[player.index()].count_ones();
            if count != per_side {
                return Err(error(format!(
                    "{} has {count} pieces, expected {per_side}",
                    colour_name(player)
                )));
            }
            if moves[player.index()] > self.rules.draw_moves {
                return Err(error(format!(
                    "{} has made {} moves, more than the draw limit {}",
                    colour_name(player),
                    moves[player.index()],
                    self.rules.draw_moves
                )));
            }
        }
        let mut position = Position {
            pieces,
            moves,
            side,
            passed,
            ply: moves[0] + moves[1] + u16::from(passed),
            status: Status::Playing,
        };
        // The last turn, if it was a move, may have ended the game.
        let mover = side.opponent();
        if !passed && moves[mover.index()] > 0 {
            position.status = self.status_after_move(&position, mover);
        }
        // The side to move's own last move would have ended the game.
        if position.status == Status::Playing && moves[side.index()] > 0 {
            if position.pieces(side) & !self.board.yard(mover) == 0 {
                return Err(error(format!(
                    "{} to move already has every piece in {}'s yard",
                    colour_name(side),
                    colour_name(mover)
                )));
            }
            if self.yard_rule_binds(moves[side.index()])
                && position.pieces(side) & self.board.yard(side) != 0
            {
                return Err(error(format!(
                    "{} to move would have lost at its move {}: a piece is still in its own yard",
                    colour_name(side),
                    moves[side.index()]
                )));
            }
        }
        Ok(position)
    }
}
