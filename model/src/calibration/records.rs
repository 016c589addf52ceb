//! The records of calibration games (`calibrate --games-out`, read back by
//! `--games-in`): JSON lines, a header then one game per line.

use std::path::Path;

use grandmaitre_engine::game::OneLine;
use serde::{Deserialize, Serialize};

/// The bar at every position of one game, and how the game ended (a line
/// of a records file).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Played {
    /// P(first player wins), P(draw), P(second player wins) of the bar,
    /// before calibration.
    pub predictions: Vec<[f32; 3]>,
    /// The same from the network alone, without search.
    pub network: Vec<[f32; 3]>,
    /// Who was to move at each position: 0 the first player, 1 the second.
    pub sides: Vec<u8>,
    /// 0 the first player won, 1 draw, 2 the second player won.
    pub result: usize,
    /// The levels that played, the first player's then the second's
    /// (absent in records of level-10 self-play written before levels were
    /// recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub levels: Option<[u32; 2]>,
    /// What was proven of each position's result where something proved
    /// it (the solution book, or the bar's own search), from the first
    /// player's side as `result` says it; empty in records written before
    /// proofs were recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proofs: Vec<Option<u8>>,
    /// The ply of the first recorded position (absent in records written
    /// before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_ply: Option<u32>,
    /// The random opening's moves, in the game's notation, from the start
    /// (empty in records written before moves were recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opening: Vec<String>,
    /// The move played at each position, in the game's notation (empty in
    /// records written before moves were recorded): what tells a level's
    /// moves from another's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<String>,
    /// Whether the levels that play their best kept every proof recorded:
    /// they played as the app plays them (the book's move where it proves
    /// a win, the solver asked before the search is trusted) and each
    /// proof was the book's or one the solver finds, as the bar reads it
    /// ([`super::players::Reading::kept`]). Absent in records written
    /// before the levels played so: they trusted their search alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub proofs_kept: bool,
    /// The game's number in the run that played it: with the run's seed
    /// it fixed the opening and the moves' seeds, and it is what a resumed
    /// run knows its finished games by. Absent in records written before
    /// runs resumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    /// Where the side to move could win at once, the share of its legal
    /// moves that win, at each position: not stored, found by replaying
    /// the moves ([`super::moves::replay`]; empty until then).
    #[serde(skip)]
    pub wins_now: Vec<Option<f64>>,
    /// The move played at each position as the network saw it: not
    /// stored, found by replaying the moves ([`super::moves::replay`];
    /// empty until then).
    #[serde(skip)]
    pub seen: Vec<Option<super::moves::Seen>>,
    /// The rules parameters of the game, if not the default ones (the
    /// records file's header holds them, not each game).
    #[serde(skip)]
    pub rules: Option<String>,
}

impl Played {
    /// The population the game belongs to: "self-play" (one level against
    /// itself) or "mixed levels", then its rules parameters if they are not
    /// the default ones ("self-play, size=10").
    pub fn population(&self) -> String {
        let pairing = match self.levels {
            Some([a, b]) if a != b => "mixed levels",
            _ => "self-play",
        };
        match &self.rules {
            Some(rules) => format!("{pairing}, {rules}"),
            None => pairing.to_string(),
        }
    }
}

/// The fitting games and the held-out games with every repeated game
/// dropped (its first copy kept, the order kept; a held-out game that is
/// a copy of a fitting game dropped from the held-out ones), and how many
/// were dropped. Two records are the same game when they agree position
/// by position: the bar's and the network's values, the sides to move,
/// the result and the levels (the bar's search is deterministic, so the
/// same moves give the same values; level-10 self-play has no noise, and
/// two games from one opening are one game). The held-out measure and its
/// bootstrap then count each game once, and never a fitting one.
pub fn distinct_games(
    fit: Vec<Played>,
    held_out: Vec<Played>,
) -> (Vec<Played>, Vec<Played>, usize) {
    let mut seen = std::collections::HashSet::new();
    let before = fit.len() + held_out.len();
    let mut keep = |games: Vec<Played>| -> Vec<Played> {
        games
            .into_iter()
            .filter(|game| seen.insert(identity(game)))
            .collect()
    };
    let fit = keep(fit);
    let held_out = keep(held_out);
    let dropped = before - fit.len() - held_out.len();
    (fit, held_out, dropped)
}

/// What tells one recorded game from another (see [`distinct_games`]):
/// its moves and levels where they were recorded, else its values.
fn identity(game: &Played) -> Vec<u32> {
    if !game.moves.is_empty() {
        let mut key: Vec<u32> = game.levels.unwrap_or([0, 0]).to_vec();
        for text in game
            .opening
            .iter()
            .chain([&String::new()])
            .chain(&game.moves)
        {
            key.extend(text.chars().map(u32::from));
            key.push(u32::MAX);
        }
        return key;
    }
    let bits = |triples: &[[f32; 3]]| {
        triples
            .iter()
            .flat_map(|t| t.map(f32::to_bits))
            .collect::<Vec<u32>>()
    };
    let mut key = bits(&game.predictions);
    key.extend(bits(&game.network));
    key.extend(game.sides.iter().map(|&s| u32::from(s)));
    key.push(game.result as u32);
    key.extend(game.levels.unwrap_or([0, 0]));
    key
}

