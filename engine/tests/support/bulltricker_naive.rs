//! A deliberately naive Bulltricker, written for the tests only.
//!
//! The board is a plain 15 × 15 grid of `Option<Piece>`, indexed
//! `grid[row][column]` exactly as in the engine rules (docs/bulltricker.md):
//! row R = 0..14 from top (Black's back line) to bottom (White's back line),
//! column C = 0..14 from left to right. Every rule is tested straight from its
//! wording, by walking the grid cell by cell; there are no bitboards, no
//! incremental updates and no caches. The module depends on `std` only and
//! shares no code with the engine, so that the two can check each other.
//!
//! Cell kinds, by the parity of the row and the column:
//! - R even, C even: butée (junction), never occupied, never blocks;
//! - R even, C odd: horizontal rectangle (H rect);
//! - R odd, C even: vertical rectangle (V rect);
//! - R odd, C odd: royal square (Kings only).
//!
//! Going one grid step in an orthogonal direction from a rectangle reaches
//! either a butée (along the rectangle's axis) or a royal square (across
//! it); two grid steps reach the next rectangle of the same orientation.

#![allow(dead_code)]

use std::collections::BTreeSet;

/// Side length of the grid.
const SIZE: i32 = 15;

/// The number of plies after which the game is drawn (the engine rules' ply cap).
const PLY_CAP: u32 = 400;

/// The start position, in the engine rules' notation.
const START: &str = "7/q1q1q1qkq1q1q1q/ppppppp/p1p1p1p1p1p1p1p/7/15/7/15/7/15/7/\
                     P1P1P1P1P1P1P1P/PPPPPPP/Q1Q1Q1QKQ1Q1Q1Q/7 w 0";

/// The outcome of a finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NaiveResult {
    WhiteWins,
    BlackWins,
    Draw,
}

/// One of the two sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Colour {
    White,
    Black,
}

impl Colour {
    fn other(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }

    /// The row step of a forward move: White goes up (R decreasing), Black
    /// goes down (R increasing).
    fn forward(self) -> i32 {
        match self {
            Colour::White => -1,
            Colour::Black => 1,
        }
    }

    /// The H line of this side's transversal pawns at the start; a pawn of
    /// this side on an H rect of that row has never moved and may step twice.
    fn transversal_row(self) -> i32 {
        match self {
            Colour::White => 12,
            Colour::Black => 2,
        }
    }

    /// The opponent's back line, where this side's pawns become Queens.
    fn promotion_row(self) -> i32 {
        match self {
            Colour::White => 0,
            Colour::Black => SIZE - 1,
        }
    }

