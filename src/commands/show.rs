//! `grandmaitre show`: the position drawn as text.

use anyhow::Result;
use grandmaitre_engine::Game;

use super::GameTask;

/// Prints the rendered position.
pub struct Show;

impl GameTask for Show {
    fn run<G: Game>(self, game: &G, state: G::State) -> Result<()> {
        print!("{}", game.render(&state));
        Ok(())
    }
}
