//! Training samples from self-play records: the replay window over the
//! newest shards, and batches with a random symmetry applied to each sample.
//!
//! Two of the window's choices follow KataGo (Wu 2019): value targets that
//! mix in the short-term value (the exponential average of the search's
//! values over the plies ahead, the game's result beyond its end), and
//! policy targets drawn in proportion to their surprise.

use std::collections::HashMap;
use std::sync::Arc;

use grandmaitre_engine::{Action, Game, Outcome, ParseError, Playable, Player, Symmetry};
use grandmaitre_selfplay::GameRecord;
use rand::Rng;

use crate::TrainError;
use grandmaitre_engine::Notation;

/// One position to learn from.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Index of the game's rules in [`ReplayWindow::games`].
    pub game: usize,
    /// The position's notation.
    pub state: String,
    /// Policy target (empty: the position trains the value only).
    pub policy: Vec<(u16, f32)>,
    /// Value target for the side to move: win, draw, loss probabilities
    /// (the game's result, one-hot, unless the short-term value is mixed
    /// in).
    pub value: [f32; 3],
    /// The own-rules value head's target: the game's result under its own
    /// rules for the side to move, one-hot (a draw where a training rule
    /// adjudicated the game's end).
    pub rules_value: [f32; 3],
    /// The game's final position (shared by its samples), for the
    /// ownership target.
    pub final_state: Option<Arc<str>>,
    /// Plies from this position to the game's end (the moves-left target).
    pub moves_left: f32,
}

/// The newest self-play positions, up to a size.
#[derive(Debug)]
pub struct ReplayWindow<G: Game> {
    /// The rules of the games sampled, one per distinct parameter text.
    pub games: Vec<G>,
    /// The positions.
    pub samples: Vec<Sample>,
    /// Indices of the samples by board shape (a batch holds one shape).
    pub boards: Vec<Vec<usize>>,
    /// With surprise weighting, the running sums of the sampling weights
    /// of each board's samples (in the order of `boards`).
    pub cumulative_weights: Option<Vec<Vec<f64>>>,
}

/// How records become targets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Targets {
    /// Weight of the short-term value in the value target (0: the result
    /// alone).
    pub short_term_value: f32,
    /// Plies over which the short-term value decays.
    pub short_term_horizon: f32,
    /// Share of a policy target's sampling weight given by its surprise
    /// (0: uniform sampling).
    pub surprise_weight: f32,
    /// Weight of a training rule's adjudication in the main value target
    /// where it decided what the game's own rules call a draw (1: the
    /// adjudicated result alone; the rest goes to the draw).
    pub adjudication_weight: f32,
}

impl Default for Targets {
    fn default() -> Targets {
        Targets {
            short_term_value: 0.0,
            short_term_horizon: 6.0,
            surprise_weight: 0.0,
            adjudication_weight: 1.0,
        }
    }
}

/// The result as win/draw/loss probabilities, one-hot.
fn one_hot(outcome: i8) -> [f32; 3] {
    match outcome {
        1 => [1.0, 0.0, 0.0],
        0 => [0.0, 1.0, 0.0],
        _ => [0.0, 0.0, 1.0],
    }
}

/// Whether a game `record` of `game` ended where its own rules call a draw
/// but a training rule decided it ([`Game::under_own_rules`]). Its final
/// position tells, read under each set of rules: a decisive result that
/// the game's own rules do not give there (a draw at the cap, or a
/// repetition, which the text alone does not show) was the training
/// rule's. A record without it (from before it was kept) is taken as
/// decided by the rules.
/// `own` is the game under its own rules where they differ from `game`'s
/// (none: no training rule, nothing to tell).
fn adjudicated<G: Notation>(
    game: &G,
    own: Option<&G>,
    record: &GameRecord,
) -> Result<bool, TrainError> {
    let (Some(text), Some(own)) = (&record.final_state, own) else {
        return Ok(false);
    };
    let outcome = game.outcome(&game.parse_state(text)?);
    let own_outcome = own.parse_state(text).ok().and_then(|end| own.outcome(&end));
    Ok(matches!(outcome, Some(Outcome::Win | Outcome::Loss)) && own_outcome != outcome)
}

/// `wdl` seen by the other side.
fn flipped([win, draw, loss]: [f32; 3]) -> [f32; 3] {
    [loss, draw, win]
}

