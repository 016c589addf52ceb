//! `grandmaitre train`: the self-play → training → checkpoint loop of a run
//! directory, with progress bars.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use grandmaitre_engine::havannah::Havannah;
use grandmaitre_engine::heraldis::Heraldis;
use grandmaitre_model::Backend;
use std::path::Path;

use grandmaitre_engine::arena::{MatchConfig, play_match};
use grandmaitre_train::config::{EvaluationSettings, Layouts};
use grandmaitre_train::run::Rating;
use grandmaitre_train::{Progress, Run, StopAfter, TrainingConfig};
use indicatif::{ProgressBar, ProgressStyle};

use super::CliGame;
use crate::cli::{SelfplayArgs, TrainArgs};
use crate::players::{PlayerSpec, SearchTuning};

/// When to stop: after `time`, or after `count` units (one by default).
fn stop_after(time: Option<&str>, count: Option<u32>) -> Result<StopAfter> {
    Ok(match (time, count) {
        (Some(time), _) => StopAfter::Seconds(
            humantime::parse_duration(time)
                .with_context(|| {
                    format!("invalid --time '{time}': expected a duration such as 90s, 45m or 2h")
                })?
                .as_secs_f64(),
        ),
        (None, Some(count)) => StopAfter::Generations(count),
        (None, None) => StopAfter::Generations(1),
    })
}

/// The rules of self-play game `seed` under the run's layout choice (games
/// without random boards always play on their one board).
fn game_for<G: CliGame>(base: &G, layouts: Layouts, seed: u64) -> G {
    match layouts {
        Layouts::Default => base.clone(),
        Layouts::Mixed if seed % 2 == 0 => base.clone(),
        Layouts::Random | Layouts::Mixed => base.random_board(seed).unwrap_or_else(|| base.clone()),
    }
}

/// `grandmaitre selfplay`: more self-play for an existing run.
pub fn selfplay(args: SelfplayArgs) -> Result<()> {
    match args.game.as_str() {
        "heraldis" => selfplay_game(args, Heraldis::default()),
        "havannah" => selfplay_game(args, Havannah::default()),
        other => bail!("unknown game '{other}': expected heraldis or havannah"),
    }
}

fn selfplay_game<G: CliGame>(args: SelfplayArgs, base: G) -> Result<()> {
    if !args.run.join("config.toml").is_file() {
        bail!(
            "{} is not a training run (no config.toml): start it with grandmaitre train",
            args.run.display()
        );
    }
    let stop = stop_after(args.time.as_deref(), args.shards)?;
    let run = Run::open(&args.run, None)?;
    let layouts = run.config.selfplay.layouts;
    let games = run.selfplay(
        |seed| game_for(&base, layouts, seed),
        base.spec(),
        stop,
        |written| {
            eprintln!("{written} games written");
        },
    )?;
    println!("{games} self-play games added to {}", args.run.display());
    Ok(())
}

/// Validates the arguments and trains.
pub fn run(args: TrainArgs) -> Result<()> {
    match args.game.as_str() {
        "heraldis" => train_game(args, Heraldis::default()),
        "havannah" => train_game(args, Havannah::default()),
        other => bail!("unknown game '{other}': expected heraldis or havannah"),
    }
}

