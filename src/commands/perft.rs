//! `grandmaitre perft`: move-path counts, optionally divided by root move.

use anyhow::Result;
use grandmaitre_engine::History;

use super::PositionTask;
use grandmaitre_play::registry::Registered;

/// Counts move sequences of length `depth`.
pub struct Perft {
    /// Length of the sequences.
    pub depth: u32,
    /// Print one line per root move before the total.
    pub divide: bool,
}

impl PositionTask for Perft {
    fn run<G: Registered>(self, game: &G, state: G::State, _history: &History<G>) -> Result<()> {
        let total = if self.divide && self.depth > 0 {
            let mut actions = Vec::new();
            game.legal_actions(&state, &mut actions);
            let mut total = 0;
            for action in actions {
                let next = game.play(&state, action)?;
                let count = game.perft(&next, self.depth - 1);
                println!("{} {count}", game.format_action(&state, action));
                total += count;
            }
            total
        } else {
            game.perft(&state, self.depth)
        };
        println!("perft {} {total}", self.depth);
        Ok(())
    }
}