    /// The win for this side.
    fn wins(self) -> NaiveResult {
        match self {
            Colour::White => NaiveResult::WhiteWins,
            Colour::Black => NaiveResult::BlackWins,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Pawn,
    Queen,
    King,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Piece {
    colour: Colour,
    kind: Kind,
}

impl Piece {
    /// The notation's letter: upper case for White, lower case for Black.
    fn letter(self) -> char {
        let letter = match self.kind {
            Kind::Pawn => 'p',
            Kind::Queen => 'q',
            Kind::King => 'k',
        };
        match self.colour {
            Colour::White => letter.to_ascii_uppercase(),
            Colour::Black => letter,
        }
    }

    fn from_letter(letter: char) -> Option<Piece> {
        let colour = if letter.is_ascii_uppercase() {
            Colour::White
        } else {
            Colour::Black
        };
        let kind = match letter.to_ascii_lowercase() {
            'p' => Kind::Pawn,
            'q' => Kind::Queen,
            'k' => Kind::King,
            _ => return None,
        };
        Some(Piece { colour, kind })
    }
}

/// What a cell of the grid is, from the parity of its row and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CellKind {
    Butee,
    HRect,
    VRect,
    Royal,
}

fn cell_kind((r, c): Pos) -> CellKind {
    match (r % 2 == 0, c % 2 == 0) {
        (true, true) => CellKind::Butee,
        (true, false) => CellKind::HRect,
        (false, true) => CellKind::VRect,
        (false, false) => CellKind::Royal,
    }
}

fn is_rect(pos: Pos) -> bool {
    matches!(cell_kind(pos), CellKind::HRect | CellKind::VRect)
}

/// A cell as (row, column).
type Pos = (i32, i32);

fn on_board((r, c): Pos) -> bool {
    (0..SIZE).contains(&r) && (0..SIZE).contains(&c)
}

/// `pos` moved `k` grid steps in direction `dir`.
fn step((r, c): Pos, (dr, dc): (i32, i32), k: i32) -> Pos {
    (r + k * dr, c + k * dc)
}

/// The four orthogonal unit directions.
const ORTHOGONAL: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

/// The four diagonal unit directions.
const DIAGONAL: [(i32, i32); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];

/// The two unit directions along a rectangle's axis (the grid step from it
/// reaches a butée): up and down for a V rect, left and right for an H rect.
fn along_axis(pos: Pos) -> [(i32, i32); 2] {
    if cell_kind(pos) == CellKind::VRect {
        [(-1, 0), (1, 0)]
    } else {
        [(0, -1), (0, 1)]
    }
}

/// The two unit directions across a rectangle's axis (the grid step from it
/// reaches a royal square): left and right for a V rect, up and down for an
/// H rect.
fn across_axis(pos: Pos) -> [(i32, i32); 2] {
    if cell_kind(pos) == CellKind::VRect {
        [(0, -1), (0, 1)]
    } else {
        [(-1, 0), (1, 0)]
    }
}

/// The playable columns of a row, left to right: the H rects of an even row,
/// every cell of an odd row.
fn playable_columns(r: i32) -> Vec<i32> {
    if r % 2 == 0 {
        (1..SIZE).step_by(2).collect()
    } else {
        (0..SIZE).collect()
    }
}

/// A cell's name: row name (`H1`..`H8` for even rows, `A1`..`A7` for odd
/// rows, A1 nearest White) then column name (`V1`..`V8` for even columns,
/// `C1`..`C7` for odd ones).
fn cell_name((r, c): Pos) -> String {
    let row = if r % 2 == 0 {
        format!("H{}", r / 2 + 1)
    } else {
        format!("A{}", (SIZE - r) / 2)
    };
    let column = if c % 2 == 0 {
        format!("V{}", c / 2 + 1)
    } else {
        format!("C{}", (c + 1) / 2)
    };
    row + &column
}

/// Reads a cell name (any letter case) back into a cell.
fn parse_cell(name: &str) -> Result<Pos, String> {
    let upper = name.trim().to_ascii_uppercase();
    let chars: Vec<char> = upper.chars().collect();
    // Split into: row letter, row number, column letter, column number.
    let column_start = chars
        .iter()
        .skip(1)
        .position(|&ch| ch == 'V' || ch == 'C')
        .map(|i| i + 1)
        .ok_or_else(|| format!("bad cell name {name:?}"))?;
    let row_letter = *chars
        .first()
        .ok_or_else(|| format!("bad cell name {name:?}"))?;
    let row_number: String = chars[1..column_start].iter().collect();
    let column_letter = chars[column_start];
    let column_number: String = chars[column_start + 1..].iter().collect();
    let number = |text: &str| -> Result<i32, String> {
        if text.is_empty() || !text.chars().all(|ch| ch.is_ascii_digit()) {
            return Err(format!("bad cell name {name:?}"));
        }
        text.parse::<i32>()
            .map_err(|_| format!("bad cell name {name:?}"))
    };
    let row_n = number(&row_number)?;
    let column_n = number(&column_number)?;
    let r = match row_letter {
        'H' if (1..=8).contains(&row_n) => 2 * (row_n - 1),
        'A' if (1..=7).contains(&row_n) => SIZE - 2 * row_n,
        _ => return Err(format!("bad row in cell name {name:?}")),
    };
    let c = match column_letter {
        'V' if (1..=8).contains(&column_n) => 2 * (column_n - 1),
        'C' if (1..=7).contains(&column_n) => 2 * column_n - 1,
        _ => return Err(format!("bad column in cell name {name:?}")),
    };
    Ok((r, c))
}

/// Reads `FROM-TO` or `FROMxTO` (either separator, any case) into two cells.
fn parse_move(text: &str) -> Result<(Pos, Pos), String> {
    let parts: Vec<&str> = text.split(['-', 'x', 'X']).collect();
    if parts.len() != 2 {
        return Err(format!("bad move {text:?}"));
    }
    Ok((parse_cell(parts[0])?, parse_cell(parts[1])?))
}

/// A move: the piece on `from` ends on `to`, and the pieces on `captured`
/// (none for an ordinary move) are removed.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Move {
    from: Pos,
    to: Pos,
    captured: Vec<Pos>,
}

impl Move {
    /// `FROM-TO`, or `FROMxTO` for a capture.
    fn notation(&self) -> String {
        let separator = if self.captured.is_empty() { '-' } else { 'x' };
        format!(
            "{}{}{}",
            cell_name(self.from),
            separator,
            cell_name(self.to)
        )
    }
}

type Grid = [[Option<Piece>; SIZE as usize]; SIZE as usize];

/// A Bulltricker position, with the positions that led to it since it was
/// parsed (or since the start) for the repetition rule.
#[derive(Clone, Debug)]
pub struct NaivePosition {
    /// `grid[R][C]`; only rects and royal squares are ever `Some`.
    grid: Grid,
    to_move: Colour,
    /// Plies played (for the ply cap).
    plies: u32,
    /// The earlier positions (pieces and side to move), oldest first, since
    /// this game was parsed or started; the current one is not in it.
    history: Vec<(Grid, Colour)>,
}

impl NaivePosition {
    /// The start position.
    pub fn start() -> NaivePosition {
        NaivePosition::parse(START).expect("the start position parses")
    }

