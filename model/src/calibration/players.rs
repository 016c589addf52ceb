//! The bar for who plays: P(outcome | position, seats).
//!
//! One position is converted differently by different players: level 10
//! turns a small edge into a win, level 1 throws a won position away.
//! The model reads the bar's search (its log-odds of the two wins and its
//! log-probability of a draw, or what proves the result) together with
//! what the pairing implies, through the levels' ratings on this game:
//! the difference of the two ratings, their mean (strong pairs convert,
//! gentle ones blunder), the side to move. It is a multinomial logistic
//! regression on [`FEATURES`], fitted on engine games over many pairings
//! by maximum likelihood; the ratings are fitted on the same games'
//! results (Bradley–Terry, draws half a win), so that a pairing never
//! played still has its reading, and a new game needs nothing but its
//! calibration games.
//!
//! A human of unknown strength is the mixture of the levels of
//! [`HUMAN_LEVELS`](grandmaitre_engine::seats::HUMAN_LEVELS) under a belief: uniform before they have moved, then
//! updated by each of their moves through how each level moves
//! ([`super::moves`]). Two facts are not fitted but known: a level that
//! plays its best converts a proven win it keeps ([`Reading::kept`]) every
//! time, and a level takes a win in one unless a random move comes instead
//! ([`Reading::wins_now`]).

use grandmaitre_engine::levels::Level;
use grandmaitre_engine::seats::{Seat, Seats};
use grandmaitre_engine::{ForPlayers, Forcing, Hints, Outcome, Player};
use serde::{Deserialize, Serialize};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use super::measure::{BINS, BOOTSTRAP_SAMPLES, Metrics, interval};
use super::moves::{Belief, MoveModel, Seen};
use super::records::Played;
use super::{sigmoid, solve};

/// The version of [`features`]: a stored model of another version is
/// refused rather than misread.
pub const FEATURES_VERSION: u32 = 2;

/// The names of the features, in the order of [`features`] and of each
/// row of [`PlayersModel::weights`]. `log_odds` is ln P(first wins) −
/// ln P(second wins) of the bar's search, `log_draw` ln P(draw);
/// `difference` and `mean` are the two players' ratings' difference (first
/// less second) and mean, in units of 400 Elo, level 10 at 0; `side` is
/// +1 where the first player is to move, −1 where the second is; `time`
/// is the ply over the fitting games' mean length; `random_of_mover` is
/// `side` times the random-move rate of the side to move's level; the
/// `proof_*` features stand in for the search's reading where the result
/// is proven, with the proven winner's rating; `log_odds_at_N` and
/// `log_draw_at_N` are the search's log-odds and log P(draw) times the
/// number of players of level N (0, 1 or 2): how sharply each level
/// converts an edge, or holds a draw, added over the two players.
pub const FEATURES: [&str; 37] = [
    "one",
    "side",
    "log_odds",
    "log_draw",
    "log_odds_x_mean_squared",
    "difference",
    "mean",
    "difference_x_side",
    "time",
    "difference_x_time",
    "log_odds_x_time",
    "random_of_mover",
    "proof_first",
    "proof_first_x_rating",
    "proof_second",
    "proof_second_x_rating",
    "proof_draw",
    "log_odds_at_1",
    "log_odds_at_2",
    "log_odds_at_3",
    "log_odds_at_4",
    "log_odds_at_5",
    "log_odds_at_6",
    "log_odds_at_7",
    "log_odds_at_8",
    "log_odds_at_9",
    "log_odds_at_10",
    "log_draw_at_1",
    "log_draw_at_2",
    "log_draw_at_3",
    "log_draw_at_4",
    "log_draw_at_5",
    "log_draw_at_6",
    "log_draw_at_7",
    "log_draw_at_8",
    "log_draw_at_9",
    "log_draw_at_10",
];

/// Features of one position.
pub type Features = [f64; FEATURES.len()];

/// Log-probabilities are floored here before the log-odds are taken: the
/// bar's search is never this sure without a proof.
const LOG_FLOOR: f64 = 1e-4;

/// Ratings enter in units of this many Elo points.
const RATING_UNIT: f64 = 400.0;

