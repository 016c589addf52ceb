//! What self-play keeps of a game: its rules, and for every position the
//! search's findings and the game's result.

use serde::{Deserialize, Serialize};

/// One position of a self-play game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PositionRecord {
    /// The position in the game's notation.
    pub state: String,
    /// Policy target over the legal actions, as (action, probability); empty
    /// when the move got only a cheap search (not a policy target).
    pub policy: Vec<(u16, f32)>,
    /// The game's result for the side to move here: 1 win, 0 draw, −1 loss.
    pub outcome: i8,
    /// The search's win/draw/loss estimate for the side to move.
    pub search_wdl: [f32; 3],
    /// How much the search changed the network's mind: the KL divergence
    /// of the policy target from the root's priors (0 without a target).
    pub surprise: f32,
}

/// A finished self-play game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's parameters (`Game::parameters`: for Heraldis the layout
    /// and the ply limit).
    pub parameters: String,
    /// Every position where a move was searched, in order.
    pub positions: Vec<PositionRecord>,
    /// Plies the game lasted.
    pub plies: u32,
    /// The final position in the game's notation (the ownership targets
    /// come from it); absent in games recorded before it was kept.
    pub final_state: Option<String>,
}

impl GameRecord {
    /// Positions that are policy targets.
    pub fn policy_targets(&self) -> usize {
        self.positions
            .iter()
            .filter(|p| !p.policy.is_empty())
            .count()
    }
}
