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

#[path = "players_fit.rs"]
mod fit;
pub use fit::{FOLDS, RIDGES, RidgeChoice, fit};

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
