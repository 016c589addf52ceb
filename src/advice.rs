//! What the app asks of the Grand Maître: its move (« Conseil »), the
//! win-probability bar, and the playing levels of « Niveau ».
//!
//! The **bar** is the network with a small search ([`BAR_SIMULATIONS`]),
//! calibrated by the checkpoint's temperature when it has one
//! (`grandmaitre calibrate`). The **advice** is a full-strength search
//! (level 10). A **level** is a number of simulations, a move-choice
//! temperature on visit counts and a probability of a random move, applied
//! to every move:
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
//! No level uses root noise.

use grandmaitre_engine::search::{ChildReport, Evaluator};
use grandmaitre_engine::search::{MoveChoice, Search, SearchConfig, SearchResult};
use grandmaitre_engine::{Action, Game, Outcome, Player};
use grandmaitre_model::Calibration;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Simulations of the bar's search.
pub const BAR_SIMULATIONS: u32 = 64;

/// One playing level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    /// 1 (gentlest) to 10 (full strength).
    pub number: u32,
    /// Simulations per move.
    pub simulations: u32,
    /// Temperature of the move choice on visit counts (0: the most
    /// visited move).
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

    /// The search settings of the level.
    pub fn search_config(&self) -> SearchConfig {
        SearchConfig {
            simulations: self.simulations,
            ..SearchConfig::default()
        }
    }

    /// The level's way of choosing moves.
    pub fn setting(&self) -> Setting {
        Setting {
            config: self.search_config(),
            choice: self.choice(),
            noise: self.noise,
        }
    }

    /// How the level chooses its move after the search: by lower
    /// confidence bound without a temperature, else by sampling visit
    /// counts.
    pub fn choice(&self) -> MoveChoice {
        if self.temperature == 0.0 {
            MoveChoice::LowerConfidenceBound
        } else {
            MoveChoice::Visits {
                temperature: self.temperature,
            }
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
    /// `simulations` and the move of best lower confidence bound, without
    /// noise.
    pub fn simulations(simulations: u32) -> Setting {
        Setting {
            config: SearchConfig {
                simulations,
                ..SearchConfig::default()
            },
            choice: MoveChoice::LowerConfidenceBound,
            noise: 0.0,
        }
    }
}

/// The Grand Maître's advice on a position.
#[derive(Clone, Debug)]
pub struct Advice {
    /// The move to play.
    pub action: Action,
    /// The expected continuation, starting with the most visited move.
    pub principal_variation: Vec<Action>,
    /// The side to move.
    pub side: Player,
    /// Win, draw and loss for the side to move after the search
    /// (calibrated when a calibration is given).
    pub wdl: [f32; 3],
    /// A proven result for the side to move, if the search found one.
    pub proof: Option<Outcome>,
    /// Every move, the one played first and then the most visited, with
    /// their values for the side to move.
    pub alternatives: Vec<ChildReport>,
    /// Simulations run.
    pub simulations: u32,
}

/// Searches `state` as `setting` says and chooses a move (a random one
/// with the setting's noise probability).
///
/// # Panics
///
/// Panics if the game is over at `state`.
pub fn advise<G: Game, E: Evaluator<G>>(
    game: &G,
    state: &G::State,
    evaluator: &E,
    setting: &Setting,
    calibration: Option<&Calibration>,
    seed: u64,
) -> Advice {
    let simulations = setting.config.simulations;
    let mut search = Search::new(game.clone(), state.clone(), setting.config.clone(), seed);
    let result = search.run(evaluator);
    let principal_variation = search.principal_variation(12);
    let mut action = search.choose_move(setting.choice);
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x00B1_ADE5);
    if setting.noise > 0.0 && rng.random_bool(setting.noise.min(1.0)) {
        let mut actions = Vec::new();
        game.legal_actions(state, &mut actions);
        action = actions[rng.random_range(0..actions.len())];
    }
    let mut alternatives = result.children.clone();
    // The move played first, then the others by visits (already sorted).
    if let Some(index) = alternatives.iter().position(|c| c.action == action) {
        let chosen = alternatives.remove(index);
        alternatives.insert(0, chosen);
    }
    Advice {
        action,
        principal_variation,
        side: result.side,
        wdl: shown_wdl(&result, calibration),
        proof: result.proof,
        alternatives,
        simulations,
    }
}

