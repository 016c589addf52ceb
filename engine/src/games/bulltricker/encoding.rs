//! The network's input: planes over the 15 × 15 grid (cell `15 · r + c`
//! at that offset within a plane), from the side to move's point of view.
//! The grid keeps squares and lines apart: the kinds of cell are planes of
//! their own.

use std::ops::ControlFlow;

use super::board::{self, GRID, Kind, Rects, bit, rect_cells};
use super::moves;
use super::{Bulltricker, Position};
use crate::game::Player;

/// Input planes.
pub const PLANE_COUNT: usize = 16;

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
        moves::for_each_legal(position, |m| {
            planes[9 * GRID + m.from] = 1.0;
            planes[10 * GRID + m.to] = 1.0;
            let taken = moves::captured(position, m);
            if taken != 0 && position.king(side) != m.from {
                for g in rect_cells(taken) {
                    planes[11 * GRID + g] = 1.0;
                }
                // A capture across a line (not onto the piece) is a line
                // capture.
                compulsory |= taken & bit_or_zero(m.to) == 0;
            }
            ControlFlow::Continue(())
        });
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

/// The bit of grid cell `g` if it is a rectangle, else nothing.
fn bit_or_zero(g: usize) -> Rects {
    if board::is_rect(g) { bit(g) } else { 0 }
}
