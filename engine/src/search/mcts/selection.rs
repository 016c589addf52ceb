//! Selection: the descent from the root by PUCT (or Gumbel's sequential
//! halving at the root), virtual loss, forced playouts and the root's
//! preparation (noise, the moves the rules force).

use super::*;
use crate::game::Hints;

impl<G: Hints> Search<G> {
    pub(super) fn descend(&mut self) -> Descent {
        self.path.clear();
        let mut node = self.tree.root;
        loop {
            let current = self.tree.node(node);
            if current.proof != Proof::Unknown {
                self.path.push(node);
                let wdl = current.proof.first_wdl().expect("proven");
                // A finished game has no plies left; a proven position
                // keeps the mean of its visits before the proof.
                let moves_left = current.mean_moves_left();
                self.add_in_flight();
                self.backup(wdl, moves_left);
                if self.config.solver {
                    self.propagate_proof();
                }
                return Descent::Resolved;
            }
            if !current.expanded && current.in_flight == 0 && self.config.tactics.skip_single_moves
            {
                self.expand_if_single(node);
            }
            let current = self.tree.node(node);
            if !current.expanded {
                if current.in_flight > 0 {
                    return Descent::Collision;
                }
                self.path.push(node);
                self.add_in_flight();
                let start = self.paths.len();
                self.paths.extend_from_slice(&self.path);
                self.pending.push(PendingLeaf {
                    node,
                    path_start: start,
                    path_end: self.paths.len(),
                });
                return Descent::Leaf;
            }
            let edge_index = if node == self.tree.root && self.gumbel.is_some() {
                match self.gumbel_next() {
                    Some(index) => index,
                    None => return Descent::Blocked,
                }
            } else if node == self.tree.root && self.config.forced_playouts > 0.0 {
                self.forced_playout()
                    .unwrap_or_else(|| self.select_puct(node))
            } else {
                self.select_puct(node)
            };
            self.path.push(node);
            node = self.child(node, edge_index);
        }
    }

    pub(super) fn add_in_flight(&mut self) {
        for &id in &self.path {
            self.tree.node_mut(id).in_flight += 1;
        }
    }

    /// The child along edge `edge_index` of `node`, created on first visit.
    pub(super) fn child(&mut self, node: NodeId, edge_index: usize) -> NodeId {
        let edge = self.tree.edges_of(node)[edge_index];
        if edge.child != NO_NODE {
            return edge.child;
        }
        let mut state = self.tree.node(node).state.clone();
        self.game.apply_unchecked(&mut state, edge.action);
        let mut child = Self::make_node(&self.game, state);
        // A position with a move that wins at once is won, and one whose
        // result the rules already decide is decided: proven without an
        // evaluation (the root is never proven this way, so that it keeps
        // its moves).
        if self.config.decisive_moves && child.proof == Proof::Unknown {
            let outcome = self.game.decided(&child.state).or_else(|| {
                (self.game.forcing_moves(&child.state, &mut self.forced) == Forcing::Wins)
                    .then_some(Outcome::Win)
            });
            if let Some(outcome) = outcome {
                child.proof = Proof::from_outcome(outcome, child.side);
            }
        }
        let depth = self.leaf_depth_below(node);
        if depth > 0 && child.proof == Proof::Unknown {
            let reading = self.leaf_search(&child.state, depth);
            Self::read_leaf(&mut child, reading, depth);
        }
        let id = self.tree.nodes.len() as NodeId;
        self.tree.nodes.push(child);
        self.tree.edges_of_mut(node)[edge_index].child = id;
        id
    }

    /// The depth of the leaf search from the children of `node`.
    fn leaf_depth_below(&self, node: NodeId) -> u32 {
        let depth = self.config.tactics.leaf_depth;
        if depth > 0 && node == self.tree.root {
            depth.max(self.config.tactics.root_leaf_depth)
        } else {
            depth
        }
    }

