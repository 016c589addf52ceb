//! Player specifications on the command line (`random`, `greedy`,
//! `rollout:sims=2000`, `alphabeta:depth=4`, `uniform:sims=800`,
//! `openspiel:sims=1000`, `mcts:sims=800`, `mcts:model=DIR,level=5`), and
//! the models that guide searches: the game's shipped one, compiled into
//! the program, or a checkpoint directory.

use anyhow::{Context, Result, bail};
use std::any::Any;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use burn::tensor::Device;
use grandmaitre_engine::Game;
use grandmaitre_engine::agent::{Agent, MctsAgent, RandomAgent, RandomOpening};
use grandmaitre_engine::book::{Book, BookAgent};
use grandmaitre_engine::game::OneLine;
use grandmaitre_engine::guard::GuardedAgent;
use grandmaitre_engine::levels::Level;
use grandmaitre_engine::search::{
    MoveChoice, MovesLeftConfig, RolloutEvaluator, SearchConfig, Tactics, UniformEvaluator,
};
use grandmaitre_engine::seats::Seats;
use grandmaitre_engine::{Hints, History, Playable};
use grandmaitre_model::bar::{self, Shown};
use grandmaitre_model::{Calibration, Calibrations, Checkpoint, NetworkEvaluator};

use crate::registry::{self, Registered};

/// Which network guides a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelChoice {
    /// The game's shipped model, compiled into the program.
    Shipped,
    /// A checkpoint directory.
    Directory(PathBuf),
    /// No network: random rollouts (only where a command offers it).
    Rollouts,
}

/// What the Grand Maître plays and shows the bar with for game `G`: the
/// network, the calibrations of its bar, and the game's solution book
/// where one is a proof under the rules it was loaded for.
#[derive(Debug)]
pub struct LoadedModel<G: Game> {
    /// The network, as an evaluator.
    pub evaluator: NetworkEvaluator,
    /// The checkpoint's calibrations of the bar.
    pub calibrations: Calibrations,
    /// The game's solution book under these rules, if one applies.
    pub book: Option<Arc<Book<G>>>,
}

impl<G: Game> LoadedModel<G> {
    /// The calibration of the bar under `game`'s rules, if the checkpoint
    /// has one for them.
    pub fn calibration(&self, game: &G) -> Option<&Calibration> {
        self.calibrations.for_rules(game.rules())
    }

    /// The bar at `state`, reached through `history`, for `seats`, with
    /// this model's network, calibration and book ([`bar::bar`]).
    pub fn bar(&self, game: &G, state: &G::State, seats: &Seats, history: &History<G>) -> Shown
    where
        G: Playable,
    {
        let calibration = self.calibration(game);
        let book = self.book.as_deref();
        bar::bar(
            game,
            state,
            &self.evaluator,
            calibration,
            book,
            seats,
            history,
        )
    }
}

impl ModelChoice {
    /// `--model`: absent for the shipped model, `rollouts`, or a directory.
    pub fn from_arg(path: Option<&Path>) -> ModelChoice {
        match path {
            None => ModelChoice::Shipped,
            Some(path) if path.as_os_str() == "rollouts" => ModelChoice::Rollouts,
            Some(path) => ModelChoice::Directory(path.to_path_buf()),
        }
    }

    /// The network for `game`, with its calibrations and the game's book:
    /// the one way from a model choice to what plays. A one-line error when
    /// there is no network (no shipped model, a missing or foreign
    /// checkpoint, rollouts asked of a command that needs a network).
    pub fn load<G: Registered>(&self, game: &G) -> Result<LoadedModel<G>> {
        let checkpoint = self.checkpoint(game)?;
        let calibrations = checkpoint.metadata.calibrations();
        for rules in calibrations.by_rules.keys() {
            rules.parse::<G::Rules>().map_err(|why| {
                anyhow::anyhow!(
                    "the model's calibration of the rules '{}': {why}",
                    OneLine(rules)
                )
            })?;
        }
        Ok(LoadedModel {
            evaluator: checkpoint.evaluator(),
            calibrations,
            book: registry::book(game),
        })
    }

