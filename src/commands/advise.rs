//! `grandmaitre advise` (the « Conseil » button) and `grandmaitre winprob`
//! (the bar above the board).

use grandmaitre_engine::History;
use std::path::PathBuf;

use anyhow::{Result, bail};
use grandmaitre_engine::levels::{self, ADVICE_LEVEL, Level, Setting};
use grandmaitre_engine::seats::Seats;
use grandmaitre_engine::{ForPlayers, Notation, Outcome};
use grandmaitre_model::bar::{self, BAR_SIMULATIONS, Shown};
use serde_json::json;

use super::PositionTask;
use grandmaitre_play::players::ModelChoice;
use grandmaitre_play::registry::{self, Registered};

/// `advise`: the move, its line, the values, the alternatives.
pub struct Advise {
    pub model: Option<PathBuf>,
    pub level: Option<u32>,
    pub simulations: Option<u32>,
    pub json: bool,
    pub seed: u64,
    pub alternatives: usize,
    pub players: Option<String>,
}

/// `winprob`: the bar.
pub struct Winprob {
    pub model: Option<PathBuf>,
    pub json: bool,
    pub players: Option<String>,
}

/// The seats `--players` names, or the default.
fn seats<G: Notation>(game: &G, players: Option<&str>) -> Result<Seats> {
    match players {
        Some(text) => Seats::parse(game, text).map_err(|e| anyhow::anyhow!("--players: {e}")),
        None => Ok(Seats::DEFAULT),
    }
}

/// The bar's fields of a JSON report: who plays, whether that was
/// given, what is proven, whether the bar read who plays.
fn bar_fields<G: Notation>(
    report: &mut serde_json::Value,
    game: &G,
    shown: &Shown,
    seats: &Seats,
    given: bool,
) {
    let [first, second] = registry::player_names(game);
    report[first] = json!(shown.wdl[0]);
    report["draw"] = json!(shown.wdl[1]);
    report[second] = json!(shown.wdl[2]);
    report["players"] = json!(seats.text(game));
    report["players_given"] = json!(given);
    report["seated"] = json!(shown.seated);
    report["bar_proven"] = json!(
        shown
            .proven
            .map(|index| registry::outcome_names(game)[index].clone())
    );
    // Each human seat's belief over the levels they play like, after
    // their moves in --moves.
    let mut beliefs = serde_json::Map::new();
    for (name, belief) in [first, second].iter().zip(&shown.beliefs) {
        if let Some(belief) = belief {
            beliefs.insert(
                name.to_string(),
                json!({
                    "mean_level": belief.mean(),
                    "moves_read": belief.moves,
                    "levels": belief.levels.iter().map(|&(level, w)| json!([level, w])).collect::<Vec<_>>(),
                }),
            );
        }
    }
    report["beliefs"] = serde_json::Value::Object(beliefs);
}

/// "(light=10 dark=human, the default players)" and what is proven, for
/// the text reports.
fn seats_words<G: Notation>(game: &G, shown: &Shown, seats: &Seats, given: bool) -> String {
    let default = if given { "" } else { ", the default players" };
    let unread = if shown.seated {
        ""
    } else {
        ", not read: this model's bar has no fit over pairings of players"
    };
    let proven = match shown.proven {
        Some(index) => format!("; proven: {}", registry::outcome_names(game)[index]),
        None => String::new(),
    };
    let believed: String = registry::player_names(game)
        .iter()
        .zip(&shown.beliefs)
        .filter_map(|(name, belief)| {
            belief.as_ref().filter(|b| b.moves > 0).map(|b| {
                let plural = if b.moves == 1 { "" } else { "s" };
                format!(
                    "; {name} plays like level {:.1} by their {} move{plural}",
                    b.mean(),
                    b.moves
                )
            })
        })
        .collect();
    format!("{}{default}{unread}{proven}{believed}", seats.text(game))
}

fn percent(p: f32) -> String {
    format!("{:.1} %", 100.0 * p)
}

