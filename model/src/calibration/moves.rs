//! How each level chooses its moves, seen through the network's policy, and
//! what a person's moves say of the level they play like.
//!
//! A level's move at a position is, in this model:
//! - at the level's random-move rate ([`Level::noise`], known), a
//!   uniformly random legal move;
//! - otherwise, with probability `slip`, a uniformly random legal move too
//!   (its search chose a move the network gave almost nothing);
//! - otherwise a move drawn from the network's priors sharpened by an
//!   exponent, π(m)^β / Σₐ π(a)^β: β near 0 plays anything, a large β the
//!   network's favourite.
//!
//! β and `slip` are fitted per level by maximum likelihood on the
//! calibration games' moves (a grid, then a finer one around the best
//! point). The priors stand in for the search each level runs: `calibrate`
//! reports how well the model tells the levels apart on held-out games.
//!
//! A person of unknown level ([`grandmaitre_engine::seats::Seat::Human`]):
//! the belief over [`HUMAN_LEVELS`] starts uniform and each of their moves
//! multiplies it by the move's likelihood under each level (Bayes' rule);
//! the bar is then the mixture of the levels' bars under the belief.

use grandmaitre_engine::levels::Level;
use grandmaitre_engine::search::{EvaluationRequest, Evaluations, Evaluator};
use grandmaitre_engine::seats::HUMAN_LEVELS;
use grandmaitre_engine::{Action, Game, Playable};
use serde::{Deserialize, Serialize};

use super::players::wins_now;
use super::records::Played;

/// Priors are floored here before they are raised to a power (the exported
/// module floors them alike).
pub const PRIOR_FLOOR: f64 = 1e-6;

/// One move as the network saw it: its priors over the legal moves (the
/// softmax of its policy over them) and which of them was played.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    /// The network's prior of each legal move.
    pub priors: Vec<f32>,
    /// The index in `priors` of the move played.
    pub played: usize,
}

/// The network's priors over the legal moves of `state` and the index of
/// `action` among them (`None` where `action` is not legal there). Every
/// position of `positions` is evaluated in one batch.
pub fn seen<G: Game, E: Evaluator<G>>(
    game: &G,
    positions: &[(&G::State, Action)],
    evaluator: &E,
) -> Vec<Option<Seen>> {
    if positions.is_empty() {
        return Vec::new();
    }
    let requests: Vec<EvaluationRequest<'_, G>> = positions
        .iter()
        .map(|&(state, _)| EvaluationRequest { game, state })
        .collect();
    let mut output = Evaluations::default();
    evaluator.evaluate(&requests, &mut output);
    let mut legal = Vec::new();
    positions
        .iter()
        .enumerate()
        .map(|(index, &(state, action))| {
            legal.clear();
            game.legal_actions(state, &mut legal);
            let played = legal.iter().position(|&a| a == action)?;
            let logits = output.policy(index);
            let chosen: Vec<f64> = legal.iter().map(|a| f64::from(logits[a.index()])).collect();
            let top = chosen.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let exp: Vec<f64> = chosen.iter().map(|l| (l - top).exp()).collect();
            let sum: f64 = exp.iter().sum();
            Some(Seen {
                priors: exp.iter().map(|e| (e / sum) as f32).collect(),
                played,
            })
        })
        .collect()
}