    /// The checkpoint itself (burn's network, its description), with the
    /// errors of [`ModelChoice::load`].
    pub fn checkpoint<G: Registered>(&self, game: &G) -> Result<Checkpoint> {
        let device = Device::flex();
        Ok(match self {
            ModelChoice::Shipped => {
                let shipped = G::SHIPPED.with_context(|| {
                    format!("{} has no shipped model: pass --model DIR", G::NAME)
                })?;
                Checkpoint::from_bytes(
                    &format!("shipped {} model (built for its default rules)", G::NAME),
                    shipped.metadata,
                    shipped.weights,
                    game.spec(),
                    &device,
                )?
            }
            ModelChoice::Directory(path) => Checkpoint::load(path, game.spec(), &device)?,
            ModelChoice::Rollouts => {
                bail!(
                    "--model rollouts: this needs a network (a checkpoint directory, or no --model for the shipped one)"
                )
            }
        })
    }
}

/// A validated player specification.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// Uniformly random moves.
    Random,
    /// The game's greedy baseline (Halma: the most advancing move).
    Greedy,
    /// MCTS with uniform priors and random rollouts.
    Rollout {
        /// Simulations per move.
        simulations: u32,
        /// Random games per leaf.
        rollouts: u32,
    },
    /// MCTS with uniform priors and an even value (the search alone).
    Uniform {
        /// Simulations per move.
        simulations: u32,
    },
    /// Alpha-beta with the game's hand-written evaluation (Heraldis, Halma,
    /// Bulltricker).
    AlphaBeta {
        /// Depth in plies.
        depth: u32,
    },
    /// OpenSpiel's `MCTSBot` with random rollouts (a Python process).
    OpenSpiel {
        /// Simulations per move.
        simulations: u32,
        /// Random rollouts per leaf.
        rollouts: u32,
    },
    /// MCTS guided by a trained network.
    Model {
        /// The network: the game's shipped model unless `model=DIR`.
        model: ModelChoice,
        /// Simulations per move.
        simulations: u32,
        /// Search settings beyond the defaults.
        tuning: SearchTuning,
        /// Play the game's solution book where it proves a win (`book=1`).
        book: bool,
        /// Ask the solver before trusting the search (`solver=1`, the Grand
        /// Maître at full strength: `grandmaitre_engine::guard`).
        solver: bool,
        /// Uniformly random first moves (`opening=N`).
        opening: u32,
    },
}

/// Optional search settings of a network player:
/// `mcts:cpuct=1.5,fpu=0.2,lcb=1,temp=0.5,noise=0.1,decisive=0,forced=2,mlh=0,tactics=0,minimax=0.3,single=1,leafdepth=2,rootdepth=4,leafweight=0.5,score=0.3,scorescale=3`.
/// The search starts from the game's tactics
/// ([`grandmaitre_engine::Hints::search_tactics`]), as the levels search;
/// `tactics=0` starts from none, and each tactical setting given replaces
/// the one it names.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SearchTuning {
    /// PUCT exploration constant (`cpuct`).
    pub c_puct: Option<f32>,
    /// First-play-urgency reduction (`fpu`).
    pub fpu_reduction: Option<f32>,
    /// Choose the move by lower confidence bound (KataGo; the default
    /// without a temperature, `lcb=0` takes the most visited move).
    pub lcb: bool,
    /// Move-choice temperature on visit counts (`temp`; 0 takes the most
    /// visited move).
    pub temperature: f32,
    /// Probability of a uniformly random legal move instead (`noise`).
    pub noise: f64,
    /// Use the moves the rules force (`decisive`, on unless `decisive=0`).
    pub decisive_moves: Option<bool>,
    /// Forced playouts at the root, k of √(k·P·N) (`forced`; 0, none, by
    /// default).
    pub forced_playouts: Option<f32>,
    /// Slope of the moves-left utility, value per ply (`mlh`; 0 turns it
    /// off; used with a network that predicts the plies left).
    pub moves_left_slope: Option<f32>,
    /// Search without the game's tactics, from the network's search alone
    /// (`tactics=0`).
    pub without_tactics: bool,
    /// Weight of the implicit minimax backups (`minimax`, between 0 and 1).
    pub minimax_weight: Option<f32>,
    /// Take a position's only move without evaluating the position
    /// (`single=1`).
    pub skip_single_moves: Option<bool>,
    /// Plies of the alpha-beta search on the game's heuristic at each new
    /// position of the tree (`leafdepth`; 0: none).
    pub leaf_depth: Option<u32>,
    /// Plies of that search from the root's moves (`rootdepth`; below
    /// `leafdepth`, the same as `leafdepth`).
    pub root_leaf_depth: Option<u32>,
    /// Share of that search's score in a new leaf's value (`leafweight`,
    /// between 0 and 1; 0: its mates only).
    pub leaf_weight: Option<f32>,
    /// Weight of the score utility on the game's heuristic score
    /// (`score`, between 0 and 1; 0: none).
    pub score_utility: Option<f32>,
    /// Heuristic score at which that utility reaches half its weight
    /// (`scorescale`, above 0).
    pub score_scale: Option<f32>,
}

