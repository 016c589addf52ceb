//! Many self-play games at once: every game searches its current move, one
//! evaluator call serves the leaves of all of them, each game plays its move,
//! and finished games make room for new ones.
//!
//! - Playout-cap randomisation (KataGo): a fraction of the moves get the full
//!   search, with root noise, and only those become policy targets; the
//!   others get a cheap search without noise.
//! - Temperature: moves are sampled by visit count in the opening plies,
//!   then the most visited move is played.
//! - Decided games are shortened, not resigned: once the search proves the
//!   result or is nearly certain of it, the remaining moves get cheap
//!   searches and are no policy targets, but the game is played to its end so
//!   that every value target is a real result.
//! - With the Gumbel root, the move is the Gumbel root's choice and the
//!   policy target its improved policy.
//! - Forced playouts and policy target pruning (KataGo) on full PUCT
//!   searches, when asked for.
//! - Reverse starts (a reverse curriculum), where the game has them: a
//!   share of the games begins near the game's end, walked back a random
//!   number of moves, so that a fresh network meets real results; and
//!   opening walks, a share begun after random moves from the start.
//! - Each policy target keeps its surprise, the KL divergence from the
//!   root's priors (noise included), for training to weight it by.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use grandmaitre_engine::search::{
    Evaluator, GumbelConfig, MoveChoice, RootSelection, Search, SearchConfig, SearchResult,
    Tactics, run_searches,
};
use grandmaitre_engine::{Game, Hints, Notation, Outcome, ToMove};

use crate::record::{GameRecord, PositionRecord};

/// How self-play games are played (a training run's `[selfplay]` table
/// holds these fields beside its own; every field has a default).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfPlayConfig {
    /// Games played at once (their leaves share each evaluator call).
    pub games_in_flight: usize,
    /// Simulations of a full search.
    pub full_simulations: u32,
    /// Simulations of a cheap search.
    pub cheap_simulations: u32,
    /// Fraction of moves that get a full search (and become policy targets).
    pub full_search_fraction: f64,
    /// Plies at the start of a game whose move is sampled by visit count.
    pub temperature_plies: u32,
    /// The sampling temperature over those plies.
    pub temperature: f32,
    /// Root Dirichlet noise weight on full searches.
    pub dirichlet_weight: f32,
    /// A game is decided once the side to move's win or loss probability
    /// passes this (or the result is proven).
    pub decided_threshold: f32,
    /// Use the Gumbel root instead of PUCT with noise.
    pub gumbel: bool,
    /// Leaves each search gathers per evaluator call.
    pub leaves_per_batch: u32,
    /// Searches use the moves the rules force (decisive and anti-decisive
    /// moves; see `SearchConfig::decisive_moves`).
    pub decisive_moves: bool,
    /// Forced playouts on full PUCT searches (`SearchConfig::forced_playouts`;
    /// 0: none).
    pub forced_playouts: f32,
    /// Share of the games that start from a reverse start
    /// (`Game::reverse_start`) where the game has them.
    pub reverse_start_fraction: f64,
    /// Reverse starts walk back a number of moves of each side drawn from
    /// 1 to this (0: no reverse starts).
    pub reverse_start_plies: u32,
    /// Share of the games that start from an opening walk
    /// (`Game::opening_walk`) where the game has them.
    pub opening_walk_fraction: f64,
    /// Opening walks play a number of random moves of each side drawn from
    /// 1 to this (0: no opening walks).
    pub opening_walk_plies: u32,
    /// Weight of the implicit minimax backups
    /// (`Tactics::minimax_weight`; 0: none).
    pub minimax_weight: f32,
    /// Take a position's only move without an evaluation
    /// (`Tactics::skip_single_moves`).
    pub skip_single_moves: bool,
    /// Plies of the alpha-beta search on the game's heuristic from each
    /// new position of the tree (`Tactics::leaf_depth`; 0: none).
    pub leaf_depth: u32,
    /// Plies of that search from the root's moves
    /// (`Tactics::root_leaf_depth`).
    pub root_leaf_depth: u32,
    /// Share of its score in a new leaf's value
    /// (`Tactics::leaf_weight`).
    pub leaf_weight: f32,
    /// Weight of the score utility on the game's heuristic score
    /// (`Tactics::score_utility`; 0: none).
    pub score_utility: f32,
    /// Its scale (`Tactics::score_scale`; 0: the game's).
    pub score_scale: f32,
}