/// The bar's reading of one position, before it knows who plays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reading {
    /// The bar's search (uncalibrated): P(first wins), P(draw), P(second
    /// wins).
    pub wdl: ForPlayers<f64>,
    /// The result, where the book or the search proves it (0 the first
    /// player wins, 1 draw, 2 the second wins).
    pub proof: Option<usize>,
    /// Who is to move.
    pub to_move: Player,
    /// Plies played since the start.
    pub ply: u32,
    /// Whether a level that plays its best keeps this proof: the solution
    /// book's (it plays the book's moves), or any in a game where such a
    /// level asks the solver before it trusts its search (the guard finds
    /// what the bar's small search proved). Such a level converts the win
    /// every time.
    pub kept: bool,
    /// Where the side to move can win at once: the share of its legal
    /// moves that win. Every level plays a win in one unless a random move
    /// comes instead (and a random move may be one of them), so the level
    /// converts at once with probability (1 − r) + r · share, r its
    /// random-move rate; what follows a miss is the model's.
    pub wins_now: Option<f64>,
}

/// What the model knows of one side's player: its rating (Elo, level 10
/// at 0) and its rate of random moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rated {
    /// The level, 1 to 10.
    pub level: u32,
    /// Elo on this game, level 10 at 0.
    pub rating: f64,
    /// Probability of a uniformly random move instead of its own.
    pub random: f64,
}

/// The features of `reading` with the first and second players `sides`,
/// the ply scaled by `ply_scale`.
pub fn features(reading: &Reading, sides: [Rated; 2], ply_scale: f64) -> Features {
    let [r1, r2] = sides.map(|s| s.rating / RATING_UNIT);
    let difference = r1 - r2;
    let mean = (r1 + r2) / 2.0;
    let (side, mover) = match reading.to_move {
        Player::First => (1.0, sides[0]),
        Player::Second => (-1.0, sides[1]),
    };
    let time = f64::from(reading.ply) / ply_scale.max(1.0);
    let (log_odds, log_draw, proofs) = match reading.proof {
        // A proof says what the search would only estimate: the proven
        // winner's strength tells how often it is converted.
        Some(0) => (0.0, 0.0, [1.0, r1, 0.0, 0.0, 0.0]),
        Some(2) => (0.0, 0.0, [0.0, 0.0, 1.0, r2, 0.0]),
        Some(_) => (0.0, 0.0, [0.0, 0.0, 0.0, 0.0, 1.0]),
        None => {
            let [w, d, l] = reading.wdl.0.map(|p| p.max(LOG_FLOOR).ln());
            (w - l, d, [0.0; 5])
        }
    };
    let at = |level: u32| {
        f64::from(u8::from(sides[0].level == level) + u8::from(sides[1].level == level))
    };
    let mut x = [0.0; FEATURES.len()];
    let named = [
        1.0,
        side,
        log_odds,
        log_draw,
        log_odds * mean * mean,
        difference,
        mean,
        difference * side,
        time,
        difference * time,
        log_odds * time,
        side * mover.random,
        proofs[0],
        proofs[1],
        proofs[2],
        proofs[3],
        proofs[4],
    ];
    x[..named.len()].copy_from_slice(&named);
    for level in 1..=10u32 {
        let k = named.len() + (level - 1) as usize;
        x[k] = log_odds * at(level);
        x[k + 10] = log_draw * at(level);
    }
    x
}

/// A fitted bar for who plays, stored with the checkpoint's calibration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayersModel {
    /// [`FEATURES_VERSION`] of the weights.
    pub features_version: u32,
    /// Elo of levels 1 to 10 on this game, level 10 at 0, fitted on the
    /// calibration games' results.
    pub ratings: [f64; 10],
    /// The mean length of the fitting games, in plies (the scale of the
    /// `time` feature).
    pub ply_scale: f64,
    /// Weights of the draw's logit, then of the second player's win, on
    /// [`FEATURES`] (the first player's win is the reference, logit 0).
    pub weights: [Vec<f64>; 2],
    /// The ordered pairs of levels (first player's, second's) whose games
    /// fitted it.
    pub pairings: Vec<[u32; 2]>,
    /// Games that fitted it.
    pub games: u32,
    /// How each level chooses its moves, which turns a person's moves into
    /// a belief over the levels they play like (absent in models fitted
    /// on games whose moves were not recorded: a person is then every
    /// level alike).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves: Option<MoveModel>,
    /// Where present, the second player's win's logit is the bar's
    /// search's own log-odds ([`search_logits`]) plus the weights', and
    /// this is the ridge those weights were fitted under, towards the
    /// search's reading, chosen by cross-validation over whole games
    /// ([`RIDGES`]): a term the games cannot pin down splits the decisive
    /// results as the search does. Absent (models fitted before), the
    /// logits are the weights' alone. A ridge of 0 is the same model as
    /// none, the weights of `log_odds` shifted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_ridge: Option<f64>,
}