impl SearchTuning {
    /// `game`'s search with these settings applied, `simulations` a move.
    pub fn config<G: Hints>(&self, game: &G, simulations: u32) -> SearchConfig {
        self.apply(SearchConfig {
            simulations,
            tactics: if self.without_tactics {
                Tactics::default()
            } else {
                game.search_tactics()
            },
            ..SearchConfig::default()
        })
    }

    /// `base` with these settings applied.
    pub fn apply(&self, base: SearchConfig) -> SearchConfig {
        let tactics = base.tactics;
        SearchConfig {
            c_puct: self.c_puct.unwrap_or(base.c_puct),
            fpu_reduction: self.fpu_reduction.unwrap_or(base.fpu_reduction),
            decisive_moves: self.decisive_moves.unwrap_or(base.decisive_moves),
            forced_playouts: self.forced_playouts.unwrap_or(base.forced_playouts),
            tactics: Tactics {
                minimax_weight: self.minimax_weight.unwrap_or(tactics.minimax_weight),
                skip_single_moves: self.skip_single_moves.unwrap_or(tactics.skip_single_moves),
                leaf_depth: self.leaf_depth.unwrap_or(tactics.leaf_depth),
                root_leaf_depth: self.root_leaf_depth.unwrap_or(tactics.root_leaf_depth),
                leaf_weight: self.leaf_weight.unwrap_or(tactics.leaf_weight),
                score_utility: self.score_utility.unwrap_or(tactics.score_utility),
                score_scale: self.score_scale.unwrap_or(tactics.score_scale),
            },
            moves_left: MovesLeftConfig {
                slope: self.moves_left_slope.unwrap_or(base.moves_left.slope),
                ..base.moves_left
            },
            ..base
        }
    }

    /// How the move is chosen after the search.
    pub fn choice(&self) -> MoveChoice {
        if self.lcb {
            MoveChoice::LowerConfidenceBound
        } else {
            MoveChoice::Visits {
                temperature: self.temperature,
            }
        }
    }
}

/// A player ready to build agents: its network and its book, if any,
/// loaded once.
pub struct PreparedPlayer {
    spec: PlayerSpec,
    evaluator: Option<Arc<NetworkEvaluator>>,
    /// The game's book (an `Arc<Book<G>>` of the game it was prepared for).
    book: Option<Arc<dyn Any + Send + Sync>>,
}

impl std::fmt::Debug for PreparedPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedPlayer")
            .field("spec", &self.spec)
            .field("network", &self.evaluator.is_some())
            .field("book", &self.book.is_some())
            .finish_non_exhaustive()
    }
}

