//! `grandmaitre arena`: a match between two players, with W/D/L, the Elo
//! difference and its 95 % interval, and an optional SPRT.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use grandmaitre_engine::arena::{
    GameRecord, MatchConfig, MatchStats, Sprt, SprtVerdict, play_match,
};
use grandmaitre_engine::{Action, Outcome, Player};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use super::write_atomically;
use crate::cli::ArenaArgs;
use grandmaitre_play::players::{PlayerSpec, PreparedPlayer};
use grandmaitre_play::registry::{self, GameTask, Registered};

/// Validates the arguments and plays the match.
pub fn run(args: ArenaArgs) -> Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    let random_layouts = args.rules.as_deref() == Some("random");
    let task = Arena {
        a: PlayerSpec::parse(&args.a)?,
        b: PlayerSpec::parse(&args.b)?,
        a_name: args.a.clone(),
        b_name: args.b.clone(),
        config: MatchConfig {
            games: args.games,
            openings: args.openings,
            opening_plies: args.opening_plies,
            opening_lines: Vec::new(),
            seed: args.seed,
            sprt,
        },
        threads: args.threads,
        json: args.json,
        random_layouts,
        games_out: args.games_out,
        opening_file: args.opening_file,
    };
    if random_layouts && task.opening_file.is_some() {
        bail!("--opening-file plays one board: it cannot go with --rules random");
    }
    let rules = if random_layouts { None } else { args.rules };
    registry::dispatch(&args.game, rules.as_deref(), task)
}

fn parse_sprt(text: &str) -> Result<Sprt> {
    let parsed = text.split_once(',').and_then(|(a, b)| {
        Some(Sprt {
            elo0: a.trim().parse().ok()?,
            elo1: b.trim().parse().ok()?,
        })
    });
    match parsed {
        Some(sprt) if sprt.elo0 < sprt.elo1 => Ok(sprt),
        Some(_) => bail!("invalid --sprt '{text}': ELO0 must be below ELO1"),
        None => bail!("invalid --sprt '{text}': expected ELO0,ELO1 such as 0,50"),
    }
}

struct Arena {
    a: PlayerSpec,
    b: PlayerSpec,
    a_name: String,
    b_name: String,
    config: MatchConfig,
    threads: Option<usize>,
    json: bool,
    random_layouts: bool,
    games_out: Option<PathBuf>,
    opening_file: Option<PathBuf>,
}

/// The openings of `path` (`--opening-file`): one per line, moves from the
/// start separated by spaces; `#` starts a comment, and lines with no move
/// are skipped.
fn read_opening_lines<G: Registered>(game: &G, path: &Path) -> Result<Vec<Vec<Action>>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading --opening-file {}", path.display()))?;
    let mut lines = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let moves = line.split('#').next().unwrap_or_default();
        let mut state = game.initial_state();
        let mut actions = Vec::new();
        for text in moves.split_whitespace() {
            let at = || format!("{} line {}", path.display(), number + 1);
            let action = game.parse_action(&state, text).with_context(at)?;
            state = game.play(&state, action).with_context(at)?;
            actions.push(action);
        }
        if actions.is_empty() {
            continue;
        }
        if game.outcome(&state).is_some() {
            bail!(
                "{} line {}: the game is over after it",
                path.display(),
                number + 1
            );
        }
        lines.push(actions);
    }
    if lines.is_empty() {
        bail!("{}: no opening in it", path.display());
    }
    Ok(lines)
}

impl GameTask for Arena {
    fn run<G: Registered>(mut self, game: G) -> Result<()> {
        let game = &game;
        if let Some(path) = &self.opening_file {
            self.config.opening_lines = read_opening_lines(game, path)?;
        }
        let a = self.a.clone().prepare(game)?;
        let b = self.b.clone().prepare(game)?;
        if self.random_layouts && game.random_board(0).is_none() {
            bail!("--rules random: {} has no random boards", G::NAME);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads.unwrap_or(0))
            .build()
            .context("starting the arena's threads")?;
        let progress = ProgressBar::new(u64::from(self.config.games));
        progress.set_style(
            ProgressStyle::with_template(
                "{bar:30} {pos}/{len} games  {msg}  [{elapsed_precise} < {eta_precise}]",
            )
            .expect("valid template"),
        );
        progress.enable_steady_tick(Duration::from_millis(500));
        let seed = self.config.seed;
        let game_for_opening = |opening: u32| {
            if self.random_layouts {
                game.random_board(seed.wrapping_mul(7919).wrapping_add(u64::from(opening)))
                    .unwrap_or_else(|| game.clone())
            } else {
                game.clone()
            }
        };
        let build = |player: &PreparedPlayer, seed: u64| {
            player
                .build(game, seed)
                .expect("players were checked before the match")
        };
        let (stats, records) = pool.install(|| {
            play_match(
                game_for_opening,
                |seed| build(&a, seed),
                |seed| build(&b, seed),
                &self.config,
                |stats, _| {
                    progress.set_position(u64::from(stats.games()));
                    progress.set_message(format!(
                        "A {}-{}-{} ({:.1} %)",
                        stats.wins,
                        stats.draws,
                        stats.losses,
                        100.0 * stats.score()
                    ));
                },
            )
        });
        progress.finish_and_clear();
        if let Some(path) = &self.games_out {
            let mut text = String::new();
            for record in &records {
                let line = game_line(&game_for_opening(record.opening), record);
                text += &line.to_string();
                text.push('\n');
            }
            write_atomically(path, text.as_bytes())?;
        }
        if self.json {
            println!("{}", self.json_report(&stats));
        } else {
            print!(
                "{}",
                self.text_report(&stats, game.player_name(Player::First))
            );
        }
        Ok(())
    }
}

