//! Playing the calibration games: their openings (never a copy of a
//! deterministic game already recorded) and the games on the calibration's
//! threads.

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use grandmaitre_engine::book::Book;
use grandmaitre_engine::levels::Level;
use grandmaitre_engine::search::Evaluator;
use grandmaitre_engine::{Game, Notation};
use grandmaitre_model::bar::BAR_SIMULATIONS;
use grandmaitre_model::calibration::games::{
    GameSettings, OPENING_ATTEMPTS, OpeningKey, Pairing, distinct_openings_after, opening_key, play,
};
use grandmaitre_model::calibration::records::{Played, RecordsHeader, consistent, read_records};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use super::CalibrateSettings;
use crate::registry::Registered;

/// Plays `settings.games` games on the calibration's threads, every game
/// in the order of its number. With `--games-out FILE`, each game is added
/// to the partial file [`partial_path`] as it ends, after `header`: a run
/// that stops (interrupted, the machine off) keeps its finished games, and
/// the same command then plays only the games left ([`resume`]). The file
/// is locked while the run writes it: a second run of it is refused.
pub(super) fn play_games<G: grandmaitre_engine::Playable, E: Evaluator<G> + Sync>(
    game: &G,
    evaluator: &E,
    book: Option<&Book<G>>,
    pairing: &Pairing,
    settings: &CalibrateSettings,
    header: &RecordsHeader,
    mut known: HashSet<OpeningKey>,
) -> Result<Vec<Played>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.threads.unwrap_or(0))
        .build()
        .context("starting the calibration's threads")?;
    let game_settings = GameSettings {
        pairing: pairing.clone(),
        opening_plies: settings.opening_plies,
        seed: settings.seed,
    };
    let (finished, partial) = match &settings.games_out {
        Some(out) => {
            let part = partial_path(out);
            let (file, finished) = open_partial(&part, header, &game_settings, settings.games)?;
            if !finished.is_empty() {
                eprintln!(
                    "resuming from {}: {} of {} games already played",
                    part.display(),
                    finished.len(),
                    settings.games
                );
            }
            (finished, Some((part, Mutex::new(file))))
        }
        None => (Vec::new(), None),
    };
    // Each finished game's number and opening, as the draw of the games
    // left must know them.
    let finished_keys = finished
        .iter()
        .map(|played| {
            let (Some(index), Some(levels)) = (played.index, played.levels) else {
                unreachable!("open_partial keeps numbered games with their levels");
            };
            let (part, _) = partial
                .as_ref()
                .expect("finished games come from a partial file");
            let what = || part.display().to_string();
            Ok((index, recorded_key(game, played, levels, what)?))
        })
        .collect::<Result<HashMap<u32, OpeningKey>>>()?;
    let openings = distinct_openings_after(
        game,
        &game_settings,
        settings.games,
        &mut known,
        &finished_keys,
    );
    let left_out = openings.iter().filter(|o| o.is_none()).count() - finished_keys.len();
    if left_out > 0 {
        eprintln!(
            "{left_out} of {} games left out: no new opening for their levels after {OPENING_ATTEMPTS} draws",
            settings.games
        );
    }
    let progress = ProgressBar::new(u64::from(settings.games));
    progress.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} games  [{elapsed_precise} < {eta_precise}]",
        )
        .expect("valid template"),
    );
    progress.set_position(finished.len() as u64);
    progress.enable_steady_tick(Duration::from_millis(500));
    let played: Vec<Played> = pool.install(|| {
        (0..settings.games)
            .into_par_iter()
            .filter_map(|index| {
                let opening = openings[index as usize].as_deref()?;
                let played = play(game, evaluator, book, &game_settings, index, opening);
                let kept = partial.as_ref().map_or(Ok(()), |(part, file)| {
                    append_game(&mut file.lock().expect("not poisoned"), &played)
                        .with_context(|| format!("writing {}", part.display()))
                });
                progress.inc(1);
                Some(kept.map(|()| played))
            })
            .collect::<Result<Vec<Played>>>()
    })?;
    progress.finish_and_clear();
    let mut all = finished;
    all.extend(played);
    all.sort_by_key(|played| played.index);
    Ok(all)
}

/// Where a run writing its records to `out` keeps each game as it ends:
/// `out` with `.part` added (`games.jsonl.part`). The finished run writes
/// `out` whole and removes it.
pub(super) fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}

