//! Halma's hand-written players, the anchors that measure the Grand Maître
//! without any learning:
//!
//! - [`GreedyAgent`]: the move that advances most towards the opposing
//!   corner (files plus ranks to it), jumps first among equals, at random
//!   among the rest of the ties; a winning move always, a move into a lost
//!   game only when no other is left.
//! - [`AlphaBetaAgent`]: fixed-depth alpha-beta on the classic distance
//!   evaluation: the sum of the opponent's distances (files plus ranks) to
//!   its goal corner less the sum of one's own, from the side to move;
//!   moves ordered by advance. (The king-move distance leaves plateaus:
//!   with it, 10 × 10 games against the greedy player ended in shuffling
//!   draws at the move limit.)

use rand::SeedableRng;
use rand::rngs::SmallRng;

use super::{Halma, Position, Status};
use crate::agent::{Agent, best_at_random};
use crate::alphabeta::{AlphaBeta, Evaluation};
use crate::game::{Action, Game, Player};

/// How much nearer to `mover`'s goal corner the move brings its piece.
fn advance(game: &Halma, mover: Player, action: Action) -> i32 {
    let board = game.board();
    let goal = board.goal_corner(mover);
    match game.move_ends(action) {
        Some((from, to)) => board.manhattan(from, goal) as i32 - board.manhattan(to, goal) as i32,
        None => 0,
    }
}

/// Whether the move is a jump (it does not end next to its start).
fn is_jump(game: &Halma, action: Action) -> bool {
    game.move_ends(action)
        .is_some_and(|(from, to)| game.board().distance(from, to) > 1)
}

/// The greedy player.
#[derive(Debug)]
pub struct GreedyAgent {
    rng: SmallRng,
    actions: Vec<Action>,
}

impl GreedyAgent {
    /// A greedy player whose ties are broken by `seed`.
    pub fn new(seed: u64) -> GreedyAgent {
        GreedyAgent {
            rng: SmallRng::seed_from_u64(seed),
            actions: Vec::new(),
        }
    }
}

impl Agent<Halma> for GreedyAgent {
    fn select(&mut self, game: &Halma, state: &Position) -> Action {
        game.legal_actions(state, &mut self.actions);
        let mover = state.side;
        let key = |action: Action| {
            let mut next = *state;
            game.apply_unchecked(&mut next, action);
            let loses = matches!(next.status, Status::Won(winner) if winner != mover);
            let wins = next.status == Status::Won(mover);
            (
                wins,
                !loses,
                advance(game, mover, action),
                is_jump(game, action),
            )
        };
        best_at_random(&mut self.rng, &self.actions, key)
    }
}

/// Alpha-beta on the distance evaluation.
pub type AlphaBetaAgent = AlphaBeta<DistanceEvaluation>;

impl AlphaBetaAgent {
    /// A searcher of `depth` plies (at least 1); `seed` breaks ties between
    /// equally scored root moves.
    pub fn halma(depth: u32, seed: u64) -> AlphaBetaAgent {
        AlphaBeta::new(depth, seed, DistanceEvaluation)
    }
}

/// The classic distance evaluation, moves ordered by advance.
#[derive(Clone, Copy, Debug)]
pub struct DistanceEvaluation;

impl Evaluation<Halma> for DistanceEvaluation {
    /// The opponent's total distance to its goal corner less one's own.
    fn evaluate(&self, game: &Halma, state: &Position) -> i32 {
        let board = game.board();
        let total = |player: Player| board.race(player, state.pieces(player)) as i32;
        total(state.side.opponent()) - total(state.side)
    }

    /// Legal moves, the most advancing first.
    fn ordered_moves(&self, game: &Halma, state: &Position, moves: &mut Vec<Action>) {
        game.legal_actions(state, moves);
        moves.sort_by_key(|&a| -advance(game, state.side, a));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Notation;

    #[test]
    fn greedy_takes_the_longest_advance_jumps_first_and_the_win() {
        let game = Halma::default();
        let state = game
            .parse_state("8/2B2B2/3B4/1BB1B1B1/WB1B1B2/WW6/WWW5/WWWW4 w 12 12")
            .expect("position");
        let mut actions = Vec::new();
        game.legal_actions(&state, &mut actions);
        let most = actions
            .iter()
            .map(|&a| advance(&game, Player::First, a))
            .max()
            .expect("moves");
        // a2's chain over b3, c5, d6 and f7 ends on g8: from 7 + 6 to
        // 1 + 0 files and ranks of h8, the one move 12 nearer.
        assert_eq!(most, 12);
        for seed in 0..10 {
            let action = GreedyAgent::new(seed).select(&game, &state);
            assert_eq!(game.format_action(&state, action), "a2-g8");
            assert!(is_jump(&game, action));
        }
        let state = game
            .parse_state("4WWWW/5WWW/6WW/8/4B2W/BB6/BBB5/BBBB4 w 40 40")
            .expect("position");
        let action = GreedyAgent::new(2).select(&game, &state);
        assert_eq!(game.format_action(&state, action), "h4-h5");
    }

    #[test]
    fn alpha_beta_wins_at_once_and_sees_the_yard_rule() {
        let game = Halma::default();
        let state = game
            .parse_state("4WWWW/5WWW/6WW/8/4B2W/BB6/BBB5/BBBB4 w 40 40")
            .expect("position");
        let action = AlphaBetaAgent::halma(2, 1).select(&game, &state);
        assert_eq!(game.format_action(&state, action), "h4-h5");
        // Move 31 with d1 still at home: only d1-e1 does not lose.
        let state = game
            .parse_state("4BBBB/1B1B4/B7/8/3WWWW1/2WWWB2/3WW2B/3W3B w 30 30")
            .expect("position");
        let action = AlphaBetaAgent::halma(1, 1).select(&game, &state);
        assert_eq!(game.format_action(&state, action), "d1-e1");
    }
}