impl PlayersModel {
    /// Why the model cannot be used, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        if self.features_version != FEATURES_VERSION {
            return Err(format!(
                "the players' bar has features version {}, this program reads {FEATURES_VERSION}",
                self.features_version
            ));
        }
        if self.weights.iter().any(|w| w.len() != FEATURES.len())
            || self
                .weights
                .iter()
                .flatten()
                .chain(&self.ratings)
                .chain([&self.ply_scale])
                .chain(self.search_ridge.as_ref())
                .any(|w| !w.is_finite())
        {
            return Err("the players' bar has malformed weights or ratings".to_string());
        }
        self.moves.as_ref().map_or(Ok(()), MoveModel::check)
    }

    /// The rating of `level` (1–10).
    pub fn rating(&self, level: u32) -> f64 {
        self.ratings[(level.clamp(1, 10) - 1) as usize]
    }

    /// What the model knows of `level`'s player.
    pub fn rated(&self, level: u32) -> Rated {
        Rated {
            level: level.clamp(1, 10),
            rating: self.rating(level),
            random: Level::get(level).map_or(0.0, |l| l.noise),
        }
    }

    /// P(first wins), P(draw), P(second wins) at `reading` for the levels
    /// `levels` (first player's, second's).
    pub fn at_levels(&self, reading: &Reading, levels: [u32; 2]) -> [f64; 3] {
        if let Some(certain) = certain(reading, levels) {
            return certain;
        }
        let fitted = self.fitted(reading, levels);
        match reading.wins_now {
            Some(share) => {
                let mover = reading.to_move.index();
                let random = self.rated(levels[mover]).random;
                let now = (1.0 - random) + random * share;
                std::array::from_fn(|k| {
                    let won = f64::from(u8::from(k == 2 * mover));
                    now * won + (1.0 - now) * fitted[k]
                })
            }
            None => fitted,
        }
    }

    /// The fitted part of [`Self::at_levels`]: the logistic model.
    fn fitted(&self, reading: &Reading, levels: [u32; 2]) -> [f64; 3] {
        let x = features(reading, levels.map(|l| self.rated(l)), self.ply_scale);
        let offsets = match self.search_ridge {
            Some(_) => search_logits(reading),
            None => [0.0; 2],
        };
        let logits = [0, 1].map(|k| offsets[k] + dot(&self.weights[k], &x));
        softmax([0.0, logits[0], logits[1]])
    }

    /// The bar at `reading` for `seats`: each level seat by its rating, a
    /// human as the mean over [`HUMAN_LEVELS`](grandmaitre_engine::seats::HUMAN_LEVELS) (the prior, before any of
    /// their moves).
    pub fn apply(&self, reading: &Reading, seats: &Seats) -> ForPlayers<f64> {
        self.apply_believed(reading, seats, &[None, None])
    }

    /// The bar at `reading` for `seats`, a human seat read through its
    /// belief in `beliefs` (the first player's, the second's; `None`: the
    /// prior): the mixture of the levels' bars under the beliefs.
    pub fn apply_believed(
        &self,
        reading: &Reading,
        seats: &Seats,
        beliefs: &[Option<Belief>; 2],
    ) -> ForPlayers<f64> {
        let weights = |side: usize| -> Vec<(u32, f64)> {
            match seats.0[side] {
                Seat::Level(level) => vec![(level, 1.0)],
                Seat::Human => beliefs[side].clone().unwrap_or_else(Belief::uniform).levels,
            }
        };
        let (first, second) = (weights(0), weights(1));
        let mut sum = [0.0; 3];
        for &(a, wa) in &first {
            for &(b, wb) in &second {
                let p = self.at_levels(reading, [a, b]);
                for (s, q) in sum.iter_mut().zip(p) {
                    *s += wa * wb * q;
                }
            }
        }
        ForPlayers(sum)
    }

    /// The belief over the levels a person plays like after their moves
    /// `seen`, where the model knows how the levels move.
    pub fn belief<'a>(&self, seen: impl IntoIterator<Item = &'a Seen>) -> Option<Belief> {
        self.moves.as_ref().map(|moves| moves.belief(seen))
    }
}

