//! Training settings, read from TOML; every field has a default.

use crate::samples::Targets;
use grandmaitre_engine::GameSpec;
use grandmaitre_model::NetworkConfig;
use grandmaitre_selfplay::SelfPlayConfig;
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

/// The kind of heads of the network (see `grandmaitre_model::network`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Heads {
    /// Dense heads, tied to one board size.
    Dense,
    /// Pooled heads: any board of the game, pooling in the tower.
    Pooled,
}

/// Shape of the network trained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NetworkSettings {
    /// Channels of the residual tower.
    pub channels: usize,
    /// Residual blocks.
    pub blocks: usize,
    /// Dense or pooled heads.
    pub heads: Heads,
    /// Pooled heads: every this many blocks, one adds a bias from global
    /// pooling (0: none).
    pub pooling_every: usize,
    /// Weight of the ownership loss (each cell's final owner, for games
    /// that have one); 0 leaves the ownership head out.
    pub ownership_weight: f32,
    /// Weight of the moves-left loss (the plies until the game ends, which
    /// the search uses to win sooner); 0 leaves the moves-left head out. A
    /// run may turn it on when it resumes: the head is added, untrained, to
    /// the latest checkpoint's network.
    pub moves_left_weight: f32,
    /// The own-rules value head: a second value, trained on each game's
    /// result under the game's own rules, for runs whose rules (or whose
    /// curriculum's) adjudicate what the game's rules call a draw. The
    /// search that plays reads the main value; the bar reads this one. A
    /// run may turn it on when it resumes, as the moves-left head.
    pub rules_value_head: bool,
}

impl NetworkSettings {
    /// The network these settings describe, for the board `spec`.
    pub fn network_config(&self, spec: &GameSpec) -> NetworkConfig {
        let shape = match self.heads {
            Heads::Dense => NetworkConfig::for_game(spec),
            Heads::Pooled => {
                NetworkConfig::pooled_for_game(spec).with_pooling_every(self.pooling_every)
            }
        };
        shape
            .with_channels(self.channels)
            .with_blocks(self.blocks)
            .with_ownership_head(self.ownership_weight > 0.0)
            .with_moves_left_head(self.moves_left_weight > 0.0)
            .with_rules_value_head(self.rules_value_head)
    }
}

impl Default for NetworkSettings {
    fn default() -> NetworkSettings {
        NetworkSettings {
            channels: 32,
            blocks: 4,
            heads: Heads::Dense,
            pooling_every: 2,
            ownership_weight: 0.0,
            moves_left_weight: 0.0,
            rules_value_head: false,
        }
    }
}

/// One stage of a curriculum: self-play on other rules (a smaller board)
/// up to a generation, in every generation or interleaved with the stages
/// after it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stage {
    /// The rules of the stage's games, as `--rules` takes them.
    pub rules: String,
    /// The last generation of the stage.
    pub until: u32,
    /// The stage has the generations, up to `until` and after the earlier
    /// stages', that are multiples of this; the others go to the stages
    /// after it (or to the run's own rules). 1: all of them.
    #[serde(
        default = "every_generation",
        skip_serializing_if = "is_every_generation"
    )]
    pub every: u32,
}

fn every_generation() -> u32 {
    1
}

fn is_every_generation(every: &u32) -> bool {
    *every == 1
}

impl Stage {
    /// Whether `generation` is one of the stage's, the earlier stages
    /// having taken theirs.
    pub fn has(&self, generation: u32) -> bool {
        generation <= self.until && generation.is_multiple_of(self.every)
    }
}

/// Self-play settings, the `[selfplay]` table: the run's own (games a
/// generation and a shard, which boards) beside how each game is played
/// (the self-play driver's [`SelfPlayConfig`], whose fields the table
/// holds as they are).
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlaySettings {
    /// Games per generation.
    pub games_per_generation: usize,
    /// Games written to disk together (what a crash can lose at most).
    pub games_per_shard: usize,
    /// Boards: default, random or mixed.
    pub layouts: Layouts,
    /// How each game is played: games at once, the searches' simulations,
    /// the opening temperature, root noise, decisive moves, forced
    /// playouts, reverse starts and opening walks.
    pub games: SelfPlayConfig,
}

impl Default for SelfPlaySettings {
    fn default() -> SelfPlaySettings {
        SelfPlaySettings {
            games_per_generation: 256,
            games_per_shard: 64,
            layouts: Layouts::Mixed,
            games: SelfPlayConfig {
                temperature_plies: 4,
                ..SelfPlayConfig::default()
            },
        }
    }
}