/// Replays `played` (a game of `game`'s rules) from its opening and its
/// moves, and fills what the replay tells of each recorded position: where
/// the mover could win at once (`wins_now`) and the move played as the
/// network saw it (`seen`, every position in one batch). Records without
/// moves are left as they are; an error where a recorded move does not
/// replay.
pub fn replay<G: Playable, E: Evaluator<G>>(
    game: &G,
    played: &mut Played,
    evaluator: &E,
) -> Result<(), String> {
    if played.moves.is_empty() {
        return Ok(());
    }
    let mut state = game.initial_state();
    let play = |state: &mut G::State, text: &str| -> Result<Action, String> {
        let action = game
            .parse_action(state, text)
            .map_err(|e| format!("a recorded move does not replay: {e}"))?;
        game.apply_unchecked(state, action);
        Ok(action)
    };
    for text in &played.opening {
        play(&mut state, text)?;
    }
    let mut positions = Vec::with_capacity(played.moves.len());
    for text in &played.moves {
        let before = state.clone();
        let action = play(&mut state, text)?;
        positions.push((before, action));
    }
    played.wins_now = positions
        .iter()
        .map(|(state, _)| wins_now(game, state))
        .collect();
    let positions: Vec<(&G::State, Action)> = positions
        .iter()
        .map(|(state, action)| (state, *action))
        .collect();
    played.seen = seen(game, &positions, evaluator);
    Ok(())
}

/// The moves of the recorded games with the level that played each, for
/// [`fit`]: every position whose move was seen ([`replay`]) and whose
/// mover's level is recorded.
pub fn level_moves(games: &[&Played]) -> Vec<(u32, Seen)> {
    let mut moves = Vec::new();
    for game in games {
        let Some(levels) = game.levels else { continue };
        for (seen, &mover) in game.seen.iter().zip(&game.sides) {
            if let Some(seen) = seen {
                moves.push((levels[usize::from(mover)], seen.clone()));
            }
        }
    }
    moves
}

/// The beliefs over the levels of the players of `hidden` sides (0 the
/// first) at each recorded position of `game`, from the moves they played
/// before it (as the network saw them: [`replay`]); `None` for the other
/// side.
pub fn beliefs_along(
    model: &MoveModel,
    game: &Played,
    hidden: [bool; 2],
) -> Vec<[Option<Belief>; 2]> {
    let seen = &game.seen;
    (0..game.sides.len())
        .map(|index| {
            std::array::from_fn(|side| {
                hidden[side].then(|| {
                    model.belief(
                        seen[..index.min(seen.len())]
                            .iter()
                            .zip(&game.sides)
                            .filter(|(_, mover)| usize::from(**mover) == side)
                            .filter_map(|(seen, _)| seen.as_ref()),
                    )
                })
            })
        })
        .collect()
}

/// How each level 1–10 chooses its moves (see the module's head).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveModel {
    /// The exponent β of the priors, per level 1 to 10.
    pub sharpness: Vec<f64>,
    /// The probability of a uniformly random legal move beyond the level's
    /// random-move rate, per level 1 to 10.
    pub slip: Vec<f64>,
    /// The moves each level's parameters were fitted on.
    pub moves: Vec<u32>,
    /// The power each move's likelihood is raised to in the belief (1:
    /// Bayes' rule as is). The model is an approximation, and moves of one
    /// game are not independent given the level: taken as is, the belief
    /// grows surer than it should. Fitted so that the belief, after each
    /// move of the fitting games, gives the true level the most
    /// probability ([`fit_tempering`]).
    #[serde(default = "one")]
    pub tempering: f64,
}

fn one() -> f64 {
    1.0
}

/// A belief over the levels a person plays like.
#[derive(Clone, Debug, PartialEq)]
pub struct Belief {
    /// The weight of each level of [`HUMAN_LEVELS`], summing to 1.
    pub levels: Vec<(u32, f64)>,
    /// The person's moves it has read.
    pub moves: usize,
}

impl Belief {
    /// The prior: every level of [`HUMAN_LEVELS`] alike.
    pub fn uniform() -> Belief {
        let count = HUMAN_LEVELS.count() as f64;
        Belief {
            levels: HUMAN_LEVELS.map(|level| (level, 1.0 / count)).collect(),
            moves: 0,
        }
    }

    /// The mean level under the belief.
    pub fn mean(&self) -> f64 {
        self.levels
            .iter()
            .map(|&(level, w)| f64::from(level) * w)
            .sum()
    }
}

