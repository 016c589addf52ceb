//! Choice: the search's report (visits, values, proofs, pruned forced
//! playouts), the principal variation and the move played.

use super::*;
use crate::game::Hints;

impl<G: Hints> Search<G> {
    /// Policy target pruning: each root move's visits less the forced ones
    /// that PUCT would not have given it. `children` are the root's moves
    /// in edge order.
    pub(super) fn pruned_visits(&self, children: &[ChildReport]) -> Vec<f32> {
        let mut visits: Vec<f32> = children.iter().map(|c| c.visits as f32).collect();
        let Some(best) = (0..children.len()).max_by_key(|&i| children[i].visits) else {
            return visits;
        };
        let total = self.tree.root().visits;
        let exploration = self.exploration(total);
        let value = |c: &ChildReport| c.wdl.value();
        let best_child = &children[best];
        let best_score =
            value(best_child) + exploration * best_child.prior / (1.0 + best_child.visits as f32);
        for (index, child) in children.iter().enumerate() {
            if index == best || child.visits == 0 {
                continue;
            }
            let forced = self.forced_visits(child.prior, total);
            // The fewest visits n' for which Q + E · P / (1 + n') stays
            // below a*'s score, no fewer than n − forced.
            let margin = best_score - value(child);
            let kept = if margin > 0.0 {
                (exploration * child.prior / margin - 1.0)
                    .ceil()
                    .max(child.visits as f32 - forced)
                    .min(child.visits as f32)
            } else {
                child.visits as f32
            };
            visits[index] = if kept <= 1.0 { 0.0 } else { kept };
        }
        visits
    }

    /// The search's findings at the root.
    pub fn result(&self) -> SearchResult {
        let root = self.tree.root();
        let side = root.side;
        let action_count = self.game.spec().action_count;
        let mut children: Vec<ChildReport> = self
            .tree
            .edges_of(self.tree.root)
            .iter()
            .map(|edge| {
                let (visits, wdl, proof, moves_left, score) = if edge.child == NO_NODE {
                    (0, ToMove([0.0, 1.0, 0.0]), None, None, None)
                } else {
                    let child = self.tree.node(edge.child);
                    (
                        child.visits,
                        child.mean_wdl(side),
                        child.proof.outcome_for(side),
                        (self.moves_left_known && child.visits > 0)
                            .then(|| child.mean_moves_left()),
                        (child.visits > 0)
                            .then(|| self.score_of(child))
                            .flatten()
                            .map(|score| sign(side) * score),
                    )
                };
                ChildReport {
                    action: edge.action,
                    prior: edge.prior,
                    visits,
                    wdl,
                    proof,
                    moves_left,
                    score,
                }
            })
            .collect();
        let mut policy_target = vec![0.0; action_count];
        match &self.gumbel {
            Some(gumbel) => {
                let values = self.root_child_values();
                let visits: Vec<u32> = children.iter().map(|c| c.visits).collect();
                let improved = gumbel.improved_policy(&visits, &values, self.root_value_estimate());
                for (child, p) in children.iter().zip(improved) {
                    policy_target[child.action.index()] = p;
                }
            }
            None => {
                let visits: Vec<f32> = if self.config.forced_playouts > 0.0 {
                    self.pruned_visits(&children)
                } else {
                    children.iter().map(|c| c.visits as f32).collect()
                };
                let total: f32 = visits.iter().sum();
                for (child, n) in children.iter().zip(visits) {
                    policy_target[child.action.index()] =
                        if total > 0.0 { n / total } else { child.prior };
                }
            }
        }
        children.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.prior.total_cmp(&a.prior)));
        SearchResult {
            side,
            wdl: root.mean_wdl(side),
            proof: root.proof.outcome_for(side),
            visits: root.visits,
            moves_left: (self.moves_left_known && root.visits > 0).then(|| root.mean_moves_left()),
            score: (root.visits > 0)
                .then(|| self.score_of(root))
                .flatten()
                .map(|score| sign(side) * score),
            children,
            policy_target,
        }
    }

    /// The root's value for its side: the search mean, or the evaluator's
    /// value before any visit.
    pub(super) fn root_value_estimate(&self) -> f32 {
        let root = self.tree.root();
        if root.visits > 0 {
            root.mean_value(root.side)
        } else {
            root.raw_value * sign(root.side)
        }
    }

    /// The moves the search expects: from the root, the most visited child
    /// at each step (proven wins first), while children have visits.
    pub fn principal_variation(&self, max_length: usize) -> Vec<Action> {
        let mut line = Vec::new();
        let mut node = self.tree.root;
        while line.len() < max_length {
            let side = self.tree.node(node).side;
            let best = self
                .tree
                .edges_of(node)
                .iter()
                .filter(|e| e.child != NO_NODE)
                .max_by_key(|e| {
                    let child = self.tree.node(e.child);
                    let wins = child.proof.outcome_for(side) == Some(Outcome::Win);
                    (wins, child.visits)
                });
            match best {
                Some(edge) if self.tree.node(edge.child).visits > 0 => {
                    line.push(edge.action);
                    node = edge.child;
                }
                _ => break,
            }
        }
        line
    }

    /// The move to play after a search.
    ///
    /// A proven win is always played, and proven losses are avoided while
    /// another move exists; otherwise the Gumbel root plays its final
    /// candidate, and a PUCT root follows `choice`.
    ///
    /// # Panics
    ///
    /// Panics if the root is a finished game.
    pub fn choose_move(&mut self, choice: MoveChoice) -> Action {
        let result = self.result();
        assert!(!result.children.is_empty(), "no move in a finished game");
        if let Some(win) = result
            .children
            .iter()
            .find(|c| c.proof == Some(Outcome::Win))
        {
            return win.action;
        }
        let candidates: Vec<&ChildReport> = {
            let safe: Vec<&ChildReport> = result
                .children
                .iter()
                .filter(|c| c.proof != Some(Outcome::Loss))
                .collect();
            if safe.is_empty() {
                result.children.iter().collect()
            } else {
                safe
            }
        };
        if let Some(gumbel) = &self.gumbel {
            let values = self.root_child_values();
            let edges = self.tree.edges_of(self.tree.root);
            let visits = self.root_edge_visits();
            if let Some(index) = gumbel.final_choice(&visits, &values, self.root_value_estimate()) {
                let action = edges[index].action;
                if candidates.iter().any(|c| c.action == action) {
                    return action;
                }
            }
        }
        match choice {
            MoveChoice::Visits { temperature } => {
                // With forced playouts the move is drawn, like the policy
                // target, from the visits the search chose: the forced ones
                // are taken back (KataGo prunes its play selection alike).
                let weights: Vec<f64> = candidates
                    .iter()
                    .map(|c| {
                        if self.config.forced_playouts > 0.0 {
                            f64::from(result.policy_target[c.action.index()])
                        } else {
                            f64::from(c.visits)
                        }
                    })
                    .collect();
                self.sample_by_weights(&candidates, &weights, temperature)
            }
            MoveChoice::LowerConfidenceBound => {
                let root = self.tree.root();
                let edges = self.tree.edges_of(self.tree.root);
                lower_confidence_bound_choice(&candidates, |c| {
                    edges
                        .iter()
                        .find(|edge| edge.action == c.action && edge.child != NO_NODE)
                        .map_or(0.0, |edge| self.utility(root, self.tree.node(edge.child)))
                })
            }
        }
    }

    /// A candidate drawn in proportion to its weight raised to
    /// 1/temperature; at temperature 0 (or without weights) the most visited.
    pub(super) fn sample_by_weights(
        &mut self,
        candidates: &[&ChildReport],
        weights: &[f64],
        temperature: f32,
    ) -> Action {
        let most_visited = most_visited(candidates);
        let max = weights.iter().copied().fold(0.0, f64::max);
        if temperature <= 1e-3 || max <= 0.0 {
            return most_visited.action;
        }
        let weights: Vec<f64> = weights
            .iter()
            .map(|w| (w / max).powf(1.0 / f64::from(temperature)))
            .collect();
        let total: f64 = weights.iter().sum();
        let mut pick = self.rng.random::<f64>() * total;
        for (candidate, weight) in candidates.iter().zip(&weights) {
            pick -= weight;
            if *weight > 0.0 && pick <= 0.0 {
                return candidate.action;
            }
        }
        most_visited.action
    }
}

