//! `grandmaitre gtp`: the engine protocol ([`grandmaitre_play::gtp`]) on
//! stdin and stdout.

use grandmaitre_engine::History;
use std::path::PathBuf;

use anyhow::Result;
use grandmaitre_play::gtp::{self, Ending, Session};
use grandmaitre_play::players::ModelChoice;
use grandmaitre_play::registry::Registered;

use super::PositionTask;

/// Runs the protocol on stdin and stdout, until `quit`, the end of the
/// input, or `gm-game` naming another game (written to `switch`: the caller
/// goes on with a session on that game).
pub struct Gtp<'a> {
    /// Simulations per move at the start.
    pub simulations: u32,
    /// `--model`: a checkpoint directory, `rollouts`, or none for the
    /// game's shipped model.
    pub model: Option<PathBuf>,
    /// `--player`: the arena player `genmove` plays as, if not the Grand
    /// Maître.
    pub player: Option<String>,
    /// Where the session leaves the name of the game `gm-game` asked for.
    pub switch: &'a std::cell::RefCell<Option<String>>,
}

impl PositionTask for Gtp<'_> {
    fn run<G: Registered>(self, game: &G, state: G::State, _history: &History<G>) -> Result<()> {
        let model = ModelChoice::from_arg(self.model.as_deref());
        let mut session =
            Session::start(game, state, self.simulations, model, self.player.as_deref())?;
        let ending = gtp::serve(
            &mut session,
            std::io::stdin().lock(),
            std::io::stdout().lock(),
        )?;
        if let Ending::SwitchTo(name) = ending {
            *self.switch.borrow_mut() = Some(name);
        }
        Ok(())
    }
}
