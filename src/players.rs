//! Player specifications on the command line: `random`,
//! `rollout:sims=2000`, `alphabeta:depth=4`, `uniform:sims=800`,
//! `mcts:model=checkpoints/heraldis,sims=800`.

use anyhow::{Context, Result, bail};
use std::path::PathBuf;
use std::sync::Arc;

use burn::tensor::Device;
use grandmaitre_engine::agent::{Agent, MctsAgent, RandomAgent};
use grandmaitre_engine::search::{MoveChoice, RolloutEvaluator, SearchConfig, UniformEvaluator};
use grandmaitre_model::{Checkpoint, InferenceNetwork, NetworkEvaluator};

use crate::commands::CliGame;

/// A validated player specification.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// Uniformly random moves.
    Random,
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
    /// Alpha-beta with the hand-written evaluation (Heraldis).
    AlphaBeta {
        /// Depth in plies.
        depth: u32,
    },
    /// MCTS guided by a trained network.
    Model {
        /// The checkpoint directory.
        path: PathBuf,
        /// Simulations per move.
        simulations: u32,
    },
}

/// A player ready to build agents: its network, if any, loaded once.
pub struct PreparedPlayer {
    spec: PlayerSpec,
    evaluator: Option<Arc<NetworkEvaluator>>,
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
        let allowed: &[&str] = match kind {
            "random" => &[],
            "rollout" => &["sims", "rollouts"],
            "uniform" => &["sims"],
            "alphabeta" => &["depth"],
            "mcts" => &["model", "sims"],
            other => bail!(
                "invalid player '{text}': unknown kind '{other}' (expected random, rollout, uniform or alphabeta)"
            ),
        };
        if let Some((key, _)) = pairs.iter().find(|(k, _)| !allowed.contains(k)) {
            bail!("invalid player '{text}': unknown option '{key}' for {kind}");
        }
        Ok(match kind {
            "random" => PlayerSpec::Random,
            "rollout" => PlayerSpec::Rollout {
                simulations: number("sims", 1000)?,
                rollouts: number("rollouts", 1)?,
            },
            "uniform" => PlayerSpec::Uniform {
                simulations: number("sims", 1000)?,
            },
            "mcts" => PlayerSpec::Model {
                path: pairs.iter().find(|(k, _)| *k == "model").map_or_else(
                    || PathBuf::from("checkpoints/heraldis"),
                    |(_, v)| PathBuf::from(v),
                ),
                simulations: number("sims", 800)?,
            },
            _ => PlayerSpec::AlphaBeta {
                depth: number("depth", 4)?,
            },
        })
    }

    /// Loads what the player needs (its network) for game `G`.
    pub fn prepare<G: CliGame>(self, game: &G) -> Result<PreparedPlayer> {
        let evaluator = match &self {
            PlayerSpec::Model { path, .. } => Some(Arc::new(load_evaluator(path, game.spec())?)),
            _ => None,
        };
        let prepared = PreparedPlayer {
            spec: self,
            evaluator,
        };
        prepared.build::<G>(0)?;
        Ok(prepared)
    }
}

/// The shipped checkpoint of game `G` (`checkpoints/<game>` from the
/// current directory), if it is there.
pub fn shipped_model<G: CliGame>() -> Option<PathBuf> {
    let path = PathBuf::from("checkpoints").join(G::NAME);
    path.join("checkpoint.json").is_file().then_some(path)
}

/// The network of checkpoint `path`, folded for inference, as an evaluator.
pub fn load_evaluator(
    path: &std::path::Path,
    spec: &grandmaitre_engine::GameSpec,
) -> Result<NetworkEvaluator> {
    let checkpoint = Checkpoint::load(path, spec, &Device::flex())?;
    let network = InferenceNetwork::new(&checkpoint.network, &checkpoint.metadata.network);
    Ok(NetworkEvaluator::new(network))
}

impl PreparedPlayer {
    /// Builds an agent for game `G`, seeded by `seed`.
    pub fn build<G: CliGame>(&self, seed: u64) -> Result<Box<dyn Agent<G>>> {
        let config = |simulations: u32| SearchConfig {
            simulations,
            leaves_per_batch: 1,
            ..SearchConfig::default()
        };
        let choice = MoveChoice::Visits { temperature: 0.0 };
        Ok(match self.spec {
            PlayerSpec::Model { simulations, .. } => {
                let evaluator = self.evaluator.clone().context("network loaded")?;
                Box::new(MctsAgent::new(
                    SearchConfig {
                        simulations,
                        ..SearchConfig::default()
                    },
                    evaluator,
                    choice,
                    seed,
                ))
            }
            PlayerSpec::Random => Box::new(RandomAgent::new(seed)),
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
        ];
        for (text, expected) in cases {
            let error = format!("{:#}", PlayerSpec::parse(text).expect_err(text));
            assert!(error.contains(expected), "{text}: {error}");
        }
    }
}
