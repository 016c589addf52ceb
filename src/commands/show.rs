//! `grandmaitre show`: the position drawn as text.

use anyhow::Result;

use super::{CliGame, GameTask};

/// Prints the rendered position.
pub struct Show;

impl GameTask for Show {
    fn run<G: CliGame>(self, game: &G, state: G::State) -> Result<()> {
        print!("{}", game.render(&state));
        Ok(())
    }
}
