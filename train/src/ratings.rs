//! The ratings file of a run (`evaluation.csv`): one row per match of a
//! checkpoint against an opponent, read and written as CSV (fields that
//! hold commas, such as `rollout:sims=1000,rollouts=4`, are quoted).

use std::fs;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// One match of a checkpoint: a row of `evaluation.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingRow {
    /// The checkpoint's generation.
    pub generation: u32,
    /// Self-play games the run had played when it was rated.
    pub games: usize,
    /// The opponent: a player spec (a fixed anchor) or a checkpoint path.
    pub opponent: String,
    /// Games of the match.
    pub matches: u32,
    /// The checkpoint's score in [0, 1].
    pub score: f64,
    /// Elo difference (infinite at a score of 0 or 1).
    pub elo: f64,
    /// Lower end of its 95 % interval.
    pub elo_low: f64,
    /// Upper end of its 95 % interval.
    pub elo_high: f64,
}

/// `rows` as CSV lines, with the header first when `header`.
pub fn to_csv(rows: &[RatingRow], header: bool) -> Result<Vec<u8>, String> {
    let mut writer = csv::WriterBuilder::new()
        .has_headers(header)
        .from_writer(Vec::new());
    for row in rows {
        let rounded = RatingRow {
            score: (row.score * 1e4).round() / 1e4,
            elo: row.elo.round(),
            elo_low: row.elo_low.round(),
            elo_high: row.elo_high.round(),
            ..row.clone()
        };
        writer.serialize(rounded).map_err(|e| e.to_string())?;
    }
    writer.into_inner().map_err(|e| e.to_string())
}

/// The rows of a ratings file's text; `name` names it in messages.
pub fn parse(name: &str, text: &[u8]) -> Result<Vec<RatingRow>, String> {
    csv::Reader::from_reader(text)
        .deserialize()
        .enumerate()
        .map(|(index, row)| row.map_err(|e| format!("{name}: row {}: {e}", index + 1)))
        .collect()
}

/// Appends `rows` to the ratings file `path`, with the header first in a
/// new file; synced to disk before returning.
pub fn append(path: &Path, rows: &[RatingRow]) -> Result<(), String> {
    let error = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let bytes = to_csv(rows, !path.exists()).map_err(|e| error(&e))?;
    let mut file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| error(&e))?;
    file.write_all(&bytes).map_err(|e| error(&e))?;
    file.sync_all().map_err(|e| error(&e))
}

/// The rows of the ratings file `path` (none if it does not exist).
pub fn read(path: &Path) -> Result<Vec<RatingRow>, String> {
    let text = match fs::read(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    parse(&path.display().to_string(), &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(generation: u32, opponent: &str, elo: f64) -> RatingRow {
        RatingRow {
            generation,
            games: 512 * generation as usize,
            opponent: opponent.to_string(),
            matches: 20,
            score: 0.25,
            elo,
            elo_low: elo - 120.0,
            elo_high: f64::INFINITY,
        }
    }

    #[test]
    fn rows_with_a_two_option_anchor_read_back_as_written() {
        let directory = tempfile::tempdir().expect("temp dir");
        let path = directory.path().join("evaluation.csv");
        let first = vec![
            row(8, "rollout:sims=1000,rollouts=4", -191.0),
            row(8, "alphabeta:depth=4", f64::NEG_INFINITY),
        ];
        let second = vec![row(16, "runs/x/checkpoints/gen-0008", 35.0)];
        append(&path, &first).expect("first append");
        append(&path, &second).expect("second append");
        let read_back = read(&path).expect("read");
        assert_eq!(read_back, [first, second].concat());
        // One header, three rows; the anchor's comma is quoted, not lost.
        let text = fs::read_to_string(&path).expect("text");
        assert_eq!(text.lines().count(), 4);
        assert!(text.contains("\"rollout:sims=1000,rollouts=4\""), "{text}");
    }

    #[test]
    fn the_shipped_ratings_read() {
        // The shipped models' runs: Heraldis's beside its model, Havannah's
        // in the run kept with it.
        for run in ["heraldis", "havannah/run-v2"] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../checkpoints")
                .join(run)
                .join("evaluation.csv");
            let rows = read(&path).expect("shipped ratings");
            assert!(!rows.is_empty(), "{run}");
        }
    }

    #[test]
    fn a_damaged_row_is_an_error_naming_it() {
        let directory = tempfile::tempdir().expect("temp dir");
        let path = directory.path().join("evaluation.csv");
        fs::write(
            &path,
            "generation,games,opponent,matches,score,elo,elo_low,elo_high\n8,512,random,20,x,1,2,3\n",
        )
        .expect("write");
        let error = read(&path).expect_err("bad score");
        assert!(error.contains("row 1"), "{error}");
    }
}