/// The value targets of one game's positions, for their sides to move
/// (`sides`): the result, one-hot, mixed with weight `targets.short_term_value`
/// with S(t) = (1 − d) · v(t) + d · S(t + 1), d = 1 − 1/horizon, where v is the
/// search's value and S after the last position is the result.
fn value_targets(record: &GameRecord, sides: &[Player], targets: &Targets) -> Vec<[f32; 3]> {
    let results: Vec<[f32; 3]> = record
        .positions
        .iter()
        .map(|p| one_hot(p.outcome))
        .collect();
    let weight = targets.short_term_value;
    if weight == 0.0 || record.positions.is_empty() {
        return results;
    }
    let decay = 1.0 - 1.0 / targets.short_term_horizon.max(1.0);
    // Seen by the first position's side to move.
    let first = sides[0];
    let seen = |wdl: [f32; 3], side: Player| if side == first { wdl } else { flipped(wdl) };
    let last = record.positions.len() - 1;
    let mut short_term = seen(results[last], sides[last]);
    let mut mixed = vec![[0.0; 3]; record.positions.len()];
    for index in (0..record.positions.len()).rev() {
        let side = sides[index];
        let value = seen(record.positions[index].search_wdl, side);
        for k in 0..3 {
            short_term[k] = (1.0 - decay) * value[k] + decay * short_term[k];
        }
        let own = seen(short_term, side);
        for k in 0..3 {
            mixed[index][k] = (1.0 - weight) * results[index][k] + weight * own[k];
        }
    }
    mixed
}

impl<G: Notation> ReplayWindow<G> {
    /// A window over these games. Records come from files, so they are
    /// checked once here rather than on every batch: unless `mixed_boards`,
    /// every board must have the first one's planes and actions, and every
    /// policy target must be within the policy head. The short-term value
    /// needs each position's side to move: positions are parsed for it.
    pub fn from_records<'a>(
        records: impl IntoIterator<Item = &'a GameRecord>,
        mixed_boards: bool,
        targets: &Targets,
    ) -> Result<ReplayWindow<G>, TrainError> {
        let mut games: Vec<G> = Vec::new();
        // Each game under its own rules, where a training rule changes them.
        let mut own_games: Vec<Option<G>> = Vec::new();
        let mut index_of: HashMap<&str, usize> = HashMap::new();
        let mut samples = Vec::new();
        // Board shapes met, and the board of each game's rules.
        let mut shapes: Vec<(usize, usize)> = Vec::new();
        let mut board_of_game: Vec<usize> = Vec::new();
        let mut boards: Vec<Vec<usize>> = Vec::new();
        let mut surprises: Vec<f32> = Vec::new();
        let mut sides: Vec<Player> = Vec::new();
        for record in records {
            let game = match index_of.get(record.parameters.as_str()) {
                Some(&index) => index,
                None => {
                    // Each text is read once; the same rules under another
                    // spelling are the same game.
                    let rules = record.parameters.parse::<G::Rules>()?;
                    let index = match games.iter().position(|game| *game.rules() == rules) {
                        Some(index) => index,
                        None => {
                            let game: G = rules.into();
                            let shape = (game.spec().observation_len(), game.spec().action_count);
                            let board = match shapes.iter().position(|&s| s == shape) {
                                Some(board) => board,
                                None => {
                                    shapes.push(shape);
                                    boards.push(Vec::new());
                                    shapes.len() - 1
                                }
                            };
                            board_of_game.push(board);
                            if let (Some(first), false) = (games.first(), mixed_boards) {
                                let (a, b) = (first.spec(), game.spec());
                                if a.observation_len() != b.observation_len()
                                    || a.action_count != b.action_count
                                {
                                    return Err(ParseError::new(
                                        "game parameters",
                                        &record.parameters,
                                        "the board differs from the other games of the window",
                                    )
                                    .into());
                                }
                            }
                            let own = game.under_own_rules();
                            own_games.push((own.rules() != game.rules()).then_some(own));
                            games.push(game);
                            games.len() - 1
                        }
                    };
                    index_of.insert(&record.parameters, index);
                    index
                }
            };
            let actions = games[game].spec().action_count;
            let final_state: Option<Arc<str>> = record.final_state.as_deref().map(Arc::from);
            sides.clear();
            if targets.short_term_value > 0.0 {
                for position in &record.positions {
                    let state = games[game].parse_state(&position.state)?;
                    sides.push(games[game].current_player(&state));
                }
            }
            let values = value_targets(record, &sides, targets);
            let drawn_by_rules = adjudicated(&games[game], own_games[game].as_ref(), record)?;
            // Every ply from the first recorded position on is recorded.
            let count = record.positions.len();
            for (index, (position, mut value)) in record.positions.iter().zip(values).enumerate() {
                if let Some(&(action, _)) = position
                    .policy
                    .iter()
                    .find(|(a, _)| usize::from(*a) >= actions)
                {
                    return Err(ParseError::new(
                        "policy target",
                        &position.state,
                        format!("action {action} is beyond the game's {actions} actions"),
                    )
                    .into());
                }
                boards[board_of_game[game]].push(samples.len());
                surprises.push(if position.policy.is_empty() {
                    f32::NAN
                } else {
                    position.surprise
                });
                if drawn_by_rules {
                    let weight = targets.adjudication_weight;
                    for (k, target) in value.iter_mut().enumerate() {
                        *target = weight * *target + (1.0 - weight) * one_hot(0)[k];
                    }
                }
                samples.push(Sample {
                    game,
                    final_state: final_state.clone(),
                    state: position.state.clone(),
                    policy: position.policy.clone(),
                    value,
                    rules_value: if drawn_by_rules {
                        one_hot(0)
                    } else {
                        one_hot(position.outcome)
                    },
                    moves_left: (count - index) as f32,
                });
            }
        }
        let cumulative_weights = (targets.surprise_weight > 0.0)
            .then(|| sampling_weights(&surprises, targets.surprise_weight))
            .flatten()
            .map(|weights| {
                boards
                    .iter()
                    .map(|board| {
                        let mut sum = 0.0;
                        board
                            .iter()
                            .map(|&index| {
                                sum += weights[index];
                                sum
                            })
                            .collect()
                    })
                    .collect()
            });
        Ok(ReplayWindow {
            games,
            samples,
            boards,
            cumulative_weights,
        })
    }
}