    /// Reads the engine rules' position notation; Err with a one-line reason on bad
    /// input (wrong row count, row length, letters, not exactly one King
    /// each, pieces on wrong cell kinds, bad side or plies).
    pub fn parse(text: &str) -> Result<NaivePosition, String> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 3 {
            return Err(format!(
                "expected 3 fields (rows, side, plies), found {}",
                fields.len()
            ));
        }
        let rows: Vec<&str> = fields[0].split('/').collect();
        if rows.len() != SIZE as usize {
            return Err(format!("expected 15 rows, found {}", rows.len()));
        }
        let mut grid: Grid = [[None; SIZE as usize]; SIZE as usize];
        for (r, row) in (0..SIZE).zip(rows.iter()) {
            let columns = playable_columns(r);
            // Index into `columns` of the next cell to fill.
            let mut filled = 0usize;
            let mut chars = row.chars().peekable();
            while let Some(ch) = chars.next() {
                if ch.is_ascii_digit() {
                    let mut run = (ch as u8 - b'0') as usize;
                    while let Some(&next) = chars.peek() {
                        if !next.is_ascii_digit() {
                            break;
                        }
                        run = run * 10 + (next as u8 - b'0') as usize;
                        chars.next();
                        if run > 1000 {
                            return Err(format!("row {r}: number too large"));
                        }
                    }
                    if run == 0 {
                        return Err(format!("row {r}: empty run of length 0"));
                    }
                    filled += run;
                    if filled > columns.len() {
                        return Err(format!(
                            "row {r} too long (more than {} cells)",
                            columns.len()
                        ));
                    }
                } else {
                    let piece = Piece::from_letter(ch)
                        .ok_or_else(|| format!("row {r}: bad letter {ch:?}"))?;
                    if filled >= columns.len() {
                        return Err(format!(
                            "row {r} too long (more than {} cells)",
                            columns.len()
                        ));
                    }
                    let c = columns[filled];
                    let kind = cell_kind((r, c));
                    let fits = match piece.kind {
                        Kind::King => kind == CellKind::Royal,
                        Kind::Pawn | Kind::Queen => is_rect((r, c)),
                    };
                    if !fits {
                        return Err(format!(
                            "{ch} cannot stand on {} ({kind:?})",
                            cell_name((r, c))
                        ));
                    }
                    grid[r as usize][c as usize] = Some(piece);
                    filled += 1;
                }
            }
            if filled != columns.len() {
                return Err(format!(
                    "row {r} has {filled} cells, expected {}",
                    columns.len()
                ));
            }
        }
        for colour in [Colour::White, Colour::Black] {
            let kings = grid
                .iter()
                .flatten()
                .filter(|cell| {
                    **cell
                        == Some(Piece {
                            colour,
                            kind: Kind::King,
                        })
                })
                .count();
            if kings != 1 {
                return Err(format!("{colour:?} has {kings} Kings, expected 1"));
            }
        }
        let to_move = match fields[1] {
            "w" => Colour::White,
            "b" => Colour::Black,
            other => return Err(format!("bad side to move {other:?}")),
        };
        let plies = fields[2]
            .parse::<u32>()
            .map_err(|_| format!("bad plies {:?}", fields[2]))?;
        Ok(NaivePosition {
            grid,
            to_move,
            plies,
            history: Vec::new(),
        })
    }

