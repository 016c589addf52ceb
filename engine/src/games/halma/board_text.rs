//! The board as text: the last rank on top, `W` and `B` the pieces, `+` an
//! empty cell of White's yard, `x` an empty cell of Black's, `.` the others;
//! then the notation, the moves against the limits and the result or the
//! legal moves.

use std::fmt::Write;

use super::position::{colour_name, side_letter};
use super::{Halma, Position, Status};
use crate::game::{Game, Notation, Player};

pub(super) fn render(game: &Halma, position: &Position) -> String {
    let board = game.board();
    let n = board.size();
    let mut text = String::new();
    for y in (0..n).rev() {
        let _ = write!(text, "{:>2} ", y + 1);
        for x in 0..n {
            let bit = 1 << board.cell_at(x, y);
            let symbol = if position.pieces[0] & bit != 0 {
                'W'
            } else if position.pieces[1] & bit != 0 {
                'B'
            } else if board.yard(Player::First) & bit != 0 {
                '+'
            } else if board.yard(Player::Second) & bit != 0 {
                'x'
            } else {
                '.'
            };
            let _ = write!(text, " {symbol}");
        }
        text.push('\n');
    }
    text.push_str("   ");
    for x in 0..n {
        let _ = write!(text, " {}", char::from(b'a' + x as u8));
    }
    text.push('\n');
    let _ = writeln!(text, "position: {}", game.format_state(position));
    let _ = writeln!(
        text,
        "yards: White's '+', Black's 'x'; moves: White {}, Black {} (yard rule after move {}, {} at {} each)",
        position.moves[0],
        position.moves[1],
        game.yard_limit(),
        if game.adjudicates_race() {
            "the race decides"
        } else {
            "draw"
        },
        game.draw_moves()
    );
    match position.status {
        Status::Won(winner) => {
            let _ = writeln!(text, "result: {} wins", colour_name(winner));
        }
        Status::Drawn => {
            let _ = writeln!(text, "result: draw");
        }
        Status::Playing => {
            let mut actions = Vec::new();
            game.legal_actions(position, &mut actions);
            let moves: Vec<String> = actions
                .iter()
                .map(|&action| game.format_action(position, action))
                .collect();
            let _ = writeln!(
                text,
                "to move: {} ({}); legal moves ({}): {}",
                colour_name(position.side),
                side_letter(position.side),
                moves.len(),
                moves.join(" ")
            );
        }
    }
    text
}