impl MoveModel {
    /// Why the model cannot be used, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        let fine = self.sharpness.len() == 10
            && self.slip.len() == 10
            && self.tempering.is_finite()
            && self.tempering > 0.0
            && self.sharpness.iter().all(|b| b.is_finite() && *b >= 0.0)
            && self.slip.iter().all(|s| (0.0..=1.0).contains(s));
        if fine {
            Ok(())
        } else {
            Err("the players' bar has a malformed move model".to_string())
        }
    }

    /// P(the move of `seen` | `level` plays it).
    pub fn likelihood(&self, level: u32, seen: &Seen) -> f64 {
        let index = (level.clamp(1, 10) - 1) as usize;
        let random = Level::get(level).map_or(0.0, |l| l.noise);
        likelihood(self.sharpness[index], self.slip[index], random, seen)
    }

    /// The belief over [`HUMAN_LEVELS`] after the moves `seen`, from the
    /// uniform prior.
    pub fn belief<'a>(&self, seen: impl IntoIterator<Item = &'a Seen>) -> Belief {
        let mut log: Vec<(u32, f64)> = HUMAN_LEVELS.map(|level| (level, 0.0)).collect();
        let mut moves = 0;
        for seen in seen {
            moves += 1;
            for (level, sum) in &mut log {
                *sum += self.tempering * self.likelihood(*level, seen).max(f64::MIN_POSITIVE).ln();
            }
        }
        let top = log
            .iter()
            .map(|&(_, l)| l)
            .fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = log.iter().map(|&(_, l)| (l - top).exp()).collect();
        let sum: f64 = weights.iter().sum();
        Belief {
            levels: log
                .iter()
                .zip(weights)
                .map(|(&(level, _), w)| (level, w / sum))
                .collect(),
            moves,
        }
    }
}

/// The likelihood of the played move under exponent `sharpness`, `slip`
/// and the random-move rate `random`.
fn likelihood(sharpness: f64, slip: f64, random: f64, seen: &Seen) -> f64 {
    let uniform = 1.0 / seen.priors.len() as f64;
    let logs = seen
        .priors
        .iter()
        .map(|&p| sharpness * f64::from(p).max(PRIOR_FLOOR).ln());
    let top = logs.clone().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = logs.map(|l| (l - top).exp()).sum();
    let played = sharpness * f64::from(seen.priors[seen.played]).max(PRIOR_FLOOR).ln();
    let sharpened = (played - top).exp() / sum;
    random * uniform + (1.0 - random) * (slip * uniform + (1.0 - slip) * sharpened)
}

/// Exponents tried by the fit's first grid.
const SHARPNESS_GRID: [f64; 20] = [
    0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0,
    20.0, 25.0, 32.0,
];

/// Slips tried by the fit's first grid.
const SLIP_GRID: [f64; 14] = [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5,
];

/// Fits β and the slip of each level on `moves` (each the level that
/// played it and the move as the network saw it) by maximum likelihood:
/// the best point of a grid, then of a grid four times finer around it. A
/// level without moves keeps β = 1 and slip 0.05, noted by its count of 0.
pub fn fit(moves: &[(u32, Seen)]) -> MoveModel {
    let mut model = MoveModel {
        sharpness: vec![1.0; 10],
        slip: vec![0.05; 10],
        moves: vec![0; 10],
        tempering: 1.0,
    };
    for level in 1..=10u32 {
        let own: Vec<&Seen> = moves
            .iter()
            .filter(|(l, _)| *l == level)
            .map(|(_, s)| s)
            .collect();
        if own.is_empty() {
            continue;
        }
        let random = Level::get(level).map_or(0.0, |l| l.noise);
        let total = |sharpness: f64, slip: f64| -> f64 {
            own.iter()
                .map(|seen| {
                    likelihood(sharpness, slip, random, seen)
                        .max(f64::MIN_POSITIVE)
                        .ln()
                })
                .sum()
        };
        let best_of = |sharpness: &[f64], slip: &[f64]| -> (f64, f64) {
            let mut best = (f64::NEG_INFINITY, 1.0, 0.05);
            for &b in sharpness {
                for &s in slip {
                    let value = total(b, s);
                    if value > best.0 {
                        best = (value, b, s);
                    }
                }
            }
            (best.1, best.2)
        };
        let (b, s) = best_of(&SHARPNESS_GRID, &SLIP_GRID);
        let finer = |centre: f64, low: f64, high: f64| -> Vec<f64> {
            (-4..=4)
                .map(|k| centre * 1.15f64.powi(k))
                .chain([centre])
                .filter(|v| (low..=high).contains(v))
                .collect()
        };
        let sharpness = if b == 0.0 {
            vec![0.0, 0.05, 0.1, 0.15, 0.2]
        } else {
            finer(b, 0.0, 64.0)
        };
        let (b, s) = best_of(&sharpness, &finer(s, 1e-4, 0.9));
        let index = (level - 1) as usize;
        model.sharpness[index] = b;
        model.slip[index] = s;
        model.moves[index] = own.len() as u32;
    }
    model
}

