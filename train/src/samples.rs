//! Training samples from self-play records: the replay window over the
//! newest shards, and batches with a random symmetry applied to each sample.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use grandmaitre_engine::{Action, Game, ParseError, Symmetry};
use grandmaitre_selfplay::{GameRecord, shard};
use rand::Rng;

use crate::TrainError;

/// One position to learn from.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Index of the game's rules in [`ReplayWindow::games`].
    pub game: usize,
    /// The position's notation.
    pub state: String,
    /// Policy target (empty: the position trains the value only).
    pub policy: Vec<(u16, f32)>,
    /// Result for the side to move: 0 win, 1 draw, 2 loss.
    pub outcome_class: usize,
    /// The game's final position (shared by its samples), for the
    /// ownership target.
    pub final_state: Option<Arc<str>>,
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
}

impl<G: Game> ReplayWindow<G> {
    /// Reads the newest shards of `directory` until `positions` positions
    /// are held (whole shards; the oldest beyond that are left out). Boards
    /// of several shapes are allowed with `mixed_boards` (a network of
    /// pooled heads).
    pub fn load(
        directory: &Path,
        positions: usize,
        mixed_boards: bool,
    ) -> Result<ReplayWindow<G>, TrainError> {
        let mut records: Vec<GameRecord> = Vec::new();
        let mut held = 0;
        for path in shard::list(directory)?.iter().rev() {
            if held >= positions {
                break;
            }
            let games = shard::read(path)?;
            held += games.iter().map(|g| g.positions.len()).sum::<usize>();
            records.extend(games);
        }
        ReplayWindow::from_records(&records, mixed_boards)
    }

    /// A window over these games. Records come from files, so they are
    /// checked once here rather than on every batch: unless `mixed_boards`,
    /// every board must have the first one's planes and actions, and every
    /// policy target must be within the policy head.
    pub fn from_records(
        records: &[GameRecord],
        mixed_boards: bool,
    ) -> Result<ReplayWindow<G>, TrainError> {
        let mut games: Vec<G> = Vec::new();
        let mut index_of: HashMap<&str, usize> = HashMap::new();
        let mut samples = Vec::new();
        // Board shapes met, and the board of each game's rules.
        let mut shapes: Vec<(usize, usize)> = Vec::new();
        let mut board_of_game: Vec<usize> = Vec::new();
        let mut boards: Vec<Vec<usize>> = Vec::new();
        for record in records {
            let game = match index_of.get(record.parameters.as_str()) {
                Some(&index) => index,
                None => {
                    let game = G::with_parameters(&record.parameters)?;
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
                    games.push(game);
                    index_of.insert(&record.parameters, games.len() - 1);
                    games.len() - 1
                }
            };
            let actions = games[game].spec().action_count;
            let final_state: Option<Arc<str>> = record.final_state.as_deref().map(Arc::from);
            for position in &record.positions {
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
                samples.push(Sample {
                    game,
                    final_state: final_state.clone(),
                    state: position.state.clone(),
                    policy: position.policy.clone(),
                    outcome_class: match position.outcome {
                        1 => 0,
                        0 => 1,
                        _ => 2,
                    },
                });
            }
        }
        Ok(ReplayWindow {
            games,
            samples,
            boards,
        })
    }
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
    /// Result classes (0 win, 1 draw, 2 loss), one-hot, `size × 3`.
    pub outcome: Vec<f32>,
    /// Each cell's final owner for the side to move, `size × cells` (rows
    /// of zeros without a target).
    pub ownership: Vec<f32>,
    /// Per sample: its board's cells where it has an ownership target, else
    /// 0 (the ownership loss is a mean over the cells of these boards).
    pub ownership_cells: Vec<f32>,
}

/// `size` random samples of the window, all of one board: the board of a
/// sample drawn uniformly, then samples of that board.
pub fn draw_indices<G: Game>(
    window: &ReplayWindow<G>,
    size: usize,
    rng: &mut impl Rng,
) -> Vec<usize> {
    let available = window.samples.len();
    if available == 0 {
        return Vec::new();
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
pub fn make_batch<G: Game>(
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
        ownership: if ownership {
            vec![0.0; indices.len() * cells]
        } else {
            Vec::new()
        },
        ownership_cells: vec![0.0; indices.len()],
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
        batch.outcome[row * 3 + sample.outcome_class] = 1.0;
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

    use super::*;

    #[test]
    fn a_policy_target_beyond_the_policy_head_is_an_error() {
        // It once indexed past a batch's policy rows and panicked.
        let record = GameRecord {
            parameters: Heraldis::default().parameters(),
            positions: vec![PositionRecord {
                state: "5/5/5/5/5 l - 0".to_string(),
                policy: vec![(7, 0.5), (300, 0.5)],
                outcome: 0,
                search_wdl: [0.0, 1.0, 0.0],
            }],
            plies: 1,
            final_state: None,
        };
        let error = ReplayWindow::<Heraldis>::from_records(&[record], false)
            .map(|_| ())
            .expect_err("beyond the head")
            .to_string();
        assert_eq!(
            error,
            "invalid policy target '5/5/5/5/5 l - 0': action 300 is beyond the game's 26 actions"
        );
    }
}
