//! Fitting the bar for who plays: the weights by Newton's method under a
//! ridge towards the search's log-odds chosen by cross-validation over
//! whole games.

use rayon::prelude::*;

use super::*;

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
    design.mean_squares = design.mean_squares_of().to_vec();
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
    /// Each feature's mean square ([`Design::mean_squares_of`]), once all
    /// rows are in.
    mean_squares: Vec<f64>,
}

impl Design {
    /// Each feature's mean square over the rows (1 where it is always 0):
    /// the ridge weighs each weight by it, so that it pulls every term by
    /// what the term moves the logit. A feature that is nearly constant
    /// and large (ln P(draw) where the search sees no draw, about −9.2)
    /// would otherwise stand in for the intercept almost unpenalised.
    fn mean_squares_of(&self) -> [f64; FEATURES.len()] {
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
    let scales = &design.mean_squares;
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
