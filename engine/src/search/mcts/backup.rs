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
        if self.config.minimax_weight > 0.0 {
            self.back_up_minimax();
        }
    }

    /// Implicit minimax backups: each expanded node of the path, from the
    /// leaf up, takes the best minimax value of its expanded or proven
    /// children for its side, and a proven node its exact value. A move
    /// not yet expanded counts as the node's own value (the heuristic's or
    /// the evaluator's reading of the best move's worth): without it, a
    /// node whose only expanded move is a blunder would read as lost.
    fn back_up_minimax(&mut self) {
        for &id in self.path.iter().rev() {
            let node = self.tree.node(id);
            if let Some(exact) = node.proof.first_value() {
                self.tree.node_mut(id).minimax = exact;
                continue;
            }
            if !node.expanded {
                continue;
            }
            let side_sign = sign(node.side);
            let mut best: Option<f32> = None;
            let mut unexpanded = false;
            for edge in self.tree.edges_of(id) {
                let value = if edge.child == NO_NODE {
                    None
                } else {
                    let child = self.tree.node(edge.child);
                    match child.proof.first_value() {
                        Some(exact) => Some(exact),
                        None if child.expanded => Some(child.minimax),
                        None => None,
                    }
                };
                match value {
                    Some(value) if best.is_none_or(|b| side_sign * value > side_sign * b) => {
                        best = Some(value);
                    }
                    Some(_) => {}
                    None => unexpanded = true,
                }
            }
            let raw = node.minimax_leaf;
            // A single move taken without an evaluation is expanded by the
            // time its simulation is backed up: the child's value.
            let minimax = match best {
                Some(best) if unexpanded && side_sign * raw > side_sign * best => raw,
                Some(best) => best,
                None => raw,
            };
            self.tree.node_mut(id).minimax = minimax;
        }
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
