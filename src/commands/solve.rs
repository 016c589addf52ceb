//! `grandmaitre solve`: the exact value of a position by df-pn
//! (`grandmaitre_engine::solve`), with a move that keeps it.

use anyhow::{Context, Result, bail};
use grandmaitre_engine::Outcome;
use grandmaitre_engine::solve::{Budget, Solution, Solver};

use super::PositionTask;
use crate::registry::Registered;

/// Solves the position within a budget.
pub struct Solve {
    budget: Budget,
}

impl Solve {
    /// The budget `--time` and `--nodes` give (none: no limit).
    pub fn new(time: Option<&str>, nodes: Option<u64>) -> Result<Solve> {
        let seconds = match time {
            Some(text) => humantime::parse_duration(text)
                .with_context(|| {
                    format!("invalid --time '{text}': expected a duration such as 90s, 45m or 2h")
                })?
                .as_secs_f64(),
            None => f64::INFINITY,
        };
        Ok(Solve {
            budget: Budget {
                nodes: nodes.unwrap_or(u64::MAX),
                seconds,
            },
        })
    }
}

impl PositionTask for Solve {
    fn run<G: Registered>(self, game: &G, state: G::State) -> Result<()> {
        if let Some(outcome) = game.outcome(&state) {
            bail!("the game is over ({})", value_name(game, &state, outcome));
        }
        let report = Solver::new(game.clone()).solve(&state, self.budget);
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
