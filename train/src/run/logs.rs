//! The run's logs: `log.csv`, a line a generation, and `evaluation.csv`,
//! the checkpoints' ratings.

use super::*;

impl Run {
    /// The run's ratings (`evaluation.csv`).
    pub fn ratings(&self) -> Result<Vec<RatingRow>, TrainError> {
        match self.store.get(EVALUATION_FILE)? {
            Some(text) => ratings::parse(EVALUATION_FILE, &text).map_err(TrainError::Ratings),
            None => Ok(Vec::new()),
        }
    }

    /// The checkpoint of the newest row of `evaluation.csv`.
    pub(super) fn last_rated(&self) -> Result<Option<PathBuf>, TrainError> {
        let generation = self.ratings()?.iter().map(|row| row.generation).max();
        Ok(match generation {
            Some(g) if self.store.directory().is_none() => Some(self.local_checkpoint(g)?),
            Some(g) => Some(self.checkpoint_path(g)).filter(|p| p.is_dir()),
            None => None,
        })
    }

    /// Drops the lines of `log.csv` and `evaluation.csv` of generations
    /// after `published` (the pointer's): their generation was interrupted
    /// before its pointer was written, and is played again.
    pub(super) fn drop_unpublished_lines(&self, published: u32) -> Result<(), TrainError> {
        for file in [LOG_FILE, EVALUATION_FILE] {
            let Some(text) = self.store.get(file)? else {
                continue;
            };
            let text = String::from_utf8_lossy(&text).to_string();
            let mut kept = String::new();
            let mut dropped = 0;
            for (index, line) in text.lines().enumerate() {
                let generation = line.split(',').next().and_then(|g| g.parse::<u32>().ok());
                if index > 0 && generation.is_some_and(|g| g > published) {
                    dropped += 1;
                } else {
                    kept.push_str(line);
                    kept.push('\n');
                }
            }
            if dropped > 0 {
                eprintln!(
                    "{}/{file}: {dropped} line(s) of a generation after gen-{published:04}, whose checkpoint was never published, dropped",
                    self.location()
                );
                self.store.put(file, kept.into_bytes())?;
            }
        }
        Ok(())
    }

    /// The games count of the last line of `log.csv` (0 without one).
    pub(super) fn last_logged_games(&self) -> Result<usize, TrainError> {
        let text = self.store.get(LOG_FILE)?.unwrap_or_default();
        Ok(String::from_utf8_lossy(&text)
            .lines()
            .skip(1)
            .last()
            .and_then(|line| line.split(',').nth(1))
            .and_then(|games| games.parse().ok())
            .unwrap_or(0))
    }

    pub(super) fn append_ratings(
        &self,
        generation: u32,
        games: usize,
        ratings: &[Rating],
    ) -> Result<(), TrainError> {
        let rows: Vec<RatingRow> = ratings
            .iter()
            .map(|r| RatingRow {
                generation,
                games,
                opponent: r.opponent.clone(),
                matches: r.games,
                score: r.score,
                elo: r.elo[0],
                elo_low: r.elo[1],
                elo_high: r.elo[2],
            })
            .collect();
        let mut text = self.store.get(EVALUATION_FILE)?.unwrap_or_default();
        let added = ratings::to_csv(&rows, text.is_empty()).map_err(TrainError::Ratings)?;
        text.extend(added);
        Ok(self.store.put(EVALUATION_FILE, text)?)
    }

    /// Appends a line to `log.csv` (its header first in a new one): the
    /// file replaced whole, as one trainer writes it.
    pub(super) fn append_log(&self, line: &LogLine) -> Result<(), TrainError> {
        let mut text = self.store.get(LOG_FILE)?.unwrap_or_default();
        if text.is_empty() {
            text.extend(LOG_HEADER.as_bytes());
            text.push(b'\n');
        }
        text.extend(line.csv().as_bytes());
        text.push(b'\n');
        Ok(self.store.put(LOG_FILE, text)?)
    }
}
