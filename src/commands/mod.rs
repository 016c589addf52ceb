//! Validated commands: each reads its raw arguments into a game, a position
//! and settings, then runs generic code over the game.

mod advise;
mod arena;
mod bench;
mod calibrate;
mod export;
mod gtp;
mod perft;
mod show;
mod solve;
mod train;

use anyhow::{Context, Result, bail};

use crate::cli::{BenchCommand, Cli, Command, PositionArgs};
use grandmaitre_engine::{Action, History, Notation};
use grandmaitre_play::registry::{self, GameTask, Registered};
use grandmaitre_play::write_atomically;

/// Seconds of a `--time` text (90s, 45m, 2h).
pub(crate) fn seconds_of(time: &str) -> Result<f64> {
    duration_of("--time", time)
}

/// Seconds of a duration given to the option `flag` (0, 90s, 45m, 2h).
pub(crate) fn duration_of(flag: &str, text: &str) -> Result<f64> {
    use anyhow::Context;
    Ok(humantime::parse_duration(text)
        .with_context(|| {
            format!("invalid {flag} '{text}': expected a duration such as 90s, 45m or 2h")
        })?
        .as_secs_f64())
}

/// The training settings in the file `path`.
pub(crate) fn read_settings(path: &std::path::Path) -> Result<grandmaitre_train::TrainingConfig> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    grandmaitre_train::TrainingConfig::from_toml(&text)
        .map_err(|reason| anyhow::anyhow!("invalid config {}: {reason}", path.display()))
}

/// Runs one command.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Perft(args) => with_position(
            &args.position,
            perft::Perft {
                depth: args.depth,
                divide: args.divide,
            },
        ),
        Command::Show(args) => with_position(&args, show::Show),
        Command::Solve(args) => with_position(
            &args.position,
            solve::Solve::new(args.time.as_deref(), args.nodes, args.out)?,
        ),
        Command::Advise(args) => with_position(
            &args.position,
            advise::Advise {
                model: args.model,
                level: args.level,
                simulations: args.simulations,
                json: args.json,
                seed: args.seed,
                alternatives: args.alternatives,
                players: args.players,
            },
        ),
        Command::Winprob(args) => with_position(
            &args.position,
            advise::Winprob {
                model: args.model,
                json: args.json,
                players: args.players,
            },
        ),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Arena(args) => arena::run(args),
        Command::Train(args) => train::run(args),
        Command::Selfplay(args) => train::selfplay(args),
        Command::Export(args) => export::run(args),
        Command::Gtp(args) => {
            let mut position = args.position;
            let mut model = args.model;
            loop {
                let switch = std::cell::RefCell::new(None);
                with_position(
                    &position,
                    gtp::Gtp {
                        simulations: args.simulations,
                        model: model.clone(),
                        player: args.player.clone(),
                        switch: &switch,
                    },
                )?;
                let Some(game) = switch.into_inner() else {
                    return Ok(());
                };
                // Another game: its start, and its own shipped model unless
                // the session searches with rollouts.
                position = PositionArgs {
                    game,
                    rules: None,
                    position: None,
                    moves: None,
                };
                model = model.filter(|path| path.as_os_str() == "rollouts");
            }
        }
        Command::Bench(BenchCommand::Perft(args)) => with_position(
            &args.position,
            bench::PerftBench {
                depth: args.depth,
                repeat: args.repeat.max(1),
            },
        ),
        Command::Bench(BenchCommand::Nn(args)) => bench::nn(args),
        Command::Bench(BenchCommand::Train(args)) => bench::train(args),
        Command::Bench(BenchCommand::Selfplay(args)) => bench::selfplay(args),
        Command::Bench(BenchCommand::Winprob(args)) => registry::dispatch(
            &args.game,
            args.rules.as_deref(),
            bench::BarBench {
                model: args.model,
                positions: args.positions.max(1),
            },
        ),
        Command::Bench(BenchCommand::Tactics(args)) => {
            if args.depth == Some(0) || args.depth.is_some_and(|d| d > 12) {
                bail!("--depth must be from 1 to 12");
            }
            registry::dispatch(
                &args.game,
                args.rules.as_deref(),
                bench::TacticsBench {
                    depth: args.depth,
                    positions: args.positions.max(1),
                },
            )
        }
        Command::Bench(BenchCommand::Search(args)) => with_position(
            &args.position,
            bench::SearchBench {
                simulations: args.simulations.max(1),
                leaves: args.leaves.max(1),
                repeat: args.repeat.max(1),
            },
        ),
    }
}

/// Work to do on a game and a position, whatever the game.
trait PositionTask {
    /// Runs at `state`, reached through `history` (the positions along
    /// `--moves`, each with the move played there; empty without it).
    fn run<G: Registered>(self, game: &G, state: G::State, history: &History<G>) -> Result<()>;
}

/// A [`PositionTask`] at the position `args` name.
struct AtPosition<'a, T> {
    args: &'a PositionArgs,
    task: T,
}

impl<T: PositionTask> GameTask for AtPosition<'_, T> {
    fn run<G: Registered>(self, game: G) -> Result<()> {
        let (state, history) = position(&game, self.args)?;
        self.task.run(&game, state, &history)
    }
}

/// Builds the game and position that `args` describe and runs `task` on
/// them.
fn with_position(args: &PositionArgs, task: impl PositionTask) -> Result<()> {
    registry::dispatch(&args.game, args.rules.as_deref(), AtPosition { args, task })
}

/// The position `args` name: `--position` (or the start), then `--moves`;
/// and the positions along `--moves`, each with the move played there.
#[allow(clippy::type_complexity)]
fn position<G: Notation>(
    game: &G,
    args: &PositionArgs,
) -> Result<(G::State, Vec<(G::State, Action)>)> {
    let mut state = match &args.position {
        Some(text) => game.parse_state(text)?,
        None => game.initial_state(),
    };
    let mut history = Vec::new();
    if let Some(moves) = &args.moves {
        let mut played = Vec::new();
        for text in moves.split_whitespace() {
            let action = game.parse_action(&state, text).with_context(|| {
                if played.is_empty() {
                    "in --moves".to_string()
                } else {
                    format!("in --moves after '{}'", played.join(" "))
                }
            })?;
            let next = game.play(&state, action)?;
            history.push((std::mem::replace(&mut state, next), action));
            played.push(text);
        }
    }
    Ok((state, history))
}
