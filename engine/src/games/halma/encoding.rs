//! The network's input: planes of N × N values (cell `x + N · y` at that
//! offset), from the side to move's point of view.

use super::Halma;
use super::board::cells_of;
use super::position::Position;
use crate::game::Player;

/// Input planes.
pub const PLANE_COUNT: usize = 18;

/// What each input plane holds, in order.
pub const PLANE_NAMES: [&str; PLANE_COUNT] = [
    "own pieces",
    "opponent pieces",
    "own yard (where own pieces start)",
    "opponent yard (where own pieces go)",
    "own pieces that can move this turn",
    "cells own pieces can reach this turn",
    "constant: own moves so far / yard limit, at most 1",
    "constant: opponent moves so far / yard limit, at most 1",
    "constant: 1 if the yard rule binds own next move (a piece left in the own yard then loses)",
    "constant: own moves so far / draw limit",
    "constant: 1 if White is to move",
    "constant: 1 if the last turn was a pass",
    "each cell's files plus ranks to the own goal corner / 2 (N − 1)",
    "each cell's files plus ranks to the opponent's goal corner / 2 (N − 1)",
    "constant: own pieces' files plus ranks to the own goal corner, summed / that sum at the start",
    "constant: opponent pieces' files plus ranks to its goal corner, summed / that sum at the start",
    "constant: own pieces in the own yard / pieces a side",
    "constant: opponent pieces in its own yard / pieces a side",
];

/// Writes the planes of `position` into `planes`.
pub fn encode(game: &Halma, position: &Position, planes: &mut [f32]) {
    let board = game.board();
    let cells = board.cell_count();
    planes[..PLANE_COUNT * cells].fill(0.0);
    let side = position.side;
    let opponent = side.opponent();
    let occupied = position.occupied();
    let mut movable = 0;
    let mut reachable = 0;
    if position.status == super::Status::Playing {
        let moves = super::moves::Moves::new(board, occupied);
        for from in cells_of(position.pieces(side)) {
            let targets = moves.targets(from);
            if targets != 0 {
                movable |= 1 << from;
                reachable |= targets;
            }
        }
    }
    let sets = [
        position.pieces(side),
        position.pieces(opponent),
        board.yard(side),
        board.yard(opponent),
        movable,
        reachable,
    ];
    for (plane, set) in sets.into_iter().enumerate() {
        for cell in cells_of(set) {
            planes[plane * cells + cell] = 1.0;
        }
    }
    let limit = f32::from(game.yard_limit());
    let own_moves = position.moves[side.index()];
    let constants = [
        (f32::from(own_moves) / limit).min(1.0),
        (f32::from(position.moves[opponent.index()]) / limit).min(1.0),
        f32::from(u8::from(game.yard_rule_binds(own_moves + 1))),
        f32::from(own_moves) / f32::from(game.draw_moves()),
        f32::from(u8::from(side == Player::First)),
        f32::from(u8::from(position.passed)),
    ];
    for (index, value) in constants.into_iter().enumerate() {
        let plane = sets.len() + index;
        planes[plane * cells..(plane + 1) * cells].fill(value);
    }

    // The race: how far each side's pieces are from its goal corner, the
    // alpha-beta baseline's evaluation (and the yards' emptying, which
    // the yard rule asks for) given whole instead of left to the tower's
    // global pooling.
    let first = sets.len() + constants.len();
    let longest = (2 * (board.size() - 1)) as f32;
    for (index, player) in [side, opponent].into_iter().enumerate() {
        let plane = &mut planes[(first + index) * cells..(first + index + 1) * cells];
        for (value, &distance) in plane.iter_mut().zip(board.to_goal(player)) {
            *value = f32::from(distance) / longest;
        }
    }
    let pieces = board.pieces_per_side() as f32;
    let race = |player: Player| {
        board.race(player, position.pieces(player)) as f32
            / board.race(player, board.yard(player)) as f32
    };
    let in_yard = |player: Player| {
        (position.pieces(player) & board.yard(player)).count_ones() as f32 / pieces
    };
    let totals = [race(side), race(opponent), in_yard(side), in_yard(opponent)];
    for (index, value) in totals.into_iter().enumerate() {
        let plane = first + 2 + index;
        planes[plane * cells..(plane + 1) * cells].fill(value);
    }
}