/// The bar: P(first player wins), P(draw), P(second player wins), from the
/// network with a small search, calibrated when a calibration is given.
/// A finished game shows its result.
pub fn bar<G: Game, E: Evaluator<G>>(
    game: &G,
    state: &G::State,
    evaluator: &E,
    calibration: Option<&Calibration>,
) -> [f32; 3] {
    let (side, wdl) = match game.outcome(state) {
        Some(outcome) => (game.current_player(state), exact(outcome)),
        None => {
            let result = bar_search(game, state, evaluator);
            (result.side, shown_wdl(&result, calibration))
        }
    };
    for_first_player(side, wdl)
}

/// The bar's search, uncalibrated (what `calibrate` fits).
pub fn bar_search<G: Game, E: Evaluator<G>>(
    game: &G,
    state: &G::State,
    evaluator: &E,
) -> SearchResult {
    let config = SearchConfig {
        simulations: BAR_SIMULATIONS,
        ..SearchConfig::default()
    };
    Search::new(game.clone(), state.clone(), config, 0).run(evaluator)
}

/// The win/draw/loss to show for a search: a proven result exactly, else
/// the search's mean, calibrated.
pub fn shown_wdl(result: &SearchResult, calibration: Option<&Calibration>) -> [f32; 3] {
    match result.proof {
        Some(outcome) => exact(outcome),
        None => match calibration {
            // The calibration speaks of the first player; the result of
            // the side to move (`for_first_player` turns both ways).
            Some(calibration) => for_first_player(
                result.side,
                calibration.apply(for_first_player(result.side, result.wdl), result.side),
            ),
            None => result.wdl,
        },
    }
}

/// The one-hot win/draw/loss of `outcome`.
pub fn exact(outcome: Outcome) -> [f32; 3] {
    match outcome {
        Outcome::Win => [1.0, 0.0, 0.0],
        Outcome::Draw => [0.0, 1.0, 0.0],
        Outcome::Loss => [0.0, 0.0, 1.0],
    }
}

/// `wdl` of `side` as P(first player wins), P(draw), P(second wins).
pub fn for_first_player(side: Player, wdl: [f32; 3]) -> [f32; 3] {
    match side {
        Player::First => wdl,
        Player::Second => [wdl[2], wdl[1], wdl[0]],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grandmaitre_engine::heraldis::Heraldis;
    use grandmaitre_engine::search::UniformEvaluator;

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
    fn the_bar_of_a_won_position_is_certain_and_seen_from_light() {
        let game = Heraldis::default();
        // Light to move wins at d2 (a2 b2 c2 d2), whatever Dark threatens.
        let state = game.parse_state("5/5/5/LLL2/DDD2 l - 6").expect("position");
        assert_eq!(bar(&game, &state, &UniformEvaluator, None), [1.0, 0.0, 0.0]);
        let advice = advise(
            &game,
            &state,
            &UniformEvaluator,
            &Level::get(7).expect("level").setting(),
            None,
            7,
        );
        assert_eq!(game.format_action(&state, advice.action), "d2");
        assert_eq!(advice.wdl, [1.0, 0.0, 0.0]);
        assert_eq!(advice.proof, Some(Outcome::Win));
    }

    #[test]
    fn a_finished_game_shows_its_result() {
        let game = Heraldis::default();
        let state = game
            .parse_state("5/5/5/LLLL1/DDD2 d - 7")
            .expect("position");
        assert_eq!(bar(&game, &state, &UniformEvaluator, None), [1.0, 0.0, 0.0]);
    }
}