    /// Records the leaf search's `reading` of `node`, `depth` plies deep:
    /// its proof, or its score (first player's view).
    fn read_leaf(node: &mut Node<G::State>, reading: Result<f32, Outcome>, depth: u32) {
        match reading {
            Err(outcome) => node.proof = Proof::from_outcome(outcome, node.side),
            Ok(score) => node.leaf_score = sign(node.side) * score,
        }
        node.leaf_searched = depth;
    }

    /// The root's children that entered the tree below an earlier root
    /// (tree reuse) searched again to the root's depth.
    fn deepen_root_children(&mut self) {
        let root = self.tree.root;
        let depth = self.leaf_depth_below(root);
        if depth <= self.config.tactics.leaf_depth {
            return;
        }
        let edges = self.tree.edges_of(root).len();
        for index in 0..edges {
            let child = self.tree.edges_of(root)[index].child;
            if child == NO_NODE {
                continue;
            }
            let current = self.tree.node(child);
            if current.proof != Proof::Unknown || current.leaf_searched >= depth {
                continue;
            }
            let reading = self.leaf_search(&current.state, depth);
            Self::read_leaf(self.tree.node_mut(child), reading, depth);
        }
    }

    /// The exploration factor c(N) · √N of a node with `visits` visits.
    pub(super) fn exploration(&self, visits: u32) -> f32 {
        let c = self.config.c_puct
            + ((1.0 + visits as f32 + self.config.c_puct_base) / self.config.c_puct_base).ln();
        c * (visits.max(1) as f32).sqrt()
    }

    /// √(k · P · N): the visits forced on a root move of prior P.
    pub(super) fn forced_visits(&self, prior: f32, root_visits: u32) -> f32 {
        (self.config.forced_playouts * prior * root_visits as f32).sqrt()
    }

    /// The root move most short of its forced visits, if one is short
    /// (proven moves are never forced: their value is known).
    pub(super) fn forced_playout(&self) -> Option<usize> {
        let root = self.tree.root();
        let total = root.visits + root.in_flight;
        let mut best: Option<(f32, usize)> = None;
        for (index, edge) in self.tree.edges_of(self.tree.root).iter().enumerate() {
            let visits = if edge.child == NO_NODE {
                0
            } else {
                let child = self.tree.node(edge.child);
                if child.proof != Proof::Unknown {
                    continue;
                }
                child.visits + child.in_flight
            };
            let shortfall = self.forced_visits(edge.prior, total) - visits as f32;
            if shortfall > 0.0 && best.is_none_or(|(most, _)| shortfall > most) {
                best = Some((shortfall, index));
            }
        }
        best.map(|(_, index)| index)
    }

    /// PUCT: argmax over children of Q + c(N) · P · √N / (1 + n).
    ///
    /// One pass over the edges: unvisited children all share the first-play
    /// value, so the best of them is the one with the highest prior.
    pub(super) fn select_puct(&self, node: NodeId) -> usize {
        let parent = self.tree.node(node);
        let side = parent.side;
        let exploration = self.exploration(parent.visits + parent.in_flight);
        let side_sign = sign(side);
        let mut visited_mass = 0.0f32;
        let mut best_visited = (f32::NEG_INFINITY, usize::MAX);
        let mut best_unvisited = (f32::NEG_INFINITY, usize::MAX);
        for (index, edge) in self.tree.edges_of(node).iter().enumerate() {
            let child = (edge.child != NO_NODE).then(|| self.tree.node(edge.child));
            match child {
                Some(child)
                    if child.visits + child.in_flight > 0 || child.proof != Proof::Unknown =>
                {
                    let visits = child.visits + child.in_flight;
                    if child.visits > 0 {
                        visited_mass += edge.prior;
                    }
                    let value = match child.proof.first_value() {
                        Some(exact) => side_sign * exact,
                        None => {
                            let sum = f64::from(side_sign) * (child.win_sum - child.loss_sum)
                                - f64::from(child.in_flight);
                            let mean = (sum / f64::from(visits)) as f32;
                            if self.config.tactics.minimax_weight > 0.0 && child.expanded {
                                let weight = self.config.tactics.minimax_weight;
                                (1.0 - weight) * mean + weight * side_sign * child.minimax
                            } else {
                                mean
                            }
                        }
                    };
                    let utility = self.utility(parent, child);
                    let score = value + utility + exploration * edge.prior / (1.0 + visits as f32);
                    if score > best_visited.0 {
                        best_visited = (score, index);
                    }
                }
                _ => {
                    if edge.prior > best_unvisited.0 {
                        best_unvisited = (edge.prior, index);
                    }
                }
            }
        }
        if best_unvisited.1 == usize::MAX {
            return best_visited.1;
        }
        let parent_value = if parent.visits > 0 {
            parent.mean_value(side)
        } else {
            parent.raw_value * side_sign
        };
        let first_play = parent_value - self.config.fpu_reduction * visited_mass.sqrt();
        let unvisited_score = first_play + exploration * best_unvisited.0;
        if best_visited.1 == usize::MAX || unvisited_score > best_visited.0 {
            best_unvisited.1
        } else {
            best_visited.1
        }
    }