impl PlayerSpec {
    /// Reads `kind[:key=value,…]`.
    pub fn parse(text: &str) -> Result<PlayerSpec> {
        let (kind, options) = text.split_once(':').unwrap_or((text, ""));
        let mut pairs = Vec::new();
        for option in options.split(',').filter(|o| !o.is_empty()) {
            let (key, value) = option.split_once('=').with_context(|| {
                format!("invalid player '{text}': expected key=value, found '{option}'")
            })?;
            pairs.push((key, value));
        }
        let number = |key: &str, default: u32| -> Result<u32> {
            match pairs.iter().find(|(k, _)| *k == key) {
                Some((_, value)) => match value.parse::<u32>() {
                    Ok(n) if n > 0 => Ok(n),
                    _ => bail!(
                        "invalid player '{text}': {key} must be a positive whole number, found '{value}'"
                    ),
                },
                None => Ok(default),
            }
        };
        let real = |key: &str| -> Result<Option<f32>> {
            match pairs.iter().find(|(k, _)| *k == key) {
                Some((_, value)) => match value.parse::<f32>() {
                    Ok(x) if x.is_finite() && x >= 0.0 => Ok(Some(x)),
                    _ => bail!(
                        "invalid player '{text}': {key} must be a number ≥ 0, found '{value}'"
                    ),
                },
                None => Ok(None),
            }
        };
        let share = |key: &str| -> Result<Option<f32>> {
            match real(key)? {
                Some(x) if x > 1.0 => {
                    bail!("invalid player '{text}': {key} must be between 0 and 1")
                }
                share => Ok(share),
            }
        };
        let depth = |key: &str| -> Result<Option<u32>> {
            match real(key)? {
                Some(d) if d.fract() != 0.0 || d > 8.0 => {
                    bail!("invalid player '{text}': {key} must be a whole number from 0 to 8")
                }
                depth => Ok(depth.map(|d| d as u32)),
            }
        };
        let allowed: &[&str] = match kind {
            "random" | "greedy" => &[],
            "rollout" => &["sims", "rollouts"],
            "uniform" => &["sims"],
            "alphabeta" => &["depth"],
            "openspiel" => &["sims", "rollouts"],
            "mcts" => &[
                "model",
                "sims",
                "cpuct",
                "fpu",
                "lcb",
                "temp",
                "noise",
                "level",
                "decisive",
                "forced",
                "book",
                "solver",
                "opening",
                "mlh",
                "tactics",
                "minimax",
                "single",
                "leafdepth",
                "rootdepth",
                "leafweight",
                "score",
                "scorescale",
            ],
            other => bail!(
                "invalid player '{text}': unknown kind '{other}' (expected random, greedy, rollout, uniform, alphabeta, openspiel or mcts)"
            ),
        };
        if let Some((key, _)) = pairs.iter().find(|(k, _)| !allowed.contains(k)) {
            bail!("invalid player '{text}': unknown option '{key}' for {kind}");
        }
        Ok(match kind {
            "random" => PlayerSpec::Random,
            "greedy" => PlayerSpec::Greedy,
            "rollout" => PlayerSpec::Rollout {
                simulations: number("sims", 1000)?,
                rollouts: number("rollouts", 1)?,
            },
            "uniform" => PlayerSpec::Uniform {
                simulations: number("sims", 1000)?,
            },
            "openspiel" => PlayerSpec::OpenSpiel {
                simulations: number("sims", 1000)?,
                rollouts: number("rollouts", 1)?,
            },
            "mcts" => {
                let level = match pairs.iter().find(|(k, _)| *k == "level") {
                    Some(_) => Some(
                        Level::get(number("level", 10)?)
                            .map_err(|e| anyhow::anyhow!("invalid player '{text}': {e}"))?,
                    ),
                    None => None,
                };
                let model = match pairs.iter().find(|(k, _)| *k == "model") {
                    None => ModelChoice::Shipped,
                    Some((_, "rollouts")) => {
                        bail!("invalid player '{text}': for random rollouts use the rollout player")
                    }
                    Some((_, path)) => ModelChoice::Directory(PathBuf::from(path)),
                };
                let mut spec = PlayerSpec::Model {
                    model,
                    simulations: number("sims", level.map_or(800, |l| l.simulations))?,
                    tuning: SearchTuning {
                        c_puct: real("cpuct")?,
                        fpu_reduction: real("fpu")?,
                        temperature: real("temp")?.unwrap_or(level.map_or(0.0, |l| l.temperature)),
                        lcb: false,
                        noise: match share("noise")? {
                            Some(p) => f64::from(p),
                            None => level.map_or(0.0, |l| l.noise),
                        },
                        decisive_moves: match real("decisive")? {
                            None => None,
                            Some(0.0) => Some(false),
                            Some(1.0) => Some(true),
                            Some(_) => bail!("invalid player '{text}': decisive must be 0 or 1"),
                        },
                        forced_playouts: real("forced")?,
                        moves_left_slope: real("mlh")?,
                        without_tactics: match real("tactics")? {
                            None | Some(1.0) => false,
                            Some(0.0) => true,
                            Some(_) => bail!("invalid player '{text}': tactics must be 0 or 1"),
                        },
                        minimax_weight: share("minimax")?,
                        skip_single_moves: match real("single")? {
                            None => None,
                            Some(0.0) => Some(false),
                            Some(1.0) => Some(true),
                            Some(_) => bail!("invalid player '{text}': single must be 0 or 1"),
                        },
                        leaf_depth: depth("leafdepth")?,
                        root_leaf_depth: depth("rootdepth")?,
                        leaf_weight: share("leafweight")?,
                        score_utility: share("score")?,
                        score_scale: match real("scorescale")? {
                            Some(0.0) => {
                                bail!("invalid player '{text}': scorescale must be above 0")
                            }
                            scale => scale,
                        },
                    },
                    book: match real("book")? {
                        None | Some(0.0) => false,
                        Some(1.0) => true,
                        Some(_) => bail!("invalid player '{text}': book must be 0 or 1"),
                    },
                    solver: match real("solver")? {
                        None | Some(0.0) => false,
                        Some(1.0) => true,
                        Some(_) => bail!("invalid player '{text}': solver must be 0 or 1"),
                    },
                    opening: match pairs.iter().find(|(k, _)| *k == "opening") {
                        Some(_) => number("opening", 0)?,
                        None => 0,
                    },
                };
                if let PlayerSpec::Model { tuning, .. } = &mut spec {
                    // The most visited move by lower confidence bound unless
                    // a temperature samples among moves (or `lcb=0`).
                    tuning.lcb = match real("lcb")? {
                        None => {
                            MoveChoice::for_temperature(tuning.temperature)
                                == MoveChoice::LowerConfidenceBound
                        }
                        Some(0.0) => false,
                        Some(1.0) if tuning.temperature == 0.0 => true,
                        Some(1.0) => {
                            bail!("invalid player '{text}': lcb=1 chooses without a temperature")
                        }
                        Some(_) => bail!("invalid player '{text}': lcb must be 0 or 1"),
                    };
                }
                spec
            }
            _ => PlayerSpec::AlphaBeta {
                depth: number("depth", 4)?,
            },
        })
    }