impl Serialize for SelfPlaySettings {
    /// One table: the run's keys, then the driver's.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Table<'a> {
            games_per_generation: usize,
            games_per_shard: usize,
            layouts: Layouts,
            #[serde(flatten)]
            games: &'a SelfPlayConfig,
        }
        Table {
            games_per_generation: self.games_per_generation,
            games_per_shard: self.games_per_shard,
            layouts: self.layouts,
            games: &self.games,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SelfPlaySettings {
    /// The table's run keys, then the rest as the driver's settings over
    /// the run's defaults (an unknown key is refused there, by name).
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut given = toml::Table::deserialize(deserializer)?;
        let defaults = SelfPlaySettings::default();
        fn take<T: serde::de::DeserializeOwned, E: Error>(
            table: &mut toml::Table,
            key: &str,
            default: T,
        ) -> Result<T, E> {
            match table.remove(key) {
                Some(value) => T::deserialize(value)
                    .map_err(|e| E::custom(format!("{} in `{key}`", one_line(&e.to_string())))),
                None => Ok(default),
            }
        }
        let games_per_generation = take(
            &mut given,
            "games_per_generation",
            defaults.games_per_generation,
        )?;
        let games_per_shard = take(&mut given, "games_per_shard", defaults.games_per_shard)?;
        let layouts = take(&mut given, "layouts", defaults.layouts)?;
        let mut table = toml::Table::try_from(&defaults.games).map_err(D::Error::custom)?;
        table.extend(given);
        let games = SelfPlayConfig::deserialize(toml::Value::Table(table)).map_err(|e| {
            // One line, and the run's keys among those an unknown one was
            // expected to be.
            D::Error::custom(one_line(&e.to_string()).replace(
                "expected one of `",
                "expected one of `games_per_generation`, `games_per_shard`, `layouts`, `",
            ))
        })?;
        Ok(SelfPlaySettings {
            games_per_generation,
            games_per_shard,
            layouts,
            games,
        })
    }
}

/// `text`'s lines, trimmed, on one line.
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
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
    /// Share of the sampling weight of the policy targets given by their
    /// surprise (KataGo: 0.5): a target is drawn in proportion to
    /// 1 − s + s · surprise / mean surprise; 0 draws uniformly.
    pub surprise_weight: f32,
    /// Weight of the short-term value in the value target: the target is
    /// (1 − w) · the game's result + w · the exponential average of the
    /// search values from this position on; 0: the result alone.
    pub short_term_value: f32,
    /// Plies over which that average decays (its weights are
    /// (1 − 1/horizon)^k, k plies ahead).
    pub short_term_horizon: f32,
    /// Weight of a training rule's adjudication in the main value target,
    /// where it decided a game that the game's own rules call a draw: the
    /// target is w · the adjudicated result + (1 − w) · the draw. Below 1,
    /// a lead held to the cap is worth less than a win by the rules, so
    /// that the search that plays by the main value has a reason to finish
    /// the game; 1: the adjudicated result alone.
    pub adjudication_weight: f32,
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
            surprise_weight: 0.0,
            short_term_value: 0.0,
            short_term_horizon: 6.0,
            adjudication_weight: 1.0,
        }
    }
}