/// Each sample's weight: 1 − s + s · surprise / mean surprise for the
/// policy targets (`surprises`, NaN for value-only samples, which weigh 1);
/// `None` when no target has a surprise (records from before it was kept).
fn sampling_weights(surprises: &[f32], share: f32) -> Option<Vec<f64>> {
    let (sum, count) = surprises
        .iter()
        .filter(|s| !s.is_nan())
        .fold((0.0f64, 0usize), |(sum, count), &s| {
            (sum + f64::from(s), count + 1)
        });
    if count == 0 || sum <= 0.0 {
        return None;
    }
    let mean = sum / count as f64;
    let share = f64::from(share);
    Some(
        surprises
            .iter()
            .map(|&s| {
                if s.is_nan() {
                    1.0
                } else {
                    1.0 - share + share * f64::from(s) / mean
                }
            })
            .collect(),
    )
}

/// A batch in flat buffers, ready for tensors.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Batch {
    /// Positions.
    pub size: usize,
    /// The board's planes, height and width, and the actions.
    pub shape: [usize; 4],
    /// Encoded planes, `size × planes × cells`.
    pub planes: Vec<f32>,
    /// Policy targets, `size × actions` (rows of zeros for value-only
    /// samples).
    pub policy: Vec<f32>,
    /// 1 where the sample has a policy target, else 0.
    pub policy_weight: Vec<f32>,
    /// Value targets (win, draw, loss probabilities), `size × 3`.
    pub outcome: Vec<f32>,
    /// The own-rules value head's targets, `size × 3`.
    pub rules_outcome: Vec<f32>,
    /// Each cell's final owner for the side to move, `size × cells` (rows
    /// of zeros without a target).
    pub ownership: Vec<f32>,
    /// Per sample: its board's cells where it has an ownership target, else
    /// 0 (the ownership loss is a mean over the cells of these boards).
    pub ownership_cells: Vec<f32>,
    /// Plies from each position to its game's end, `size`.
    pub moves_left: Vec<f32>,
}

