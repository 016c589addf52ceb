//! The moves of the side to move, by the rules' priorities: a Queen's
//! line capture if there is one, else a Pawn's line capture if there is
//! one, else every other move (steps and slides, column captures, the
//! King's moves). A move is its origin and landing cells.
//!
//! Along a rectangle's *axis* (a vertical rectangle's column, a horizontal
//! one's row) a step of two grid cells crosses a junction, which never
//! blocks; *across* it (a vertical rectangle's row, a horizontal one's
//! column) a step crosses a royal square, which blocks when a King stands
//! there. Line captures go across, column captures along the axis.

use std::ops::ControlFlow;

use super::board::{Kind, Rects, at, bit, kind, rect_cells, row_col};
use super::position::Position;
use crate::game::Player;

/// A move: the origin and landing grid cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// Where the piece stands.
    pub from: usize,
    /// Where it lands.
    pub to: usize,
}

/// The horizontal rectangles (even rows).
pub const HORIZONTAL: Rects = {
    let mut rects = 0;
    let mut g = 1;
    while g < super::board::GRID {
        if (g / super::board::SIZE).is_multiple_of(2) {
            rects |= 1 << (g / 2);
        }
        g += 2;
    }
    rects
};

/// The row step a Pawn of `player` moves forward by: White goes up.
pub fn forward(player: Player) -> i32 {
    match player {
        Player::First => -1,
        Player::Second => 1,
    }
}

/// The row of `player`'s transversal Pawns at the start (their two-step
/// line): a Pawn of that side there has never moved.
pub fn two_step_row(player: Player) -> i32 {
    match player {
        Player::First => 12,
        Player::Second => 2,
    }
}

/// The row where `player`'s Pawns become Queens: the opponent's back line.
pub fn promotion_row(player: Player) -> i32 {
    match player {
        Player::First => 0,
        Player::Second => 14,
    }
}

/// The unit step along the axis of the rectangle at `g` (rows for a
/// vertical one), and the one across it.
fn axes(g: usize) -> ((i32, i32), (i32, i32)) {
    if kind(g) == Kind::Vertical {
        ((1, 0), (0, 1))
    } else {
        ((0, 1), (1, 0))
    }
}

/// The position seen by the side to move.
struct View<'a> {
    position: &'a Position,
    side: Player,
    enemy: Rects,
    occupied: Rects,
    /// The own pieces whose moves are wanted, and whether the King's are.
    movers: Rects,
    king_moves: bool,
}

