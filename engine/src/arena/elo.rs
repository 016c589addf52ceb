//! Elo differences with confidence intervals, and the sequential probability
//! ratio test, from a match's wins, draws and losses.

/// The score (wins + draws / 2) / games, in [0, 1].
pub fn score(wins: u32, draws: u32, losses: u32) -> f64 {
    let games = f64::from(wins + draws + losses);
    if games == 0.0 {
        return 0.5;
    }
    (f64::from(wins) + 0.5 * f64::from(draws)) / games
}

/// The Elo difference that gives an expected score of `score`:
/// −400 · log₁₀(1/score − 1), infinite at 0 and 1.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if score >= 1.0 {
        return f64::INFINITY;
    }
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The expected score of a player `elo` points stronger.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Variance of one game's score (1, ½ or 0) around the mean.
fn score_variance(wins: u32, draws: u32, losses: u32) -> f64 {
    let games = f64::from(wins + draws + losses);
    if games == 0.0 {
        return 0.0;
    }
    let mean = score(wins, draws, losses);
    (f64::from(wins) * (1.0 - mean).powi(2)
        + f64::from(draws) * (0.5 - mean).powi(2)
        + f64::from(losses) * mean.powi(2))
        / games
}

/// An Elo difference with its 95 % confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The point estimate.
    pub elo: f64,
    /// Lower end of the 95 % interval.
    pub low: f64,
    /// Upper end of the 95 % interval.
    pub high: f64,
}

/// The Elo difference of a match, with a 95 % interval on the mean score
/// mapped through the Elo curve. The interval is Wilson's score interval
/// with the per-game variance observed (wins, draws and losses), so that a
/// clean sweep still has a finite lower end.
pub fn elo_estimate(wins: u32, draws: u32, losses: u32) -> EloEstimate {
    let games = f64::from(wins + draws + losses);
    let mean = score(wins, draws, losses);
    if games == 0.0 {
        return EloEstimate {
            elo: 0.0,
            low: f64::NEG_INFINITY,
            high: f64::INFINITY,
        };
    }
    let z = 1.959_964f64;
    let z2n = z * z / games;
    let centre = (mean + z2n / 2.0) / (1.0 + z2n);
    let half = z / (1.0 + z2n)
        * (score_variance(wins, draws, losses) / games + z2n / (4.0 * games)).sqrt();
    // A bound within rounding of 0 or 1 is the infinite Elo it stands for.
    let bound = |score: f64| elo_from_score(((score * 1e9).round() / 1e9).clamp(0.0, 1.0));
    EloEstimate {
        elo: elo_from_score(mean),
        low: bound(centre - half),
        high: bound(centre + half),
    }
}

/// A sequential probability ratio test of H0: Elo = elo0 against
/// H1: Elo = elo1 (logistic Elo), with error rates α = β = 0.05.
///
/// The ratio is the generalised one of chess testing frameworks (Michel Van
/// den Bergh's GSPRT, as fishtest computes it): the log-likelihood of the
/// observed frequencies under the most likely distribution whose mean score
/// is s₁, less the same under s₀. Outcomes never observed get a count of
/// 10⁻³, so that the ratio is defined for a clean sweep, where a test on the
/// observed variance alone has none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo under the null hypothesis.
    pub elo0: f64,
    /// Elo under the alternative.
    pub elo1: f64,
}

/// Where an SPRT stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// The log-likelihood ratio crossed the upper bound: H1 (elo1) holds.
    AcceptH1,
    /// It crossed the lower bound: H0 (elo0) holds.
    AcceptH0,
    /// More games are needed.
    Continue,
}

/// Count given to an outcome never observed (fishtest's regularisation).
const UNSEEN_COUNT: f64 = 1e-3;

impl Sprt {
    /// Lower and upper bounds of the log-likelihood ratio: ln(β / (1 − α))
    /// and ln((1 − β) / α).
    pub fn bounds(&self) -> (f64, f64) {
        let (alpha, beta) = (0.05f64, 0.05f64);
        ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
    }

    /// The log-likelihood ratio of single games: `losses`, `draws`, `wins`
    /// (scores 0, ½, 1).
    pub fn trinomial_llr(&self, wins: u32, draws: u32, losses: u32) -> f64 {
        self.llr(&[losses, draws, wins])
    }