    /// Root noise and the Gumbel candidates, once the root is expanded.
    pub(super) fn prepare_root(&mut self) {
        self.deepen_root_children();
        let root = self.tree.root;
        if self.noise_pending {
            self.noise_pending = false;
            let count = self.tree.edges_of(root).len();
            if count > 1 {
                let alpha = (self.config.dirichlet_alpha_total / count as f32).max(1e-3);
                let weight = self.config.dirichlet_weight;
                let gamma = Gamma::new(alpha, 1.0).expect("positive alpha");
                let noise: Vec<f32> = (0..count).map(|_| gamma.sample(&mut self.rng)).collect();
                let total: f32 = noise.iter().sum::<f32>().max(f32::MIN_POSITIVE);
                for (edge, n) in self.tree.edges_of_mut(root).iter_mut().zip(noise) {
                    edge.prior = (1.0 - weight) * edge.prior + weight * n / total;
                }
            }
        }
        if let RootSelection::Gumbel(config) = self.config.root {
            let priors: Vec<f32> = self.tree.edges_of(root).iter().map(|e| e.prior).collect();
            let visits = self.root_edge_visits();
            self.gumbel = Some(GumbelRoot::new(
                &priors,
                &visits,
                config,
                self.config.simulations,
                &mut self.rng,
            ));
        }
    }

    /// Visits, completed and in flight, of each root edge.
    pub(super) fn root_edge_visits(&self) -> Vec<u32> {
        self.tree
            .edges_of(self.tree.root)
            .iter()
            .map(|edge| {
                if edge.child == NO_NODE {
                    0
                } else {
                    let child = self.tree.node(edge.child);
                    child.visits + child.in_flight
                }
            })
            .collect()
    }

    /// The next root edge of the Gumbel schedule, halving when a phase is
    /// complete; `None` while the phase waits for pending evaluations.
    pub(super) fn gumbel_next(&mut self) -> Option<usize> {
        let root = self.tree.root;
        let visits = self.root_edge_visits();
        let in_flight = self.tree.node(root).in_flight > 0;
        let gumbel = self.gumbel.as_mut().expect("gumbel root");
        if let Some(index) = gumbel.next_candidate(&visits) {
            return Some(index);
        }
        if in_flight {
            return None;
        }
        let values = self.root_child_values();
        let root_node = self.tree.node(root);
        let gumbel = self.gumbel.as_mut().expect("gumbel root");
        gumbel.halve(&visits, &values, root_node.mean_value(root_node.side));
        gumbel.next_candidate(&visits)
    }

    /// Mean value of each root child for the side to move (`None` if
    /// unvisited).
    pub(super) fn root_child_values(&self) -> Vec<Option<f32>> {
        let root = self.tree.root();
        self.tree
            .edges_of(self.tree.root)
            .iter()
            .map(|edge| {
                if edge.child == NO_NODE {
                    return None;
                }
                let child = self.tree.node(edge.child);
                if let Some(exact) = child.proof.first_value() {
                    return Some(sign(root.side) * exact);
                }
                (child.visits > 0).then(|| child.mean_value(root.side))
            })
            .collect()
    }
}