/// `size` random samples of the window, all of one board: the board of a
/// sample drawn at random, then samples of that board — uniformly, or by
/// their surprise weights.
pub fn draw_indices<G: Game>(
    window: &ReplayWindow<G>,
    size: usize,
    rng: &mut impl Rng,
) -> Vec<usize> {
    let available = window.samples.len();
    if available == 0 {
        return Vec::new();
    }
    if let Some(cumulative) = &window.cumulative_weights {
        let totals: Vec<f64> = cumulative
            .iter()
            .map(|sums| sums.last().copied().unwrap_or(0.0))
            .collect();
        let mut pick = rng.random::<f64>() * totals.iter().sum::<f64>();
        let mut board = 0;
        while board + 1 < totals.len() && pick >= totals[board] {
            pick -= totals[board];
            board += 1;
        }
        let sums = &cumulative[board];
        let total = totals[board];
        return (0..size)
            .map(|_| {
                let pick = rng.random::<f64>() * total;
                let at = sums.partition_point(|&sum| sum <= pick).min(sums.len() - 1);
                window.boards[board][at]
            })
            .collect();
    }
    let first = rng.random_range(0..available);
    let board = window
        .boards
        .iter()
        .find(|board| board.binary_search(&first).is_ok())
        .expect("every sample is on a board");
    (0..size)
        .map(|_| board[rng.random_range(0..board.len())])
        .collect()
}

/// Builds a batch of `indices` of the window (all of one board shape),
/// each sample seen through a random symmetry of the board. With
/// `ownership`, the samples of games whose final position is known get
/// their ownership targets.
pub fn make_batch<G: Playable>(
    window: &ReplayWindow<G>,
    indices: &[usize],
    ownership: bool,
    rng: &mut impl Rng,
) -> Result<Batch, TrainError> {
    let spec = indices
        .first()
        .map(|&index| window.games[window.samples[index].game].spec().clone())
        .ok_or(TrainError::EmptyWindow)?;
    let per_position = spec.observation_len();
    let actions = spec.action_count;
    let [planes, height, width] = spec.observation_shape;
    let cells = height * width;
    let mut batch = Batch {
        size: indices.len(),
        shape: [planes, height, width, actions],
        planes: vec![0.0; indices.len() * per_position],
        policy: vec![0.0; indices.len() * actions],
        policy_weight: vec![0.0; indices.len()],
        outcome: vec![0.0; indices.len() * 3],
        rules_outcome: vec![0.0; indices.len() * 3],
        ownership: if ownership {
            vec![0.0; indices.len() * cells]
        } else {
            Vec::new()
        },
        ownership_cells: vec![0.0; indices.len()],
        moves_left: vec![0.0; indices.len()],
    };
    for (row, &index) in indices.iter().enumerate() {
        let sample = &window.samples[index];
        let game = &window.games[sample.game];
        if game.spec().observation_shape != spec.observation_shape
            || game.spec().action_count != actions
        {
            return Err(TrainError::MixedBoards);
        }
        let state = game.parse_state(&sample.state)?;
        let symmetry = Symmetry(rng.random_range(0..spec.symmetry_count) as u8);
        let seen = game.transformed(symmetry);
        let state = game.transform_state(&state, symmetry);
        seen.encode(
            &state,
            &mut batch.planes[row * per_position..(row + 1) * per_position],
        );
        for &(action, probability) in &sample.policy {
            let mapped = game.transform_action(Action(action), symmetry);
            batch.policy[row * actions + mapped.index()] = probability;
        }
        batch.policy_weight[row] = f32::from(u8::from(!sample.policy.is_empty()));
        batch.outcome[row * 3..row * 3 + 3].copy_from_slice(&sample.value);
        batch.rules_outcome[row * 3..row * 3 + 3].copy_from_slice(&sample.rules_value);
        batch.moves_left[row] = sample.moves_left;
        if let (true, Some(text)) = (ownership, &sample.final_state) {
            let end = game.transform_state(&game.parse_state(text)?, symmetry);
            let side = seen.current_player(&state);
            let owners = &mut batch.ownership[row * cells..(row + 1) * cells];
            if seen.ownership(&end, side, owners) {
                let position = &batch.planes[row * per_position..(row + 1) * per_position];
                batch.ownership_cells[row] = match spec.board_plane {
                    Some(plane) => position[plane * cells..(plane + 1) * cells].iter().sum(),
                    None => cells as f32,
                };
            }
        }
    }
    Ok(batch)
}

