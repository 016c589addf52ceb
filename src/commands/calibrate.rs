//! `grandmaitre calibrate`: the bar's calibration
//! ([`grandmaitre_play::calibrate`]), fitted, measured, reported and stored.

use anyhow::Result;
use grandmaitre_play::calibrate::{CalibrateSettings, calibrate};
use grandmaitre_play::players::ModelChoice;
use grandmaitre_play::registry::{self, GameTask, Registered};

use crate::cli::CalibrateArgs;

/// Runs the calibration and prints its summary and tables.
pub fn run(args: CalibrateArgs) -> Result<()> {
    let settings = CalibrateSettings {
        model: ModelChoice::from_arg(args.model.as_deref()),
        games: args.games,
        level: args.level,
        opening_plies: args.opening_plies,
        pairing: args.pairing,
        seed: args.seed,
        threads: args.threads,
        report: args.report,
        dry_run: args.dry_run,
        games_out: args.games_out,
        games_in: args.games_in,
        held_out: args.held_out,
        distinct_from: args.distinct_from,
        rules: args.rules,
    };
    registry::dispatch(
        &args.game,
        settings.rules.clone().as_deref(),
        Calibrate(settings),
    )
}

struct Calibrate(CalibrateSettings);

impl GameTask for Calibrate {
    fn run<G: Registered>(self, game: G) -> Result<()> {
        let report = calibrate(&game, &self.0)?;
        print!("{}\n{}", report.summary, report.table);
        let stored = match &report.stored {
            Some(place) => format!("; stored {place}"),
            None => String::new(),
        };
        println!(
            "wrote {}/calibration.md, calibration.json, reliability.png{stored}",
            report.directory.display()
        );
        Ok(())
    }
}
