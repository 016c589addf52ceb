//! Fixed-depth alpha-beta (negamax) for any game, on a game's hand-written
//! evaluation and move ordering: the anchors that measure the Grand Maître
//! without any learning (Heraldis's lines, Halma's distances).
//!
//! Finished games score ±[`WIN`] less the plies to reach them (a sooner
//! win scores higher), draws 0; at the depth limit the evaluation speaks.
//! Root moves are scored with a window one below the best so far, so that
//! equal scores stay exact and ties are broken at random by the seed.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::agent::Agent;
use crate::game::{Action, Game, Hints, Outcome};

/// Score of a won game at the root, far above any evaluation.
pub const WIN: i32 = 1_000_000;

/// A game's evaluation for alpha-beta.
pub trait Evaluation<G: Game>: Send {
    /// The worth of `state` for the side to move (positive is good), far
    /// below [`WIN`] in size.
    fn evaluate(&self, game: &G, state: &G::State) -> i32;

    /// The legal moves of `state`, written to `moves` (cleared first), the
    /// most promising first (good ordering makes the cut-offs).
    fn ordered_moves(&self, game: &G, state: &G::State, moves: &mut Vec<Action>);
}

/// Alpha-beta to a fixed depth in plies on the evaluation `E`.
#[derive(Debug)]
pub struct AlphaBeta<E> {
    depth: u32,
    rng: SmallRng,
    evaluation: E,
    /// Nodes visited by the last search.
    pub nodes: u64,
    /// Each ply's moves and its killers: the last two moves that cut the
    /// search off at that ply.
    plies: Vec<Ply>,
}

/// What the search keeps for one ply of its line.
#[derive(Clone, Debug, Default)]
struct Ply {
    /// The moves of the position searched at this ply, kept so that each
    /// search does not allocate them again.
    moves: Vec<Action>,
    /// The last two moves that cut the search off at this ply: a move that
    /// refutes one line often refutes its neighbours, so they are tried
    /// first (the killer heuristic).
    killers: [Option<Action>; 2],
}

impl<E> AlphaBeta<E> {
    /// A searcher of `depth` plies (at least 1) on `evaluation`; `seed`
    /// breaks ties between equally scored root moves.
    pub fn new(depth: u32, seed: u64, evaluation: E) -> AlphaBeta<E> {
        AlphaBeta {
            depth: depth.max(1),
            rng: SmallRng::seed_from_u64(seed),
            evaluation,
            nodes: 0,
            plies: Vec::new(),
        }
    }

    /// The evaluation.
    pub fn evaluation(&self) -> &E {
        &self.evaluation
    }

    /// The score of `state` for the side to move: the negamax to the full
    /// depth, ±([`WIN`] less the plies) where a side is mated within it.
    pub fn value<G: Game>(&mut self, game: &G, state: &G::State) -> i32
    where
        E: Evaluation<G>,
    {
        self.nodes = 0;
        self.negamax(game, state, self.depth, 0, -WIN - 1, WIN + 1)
    }

    /// The result a score of [`AlphaBeta::value`] proves for the side to
    /// move: a win or a loss within the depth, found by looking at every
    /// move (a draw at the depth limit proves nothing).
    pub fn proven(&self, score: i32) -> Option<Outcome> {
        let depth = self.depth as i32;
        if score >= WIN - depth {
            Some(Outcome::Win)
        } else if score <= -WIN + depth {
            Some(Outcome::Loss)
        } else {
            None
        }
    }

    /// The score of every legal move at the root, for the side to move, in
    /// the evaluation's order.
    pub fn score_moves<G: Game>(&mut self, game: &G, state: &G::State) -> Vec<(Action, i32)>
    where
        E: Evaluation<G>,
    {
        self.nodes = 0;
        let mut alpha = -WIN - 1;
        let mut scored = Vec::new();
        let mut moves = Vec::new();
        self.evaluation.ordered_moves(game, state, &mut moves);
        for action in moves {
            let mut next = state.clone();
            game.apply_unchecked(&mut next, action);
            let score = -self.negamax(game, &next, self.depth - 1, 1, -WIN - 1, -(alpha - 1));
            alpha = alpha.max(score);
            scored.push((action, score));
        }
        scored
    }

    fn negamax<G: Game>(
        &mut self,
        game: &G,
        state: &G::State,
        depth: u32,
        ply: i32,
        mut alpha: i32,
        beta: i32,
    ) -> i32
    where
        E: Evaluation<G>,
    {
        self.nodes += 1;
        match game.outcome(state) {
            Some(Outcome::Win) => return WIN - ply,
            Some(Outcome::Loss) => return -WIN + ply,
            Some(Outcome::Draw) => return 0,
            None => {}
        }
        if depth == 0 {
            return self.evaluation.evaluate(game, state);
        }
        let at = ply as usize;
        if self.plies.len() <= at {
            self.plies.resize_with(at + 1, Ply::default);
        }
        // The ply's buffer is taken out while the moves below it use theirs.
        let mut moves = std::mem::take(&mut self.plies[at].moves);
        self.evaluation.ordered_moves(game, state, &mut moves);
        let mut front = 0;
        for killer in self.plies[at].killers.into_iter().flatten() {
            if let Some(i) = moves[front..].iter().position(|&m| m == killer) {
                moves[front..=front + i].rotate_right(1);
                front += 1;
            }
        }
        let mut best = -WIN - 1;
        for &action in &moves {
            let mut next = state.clone();
            game.apply_unchecked(&mut next, action);
            let score = -self.negamax(game, &next, depth - 1, ply + 1, -beta, -alpha);
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                let killers = &mut self.plies[at].killers;
                if killers[0] != Some(action) {
                    killers[1] = killers[0];
                    killers[0] = Some(action);
                }
                break;
            }
        }
        self.plies[at].moves = moves;
        best
    }
}

impl<G: Game, E: Evaluation<G>> Agent<G> for AlphaBeta<E> {
    fn select(&mut self, game: &G, state: &G::State) -> Action {
        let scored = self.score_moves(game, state);
        let best = scored.iter().map(|&(_, s)| s).max().expect("a legal move");
        let ties: Vec<Action> = scored
            .iter()
            .filter(|&&(_, s)| s == best)
            .map(|&(a, _)| a)
            .collect();
        ties[self.rng.random_range(0..ties.len())]
    }
}

/// Units of [`HeuristicEvaluation`]'s scores per unit of the game's
/// heuristic score ([`Hints::heuristic_score`]).
pub const HEURISTIC_UNIT: f32 = 1_000.0;

/// A game's own heuristic score ([`Hints::heuristic_score`]) as an
/// alpha-beta evaluation, in [`HEURISTIC_UNIT`]s, its moves in the order
/// of [`Hints::heuristic_moves`]: the search's short searches at its
/// leaves. The score is linear, so that a lead already large still tells
/// one move from another. A game without a heuristic scores every live
/// position 0, so that only wins and losses within the depth count.
#[derive(Clone, Copy, Debug, Default)]
pub struct HeuristicEvaluation;

impl<G: Hints> Evaluation<G> for HeuristicEvaluation {
    fn evaluate(&self, game: &G, state: &G::State) -> i32 {
        let score = game.heuristic_score(state).unwrap_or(0.0) * HEURISTIC_UNIT;
        let bound = (WIN / 2) as f32;
        score.clamp(-bound, bound).round() as i32
    }

    fn ordered_moves(&self, game: &G, state: &G::State, moves: &mut Vec<Action>) {
        game.heuristic_moves(state, moves);
    }
}
