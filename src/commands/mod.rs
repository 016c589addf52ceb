//! Validated commands: each reads its raw arguments into a game, a position
//! and settings, then runs generic code over the game.

mod bench;
mod perft;
mod show;

use anyhow::{Context, Result, bail};
use grandmaitre_engine::Game;
use grandmaitre_engine::heraldis::{Heraldis, Layout};

use crate::cli::{BenchCommand, Cli, Command, PositionArgs};

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
        Command::Bench(BenchCommand::Perft(args)) => with_position(
            &args.position,
            bench::PerftBench {
                depth: args.depth,
                repeat: args.repeat.max(1),
            },
        ),
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
trait GameTask {
    fn run<G: Game>(self, game: &G, state: G::State) -> Result<()>;
}

/// Builds the game and position that `args` describe and runs `task` on
/// them: the one place that dispatches over games.
fn with_position(args: &PositionArgs, task: impl GameTask) -> Result<()> {
    match args.game.as_str() {
        "heraldis" => {
            let layout = match &args.layout {
                Some(spec) => Layout::from_spec(spec)?,
                None => Layout::default_layout(),
            };
            let game = Heraldis::new(layout);
            let state = position(&game, args)?;
            task.run(&game, state)
        }
        other => bail!("unknown game '{other}': expected heraldis"),
    }
}

/// The position `args` name: `--position` (or the start), then `--moves`.
fn position<G: Game>(game: &G, args: &PositionArgs) -> Result<G::State> {
    let mut state = match &args.position {
        Some(text) => game.parse_state(text)?,
        None => game.initial_state(),
    };
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
            state = game.play(&state, action)?;
            played.push(text);
        }
    }
    Ok(state)
}
