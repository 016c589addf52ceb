//! The Gumbel root (Danihelka, Guez, Schrittwieser, Silver 2022, "Policy
//! improvement by planning with Gumbel"): Gumbel-top-k sampling of the
//! candidates, sequential halving of the simulation budget among them, and
//! the completed-Q improved policy as the training target.

use rand::Rng;

use super::config::GumbelConfig;

/// The root's candidates and the halving schedule.
#[derive(Clone, Debug)]
pub(crate) struct GumbelRoot {
    config: GumbelConfig,
    /// log π(a) per root edge.
    log_priors: Vec<f32>,
    /// g(a) + log π(a) per root edge (g = 0 when not sampling).
    base_scores: Vec<f32>,
    /// Root edges still in the running, best first.
    remaining: Vec<usize>,
    /// Visits each remaining candidate should reach in this phase.
    target: u32,
    /// Simulations of the whole search (n in the paper).
    budget: u32,
    /// Number of halving phases, ⌈log₂ m⌉.
    phases: u32,
}

impl GumbelRoot {
    /// Samples the candidates among the root edges with these priors.
    pub fn new(
        priors: &[f32],
        visits: &[u32],
        config: GumbelConfig,
        budget: u32,
        rng: &mut impl Rng,
    ) -> GumbelRoot {
        let log_priors: Vec<f32> = priors.iter().map(|p| p.max(1e-12).ln()).collect();
        let base_scores: Vec<f32> = log_priors
            .iter()
            .map(|&log_prior| {
                let gumbel = if config.sample {
                    let uniform: f32 = rng.random_range(f32::MIN_POSITIVE..1.0);
                    -(-uniform.ln()).ln()
                } else {
                    0.0
                };
                gumbel + log_prior
            })
            .collect();
        let mut order: Vec<usize> = (0..priors.len()).collect();
        order.sort_by(|&a, &b| base_scores[b].total_cmp(&base_scores[a]));
        let m = config.candidates.clamp(1, priors.len().max(1));
        order.truncate(m);
        let phases = (m as f32).log2().ceil().max(1.0) as u32;
        let mut root = GumbelRoot {
            config,
            log_priors,
            base_scores,
            remaining: order,
            target: 0,
            budget,
            phases,
        };
        root.raise_target(visits);
        root
    }

    /// The visits added to each candidate in a phase with `k` candidates.
    fn raise_target(&mut self, visits: &[u32]) {
        let k = self.remaining.len() as u32;
        if k <= 1 {
            self.target = u32::MAX;
            return;
        }
        let per_candidate = (self.budget / (self.phases * k)).max(1);
        let floor = self.remaining.iter().map(|&i| visits[i]).min().unwrap_or(0);
        self.target = self.target.max(floor) + per_candidate;
    }

    /// The remaining candidate with the fewest visits below this phase's
    /// target, if any.
    pub fn next_candidate(&self, visits: &[u32]) -> Option<usize> {
        self.remaining
            .iter()
            .copied()
            .filter(|&i| visits[i] < self.target)
            .min_by_key(|&i| visits[i])
    }

    /// Ends a phase: keeps the better half of the candidates by
    /// g + log π + σ(q̂), and sets the next phase's target.
    pub fn halve(&mut self, visits: &[u32], values: &[Option<f32>], root_value: f32) {
        if self.remaining.len() > 1 {
            let sigma = self.transformed_values(visits, values, root_value);
            let score = |i: usize| self.base_scores[i] + sigma[i];
            self.remaining
                .sort_by(|&a, &b| score(b).total_cmp(&score(a)));
            self.remaining.truncate(self.remaining.len().div_ceil(2));
        }
        self.raise_target(visits);
    }

    /// The final move: the best remaining candidate by g + log π + σ(q̂).
    pub fn final_choice(
        &self,
        visits: &[u32],
        values: &[Option<f32>],
        root_value: f32,
    ) -> Option<usize> {
        let sigma = self.transformed_values(visits, values, root_value);
        self.remaining.iter().copied().max_by(|&a, &b| {
            (self.base_scores[a] + sigma[a]).total_cmp(&(self.base_scores[b] + sigma[b]))
        })
    }

    /// The improved policy softmax(log π + σ(completed q̂)) over the root
    /// edges: the training target.
    pub fn improved_policy(
        &self,
        visits: &[u32],
        values: &[Option<f32>],
        root_value: f32,
    ) -> Vec<f32> {
        let sigma = self.transformed_values(visits, values, root_value);
        let logits: Vec<f32> = self
            .log_priors
            .iter()
            .zip(&sigma)
            .map(|(l, s)| l + s)
            .collect();
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let weights: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
        let total: f32 = weights.iter().sum();
        weights.iter().map(|w| w / total).collect()
    }

    /// σ(q̂(a)) = (c_visit + max_b N(b)) · c_scale · q̂(a), where q̂ is the
    /// completed Q (visited: its mean value; unvisited: v_mix) rescaled to
    /// [0, 1] over the root's moves.
    fn transformed_values(
        &self,
        visits: &[u32],
        values: &[Option<f32>],
        root_value: f32,
    ) -> Vec<f32> {
        let mixed = self.mixed_value(visits, values, root_value);
        let completed: Vec<f32> = values.iter().map(|v| v.unwrap_or(mixed)).collect();
        let min = completed.iter().copied().fold(f32::INFINITY, f32::min);
        let max = completed.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let range = (max - min).max(1e-6);
        let max_visits = visits.iter().copied().max().unwrap_or(0) as f32;
        let scale = (self.config.c_visit + max_visits) * self.config.c_scale;
        completed
            .iter()
            .map(|q| scale * (q - min) / range)
            .collect()
    }

    /// v_mix = (v̂ + N · Σ_visited π q / Σ_visited π) / (1 + N), with v̂ the
    /// root's value estimate and N the root children's total visits.
    fn mixed_value(&self, visits: &[u32], values: &[Option<f32>], root_value: f32) -> f32 {
        let total_visits: u32 = visits.iter().sum();
        let mut weighted = 0.0;
        let mut mass = 0.0;
        for ((value, log_prior), &n) in values.iter().zip(&self.log_priors).zip(visits) {
            if let (Some(q), true) = (value, n > 0) {
                let prior = log_prior.exp();
                weighted += prior * q;
                mass += prior;
            }
        }
        if mass <= 0.0 {
            return root_value;
        }
        let n = total_visits as f32;
        (root_value + n * weighted / mass) / (1.0 + n)
    }
}