impl OptimizerSettings {
    /// How the replay window makes its targets.
    pub fn targets(&self) -> Targets {
        Targets {
            short_term_value: self.short_term_value,
            short_term_horizon: self.short_term_horizon,
            surprise_weight: self.surprise_weight,
            adjudication_weight: self.adjudication_weight,
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
    /// time is always an opponent too. Unset: the game's own default
    /// anchors (each game names those it can play), written into the run's
    /// settings when the run starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchors: Option<Vec<String>>,
}

impl Default for EvaluationSettings {
    fn default() -> EvaluationSettings {
        EvaluationSettings {
            every: 10,
            games: 40,
            simulations: 800,
            anchors: None,
        }
    }
}

/// Everything a training run needs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainingConfig {
    /// The rules of the run's own games (the game's parameters); absent:
    /// the game's default rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// The network.
    pub network: NetworkSettings,
    /// Self-play.
    pub selfplay: SelfPlaySettings,
    /// The optimiser.
    pub optimizer: OptimizerSettings,
    /// Rating the checkpoints.
    pub evaluation: EvaluationSettings,
    /// Stages of self-play on other rules before the run's own (pooled
    /// heads only), in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub curriculum: Vec<Stage>,
    /// The run's random seed: the network's first weights, the self-play
    /// games and the batches follow from it (runs differing only in it are
    /// independent repetitions).
    pub seed: u64,
}

impl TrainingConfig {
    /// `seed` (a generation's, a batch's) made the run's own: unchanged
    /// with seed 0, scrambled by any other.
    pub fn seeded(&self, seed: u64) -> u64 {
        seed ^ self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// Reads a TOML configuration (missing fields take their defaults).
    pub fn from_toml(text: &str) -> Result<TrainingConfig, String> {
        let config: TrainingConfig = toml::from_str(text).map_err(|e| {
            e.to_string()
                .lines()
                .rfind(|line| !line.trim().is_empty())
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
            (
                "selfplay.games_in_flight",
                self.selfplay.games.games_in_flight,
            ),
            (
                "selfplay.full_simulations",
                self.selfplay.games.full_simulations as usize,
            ),
            (
                "selfplay.cheap_simulations",
                self.selfplay.games.cheap_simulations as usize,
            ),
            (
                "selfplay.leaves_per_batch",
                self.selfplay.games.leaves_per_batch as usize,
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
        if !(0.0..=1.0).contains(&self.selfplay.games.full_search_fraction) {
            return Err("selfplay.full_search_fraction must be between 0 and 1".to_string());
        }
        if !(0.0..=1.0).contains(&self.selfplay.games.dirichlet_weight) {
            return Err("selfplay.dirichlet_weight must be between 0 and 1".to_string());
        }
        // NaN and infinity pass a comparison or two; none of them trains.
        let optimizer = &self.optimizer;
        for (name, value) in [
            ("optimizer.learning_rate", optimizer.learning_rate),
            (
                "optimizer.learning_rate_decay",
                optimizer.learning_rate_decay,
            ),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!("{name} must be positive"));
            }
        }
        if !(optimizer.weight_decay.is_finite() && optimizer.weight_decay >= 0.0) {
            return Err("optimizer.weight_decay must be zero or positive".to_string());
        }
        let ownership = self.network.ownership_weight;
        if !(ownership.is_finite() && ownership >= 0.0) {
            return Err("network.ownership_weight must be zero or positive".to_string());
        }
        let moves_left = self.network.moves_left_weight;
        if !(moves_left.is_finite() && moves_left >= 0.0) {
            return Err("network.moves_left_weight must be zero or positive".to_string());
        }
        let temperature = self.selfplay.games.temperature;
        if !(temperature.is_finite() && temperature > 0.0) {
            return Err("selfplay.temperature must be positive".to_string());
        }
        if !(0.5..=1.0).contains(&self.selfplay.games.decided_threshold) {
            return Err("selfplay.decided_threshold must be between 0.5 and 1".to_string());
        }
        let forced = self.selfplay.games.forced_playouts;
        if !(forced.is_finite() && forced >= 0.0) {
            return Err("selfplay.forced_playouts must be zero or positive".to_string());
        }
        if !(0.0..=1.0).contains(&self.selfplay.games.minimax_weight) {
            return Err("selfplay.minimax_weight must be between 0 and 1".to_string());
        }
        if !(0.0..=1.0).contains(&self.selfplay.games.leaf_weight) {
            return Err("selfplay.leaf_weight must be between 0 and 1".to_string());
        }
        if !(0.0..=1.0).contains(&self.selfplay.games.score_utility) {
            return Err("selfplay.score_utility must be between 0 and 1".to_string());
        }
        let scale = self.selfplay.games.score_scale;
        if !(scale.is_finite() && scale >= 0.0) {
            return Err("selfplay.score_scale must be zero (the game's) or positive".to_string());
        }
        if self.selfplay.games.leaf_depth > 8 || self.selfplay.games.root_leaf_depth > 8 {
            return Err("selfplay.leaf_depth and root_leaf_depth must be from 0 to 8".to_string());
        }
        let selfplay = &self.selfplay.games;
        let shares = selfplay.reverse_start_fraction + selfplay.opening_walk_fraction;
        if !(0.0..=1.0).contains(&selfplay.reverse_start_fraction)
            || !(0.0..=1.0).contains(&selfplay.opening_walk_fraction)
            || shares > 1.0
        {
            return Err(
                "selfplay.reverse_start_fraction and opening_walk_fraction must be between 0 and 1, and add up to at most 1"
                    .to_string(),
            );
        }
        for (name, value) in [
            ("optimizer.surprise_weight", optimizer.surprise_weight),
            ("optimizer.short_term_value", optimizer.short_term_value),
            (
                "optimizer.adjudication_weight",
                optimizer.adjudication_weight,
            ),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(format!("{name} must be between 0 and 1"));
            }
        }
        if !(optimizer.short_term_horizon.is_finite() && optimizer.short_term_horizon >= 1.0) {
            return Err("optimizer.short_term_horizon must be at least 1".to_string());
        }
        if !self.curriculum.is_empty() && self.network.heads != Heads::Pooled {
            return Err("a curriculum needs network.heads = \"pooled\"".to_string());
        }
        if self.curriculum.iter().any(|stage| stage.every == 0) {
            return Err("curriculum.every must be at least 1".to_string());
        }
        // A stage that every generation of its range goes to leaves none
        // of that range to the stages after it.
        if !self
            .curriculum
            .windows(2)
            .all(|w| w[0].until < w[1].until || (w[0].every > 1 && w[0].until <= w[1].until))
        {
            return Err("curriculum stages must end in increasing generations (an interleaved stage, every > 1, may end with the next)".to_string());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