    /// The log-likelihood ratio of game pairs, each pair one opening played
    /// with both colours: `pairs[k]` counts the pairs that scored k half
    /// points (0: two losses, 4: two wins). Pairs take out the opening's
    /// share of the variance, which single games count as noise.
    pub fn pentanomial_llr(&self, pairs: &[u32; 5]) -> f64 {
        self.llr(pairs)
    }

    /// The generalised log-likelihood ratio of `counts`, outcome i scoring
    /// i / (len − 1).
    fn llr(&self, counts: &[u32]) -> f64 {
        if counts.iter().all(|&count| count == 0) {
            return 0.0;
        }
        let regularised: Vec<f64> = counts
            .iter()
            .map(|&count| {
                if count == 0 {
                    UNSEEN_COUNT
                } else {
                    f64::from(count)
                }
            })
            .collect();
        let total: f64 = regularised.iter().sum();
        let last = (counts.len() - 1) as f64;
        let outcomes: Vec<(f64, f64)> = regularised
            .iter()
            .enumerate()
            .map(|(index, count)| (index as f64 / last, count / total))
            .collect();
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        let (under0, under1) = (
            most_likely_with_mean(&outcomes, s0),
            most_likely_with_mean(&outcomes, s1),
        );
        total
            * outcomes
                .iter()
                .zip(under0.iter().zip(&under1))
                .map(|(&(_, p), (&p0, &p1))| p * (p1.ln() - p0.ln()))
                .sum::<f64>()
    }

    /// The verdict for a log-likelihood ratio.
    pub fn verdict(&self, llr: f64) -> SprtVerdict {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtVerdict::AcceptH1
        } else if llr <= lower {
            SprtVerdict::AcceptH0
        } else {
            SprtVerdict::Continue
        }
    }
}

