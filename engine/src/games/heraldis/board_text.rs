//! The board as text: symbols, pieces, reserves, truce and legal moves.

use std::fmt::Write;

use super::board::{self, SIZE, bit, cell_at};
use super::{Heraldis, Position, Site, side_letter};
use crate::game::{Game, Notation, Outcome, Player};

/// Renders `position` on `game`'s layout, rank 5 on top. Each cell shows its
/// symbols, then `L` (Light), `D` (Dark) or `.` (empty); `*` marks the Truce
/// cell.
pub(super) fn render(game: &Heraldis, position: &Position) -> String {
    let mut text = String::new();
    let border = format!("  +{}\n", "------+".repeat(SIZE));
    text.push_str(&border);
    for rank in (0..SIZE).rev() {
        let _ = write!(text, "{} |", rank + 1);
        for file in 0..SIZE {
            let cell = cell_at(file, rank);
            let symbols = match game.layout().site(cell) {
                Site::House(s) => s.letter().to_string(),
                Site::Alliance(a, b) => format!("{}{}", a.letter(), b.letter()),
            };
            let piece = if position.pieces(Player::First) & bit(cell) != 0 {
                'L'
            } else if position.pieces(Player::Second) & bit(cell) != 0 {
                'D'
            } else {
                '.'
            };
            let truce = if position.truce() == Some(cell) {
                '*'
            } else {
                ' '
            };
            let _ = write!(text, " {symbols:<2} {piece}{truce}|");
        }
        text.push('\n');
        text.push_str(&border);
    }
    text.push_str("     a      b      c      d      e\n");
    let side = position.side_to_move();
    let _ = writeln!(text, "position: {}", position.to_notation());
    let _ = writeln!(
        text,
        "to move: {} ({}), ply {} of {}",
        colour_name(side),
        side_letter(side),
        position.ply(),
        game.ply_limit()
    );
    let _ = writeln!(
        text,
        "reserves: Light {}, Dark {}",
        position.reserve(Player::First),
        position.reserve(Player::Second)
    );
    let truce = position
        .truce()
        .map_or("none".to_string(), board::cell_name);
    let _ = writeln!(text, "truce: {truce}");
    match game.outcome(position) {
        Some(outcome) => {
            let result = match outcome {
                Outcome::Draw => "draw".to_string(),
                Outcome::Loss => format!("{} wins", colour_name(side.opponent())),
                Outcome::Win => format!("{} wins", colour_name(side)),
            };
            let _ = writeln!(text, "game over: {result}");
        }
        None => {
            let mut actions = Vec::new();
            game.legal_actions(position, &mut actions);
            let moves: Vec<String> = actions
                .iter()
                .map(|&a| game.format_action(position, a))
                .collect();
            let _ = writeln!(text, "legal moves ({}): {}", moves.len(), moves.join(" "));
        }
    }
    text
}

fn colour_name(player: Player) -> &'static str {
    match player {
        Player::First => "Light",
        Player::Second => "Dark",
    }
}
