//! The games a calibration is fitted on, with the bar recorded before
//! every move after a random opening: the engine against itself at one
//! level, or levels paired as the app's players meet them (a strong level
//! against a gentle one, either side first).

use std::collections::{HashMap, HashSet};

use grandmaitre_engine::arena::opening_moves;
use grandmaitre_engine::book::Book;
use grandmaitre_engine::levels::{Level, Setting, advise};
use grandmaitre_engine::search::{CachedEvaluator, Evaluator, Search, SearchConfig};
use grandmaitre_engine::{
    Action, Game, Hints, Notation, Outcome, Player, Symmetric, players_index,
};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::records::Played;
use crate::bar::bar_search;

/// Level pairs of mixed games (the stronger first; each is played both
/// ways round).
pub const MIXED_LEVELS: [[u32; 2]; 8] = [
    [10, 5],
    [7, 3],
    [9, 6],
    [8, 4],
    [10, 7],
    [6, 2],
    [9, 1],
    [5, 3],
];

/// Who plays the calibration games.
#[derive(Clone, Debug, PartialEq)]
pub enum Pairing {
    /// One level against itself (its search and move choice; its random
    /// moves are left out).
    SelfPlay(Level),
    /// The pairs of [`MIXED_LEVELS`] in turn, each level as it plays in the
    /// app (random moves included), colours swapped every other game.
    Mixed,
    /// The ordered pairs of levels given (the first player's level, the
    /// second's), in turn, each level as it plays in the app.
    Pairs(Vec<[u32; 2]>),
}

