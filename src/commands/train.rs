//! `grandmaitre train`: the self-play → training → checkpoint loop of a run
//! directory, with progress bars.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use grandmaitre_model::Backend;
use std::path::Path;

use grandmaitre_train::store::Store;
use grandmaitre_train::{Progress, Run, SelfPlay, StopAfter, TrainingConfig};
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::{SelfplayArgs, TrainArgs};
use grandmaitre_play::players::PlayerSpec;
use grandmaitre_play::registry::{self, GameTask, Registered};
use grandmaitre_play::training::{check_run_rules, for_new_run, game_for, plot_strength, rate};

/// When to stop: after `time`, or after `count` units (one by default).
fn stop_after(time: Option<&str>, count: Option<u32>) -> Result<StopAfter> {
    Ok(match (time, count) {
        (Some(time), _) => StopAfter::Seconds(super::seconds_of(time)?),
        (None, Some(count)) => StopAfter::Generations(count),
        (None, None) => StopAfter::Generations(1),
    })
}

/// The settings a run keeps, if `run` is one (a local directory that does
/// not exist is none).
fn stored_config(run: &str) -> Result<Option<TrainingConfig>> {
    if !run.contains("://") && !Path::new(run).is_dir() {
        return Ok(None);
    }
    let store = Store::open(run)?;
    let Some(bytes) = store.get("config.toml")? else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes).context("config.toml is not UTF-8")?;
    TrainingConfig::from_toml(&text)
        .map(Some)
        .map_err(|reason| anyhow::anyhow!("invalid config {run}/config.toml: {reason}"))
}

/// The rules of a run's games: `given` on the command line, else those the
/// run keeps in its settings, else those of the settings file `config`.
fn run_rules(run: &str, given: Option<&str>, config: Option<&Path>) -> Result<Option<String>> {
    if let Some(rules) = given {
        return Ok(Some(rules.to_string()));
    }
    if let Some(stored) = stored_config(run)? {
        return Ok(stored.rules);
    }
    Ok(match config {
        Some(file) => super::read_settings(file)?.rules,
        None => None,
    })
}

/// `grandmaitre selfplay`: more self-play for an existing run.
pub fn selfplay(args: SelfplayArgs) -> Result<()> {
    let rules = run_rules(&args.run, args.rules.as_deref(), None)?;
    registry::dispatch(&args.game.clone(), rules.as_deref(), Selfplay { args })
}

struct Selfplay {
    args: SelfplayArgs,
}

impl GameTask for Selfplay {
    fn run<G: Registered>(self, game: G) -> Result<()> {
        selfplay_game(self.args, game)
    }
}

fn selfplay_game<G: Registered>(args: SelfplayArgs, base: G) -> Result<()> {
    if stored_config(&args.run)?.is_none() {
        bail!(
            "{} is not a training run (no config.toml): start it with grandmaitre train",
            args.run
        );
    }
    let stop = stop_after(args.time.as_deref(), args.shards)?;
    let patience = Duration::from_secs_f64(super::duration_of(
        "--store-patience",
        &args.store_patience,
    )?);
    // SIGTERM (a scheduler's stop) and Ctrl-C end self-play at once and
    // write the games finished; a second Ctrl-C ends the process.
    let stopping = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register_conditional_shutdown(signal, 1, Arc::clone(&stopping))
            .and_then(|_| signal_hook::flag::register(signal, Arc::clone(&stopping)))
            .context("listening for stop signals")?;
    }
    let store = Store::open(&args.run)?
        .with_patience(patience)
        .with_stopping(Arc::clone(&stopping));
    let run = Run::in_store(store, None)?;
    check_run_rules(&run, &base)?;
    let layouts = run.config.selfplay.layouts;
    let games = run.selfplay(
        |seed| game_for(&base, layouts, seed),
        base.spec(),
        stop,
        |shard| {
            eprintln!(
                "{}: {} games, {} positions written in {:.0} s ({:.1} positions/s), playing generation {}",
                shard.name,
                shard.games,
                shard.positions,
                shard.seconds,
                shard.positions as f64 / shard.seconds.max(1e-9),
                shard.generation
            );
        },
    )?;
    if stopping.load(Ordering::Relaxed) {
        eprintln!("asked to stop: the games finished are written");
    }
    println!("{games} self-play games added to {}", args.run);
    Ok(())
}

