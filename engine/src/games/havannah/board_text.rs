//! The board as text, drawn as OpenSpiel draws it: row 1 on top, each row
//! shifted so that neighbours touch, the column letters along the top and
//! the upper right side.

use std::fmt::Write;

use super::position::{colour_name, side_letter};
use super::rules::structures;
use super::{Havannah, Position};
use crate::game::{Game, Outcome};

/// Renders `position`: `W` a White stone, `B` a Black stone, `.` an empty
/// cell; then the notation, the side to move, the swap and the result or the
/// number of legal moves.
pub(super) fn render(game: &Havannah, position: &Position) -> String {
    let board = game.board();
    let base = board.base();
    let mut text = String::new();
    text.push_str(&" ".repeat(base + 3));
    for x in 0..base {
        let _ = write!(text, " {}", letter(x));
    }
    text.push('\n');
    for y in 0..board.diameter() {
        let indent = base.abs_diff(y + 1) + 1 + usize::from(y + 1 < 10);
        text.push_str(&" ".repeat(indent));
        let _ = write!(text, "{}", y + 1);
        for x in 0..board.diameter() {
            let Some(bit) = board.bit_at(x, y) else {
                continue;
            };
            let symbol = if position.stones[0].contains(bit) {
                'W'
            } else if position.stones[1].contains(bit) {
                'B'
            } else {
                '.'
            };
            let _ = write!(text, " {symbol}");
        }
        if y + 1 < base {
            let _ = write!(text, " {}", letter(base + y));
        }
        text.push('\n');
    }
    let side = position.side_to_move();
    let _ = writeln!(text, "position: {}", position.to_notation(board));
    let _ = writeln!(
        text,
        "to move: {} ({}), ply {}",
        colour_name(side),
        side_letter(side),
        position.ply()
    );
    let swap = if !game.swap() {
        "off".to_string()
    } else if position.swapped() {
        "taken".to_string()
    } else if game.swap_available(position) {
        let first = position.stones[0]
            .first()
            .map(|bit| board.action_of_bit(bit));
        format!(
            "available: play {} to take over White's stone",
            first.map_or(String::new(), |action| board.cell_name(action))
        )
    } else {
        "not taken".to_string()
    };
    let _ = writeln!(text, "swap: {swap}");
    match game.outcome(position) {
        Some(Outcome::Draw) => text.push_str("game over: draw, the board is full\n"),
        Some(_) => {
            let winner = side.opponent();
            let how = structures(board, position.stones(winner)).names();
            let _ = writeln!(text, "game over: {} wins ({how})", colour_name(winner));
        }
        None => {
            let mut actions = Vec::new();
            game.legal_actions(position, &mut actions);
            let _ = writeln!(text, "legal moves: {}", actions.len());
        }
    }
    text
}

fn letter(x: usize) -> char {
    char::from(b'a' + x as u8)
}