/// KataGo's choice: the best lower confidence bound on the value (plus the
/// moves-left and score utilities, `utility`), among children with at least a tenth of
/// the most visited one's visits.
pub(super) fn lower_confidence_bound_choice(
    candidates: &[&ChildReport],
    utility: impl Fn(&ChildReport) -> f32,
) -> Action {
    let max_visits = candidates.iter().map(|c| c.visits).max().unwrap_or(0);
    let threshold = (max_visits as f32 * 0.1).max(1.0);
    let bound = |c: &ChildReport| {
        if c.proof.is_some() {
            return c.wdl.value();
        }
        let n = c.visits.max(1) as f32;
        let mean = c.wdl.value();
        // Variance of one visit's value (W − L) given the mean W, D, L.
        let variance = (c.wdl[0] + c.wdl[2] - mean * mean).max(1e-4);
        mean - 2.0 * (variance / n).sqrt() + utility(c)
    };
    candidates
        .iter()
        .filter(|c| c.visits as f32 >= threshold || c.proof.is_some())
        .max_by(|a, b| bound(a).total_cmp(&bound(b)))
        .copied()
        .unwrap_or_else(|| most_visited(candidates))
        .action
}

/// The most visited move; among equally visited ones the best valued if
/// they were visited, else the one of highest prior (with a single
/// simulation no move is visited: the choice is the network's own).
pub(super) fn most_visited<'a>(candidates: &[&'a ChildReport]) -> &'a ChildReport {
    candidates
        .iter()
        .copied()
        .max_by(|a, b| {
            let value = |c: &ChildReport| {
                if c.visits > 0 || c.proof.is_some() {
                    c.wdl.value()
                } else {
                    0.0
                }
            };
            a.visits
                .cmp(&b.visits)
                .then(value(a).total_cmp(&value(b)))
                .then(a.prior.total_cmp(&b.prior))
        })
        .expect("candidates")
}
