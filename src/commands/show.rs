//! `grandmaitre show`: the position drawn as text.

use anyhow::Result;
use grandmaitre_engine::History;

use super::PositionTask;
use grandmaitre_play::registry::Registered;

/// Prints the rendered position.
pub struct Show;

impl PositionTask for Show {
    fn run<G: Registered>(self, game: &G, state: G::State, _history: &History<G>) -> Result<()> {
        print!("{}", game.render(&state));
        Ok(())
    }
}
