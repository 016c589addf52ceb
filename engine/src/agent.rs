//! Agents: anything that picks moves (random play, a search, alpha-beta), as
//! the arena and the engine protocol see them.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::game::{Action, Game, Hints};
use crate::search::{Evaluator, MoveChoice, Search, SearchConfig, SearchResult};

/// Something that chooses moves in a game.
pub trait Agent<G: Game>: Send {
    /// Chooses a move in `state`, which is not a finished game.
    fn select(&mut self, game: &G, state: &G::State) -> Action;

    /// Told of every move played in the game (its own included), so that a
    /// search can keep its tree.
    fn observe(&mut self, _game: &G, _state: &G::State, _action: Action) {}

    /// The win/draw/loss estimate for the side to move of the last position
    /// this agent searched, if it makes one.
    fn last_result(&self) -> Option<&SearchResult> {
        None
    }
}

/// The action of `actions` (not empty) with the greatest `key`, drawn at
/// random with `rng` among those that share it: the choice of the
/// hand-written players.
pub fn best_at_random<K: Ord>(
    rng: &mut SmallRng,
    actions: &[Action],
    key: impl Fn(Action) -> K,
) -> Action {
    let keys: Vec<K> = actions.iter().map(|&a| key(a)).collect();
    let best = keys.iter().max().expect("a legal move");
    let ties: Vec<Action> = actions
        .iter()
        .zip(&keys)
        .filter(|(_, k)| *k == best)
        .map(|(&a, _)| a)
        .collect();
    ties[rng.random_range(0..ties.len())]
}

/// Uniformly random legal moves.
#[derive(Debug)]
pub struct RandomAgent {
    rng: SmallRng,
    actions: Vec<Action>,
}

impl RandomAgent {
    /// A random agent seeded by `seed`.
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent {
            rng: SmallRng::seed_from_u64(seed),
            actions: Vec::new(),
        }
    }
}

impl<G: Game> Agent<G> for RandomAgent {
    fn select(&mut self, game: &G, state: &G::State) -> Action {
        game.legal_actions(state, &mut self.actions);
        self.actions[self.rng.random_range(0..self.actions.len())]
    }
}

/// An agent whose first moves in a game are uniformly random, then another
/// agent's (told of every move, so that a search keeps its tree): random
/// openings for one side only, as when a match plays from the start.
pub struct RandomOpening<G: Game> {
    random_moves: u32,
    random: RandomAgent,
    inner: Box<dyn Agent<G>>,
    last_random: bool,
}

impl<G: Game> std::fmt::Debug for RandomOpening<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RandomOpening")
            .field("random_moves", &self.random_moves)
            .finish_non_exhaustive()
    }
}

impl<G: Game> RandomOpening<G> {
    /// `inner`, after `random_moves` random moves of its own, drawn from
    /// `seed`.
    pub fn new(random_moves: u32, seed: u64, inner: Box<dyn Agent<G>>) -> RandomOpening<G> {
        RandomOpening {
            random_moves,
            random: RandomAgent::new(seed),
            inner,
            last_random: false,
        }
    }
}

impl<G: Game> Agent<G> for RandomOpening<G> {
    fn select(&mut self, game: &G, state: &G::State) -> Action {
        self.last_random = self.random_moves > 0;
        if self.last_random {
            self.random_moves -= 1;
            self.random.select(game, state)
        } else {
            self.inner.select(game, state)
        }
    }

    fn observe(&mut self, game: &G, state: &G::State, action: Action) {
        self.inner.observe(game, state, action);
    }

    fn last_result(&self) -> Option<&SearchResult> {
        if self.last_random {
            None
        } else {
            self.inner.last_result()
        }
    }
}

/// A Monte-Carlo tree search with some evaluator (random rollouts, the
/// uniform policy or a network), keeping its tree between moves when the
/// configuration asks for it; with a noise probability, it plays a
/// uniformly random legal move instead of the search's that often (the
/// blunders of a gentle playing level).
#[derive(Debug)]
pub struct MctsAgent<G: Game, E> {
    config: SearchConfig,
    evaluator: E,
    choice: MoveChoice,
    seed: u64,
    search: Option<Search<G>>,
    last: Option<SearchResult>,
    noise: f64,
    random: RandomAgent,
    rng: SmallRng,
}