/// Opens the partial file `part` of this run, locked against any other
/// run's writing it, with the games an interrupted run left there
/// ([`resume`]): a new file gets `header`, a file of an interrupted run
/// loses a last line cut short, and the run appends from there.
fn open_partial(
    part: &Path,
    header: &RecordsHeader,
    settings: &GameSettings,
    games: u32,
) -> Result<(File, Vec<Played>)> {
    if let Some(parent) = part.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    let opening = || format!("opening {}", part.display());
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(part)
        .with_context(opening)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            bail!(
                "{} is being written by another calibrate run",
                part.display()
            )
        }
        Err(TryLockError::Error(e)) => return Err(e).with_context(opening),
    }
    let mut text = String::new();
    file.read_to_string(&mut text).with_context(opening)?;
    let (finished, kept) = if text.is_empty() {
        let mut line = serde_json::to_string(header).expect("a header serialises");
        line.push('\n');
        file.write_all(line.as_bytes()).with_context(opening)?;
        (Vec::new(), line.len())
    } else {
        resume(part, &text, header, settings, games)?
    };
    file.set_len(kept as u64).with_context(opening)?;
    file.seek(SeekFrom::End(0)).with_context(opening)?;
    Ok((file, finished))
}

/// The games an interrupted run left in its partial file `part`, whose
/// text is `text`, and the length of the header and their lines: the file
/// must have been written by a run of these settings (the same `header`:
/// game, rules, model, levels, openings and seed), each game with its
/// number below `games` and its levels. A last line cut short by the
/// interruption is left out (its game is played again).
fn resume(
    part: &Path,
    text: &str,
    header: &RecordsHeader,
    settings: &GameSettings,
    games: u32,
) -> Result<(Vec<Played>, usize)> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    let left: Option<RecordsHeader> = serde_json::from_str(first.trim_end()).ok();
    if !first.ends_with('\n') || left.as_ref() != Some(header) {
        bail!(
            "{} was left by a run of other settings (game, rules, model, levels, openings or seed): run those again to finish it, or remove it",
            part.display()
        );
    }
    let mut kept = first.len();
    let mut finished: Vec<Played> = Vec::new();
    let mut numbers = HashSet::new();
    for (number, line) in lines.enumerate() {
        if !line.ends_with('\n') {
            break;
        }
        let at = || format!("{}:{}", part.display(), number + 2);
        let played: Played = serde_json::from_str(line.trim_end())
            .with_context(|| format!("{}: bad game record", at()))?;
        let ours = played.index.is_some_and(|index| {
            index < games
                && numbers.insert(index)
                && played.levels == Some(settings.levels(index).map(|level| level.number))
                && played.moves.len() == played.predictions.len()
        });
        if !(ours && consistent(&played)) {
            bail!("{}: not a game of this run", at());
        }
        kept += line.len();
        finished.push(played);
    }
    Ok((finished, kept))
}

/// Adds the game `played` to a partial file as one line, written at once.
fn append_game(file: &mut File, played: &Played) -> std::io::Result<()> {
    let mut line = serde_json::to_string(played).expect("a record serialises");
    line.push('\n');
    file.write_all(line.as_bytes())?;
    file.flush()
}

/// The key of the deterministic game `played` of `levels` (see
/// [`distinct_openings_after`]): the position its recorded opening
/// reaches. `what` names the records in an error.
fn recorded_key<G: Game + Notation>(
    game: &G,
    played: &Played,
    levels: [u32; 2],
    what: impl Fn() -> String,
) -> Result<OpeningKey> {
    let mut state = game.initial_state();
    for text in &played.opening {
        let bad = |e: &dyn std::fmt::Display| anyhow!("{}: opening move '{text}': {e}", what());
        let action = game.parse_action(&state, text).map_err(|e| bad(&e))?;
        state = game.play(&state, action).map_err(|e| bad(&e))?;
    }
    Ok(opening_key(game, &state, levels))
}

/// The openings of the deterministic games of the `--distinct-from`
/// records (see [`distinct_openings_after`]): each file's games must be of this
/// game and these rules.
pub(super) fn known_openings<G: Registered>(
    game: &G,
    settings: &CalibrateSettings,
) -> Result<HashSet<OpeningKey>> {
    let mut known = HashSet::new();
    for path in &settings.distinct_from {
        let (header, games) = read_records(path, G::NAME, BAR_SIMULATIONS)
            .map_err(|e| anyhow::anyhow!("--distinct-from: {e}"))?;
        if header.layout != settings.rules {
            bail!(
                "--distinct-from {}: its games are of the rules {}, these of {}",
                path.display(),
                header.layout.as_deref().unwrap_or("by default"),
                settings.rules.as_deref().unwrap_or("by default"),
            );
        }
        for played in games {
            let Some(levels) = played.levels else {
                continue;
            };
            // Recorded games of levels that play their best were
            // deterministic whatever their pairing.
            let best = levels
                .iter()
                .all(|&n| Level::get(n).is_ok_and(|level| level.plays_its_best()));
            if !best || played.moves.is_empty() {
                continue;
            }
            let what = || format!("--distinct-from {}", path.display());
            known.insert(recorded_key(game, &played, levels, what)?);
        }
    }
    Ok(known)
}

