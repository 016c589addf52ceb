//! The network's input: planes over the 15 × 15 grid (cell `15 · r + c`
//! at that offset within a plane), from the side to move's point of view.
//! The grid keeps squares and lines apart: the kinds of cell are planes of
//! their own. The moves of both sides are planes too, the opponent's as if
//! it were to move: which pieces are attacked is what material is won and
//! lost by, and a network that saw only its own captures had to learn the
//! threats against it from the pieces alone.

use std::ops::ControlFlow;

use super::board::{self, GRID, Kind, Rects, bit, rect_cells};
use super::moves;
use super::{Bulltricker, Key, Position};
use crate::game::Player;

/// Input planes.
pub const PLANE_COUNT: usize = 19;

/// What each input plane holds, in order.
pub const PLANE_NAMES: [&str; PLANE_COUNT] = [
    "own Pawns",
    "own Queens",
    "own King",
    "opponent Pawns",
    "opponent Queens",
    "opponent King",
    "horizontal rectangles",
    "vertical rectangles",
    "royal squares",
    "own pieces that can move (the capturing ones when a line capture is compulsory)",
    "cells own moves land on",
    "opponent pieces own moves take",
    "constant: 1 if the position stood before",
    "constant: plies played / ply cap",
    "constant: 1 if White is to move",
    "constant: 1 if a line capture is compulsory",
    "opponent pieces that could move were it to move (the capturing ones when a line capture would be compulsory)",
    "cells opponent moves would land on were it to move",
    "own pieces opponent moves would take were it to move",
];

/// Writes the planes of `position` into `planes`.
pub fn encode(game: &Bulltricker, position: &Position, planes: &mut [f32]) {
    planes[..PLANE_COUNT * GRID].fill(0.0);
    let side = position.side();
    let opponent = side.opponent();
    let queens = position.key.queens;
    let mut set_rects = |plane: usize, rects: Rects| {
        for g in rect_cells(rects) {
            planes[plane * GRID + g] = 1.0;
        }
    };
    set_rects(0, position.pieces(side) & !queens);
    set_rects(1, position.pieces(side) & queens);
    set_rects(3, position.pieces(opponent) & !queens);
    set_rects(4, position.pieces(opponent) & queens);
    planes[2 * GRID + position.king(side)] = 1.0;
    planes[5 * GRID + position.king(opponent)] = 1.0;
    for g in 0..GRID {
        let plane = match board::kind(g) {
            Kind::Junction => continue,
            Kind::Horizontal => 6,
            Kind::Vertical => 7,
            Kind::Royal => 8,
        };
        planes[plane * GRID + g] = 1.0;
    }
    let mut compulsory = false;
    if position.status == super::Status::Playing {
        compulsory = mark_moves(position, 9, planes);
        let turned = Position::new(
            Key {
                side: opponent,
                ..position.key
            },
            position.plies,
        );
        mark_moves(&turned, 16, planes);
    }
    let constants = [
        f32::from(u8::from(position.earlier_occurrences() > 0)),
        f32::from(position.plies) / f32::from(game.ply_cap()),
        f32::from(u8::from(side == Player::First)),
        f32::from(u8::from(compulsory)),
    ];
    for (index, value) in constants.into_iter().enumerate() {
        let plane = 12 + index;
        planes[plane * GRID..(plane + 1) * GRID].fill(value);
    }
}

/// Marks the legal moves of the side to move of `position`: the pieces
/// that move on plane `first` (the King included), the cells they land on
/// on the next plane and the enemy pieces they take on the one after.
/// Returns whether a line capture is compulsory.
fn mark_moves(position: &Position, first: usize, planes: &mut [f32]) -> bool {
    let king = position.king(position.side());
    let mut compulsory = false;
    moves::for_each_legal(position, |m| {
        planes[first * GRID + m.from] = 1.0;
        planes[(first + 1) * GRID + m.to] = 1.0;
        let taken = moves::captured(position, m);
        if taken != 0 && king != m.from {
            for g in rect_cells(taken) {
                planes[(first + 2) * GRID + g] = 1.0;
            }
            // A capture across a line (not onto the piece) is a line
            // capture.
            compulsory |= taken & bit_or_zero(m.to) == 0;
        }
        ControlFlow::Continue(())
    });
    compulsory
}

/// The bit of grid cell `g` if it is a rectangle, else nothing.
fn bit_or_zero(g: usize) -> Rects {
    if board::is_rect(g) { bit(g) } else { 0 }
}
