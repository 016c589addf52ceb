//! Matches between two agents: random or given openings each played twice
//! with the colours swapped, games in parallel on rayon's threads, W/D/L with an Elo
//! estimate and an optional SPRT that stops the match early.

pub mod elo;

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use crate::agent::Agent;
use crate::game::{Action, Game, Outcome, Player};
pub use elo::{EloEstimate, Sprt, SprtVerdict, elo_estimate};

/// How a match is played.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// Games to play (at most; an SPRT may stop earlier).
    pub games: u32,
    /// Distinct random openings; game 2k and 2k + 1 play opening k mod this
    /// with the colours swapped. 0 plays every game from the start.
    pub openings: u32,
    /// Random plies in each opening.
    pub opening_plies: u32,
    /// Openings given as moves from the start; where there are some, game
    /// 2k and 2k + 1 play line k mod their number with the colours swapped,
    /// and `openings` and `opening_plies` are not used.
    pub opening_lines: Vec<Vec<Action>>,
    /// Seed of the openings and of the agents.
    pub seed: u64,
    /// Stop as soon as this test reaches a verdict.
    pub sprt: Option<Sprt>,
}

impl Default for MatchConfig {
    fn default() -> MatchConfig {
        MatchConfig {
            games: 100,
            openings: 50,
            opening_plies: 1,
            opening_lines: Vec::new(),
            seed: 0,
            sprt: None,
        }
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Index of the game in the match.
    pub index: u32,
    /// Index of its opening.
    pub opening: u32,
    /// Whether agent A moved first.
    pub a_first: bool,
    /// The result for agent A.
    pub result_for_a: Outcome,
    /// Every move, the opening's included.
    pub moves: Vec<Action>,
}

/// The running totals of a match, from agent A's side.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchStats {
    /// Games A won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games A lost.
    pub losses: u32,
    /// A's wins, draws and losses when moving first.
    pub a_first: [u32; 3],
    /// A's wins, draws and losses when moving second.
    pub a_second: [u32; 3],
    /// Finished pairs of games (games 2k and 2k + 1: one opening, each
    /// agent moving first once) by A's score over the pair in half points:
    /// `pairs[0]` two losses, …, `pairs[4]` two wins. The SPRT reads these.
    pub pairs: [u32; 5],
    /// Whether an SPRT verdict stopped the match before all its games.
    pub stopped_early: bool,
}

impl MatchStats {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// A's score in [0, 1].
    pub fn score(&self) -> f64 {
        elo::score(self.wins, self.draws, self.losses)
    }

    /// A's Elo advantage over B with its 95 % interval.
    pub fn elo(&self) -> EloEstimate {
        elo_estimate(self.wins, self.draws, self.losses)
    }

    /// The log-likelihood ratio of `sprt` on the finished pairs.
    pub fn sprt_llr(&self, sprt: &Sprt) -> f64 {
        sprt.pentanomial_llr(&self.pairs)
    }

    /// Pairs of games finished.
    pub fn pair_count(&self) -> u32 {
        self.pairs.iter().sum()
    }

    fn add(&mut self, record: &GameRecord) {
        match record.result_for_a {
            Outcome::Win => self.wins += 1,
            Outcome::Draw => self.draws += 1,
            Outcome::Loss => self.losses += 1,
        }
        let column = match record.result_for_a {
            Outcome::Win => 0,
            Outcome::Draw => 1,
            Outcome::Loss => 2,
        };
        if record.a_first {
            self.a_first[column] += 1;
        } else {
            self.a_second[column] += 1;
        }
    }

    /// Games won by the first player, drawn, won by the second.
    pub fn by_colour(&self) -> [u32; 3] {
        [
            self.a_first[0] + self.a_second[2],
            self.a_first[1] + self.a_second[1],
            self.a_first[2] + self.a_second[0],
        ]
    }
}

/// A game's result in half points: 2 for a win, 1 for a draw, 0 for a loss.
fn half_points(outcome: Outcome) -> usize {
    match outcome {
        Outcome::Win => 2,
        Outcome::Draw => 1,
        Outcome::Loss => 0,
    }
}

/// The opening of index `opening`: `plies` random moves that do not end the
/// game, the same for a given seed.
pub fn opening_moves<G: Game>(game: &G, opening: u32, plies: u32, seed: u64) -> Vec<Action> {
    let mut rng = SmallRng::seed_from_u64(seed ^ (u64::from(opening) << 32) ^ 0x5EED);
    let mut actions = Vec::new();
    'attempt: for _ in 0..100 {
        let mut state = game.initial_state();
        let mut moves = Vec::new();
        for _ in 0..plies {
            game.legal_actions(&state, &mut actions);
            if actions.is_empty() {
                continue 'attempt;
            }
            let action = actions[rng.random_range(0..actions.len())];
            game.apply_unchecked(&mut state, action);
            moves.push(action);
        }
        if game.outcome(&state).is_none() {
            return moves;
        }
    }
    Vec::new()
}