/// The share of the legal moves of `state` that win at once for the side
/// to move, where any does ([`Reading::wins_now`]): the winning moves the
/// game's rules force where it lists them ([`Hints::forcing_moves`]), else
/// found by playing every move.
pub fn wins_now<G: Hints>(game: &G, state: &G::State) -> Option<f64> {
    let mut legal = Vec::new();
    game.legal_actions(state, &mut legal);
    let mut forced = Vec::new();
    let winning = match game.forcing_moves(state, &mut forced) {
        Forcing::Wins => forced.len(),
        Forcing::Blocks => 0,
        Forcing::Free => {
            let mover = game.current_player(state);
            legal
                .iter()
                .filter(|&&action| {
                    let mut next = state.clone();
                    game.apply_unchecked(&mut next, action);
                    game.outcome_for(&next, mover) == Some(Outcome::Win)
                })
                .count()
        }
    };
    (winning > 0).then(|| winning as f64 / legal.len() as f64)
}

/// The result where it is known rather than fitted: a proven win kept by
/// a winner that plays its best.
fn certain(reading: &Reading, levels: [u32; 2]) -> Option<[f64; 3]> {
    match (reading.kept, reading.proof) {
        (true, Some(winner @ (0 | 2)))
            if Level::get(levels[winner / 2]).is_ok_and(|l| l.plays_its_best()) =>
        {
            Some(std::array::from_fn(|k| f64::from(u8::from(k == winner))))
        }
        _ => None,
    }
}

/// The offsets of the draw's logit and of the second player's win's
/// ([`PlayersModel::search_ridge`]): none for the draw, and the bar's
/// search's own log-odds of the second player's win over the first's,
/// ln P(second wins) − ln P(first wins) (each floored at [`LOG_FLOOR`]:
/// minus the `log_odds` feature), for the second player's win; none where
/// the result is proven (the `proof_*` features read it). Weights of 0
/// then split the decisive results as the search does, and the draw's
/// logit is the weights' alone, as in a model without offsets: the draw
/// has no logit of the search that the features could correct.
pub fn search_logits(reading: &Reading) -> [f64; 2] {
    if reading.proof.is_some() {
        return [0.0; 2];
    }
    let [w, _, l] = reading.wdl.0.map(|p| p.max(LOG_FLOOR).ln());
    [0.0, l - w]
}

fn dot(w: &[f64], x: &[f64]) -> f64 {
    w.iter().zip(x).map(|(a, b)| a * b).sum()
}

fn softmax(z: [f64; 3]) -> [f64; 3] {
    let top = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e = z.map(|v| (v - top).exp());
    let sum: f64 = e.iter().sum();
    e.map(|v| v / sum)
}

/// The readings of a recorded game, position by position.
pub fn readings(game: &Played) -> impl Iterator<Item = Reading> + '_ {
    game.predictions
        .iter()
        .zip(&game.sides)
        .enumerate()
        .map(|(index, (p, &side))| Reading {
            wdl: ForPlayers(p.map(f64::from)),
            proof: game.proofs.get(index).copied().flatten().map(usize::from),
            to_move: if side == 0 {
                Player::First
            } else {
                Player::Second
            },
            ply: game.first_ply.unwrap_or(0) + index as u32,
            kept: game.proofs_kept,
            wins_now: game.wins_now.get(index).copied().flatten(),
        })
}

/// Ridge of the weights (per position, towards 0) always applied: it keeps
/// separable corners finite.
const RIDGE: f64 = 1e-4;

/// The ridges towards the search's reading that cross-validation chooses
/// among: −λ/2 · Σ mᵢ wᵢ² added to the log-likelihood of the fitting
/// positions, over the second player's win's weights of the terms that
/// read the search or the position ([`towards_search`]), mᵢ the mean square
/// of feature i over the fitting positions.
pub const RIDGES: [f64; 8] = [
    0.0,
    10.0,
    100.0,
    1_000.0,
    3_000.0,
    10_000.0,
    100_000.0,
    1_000_000.0,
];

/// Folds of the cross-validation; each fitting game goes to one, so that
/// a game's positions are never split.
pub const FOLDS: usize = 5;

/// The fold of the `index`th fitting game: a hash of the index, not the
/// index in turn, since the games of a file cycle through the pairings
/// and a fold dealt in turn would hold whole pairings out.
fn fold_of(index: usize) -> usize {
    // SplitMix64's finaliser.
    let mut z = (index as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) % FOLDS as u64) as usize
}