/// Whether the search has a value for this move (visited or proven).
fn searched(child: &grandmaitre_engine::search::ChildReport) -> bool {
    child.visits > 0 || child.proof.is_some()
}

fn outcome_name(outcome: Option<Outcome>) -> Option<&'static str> {
    outcome.map(|o| match o {
        Outcome::Win => "win",
        Outcome::Draw => "draw",
        Outcome::Loss => "loss",
    })
}

impl PositionTask for Advise {
    fn run<G: Registered>(self, game: &G, state: G::State, history: &History<G>) -> Result<()> {
        if let Some(outcome) = game.outcome(&state) {
            bail!(
                "the game is over ({} to move: {})",
                game.player_name(game.current_player(&state)),
                outcome_name(Some(outcome)).unwrap_or("over")
            );
        }
        let (setting, level) = match (self.level, self.simulations) {
            (_, Some(0)) => bail!("--sims must be a positive whole number"),
            (_, Some(simulations)) => (Setting::simulations(game, simulations), None),
            (number, None) => {
                let level =
                    Level::get(number.unwrap_or(ADVICE_LEVEL)).map_err(anyhow::Error::msg)?;
                (level.setting(game), Some(level.number))
            }
        };
        let seats = seats(game, self.players.as_deref())?;
        let model = ModelChoice::from_arg(self.model.as_deref()).load(game)?;
        let calibration = model.calibration(game);
        let book = model.book.as_deref();
        let advice = levels::advise(game, &state, &model.evaluator, &setting, self.seed, book);
        let result = &advice.result;
        let side = game.player_name(result.side);
        let [first, second] = registry::player_names(game);
        // The headline is the bar, as `winprob` shows it; the search's own
        // value (another budget, never calibrated) comes beside it.
        let shown = model.bar(game, &state, &seats, history);
        let book_proves = book.is_some_and(|book| book.outcome(game, &state).is_some());
        let searched_wdl = bar::shown_wdl(result, None);
        let line = advice_line(game, &state, &advice.principal_variation);
        let total: u32 = advice.alternatives.iter().map(|c| c.visits).sum();
        let shown_rows = if self.alternatives == 0 {
            advice.alternatives.len()
        } else {
            self.alternatives.min(advice.alternatives.len())
        };
        let alternatives = &advice.alternatives[..shown_rows];
        let share = |visits: u32| visits as f32 / total.max(1) as f32;
        let simulations = setting.config.simulations;
        if self.json {
            let rows: Vec<_> = alternatives
                .iter()
                .map(|c| {
                    let value = |k: usize| searched(c).then_some(c.wdl[k]);
                    json!({
                        "move": game.format_action(&state, c.action),
                        "visits": c.visits,
                        "share": share(c.visits),
                        "win": value(0),
                        "draw": value(1),
                        "loss": value(2),
                        "prior": c.prior,
                        "proven": outcome_name(c.proof),
                        "plies_left": c.moves_left,
                    })
                })
                .collect();
            let mut report = json!({
                "position": game.format_state(&state),
                "side_to_move": side,
                "move": game.format_action(&state, advice.action),
                "principal_variation": line,
                "bar_simulations": shown.simulations,
                "calibrated": bar::for_the_bar(calibration).is_some(),
                "search": {
                    first: searched_wdl[0],
                    "draw": searched_wdl[1],
                    second: searched_wdl[2],
                },
                "proven": outcome_name(result.proof),
                "plies_left": result.moves_left,
                "from_book": advice.from_book,
                "book_proves": book_proves,
                "solved": outcome_name(advice.proven),
                "solver_overruled": advice.solver_overruled,
                "level": level,
                "simulations": simulations,
                "alternatives": rows,
            });
            bar_fields(&mut report, game, &shown, &seats, self.players.is_some());
            println!("{report}");
            return Ok(());
        }
        let [first_wins, draw_name, second_wins] = registry::outcome_names(game);
        let three = |wdl: ForPlayers| {
            format!(
                "{first_wins} {}, {draw_name} {}, {second_wins} {}",
                percent(wdl[0]),
                percent(wdl[1]),
                percent(wdl[2])
            )
        };
        println!("position: {} ({side} to move)", game.format_state(&state));
        let from_book = if advice.from_book {
            " (the solution book's: a proven win)"
        } else if advice.solver_overruled {
            " (the solver's, over the search's move)"
        } else {
            ""
        };
        println!(
            "move: {}{from_book}",
            game.format_action(&state, advice.action)
        );
        println!("line: {}", line.join(" "));
        let how = if book_proves {
            "exact: the solution book proves it".to_string()
        } else {
            let calibrated = if calibration.is_some() {
                ", calibrated"
            } else {
                ""
            };
            format!("{BAR_SIMULATIONS} simulations{calibrated}")
        };
        println!(
            "bar: {} ({how}; {})",
            three(shown.wdl),
            seats_words(game, &shown, &seats, self.players.is_some())
        );
        let setting = match level {
            Some(level) => format!("level {level}, {simulations} simulations"),
            None => format!("{simulations} simulations"),
        };
        let proven = match result.proof.or(advice.proven) {
            Some(outcome) => format!(", proven {}", outcome_name(Some(outcome)).unwrap_or("")),
            None => String::new(),
        };
        println!(
            "search: {} ({setting}, uncalibrated{proven})",
            three(searched_wdl)
        );
        if let Some(plies) = result.moves_left {
            println!("plies left: {plies:.0} (the network's estimate, through the search)");
        }
        let plies_column = result.moves_left.is_some();
        let plies_header = if plies_column { "   plies" } else { "" };
        println!("  move    visits   share     win    draw    loss   prior{plies_header}");
        for c in alternatives {
            let proof = outcome_name(c.proof).map_or(String::new(), |o| format!("  proven {o}"));
            let value = |k: usize| {
                if searched(c) {
                    percent(c.wdl[k])
                } else {
                    "-".to_string()
                }
            };
            let plies = match (plies_column, c.moves_left) {
                (false, _) => String::new(),
                (true, Some(plies)) => format!(" {plies:>7.1}"),
                (true, None) => format!(" {:>7}", "-"),
            };
            println!(
                "  {:<6} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}{plies}{proof}",
                game.format_action(&state, c.action),
                c.visits,
                percent(share(c.visits)),
                value(0),
                value(1),
                value(2),
                percent(c.prior)
            );
        }
        Ok(())
    }
}

