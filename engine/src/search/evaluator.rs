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
    /// Probabilities of win, draw and loss for the side to move under the
    /// game's own rules, one per position, from an evaluator that tells
    /// them apart from `wdl` (a network trained where a training rule
    /// adjudicates, with its own-rules value head); empty otherwise.
    pub rules_wdl: Vec<ToMove>,
}

impl Evaluations {
    /// Empties the buffers for a batch of a game with `action_count` actions.
    pub fn reset(&mut self, action_count: usize) {
        self.action_count = action_count;
        self.policy_logits.clear();
        self.wdl.clear();
        self.moves_left.clear();
        self.rules_wdl.clear();
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

/// The answers an evaluator gave for the last positions it was asked about:
/// a search meets the same position by several orders of moves, and the
/// searches of one game meet the positions of the searches before them (the
/// next position's tree grows in the subtree the last search explored). As
/// the app's module keeps the network's outputs across its searches, up to
/// `capacity` positions, the oldest forgotten first.
///
/// The policy is kept for the legal actions only (the search reads no
/// other): a game of 10 000 actions keeps a few hundred numbers a position.
/// One cache serves one game's searches: it holds its lock while the
/// evaluator runs, so searches sharing it run one batch at a time.
#[derive(Debug)]
pub struct CachedEvaluator<'a, G: Game, E: ?Sized> {
    inner: &'a E,
    capacity: usize,
    kept: std::sync::Mutex<Kept<G::State>>,
}

#[derive(Debug)]
struct Kept<S> {
    answers: std::collections::HashMap<S, Answer>,
    order: std::collections::VecDeque<S>,
    /// Positions asked about, and those answered from the cache.
    asked: u64,
    hits: u64,
}

#[derive(Debug)]
struct Answer {
    policy: Vec<(Action, f32)>,
    wdl: ToMove,
    moves_left: Option<f32>,
    rules_wdl: Option<ToMove>,
}

impl<'a, G: Game, E: Evaluator<G> + ?Sized> CachedEvaluator<'a, G, E> {
    /// `inner`'s answers, the last `capacity` positions' kept.
    pub fn new(inner: &'a E, capacity: usize) -> Self {
        CachedEvaluator {
            inner,
            capacity,
            kept: std::sync::Mutex::new(Kept {
                answers: std::collections::HashMap::new(),
                order: std::collections::VecDeque::new(),
                asked: 0,
                hits: 0,
            }),
        }
    }