    /// The notation (round-trips with parse).
    pub fn notation(&self) -> String {
        let mut rows = Vec::new();
        for r in 0..SIZE {
            let mut row = String::new();
            let mut run = 0;
            for c in playable_columns(r) {
                match self.at((r, c)) {
                    None => run += 1,
                    Some(piece) => {
                        if run > 0 {
                            row += &run.to_string();
                            run = 0;
                        }
                        row.push(piece.letter());
                    }
                }
            }
            if run > 0 {
                row += &run.to_string();
            }
            rows.push(row);
        }
        let side = match self.to_move {
            Colour::White => 'w',
            Colour::Black => 'b',
        };
        format!("{} {} {}", rows.join("/"), side, self.plies)
    }

    /// Every legal move in the engine rules' move notation (`FROM-TO`, or `FROMxTO`
    /// for a capture), sorted, deduplicated; empty once the game is over.
    pub fn legal_moves(&self) -> Vec<String> {
        let names: BTreeSet<String> = self.legal_move_list().iter().map(Move::notation).collect();
        names.into_iter().collect()
    }

    /// The position after a legal move given in notation (either separator
    /// accepted); panics on an illegal move.
    pub fn play(&self, mv: &str) -> NaivePosition {
        let (from, to) = parse_move(mv).unwrap_or_else(|error| panic!("{error}"));
        let chosen = self
            .legal_move_list()
            .into_iter()
            .find(|m| m.from == from && m.to == to)
            .unwrap_or_else(|| panic!("illegal move {mv} in {}", self.notation()));
        self.apply(&chosen)
    }

    /// The result if the game is over (mate, the Trick, no legal move,
    /// material, threefold repetition counted over the positions since this
    /// object was parsed or started, ply cap), else None.
    pub fn result(&self) -> Option<NaiveResult> {
        if let Some(result) = self.result_without_stalemate() {
            return Some(result);
        }
        if self.generate_moves().is_empty() {
            return Some(NaiveResult::Draw);
        }
        None
    }

    // ----- Reading the grid -------------------------------------------

    /// The piece on a cell (`None` when empty or off the board).
    fn at(&self, pos: Pos) -> Option<Piece> {
        if on_board(pos) {
            self.grid[pos.0 as usize][pos.1 as usize]
        } else {
            None
        }
    }

    /// On the board and holding no piece.
    fn is_empty(&self, pos: Pos) -> bool {
        on_board(pos) && self.at(pos).is_none()
    }

    fn holds_king(&self, pos: Pos) -> bool {
        matches!(self.at(pos), Some(piece) if piece.kind == Kind::King)
    }