impl<G: Hints, E: Evaluator<G> + Send> MctsAgent<G, E> {
    /// An agent searching with `config` and `evaluator`, choosing its move by
    /// `choice`.
    pub fn new(config: SearchConfig, evaluator: E, choice: MoveChoice, seed: u64) -> Self {
        MctsAgent {
            config,
            evaluator,
            choice,
            seed,
            search: None,
            last: None,
            noise: 0.0,
            random: RandomAgent::new(seed ^ 0x00B1_ADE5),
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    /// The same agent, playing a random legal move instead of the search's
    /// with probability `noise` (0 to 1).
    pub fn with_noise(mut self, noise: f64) -> Self {
        self.set_noise(noise);
        self
    }

    /// Whether it plays its best move: no random moves, no temperature
    /// (then a solution book's move, where one proves a win, is its).
    pub fn plays_its_best(&self) -> bool {
        self.noise == 0.0 && self.choice == MoveChoice::LowerConfidenceBound
    }

    /// Changes the probability of a random move from the next move on.
    pub fn set_noise(&mut self, noise: f64) {
        self.noise = noise.clamp(0.0, 1.0);
    }

    /// The settings.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Changes the settings from the next move on.
    pub fn set_config(&mut self, config: SearchConfig) {
        if let Some(search) = &mut self.search {
            search.set_config(config.clone());
        }
        self.config = config;
    }

    /// Drops the kept tree, so that the next search starts afresh: needed
    /// when the rules change under an equal position (another layout or
    /// board size), whose moves the tree would still offer.
    pub fn clear_tree(&mut self) {
        self.search = None;
    }

    /// Changes the evaluator (a network built for another board size),
    /// and drops the kept tree.
    pub fn set_evaluator(&mut self, evaluator: E) {
        self.evaluator = evaluator;
        self.search = None;
    }

    /// Changes how the move is chosen after the search.
    pub fn set_choice(&mut self, choice: MoveChoice) {
        self.choice = choice;
    }

    /// Searches `state` and returns what the search found, without choosing
    /// a move.
    pub fn analyse(&mut self, game: &G, state: &G::State) -> &SearchResult {
        self.prepare_search(game, state);
        let search = self.search.as_mut().expect("search prepared");
        let result = search.run(&self.evaluator);
        self.last.insert(result)
    }

    /// Makes `self.search` a search rooted at `state`: the kept tree if it is
    /// rooted there, else a new one.
    fn prepare_search(&mut self, game: &G, state: &G::State) {
        let reusable = self
            .search
            .as_ref()
            .is_some_and(|s| s.state() == state && self.config.reuse_tree);
        if !reusable {
            self.seed = self.seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            self.search = Some(Search::new(
                game.clone(),
                state.clone(),
                self.config.clone(),
                self.seed,
            ));
        }
    }

    /// The principal variation of the last search.
    pub fn principal_variation(&self, max_length: usize) -> Vec<Action> {
        self.search
            .as_ref()
            .map_or_else(Vec::new, |s| s.principal_variation(max_length))
    }
}

impl<G: Hints, E: Evaluator<G> + Send> Agent<G> for MctsAgent<G, E> {
    /// Searches, then chooses among the searched moves; a random move
    /// comes instead with the noise probability (the search still runs, so
    /// that its result can be shown beside the move).
    fn select(&mut self, game: &G, state: &G::State) -> Action {
        self.analyse(game, state);
        let choice = self.choice;
        let chosen = self.search.as_mut().expect("analysed").choose_move(choice);
        if self.noise > 0.0 && self.rng.random_bool(self.noise) {
            self.random.select(game, state)
        } else {
            chosen
        }
    }

    fn observe(&mut self, _game: &G, state: &G::State, action: Action) {
        if let Some(search) = &mut self.search {
            if search.state() == state && self.config.reuse_tree {
                search.advance(action);
            } else {
                self.search = None;
            }
        }
    }

    fn last_result(&self) -> Option<&SearchResult> {
        self.last.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heraldis::Heraldis;
    use crate::search::UniformEvaluator;

    fn moves_played(probability: f64) -> std::collections::HashSet<Action> {
        let game = Heraldis::default();
        let state = game.initial_state();
        let config = SearchConfig {
            simulations: 2,
            reuse_tree: false,
            ..SearchConfig::default()
        };
        let mut agent = MctsAgent::new(
            config,
            UniformEvaluator,
            MoveChoice::LowerConfidenceBound,
            3,
        )
        .with_noise(probability);
        (0..300).map(|_| agent.select(&game, &state)).collect()
    }

    #[test]
    fn without_noise_the_search_plays_and_with_full_noise_every_move_appears() {
        assert_eq!(moves_played(0.0).len(), 1);
        // 15 Alliance cells are legal on the first move.
        assert_eq!(moves_played(1.0).len(), 15);
        let some = moves_played(0.3).len();
        assert!(some > 1 && some <= 15, "{some}");
    }
}
