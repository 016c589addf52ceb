//! `grandmaitre solve`: the exact value of a position by df-pn
//! (`grandmaitre_engine::solve`), with a move that keeps it.

use grandmaitre_engine::History;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use grandmaitre_engine::Outcome;
use grandmaitre_engine::book::Book;
use grandmaitre_engine::solve::{Budget, Progress, Solution, Solver};
use indicatif::{ProgressBar, ProgressStyle};

use super::PositionTask;
use grandmaitre_play::registry::Registered;

/// Solves the position within a budget.
pub struct Solve {
    budget: Budget,
    out: Option<PathBuf>,
}

impl Solve {
    /// The budget `--time` and `--nodes` give (none: no limit).
    pub fn new(time: Option<&str>, nodes: Option<u64>, out: Option<PathBuf>) -> Result<Solve> {
        let seconds = match time {
            Some(text) => super::seconds_of(text)?,
            None => f64::INFINITY,
        };
        Ok(Solve {
            budget: Budget {
                nodes: nodes.unwrap_or(u64::MAX),
                seconds,
            },
            out,
        })
    }
}

impl PositionTask for Solve {
    fn run<G: Registered>(self, game: &G, state: G::State, _history: &History<G>) -> Result<()> {
        if let Some(outcome) = game.outcome(&state) {
            bail!("the game is over ({})", value_name(game, &state, outcome));
        }
        // Progress on stderr, about once a second.
        let progress = ProgressBar::new_spinner();
        progress.set_style(
            ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                .expect("valid template"),
        );
        let shown = progress.clone();
        let mut solver = Solver::new(game.clone()).with_progress(move |p: &Progress| {
            shown.set_message(format!(
                "{} positions searched ({:.0}/s), {} in the table",
                p.nodes,
                p.nodes as f64 / p.seconds.max(1e-9),
                p.table_size
            ));
            shown.tick();
        });
        let report = solver.solve(&state, self.budget);
        progress.finish_and_clear();
        let side = game.current_player(&state);
        match report.solution {
            Solution::Solved(outcome) => {
                println!("value: {}", value_name(game, &state, outcome));
                if let Some(action) = report.best_move {
                    let verb = match outcome {
                        Outcome::Win => "wins",
                        Outcome::Draw => "draws",
                        Outcome::Loss => "loses anyway",
                    };
                    println!(
                        "move: {} ({} {verb})",
                        game.format_action(&state, action),
                        game.player_name(side)
                    );
                }
            }
            Solution::Unknown => println!("value: unknown (the budget ran out)"),
        }
        println!(
            "searched {} positions in {:.2} s ({} in the table)",
            report.nodes, report.seconds, report.table_size
        );
        if let Some(path) = &self.out {
            let winner = match report.solution {
                Solution::Solved(Outcome::Win) => side,
                Solution::Solved(Outcome::Loss) => side.opponent(),
                _ => bail!("no proof to write: {} is not a win", path.display()),
            };
            let book = solver
                .proof(&state, winner)
                .context("the proof could not be rebuilt within the budget")?;
            let comment = format!(
                "grandmaitre solve --game {} --rules '{}'",
                G::NAME,
                game.rules()
            );
            let (_, text) = Book::checked_text(game, &comment, &state, winner, &book)
                .map_err(|reason| anyhow::anyhow!("the proof does not read back: {reason}"))?;
            grandmaitre_engine::files::write_atomically(path, text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            println!(
                "proof: {} positions written to {}",
                book.len(),
                path.display()
            );
        }
        Ok(())
    }
}

/// `outcome` for the side to move of `state`, in words.
fn value_name<G: Registered>(game: &G, state: &G::State, outcome: Outcome) -> String {
    let side = game.current_player(state);
    match outcome {
        Outcome::Win => format!("{} wins", game.player_name(side)),
        Outcome::Loss => format!("{} wins", game.player_name(side.opponent())),
        Outcome::Draw => "draw".to_string(),
    }
}