    fn is_colour(&self, pos: Pos, colour: Colour) -> bool {
        matches!(self.at(pos), Some(piece) if piece.colour == colour)
    }

    fn king_of(&self, colour: Colour) -> Pos {
        for r in 0..SIZE {
            for c in 0..SIZE {
                if self.at((r, c))
                    == Some(Piece {
                        colour,
                        kind: Kind::King,
                    })
                {
                    return (r, c);
                }
            }
        }
        panic!("{colour:?} has no King")
    }

    /// How many rectangles hold a piece (both colours together).
    fn occupied_rects(&self) -> usize {
        let mut count = 0;
        for r in 0..SIZE {
            for c in 0..SIZE {
                if is_rect((r, c)) && self.at((r, c)).is_some() {
                    count += 1;
                }
            }
        }
        count
    }

    // ----- End of the game ------------------------------------------------

    /// A King is mated when its four adjacent rectangles are all occupied and
    /// at least one of them by a piece of the other colour.
    fn is_mated(&self, colour: Colour) -> bool {
        let king = self.king_of(colour);
        let neighbours: Vec<Option<Piece>> = ORTHOGONAL
            .iter()
            .map(|&dir| self.at(step(king, dir, 1)))
            .collect();
        neighbours.iter().all(Option::is_some)
            && neighbours
                .iter()
                .flatten()
                .any(|piece| piece.colour != colour)
    }

    /// Every end of the game except "the side to move has no legal move",
    /// in the engine rules' order: mates (with the Trick), then the draws by
    /// material, repetition and the ply cap.
    fn result_without_stalemate(&self) -> Option<NaiveResult> {
        // The side that made the last move (for a parsed position: the side
        // not to move).
        let mover = self.to_move.other();
        let mover_mated = self.is_mated(mover);
        let other_mated = self.is_mated(mover.other());
        match (mover_mated, other_mated) {
            // Both Kings walled in: the mover wins.
            (true, true) => return Some(mover.wins()),
            // Only the mover's own King: the Trick, the mover loses.
            (true, false) => return Some(mover.other().wins()),
            (false, true) => return Some(mover.wins()),
            (false, false) => {}
        }
        if self.occupied_rects() < 4 {
            return Some(NaiveResult::Draw);
        }
        let occurrences = 1 + self
            .history
            .iter()
            .filter(|(grid, side)| *grid == self.grid && *side == self.to_move)
            .count();
        if occurrences >= 3 {
            return Some(NaiveResult::Draw);
        }
        if self.plies >= PLY_CAP {
            return Some(NaiveResult::Draw);
        }
        None
    }

    // ----- Moves ----------------------------------------------------------

    /// The legal moves: none once the game is over, else every move the
    /// rules allow the side to move.
    fn legal_move_list(&self) -> Vec<Move> {
        if self.result_without_stalemate().is_some() {
            return Vec::new();
        }
        let mut moves = self.generate_moves();
        moves.sort_by_key(|m| (m.from, m.to));
        moves.dedup_by_key(|m| (m.from, m.to));
        moves
    }

    /// The moves of the side to move, with the capture priorities applied:
    /// Queen line captures if any, else pawn line captures if any, else
    /// every other move (ordinary moves, column captures, King moves).
    fn generate_moves(&self) -> Vec<Move> {
        let side = self.to_move;
        let mut queen_line_captures = Vec::new();
        let mut pawn_line_captures = Vec::new();
        let mut other_moves = Vec::new();
        for r in 0..SIZE {
            for c in 0..SIZE {
                let pos = (r, c);
                let Some(piece) = self.at(pos) else { continue };
                if piece.colour != side {
                    continue;
                }
                match piece.kind {
                    Kind::King => self.king_moves(pos, &mut other_moves),
                    Kind::Queen => {
                        self.queen_line_captures(pos, &mut queen_line_captures);
                        self.queen_other_moves(pos, &mut other_moves);
                    }
                    Kind::Pawn => {
                        self.pawn_line_capture(pos, &mut pawn_line_captures);
                        self.pawn_other_moves(pos, &mut other_moves);
                    }
                }
            }
        }
        if !queen_line_captures.is_empty() {
            queen_line_captures
        } else if !pawn_line_captures.is_empty() {
            pawn_line_captures
        } else {
            other_moves
        }
    }

