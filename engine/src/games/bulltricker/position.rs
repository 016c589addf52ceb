//! A Bulltricker position and its notation:
//! `<15 rows> <w|b> <plies>`. Rows from row 0 (Black's back line) to row
//! 14, separated by `/`; each lists only its playable cells from the left
//! (an H line its 7 rectangles, an allée its 8 vertical rectangles and 7
//! royal squares in turn); `P`, `Q`, `K` White's Pawns, Queens and King,
//! `p`, `q`, `k` Black's; a number is a run of empty cells; then the side
//! to move and the plies played; then, if the position stood before since
//! the last move that cannot be undone, `seen=N` (N earlier times, for the
//! repetition rule: the text keeps no other earlier position). The start is
//! `7/q1q1q1qkq1q1q1q/ppppppp/p1p1p1p1p1p1p1p/7/15/7/15/7/15/7/P1P1P1P1P1P1P1P/PPPPPPP/Q1Q1Q1QKQ1Q1Q1Q/7 w 0`.

use std::sync::Arc;

use super::board::{self, Kind, Rects, SIZE, bit, is_rect};
use crate::game::{Player, write_rank};

/// Why a game was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Draw {
    /// The side to move has no legal move (« pat »).
    NoMove,
    /// Fewer rectangles occupied than the material limit.
    Material,
    /// The same position for the third time.
    Repetition,
    /// The ply cap.
    PlyCap,
}

/// Whether the game goes on, and how it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The game goes on.
    Playing,
    /// This player won by a mate (the opponent's King walled in, or the
    /// opponent's own move walling in the opponent's King: the Trick).
    Won(Player),
    /// Drawn.
    Drawn(Draw),
}

/// What a repetition compares: the pieces and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// White's rectangles, then Black's.
    pub pieces: [Rects; 2],
    /// The Queens' rectangles (both colours); the other pieces on
    /// rectangles are Pawns.
    pub queens: Rects,
    /// White's King, then Black's (grid cells).
    pub kings: [u8; 2],
    /// The side to move.
    pub side: Player,
}

/// The positions before the current one, newest first, back to the last
/// move that cannot be undone (a Pawn's move or a capture).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Link {
    key: Key,
    previous: Option<Arc<Link>>,
}

/// A position: its [`Key`], the plies played, the result, and the earlier
/// positions a repetition can reach. Two positions are equal when their
/// keys, plies, results and earlier occurrences of the current key are
/// (what the notation keeps).
#[derive(Clone, Debug)]
pub struct Position {
    /// The pieces and the side to move.
    pub key: Key,
    /// Plies played.
    pub plies: u16,
    /// Whether the game goes on.
    pub status: Status,
    history: Option<Arc<Link>>,
}

impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.key == other.key
            && self.plies == other.plies
            && self.status == other.status
            && self.earlier_occurrences() == other.earlier_occurrences()
    }
}

impl Eq for Position {}

impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key.hash(state);
        self.plies.hash(state);
        self.status.hash(state);
        self.earlier_occurrences().hash(state);
    }
}

impl Position {
    /// The start: Queens on allée 1, Pawns on allée 2 and on the H line
    /// between (the 7 transversal Pawns), the King in the middle of allée
    /// 1; Black the point mirror. White to move.
    pub fn start() -> Position {
        Position::parse_fields(
            "7/q1q1q1qkq1q1q1q/ppppppp/p1p1p1p1p1p1p1p/7/15/7/15/7/15/7/P1P1P1P1P1P1P1P/PPPPPPP/Q1Q1Q1QKQ1Q1Q1Q/7 w 0",
        )
        .expect("the start is well formed")
    }

    /// A position with no history.
    pub fn new(key: Key, plies: u16) -> Position {
        Position {
            key,
            plies,
            status: Status::Playing,
            history: None,
        }
    }

    /// `player`'s rectangles.
    pub fn pieces(&self, player: Player) -> Rects {
        self.key.pieces[player.index()]
    }

    /// The material on `rects`: a Queen 3, a Pawn 1.
    pub fn material_of(&self, rects: Rects) -> u32 {
        let queens = (rects & self.key.queens).count_ones();
        3 * queens + (rects & !self.key.queens).count_ones()
    }