fn train_game<G: CliGame>(args: TrainArgs, base: G) -> Result<()> {
    let stop = stop_after(args.time.as_deref(), args.generations)?;
    let config = args
        .config
        .as_ref()
        .map(|path| -> Result<TrainingConfig> {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            TrainingConfig::from_toml(&text)
                .map_err(|reason| anyhow::anyhow!("invalid config {}: {reason}", path.display()))
        })
        .transpose()?;
    let backend: Backend = args.backend.parse().map_err(anyhow::Error::msg)?;
    let cuda = match args.device.as_str() {
        "cpu" => false,
        "cuda" => true,
        other => bail!("unknown device '{other}': expected cpu or cuda"),
    };
    let device = backend.device(cuda).map_err(anyhow::Error::msg)?;
    let run = Run::open(&args.run, config)?;
    let layouts = run.config.selfplay.layouts;
    let make_game = |seed: u64| game_for(&base, layouts, seed);
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("gen {prefix} {msg:<12} {bar:30} {pos}/{len} [{elapsed_precise} < {eta_precise}] {per_sec}")
            .expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(500));
    let evaluation = run.config.evaluation.clone();
    for anchor in &evaluation.anchors {
        PlayerSpec::parse(anchor).context("in the run's evaluation.anchors")?;
    }
    let mut evaluate = |generation: u32, checkpoint: &Path, previous: Option<&Path>| {
        rate(&base, &evaluation, generation, checkpoint, previous).map_err(|e| format!("{e:#}"))
    };
    run.train(make_game, base.spec(), &device, stop, &mut evaluate, |event| match event {
        Progress::Generation { generation } => {
            bar.set_prefix(generation.to_string());
        }
        Progress::Games { done, total } => {
            bar.set_message("self-play");
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
        Progress::Steps { done, total } => {
            if done == 1 {
                bar.reset();
            }
            bar.set_message("training");
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
        Progress::Rated(ratings) => {
            if let Err(error) = plot_strength(&args.run) {
                bar.suspend(|| eprintln!("warning: strength.png not drawn: {error:#}"));
            }
            for rating in ratings {
                bar.suspend(|| {
                    println!(
                        "  against {}: {:.1} % of {} games, Elo {:+.0} [{:+.0}, {:+.0}]",
                        rating.opponent,
                        100.0 * rating.score,
                        rating.games,
                        rating.elo[0],
                        rating.elo[1],
                        rating.elo[2]
                    )
                });
            }
        }
        Progress::Finished(line) => {
            bar.suspend(|| println!(
                "generation {}: {} games on disk, window {} positions, {} steps, policy loss {:.3}, value loss {:.3}, self-play {:.0} positions/s",
                line.generation,
                line.games,
                line.positions,
                line.steps,
                line.policy_loss,
                line.value_loss,
                line.positions_per_second
            ));
        }
    })?;
    bar.finish_and_clear();
    Ok(())
}

/// Draws `strength.png` in the run directory from its `evaluation.csv`: the
/// Elo difference against each fixed anchor over the generations, with
/// 95 % intervals (clipped to ±600 where a match was all wins or losses).
pub fn plot_strength(run: &Path) -> Result<()> {
    let csv = run.join("evaluation.csv");
    let text =
        std::fs::read_to_string(&csv).with_context(|| format!("reading {}", csv.display()))?;
    let mut series: Vec<crate::plot::Series> = Vec::new();
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let [generation, _, opponent, _, _, elo, low, high] = fields[..] else {
            continue;
        };
        // Earlier checkpoints of the run are opponents too; only the fixed
        // anchors give a curve on one scale.
        if PlayerSpec::parse(opponent).is_err() {
            continue;
        }
        let number = |text: &str| text.parse::<f64>().unwrap_or(f64::NAN);
        let point = (number(generation), number(elo), number(low), number(high));
        let clip = |x: f64| {
            if x.is_nan() {
                x
            } else {
                x.clamp(-600.0, 600.0)
            }
        };
        let point = (point.0, clip(point.1), clip(point.2), clip(point.3));
        if point.0.is_nan() || point.1.is_nan() {
            continue;
        }
        match series
            .iter_mut()
            .find(|s| s.name == format!("against {opponent}"))
        {
            Some(line) => line.points.push(point),
            None => series.push(crate::plot::Series {
                name: format!("against {opponent}"),
                points: vec![point],
            }),
        }
    }
    crate::plot::line_chart(
        &run.join("strength.png"),
        &format!("{}: strength against the anchors", run.display()),
        "generation",
        "Elo difference (95 % interval)",
        (-600.0, 600.0),
        &series,
    )
}

/// Matches of the checkpoint against the anchors and the previously rated
/// checkpoint.
fn rate<G: CliGame>(
    game: &G,
    settings: &EvaluationSettings,
    generation: u32,
    checkpoint: &Path,
    previous: Option<&Path>,
) -> Result<Vec<Rating>> {
    let model = |path: &Path| PlayerSpec::Model {
        path: path.to_path_buf(),
        simulations: settings.simulations,
        tuning: SearchTuning::default(),
    };
    let mut opponents: Vec<(String, PlayerSpec)> = settings
        .anchors
        .iter()
        .map(|spec| Ok((spec.clone(), PlayerSpec::parse(spec)?)))
        .collect::<Result<_>>()?;
    if let Some(previous) = previous {
        opponents.push((previous.display().to_string(), model(previous)));
    }
    let player = model(checkpoint).prepare(game)?;
    let mut ratings = Vec::new();
    for (name, spec) in opponents {
        let opponent = spec.prepare(game)?;
        let config = MatchConfig {
            games: settings.games,
            openings: settings.games.div_ceil(2),
            opening_plies: 1,
            seed: u64::from(generation),
            sprt: None,
        };
        let (stats, _) = play_match(
            |_| game.clone(),
            |seed| player.build(game, seed).expect("prepared"),
            |seed| opponent.build(game, seed).expect("prepared"),
            &config,
            |_, _| {},
        );
        let elo = stats.elo();
        ratings.push(Rating {
            opponent: name,
            games: stats.games(),
            score: stats.score(),
            elo: [elo.elo, elo.low, elo.high],
        });
    }
    Ok(ratings)
}