/// The moves of `line` from `state`, in notation.
fn advice_line<G: Notation>(
    game: &G,
    state: &G::State,
    line: &[grandmaitre_engine::Action],
) -> Vec<String> {
    let mut state = state.clone();
    let mut moves = Vec::new();
    for &action in line {
        moves.push(game.format_action(&state, action));
        game.apply_unchecked(&mut state, action);
    }
    moves
}

impl PositionTask for Winprob {
    fn run<G: Registered>(self, game: &G, state: G::State, history: &History<G>) -> Result<()> {
        let seats = seats(game, self.players.as_deref())?;
        let model = ModelChoice::from_arg(self.model.as_deref()).load(game)?;
        let calibration = model.calibration(game);
        let book = model.book.as_deref();
        let shown = model.bar(game, &state, &seats, history);
        let finished = game.outcome(&state).is_some();
        let book_proves = book.is_some_and(|book| book.outcome(game, &state).is_some());
        let given = self.players.is_some();
        if self.json {
            let mut report = json!({
                "finished": finished,
                "book_proves": book_proves,
                "simulations": shown.simulations,
                "calibrated": bar::for_the_bar(calibration).is_some(),
            });
            bar_fields(&mut report, game, &shown, &seats, given);
            println!("{report}");
        } else {
            let [first_wins, draw, second_wins] = registry::outcome_names(game);
            println!(
                "{first_wins} {}, {draw} {}, {second_wins} {} ({})",
                percent(shown.wdl[0]),
                percent(shown.wdl[1]),
                percent(shown.wdl[2]),
                seats_words(game, &shown, &seats, given)
            );
        }
        Ok(())
    }
}
