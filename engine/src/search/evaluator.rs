//! The search sees networks only through [`Evaluator`]: a batch of positions
//! in, policy logits and win/draw/loss probabilities out.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use crate::game::{Action, Game, Outcome};
use crate::wdl::ToMove;

/// One position to evaluate, with the rules it is played under.
#[derive(Debug)]
pub struct EvaluationRequest<'a, G: Game> {
    /// The rules (for Heraldis, the layout).
    pub game: &'a G,
    /// The position; never a finished game.
    pub state: &'a G::State,
}

/// An evaluator's answers for a batch, in flat buffers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evaluations {
    /// Actions per position (the game's `action_count`).
    pub action_count: usize,
    /// Policy logits, `action_count` per position, batch-major; the search
    /// reads only the legal ones.
    pub policy_logits: Vec<f32>,
    /// Probabilities of win, draw and loss for the side to move.
    pub wdl: Vec<ToMove>,
    /// Plies until the game ends, one per position, from an evaluator that
    /// predicts them (a network's moves-left head); empty otherwise.
    pub moves_left: Vec<f32>,
}

impl Evaluations {
    /// Empties the buffers for a batch of a game with `action_count` actions.
    pub fn reset(&mut self, action_count: usize) {
        self.action_count = action_count;
        self.policy_logits.clear();
        self.wdl.clear();
        self.moves_left.clear();
    }

    /// Number of positions evaluated.
    pub fn len(&self) -> usize {
        self.wdl.len()
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.wdl.is_empty()
    }

    /// Policy logits of position `index`.
    pub fn policy(&self, index: usize) -> &[f32] {
        &self.policy_logits[index * self.action_count..(index + 1) * self.action_count]
    }
}

/// Evaluates batches of positions. Implementations should be fast on large
/// batches: the search driver gathers leaves of many trees into one call.
pub trait Evaluator<G: Game>: Sync {
    /// Evaluates every request, in order, into `output` (reset first).
    fn evaluate(&self, requests: &[EvaluationRequest<'_, G>], output: &mut Evaluations);
}

/// Uniform policy and an even win/draw/loss split: the search alone.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl<G: Game> Evaluator<G> for UniformEvaluator {
    fn evaluate(&self, requests: &[EvaluationRequest<'_, G>], output: &mut Evaluations) {
        let action_count = requests.first().map_or(0, |r| r.game.spec().action_count);
        output.reset(action_count);
        output
            .policy_logits
            .resize(requests.len() * action_count, 0.0);
        output.wdl.resize(requests.len(), ToMove::EVEN);
    }
}

/// Uniform policy; the value is the average result of random games played
/// to the end from the position (random rollouts).
#[derive(Clone, Copy, Debug)]
pub struct RolloutEvaluator {
    /// Random games per position.
    pub rollouts: u32,
    /// Seed of the rollouts; each position's games are seeded from it and
    /// the position, so results do not depend on batching or threads.
    pub seed: u64,
}

impl Default for RolloutEvaluator {
    fn default() -> RolloutEvaluator {
        RolloutEvaluator {
            rollouts: 1,
            seed: 0,
        }
    }
}

impl RolloutEvaluator {
    /// Win/draw/loss frequencies for the side to move over the rollouts.
    pub fn rollout_wdl<G: Game>(&self, game: &G, state: &G::State, rng: &mut impl Rng) -> ToMove {
        let mover = game.current_player(state);
        let mut counts = [0u32; 3];
        let mut actions: Vec<Action> = Vec::with_capacity(game.spec().action_count);
        for _ in 0..self.rollouts.max(1) {
            let mut current = state.clone();
            let outcome = loop {
                if let Some(outcome) = game.outcome_for(&current, mover) {
                    break outcome;
                }
                game.legal_actions(&current, &mut actions);
                let action = actions[rng.random_range(0..actions.len())];
                game.apply_unchecked(&mut current, action);
            };
            counts[match outcome {
                Outcome::Win => 0,
                Outcome::Draw => 1,
                Outcome::Loss => 2,
            }] += 1;
        }
        let total = counts.iter().sum::<u32>() as f32;
        ToMove(counts.map(|c| c as f32 / total))
    }
}

impl<G: Game> Evaluator<G> for RolloutEvaluator {
    fn evaluate(&self, requests: &[EvaluationRequest<'_, G>], output: &mut Evaluations) {
        let evaluate_one = |request: &EvaluationRequest<'_, G>| {
            let mut hasher = std::hash::DefaultHasher::new();
            std::hash::Hash::hash(request.state, &mut hasher);
            let seed = self.seed ^ std::hash::Hasher::finish(&hasher);
            let mut rng = SmallRng::seed_from_u64(seed);
            self.rollout_wdl(request.game, request.state, &mut rng)
        };
        let action_count = requests.first().map_or(0, |r| r.game.spec().action_count);
        output.reset(action_count);
        output
            .policy_logits
            .resize(requests.len() * action_count, 0.0);
        if requests.len() >= 16 {
            output.wdl.par_extend(requests.par_iter().map(evaluate_one));
        } else {
            output.wdl.extend(requests.iter().map(evaluate_one));
        }
    }
}

/// A borrowed evaluator.
impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for &E {
    fn evaluate(&self, requests: &[EvaluationRequest<'_, G>], output: &mut Evaluations) {
        (**self).evaluate(requests, output);
    }
}

/// A shared evaluator (one network serving several searches or games).
impl<G: Game, E: Evaluator<G> + Send + ?Sized> Evaluator<G> for std::sync::Arc<E> {
    fn evaluate(&self, requests: &[EvaluationRequest<'_, G>], output: &mut Evaluations) {
        (**self).evaluate(requests, output);
    }
}