    /// Loads what the player needs (its network, and the game's book with
    /// `book=1`) for game `G`.
    pub fn prepare<G: Registered>(self, game: &G) -> Result<PreparedPlayer> {
        let (evaluator, book) = match &self {
            PlayerSpec::Model { model, book, .. } => {
                let loaded = model.load(game)?;
                let book = match (book, loaded.book) {
                    (false, _) => None,
                    (true, Some(book)) => Some(book as Arc<dyn Any + Send + Sync>),
                    (true, None) => bail!(
                        "book=1: no solution book of {} proves a win under these rules",
                        G::NAME
                    ),
                };
                (Some(Arc::new(loaded.evaluator)), book)
            }
            PlayerSpec::OpenSpiel { .. } => {
                if game.openspiel_game().is_none() {
                    bail!("the openspiel player does not play {}", G::NAME);
                }
                crate::openspiel::check_available()?;
                (None, None)
            }
            _ => (None, None),
        };
        let prepared = PreparedPlayer {
            spec: self,
            evaluator,
            book,
        };
        if !matches!(prepared.spec, PlayerSpec::OpenSpiel { .. }) {
            prepared.build(game, 0)?;
        }
        Ok(prepared)
    }
}

impl PreparedPlayer {
    /// Builds an agent for game `G`, seeded by `seed`.
    pub fn build<G: Registered>(&self, game: &G, seed: u64) -> Result<Box<dyn Agent<G>>> {
        let config = |simulations: u32| SearchConfig {
            simulations,
            leaves_per_batch: 1,
            ..SearchConfig::default()
        };
        let choice = MoveChoice::Visits { temperature: 0.0 };
        Ok(match self.spec {
            PlayerSpec::Model {
                simulations,
                tuning,
                opening,
                solver,
                ..
            } => {
                let evaluator = self.evaluator.clone().context("network loaded")?;
                let mut agent: Box<dyn Agent<G>> = Box::new(
                    MctsAgent::new(
                        tuning.config(game, simulations),
                        evaluator,
                        tuning.choice(),
                        seed,
                    )
                    .with_noise(tuning.noise),
                );
                if solver {
                    agent = Box::new(GuardedAgent::new(agent, game.guard_nodes()));
                }
                if let Some(book) = &self.book {
                    let book = Arc::clone(book)
                        .downcast::<Book<G>>()
                        .map_err(|_| anyhow::anyhow!("the book of another game"))?;
                    agent = Box::new(BookAgent::new(book, agent));
                }
                if opening > 0 {
                    agent = Box::new(RandomOpening::new(opening, seed ^ 0x0E0E_0E0E, agent));
                }
                agent
            }
            PlayerSpec::Random => Box::new(RandomAgent::new(seed)),
            PlayerSpec::OpenSpiel {
                simulations,
                rollouts,
            } => Box::new(crate::openspiel::OpenSpielAgent::start(
                &crate::openspiel::BotSettings {
                    game: game.openspiel_game().context("a game OpenSpiel plays")?,
                    simulations,
                    rollouts,
                },
                seed,
            )?),
            PlayerSpec::Rollout {
                simulations,
                rollouts,
            } => Box::new(MctsAgent::new(
                config(simulations),
                RolloutEvaluator { rollouts, seed },
                choice,
                seed,
            )),
            PlayerSpec::Uniform { simulations } => Box::new(MctsAgent::new(
                config(simulations),
                UniformEvaluator,
                choice,
                seed,
            )),
            PlayerSpec::AlphaBeta { depth } => match G::alphabeta(depth, seed) {
                Some(agent) => agent,
                None => bail!("alphabeta is not available for {}", G::NAME),
            },
            PlayerSpec::Greedy => match G::greedy(seed) {
                Some(agent) => agent,
                None => bail!("greedy is not available for {}", G::NAME),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_read_kind_and_options() {
        assert_eq!(PlayerSpec::parse("random").ok(), Some(PlayerSpec::Random));
        assert_eq!(
            PlayerSpec::parse("rollout:sims=2000").ok(),
            Some(PlayerSpec::Rollout {
                simulations: 2000,
                rollouts: 1
            })
        );
        assert_eq!(
            PlayerSpec::parse("alphabeta:depth=4").ok(),
            Some(PlayerSpec::AlphaBeta { depth: 4 })
        );
        // Forced playouts reach the search's settings; unset keeps the base's.
        let Ok(PlayerSpec::Model { tuning, .. }) = PlayerSpec::parse("mcts:forced=2") else {
            panic!("mcts:forced=2 parses");
        };
        let base = SearchConfig::default();
        assert_eq!(tuning.apply(base.clone()).forced_playouts, 2.0);
        let Ok(PlayerSpec::Model { tuning, .. }) = PlayerSpec::parse("mcts") else {
            panic!("mcts parses");
        };
        assert_eq!(
            tuning.apply(base.clone()).forced_playouts,
            base.forced_playouts
        );
        // The leaf search's three settings and the score utility's two.
        let spec = "mcts:leafdepth=2,rootdepth=4,leafweight=0.5,score=0.3,scorescale=3";
        let Ok(PlayerSpec::Model { tuning, .. }) = PlayerSpec::parse(spec) else {
            panic!("{spec} parses");
        };
        let config = tuning.apply(base.clone());
        assert_eq!(
            (
                config.tactics.leaf_depth,
                config.tactics.root_leaf_depth,
                config.tactics.leaf_weight,
                config.tactics.score_utility,
                config.tactics.score_scale
            ),
            (2, 4, 0.5, 0.3, 3.0)
        );
    }

    #[test]
    fn network_players_search_with_the_games_tactics_unless_told_not_to() {
        let bulltricker = grandmaitre_engine::bulltricker::Bulltricker::default();
        let heraldis = grandmaitre_engine::heraldis::Heraldis::default();
        let tuning = |text: &str| match PlayerSpec::parse(text) {
            Ok(PlayerSpec::Model { tuning, .. }) => tuning,
            other => panic!("{text}: {other:?}"),
        };
        // Bulltricker's players see its tactics by default.
        let config = tuning("mcts").config(&bulltricker, 800);
        assert_eq!(config.simulations, 800);
        assert_eq!(
            (
                config.tactics.leaf_depth,
                config.tactics.root_leaf_depth,
                config.tactics.score_utility
            ),
            (2, 4, 1.0)
        );
        assert!(config.tactics.skip_single_moves);
        // `tactics=0`: the network's search alone; a setting given still
        // applies on top.
        let alone = tuning("mcts:tactics=0").config(&bulltricker, 800);
        assert_eq!(alone, SearchConfig::default());
        let one = tuning("mcts:tactics=0,leafdepth=1").config(&bulltricker, 800);
        assert_eq!(
            (one.tactics.leaf_depth, one.tactics.root_leaf_depth),
            (1, 0)
        );
        // A setting given replaces the game's.
        let shallow = tuning("mcts:rootdepth=2").config(&bulltricker, 800);
        assert_eq!(
            (shallow.tactics.leaf_depth, shallow.tactics.root_leaf_depth),
            (2, 2)
        );
        // A game without tactics searches as before.
        assert_eq!(
            tuning("mcts").config(&heraldis, 800),
            SearchConfig::default()
        );
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let cases = [
            ("chess", "unknown kind 'chess'"),
            ("rollout:sims", "expected key=value"),
            ("rollout:sims=0", "sims must be a positive whole number"),
            ("rollout:sims=many", "found 'many'"),
            ("alphabeta:sims=3", "unknown option 'sims' for alphabeta"),
            ("mcts:model=x,depth=3", "unknown option 'depth' for mcts"),
            ("mcts:cpuct=-1", "cpuct must be a number ≥ 0"),
            ("mcts:lcb=2", "lcb must be 0 or 1"),
            ("mcts:decisive=2", "decisive must be 0 or 1"),
            ("mcts:forced=-2", "forced must be a number ≥ 0"),
            ("mcts:book=2", "book must be 0 or 1"),
            ("mcts:tactics=2", "tactics must be 0 or 1"),
            ("mcts:solver=2", "solver must be 0 or 1"),
            ("mcts:opening=0", "opening must be a positive whole number"),
            (
                "mcts:leafdepth=2.5",
                "leafdepth must be a whole number from 0 to 8",
            ),
            (
                "mcts:rootdepth=9",
                "rootdepth must be a whole number from 0 to 8",
            ),
            ("mcts:leafweight=2", "leafweight must be between 0 and 1"),
            ("mcts:score=1.5", "score must be between 0 and 1"),
            ("mcts:scorescale=0", "scorescale must be above 0"),
        ];
        for (text, expected) in cases {
            let error = format!("{:#}", PlayerSpec::parse(text).expect_err(text));
            assert!(error.contains(expected), "{text}: {error}");
        }
    }
}