/// Validates the arguments and trains.
pub fn run(args: TrainArgs) -> Result<()> {
    let rules = run_rules(&args.run, args.rules.as_deref(), args.config.as_deref())?;
    registry::dispatch(&args.game.clone(), rules.as_deref(), Train { args })
}

struct Train {
    args: TrainArgs,
}

impl GameTask for Train {
    fn run<G: Registered>(self, game: G) -> Result<()> {
        train_game(self.args, game)
    }
}

fn train_game<G: Registered>(args: TrainArgs, base: G) -> Result<()> {
    let stop = stop_after(args.time.as_deref(), args.generations)?;
    let config = args
        .config
        .as_deref()
        .map(super::read_settings)
        .transpose()?;
    // A new run records the anchors it is rated against: the game's own
    // unless its settings name others.
    let config = match config {
        Some(config) => Some(for_new_run(config, &base)),
        None if stored_config(&args.run)?.is_none() => {
            Some(for_new_run(TrainingConfig::default(), &base))
        }
        None => None,
    };
    let backend: Backend = args.backend.parse().map_err(anyhow::Error::msg)?;
    let cuda = match args.device.as_str() {
        "cpu" => false,
        "cuda" => true,
        other => bail!("unknown device '{other}': expected cpu or cuda"),
    };
    let device = backend.device(cuda).map_err(anyhow::Error::msg)?;
    let self_play = if args.workers {
        SelfPlay::Workers {
            poll: Duration::from_secs_f64(super::duration_of("--poll", &args.poll)?),
        }
    } else {
        SelfPlay::Own
    };
    let patience = Duration::from_secs_f64(super::duration_of(
        "--store-patience",
        &args.store_patience,
    )?);
    let run = Run::in_store(Store::open(&args.run)?.with_patience(patience), config)?
        .with_self_play(self_play);
    check_run_rules(&run, &base)?;
    let layouts = run.config.selfplay.layouts;
    let make_game = |seed: u64| game_for(&base, layouts, seed);
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("gen {prefix} {msg:<12} {bar:30} {pos}/{len} [{elapsed_precise} < {eta_precise}] {per_sec}")
            .expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(500));
    let evaluation = run.config.evaluation.clone();
    let samples_per_generation =
        run.config.optimizer.steps_per_generation * run.config.optimizer.batch_size;
    let anchors: Vec<String> = match &evaluation.anchors {
        Some(anchors) => anchors.clone(),
        None => G::ANCHORS.iter().map(|a| a.to_string()).collect(),
    };
    for anchor in &anchors {
        PlayerSpec::parse(anchor)
            .and_then(|spec| spec.prepare(&base))
            .with_context(|| format!("in the run's evaluation.anchors ({anchor})"))?;
    }
    let mut evaluate = |generation: u32, checkpoint: &Path, previous: Option<&Path>| {
        rate(
            &base,
            &evaluation,
            &anchors,
            generation,
            checkpoint,
            previous,
        )
        .map_err(|e| format!("{e:#}"))
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
            if let Err(error) = plot_strength(&run) {
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
            let games = if args.workers {
                format!("waited {:.1} s for games", line.selfplay_seconds)
            } else if line.positions_per_second > 0.0 {
                format!("self-play {:.0} positions/s", line.positions_per_second)
            } else {
                // Every shard of the generation was written before an
                // interruption.
                "games read back from the generation's shards".to_string()
            };
            let speed = format!(
                "{games}, trained {:.0} samples/s",
                samples_per_generation as f64 / line.training_seconds.max(1e-9)
            );
            bar.suspend(|| println!(
                "generation {}: {} games played, window {} positions, {} steps, policy loss {:.3}, value loss {:.3}, {speed}",
                line.generation,
                line.games,
                line.positions,
                line.steps,
                line.policy_loss,
                line.value_loss,
            ));
        }
    })?;
    bar.finish_and_clear();
    let reads = run.store().reads();
    let shard_reads: Vec<usize> = reads
        .iter()
        .filter(|(name, _)| name.starts_with("shards/"))
        .map(|(_, &count)| count)
        .collect();
    eprintln!(
        "shards read: {} ({} reads)",
        shard_reads.len(),
        shard_reads.iter().sum::<usize>()
    );
    Ok(())
}
