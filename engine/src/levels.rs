//! The playing levels of « Niveau », and the advice (« Conseil »), for
//! every game.
//!
//! A **level** is a number of simulations, a move-choice temperature on
//! visit counts and a probability of a random move, applied to every move:
//!
//! | level | simulations | temperature | random moves | meant for |
//! |---|---|---|---|---|
//! | 1 | 8 | 1.0 | 85 % | a first game: mostly random moves |
//! | 2 | 8 | 1.0 | 60 % | |
//! | 3 | 8 | 1.0 | 35 % | |
//! | 4 | 8 | 1.0 | 5 % | |
//! | 5 | 12 | 0.6 | 0 | plays what looks natural, often loosely |
//! | 6 | 16 | 0.3 | 0 | |
//! | 7 | 50 | 0 | 0 | always its best move from here on |
//! | 8 | 200 | 0 | 0 | |
//! | 9 | 800 | 0 | 0 | the strength the shipped model is measured at |
//! | 10 | 3 200 | 0 | 0 | full strength (the advice) |
//!
//! "Random moves" is the probability of a uniformly random legal move
//! instead of the search's: the blunders of the gentle levels. A win the
//! search has proven is always played, unless a random move comes instead.
//! No level uses root noise. The advice is level 10.
//!
//! Where a solution book proves a win ([`crate::book`]), the levels that
//! always play their best move (7 to 10, and the advice) play the book's
//! move; elsewhere they ask the exact solver, within a small budget,
//! before they trust their search ([`crate::guard`]): a proven win is
//! never let go, and a move proven lost is not played while another is
//! not. The gentler levels play as their search and randomness say.

use crate::agent::{Agent, MctsAgent};
use crate::book::Book;
use crate::game::{Action, Hints, Outcome, Playable};
use crate::guard::Guard;
use crate::search::{Evaluator, MoveChoice, SearchConfig, SearchResult};

/// One playing level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    /// 1 (gentlest) to 10 (full strength).
    pub number: u32,
    /// Simulations per move.
    pub simulations: u32,
    /// Temperature of the move choice on visit counts (0: the move of best
    /// lower confidence bound).
    pub temperature: f32,
    /// Probability of a uniformly random legal move instead of the search's.
    pub noise: f64,
}

/// Levels 1 to 10.
pub const LEVELS: [Level; 10] = [
    level(1, 8, 1.0, 0.85),
    level(2, 8, 1.0, 0.6),
    level(3, 8, 1.0, 0.35),
    level(4, 8, 1.0, 0.05),
    level(5, 12, 0.6, 0.0),
    level(6, 16, 0.3, 0.0),
    level(7, 50, 0.0, 0.0),
    level(8, 200, 0.0, 0.0),
    level(9, 800, 0.0, 0.0),
    level(10, 3200, 0.0, 0.0),
];

const fn level(number: u32, simulations: u32, temperature: f32, noise: f64) -> Level {
    Level {
        number,
        simulations,
        temperature,
        noise,
    }
}

/// The level of the advice.
pub const ADVICE_LEVEL: u32 = 10;

impl Level {
    /// Level `number`, or a one-line error.
    pub fn get(number: u32) -> Result<Level, String> {
        LEVELS
            .iter()
            .find(|level| level.number == number)
            .copied()
            .ok_or_else(|| format!("level must be between 1 and 10, found {number}"))
    }

    /// Whether the level always plays its best move (no random moves, no
    /// temperature): it plays the book's move where the book proves a win.
    pub fn plays_its_best(&self) -> bool {
        self.noise == 0.0 && self.temperature == 0.0
    }

    /// The level's way of choosing moves in `game`. A level that plays
    /// its best searches with the game's tactics
    /// ([`Hints::search_tactics`]), as it asks the solver before trusting
    /// its search ([`advise`]); the gentler levels search with the network
    /// alone.
    pub fn setting<G: Hints>(&self, game: &G) -> Setting {
        let base = if self.plays_its_best() {
            SearchConfig::for_game(game)
        } else {
            SearchConfig::default()
        };
        Setting {
            config: SearchConfig {
                simulations: self.simulations,
                ..base
            },
            choice: MoveChoice::for_temperature(self.temperature),
            noise: self.noise,
        }
    }
}

/// How a move is chosen: the search, the choice among searched moves, and
/// the probability of a random move instead.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    /// The search.
    pub config: SearchConfig,
    /// The choice after it.
    pub choice: MoveChoice,
    /// Probability of a uniformly random legal move instead.
    pub noise: f64,
}

impl Setting {
    /// `simulations` of `game`'s search and the move of best lower
    /// confidence bound, without noise.
    pub fn simulations<G: Hints>(game: &G, simulations: u32) -> Setting {
        Setting {
            config: SearchConfig {
                simulations,
                ..SearchConfig::for_game(game)
            },
            choice: MoveChoice::LowerConfidenceBound,
            noise: 0.0,
        }
    }

    /// Whether it plays its best: no random move, the move of best lower
    /// confidence bound (as [`MctsAgent::plays_its_best`]).
    pub fn plays_its_best(&self) -> bool {
        self.noise == 0.0 && self.choice == MoveChoice::LowerConfidenceBound
    }

    /// An agent that plays this way with `evaluator`, seeded by `seed`.
    pub fn agent<G: Hints, E: Evaluator<G> + Send>(
        &self,
        evaluator: E,
        seed: u64,
    ) -> MctsAgent<G, E> {
        MctsAgent::new(self.config.clone(), evaluator, self.choice, seed).with_noise(self.noise)
    }
}

