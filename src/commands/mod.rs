//! Validated commands: each reads its raw arguments into a game, a position
//! and settings, then runs generic code over the game.

mod advise;
mod arena;
mod bench;
mod bench_nn;
mod bench_train;
mod calibrate;
mod export;
mod gtp;
mod perft;
mod show;
mod train;

use anyhow::{Context, Result, bail};
use grandmaitre_engine::agent::Agent;
use grandmaitre_engine::havannah::Havannah;
use grandmaitre_engine::heraldis::alphabeta::AlphaBetaAgent;
use grandmaitre_engine::heraldis::{Heraldis, Layout};
use grandmaitre_engine::{Game, Player};
use rand::SeedableRng;
use rand::rngs::StdRng;

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
        Command::Advise(args) => with_position(
            &args.position,
            advise::Advise {
                model: args.model,
                level: args.level,
                simulations: args.simulations,
                json: args.json,
                seed: args.seed,
                alternatives: args.alternatives,
            },
        ),
        Command::Winprob(args) => with_position(
            &args.position,
            advise::Winprob {
                model: args.model,
                json: args.json,
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
                    layout: None,
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
        Command::Bench(BenchCommand::Nn(args)) => bench_nn::run(args),
        Command::Bench(BenchCommand::Train(args)) => bench_train::run(args),
        Command::Bench(BenchCommand::Winprob(args)) => {
            let position = PositionArgs {
                game: "heraldis".to_string(),
                layout: None,
                position: None,
                moves: None,
            };
            with_position(
                &position,
                advise::BarBench {
                    model: args.model,
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

/// What the command line needs of a game beyond the rules.
pub trait CliGame: Game + 'static {
    /// The name accepted by `--game`.
    const NAME: &'static str;

    /// The game's alpha-beta anchor, if it has one.
    fn alphabeta(depth: u32, seed: u64) -> Option<Box<dyn Agent<Self>>>;

    /// The same rules on a random board drawn from `seed` (a random layout
    /// for Heraldis), for games whose board varies.
    fn random_board(&self, seed: u64) -> Option<Self>;

    /// The same rules on the board `spec` names (a Heraldis layout).
    fn with_board(&self, spec: &str) -> Result<Self>;

    /// The player a colour name (as in the engine protocol) stands for.
    fn player_named(name: &str) -> Option<Player>;

    /// The colour name of `player`, in lower case.
    fn player_name(player: Player) -> &'static str;

    /// OpenSpiel's name of the same game (with its parameters), when
    /// OpenSpiel has it with the same action ids.
    fn openspiel_game(&self) -> Option<String> {
        None
    }
}

impl CliGame for Havannah {
    const NAME: &'static str = "havannah";

    fn alphabeta(_depth: u32, _seed: u64) -> Option<Box<dyn Agent<Self>>> {
        None
    }

    fn random_board(&self, _seed: u64) -> Option<Self> {
        None
    }

    fn with_board(&self, spec: &str) -> Result<Self> {
        Ok(Havannah::with_parameters(spec)?)
    }

    fn player_named(name: &str) -> Option<Player> {
        match name.to_ascii_lowercase().as_str() {
            "white" | "w" => Some(Player::First),
            "black" | "b" => Some(Player::Second),
            _ => None,
        }
    }

    fn player_name(player: Player) -> &'static str {
        match player {
            Player::First => "white",
            Player::Second => "black",
        }
    }

    fn openspiel_game(&self) -> Option<String> {
        Some(format!(
            "havannah(board_size={},swap={})",
            self.base(),
            if self.swap() { "True" } else { "False" }
        ))
    }
}

impl CliGame for Heraldis {
    const NAME: &'static str = "heraldis";

    fn alphabeta(depth: u32, seed: u64) -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(AlphaBetaAgent::new(depth, seed)))
    }

    fn random_board(&self, seed: u64) -> Option<Self> {
        let layout = Layout::random(&mut StdRng::seed_from_u64(seed));
        Some(Heraldis::with_ply_limit(layout, self.ply_limit()))
    }

    fn with_board(&self, spec: &str) -> Result<Self> {
        Ok(Heraldis::with_ply_limit(
            Layout::from_spec(spec)?,
            self.ply_limit(),
        ))
    }

    fn player_named(name: &str) -> Option<Player> {
        match name.to_ascii_lowercase().as_str() {
            "light" | "l" => Some(Player::First),
            "dark" | "d" => Some(Player::Second),
            _ => None,
        }
    }

    fn player_name(player: Player) -> &'static str {
        match player {
            Player::First => "light",
            Player::Second => "dark",
        }
    }
}

/// The names `--game` and the engine protocol's `gm-game` accept.
const GAME_NAMES: [&str; 2] = [Heraldis::NAME, Havannah::NAME];

/// Work to do on a game and a position, whatever the game.
trait GameTask {
    fn run<G: CliGame>(self, game: &G, state: G::State) -> Result<()>;
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
        "havannah" => {
            let game = match &args.layout {
                Some(spec) => Havannah::with_parameters(spec)?,
                None => Havannah::default(),
            };
            let state = position(&game, args)?;
            task.run(&game, state)
        }
        other => bail!("unknown game '{other}': expected heraldis or havannah"),
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