/// The first line of a records file: how its games were played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordsHeader {
    /// [`RECORDS_FORMAT`].
    pub format: String,
    /// The game's name.
    pub game: String,
    /// The game's rules parameters, if not the default ones.
    pub layout: Option<String>,
    /// The model that played.
    pub model: String,
    /// The level of the games (the highest level, with mixed levels).
    pub level: u32,
    /// How the levels were paired: "self-play" or "mixed" (absent:
    /// self-play).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairing: Option<String>,
    /// Simulations of that level.
    pub advice_simulations: u32,
    /// Simulations of the bar recorded.
    pub bar_simulations: u32,
    /// Random plies of each opening are drawn up to this (from 1 in
    /// records without `pairing`, from 0 in the others).
    pub opening_plies: u32,
    /// Seed of the openings.
    pub seed: u64,
}

/// The format line of records files.
pub const RECORDS_FORMAT: &str = "grandmaitre calibration games 1";

/// The header and games of the records file `path`: games of `game`, with
/// `bar_simulations` in the bar, every record consistent.
pub fn read_records(
    path: &Path,
    game: &str,
    bar_simulations: u32,
) -> Result<(RecordsHeader, Vec<Played>), String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    parse_records(&text, path, game, bar_simulations)
}

/// [`read_records`] on the text of the file `path`.
pub fn parse_records(
    text: &str,
    path: &Path,
    game: &str,
    bar_simulations: u32,
) -> Result<(RecordsHeader, Vec<Played>), String> {
    let mut lines = text.lines().enumerate();
    let header: RecordsHeader = match lines.next() {
        Some((_, line)) => serde_json::from_str(line)
            .ok()
            .filter(|h: &RecordsHeader| h.format == RECORDS_FORMAT)
            .ok_or_else(|| format!("{}: not a calibrate --games-out file", path.display()))?,
        None => return Err(format!("{}: empty file", path.display())),
    };
    if header.game != game {
        return Err(format!(
            "{}: the games are {} games, not {game} ones",
            path.display(),
            OneLine(&header.game)
        ));
    }
    if header.bar_simulations != bar_simulations {
        return Err(format!(
            "{}: the bar had {} simulations there, {bar_simulations} now",
            path.display(),
            header.bar_simulations
        ));
    }
    let mut games = Vec::new();
    for (number, line) in lines {
        let mut played: Played = serde_json::from_str(line)
            .map_err(|e| format!("{}:{}: bad game record: {e}", path.display(), number + 1))?;
        played.rules.clone_from(&header.layout);
        if !consistent(&played) {
            return Err(format!(
                "{}:{}: inconsistent game record",
                path.display(),
                number + 1
            ));
        }
        games.push(played);
    }
    if games.len() < 4 {
        return Err(format!(
            "{}: {} games, at least 4 needed",
            path.display(),
            games.len()
        ));
    }
    Ok((header, games))
}

/// Whether the record `played` holds together: a value of each kind at
/// every position (the proofs and moves, where recorded), each a
/// probability, the sides and the results known ones.
pub fn consistent(played: &Played) -> bool {
    let positions = played.predictions.len();
    played.network.len() == positions
        && played.sides.len() == positions
        && played.result <= 2
        && played.sides.iter().all(|&s| s <= 1)
        && (played.proofs.is_empty() || played.proofs.len() == positions)
        && (played.moves.is_empty() || played.moves.len() == positions)
        && played.proofs.iter().flatten().all(|&p| p <= 2)
        && played
            .predictions
            .iter()
            .chain(&played.network)
            .flatten()
            .all(|p| (0.0..=1.0).contains(p))
}

/// The text of a records file: the header, then a game per line.
pub fn records_text(header: &RecordsHeader, games: &[Played]) -> String {
    let mut text = serde_json::to_string(header).expect("a header serialises");
    for game in games {
        text.push('\n');
        text.push_str(&serde_json::to_string(game).expect("a record serialises"));
    }
    text.push('\n');
    text
}

/// The games of pooled records files: the first file's header, and each
/// file's seed and games.
pub type Pooled = (RecordsHeader, Vec<(u64, Vec<Played>)>);

/// The games of several records files, which must have been played alike
/// (the same game, model, bar and openings; the levels and the rules
/// parameters may differ, as one model plays several boards: the
/// populations are told apart game by game) with a different seed or
/// rules each: the first file's header, and each file's seed and games.
pub fn pool_records<P: AsRef<Path>>(
    files: &[P],
    game: &str,
    bar_simulations: u32,
) -> Result<Pooled, String> {
    let first_path = files.first().ok_or("no records file")?.as_ref();
    let (first, played) = read_records(first_path, game, bar_simulations)?;
    // Each file's seed and rules: a seed repeats only under other rules.
    let mut keys = vec![(first.seed, first.layout.clone())];
    let mut pooled = vec![(first.seed, played)];
    for file in &files[1..] {
        let file = file.as_ref();
        let (header, games) = read_records(file, game, bar_simulations)?;
        let seed = header.seed;
        let key = (seed, header.layout.clone());
        let alike = RecordsHeader {
            seed: first.seed,
            layout: first.layout.clone(),
            level: first.level,
            pairing: first.pairing.clone(),
            advice_simulations: first.advice_simulations,
            ..header
        };
        if alike != first {
            return Err(format!(
                "{} was not played like {} (model or openings differ)",
                file.display(),
                first_path.display()
            ));
        }
        if keys.contains(&key) {
            return Err(format!(
                "{} repeats seed {seed}: its games are already pooled",
                file.display()
            ));
        }
        keys.push(key);
        pooled.push((seed, games));
    }
    Ok((first, pooled))
}

#[cfg(test)]
#[path = "records_tests.rs"]
mod tests;