impl Pairing {
    /// `self` (`level` against itself), `mixed`, `every` (every ordered
    /// pair of levels 1–10) or pairs such as `10v5,5v10,4v4`, or a one-line
    /// error.
    pub fn parse(text: &str, level: Level) -> Result<Pairing, String> {
        match text {
            "self" => return Ok(Pairing::SelfPlay(level)),
            "mixed" => return Ok(Pairing::Mixed),
            "every" => {
                return Ok(Pairing::Pairs(
                    (1..=10)
                        .flat_map(|a| (1..=10).map(move |b| [a, b]))
                        .collect(),
                ));
            }
            _ => {}
        }
        let pairs = text
            .split(',')
            .map(|pair| {
                let levels = pair
                    .split_once('v')
                    .and_then(|(a, b)| Some([a.trim().parse().ok()?, b.trim().parse().ok()?]))
                    .filter(|levels: &[u32; 2]| levels.iter().all(|&n| Level::get(n).is_ok()));
                levels.ok_or_else(|| {
                    format!(
                        "invalid --pairing '{text}': expected self, mixed, every or pairs of levels 1-10 such as 10v5,5v10"
                    )
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Pairing::Pairs(pairs))
    }

    /// The highest level that plays.
    pub fn top_level(&self) -> u32 {
        match self {
            Pairing::SelfPlay(level) => level.number,
            Pairing::Mixed => MIXED_LEVELS.iter().flatten().copied().max().unwrap_or(10),
            Pairing::Pairs(pairs) => pairs.iter().flatten().copied().max().unwrap_or(10),
        }
    }

    /// In words, for reports: "level 10 against itself", "mixed levels
    /// (10 v 5, …)", "levels 10 v 5, 5 v 10".
    pub fn words(&self) -> String {
        let list = |pairs: &mut dyn Iterator<Item = [u32; 2]>| {
            pairs
                .map(|[a, b]| format!("{a} v {b}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Pairing::SelfPlay(level) => format!("level {} against itself", level.number),
            Pairing::Mixed => format!("mixed levels ({})", list(&mut MIXED_LEVELS.iter().copied())),
            Pairing::Pairs(pairs) if pairs.len() == 100 => {
                "every ordered pair of levels 1-10".to_string()
            }
            Pairing::Pairs(pairs) => format!("levels {}", list(&mut pairs.iter().copied())),
        }
    }
}

/// How calibration games are played.
#[derive(Clone, Debug, PartialEq)]
pub struct GameSettings {
    /// Who plays.
    pub pairing: Pairing,
    /// Random plies of each opening are drawn from 0 to this; only the
    /// positions after them are recorded (the bar predicts play, not
    /// dice).
    pub opening_plies: u32,
    /// Seed of the openings and of the players.
    pub seed: u64,
}

impl GameSettings {
    /// The levels of game `index`: the first player's, the second's.
    pub fn levels(&self, index: u32) -> [Level; 2] {
        match &self.pairing {
            Pairing::SelfPlay(level) => [*level, *level],
            Pairing::Mixed => {
                let [strong, gentle] = MIXED_LEVELS[(index as usize / 2) % MIXED_LEVELS.len()]
                    .map(|n| Level::get(n).expect("a level of the table"));
                if index.is_multiple_of(2) {
                    [strong, gentle]
                } else {
                    [gentle, strong]
                }
            }
            Pairing::Pairs(pairs) => pairs[index as usize % pairs.len()]
                .map(|n| Level::get(n).expect("a level checked when read")),
        }
    }

    /// How the two levels of game `index` choose their moves: as the
    /// levels do, except that self-play leaves the random moves out.
    pub fn settings<G: Hints>(&self, game: &G, index: u32) -> [Setting; 2] {
        self.levels(index).map(|level| Setting {
            noise: self.noise(&level),
            ..level.setting(game)
        })
    }

    /// The probability of a random move of `level` in these games: the
    /// level's, except in self-play, which leaves them out.
    fn noise(&self, level: &Level) -> f64 {
        match self.pairing {
            Pairing::SelfPlay(_) => 0.0,
            _ => level.noise,
        }
    }

    /// Whether both levels of game `index` play their best (no random
    /// move, no temperature): the game is then a function of the position
    /// its opening reaches, and two such games of one position and one
    /// pair of levels are one game.
    pub fn deterministic(&self, index: u32) -> bool {
        self.levels(index)
            .iter()
            .all(|level| level.temperature == 0.0 && self.noise(level) == 0.0)
    }

    /// The random opening of game `index`: a number of plies drawn from 0
    /// to `opening_plies`, then that many random legal moves; attempt 0
    /// is the game's own draw, each later attempt another. `None` if no
    /// opening of those plies could be drawn.
    pub fn opening<G: Game>(&self, game: &G, index: u32, attempt: u32) -> Option<Vec<Action>> {
        let salt = u64::from(attempt) << 44;
        let mut rng = SmallRng::seed_from_u64(self.seed ^ (u64::from(index) << 20) ^ 0x0CA1 ^ salt);
        let plies = rng.random_range(0..=self.opening_plies);
        let opening = opening_moves(game, index, plies, self.seed ^ salt);
        (opening.len() == plies as usize).then_some(opening)
    }
}

/// How many times a deterministic game's opening is drawn again before
/// the game is left out.
pub const OPENING_ATTEMPTS: u32 = 100;

/// What a deterministic game is known by: the position its opening
/// reaches (in the game's notation) and its two levels.
pub type OpeningKey = (String, [u32; 2]);

/// The position `opening` (legal moves from the start) reaches.
pub fn reached<G: Game>(game: &G, opening: &[Action]) -> G::State {
    let mut state = game.initial_state();
    for &action in opening {
        game.apply_unchecked(&mut state, action);
    }
    state
}

/// A deterministic game's key: the position its opening reached, and its
/// levels.
pub fn opening_key<G: Notation>(game: &G, reached: &G::State, levels: [u32; 2]) -> OpeningKey {
    (game.format_state(reached), levels)
}

/// The openings of games `0..games`. A deterministic game (see
/// [`GameSettings::deterministic`]) whose opening reaches a position that
/// a deterministic game of the same levels already started from, earlier
/// in the run or in `known`, would be a copy: its opening is drawn again
/// (up to [`OPENING_ATTEMPTS`] times, then the game is left out, `None`).
/// Drawn in order of the games, so the same seed gives the same openings
/// whatever the threads; `known` gains the run's own.
pub fn distinct_openings<G: Hints + Notation>(
    game: &G,
    settings: &GameSettings,
    games: u32,
    known: &mut HashSet<OpeningKey>,
) -> Vec<Option<Vec<Action>>> {
    distinct_openings_after(game, settings, games, known, &HashMap::new())
}

/// [`distinct_openings`] for a run that resumes: the games of `finished`
/// (by their number, with their opening's key) were played already, and
/// their openings are taken as drawn (`None` in their place). With the
/// same `known`, the games left get the openings an uninterrupted run
/// would have given them.
pub fn distinct_openings_after<G: Hints + Notation>(
    game: &G,
    settings: &GameSettings,
    games: u32,
    known: &mut HashSet<OpeningKey>,
    finished: &HashMap<u32, OpeningKey>,
) -> Vec<Option<Vec<Action>>> {
    (0..games)
        .map(|index| {
            if let Some(key) = finished.get(&index) {
                if settings.deterministic(index) {
                    known.insert(key.clone());
                }
                return None;
            }
            if !settings.deterministic(index) {
                return settings.opening(game, index, 0);
            }
            let levels = settings.levels(index).map(|level| level.number);
            (0..OPENING_ATTEMPTS).find_map(|attempt| {
                let opening = settings.opening(game, index, attempt)?;
                known
                    .insert(opening_key(game, &reached(game, &opening), levels))
                    .then_some(opening)
            })
        })
        .collect()
}

/// Positions whose network outputs a calibration game keeps.
const GAME_CACHE: usize = 50_000;

/// Game `index` from `opening` (its random plies, see
/// [`distinct_openings`]), then the two levels, the bar (uncalibrated),
/// what proves the result where something does (`book`, or the bar's own
/// search) and the network's own win/draw/loss recorded before every move.
pub fn play<G: Hints + Notation + Symmetric, E: Evaluator<G> + Sync>(
    game: &G,
    evaluator: &E,
    book: Option<&Book<G>>,
    settings: &GameSettings,
    index: u32,
    opening: &[Action],
) -> Played {
    let mut state = game.initial_state();
    let mut opening_text = Vec::new();
    for &action in opening {
        opening_text.push(game.format_action(&state, action));
        game.apply_unchecked(&mut state, action);
    }
    let levels = settings.levels(index);
    let seed = settings.seed ^ u64::from(index);
    // The network's outputs kept across the game's searches, as the app
    // keeps them (its module's 50 000 positions): the same answers, fewer
    // evaluations.
    let cached = CachedEvaluator::new(evaluator, GAME_CACHE);
    let evaluator = &cached;
    let settings_of = settings.settings(game, index);
    let one = SearchConfig {
        simulations: 1,
        ..SearchConfig::default()
    };
    let mut predictions = Vec::new();
    let mut network = Vec::new();
    let mut sides = Vec::new();
    let mut proofs = Vec::new();
    let mut kept = true;
    let mut moves = Vec::new();
    let first_ply = game.ply(&state);
    while game.outcome(&state).is_none() {
        let side = game.current_player(&state);
        sides.push(u8::from(side != Player::First));
        let bar = bar_search(game, &state, evaluator);
        predictions.push(bar.wdl.for_players(bar.side).0);
        let from_book = book.and_then(|book| book.outcome(game, &state));
        let proof = from_book
            .or(bar.proof)
            .map(|outcome| players_index(outcome, side) as u8);
        // The bar reads a proof as kept by the strong levels where they
        // keep it: the book's, or any in a game whose strong levels ask
        // the solver (as `bar::bar` says).
        kept &= proof.is_none() || from_book.is_some() || game.guard_nodes() > 0;
        proofs.push(proof);
        let raw = Search::new(game.clone(), state.clone(), one.clone(), 0).run(evaluator);
        network.push(raw.wdl.for_players(raw.side).0);
        // Each level plays as the app plays it: a fresh search per move,
        // the book's move and the solver's check where it plays its best.
        let move_seed = seed
            .wrapping_add(u64::from(levels[side.index()].number))
            .wrapping_add((moves.len() as u64) << 32);
        let action = advise(
            game,
            &state,
            evaluator,
            &settings_of[side.index()],
            move_seed,
            book,
        )
        .action;
        moves.push(game.format_action(&state, action));
        game.apply_unchecked(&mut state, action);
    }
    let result = match game.outcome_for(&state, Player::First) {
        Some(Outcome::Win) => 0,
        Some(Outcome::Draw) => 1,
        _ => 2,
    };
    Played {
        predictions,
        network,
        sides,
        result,
        levels: Some(levels.map(|level| level.number)),
        proofs,
        first_ply: u32::try_from(first_ply).ok(),
        opening: opening_text,
        moves,
        proofs_kept: kept,
        index: Some(index),
        ..Played::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grandmaitre_engine::heraldis::Heraldis;
    use grandmaitre_engine::search::UniformEvaluator;

    #[test]
    fn a_calibration_game_records_every_position_and_its_result() {
        let game = Heraldis::default();
        let settings = GameSettings {
            pairing: Pairing::SelfPlay(Level::get(7).expect("level")),
            opening_plies: 2,
            seed: 5,
        };
        let opening = settings.opening(&game, 3, 0).expect("an opening");
        let played = play(&game, &UniformEvaluator, None, &settings, 3, &opening);
        let positions = played.predictions.len();
        assert!(positions > 0);
        assert_eq!(played.network.len(), positions);
        assert_eq!(played.sides.len(), positions);
        // The players alternate (a pass is a move too).
        assert!(played.sides.windows(2).all(|w| w[0] != w[1]));
        assert!(played.result <= 2);
        assert_eq!(played.levels, Some([7, 7]));
        for p in played.predictions.iter().chain(&played.network) {
            assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{p:?}");
        }
        // The opening and the moves replay the game: its sides to move and
        // its result.
        assert!(played.opening.len() <= 2);
        assert_eq!(played.moves.len(), positions);
        let mut state = game.initial_state();
        for text in &played.opening {
            let action = game.parse_action(&state, text).expect("an opening move");
            state = game.play(&state, action).expect("legal");
        }
        for (text, &side) in played.moves.iter().zip(&played.sides) {
            assert_eq!(game.current_player(&state).index(), usize::from(side));
            let action = game.parse_action(&state, text).expect("a recorded move");
            state = game.play(&state, action).expect("legal");
        }
        let result = game
            .outcome_for(&state, Player::First)
            .map(|o| players_index(o, Player::First));
        assert_eq!(result, Some(played.result));
    }

    #[test]
    fn games_of_levels_that_play_their_best_never_repeat_an_opening() {
        let game = Heraldis::default();
        let best = GameSettings {
            pairing: Pairing::SelfPlay(Level::get(10).expect("level")),
            opening_plies: 0,
            seed: 3,
        };
        // Level 10 against itself from the start alone is one game.
        assert!(best.deterministic(0));
        let openings = distinct_openings(&game, &best, 5, &mut HashSet::new());
        assert_eq!(openings[0].as_deref(), Some(&[][..]));
        assert!(openings[1..].iter().all(Option::is_none), "{openings:?}");
        // Random moves make games of one opening differ: all are played.
        let mixed = GameSettings {
            pairing: Pairing::Mixed,
            ..best.clone()
        };
        assert!(!mixed.deterministic(0));
        // Self-play leaves the random moves out, not the temperature.
        for (level, deterministic) in [(4, false), (5, false), (7, true)] {
            let gentle = GameSettings {
                pairing: Pairing::SelfPlay(Level::get(level).expect("level")),
                ..best.clone()
            };
            assert_eq!(gentle.deterministic(0), deterministic, "level {level}");
        }
        let openings = distinct_openings(&game, &mixed, 5, &mut HashSet::new());
        assert!(openings.iter().all(|o| o.as_deref() == Some(&[][..])));
        // With plies to draw, every game gets an opening of its own, the
        // first one its own draw, and a known position is drawn again.
        let plies = GameSettings {
            opening_plies: 2,
            ..best
        };
        let key = |opening: &[Action]| opening_key(&game, &reached(&game, opening), [10, 10]);
        let mut known = HashSet::new();
        let openings = distinct_openings(&game, &plies, 12, &mut known);
        assert_eq!(openings[0], plies.opening(&game, 0, 0));
        let keys: HashSet<OpeningKey> = openings
            .iter()
            .map(|o| key(o.as_deref().expect("an opening")))
            .collect();
        assert_eq!(keys.len(), 12);
        assert_eq!(keys, known);
        let mut first_known = HashSet::from([key(openings[0].as_deref().expect("an opening"))]);
        let again = distinct_openings(&game, &plies, 1, &mut first_known);
        let other = again[0].as_deref().expect("another opening");
        assert_ne!(key(other), key(openings[0].as_deref().expect("an opening")));
        // The same seed draws the same openings.
        assert_eq!(
            distinct_openings(&game, &plies, 12, &mut HashSet::new()),
            openings
        );
    }

    #[test]
    fn a_resumed_run_draws_the_openings_an_uninterrupted_one_draws() {
        let game = Heraldis::default();
        // At most one random ply, so at most 26 openings for 30 games of
        // level 10 against itself: openings collide, a collision is drawn
        // again from what came before, and some games are left out.
        let settings = GameSettings {
            pairing: Pairing::SelfPlay(Level::get(10).expect("level")),
            opening_plies: 1,
            seed: 5,
        };
        let whole = distinct_openings(&game, &settings, 30, &mut HashSet::new());
        assert!(whole.iter().any(Option::is_none), "some left out");
        // Games 0, 3 and 7 were played before the interruption.
        let key = |index: usize| {
            let opening = whole[index].as_deref().expect("an opening");
            opening_key(&game, &reached(&game, opening), [10, 10])
        };
        let finished: HashMap<u32, OpeningKey> = [0, 3, 7]
            .into_iter()
            .map(|i| (i, key(i as usize)))
            .collect();
        let resumed = distinct_openings_after(&game, &settings, 30, &mut HashSet::new(), &finished);
        for (index, (after, before)) in resumed.iter().zip(&whole).enumerate() {
            if finished.contains_key(&(index as u32)) {
                assert_eq!(after, &None, "game {index} is not played again");
            } else {
                assert_eq!(after, before, "game {index}");
            }
        }
    }

    #[test]
    fn mixed_games_pair_levels_both_ways_round() {
        let settings = GameSettings {
            pairing: Pairing::Mixed,
            opening_plies: 0,
            seed: 1,
        };
        let numbers = |index| settings.levels(index).map(|l| l.number);
        assert_eq!(numbers(0), [10, 5]);
        assert_eq!(numbers(1), [5, 10]);
        assert_eq!(numbers(2), [7, 3]);
        // Without an opening the first recorded position is the start.
        let game = Heraldis::default();
        let played = play(&game, &UniformEvaluator, None, &settings, 2, &[]);
        assert_eq!(played.sides[0], 0);
        assert_eq!(played.levels, Some([7, 3]));
    }
}