/// One game of the match as a JSON object: its rules, who moved first
/// (under the game's name for the first player, such as "light"), the
/// moves in notation and the result.
fn game_line<G: Registered>(game: &G, record: &GameRecord) -> serde_json::Value {
    let mut state = game.initial_state();
    let mut moves = Vec::with_capacity(record.moves.len());
    for &action in &record.moves {
        moves.push(game.format_action(&state, action));
        game.apply_unchecked(&mut state, action);
    }
    let mut line = json!({
        "game": record.index,
        "opening": record.opening,
        "parameters": game.rules().to_string(),
        "result_for_a": match record.result_for_a {
            Outcome::Win => "win",
            Outcome::Draw => "draw",
            Outcome::Loss => "loss",
        },
        "moves": moves,
    });
    line[game.player_name(Player::First)] = json!(if record.a_first { "A" } else { "B" });
    line
}

impl Arena {
    fn text_report(&self, stats: &MatchStats, first: &str) -> String {
        let elo = stats.elo();
        let mut text = format!("A: {}\nB: {}\n", self.a_name, self.b_name);
        text += &format!(
            "games {}: A wins {}, draws {}, losses {}\n",
            stats.games(),
            stats.wins,
            stats.draws,
            stats.losses
        );
        let [a1, a2] = [stats.a_first, stats.a_second];
        text += &format!(
            "A moving first: {}-{}-{}, moving second: {}-{}-{} (wins-draws-losses)\n",
            a1[0], a1[1], a1[2], a2[0], a2[1], a2[2]
        );
        let colour = stats.by_colour();
        text += &format!(
            "{first} (first player): wins {}, draws {}, losses {}\n",
            colour[0], colour[1], colour[2]
        );
        text += &format!(
            "score {:.1} %, Elo {} [{}, {}] (95 %)\n",
            100.0 * stats.score(),
            signed(elo.elo),
            signed(elo.low),
            signed(elo.high)
        );
        if let Some(sprt) = &self.config.sprt {
            let llr = stats.sprt_llr(sprt);
            let (lower, upper) = sprt.bounds();
            let verdict = match sprt.verdict(llr) {
                SprtVerdict::AcceptH1 => format!("H1 (Elo {}) accepted", sprt.elo1),
                SprtVerdict::AcceptH0 => format!("H0 (Elo {}) accepted", sprt.elo0),
                SprtVerdict::Continue => "no verdict yet".to_string(),
            };
            let p = stats.pairs;
            text += &format!(
                "SPRT({}, {}) on {} game pairs ({}-{}-{}-{}-{} by A's half points 0-1-2-3-4): {verdict}, LLR {llr:.2} in [{lower:.2}, {upper:.2}]\n",
                sprt.elo0,
                sprt.elo1,
                stats.pair_count(),
                p[0],
                p[1],
                p[2],
                p[3],
                p[4]
            );
        }
        text
    }

    fn json_report(&self, stats: &MatchStats) -> serde_json::Value {
        let elo = stats.elo();
        let finite = |x: f64| x.is_finite().then_some(x);
        let sprt = self.config.sprt.map(|sprt| {
            let llr = stats.sprt_llr(&sprt);
            json!({
                "elo0": sprt.elo0,
                "elo1": sprt.elo1,
                "pairs": stats.pairs,
                "llr": llr,
                "verdict": match sprt.verdict(llr) {
                    SprtVerdict::AcceptH1 => "H1",
                    SprtVerdict::AcceptH0 => "H0",
                    SprtVerdict::Continue => "continue",
                },
            })
        });
        json!({
            "a": self.a_name,
            "b": self.b_name,
            "games": stats.games(),
            "wins": stats.wins,
            "draws": stats.draws,
            "losses": stats.losses,
            "score": stats.score(),
            "elo": finite(elo.elo),
            "elo_low": finite(elo.low),
            "elo_high": finite(elo.high),
            "a_first": {
                "wins": stats.a_first[0],
                "draws": stats.a_first[1],
                "losses": stats.a_first[2],
            },
            "a_second": {
                "wins": stats.a_second[0],
                "draws": stats.a_second[1],
                "losses": stats.a_second[2],
            },
            "stopped_early": stats.stopped_early,
            "sprt": sprt,
        })
    }
}

/// An Elo value with its sign, `+inf` / `-inf` at the ends.
fn signed(elo: f64) -> String {
    if elo.is_infinite() {
        if elo > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else if elo.abs() < 0.5 {
        "+0".to_string()
    } else {
        format!("{elo:+.0}")
    }
}