    /// `player`'s material.
    pub fn material(&self, player: Player) -> u32 {
        self.material_of(self.pieces(player))
    }

    /// Every occupied rectangle.
    pub fn occupied(&self) -> Rects {
        self.key.pieces[0] | self.key.pieces[1]
    }

    /// `player`'s King (a grid cell).
    pub fn king(&self, player: Player) -> usize {
        usize::from(self.key.kings[player.index()])
    }

    /// The side to move.
    pub fn side(&self) -> Player {
        self.key.side
    }

    /// How often the current position stood before (the side to move
    /// included), since the last move that cannot be undone.
    pub fn earlier_occurrences(&self) -> usize {
        let mut count = 0;
        let mut link = self.history.as_deref();
        while let Some(current) = link {
            count += usize::from(current.key == self.key);
            link = current.previous.as_deref();
        }
        count
    }

    /// Records the current position as history before a move; `reversible`
    /// false forgets everything earlier (that move cannot be undone).
    pub(super) fn push_history(&mut self, reversible: bool) {
        let previous = if reversible {
            self.history.take()
        } else {
            None
        };
        self.history = reversible.then(|| {
            Arc::new(Link {
                key: self.key,
                previous,
            })
        });
    }

    /// The position in the mirror that swaps left and right, its history
    /// included.
    pub fn mirrored(&self) -> Position {
        fn mirror_key(key: &Key) -> Key {
            let rects = |set: Rects| {
                board::rect_cells(set)
                    .map(|g| bit(board::mirror(g)))
                    .fold(0, |all, b| all | b)
            };
            Key {
                pieces: key.pieces.map(rects),
                queens: rects(key.queens),
                kings: key.kings.map(|g| board::mirror(usize::from(g)) as u8),
                side: key.side,
            }
        }
        fn mirror_link(link: &Option<Arc<Link>>) -> Option<Arc<Link>> {
            link.as_deref().map(|link| {
                Arc::new(Link {
                    key: mirror_key(&link.key),
                    previous: mirror_link(&link.previous),
                })
            })
        }
        Position {
            key: mirror_key(&self.key),
            plies: self.plies,
            status: self.status,
            history: mirror_link(&self.history),
        }
    }

    /// What stands on grid cell `g`: a piece letter or nothing.
    pub fn letter(&self, g: usize) -> Option<char> {
        let white_king = self.king(Player::First) == g;
        let black_king = self.king(Player::Second) == g;
        if white_king || black_king {
            return Some(if white_king { 'K' } else { 'k' });
        }
        if !is_rect(g) {
            return None;
        }
        let b = bit(g);
        let queen = self.key.queens & b != 0;
        if self.key.pieces[0] & b != 0 {
            Some(if queen { 'Q' } else { 'P' })
        } else if self.key.pieces[1] & b != 0 {
            Some(if queen { 'q' } else { 'p' })
        } else {
            None
        }
    }

    /// The position's notation.
    pub fn to_notation(&self) -> String {
        let mut rows = Vec::with_capacity(SIZE);
        for r in 0..SIZE {
            let mut row = String::new();
            let cells = (0..SIZE)
                .map(|c| r * SIZE + c)
                .filter(|&g| board::kind(g) != Kind::Junction)
                .map(|g| self.letter(g));
            write_rank(&mut row, cells);
            rows.push(row);
        }
        let mut text = format!(
            "{} {} {}",
            rows.join("/"),
            if self.side() == Player::First {
                'w'
            } else {
                'b'
            },
            self.plies
        );
        let seen = self.earlier_occurrences();
        if seen > 0 {
            text.push_str(&format!(" seen={seen}"));
        }
        text
    }