impl Default for SelfPlayConfig {
    fn default() -> SelfPlayConfig {
        SelfPlayConfig {
            games_in_flight: 64,
            full_simulations: 160,
            cheap_simulations: 32,
            full_search_fraction: 0.25,
            temperature_plies: 6,
            temperature: 1.0,
            dirichlet_weight: 0.25,
            decided_threshold: 0.97,
            gumbel: false,
            leaves_per_batch: 8,
            decisive_moves: true,
            forced_playouts: 0.0,
            reverse_start_fraction: 0.0,
            reverse_start_plies: 0,
            opening_walk_fraction: 0.0,
            opening_walk_plies: 0,
            minimax_weight: 0.0,
            skip_single_moves: false,
            leaf_depth: 0,
            root_leaf_depth: 0,
            leaf_weight: 0.0,
            score_utility: 0.0,
            score_scale: 0.0,
        }
    }
}

impl SelfPlayConfig {
    fn search_config(&self, full: bool) -> SearchConfig {
        SearchConfig {
            simulations: if full {
                self.full_simulations
            } else {
                self.cheap_simulations
            },
            dirichlet_weight: if full && !self.gumbel {
                self.dirichlet_weight
            } else {
                0.0
            },
            leaves_per_batch: self.leaves_per_batch,
            decisive_moves: self.decisive_moves,
            // A noisy root must not inherit the visits of the last search.
            reuse_tree: false,
            root: if self.gumbel {
                RootSelection::Gumbel(GumbelConfig::default())
            } else {
                RootSelection::Puct
            },
            forced_playouts: if full { self.forced_playouts } else { 0.0 },
            tactics: Tactics {
                minimax_weight: self.minimax_weight,
                skip_single_moves: self.skip_single_moves,
                leaf_depth: self.leaf_depth,
                root_leaf_depth: self.root_leaf_depth,
                leaf_weight: self.leaf_weight,
                score_utility: self.score_utility,
                score_scale: self.score_scale,
            },
            ..SearchConfig::default()
        }
    }
}

/// A position searched in a game in progress.
struct Searched<S> {
    state: S,
    policy: Vec<(u16, f32)>,
    wdl: ToMove,
    surprise: f32,
}

/// A game in progress.
struct Slot<G: Game> {
    positions: Vec<Searched<G::State>>,
    full: bool,
    decided: bool,
}

/// Plays `games` games, `config.games_in_flight` at a time, with the rules
/// `make_game(index)` gives for game `index`; calls `on_game` with each
/// finished game (in the order they finish).
pub fn play_games<G, E>(
    config: &SelfPlayConfig,
    games: usize,
    make_game: impl Fn(u64) -> G,
    evaluator: &E,
    seed: u64,
    on_game: impl FnMut(GameRecord),
) where
    G: Notation + Hints,
    E: Evaluator<G> + ?Sized,
{
    play_games_until(config, games, make_game, evaluator, seed, || false, on_game);
}