/// How the ridge towards the search was chosen: the log-loss per position
/// of each of [`RIDGES`] on the folds held out in turn.
#[derive(Clone, Debug, PartialEq)]
pub struct RidgeChoice {
    /// Each ridge, with its cross-validated log-loss per position.
    pub log_losses: Vec<(f64, f64)>,
    /// The ridge of the least log-loss, which the model was fitted under.
    pub chosen: f64,
}

/// Fits the model on `games`, every one with its levels: the ratings,
/// then the weights, the second player's win's as offsets from the
/// search's log-odds, under the ridge of `ridges` (in increasing order;
/// `calibrate` tries [`RIDGES`]) that predicts held-out games best.
pub fn fit(games: &[&Played], ridges: &[f64]) -> Result<(PlayersModel, RidgeChoice), String> {
    let games: Vec<&Played> = games
        .iter()
        .copied()
        .filter(|g| g.levels.is_some())
        .collect();
    if games.len() < 20 {
        return Err(format!(
            "{} games with their levels recorded: at least 20 are needed to fit the bar for who plays",
            games.len()
        ));
    }
    let lengths: f64 = games
        .iter()
        .map(|g| f64::from(g.first_ply.unwrap_or(0)) + g.predictions.len() as f64)
        .sum();
    let mut model = PlayersModel {
        features_version: FEATURES_VERSION,
        ratings: fit_ratings(&games),
        ply_scale: lengths / games.len() as f64,
        weights: [Vec::new(), Vec::new()],
        pairings: Vec::new(),
        games: games.len() as u32,
        moves: None,
        search_ridge: None,
    };
    let mut design = Design::default();
    for (index, game) in games.iter().enumerate() {
        let levels = game.levels.expect("filtered");
        let sides = levels.map(|l| model.rated(l));
        // Positions whose result is known, not fitted, teach the weights
        // nothing; nor do those where the mover can win at once (their
        // result is mostly the level's known conversion of it).
        for reading in
            readings(game).filter(|r| certain(r, levels).is_none() && r.wins_now.is_none())
        {
            design.push(
                features(&reading, sides, model.ply_scale),
                search_logits(&reading),
                game.result,
                fold_of(index),
            );
        }
    }
    let mut losses = vec![0.0; ridges.len()];
    for fold in 0..FOLDS {
        // Ridges in increasing order, each fit starting from the last.
        let mut w = [0.0; 2 * FEATURES.len()];
        for (loss, &ridge) in losses.iter_mut().zip(ridges) {
            w = fit_weights(&design, Some(fold), ridge, w);
            *loss += design.log_loss(&w, fold);
        }
    }
    let rows = design.outcomes.len().max(1) as f64;
    let log_losses: Vec<(f64, f64)> = ridges
        .iter()
        .zip(&losses)
        .map(|(&ridge, &loss)| (ridge, loss / rows))
        .collect();
    let chosen = log_losses
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(0.0, |&(ridge, _)| ridge);
    let w = fit_weights(&design, None, chosen, [0.0; 2 * FEATURES.len()]);
    let k = FEATURES.len();
    model.weights = [w[..k].to_vec(), w[k..].to_vec()];
    model.search_ridge = Some(chosen);
    model.pairings = games.iter().filter_map(|g| g.levels).collect();
    model.pairings.sort_unstable();
    model.pairings.dedup();
    Ok((model, RidgeChoice { log_losses, chosen }))
}

/// The fitting positions: features, the search's own logits, results and
/// folds, with each row's non-zero features (most are zero: a pairing has
/// two levels of ten).
#[derive(Default)]
struct Design {
    rows: Vec<Features>,
    nonzero: Vec<Vec<u8>>,
    offsets: Vec<[f64; 2]>,
    outcomes: Vec<usize>,
    folds: Vec<usize>,
}

impl Design {
    /// Each feature's mean square over the rows (1 where it is always 0):
    /// the ridge weighs each weight by it, so that it pulls every term by
    /// what the term moves the logit. A feature that is nearly constant
    /// and large (ln P(draw) where the search sees no draw, about −9.2)
    /// would otherwise stand in for the intercept almost unpenalised.
    fn mean_squares(&self) -> [f64; FEATURES.len()] {
        let mut sums = [0.0; FEATURES.len()];
        for row in &self.rows {
            for (sum, x) in sums.iter_mut().zip(row) {
                *sum += x * x;
            }
        }
        let n = self.rows.len().max(1) as f64;
        sums.map(|sum| if sum > 0.0 { sum / n } else { 1.0 })
    }