/// Temperings tried by [`fit_tempering`].
const TEMPERING_GRID: [f64; 12] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2, 1.5];

/// Fits `model`'s tempering on `players`: each the level (of
/// [`HUMAN_LEVELS`]) one player of a fitting game played and their moves
/// in order. The tempering of the grid under which the beliefs after each
/// of their moves give the true level the highest mean log-probability.
pub fn fit_tempering(model: &mut MoveModel, players: &[(u32, Vec<&Seen>)]) {
    let players: Vec<&(u32, Vec<&Seen>)> = players
        .iter()
        .filter(|(level, moves)| HUMAN_LEVELS.contains(level) && !moves.is_empty())
        .collect();
    if players.is_empty() {
        return;
    }
    let score = |tempering: f64| -> f64 {
        let tempered = MoveModel {
            tempering,
            ..model.clone()
        };
        players
            .iter()
            .map(|(level, moves)| {
                (1..=moves.len())
                    .map(|k| {
                        let belief = tempered.belief(moves[..k].iter().copied());
                        let weight = belief
                            .levels
                            .iter()
                            .find(|(l, _)| l == level)
                            .map_or(0.0, |&(_, w)| w);
                        weight.max(1e-12).ln()
                    })
                    .sum::<f64>()
            })
            .sum()
    };
    let mut best = (f64::NEG_INFINITY, 1.0);
    for tempering in TEMPERING_GRID {
        let value = score(tempering);
        if value > best.0 {
            best = (value, tempering);
        }
    }
    model.tempering = best.1;
}

