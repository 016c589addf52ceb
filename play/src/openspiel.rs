//! OpenSpiel's `MCTSBot` (random rollouts) as a player: a Python process
//! (`scripts/havannah/mcts_bot.py`, in the virtual environment that
//! `scripts/havannah/crosscheck.sh` creates) told the game's moves as
//! OpenSpiel action ids, which are the engine's for the games it shares with
//! OpenSpiel.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use anyhow::{Context, Result, bail};
use grandmaitre_engine::agent::Agent;
use grandmaitre_engine::{Action, Game};

/// Where the bridge and its Python live, from the repository root.
const SCRIPT: &str = "scripts/havannah/mcts_bot.py";
const PYTHON: &str = "scripts/havannah/.venv/bin/python";

/// The settings of an OpenSpiel bot.
#[derive(Clone, Debug, PartialEq)]
pub struct BotSettings {
    /// OpenSpiel's name of the game, with its parameters.
    pub game: String,
    /// Simulations per move.
    pub simulations: u32,
    /// Random rollouts per leaf.
    pub rollouts: u32,
}

/// Checks that the bridge can start (its script and Python are there).
pub fn check_available() -> Result<()> {
    for path in [SCRIPT, PYTHON] {
        if !PathBuf::from(path).exists() {
            bail!(
                "the OpenSpiel player needs {path}: run scripts/havannah/crosscheck.sh once from the repository root"
            );
        }
    }
    Ok(())
}

/// A running bot for one game.
pub struct OpenSpielAgent {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    moves: Vec<Action>,
}

impl std::fmt::Debug for OpenSpielAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenSpielAgent")
            .field("moves", &self.moves.len())
            .finish_non_exhaustive()
    }
}

impl OpenSpielAgent {
    /// Starts the bot.
    pub fn start(settings: &BotSettings, seed: u64) -> Result<OpenSpielAgent> {
        check_available()?;
        let mut child = Command::new(PYTHON)
            .arg(SCRIPT)
            .args(["--game", &settings.game])
            .args(["--sims", &settings.simulations.to_string()])
            .args(["--rollouts", &settings.rollouts.to_string()])
            .args(["--seed", &(seed % (1 << 31)).to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("starting the OpenSpiel bot")?;
        let input = child.stdin.take().context("the bot's stdin")?;
        let output = BufReader::new(child.stdout.take().context("the bot's stdout")?);
        Ok(OpenSpielAgent {
            child,
            input,
            output,
            moves: Vec::new(),
        })
    }

    fn ask(&mut self, line: &str) -> Result<String> {
        writeln!(self.input, "{line}").context("writing to the OpenSpiel bot")?;
        self.input.flush().context("writing to the OpenSpiel bot")?;
        let mut answer = String::new();
        self.output
            .read_line(&mut answer)
            .context("reading from the OpenSpiel bot")?;
        match answer.trim().strip_prefix('=') {
            Some(rest) => Ok(rest.trim().to_string()),
            None => bail!("the OpenSpiel bot answered '{}'", answer.trim()),
        }
    }

    fn genmove(&mut self) -> Result<Action> {
        let history: Vec<String> = self.moves.iter().map(|a| a.0.to_string()).collect();
        self.ask(&format!("moves {}", history.join(" ")))?;
        let answer = self.ask("genmove")?;
        let id: u16 = answer
            .parse()
            .with_context(|| format!("the OpenSpiel bot answered '{answer}'"))?;
        Ok(Action(id))
    }
}

impl<G: Game> Agent<G> for OpenSpielAgent {
    fn select(&mut self, game: &G, state: &G::State) -> Action {
        match self.genmove() {
            Ok(action) if game.is_legal(state, action) => action,
            // The match cannot go on without the bot: stop with its reason.
            Ok(action) => panic!("the OpenSpiel bot chose the illegal action {}", action.0),
            Err(error) => panic!("{error:#}"),
        }
    }

    fn observe(&mut self, _game: &G, _state: &G::State, action: Action) {
        self.moves.push(action);
    }
}

impl Drop for OpenSpielAgent {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "quit");
        let _ = self.input.flush();
        let _ = self.child.wait();
    }
}