    /// King: one royal square orthogonally, over an empty rectangle, onto an
    /// empty royal square, ending at least one royal square away from the
    /// other King (Chebyshev distance ≥ 4 in grid units).
    fn king_moves(&self, from: Pos, moves: &mut Vec<Move>) {
        let colour = self.to_move;
        let other_king = self.king_of(colour.other());
        for dir in ORTHOGONAL {
            let crossed = step(from, dir, 1);
            let to = step(from, dir, 2);
            if !self.is_empty(crossed) || !self.is_empty(to) {
                continue;
            }
            let distance = (to.0 - other_king.0).abs().max((to.1 - other_king.1).abs());
            if distance < 4 {
                continue;
            }
            moves.push(Move {
                from,
                to,
                captured: Vec::new(),
            });
        }
    }

    /// Queen line captures, in each of her two across directions: she scans
    /// over empty rects to the first occupied one, which must be an enemy
    /// with an empty rect right beyond it; she takes it, and goes on the
    /// same way from there while the next piece met is again takeable. She
    /// may land on any empty rect after the last piece taken, up to the next
    /// occupied rect, King or edge. No royal square crossed may hold a King.
    fn queen_line_captures(&self, from: Pos, moves: &mut Vec<Move>) {
        let colour = self.to_move;
        for dir in across_axis(from) {
            let mut captured: Vec<Pos> = Vec::new();
            let mut cursor = from;
            loop {
                // Walk over the empty rects after `cursor`.
                let mut empties = Vec::new();
                let mut obstacle = None;
                loop {
                    let royal = step(cursor, dir, 1);
                    let rect = step(cursor, dir, 2);
                    if !on_board(rect) || self.holds_king(royal) {
                        break;
                    }
                    if self.is_empty(rect) {
                        empties.push(rect);
                        cursor = rect;
                    } else {
                        obstacle = Some(rect);
                        break;
                    }
                }
                let takeable = obstacle.filter(|&piece| {
                    self.is_colour(piece, colour.other())
                        && !self.holds_king(step(piece, dir, 1))
                        && self.is_empty(step(piece, dir, 2))
                });
                match takeable {
                    Some(piece) => {
                        captured.push(piece);
                        cursor = piece;
                    }
                    None => {
                        if !captured.is_empty() {
                            for to in empties {
                                moves.push(Move {
                                    from,
                                    to,
                                    captured: captured.clone(),
                                });
                            }
                        }
                        break;
                    }
                }
            }
        }
    }

    /// Queen ordinary moves and column captures: a diagonal neighbour rect;
    /// any distance along her axis over empty rects; any distance across it
    /// over empty rects and King-free royal squares; or onto an enemy piece
    /// on the adjacent rect along her axis (column capture).
    fn queen_other_moves(&self, from: Pos, moves: &mut Vec<Move>) {
        let colour = self.to_move;
        for dir in DIAGONAL {
            let to = step(from, dir, 1);
            if self.is_empty(to) {
                moves.push(Move {
                    from,
                    to,
                    captured: Vec::new(),
                });
            }
        }
        for dir in along_axis(from) {
            let mut k = 1;
            while self.is_empty(step(from, dir, 2 * k)) {
                moves.push(Move {
                    from,
                    to: step(from, dir, 2 * k),
                    captured: Vec::new(),
                });
                k += 1;
            }
            let adjacent = step(from, dir, 2);
            if self.is_colour(adjacent, colour.other()) {
                moves.push(Move {
                    from,
                    to: adjacent,
                    captured: vec![adjacent],
                });
            }
        }
        for dir in across_axis(from) {
            let mut k = 1;
            while !self.holds_king(step(from, dir, 2 * k - 1))
                && self.is_empty(step(from, dir, 2 * k))
            {
                moves.push(Move {
                    from,
                    to: step(from, dir, 2 * k),
                    captured: Vec::new(),
                });
                k += 1;
            }
        }
    }

