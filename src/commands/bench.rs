//! `grandmaitre bench`: speed measurements (never timed assertions in tests).

use std::time::Instant;

use anyhow::Result;
use grandmaitre_engine::Game;

use super::GameTask;

/// Times perft on one thread.
pub struct PerftBench {
    /// Length of the move sequences.
    pub depth: u32,
    /// Runs to time; the fastest is reported.
    pub repeat: u32,
}

impl GameTask for PerftBench {
    fn run<G: Game>(self, game: &G, state: G::State) -> Result<()> {
        let mut best = f64::INFINITY;
        let mut count = 0;
        for run in 1..=self.repeat {
            let start = Instant::now();
            count = game.perft(&state, self.depth);
            let seconds = start.elapsed().as_secs_f64();
            println!("run {run}: perft {} {count} in {seconds:.3} s", self.depth);
            best = best.min(seconds);
        }
        println!(
            "{}: perft {} {count}, best of {} runs {best:.3} s on one thread ({:.1} M paths/s)",
            game.spec().name,
            self.depth,
            self.repeat,
            count as f64 / best / 1e6
        );
        Ok(())
    }
}