    fn push(&mut self, row: Features, offsets: [f64; 2], outcome: usize, fold: usize) {
        self.nonzero.push(
            (0..row.len() as u8)
                .filter(|&i| row[i as usize] != 0.0)
                .collect(),
        );
        self.rows.push(row);
        self.offsets.push(offsets);
        self.outcomes.push(outcome);
        self.folds.push(fold);
    }

    /// P(first wins), P(draw), P(second wins) of row `r` under `w`.
    fn probabilities(&self, w: &[f64; 2 * FEATURES.len()], r: usize) -> [f64; 3] {
        let (x, o) = (&self.rows[r], self.offsets[r]);
        let k = FEATURES.len();
        softmax([0.0, o[0] + dot(&w[..k], x), o[1] + dot(&w[k..], x)])
    }

    /// The summed log-loss of the rows of `fold` under `w`.
    fn log_loss(&self, w: &[f64; 2 * FEATURES.len()], fold: usize) -> f64 {
        (0..self.rows.len())
            .filter(|&r| self.folds[r] == fold)
            .map(|r| -self.probabilities(w, r)[self.outcomes[r]].max(1e-12).ln())
            .sum()
    }
}

/// The gradient and Hessian of the negative log-likelihood, summed over
/// rows.
struct Terms {
    gradient: [f64; 2 * FEATURES.len()],
    hessian: Box<[[f64; 2 * FEATURES.len()]; 2 * FEATURES.len()]>,
}

impl Terms {
    fn zero() -> Terms {
        Terms {
            gradient: [0.0; 2 * FEATURES.len()],
            hessian: Box::new([[0.0; 2 * FEATURES.len()]; 2 * FEATURES.len()]),
        }
    }

    /// Adds row `r`: the blocks (draw, draw), (second, second) and (draw,
    /// second) on and above their diagonals only ([`Terms::mirrored`]
    /// fills the rest).
    fn add(mut self, design: &Design, w: &[f64; 2 * FEATURES.len()], r: usize) -> Terms {
        const K: usize = FEATURES.len();
        let x = &design.rows[r];
        let q = design.probabilities(w, r);
        let y = design.outcomes[r];
        let (h00, h11, h01) = (q[1] * (1.0 - q[1]), q[2] * (1.0 - q[2]), -q[1] * q[2]);
        let nonzero = &design.nonzero[r];
        for c in 0..2 {
            let error = q[c + 1] - f64::from(u8::from(y == c + 1));
            for &i in nonzero {
                self.gradient[c * K + i as usize] += error * x[i as usize];
            }
        }
        for (a, &i) in nonzero.iter().enumerate() {
            let i = i as usize;
            for &j in &nonzero[a..] {
                let j = j as usize;
                let xx = x[i] * x[j];
                self.hessian[i][j] += h00 * xx;
                self.hessian[K + i][K + j] += h11 * xx;
                self.hessian[i][K + j] += h01 * xx;
            }
        }
        self
    }

    fn merge(mut self, other: Terms) -> Terms {
        for (a, b) in self.gradient.iter_mut().zip(&other.gradient) {
            *a += b;
        }
        for (row, other) in self.hessian.iter_mut().zip(other.hessian.iter()) {
            for (a, b) in row.iter_mut().zip(other) {
                *a += b;
            }
        }
        self
    }

    /// The whole Hessian from the upper triangles [`Terms::add`] filled:
    /// each block is symmetric, and the (second, draw) block is the
    /// (draw, second) one.
    fn mirrored(mut self) -> Terms {
        const K: usize = FEATURES.len();
        let h = &mut self.hessian;
        for i in 0..K {
            for j in 0..i {
                h[i][j] = h[j][i];
                h[K + i][K + j] = h[K + j][K + i];
                h[i][K + j] = h[j][K + i];
            }
        }
        for i in 0..K {
            for j in 0..K {
                h[K + i][j] = h[j][K + i];
            }
        }
        self
    }
}

/// Whether feature `k`'s weight is pulled towards the search's reading:
/// the terms that read the search or stand for the position alone; not
/// those of the pairing (the ratings, the random moves), which the
/// search knows nothing of, nor the proofs', which it has no reading of.
fn towards_search(k: usize) -> bool {
    !matches!(
        FEATURES[k],
        "difference"
            | "mean"
            | "difference_x_side"
            | "difference_x_time"
            | "random_of_mover"
            | "proof_first"
            | "proof_first_x_rating"
            | "proof_second"
            | "proof_second_x_rating"
            | "proof_draw"
    )
}