/// [`play_games`], stopping early once `stop()` says so (it is asked
/// before each move of the games in flight): the games finished by then
/// are given, those in flight dropped.
pub fn play_games_until<G, E>(
    config: &SelfPlayConfig,
    games: usize,
    make_game: impl Fn(u64) -> G,
    evaluator: &E,
    seed: u64,
    stop: impl Fn() -> bool,
    mut on_game: impl FnMut(GameRecord),
) where
    G: Notation + Hints,
    E: Evaluator<G> + ?Sized,
{
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut started = 0usize;
    let mut searches: Vec<Search<G>> = Vec::new();
    let mut slots: Vec<Slot<G>> = Vec::new();
    let start_game = |index: usize, rng: &mut SmallRng| {
        let game_seed = seed.wrapping_mul(0x9E37_79B9).wrapping_add(index as u64);
        let game = make_game(game_seed);
        let state = curriculum_start(config, &game, rng).unwrap_or_else(|| game.initial_state());
        let search = Search::new(game, state, config.search_config(true), rng.random());
        let slot = Slot {
            positions: Vec::new(),
            full: true,
            decided: false,
        };
        (search, slot)
    };
    while started < games.min(config.games_in_flight) {
        let (search, slot) = start_game(started, &mut rng);
        searches.push(search);
        slots.push(slot);
        started += 1;
    }
    while !searches.is_empty() && !stop() {
        for (search, slot) in searches.iter_mut().zip(slots.iter_mut()) {
            slot.full = !slot.decided && rng.random_bool(config.full_search_fraction);
            search.set_config(config.search_config(slot.full));
        }
        run_searches(&mut searches, evaluator);
        let mut index = 0;
        while index < searches.len() {
            let search = &mut searches[index];
            let slot = &mut slots[index];
            let result = search.result();
            // Plies of this game so far (a reverse start begins at 0).
            let ply = slot.positions.len() as u32;
            let choice = MoveChoice::Visits {
                temperature: if ply < config.temperature_plies {
                    config.temperature
                } else {
                    0.0
                },
            };
            let action = search.choose_move(choice);
            let (policy, surprise) = if slot.full {
                let policy: Vec<(u16, f32)> = result
                    .children
                    .iter()
                    .map(|c| (c.action.0, result.policy_target[c.action.index()]))
                    .collect();
                (policy, surprise(&result))
            } else {
                (Vec::new(), 0.0)
            };
            slot.positions.push(Searched {
                state: search.state().clone(),
                policy,
                wdl: result.wdl,
                surprise,
            });
            let certain = result.wdl[0].max(result.wdl[2]) >= config.decided_threshold;
            slot.decided |= result.proof.is_some() || certain;
            search.advance(action);
            if search.game().outcome(search.state()).is_some() {
                let finished = finish(search, slot);
                on_game(finished);
                if started < games {
                    let (search, slot) = start_game(started, &mut rng);
                    searches[index] = search;
                    slots[index] = slot;
                    started += 1;
                } else {
                    searches.swap_remove(index);
                    slots.swap_remove(index);
                    continue;
                }
            }
            index += 1;
        }
    }
}

/// A reverse start or an opening walk for a new game, drawn with `rng` in
/// the shares `config` asks for (`None`: the game's own start).
fn curriculum_start<G: Hints>(
    config: &SelfPlayConfig,
    game: &G,
    rng: &mut SmallRng,
) -> Option<G::State> {
    if config.reverse_start_plies == 0 && config.opening_walk_plies == 0 {
        return None;
    }
    // Each kind's share of the games (none without walks).
    let share = |fraction: f64, plies: u32| {
        if plies > 0 {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let reverse = share(config.reverse_start_fraction, config.reverse_start_plies);
    let opening = reverse + share(config.opening_walk_fraction, config.opening_walk_plies);
    let draw: f64 = rng.random();
    if draw < reverse {
        let plies = rng.random_range(1..=config.reverse_start_plies);
        game.reverse_start(plies, rng.random())
    } else if draw < opening {
        let plies = rng.random_range(1..=config.opening_walk_plies);
        game.opening_walk(plies, rng.random())
    } else {
        None
    }
}

/// KL(target ‖ priors) at the root of a search: how far the search moved
/// the policy from the network's.
fn surprise(result: &SearchResult) -> f32 {
    result
        .children
        .iter()
        .map(|child| {
            let target = result.policy_target[child.action.index()];
            if target > 0.0 {
                target * (target / child.prior.max(1e-6)).ln()
            } else {
                0.0
            }
        })
        .sum::<f32>()
        .max(0.0)
}

/// The record of a finished game: every position gets the final result
/// from its side to move's point of view.
fn finish<G: Notation + Hints>(search: &Search<G>, slot: &mut Slot<G>) -> GameRecord {
    let game = search.game();
    let end = search.state();
    let positions = slot
        .positions
        .drain(..)
        .map(
            |Searched {
                 state,
                 policy,
                 wdl,
                 surprise,
             }| {
                let side = game.current_player(&state);
                let outcome = match game.outcome_for(end, side) {
                    Some(Outcome::Win) => 1,
                    Some(Outcome::Loss) => -1,
                    _ => 0,
                };
                PositionRecord {
                    state: game.format_state(&state),
                    policy,
                    outcome,
                    search_wdl: wdl.0,
                    surprise,
                }
            },
        )
        .collect();
    GameRecord {
        parameters: game.rules().to_string(),
        positions,
        plies: game.ply(end) as u32,
        final_state: Some(game.format_state(end)),
    }
}