/// Plays one game between two agents from the opening `opening`; returns the
/// moves and the result for the first player.
pub fn play_game<G: Game>(
    game: &G,
    opening: &[Action],
    first: &mut dyn Agent<G>,
    second: &mut dyn Agent<G>,
) -> (Vec<Action>, Outcome) {
    let mut state = game.initial_state();
    let mut moves = Vec::new();
    for &action in opening {
        first.observe(game, &state, action);
        second.observe(game, &state, action);
        game.apply_unchecked(&mut state, action);
        moves.push(action);
    }
    loop {
        if let Some(outcome) = game.outcome_for(&state, Player::First) {
            return (moves, outcome);
        }
        let mover: &mut dyn Agent<G> = match game.current_player(&state) {
            Player::First => first,
            Player::Second => second,
        };
        let action = mover.select(game, &state);
        let next = game
            .play(&state, action)
            .expect("agents choose legal moves");
        first.observe(game, &state, action);
        second.observe(game, &state, action);
        moves.push(action);
        state = next;
    }
}

/// Plays a match between the agents that `make_a` and `make_b` build (one
/// pair per game, from a seed), on the game `game_for_opening` gives for each
/// opening. `on_game` is called after every game with the totals so far.
/// Games run in parallel on the current rayon pool.
pub fn play_match<G, FG, FA, FB, FR>(
    game_for_opening: FG,
    make_a: FA,
    make_b: FB,
    config: &MatchConfig,
    on_game: FR,
) -> (MatchStats, Vec<GameRecord>)
where
    G: Game,
    FG: Fn(u32) -> G + Sync,
    FA: Fn(u64) -> Box<dyn Agent<G>> + Sync,
    FB: Fn(u64) -> Box<dyn Agent<G>> + Sync,
    FR: Fn(&MatchStats, &GameRecord) + Sync,
{
    // The totals, the records, and the result of each pair's first game to
    // finish, until its partner does.
    let totals = Mutex::new((MatchStats::default(), Vec::new(), HashMap::new()));
    let stop = AtomicBool::new(false);
    (0..config.games).into_par_iter().for_each(|index| {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let lines = &config.opening_lines;
        let (opening, game, moves) = if !lines.is_empty() {
            let opening = (index / 2) % lines.len() as u32;
            (
                opening,
                game_for_opening(opening),
                lines[opening as usize].clone(),
            )
        } else if config.openings == 0 {
            (0, game_for_opening(0), Vec::new())
        } else {
            let opening = (index / 2) % config.openings;
            let game = game_for_opening(opening);
            let moves = opening_moves(&game, opening, config.opening_plies, config.seed);
            (opening, game, moves)
        };
        let seed = config
            .seed
            .wrapping_mul(1_000_003)
            .wrapping_add(u64::from(index));
        let mut a = make_a(seed);
        let mut b = make_b(seed ^ 0xB);
        let a_first = index % 2 == 0;
        let (moves, first_result) = if a_first {
            play_game(&game, &moves, a.as_mut(), b.as_mut())
        } else {
            play_game(&game, &moves, b.as_mut(), a.as_mut())
        };
        let record = GameRecord {
            index,
            opening,
            a_first,
            result_for_a: if a_first {
                first_result
            } else {
                first_result.flipped()
            },
            moves,
        };
        let mut guard = totals.lock().expect("no panic while holding the lock");
        let (stats, records, unpaired) = &mut *guard;
        if stop.load(Ordering::Relaxed) {
            return;
        }
        stats.add(&record);
        match unpaired.remove(&(index / 2)) {
            Some(partner) => {
                stats.pairs[half_points(partner) + half_points(record.result_for_a)] += 1;
            }
            None => {
                unpaired.insert(index / 2, record.result_for_a);
            }
        }
        if let Some(sprt) = &config.sprt
            && sprt.verdict(stats.sprt_llr(sprt)) != SprtVerdict::Continue
        {
            stop.store(true, Ordering::Relaxed);
            stats.stopped_early = stats.games() < config.games;
        }
        on_game(stats, &record);
        records.push(record);
    });
    let (stats, mut records, _) = totals
        .into_inner()
        .expect("no panic while holding the lock");
    records.sort_by_key(|r| r.index);
    (stats, records)
}