    /// Reads the notation's fields, checking the board's form (each piece
    /// on a cell of its kind, one King a side) but not the game's limits.
    pub fn parse_fields(text: &str) -> Result<Position, String> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let (board_text, side_text, plies_text, seen_text) = match fields[..] {
            [board, side, plies] => (board, side, plies, None),
            [board, side, plies, seen] => (board, side, plies, Some(seen)),
            _ => {
                return Err(format!(
                    "expected 3 or 4 fields (rows, side to move, plies, seen=N), found {}",
                    fields.len()
                ));
            }
        };
        let rows: Vec<&str> = board_text.split('/').collect();
        if rows.len() != SIZE {
            return Err(format!("expected {SIZE} rows, found {}", rows.len()));
        }
        let mut pieces = [0 as Rects; 2];
        let mut queens = 0;
        let mut kings: [Option<usize>; 2] = [None, None];
        for (r, row) in rows.iter().enumerate() {
            let cells: Vec<usize> = (0..SIZE)
                .map(|c| r * SIZE + c)
                .filter(|&g| board::kind(g) != Kind::Junction)
                .collect();
            let mut index = 0;
            let mut digits = String::new();
            let row_name = board::cell_name(cells[0]);
            let row_name = &row_name[..2];
            let mut place = |letter: char, index: usize| -> Result<(), String> {
                let g = *cells.get(index).ok_or_else(|| {
                    format!("row {row_name} holds more than {} cells", cells.len())
                })?;
                let name = board::cell_name(g);
                let player = if letter.is_ascii_uppercase() {
                    Player::First
                } else {
                    Player::Second
                };
                match letter.to_ascii_uppercase() {
                    'K' => {
                        if board::kind(g) != Kind::Royal {
                            return Err(format!("a King on {name}, not a royal square"));
                        }
                        if kings[player.index()].replace(g).is_some() {
                            return Err(format!("two {} Kings", colour_name(player)));
                        }
                    }
                    'P' | 'Q' => {
                        if !is_rect(g) {
                            return Err(format!("a {letter} on {name}, a royal square"));
                        }
                        pieces[player.index()] |= bit(g);
                        if letter.eq_ignore_ascii_case(&'Q') {
                            queens |= bit(g);
                        }
                    }
                    _ => return Err(format!("unknown piece '{letter}' in row {row_name}")),
                }
                Ok(())
            };
            for letter in row.chars() {
                if letter.is_ascii_digit() {
                    digits.push(letter);
                    continue;
                }
                if !digits.is_empty() {
                    index += run(&digits, row_name)?;
                    digits.clear();
                }
                place(letter, index)?;
                index += 1;
            }
            if !digits.is_empty() {
                index += run(&digits, row_name)?;
            }
            if index != cells.len() {
                return Err(format!(
                    "row {row_name} describes {index} cells, expected {}",
                    cells.len()
                ));
            }
        }
        let king = |player: Player| {
            kings[player.index()]
                .map(|g| g as u8)
                .ok_or_else(|| format!("{} has no King", colour_name(player)))
        };
        let side = match side_text {
            "w" => Player::First,
            "b" => Player::Second,
            other => return Err(format!("side to move '{other}' is not w or b")),
        };
        let plies = plies_text
            .parse::<u16>()
            .map_err(|_| format!("plies '{plies_text}' is not a count"))?;
        let key = Key {
            pieces,
            queens,
            kings: [king(Player::First)?, king(Player::Second)?],
            side,
        };
        let seen = match seen_text {
            None => 0,
            Some(text) => text
                .strip_prefix("seen=")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n > 0 && n <= usize::from(plies))
                .ok_or_else(|| {
                    format!("'{text}' is not seen=N (earlier times the position stood, at most the plies)")
                })?,
        };
        let mut position = Position::new(key, plies);
        for _ in 0..seen {
            position.history = Some(Arc::new(Link {
                key,
                previous: position.history.take(),
            }));
        }
        Ok(position)
    }
}

/// A run of empty cells in a row.
fn run(digits: &str, row_name: &str) -> Result<usize, String> {
    match digits.parse::<usize>() {
        Ok(count) if count > 0 && !digits.starts_with('0') => Ok(count),
        _ => Err(format!(
            "bad run of empty cells '{digits}' in row {row_name}"
        )),
    }
}

/// The colour of `player`.
pub fn colour_name(player: Player) -> &'static str {
    match player {
        Player::First => "White",
        Player::Second => "Black",
    }
}