/// The distribution over the same outcomes, of mean `mean`, that maximises
/// the likelihood of the observed frequencies (`(score, frequency)` pairs,
/// every frequency positive, `mean` strictly between the lowest and the
/// highest score): pᵢ / (1 + λ (aᵢ − mean)), with λ the root of
/// Σ pᵢ (aᵢ − mean) / (1 + λ (aᵢ − mean)) = 0 (Van den Bergh, "Maximum
/// likelihood estimation of a multinomial distribution with a given
/// expectation value", Proposition 1.1).
fn most_likely_with_mean(outcomes: &[(f64, f64)], mean: f64) -> Vec<f64> {
    let offset = |score: f64| score - mean;
    let mismatch = |lambda: f64| {
        outcomes
            .iter()
            .map(|&(score, p)| p * offset(score) / (1.0 + lambda * offset(score)))
            .sum::<f64>()
    };
    let highest = outcomes
        .iter()
        .map(|&(s, _)| offset(s))
        .fold(f64::MIN, f64::max);
    let lowest = outcomes
        .iter()
        .map(|&(s, _)| offset(s))
        .fold(f64::MAX, f64::min);
    // Every 1 + λ (aᵢ − mean) stays positive for λ in (−1/highest, −1/lowest),
    // where the mismatch falls from +∞ to −∞.
    let (mut low, mut high) = (-1.0 / highest, -1.0 / lowest);
    for _ in 0..200 {
        let middle = 0.5 * (low + high);
        if middle <= low || middle >= high {
            break;
        }
        if mismatch(middle) > 0.0 {
            low = middle;
        } else {
            high = middle;
        }
    }
    let lambda = 0.5 * (low + high);
    outcomes
        .iter()
        .map(|&(score, p)| p / (1.0 + lambda * offset(score)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_even_score_is_zero_elo_and_76_percent_is_about_200() {
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!((elo_from_score(0.76) - 200.0).abs() < 1.0);
        assert!((score_from_elo(elo_from_score(0.3)) - 0.3).abs() < 1e-12);
    }

    #[test]
    fn the_interval_holds_the_estimate_and_narrows_with_games() {
        let few = elo_estimate(6, 2, 2);
        let many = elo_estimate(600, 200, 200);
        assert!((few.elo - many.elo).abs() < 1e-9);
        assert!(few.low < few.elo && few.elo < few.high);
        assert!(many.high - many.low < (few.high - few.low) / 5.0);
    }

    #[test]
    fn a_clean_sweep_has_an_infinite_estimate_but_a_finite_lower_bound() {
        let sweep = elo_estimate(20, 0, 0);
        assert_eq!(sweep.elo, f64::INFINITY);
        // Wilson: the score is at least 20 / (20 + z²) ≈ 0.839, about +287 Elo.
        assert!((sweep.low - 287.0).abs() < 2.0, "{}", sweep.low);
        assert_eq!(sweep.high, f64::INFINITY);
        let longer = elo_estimate(200, 0, 0);
        assert!(longer.low > sweep.low + 300.0);
    }

    /// Log-likelihood ratios computed by fishtest's `LLRcalc.LLR_logistic`
    /// (server/fishtest/stats/LLRcalc.py) for the same results; trinomial
    /// results there are (losses, draws, wins).
    #[test]
    fn the_ratio_is_fishtests_generalised_one() {
        let cases: [(f64, f64, &[u32], f64); 10] = [
            (0.0, 200.0, &[0, 0, 0, 0, 1], 0.418_890_124_288_742_5),
            (0.0, 200.0, &[0, 0, 0, 0, 200], 83.675_979_800_076_46),
            (0.0, 200.0, &[0, 0, 200], 83.675_143_081_538_48),
            (0.0, 50.0, &[100, 100, 300], 29.778_196_983_978_8),
            (0.0, 50.0, &[250, 100, 150], -24.313_340_561_299_984),
            (0.0, 50.0, &[5, 2, 6], 0.011_495_066_388_807_054),
            (0.0, 5.0, &[1000, 3000, 1200], 5.534_315_496_804_457_4),
            (
                -3.0,
                1.0,
                &[210, 1030, 3020, 1100, 240],
                5.318_918_204_395_81,
            ),
            (0.0, 200.0, &[4, 0, 0, 0, 0], -2.933_440_661_427_065),
            (0.0, 50.0, &[0, 40, 0], -6.160_447_672_401_92),
        ];
        for (elo0, elo1, counts, expected) in cases {
            let sprt = Sprt { elo0, elo1 };
            let llr = match *counts {
                [losses, draws, wins] => sprt.trinomial_llr(wins, draws, losses),
                [a, b, c, d, e] => sprt.pentanomial_llr(&[a, b, c, d, e]),
                _ => unreachable!("three or five counts"),
            };
            assert!(
                (llr - expected).abs() < 1e-6 * expected.abs().max(1.0),
                "{counts:?}: {llr} against {expected}"
            );
        }
    }

    #[test]
    fn a_clean_sweep_stops_the_test_within_its_first_pairs() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 200.0,
        };
        let (_, upper) = sprt.bounds();
        // All wins under H0 (score ½) against H1 (score 0.76): each pair
        // adds about ln(0.76 / 0.5) = 0.42, so the eighth crosses ln 19.
        assert_eq!(
            sprt.verdict(sprt.pentanomial_llr(&[0, 0, 0, 0, 7])),
            SprtVerdict::Continue
        );
        let eight = sprt.pentanomial_llr(&[0, 0, 0, 0, 8]);
        assert!(eight >= upper, "{eight}");
        assert_eq!(sprt.verdict(eight), SprtVerdict::AcceptH1);
        // A clean loss accepts H0 as surely.
        assert_eq!(
            sprt.verdict(sprt.pentanomial_llr(&[8, 0, 0, 0, 0])),
            SprtVerdict::AcceptH0
        );
        assert_eq!(
            sprt.verdict(sprt.trinomial_llr(0, 0, 16)),
            SprtVerdict::AcceptH0
        );
        // No games, no evidence.
        assert_eq!(sprt.pentanomial_llr(&[0; 5]), 0.0);
    }

    #[test]
    fn sprt_accepts_the_hypothesis_the_results_support() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 50.0,
        };
        let verdict = |w, d, l| sprt.verdict(sprt.trinomial_llr(w, d, l));
        assert_eq!(verdict(300, 100, 100), SprtVerdict::AcceptH1);
        assert_eq!(verdict(150, 100, 250), SprtVerdict::AcceptH0);
        assert_eq!(verdict(6, 2, 5), SprtVerdict::Continue);
    }

    #[test]
    fn the_ratio_grows_with_the_evidence_for_h1() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 50.0,
        };
        let mut previous = f64::NEG_INFINITY;
        for wins in 0..=40 {
            let llr = sprt.trinomial_llr(wins, 20, 40 - wins);
            assert!(llr > previous, "{wins} wins: {llr} after {previous}");
            previous = llr;
        }
    }
}