#[cfg(test)]
mod tests {
    use grandmaitre_engine::heraldis::Heraldis;
    use grandmaitre_selfplay::PositionRecord;
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn a_policy_target_beyond_the_policy_head_is_an_error() {
        // It once indexed past a batch's policy rows and panicked.
        let record = GameRecord {
            parameters: Heraldis::default().rules().to_string(),
            positions: vec![PositionRecord {
                state: "5/5/5/5/5 l - 0".to_string(),
                policy: vec![(7, 0.5), (300, 0.5)],
                outcome: 0,
                search_wdl: [0.0, 1.0, 0.0],
                surprise: 0.0,
            }],
            plies: 1,
            final_state: None,
        };
        let error = ReplayWindow::<Heraldis>::from_records(&[record], false, &Targets::default())
            .map(|_| ())
            .expect_err("beyond the head")
            .to_string();
        assert_eq!(
            error,
            "invalid policy target '5/5/5/5/5 l - 0': action 300 is beyond the game's 26 actions"
        );
    }

    fn position(outcome: i8, search_wdl: [f32; 3], policy: bool, surprise: f32) -> PositionRecord {
        PositionRecord {
            state: "5/5/5/5/5 l - 0".to_string(),
            policy: if policy { vec![(7, 1.0)] } else { Vec::new() },
            outcome,
            search_wdl,
            surprise,
        }
    }

    fn game(positions: Vec<PositionRecord>) -> GameRecord {
        GameRecord {
            parameters: Heraldis::default().rules().to_string(),
            plies: positions.len() as u32,
            positions,
            final_state: None,
        }
    }

    fn close(a: [f32; 3], b: [f32; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
    }

    #[test]
    fn short_term_values_average_the_search_values_ahead_then_the_result() {
        // The first mover wins; the search saw it coming late.
        let record = game(vec![
            position(1, [0.2, 0.6, 0.2], true, 0.0),
            position(-1, [0.4, 0.2, 0.4], false, 0.0),
        ]);
        let sides = [Player::First, Player::Second];
        let targets = |weight: f32, horizon: f32| Targets {
            short_term_value: weight,
            short_term_horizon: horizon,
            ..Targets::default()
        };
        // Weight 0: the results, one-hot.
        let plain = value_targets(&record, &sides, &targets(0.0, 2.0));
        assert_eq!(plain, [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]);
        // A horizon of one ply: each position's own search value.
        let own = value_targets(&record, &sides, &targets(1.0, 1.0));
        assert!(close(own[0], [0.2, 0.6, 0.2]) && close(own[1], [0.4, 0.2, 0.4]));
        // Two plies: S(1) = (v(1) + result) / 2 for the second player,
        // S(0) = (v(0) + S(1) seen by the first) / 2.
        let two = value_targets(&record, &sides, &targets(1.0, 2.0));
        assert!(close(two[1], [0.2, 0.1, 0.7]), "{:?}", two[1]);
        assert!(close(two[0], [0.45, 0.35, 0.2]), "{:?}", two[0]);
        // Half of it, half the result.
        let half = value_targets(&record, &sides, &targets(0.5, 2.0));
        assert!(close(half[0], [0.725, 0.175, 0.1]), "{:?}", half[0]);
        // A horizon far beyond the game: the result again.
        let long = value_targets(&record, &sides, &targets(1.0, 1e6));
        assert!(close(long[0], [1.0, 0.0, 0.0]) && close(long[1], [0.0, 0.0, 1.0]));
    }

    #[test]
    fn surprising_targets_are_drawn_more_often() {
        let record = game(vec![
            position(1, [0.5, 0.0, 0.5], true, 0.1),
            position(-1, [0.5, 0.0, 0.5], true, 0.9),
            position(1, [0.5, 0.0, 0.5], false, 0.0),
        ]);
        let targets = Targets {
            surprise_weight: 1.0,
            ..Targets::default()
        };
        let window =
            ReplayWindow::<Heraldis>::from_records(std::slice::from_ref(&record), false, &targets)
                .expect("window");
        // Weights 0.2, 1.8 and 1 (value only).
        let mut counts = [0usize; 3];
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        for index in draw_indices(&window, 30_000, &mut rng) {
            counts[index] += 1;
        }
        let expected = [0.2 / 3.0, 1.8 / 3.0, 1.0 / 3.0];
        for (count, share) in counts.iter().zip(expected) {
            let drawn = *count as f64 / 30_000.0;
            assert!((drawn - share).abs() < 0.01, "{counts:?}");
        }
        // Without the weighting, or without surprises, uniformly.
        let uniform = ReplayWindow::<Heraldis>::from_records(&[record], false, &Targets::default())
            .expect("window");
        assert!(uniform.cumulative_weights.is_none());
    }
}