/// The Grand Maître's advice on a position: the move and what the search
/// saw.
#[derive(Clone, Debug)]
pub struct Advice {
    /// The move to play.
    pub action: Action,
    /// The expected continuation, starting with the most visited move.
    pub principal_variation: Vec<Action>,
    /// The search, its win/draw/loss for the side to move uncalibrated.
    pub result: SearchResult,
    /// Every move, the one played first and then the most visited, with
    /// their values for the side to move.
    pub alternatives: Vec<crate::search::ChildReport>,
    /// Whether the move is a solution book's (a proven win), played
    /// whatever the search preferred.
    pub from_book: bool,
    /// The position's value for the side to move where the book or the
    /// solver proved it (the app can show « gain forcé »).
    pub proven: Option<Outcome>,
    /// Whether the solver overruled the search's move.
    pub solver_overruled: bool,
}

/// Searches `state` as `setting` says and chooses a move (a random one
/// with the setting's noise probability), or `book`'s move where the book
/// proves a win and the setting plays without random moves.
///
/// # Panics
///
/// Panics if the game is over at `state`.
pub fn advise<G: Playable, E: Evaluator<G> + Send>(
    game: &G,
    state: &G::State,
    evaluator: E,
    setting: &Setting,
    seed: u64,
    book: Option<&Book<G>>,
) -> Advice {
    let mut agent = setting.agent(evaluator, seed);
    let searched = agent.select(game, state);
    let booked = book
        .filter(|_| agent.plays_its_best())
        .and_then(|book| book.best_move(game, state));
    let result = agent.last_result().cloned().expect("the agent searched");
    let guarded = match booked {
        Some(_) => None,
        None if agent.plays_its_best() && game.guard_nodes() > 0 => {
            let mut guard = Guard::new(game.clone(), game.guard_nodes());
            Some(guard.check_search(game, state, searched, Some(&result)))
        }
        None => None,
    };
    let action = booked.or(guarded.map(|g| g.action)).unwrap_or(searched);
    let mut alternatives = result.children.clone();
    // The move played first, then the others by visits (already sorted).
    if let Some(index) = alternatives.iter().position(|c| c.action == action) {
        let chosen = alternatives.remove(index);
        alternatives.insert(0, chosen);
    }
    let mut principal_variation = agent.principal_variation(12);
    if principal_variation.first() != Some(&action) {
        principal_variation = vec![action];
    }
    Advice {
        action,
        principal_variation,
        result,
        alternatives,
        from_book: booked.is_some(),
        proven: match booked {
            Some(_) => Some(Outcome::Win),
            None => guarded.and_then(|g| g.proven),
        },
        solver_overruled: guarded.is_some_and(|g| g.overruled),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, Notation, Outcome};
    use crate::heraldis::Heraldis;
    use crate::search::UniformEvaluator;

    #[test]
    fn levels_grow_in_search_and_shrink_in_randomness() {
        for pair in LEVELS.windows(2) {
            assert_eq!(pair[1].number, pair[0].number + 1);
            assert!(pair[1].simulations >= pair[0].simulations);
            assert!(pair[1].temperature <= pair[0].temperature);
            assert!(pair[1].noise <= pair[0].noise);
            // Each level is stronger in at least one respect.
            assert!(
                pair[1].simulations > pair[0].simulations
                    || pair[1].temperature < pair[0].temperature
                    || pair[1].noise < pair[0].noise
            );
        }
        assert_eq!(Level::get(ADVICE_LEVEL).map(|l| l.temperature), Ok(0.0));
        assert!(Level::get(0).is_err() && Level::get(11).is_err());
    }

    #[test]
    fn the_advice_in_a_won_position_is_the_winning_move() {
        let game = Heraldis::default();
        // Light to move wins at d2 (a2 b2 c2 d2), whatever Dark threatens.
        let state = game.parse_state("5/5/5/LLL2/DDD2 l - 6").expect("position");
        let setting = Level::get(7).expect("level").setting(&game);
        let advice = advise(&game, &state, UniformEvaluator, &setting, 7, None);
        assert_eq!(game.format_action(&state, advice.action), "d2");
        assert_eq!(advice.result.proof, Some(Outcome::Win));
        assert_eq!(advice.alternatives[0].action, advice.action);
    }

    #[test]
    fn the_levels_that_play_their_best_search_with_the_games_tactics() {
        let game = crate::bulltricker::Bulltricker::default();
        for level in LEVELS {
            let config = level.setting(&game).config;
            assert_eq!(config.simulations, level.simulations);
            let tactics = SearchConfig {
                simulations: level.simulations,
                ..SearchConfig::for_game(&game)
            };
            if level.plays_its_best() {
                assert_eq!(config, tactics, "level {}", level.number);
            } else {
                assert_eq!(config.tactics.leaf_depth, 0, "level {}", level.number);
                assert_eq!(config.tactics.score_utility, 0.0, "level {}", level.number);
            }
        }
        // Heraldis has none: every level searches with the network alone.
        let heraldis = Heraldis::default();
        for level in LEVELS {
            let config = level.setting(&heraldis).config;
            assert_eq!(
                SearchConfig {
                    simulations: 800,
                    ..config
                },
                SearchConfig::default()
            );
        }
    }

    #[test]
    fn the_gentlest_level_plays_random_moves_and_the_strongest_none() {
        let game = Heraldis::default();
        let state = game.initial_state();
        let moves = |number: u32| {
            let setting = Level::get(number).expect("level").setting(&game);
            (0..60u64)
                .map(|seed| advise(&game, &state, UniformEvaluator, &setting, seed, None).action)
                .collect::<std::collections::HashSet<_>>()
                .len()
        };
        // 15 Alliance cells are legal on the first move: level 1 (85 %
        // random) plays many of them; level 7 (no noise, no temperature)
        // always the same against the uniform evaluator.
        assert!(moves(1) >= 8, "{}", moves(1));
        assert_eq!(moves(7), 1);
    }
}
