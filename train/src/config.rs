//! Training settings, read from TOML; every field has a default.

use serde::{Deserialize, Serialize};

/// Which boards self-play uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layouts {
    /// The game's default board only.
    Default,
    /// A random board for every game.
    Random,
    /// Half the games on the default board, half on random ones.
    Mixed,
}

/// Shape of the network trained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NetworkSettings {
    /// Channels of the residual tower.
    pub channels: usize,
    /// Residual blocks.
    pub blocks: usize,
}

impl Default for NetworkSettings {
    fn default() -> NetworkSettings {
        NetworkSettings {
            channels: 32,
            blocks: 4,
        }
    }
}

/// Self-play settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfPlaySettings {
    /// Games per generation.
    pub games_per_generation: usize,
    /// Games written to disk together (what a crash can lose at most).
    pub games_per_shard: usize,
    /// Games played at once.
    pub games_in_flight: usize,
    /// Simulations of a full search.
    pub full_simulations: u32,
    /// Simulations of a cheap search.
    pub cheap_simulations: u32,
    /// Fraction of moves with a full search (the policy targets).
    pub full_search_fraction: f64,
    /// Opening plies whose move is sampled by visit count.
    pub temperature_plies: u32,
    /// Root Dirichlet noise weight on full searches.
    pub dirichlet_weight: f32,
    /// Use the Gumbel root.
    pub gumbel: bool,
    /// Boards: default, random or mixed.
    pub layouts: Layouts,
}

impl Default for SelfPlaySettings {
    fn default() -> SelfPlaySettings {
        SelfPlaySettings {
            games_per_generation: 256,
            games_per_shard: 64,
            games_in_flight: 64,
            full_simulations: 160,
            cheap_simulations: 32,
            full_search_fraction: 0.25,
            temperature_plies: 4,
            dirichlet_weight: 0.25,
            gumbel: false,
            layouts: Layouts::Mixed,
        }
    }
}

/// Optimiser settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OptimizerSettings {
    /// Samples per step.
    pub batch_size: usize,
    /// Steps after each generation of self-play.
    pub steps_per_generation: usize,
    /// AdamW learning rate at the start.
    pub learning_rate: f64,
    /// The learning rate is multiplied by this every generation, down to a
    /// tenth of the start.
    pub learning_rate_decay: f64,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f32,
    /// Newest positions the samples are drawn from.
    pub replay_positions: usize,
}

impl Default for OptimizerSettings {
    fn default() -> OptimizerSettings {
        OptimizerSettings {
            batch_size: 256,
            steps_per_generation: 40,
            learning_rate: 2e-3,
            learning_rate_decay: 0.97,
            weight_decay: 1e-4,
            replay_positions: 120_000,
        }
    }
}

/// Rating the checkpoints as training goes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvaluationSettings {
    /// Rate every this many generations (0: never).
    pub every: u32,
    /// Games per match (colours alternate).
    pub games: u32,
    /// Simulations per move of the network's search.
    pub simulations: u32,
    /// Fixed opponents, as `arena` player specs; the checkpoint rated last
    /// time is always an opponent too.
    pub anchors: Vec<String>,
}

impl Default for EvaluationSettings {
    fn default() -> EvaluationSettings {
        EvaluationSettings {
            every: 10,
            games: 40,
            simulations: 800,
            anchors: vec![
                "alphabeta:depth=4".to_string(),
                "rollout:sims=10000".to_string(),
            ],
        }
    }
}

/// Everything a training run needs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainingConfig {
    /// The network.
    pub network: NetworkSettings,
    /// Self-play.
    pub selfplay: SelfPlaySettings,
    /// The optimiser.
    pub optimizer: OptimizerSettings,
    /// Rating the checkpoints.
    pub evaluation: EvaluationSettings,
}

impl TrainingConfig {
    /// Reads a TOML configuration (missing fields take their defaults).
    pub fn from_toml(text: &str) -> Result<TrainingConfig, String> {
        let config: TrainingConfig = toml::from_str(text).map_err(|e| {
            e.to_string()
                .lines()
                .last()
                .unwrap_or("bad TOML")
                .trim()
                .to_string()
        })?;
        config.validate()?;
        Ok(config)
    }

    /// The configuration as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a configuration always serialises")
    }

    /// Checks the values make sense.
    pub fn validate(&self) -> Result<(), String> {
        let positive = [
            ("network.channels", self.network.channels),
            ("network.blocks", self.network.blocks),
            (
                "selfplay.games_per_generation",
                self.selfplay.games_per_generation,
            ),
            ("selfplay.games_per_shard", self.selfplay.games_per_shard),
            ("selfplay.games_in_flight", self.selfplay.games_in_flight),
            (
                "selfplay.full_simulations",
                self.selfplay.full_simulations as usize,
            ),
            (
                "selfplay.cheap_simulations",
                self.selfplay.cheap_simulations as usize,
            ),
            ("optimizer.batch_size", self.optimizer.batch_size),
            (
                "optimizer.replay_positions",
                self.optimizer.replay_positions,
            ),
        ];
        for (name, value) in positive {
            if value == 0 {
                return Err(format!("{name} must be positive"));
            }
        }
        if !(0.0..=1.0).contains(&self.selfplay.full_search_fraction) {
            return Err("selfplay.full_search_fraction must be between 0 and 1".to_string());
        }
        if self.optimizer.learning_rate.is_nan() || self.optimizer.learning_rate <= 0.0 {
            return Err("optimizer.learning_rate must be positive".to_string());
        }
        Ok(())
    }
}