/// Multinomial logistic regression of the results on the rows by Newton's
/// method, the logits the search's own plus the weights' (the draw's, then
/// the second player's win's; the first player's win the reference), the
/// rows of `held_out`'s fold left out, under the light [`RIDGE`] and the
/// ridge `ridge` towards the search, from `start`. Each step is halved
/// until the penalised log-likelihood rises (the objective is convex, so
/// the method converges even where separable corners make the full step
/// overshoot).
fn fit_weights(
    design: &Design,
    held_out: Option<usize>,
    ridge: f64,
    start: [f64; 2 * FEATURES.len()],
) -> [f64; 2 * FEATURES.len()] {
    const K: usize = FEATURES.len();
    const N: usize = 2 * K;
    let used = |r: &usize| Some(design.folds[*r]) != held_out;
    let rows = (0..design.rows.len()).filter(used).count();
    let light = RIDGE * rows as f64;
    // The ridge pulls the second player's win's weights (the second
    // block) towards the search's log-odds; the draw's keep the light one.
    let scales = design.mean_squares();
    let penalties: [f64; N] = std::array::from_fn(|i| {
        if i >= K && towards_search(i - K) {
            light + ridge * scales[i - K]
        } else {
            light
        }
    });
    let penalty =
        |w: &[f64; N]| -> f64 { w.iter().zip(&penalties).map(|(v, p)| p * v * v / 2.0).sum() };
    let objective = |w: &[f64; N]| -> f64 {
        let loss: f64 = (0..design.rows.len())
            .into_par_iter()
            .with_min_len(1024)
            .filter(used)
            .map(|r| {
                -design.probabilities(w, r)[design.outcomes[r]]
                    .max(1e-300)
                    .ln()
            })
            .sum();
        loss + penalty(w)
    };
    let mut w = start;
    let mut value = objective(&w);
    for _ in 0..200 {
        let terms = (0..design.rows.len())
            .into_par_iter()
            .with_min_len(1024)
            .filter(used)
            .fold(Terms::zero, |terms, r| terms.add(design, &w, r))
            .reduce(Terms::zero, Terms::merge)
            .mirrored();
        let mut gradient = terms.gradient;
        let mut hessian = *terms.hessian;
        for i in 0..N {
            gradient[i] += penalties[i] * w[i];
            hessian[i][i] += penalties[i];
        }
        let Some(step) = solve(hessian, gradient) else {
            break;
        };
        let size = step.iter().map(|s| s.abs()).fold(0.0, f64::max);
        if size < 1e-9 {
            break;
        }
        // Backtracking from the full step (Armijo's rule).
        let slope: f64 = gradient.iter().zip(&step).map(|(g, s)| g * s).sum();
        let mut t = 1.0;
        let mut accepted = false;
        for _ in 0..40 {
            let next: [f64; N] = std::array::from_fn(|i| w[i] - t * step[i]);
            let next_value = objective(&next);
            if next_value <= value - 1e-4 * t * slope {
                w = next;
                value = next_value;
                accepted = true;
                break;
            }
            t /= 2.0;
        }
        if !accepted || t * size < 1e-9 {
            break;
        }
    }
    w
}

/// Elo of levels 1–10 (level 10 at 0) and of the first move, by maximum
/// likelihood of the games' scores (a draw half a win) under
/// P(first scores) = σ((Rₐ − R_b + advantage) · ln 10 / 400), with a weak
/// prior pulling each rating towards its neighbours' (a level no game
/// told apart stays between them).
pub fn fit_ratings(games: &[&Played]) -> [f64; 10] {
    // Parameters: ratings of levels 1–9 (level 10 fixed at 0), then the
    // first move's advantage, in units of 400 / ln 10.
    const N: usize = 10;
    let scale = RATING_UNIT / std::f64::consts::LN_10;
    let mut theta = [0.0f64; N];
    for (k, t) in theta.iter_mut().enumerate().take(9) {
        *t = -((9 - k) as f64) * 0.5;
    }
    let prior = 0.05;
    for _ in 0..100 {
        let mut gradient = [0.0; N];
        let mut hessian = [[0.0; N]; N];
        for game in games {
            let [a, b] = game.levels.expect("levels");
            let mut x = [0.0; N];
            if a != 10 {
                x[a as usize - 1] += 1.0;
            }
            if b != 10 {
                x[b as usize - 1] -= 1.0;
            }
            x[9] = 1.0;
            let score = match game.result {
                0 => 1.0,
                1 => 0.5,
                _ => 0.0,
            };
            let q = sigmoid(dot(&theta, &x));
            let w = q * (1.0 - q);
            for i in 0..N {
                gradient[i] += (q - score) * x[i];
                for j in 0..N {
                    hessian[i][j] += w * x[i] * x[j];
                }
            }
        }
        // Neighbours' pull (level 10 fixed at 0), and a ridge on the
        // advantage.
        for k in 0..9 {
            let above = if k == 8 { 0.0 } else { theta[k + 1] };
            gradient[k] += prior * (theta[k] - above);
            hessian[k][k] += prior;
            if k < 8 {
                gradient[k + 1] -= prior * (theta[k] - above);
                hessian[k + 1][k + 1] += prior;
                hessian[k][k + 1] -= prior;
                hessian[k + 1][k] -= prior;
            }
        }
        gradient[9] += prior * theta[9];
        hessian[9][9] += prior;
        let Some(step) = solve(hessian, gradient) else {
            break;
        };
        for (t, s) in theta.iter_mut().zip(&step) {
            *t -= s;
        }
        if step.iter().map(|s| s.abs()).sum::<f64>() < 1e-10 {
            break;
        }
    }
    let mut ratings = [0.0; 10];
    for k in 0..9 {
        ratings[k] = theta[k] * scale;
    }
    ratings
}