impl View<'_> {
    fn new(position: &Position) -> View<'_> {
        let side = position.side();
        View {
            position,
            side,
            enemy: position.pieces(side.opponent()),
            occupied: position.occupied(),
            movers: position.pieces(side),
            king_moves: true,
        }
    }

    /// The same view wanting only the moves of the piece on `from`.
    fn only(mut self, from: usize) -> Self {
        self.king_moves = self.position.king(self.side) == from;
        self.movers &= if super::board::is_rect(from) {
            bit(from)
        } else {
            0
        };
        self
    }

    /// The cell `steps` unit steps `(dr, dc)` from `g`, if on the grid.
    fn step(g: usize, (dr, dc): (i32, i32), steps: i32) -> Option<usize> {
        let (r, c) = row_col(g);
        at(r + steps * dr, c + steps * dc)
    }

    fn empty(&self, g: usize) -> bool {
        self.occupied & bit(g) == 0
    }

    fn holds_enemy(&self, g: usize) -> bool {
        self.enemy & bit(g) != 0
    }

    /// Whether the royal square `g` is free of both Kings.
    fn no_king(&self, g: usize) -> bool {
        self.position.king(Player::First) != g && self.position.king(Player::Second) != g
    }

    /// A capture across from `g` in `direction`: the royal square between
    /// free, an enemy on the next rectangle, the royal square beyond free
    /// and an empty rectangle beyond. Returns (enemy, landing).
    fn jump(&self, g: usize, direction: (i32, i32)) -> Option<(usize, usize)> {
        let enemy = Self::step(g, direction, 2)?;
        let landing = Self::step(g, direction, 4)?;
        let clear = self.no_king(Self::step(g, direction, 1)?)
            && self.no_king(Self::step(g, direction, 3)?);
        (clear && self.holds_enemy(enemy) && self.empty(landing)).then_some((enemy, landing))
    }

    fn queen_line_captures(
        &self,
        sink: &mut impl FnMut(Move) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut landings = Vec::new();
        for from in rect_cells(self.movers & self.position.key.queens) {
            let (_, across) = axes(from);
            for direction in [across, (-across.0, -across.1)] {
                landings.clear();
                let mut captured = false;
                let mut current = from;
                // Over empty rectangles and free royal squares; at an enemy
                // with room beyond she must take it and go on.
                while let (Some(royal), Some(next)) = (
                    Self::step(current, direction, 1),
                    Self::step(current, direction, 2),
                ) {
                    if !self.no_king(royal) {
                        break;
                    }
                    if self.empty(next) {
                        if captured {
                            landings.push(next);
                        }
                        current = next;
                    } else if self.jump(current, direction).is_some() {
                        captured = true;
                        landings.clear();
                        current = next;
                    } else {
                        break;
                    }
                }
                for &to in &landings {
                    sink(Move { from, to })?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn pawn_line_captures(
        &self,
        sink: &mut impl FnMut(Move) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let direction = (forward(self.side), 0);
        for from in rect_cells(self.movers & !self.position.key.queens & HORIZONTAL) {
            let mut current = from;
            while let Some((_, landing)) = self.jump(current, direction) {
                current = landing;
            }
            if current != from {
                sink(Move { from, to: current })?;
            }
        }
        ControlFlow::Continue(())
    }

    fn other_moves(&self, sink: &mut impl FnMut(Move) -> ControlFlow<()>) -> ControlFlow<()> {
        let queens = self.position.key.queens;
        let forward = forward(self.side);
        for from in rect_cells(self.movers & !queens) {
            let ahead = (forward, 0);
            // The forward diagonal neighbours, rectangles of the other kind.
            for dc in [-1, 1] {
                if let Some(to) = Self::step(from, (forward, dc), 1)
                    && self.empty(to)
                {
                    sink(Move { from, to })?;
                }
            }
            let Some(to) = Self::step(from, ahead, 2) else {
                continue;
            };
            if kind(from) == Kind::Vertical {
                // Straight on across a junction; onto an enemy: a column
                // capture.
                if self.empty(to) || self.holds_enemy(to) {
                    sink(Move { from, to })?;
                }
            } else if self.no_king(Self::step(from, ahead, 1).expect("between")) && self.empty(to) {
                sink(Move { from, to })?;
                if row_col(from).0 == two_step_row(self.side)
                    && let Some(far) = Self::step(from, ahead, 4)
                    && self.no_king(Self::step(from, ahead, 3).expect("between"))
                    && self.empty(far)
                {
                    sink(Move { from, to: far })?;
                }
            }
        }
        for from in rect_cells(self.movers & queens) {
            for (dr, dc) in [(-1, -1), (-1, 1), (1, -1), (1, 1)] {
                if let Some(to) = Self::step(from, (dr, dc), 1)
                    && self.empty(to)
                {
                    sink(Move { from, to })?;
                }
            }
            let (axis, across) = axes(from);
            for direction in [axis, (-axis.0, -axis.1)] {
                let mut steps = 1;
                while let Some(to) = Self::step(from, direction, 2 * steps) {
                    if self.empty(to) {
                        sink(Move { from, to })?;
                    } else {
                        if steps == 1 && self.holds_enemy(to) {
                            sink(Move { from, to })?;
                        }
                        break;
                    }
                    steps += 1;
                }
            }
            for direction in [across, (-across.0, -across.1)] {
                let mut steps = 1;
                while let Some(to) = Self::step(from, direction, 2 * steps) {
                    let royal = Self::step(from, direction, 2 * steps - 1).expect("between");
                    if !self.no_king(royal) || !self.empty(to) {
                        break;
                    }
                    sink(Move { from, to })?;
                    steps += 1;
                }
            }
        }
        if !self.king_moves {
            return ControlFlow::Continue(());
        }
        let king = self.position.king(self.side);
        let (other_r, other_c) = row_col(self.position.king(self.side.opponent()));
        for direction in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
            let (Some(between), Some(to)) = (
                Self::step(king, direction, 1),
                Self::step(king, direction, 2),
            ) else {
                continue;
            };
            let (r, c) = row_col(to);
            let apart = (r - other_r).abs() >= 4 || (c - other_c).abs() >= 4;
            if self.empty(between) && apart {
                sink(Move { from: king, to })?;
            }
        }
        ControlFlow::Continue(())
    }
}

/// Calls `sink` on each legal move of the side to move (the game must go
/// on), until it breaks.
pub fn for_each_legal(position: &Position, mut sink: impl FnMut(Move) -> ControlFlow<()>) {
    let view = View::new(position);
    let any = std::cell::Cell::new(false);
    let mut counting = |m: Move| {
        any.set(true);
        sink(m)
    };
    if view.queen_line_captures(&mut counting).is_break() || any.get() {
        return;
    }
    if view.pawn_line_captures(&mut counting).is_break() || any.get() {
        return;
    }
    let _ = view.other_moves(&mut counting);
}

/// Calls `sink` on each legal move of the piece on `from` (the game must
/// go on), until it breaks: the priorities are those of the whole side.
pub fn for_each_legal_from(
    position: &Position,
    from: usize,
    mut sink: impl FnMut(Move) -> ControlFlow<()>,
) {
    let view = View::new(position);
    let mut stop = |_| ControlFlow::Break(());
    let piece = View::new(position).only(from);
    if view.queen_line_captures(&mut stop).is_break() {
        let _ = piece.queen_line_captures(&mut sink);
    } else if view.pawn_line_captures(&mut stop).is_break() {
        let _ = piece.pawn_line_captures(&mut sink);
    } else {
        let _ = piece.other_moves(&mut sink);
    }
}

/// Whether the side to move has a move at all. The priorities only choose
/// among moves, so any move of any kind answers; the other moves come
/// first, where the first Pawn usually has one, rather than the line
/// captures, which scan every piece before they can say there is none.
pub fn has_move(position: &Position) -> bool {
    let view = View::new(position);
    let mut found = |_| ControlFlow::Break(());
    view.other_moves(&mut found).is_break()
        || view.queen_line_captures(&mut found).is_break()
        || view.pawn_line_captures(&mut found).is_break()
}

/// The enemy rectangles a move of the side to move takes: the one it
/// lands on (a column capture), or those it jumps along its line.
pub fn captured(position: &Position, m: Move) -> Rects {
    let enemy = position.pieces(position.side().opponent());
    if !super::board::is_rect(m.to) {
        return 0;
    }
    if enemy & bit(m.to) != 0 {
        return bit(m.to);
    }
    super::board::between(m.from, m.to) & enemy
}