    /// The line capture of a horizontal pawn: straight forward over an enemy
    /// piece on the next H rect onto the empty one beyond (both royal squares
    /// crossed free of a King), repeated while possible; the single move
    /// lands on the final cell.
    fn pawn_line_capture(&self, from: Pos, moves: &mut Vec<Move>) {
        if cell_kind(from) != CellKind::HRect {
            return;
        }
        let colour = self.to_move;
        let dir = (colour.forward(), 0);
        let mut captured = Vec::new();
        let mut cursor = from;
        loop {
            let piece = step(cursor, dir, 2);
            let landing = step(cursor, dir, 4);
            if self.is_colour(piece, colour.other())
                && !self.holds_king(step(cursor, dir, 1))
                && !self.holds_king(step(cursor, dir, 3))
                && self.is_empty(landing)
            {
                captured.push(piece);
                cursor = landing;
            } else {
                break;
            }
        }
        if !captured.is_empty() {
            moves.push(Move {
                from,
                to: cursor,
                captured,
            });
        }
    }

    /// Pawn ordinary moves and column captures: straight forward to the next
    /// rect of the same orientation (an H pawn crossing a royal square that
    /// holds no King); the two-step of an H pawn on its side's transversal
    /// line; either forward diagonal neighbour; and, for a V pawn only, onto
    /// an enemy piece on the next rect straight forward (column capture).
    fn pawn_other_moves(&self, from: Pos, moves: &mut Vec<Move>) {
        let colour = self.to_move;
        let forward = (colour.forward(), 0);
        let horizontal = cell_kind(from) == CellKind::HRect;
        let ahead = step(from, forward, 2);
        let crossing_free = !horizontal || !self.holds_king(step(from, forward, 1));
        if crossing_free && self.is_empty(ahead) {
            moves.push(Move {
                from,
                to: ahead,
                captured: Vec::new(),
            });
            let two_ahead = step(from, forward, 4);
            if horizontal
                && from.0 == colour.transversal_row()
                && !self.holds_king(step(from, forward, 3))
                && self.is_empty(two_ahead)
            {
                moves.push(Move {
                    from,
                    to: two_ahead,
                    captured: Vec::new(),
                });
            }
        }
        if !horizontal && self.is_colour(ahead, colour.other()) {
            moves.push(Move {
                from,
                to: ahead,
                captured: vec![ahead],
            });
        }
        for side in [-1, 1] {
            let to = (from.0 + colour.forward(), from.1 + side);
            if self.is_empty(to) {
                moves.push(Move {
                    from,
                    to,
                    captured: Vec::new(),
                });
            }
        }
    }

    /// The position after a move from the legal list: captured pieces
    /// removed, the piece moved, a pawn ending on the opponent's back line
    /// made a Queen; the side to move changes and the old position goes into
    /// the history.
    fn apply(&self, m: &Move) -> NaivePosition {
        let mut grid = self.grid;
        for &(r, c) in &m.captured {
            grid[r as usize][c as usize] = None;
        }
        let mut piece = grid[m.from.0 as usize][m.from.1 as usize]
            .take()
            .expect("a piece on the move's origin");
        if piece.kind == Kind::Pawn && m.to.0 == piece.colour.promotion_row() {
            piece.kind = Kind::Queen;
        }
        grid[m.to.0 as usize][m.to.1 as usize] = Some(piece);
        let mut history = self.history.clone();
        history.push((self.grid, self.to_move));
        NaivePosition {
            grid,
            to_move: self.to_move.other(),
            plies: self.plies + 1,
            history,
        }
    }
}

/// Leaf count of legal move sequences of `depth` plies (a finished game has
/// no moves).
pub fn perft(position: &NaivePosition, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = position.legal_move_list();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|m| perft(&position.apply(m), depth - 1))
        .sum()
}