/// The seats a recorded game was played with (its levels; level 10 on
/// both sides where none were recorded).
pub fn played_seats(game: &Played) -> Seats {
    match game.levels {
        Some(levels) => Seats(levels.map(Seat::Level)),
        None => Seats::DEFAULT,
    }
}

/// What the bar is told of a recorded game's players: the seats, and at
/// each position the beliefs over the human seats' levels (empty: the
/// prior at every position).
pub type Told = (Seats, Vec<[Option<Belief>; 2]>);

/// Tells the bar of each recorded game who played it.
pub type TellsOf<'a> = &'a dyn Fn(&Played) -> Told;

/// The model's bar at every position of `games`, each game told what
/// `told` says, with its result.
pub fn predictions(
    model: &PlayersModel,
    games: &[&Played],
    told: TellsOf<'_>,
) -> (Vec<[f64; 3]>, Vec<usize>) {
    let mut predictions = Vec::new();
    let mut outcomes = Vec::new();
    let prior = [None, None];
    for game in games {
        let (seats, beliefs) = told(game);
        for (index, reading) in readings(game).enumerate() {
            let beliefs = beliefs.get(index).unwrap_or(&prior);
            predictions.push(model.apply_believed(&reading, &seats, beliefs).0);
            outcomes.push(game.result);
        }
    }
    (predictions, outcomes)
}

/// The metrics of the model on `games` told `seats`, the 95 % interval of
/// each of [`Metrics::values`] from a bootstrap over whole games, and the
/// worst-outcome calibration error a calibrated bar would show by chance
/// on these games ([`super::ece_noise_floor`]).
pub fn measure(
    model: &PlayersModel,
    games: &[&Played],
    told: TellsOf<'_>,
    seed: u64,
) -> (Metrics, [[f64; 2]; 6], f64) {
    // Each game's predictions once; the bootstrap resamples games.
    let per_game: Vec<(Vec<[f64; 3]>, Vec<usize>)> = games
        .iter()
        .map(|game| predictions(model, &[game], told))
        .collect();
    let pooled = |chosen: &mut dyn Iterator<Item = usize>| {
        let mut p = Vec::new();
        let mut o = Vec::new();
        for index in chosen {
            p.extend_from_slice(&per_game[index].0);
            o.extend_from_slice(&per_game[index].1);
        }
        Metrics::of(&p, &o)
    };
    let metrics = pooled(&mut (0..games.len()));
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x5EA7);
    let samples: Vec<[f64; 6]> = (0..BOOTSTRAP_SAMPLES)
        .map(|_| {
            let n = games.len();
            pooled(&mut (0..n).map(|_| rng.random_range(0..n))).values()
        })
        .collect();
    let intervals =
        std::array::from_fn(|metric| interval(samples.iter().map(|s| s[metric]).collect()));
    let shown: Vec<&[[f64; 3]]> = per_game.iter().map(|(p, _)| p.as_slice()).collect();
    let floor = (0..3)
        .map(|class| super::ece_noise_floor(&shown, class, BINS))
        .fold(0.0, f64::max);
    (metrics, intervals, floor)
}

#[cfg(test)]
#[path = "players_tests.rs"]
mod tests;
