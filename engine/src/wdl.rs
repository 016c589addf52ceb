//! Win/draw/loss probabilities whose point of view is part of their type.
//!
//! The search, the network and the training targets speak of the side to
//! move ([`ToMove`]: its win, draw, loss); the bar, its calibration and
//! what people are shown speak of the players ([`ForPlayers`]: P(first
//! player wins), P(draw), P(second player wins)). [`ToMove::for_players`]
//! and [`ForPlayers::to_move`] are the one conversion between the two
//! (KataGo keeps its values from the side to move and converts once, at
//! output): a triple that says whose it is cannot be turned twice by
//! mistake.

use std::ops::Index;

use crate::game::{Outcome, Player};

/// Win, draw and loss probabilities for the side to move (of the position
/// they describe: for a search's root moves, the root's side to move);
/// single precision as the search computes them, or double as calibration
/// fits them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ToMove<T = f32>(pub [T; 3]);

/// P(first player wins), P(draw), P(second player wins).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ForPlayers<T = f32>(pub [T; 3]);

/// The one turn between the two points of view: the first player's triple
/// is the side to move's when the first player is to move, and reversed
/// (win and loss swapped) when the second is.
fn turned<T: Copy>(wdl: [T; 3], side: Player) -> [T; 3] {
    match side {
        Player::First => wdl,
        Player::Second => [wdl[2], wdl[1], wdl[0]],
    }
}

/// The place of `outcome`, for `side`, in a [`ForPlayers`] triple: 0 the
/// first player wins, 1 a draw, 2 the second player wins.
pub fn players_index(outcome: Outcome, side: Player) -> usize {
    match (outcome, side) {
        (Outcome::Draw, _) => 1,
        (Outcome::Win, Player::First) | (Outcome::Loss, Player::Second) => 0,
        _ => 2,
    }
}

impl<T: Copy> ToMove<T> {
    /// The same probabilities for the players, `side` being to move.
    pub fn for_players(self, side: Player) -> ForPlayers<T> {
        ForPlayers(turned(self.0, side))
    }
}

impl<T: Copy> ForPlayers<T> {
    /// The same probabilities for the side to move, `side`.
    pub fn to_move(self, side: Player) -> ToMove<T> {
        ToMove(turned(self.0, side))
    }
}

impl ToMove {
    /// Even odds: a third each.
    pub const EVEN: ToMove = ToMove([1.0 / 3.0; 3]);

    /// Certainty of `outcome` for the side to move.
    pub fn exact(outcome: Outcome) -> ToMove {
        ToMove(match outcome {
            Outcome::Win => [1.0, 0.0, 0.0],
            Outcome::Draw => [0.0, 1.0, 0.0],
            Outcome::Loss => [0.0, 0.0, 1.0],
        })
    }

    /// The expected value for the side to move: P(win) − P(loss).
    pub fn value(self) -> f32 {
        self.0[0] - self.0[2]
    }
}

impl<T> Index<usize> for ToMove<T> {
    type Output = T;

    /// 0: win, 1: draw, 2: loss.
    fn index(&self, index: usize) -> &T {
        &self.0[index]
    }
}

impl<T> Index<usize> for ForPlayers<T> {
    type Output = T;

    /// 0: the first player wins, 1: draw, 2: the second player wins.
    fn index(&self, index: usize) -> &T {
        &self.0[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turning_twice_is_no_turn_and_the_first_player_to_move_sees_the_same() {
        let wdl = ToMove([0.6, 0.3, 0.1]);
        assert_eq!(wdl.for_players(Player::First), ForPlayers([0.6, 0.3, 0.1]));
        assert_eq!(wdl.for_players(Player::Second), ForPlayers([0.1, 0.3, 0.6]));
        for side in [Player::First, Player::Second] {
            assert_eq!(wdl.for_players(side).to_move(side), wdl);
        }
        assert_eq!(
            ToMove::exact(Outcome::Loss).for_players(Player::Second)[0],
            1.0
        );
    }
}
