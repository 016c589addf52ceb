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
    /// Searches use the moves the rules force (decisive and anti-decisive
    /// moves, where the game knows them).
    pub decisive_moves: bool,
    /// Forced playouts with policy target pruning on full searches (KataGo's
    /// k, 2 in its runs; 0: none).
    pub forced_playouts: f32,
    /// Share of the games that start near the game's end, walked back
    /// (`Game::reverse_start`, for games whose results are rare from the
    /// start: Halma); the others start from the start.
    pub reverse_start_fraction: f64,
    /// Reverse starts walk back 1 to this many moves of each side (0: none).
    pub reverse_start_plies: u32,
    /// Share of the games that start after random moves from the start,
    /// taken as a new start (`Game::opening_walk`: in Halma the yard rule
    /// then meets a partly emptied yard).
    pub opening_walk_fraction: f64,
    /// Opening walks play 1 to this many random moves of each side (0: none).
    pub opening_walk_plies: u32,
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
            decisive_moves: true,
            forced_playouts: 0.0,
            reverse_start_fraction: 0.0,
            reverse_start_plies: 0,
            opening_walk_fraction: 0.0,
            opening_walk_plies: 0,
        }
    }
}

impl SelfPlaySettings {
    /// The self-play driver's settings.
    pub fn driver_config(&self) -> SelfPlayConfig {
        SelfPlayConfig {
            games_in_flight: self.games_in_flight,
            full_simulations: self.full_simulations,
            cheap_simulations: self.cheap_simulations,
            full_search_fraction: self.full_search_fraction,
            temperature_plies: self.temperature_plies,
            dirichlet_weight: self.dirichlet_weight,
            gumbel: self.gumbel,
            decisive_moves: self.decisive_moves,
            forced_playouts: self.forced_playouts,
            reverse_start_fraction: self.reverse_start_fraction,
            reverse_start_plies: self.reverse_start_plies,
            opening_walk_fraction: self.opening_walk_fraction,
            opening_walk_plies: self.opening_walk_plies,
            ..SelfPlayConfig::default()
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
        if !(0.0..=1.0).contains(&self.selfplay.dirichlet_weight) {
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
        let forced = self.selfplay.forced_playouts;
        if !(forced.is_finite() && forced >= 0.0) {
            return Err("selfplay.forced_playouts must be zero or positive".to_string());
        }
        let selfplay = &self.selfplay;
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
mod tests {
    //! `from_toml` under random and mangled text: never a panic, a bad
    //! text gets one non-empty line, a good one writes back to itself.

    use proptest::prelude::*;
    use proptest::sample::select;

    use super::*;

    /// A configuration as shipped with a checkpoint, every field set.
    const SHIPPED: &str = include_str!("../../checkpoints/heraldis/training-config.toml");

    /// Characters that start a new line on a terminal or in a log.
    const LINE_BREAKS: [char; 7] = [
        '\n', '\r', '\u{0b}', '\u{0c}', '\u{85}', '\u{2028}', '\u{2029}',
    ];

    /// Fails unless `text` reads as a configuration that writes back to
    /// itself, or gets a one-line error.
    fn check(text: &str) -> Result<(), TestCaseError> {
        match TrainingConfig::from_toml(text) {
            Ok(config) => {
                prop_assert_eq!(config.validate(), Ok(()));
                let written = config.to_toml();
                prop_assert_eq!(
                    TrainingConfig::from_toml(&written),
                    Ok(config),
                    "{}",
                    written
                );
            }
            Err(error) => {
                prop_assert!(!error.trim().is_empty(), "empty error for {text:?}");
                prop_assert!(!error.contains(LINE_BREAKS), "not one line: {error:?}");
            }
        }
        Ok(())
    }

    /// The keys of every table, some of them misspelt.
    const KEYS: &[&str] = &[
        "channels",
        "blocks",
        "games_per_generation",
        "games_per_shard",
        "games_in_flight",
        "full_simulations",
        "cheap_simulations",
        "full_search_fraction",
        "temperature_plies",
        "dirichlet_weight",
        "gumbel",
        "layouts",
        "batch_size",
        "steps_per_generation",
        "learning_rate",
        "learning_rate_decay",
        "weight_decay",
        "replay_positions",
        "every",
        "games",
        "simulations",
        "anchors",
        "network",
        "width",
        "\"quoted key\"",
        "'a\\nb'",
        "\"a\\nb\"",
    ];

    const TABLES: &[&str] = &[
        "[network]",
        "[selfplay]",
        "[optimizer]",
        "[evaluation]",
        "[[network]]",
        "[network.channels]",
        "[other]",
        "[\"line\\nbreak\"]",
        "[]",
        "[network",
    ];

    const VALUES: &[&str] = &[
        "0",
        "1",
        "-1",
        "32",
        "4294967295",
        "4294967296",
        "18446744073709551615",
        "9223372036854775807",
        "99999999999999999999",
        "0.5",
        "-0.5",
        "1e308",
        "1e309",
        "-1e-320",
        "nan",
        "+nan",
        "-nan",
        "inf",
        "-inf",
        "true",
        "false",
        "\"default\"",
        "\"random\"",
        "\"mixed\"",
        "\"square\"",
        "\"\"",
        "\"a\\nb\"",
        "'''\nline\n'''",
        "[]",
        "[\"alphabeta:depth=4\"]",
        "[1, 2]",
        "{}",
        "{ channels = 1 }",
        "1979-05-27T07:32:00Z",
        "0x10",
        "1_000",
        "",
    ];

    /// A TOML-like line: a table header, a key and a value, or noise.
    fn a_line() -> impl Strategy<Value = String> {
        prop_oneof![
            select(TABLES).prop_map(str::to_string),
            (select(KEYS), select(VALUES)).prop_map(|(k, v)| format!("{k} = {v}")),
            "[a-z_\\[\\]=\"' .0-9#-]{0,24}",
        ]
    }

    /// One edit of a text (positions modulo its length).
    #[derive(Clone, Debug)]
    enum Edit {
        DeleteChar(usize),
        InsertChar(usize, char),
        ReplaceChar(usize, char),
        DeleteLine(usize),
        DuplicateLine(usize),
        SwapLines(usize, usize),
        ReplaceLine(usize, String),
    }

    fn an_edit() -> impl Strategy<Value = Edit> {
        let index = any::<usize>();
        let a_char = prop_oneof![
            4 => select(&['=', '[', ']', '"', '\'', '\n', ' ', '.', '-', '0', '9', 'e', '#', ','][..]),
            1 => any::<char>(),
        ];
        prop_oneof![
            index.prop_map(Edit::DeleteChar),
            (index, a_char.clone()).prop_map(|(i, c)| Edit::InsertChar(i, c)),
            (index, a_char).prop_map(|(i, c)| Edit::ReplaceChar(i, c)),
            index.prop_map(Edit::DeleteLine),
            index.prop_map(Edit::DuplicateLine),
            (index, index).prop_map(|(i, j)| Edit::SwapLines(i, j)),
            (index, a_line()).prop_map(|(i, l)| Edit::ReplaceLine(i, l)),
        ]
    }

    fn mangled(text: &str, edits: &[Edit]) -> String {
        let mut text = text.to_string();
        for edit in edits {
            let mut chars: Vec<char> = text.chars().collect();
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            let (n, l) = (chars.len(), lines.len());
            text = match edit {
                Edit::InsertChar(i, c) => {
                    chars.insert(i % (n + 1), *c);
                    chars.into_iter().collect()
                }
                Edit::DeleteChar(i) if n > 0 => {
                    chars.remove(i % n);
                    chars.into_iter().collect()
                }
                Edit::ReplaceChar(i, c) if n > 0 => {
                    chars[i % n] = *c;
                    chars.into_iter().collect()
                }
                Edit::DeleteLine(i) if l > 0 => {
                    lines.remove(i % l);
                    lines.join("\n")
                }
                Edit::DuplicateLine(i) if l > 0 => {
                    lines.insert(i % l, lines[i % l].clone());
                    lines.join("\n")
                }
                Edit::SwapLines(i, j) if l > 0 => {
                    lines.swap(i % l, j % l);
                    lines.join("\n")
                }
                Edit::ReplaceLine(i, line) if l > 0 => {
                    lines[i % l] = line.clone();
                    lines.join("\n")
                }
                _ => text,
            };
        }
        text
    }

    /// Every field, by table.
    const FIELDS: &[(&str, &str)] = &[
        ("network", "channels"),
        ("network", "blocks"),
        ("selfplay", "games_per_generation"),
        ("selfplay", "games_per_shard"),
        ("selfplay", "games_in_flight"),
        ("selfplay", "full_simulations"),
        ("selfplay", "cheap_simulations"),
        ("selfplay", "full_search_fraction"),
        ("selfplay", "temperature_plies"),
        ("selfplay", "dirichlet_weight"),
        ("selfplay", "gumbel"),
        ("selfplay", "layouts"),
        ("optimizer", "batch_size"),
        ("optimizer", "steps_per_generation"),
        ("optimizer", "learning_rate"),
        ("optimizer", "learning_rate_decay"),
        ("optimizer", "weight_decay"),
        ("optimizer", "replay_positions"),
        ("evaluation", "every"),
        ("evaluation", "games"),
        ("evaluation", "simulations"),
        ("evaluation", "anchors"),
    ];

    /// A value in TOML: an odd one, or any number.
    fn a_value() -> impl Strategy<Value = String> {
        prop_oneof![
            select(VALUES).prop_map(str::to_string),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<f64>().prop_map(|x| format!("{x:?}")),
            any::<f32>().prop_map(|x| format!("{x:e}")),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn any_value_in_any_field(
            fields in prop::collection::vec((select(FIELDS), a_value()), 1..4),
        ) {
            let text: String = fields
                .iter()
                .map(|((table, key), value)| format!("[{table}]\n{key} = {value}\n"))
                .collect();
            check(&text)?;
        }

        #[test]
        fn any_text(text in any::<String>()) {
            check(&text)?;
        }

        #[test]
        fn toml_like_lines(lines in prop::collection::vec(a_line(), 0..12)) {
            check(&lines.join("\n"))?;
        }

        #[test]
        fn mangled_configurations(
            which in 0..3usize,
            edits in prop::collection::vec(an_edit(), 0..5),
        ) {
            let valid = match which {
                0 => SHIPPED.to_string(),
                1 => TrainingConfig::default().to_toml(),
                _ => "[network]\nchannels = 8\nblocks = 1\n".to_string(),
            };
            check(&mangled(&valid, &edits))?;
        }
    }

    #[test]
    fn numbers_that_cannot_train_are_refused() {
        // NaN read, and then wrote back to a configuration unequal to itself.
        for (text, message) in [
            (
                "[selfplay]\ndirichlet_weight = nan",
                "selfplay.dirichlet_weight must be between 0 and 1",
            ),
            (
                "[optimizer]\nlearning_rate = inf",
                "optimizer.learning_rate must be positive",
            ),
            (
                "[optimizer]\nlearning_rate_decay = nan",
                "optimizer.learning_rate_decay must be positive",
            ),
            (
                "[optimizer]\nweight_decay = -1e-4",
                "optimizer.weight_decay must be zero or positive",
            ),
        ] {
            assert_eq!(TrainingConfig::from_toml(text), Err(message.to_string()));
        }
    }
}