    /// Positions asked about so far, and how many of them were answered
    /// from the cache.
    pub fn hits(&self) -> (u64, u64) {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        (kept.asked, kept.hits)
    }
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for CachedEvaluator<'_, G, E> {
    fn evaluate(&self, requests: &[EvaluationRequest<'_, G>], output: &mut Evaluations) {
        let action_count = requests.first().map_or(0, |r| r.game.spec().action_count);
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let missing: Vec<usize> = (0..requests.len())
            .filter(|&i| !kept.answers.contains_key(requests[i].state))
            .collect();
        kept.asked += requests.len() as u64;
        kept.hits += (requests.len() - missing.len()) as u64;
        let mut fresh = Evaluations::default();
        if !missing.is_empty() {
            let batch: Vec<EvaluationRequest<'_, G>> = missing
                .iter()
                .map(|&i| EvaluationRequest {
                    game: requests[i].game,
                    state: requests[i].state,
                })
                .collect();
            self.inner.evaluate(&batch, &mut fresh);
        }
        output.reset(action_count);
        output
            .policy_logits
            .resize(requests.len() * action_count, 0.0);
        let mut legal = Vec::new();
        let mut answered = Vec::with_capacity(missing.len());
        let mut next_fresh = 0;
        for (index, request) in requests.iter().enumerate() {
            let row = &mut output.policy_logits[index * action_count..(index + 1) * action_count];
            if missing.get(next_fresh) == Some(&index) {
                row.copy_from_slice(fresh.policy(next_fresh));
                let wdl = fresh.wdl[next_fresh];
                let moves_left = fresh.moves_left.get(next_fresh).copied();
                let rules_wdl = fresh.rules_wdl.get(next_fresh).copied();
                output.wdl.push(wdl);
                output.moves_left.extend(moves_left);
                output.rules_wdl.extend(rules_wdl);
                request.game.legal_actions(request.state, &mut legal);
                let policy = legal.iter().map(|&a| (a, row[a.index()])).collect();
                answered.push((
                    request.state.clone(),
                    Answer {
                        policy,
                        wdl,
                        moves_left,
                        rules_wdl,
                    },
                ));
                next_fresh += 1;
            } else {
                let answer = &kept.answers[request.state];
                for &(action, logit) in &answer.policy {
                    row[action.index()] = logit;
                }
                output.wdl.push(answer.wdl);
                output.moves_left.extend(answer.moves_left);
                output.rules_wdl.extend(answer.rules_wdl);
            }
        }
        // Kept once the batch is answered: forgetting the oldest cannot
        // take an answer this batch reads.
        for (state, answer) in answered {
            if kept.answers.insert(state.clone(), answer).is_none() {
                kept.order.push_back(state);
            }
        }
        while kept.order.len() > self.capacity {
            if let Some(oldest) = kept.order.pop_front() {
                kept.answers.remove(&oldest);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::hash::{Hash, Hasher};
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::heraldis::Heraldis;
    use crate::search::{Search, SearchConfig};

    /// Answers from a hash of the position (every legal action its own
    /// logit, a value that varies), counting the positions asked about.
    #[derive(Default)]
    struct Hashing {
        asked: AtomicUsize,
    }

    impl Evaluator<Heraldis> for Hashing {
        fn evaluate(&self, requests: &[EvaluationRequest<'_, Heraldis>], output: &mut Evaluations) {
            self.asked.fetch_add(requests.len(), Ordering::Relaxed);
            let actions = requests.first().map_or(0, |r| r.game.spec().action_count);
            output.reset(actions);
            for request in requests {
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                request.state.hash(&mut hasher);
                let hash = hasher.finish();
                output
                    .policy_logits
                    .extend((0..actions).map(|a| ((hash >> (a % 48)) & 0xff) as f32 / 64.0));
                let win = (hash % 1000) as f32 / 1000.0;
                output.wdl.push(ToMove([win * 0.9, 0.1, (1.0 - win) * 0.9]));
            }
        }
    }

    #[test]
    fn the_searches_of_a_game_play_the_same_with_fewer_evaluations() {
        let game = Heraldis::default();
        let config = SearchConfig {
            simulations: 400,
            ..SearchConfig::default()
        };
        let plain = Hashing::default();
        let counted = Hashing::default();
        let cached = CachedEvaluator::new(&counted, 50_000);
        let mut state = game.initial_state();
        for ply in 0..8 {
            let alone = Search::new(game.clone(), state.clone(), config.clone(), ply).run(&plain);
            let kept = Search::new(game.clone(), state.clone(), config.clone(), ply).run(&cached);
            assert_eq!(format!("{alone:?}"), format!("{kept:?}"), "ply {ply}");
            let best = alone
                .children
                .iter()
                .max_by_key(|child| child.visits)
                .expect("a move")
                .action;
            game.apply_unchecked(&mut state, best);
        }
        let (asked, hits) = cached.hits();
        assert_eq!(asked as usize, plain.asked.load(Ordering::Relaxed));
        assert_eq!(
            (asked - hits) as usize,
            counted.asked.load(Ordering::Relaxed)
        );
        // The later searches grow where the earlier ones looked.
        assert!(hits * 4 > asked, "{hits} of {asked} from the cache");
    }

    #[test]
    fn the_cache_answers_as_its_evaluator_and_forgets_the_oldest() {
        let game = Heraldis::default();
        let mut states = vec![game.initial_state()];
        let mut actions = Vec::new();
        for _ in 0..3 {
            let mut next = states.last().expect("a state").clone();
            game.legal_actions(&next, &mut actions);
            game.apply_unchecked(&mut next, actions[actions.len() / 2]);
            states.push(next);
        }
        let ask = |evaluator: &dyn Evaluator<Heraldis>, which: &[usize]| {
            let requests: Vec<_> = which
                .iter()
                .map(|&i| EvaluationRequest {
                    game: &game,
                    state: &states[i],
                })
                .collect();
            let mut output = Evaluations::default();
            evaluator.evaluate(&requests, &mut output);
            output
        };
        let inner = Hashing::default();
        let cached = CachedEvaluator::new(&inner, 2);
        // A batch with a repeat, then the same positions again: the legal
        // actions' logits and the values are the evaluator's.
        let first = ask(&cached, &[0, 1, 0]);
        let again = ask(&cached, &[1, 0]);
        let direct = ask(&Hashing::default(), &[1, 0]);
        assert_eq!(again.wdl, direct.wdl);
        for (row, state) in [1, 0].iter().enumerate() {
            game.legal_actions(&states[*state], &mut actions);
            for action in &actions {
                assert_eq!(
                    again.policy(row)[action.index()],
                    direct.policy(row)[action.index()]
                );
            }
        }
        assert_eq!(first.wdl[0], first.wdl[2]);
        assert_eq!(inner.asked.load(Ordering::Relaxed), 3);
        // Two kept: a third position pushes the first one out.
        ask(&cached, &[2]);
        ask(&cached, &[1]);
        assert_eq!(inner.asked.load(Ordering::Relaxed), 4);
        ask(&cached, &[0]);
        assert_eq!(inner.asked.load(Ordering::Relaxed), 5);
    }
}