/// Each player of `games` whose level is recorded, with their moves as
/// the network saw them ([`replay`]), for [`fit_tempering`].
pub fn players_moves<'a>(games: &[&'a Played]) -> Vec<(u32, Vec<&'a Seen>)> {
    let mut players = Vec::new();
    for game in games {
        let Some(levels) = game.levels else { continue };
        for (side, &level) in levels.iter().enumerate() {
            let moves: Vec<&Seen> = game
                .seen
                .iter()
                .zip(&game.sides)
                .filter(|(_, mover)| usize::from(**mover) == side)
                .filter_map(|(seen, _)| seen.as_ref())
                .collect();
            players.push((level, moves));
        }
    }
    players
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// Moves drawn from the model itself for `level` with exponent
    /// `sharpness` and `slip`, at random positions of 4 to 20 legal moves.
    fn drawn(
        level: u32,
        sharpness: f64,
        slip: f64,
        count: usize,
        rng: &mut SmallRng,
    ) -> Vec<(u32, Seen)> {
        let random = Level::get(level).expect("level").noise;
        (0..count)
            .map(|_| {
                let n = rng.random_range(4..=20);
                let raw: Vec<f64> = (0..n).map(|_| rng.random::<f64>().powi(3) + 1e-3).collect();
                let sum: f64 = raw.iter().sum();
                let priors: Vec<f32> = raw.iter().map(|r| (r / sum) as f32).collect();
                let weights: Vec<f64> = (0..n)
                    .map(|k| {
                        let seen = Seen {
                            priors: priors.clone(),
                            played: k,
                        };
                        likelihood(sharpness, slip, random, &seen)
                    })
                    .collect();
                let mut pick = rng.random::<f64>() * weights.iter().sum::<f64>();
                let mut played = n - 1;
                for (k, w) in weights.iter().enumerate() {
                    if pick < *w {
                        played = k;
                        break;
                    }
                    pick -= w;
                }
                (level, Seen { priors, played })
            })
            .collect()
    }

    #[test]
    fn the_likelihoods_of_a_levels_moves_sum_to_one() {
        let model = MoveModel {
            sharpness: (0..10).map(|k| f64::from(k) * 1.5).collect(),
            slip: vec![0.03; 10],
            moves: vec![0; 10],
            tempering: 1.0,
        };
        let priors = vec![0.6, 0.25, 0.1, 0.05, 0.0];
        for level in 1..=10 {
            let total: f64 = (0..priors.len())
                .map(|played| {
                    model.likelihood(
                        level,
                        &Seen {
                            priors: priors.clone(),
                            played,
                        },
                    )
                })
                .sum();
            assert!((total - 1.0).abs() < 1e-9, "level {level}: {total}");
        }
    }

    #[test]
    fn the_fit_recovers_how_sharply_each_level_follows_the_network() {
        let mut rng = SmallRng::seed_from_u64(7);
        let mut moves = drawn(2, 0.5, 0.02, 4000, &mut rng);
        moves.extend(drawn(6, 3.0, 0.05, 4000, &mut rng));
        moves.extend(drawn(9, 12.0, 0.1, 4000, &mut rng));
        let model = fit(&moves);
        // Level 2 plays 60 % random moves: its exponent is seen through
        // the rest only, and loosely.
        assert!(
            (model.sharpness[1] - 0.5).abs() < 0.35,
            "{:?}",
            model.sharpness
        );
        assert!(
            (model.sharpness[5] / 3.0 - 1.0).abs() < 0.2,
            "{:?}",
            model.sharpness
        );
        assert!(
            (model.sharpness[8] / 12.0 - 1.0).abs() < 0.3,
            "{:?}",
            model.sharpness
        );
        assert!((model.slip[8] - 0.1).abs() < 0.03, "{:?}", model.slip);
        assert_eq!(model.moves[0], 0);
        assert_eq!(model.moves[5], 4000);
    }

    #[test]
    fn moves_of_one_level_move_the_belief_towards_it() {
        let mut rng = SmallRng::seed_from_u64(11);
        let mut moves = Vec::new();
        for level in 1..=10 {
            let sharpness =
                [0.3, 0.5, 0.8, 1.0, 2.0, 3.0, 6.0, 9.0, 12.0, 16.0][level as usize - 1];
            moves.extend(drawn(level, sharpness, 0.05, 3000, &mut rng));
        }
        let model = fit(&moves);
        assert_eq!(Belief::uniform().levels.len(), HUMAN_LEVELS.count());
        assert!((model.belief(std::iter::empty()).mean() - 5.0).abs() < 1e-9);
        for (level, sharpness) in [(2, 0.5), (8, 9.0)] {
            let game: Vec<Seen> = drawn(level, sharpness, 0.05, 30, &mut rng)
                .into_iter()
                .map(|(_, seen)| seen)
                .collect();
            let belief = model.belief(&game);
            let total: f64 = belief.levels.iter().map(|&(_, w)| w).sum();
            assert!((total - 1.0).abs() < 1e-9);
            let near: f64 = belief
                .levels
                .iter()
                .filter(|&&(l, _)| l.abs_diff(level) <= 1)
                .map(|&(_, w)| w)
                .sum();
            assert!(near > 0.6, "level {level}: {belief:?}");
        }
    }
}