#[cfg(test)]
mod tests {
    use super::*;
    use grandmaitre_model::calibration::records::RECORDS_FORMAT;

    fn header() -> RecordsHeader {
        RecordsHeader {
            format: RECORDS_FORMAT.to_string(),
            game: "heraldis".to_string(),
            layout: None,
            model: "a model".to_string(),
            level: 10,
            pairing: Some("self".to_string()),
            advice_simulations: 3200,
            bar_simulations: BAR_SIMULATIONS,
            opening_plies: 6,
            seed: 1,
        }
    }

    fn settings() -> GameSettings {
        GameSettings {
            pairing: Pairing::SelfPlay(Level::get(10).expect("level")),
            opening_plies: 6,
            seed: 1,
        }
    }

    /// A one-position game numbered `index` of [`settings`]'s run.
    fn game(index: u32) -> Played {
        Played {
            predictions: vec![[0.5, 0.0, 0.5]],
            network: vec![[0.5, 0.0, 0.5]],
            sides: vec![0],
            moves: vec!["c3".to_string()],
            levels: Some([10, 10]),
            index: Some(index),
            ..Played::default()
        }
    }

    #[test]
    fn a_partial_file_resumes_without_its_cut_line_and_refuses_a_second_writer() {
        let directory = tempfile::tempdir().expect("temp dir");
        let part = directory.path().join("games.jsonl.part");
        let line = |played: &Played| serde_json::to_string(played).expect("JSON") + "\n";
        let head = serde_json::to_string(&header()).expect("JSON") + "\n";
        let whole = head.clone() + &line(&game(3)) + &line(&game(0));
        let cut = &line(&game(1))[..20];
        std::fs::write(&part, whole.clone() + cut).expect("written");

        let (mut file, finished) = open_partial(&part, &header(), &settings(), 6).expect("opens");
        assert_eq!(finished, [game(3), game(0)]);
        assert_eq!(std::fs::read_to_string(&part).expect("read"), whole);
        // While this run holds it, another is refused.
        let error = open_partial(&part, &header(), &settings(), 6).expect_err("locked");
        assert!(
            error.to_string().contains("another calibrate run"),
            "{error}"
        );
        // Its games go after the kept ones.
        append_game(&mut file, &game(1)).expect("appended");
        drop(file);
        let (_, finished) = open_partial(&part, &header(), &settings(), 6).expect("opens");
        assert_eq!(finished, [game(3), game(0), game(1)]);
    }

    #[test]
    fn a_partial_file_of_another_run_is_refused_and_kept() {
        let directory = tempfile::tempdir().expect("temp dir");
        let part = directory.path().join("games.jsonl.part");
        let other = RecordsHeader {
            seed: 2,
            ..header()
        };
        let text = serde_json::to_string(&other).expect("JSON") + "\n";
        std::fs::write(&part, &text).expect("written");
        let error = open_partial(&part, &header(), &settings(), 6).expect_err("refused");
        assert!(error.to_string().contains("other settings"), "{error}");
        // A game numbered beyond the run's games, or twice, is not its own.
        let head = serde_json::to_string(&header()).expect("JSON") + "\n";
        let line = |played: &Played| serde_json::to_string(played).expect("JSON") + "\n";
        for text in [
            head.clone() + &line(&game(7)),
            head.clone() + &line(&game(2)) + &line(&game(2)),
        ] {
            std::fs::write(&part, &text).expect("written");
            let error = open_partial(&part, &header(), &settings(), 6).expect_err("refused");
            assert!(
                error.to_string().contains("not a game of this run"),
                "{error}"
            );
            assert_eq!(std::fs::read_to_string(&part).expect("read"), text);
        }
        // A new file gets the header.
        std::fs::remove_file(&part).expect("removed");
        let (_, finished) = open_partial(&part, &header(), &settings(), 6).expect("opens");
        assert!(finished.is_empty());
        assert_eq!(std::fs::read_to_string(&part).expect("read"), head);
    }
}
