//! Backup: the values of a leaf carried up its path, the moves-left
//! utility, and the solver's proven wins and losses.

use super::*;

impl<G: Game> Search<G> {
    /// Adds one completed simulation with first-player `wdl` to every node of
    /// `self.path`, removing its virtual loss; `moves_left` is the plies left
    /// after the path's last node, to which each node adds its distance.
    pub(super) fn backup(&mut self, wdl: ForPlayers, moves_left: f32) {
        let last = self.path.len().saturating_sub(1);
        for (depth, &id) in self.path.iter().enumerate() {
            let node = self.tree.node_mut(id);
            node.visits += 1;
            node.in_flight -= 1;
            node.win_sum += f64::from(wdl[0]);
            node.loss_sum += f64::from(wdl[2]);
            node.moves_left_sum += f64::from(moves_left) + (last - depth) as f64;
        }
        self.simulations += 1;
        self.back_up_minimax();
    }

    /// Implicit minimax backups: each expanded node of the path, from the
    /// leaf up, takes the best minimax value of its expanded or proven
    /// children for its side, and a proven node its exact value. A move
    /// not yet expanded counts as the node's own value (the heuristic's or
    /// the evaluator's reading of the best move's worth): without it, a
    /// node whose only expanded move is a blunder would read as lost.
    ///
    /// The score utility's scores are backed up alike, a new child by its
    /// leaf search's score where it has one, a proven node by its result
    /// far past any lead.
    fn back_up_minimax(&mut self) {
        let values = self.config.tactics.minimax_weight > 0.0;
        let scores = self.scores_kept();
        if !values && !scores {
            return;
        }
        for &id in self.path.iter().rev() {
            let node = self.tree.node(id);
            if let Some(exact) = node.proof.first_value() {
                let score = self.proven_score(node.proof);
                let node = self.tree.node_mut(id);
                node.minimax = exact;
                node.minimax_score = score;
                continue;
            }
            if !node.expanded {
                continue;
            }
            let value = values.then(|| {
                self.best_of_children(id, node.minimax_leaf, |child| {
                    match child.proof.first_value() {
                        Some(exact) => Some(exact),
                        None if child.expanded => Some(child.minimax),
                        None => None,
                    }
                })
            });
            let score = scores.then(|| {
                self.best_of_children(id, node.score_leaf, |child| {
                    if child.proof != Proof::Unknown {
                        Some(self.proven_score(child.proof))
                    } else if child.expanded {
                        Some(child.minimax_score)
                    } else {
                        (child.leaf_searched > 0).then_some(child.leaf_score)
                    }
                })
            });
            let node = self.tree.node_mut(id);
            if let Some(value) = value {
                node.minimax = value;
            }
            if let Some(score) = score {
                node.minimax_score = score;
            }
        }
    }

    /// The best `reading` of the children of the expanded node `id` for
    /// its side; its `own` reading where some child has none and none is
    /// better, or none has one. (A single move taken without an evaluation
    /// is expanded by the time its simulation is backed up: the child's.)
    fn best_of_children(
        &self,
        id: NodeId,
        own: f32,
        reading: impl Fn(&Node<G::State>) -> Option<f32>,
    ) -> f32 {
        let side_sign = sign(self.tree.node(id).side);
        let mut best: Option<f32> = None;
        let mut unread = false;
        for edge in self.tree.edges_of(id) {
            let value = if edge.child == NO_NODE {
                None
            } else {
                reading(self.tree.node(edge.child))
            };
            match value {
                Some(value) if best.is_none_or(|b| side_sign * value > side_sign * b) => {
                    best = Some(value);
                }
                Some(_) => {}
                None => unread = true,
            }
        }
        match best {
            Some(best) if unread && side_sign * own > side_sign * best => own,
            Some(best) => best,
            None => own,
        }
    }

    /// The heuristic score standing for a proven result, first player's
    /// view: far past any lead, so that the score utility gives a proven
    /// win its full weight.
    pub(super) fn proven_score(&self, proof: Proof) -> f32 {
        let far = 100.0 * self.heuristic_scale.max(self.score_scale);
        proof.first_value().map_or(0.0, |value| value * far)
    }

    /// Whether the score utility is on (and the game has a heuristic).
    pub(super) fn scores_kept(&self) -> bool {
        self.config.tactics.score_utility > 0.0 && self.has_heuristic
    }

    /// The minimax score of an expanded or proven `node` (first player's
    /// view), with the score utility on.
    pub(super) fn score_of(&self, node: &Node<G::State>) -> Option<f32> {
        if !self.scores_kept() {
            return None;
        }
        Some(if node.proof != Proof::Unknown {
            self.proven_score(node.proof)
        } else {
            node.minimax_score
        })
    }

    /// What a visited `child` is worth beyond its value to the side
    /// choosing at `parent`: the moves-left utility and the score utility.
    pub(super) fn utility(&self, parent: &Node<G::State>, child: &Node<G::State>) -> f32 {
        if child.visits == 0 {
            return 0.0;
        }
        self.moves_left_utility(parent, child.mean_moves_left())
            + self.score_utility(parent.side, child)
    }

    /// The score utility of a visited `child` for `side` (see
    /// [`crate::search::Tactics::score_utility`]): 0 when off.
    fn score_utility(&self, side: Player, child: &Node<G::State>) -> f32 {
        let Some(score) = self.score_of(child) else {
            return 0.0;
        };
        let center = self.tree.root().minimax_score;
        let lead = sign(side) * (score - center) / self.score_scale;
        self.config.tactics.score_utility * lead.atan() * std::f32::consts::FRAC_2_PI
    }

    /// The moves-left utility of a child expected to end the game in
    /// `child_moves_left` plies, for the side choosing at `parent` (see the
    /// module header of [`crate::search`]); 0 when the evaluator does not
    /// predict the plies left.
    pub(super) fn moves_left_utility(&self, parent: &Node<G::State>, child_moves_left: f32) -> f32 {
        if !self.moves_left_known || parent.visits == 0 {
            return 0.0;
        }
        let expected = parent.mean_moves_left() - 1.0;
        self.config
            .moves_left
            .utility(parent.mean_value(parent.side), expected - child_moves_left)
    }

    /// After a proven leaf was reached, proves its ancestors where possible:
    /// a node is won if one move wins for its side, and decided once every
    /// move is proven (the best of them).
    pub(super) fn propagate_proof(&mut self) {
        for position in (0..self.path.len().saturating_sub(1)).rev() {
            let id = self.path[position];
            let node = self.tree.node(id);
            if node.proof != Proof::Unknown {
                continue;
            }
            let side = node.side;
            let mut best: Option<Outcome> = None;
            let mut all_proven = true;
            for edge in self.tree.edges_of(id) {
                let outcome = if edge.child == NO_NODE {
                    None
                } else {
                    self.tree.node(edge.child).proof.outcome_for(side)
                };
                match outcome {
                    Some(Outcome::Win) => {
                        best = Some(Outcome::Win);
                        all_proven = true;
                        break;
                    }
                    Some(outcome) => {
                        if best.is_none()
                            || (best == Some(Outcome::Loss) && outcome == Outcome::Draw)
                        {
                            best = Some(outcome);
                        }
                    }
                    None => all_proven = false,
                }
            }
            match best {
                Some(outcome) if all_proven => {
                    self.tree.node_mut(id).proof = Proof::from_outcome(outcome, side);
                }
                _ => return,
            }
        }
    }
}
