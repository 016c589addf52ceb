//! One search tree: leaf gathering with virtual loss, expansion, backup, the
//! solver, root noise, the final move and tree reuse. The formulas are in the
//! module header of [`crate::search`].

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Gamma};

use super::config::{MoveChoice, RootSelection, SearchConfig};
use super::evaluator::{EvaluationRequest, Evaluations};
use super::gumbel::GumbelRoot;
use super::tree::{Edge, NO_NODE, Node, NodeId, Proof, Tree, orient, sign};
use crate::game::{Action, Forcing, Game, Outcome, Player};

/// A leaf waiting for its evaluation.
#[derive(Clone, Debug)]
struct PendingLeaf {
    node: NodeId,
    /// Range of this leaf's path (root first) in `Search::paths`.
    path_start: usize,
    path_end: usize,
}

/// What one descent from the root found.
enum Descent {
    /// A new leaf to evaluate (now pending).
    Leaf,
    /// A finished or proven position, backed up at once.
    Resolved,
    /// A leaf already pending in this batch; nothing was changed.
    Collision,
    /// The Gumbel root waits for pending evaluations before it can go on.
    Blocked,
}

/// Statistics of one root move after a search.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildReport {
    /// The move.
    pub action: Action,
    /// Its prior (with root noise, if any).
    pub prior: f32,
    /// Completed simulations through it.
    pub visits: u32,
    /// Win/draw/loss for the side to move at the root, after this move.
    pub wdl: [f32; 3],
    /// Proven result for the side to move at the root, if any.
    pub proof: Option<Outcome>,
    /// Plies expected until the game ends after this move, when the
    /// evaluator predicts them and the move was visited.
    pub moves_left: Option<f32>,
}

/// What a search found at the root.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The side to move at the root.
    pub side: Player,
    /// Win/draw/loss for the side to move (exact when proven).
    pub wdl: [f32; 3],
    /// The proven result for the side to move, if the solver found one.
    pub proof: Option<Outcome>,
    /// Completed simulations through the root (including reused ones).
    pub visits: u32,
    /// Plies expected until the game ends, when the evaluator predicts them.
    pub moves_left: Option<f32>,
    /// Root moves, most visited first.
    pub children: Vec<ChildReport>,
    /// Training target over all actions: visit shares (PUCT root) or the
    /// completed-Q improved policy (Gumbel root).
    pub policy_target: Vec<f32>,
}

/// A Monte-Carlo tree search on one position, driven in steps so that many
/// searches can share evaluator calls (see [`super::run_searches`]).
#[derive(Debug)]
pub struct Search<G: Game> {
    game: G,
    config: SearchConfig,
    tree: Tree<G::State>,
    rng: SmallRng,
    /// Simulations completed since [`Search::begin`].
    simulations: u32,
    pending: Vec<PendingLeaf>,
    paths: Vec<NodeId>,
    path: Vec<NodeId>,
    actions: Vec<Action>,
    /// Moves the rules force, from [`Game::forcing_moves`].
    forced: Vec<Action>,
    noise_pending: bool,
    gumbel: Option<GumbelRoot>,
    /// Whether the evaluator predicts the plies left (the moves-left
    /// utility is on).
    moves_left_known: bool,
}

impl<G: Game> Search<G> {
    /// A search from `state`, with its random choices seeded by `seed`.
    pub fn new(game: G, state: G::State, config: SearchConfig, seed: u64) -> Search<G> {
        let root = Self::make_node(&game, state);
        Search {
            game,
            config,
            tree: Tree::new(root),
            rng: SmallRng::seed_from_u64(seed),
            simulations: 0,
            pending: Vec::new(),
            paths: Vec::new(),
            path: Vec::new(),
            actions: Vec::new(),
            forced: Vec::new(),
            noise_pending: false,
            gumbel: None,
            moves_left_known: false,
        }
    }

    fn make_node(game: &G, state: G::State) -> Node<G::State> {
        let side = game.current_player(&state);
        let proof = game
            .outcome(&state)
            .map_or(Proof::Unknown, |outcome| Proof::from_outcome(outcome, side));
        Node::new(state, side, proof)
    }

    /// The rules.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// The root position.
    pub fn state(&self) -> &G::State {
        &self.tree.root().state
    }

    /// The settings.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Changes the settings; takes effect at the next [`Search::begin`].
    pub fn set_config(&mut self, config: SearchConfig) {
        self.config = config;
    }

    /// Nodes in the tree (for memory accounting and tests).
    pub fn node_count(&self) -> usize {
        self.tree.nodes.len()
    }

    /// Starts a new search from the current root: resets the simulation
    /// count and prepares root noise and the Gumbel root.
    pub fn begin(&mut self) {
        debug_assert!(self.pending.is_empty());
        self.simulations = 0;
        self.gumbel = None;
        self.noise_pending = self.config.dirichlet_weight > 0.0;
        if self.tree.root().expanded {
            self.prepare_root();
        }
    }

    /// Whether the search has used its simulations or proven the root.
    pub fn is_finished(&self) -> bool {
        self.pending.is_empty()
            && (self.simulations >= self.config.simulations
                || self.tree.root().proof != Proof::Unknown)
    }

    /// Number of leaves waiting for evaluation.
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    /// Selects up to `leaves_per_batch` new leaves, keeping them apart with
    /// virtual loss. Finished and proven positions met on the way are backed
    /// up at once. Returns the number of leaves now pending.
    pub fn gather(&mut self) -> usize {
        let wanted = self.config.leaves_per_batch.max(1) as usize;
        let mut attempts = 0;
        while self.pending.len() < wanted && attempts < 4 * wanted {
            attempts += 1;
            if self.tree.root().proof != Proof::Unknown
                || self.simulations + self.pending.len() as u32 >= self.config.simulations
            {
                break;
            }
            match self.descend() {
                Descent::Leaf | Descent::Resolved => {}
                Descent::Collision | Descent::Blocked => break,
            }
        }
        self.pending.len()
    }

    /// The pending leaves, in order, as evaluator requests.
    pub fn requests(&self) -> impl Iterator<Item = EvaluationRequest<'_, G>> {
        self.pending.iter().map(|leaf| EvaluationRequest {
            game: &self.game,
            state: &self.tree.node(leaf.node).state,
        })
    }

    /// Expands and backs up the pending leaves with `evaluations[offset..]`.
    pub fn absorb(&mut self, evaluations: &Evaluations, offset: usize) {
        let pending = std::mem::take(&mut self.pending);
        for (index, leaf) in pending.iter().enumerate() {
            let policy = evaluations.policy(offset + index);
            let wdl = evaluations.wdl[offset + index];
            let moves_left = evaluations.moves_left.get(offset + index).copied();
            self.moves_left_known |= moves_left.is_some();
            let side = self.tree.node(leaf.node).side;
            let first_wdl = orient(wdl, side);
            self.expand(leaf.node, policy, first_wdl[0] - first_wdl[2]);
            self.path.clear();
            self.path
                .extend_from_slice(&self.paths[leaf.path_start..leaf.path_end]);
            self.backup(first_wdl, moves_left.unwrap_or(0.0));
        }
        self.paths.clear();
        self.pending = pending;
        self.pending.clear();
    }

    /// Runs the whole search on its own with `evaluator`.
    pub fn run(&mut self, evaluator: &impl super::Evaluator<G>) -> SearchResult {
        super::run_searches(std::slice::from_mut(self), evaluator);
        self.result()
    }

    fn descend(&mut self) -> Descent {
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

    fn add_in_flight(&mut self) {
        for &id in &self.path {
            self.tree.node_mut(id).in_flight += 1;
        }
    }

    /// The child along edge `edge_index` of `node`, created on first visit.
    fn child(&mut self, node: NodeId, edge_index: usize) -> NodeId {
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
        let id = self.tree.nodes.len() as NodeId;
        self.tree.nodes.push(child);
        self.tree.edges_of_mut(node)[edge_index].child = id;
        id
    }

    /// The exploration factor c(N) · √N of a node with `visits` visits.
    fn exploration(&self, visits: u32) -> f32 {
        let c = self.config.c_puct
            + ((1.0 + visits as f32 + self.config.c_puct_base) / self.config.c_puct_base).ln();
        c * (visits.max(1) as f32).sqrt()
    }

    /// √(k · P · N): the visits forced on a root move of prior P.
    fn forced_visits(&self, prior: f32, root_visits: u32) -> f32 {
        (self.config.forced_playouts * prior * root_visits as f32).sqrt()
    }

    /// The root move most short of its forced visits, if one is short
    /// (proven moves are never forced: their value is known).
    fn forced_playout(&self) -> Option<usize> {
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

    /// Policy target pruning: each root move's visits less the forced ones
    /// that PUCT would not have given it. `children` are the root's moves
    /// in edge order.
    fn pruned_visits(&self, children: &[ChildReport]) -> Vec<f32> {
        let mut visits: Vec<f32> = children.iter().map(|c| c.visits as f32).collect();
        let Some(best) = (0..children.len()).max_by_key(|&i| children[i].visits) else {
            return visits;
        };
        let total = self.tree.root().visits;
        let exploration = self.exploration(total);
        let value = |c: &ChildReport| c.wdl[0] - c.wdl[2];
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

    /// PUCT: argmax over children of Q + c(N) · P · √N / (1 + n).
    ///
    /// One pass over the edges: unvisited children all share the first-play
    /// value, so the best of them is the one with the highest prior.
    fn select_puct(&self, node: NodeId) -> usize {
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
                    let value = match child.proof.first_wdl() {
                        Some(exact) => side_sign * (exact[0] - exact[2]),
                        None => {
                            let sum = f64::from(side_sign) * (child.win_sum - child.loss_sum)
                                - f64::from(child.in_flight);
                            (sum / f64::from(visits)) as f32
                        }
                    };
                    let utility = if child.visits > 0 {
                        self.moves_left_utility(parent, child.mean_moves_left())
                    } else {
                        0.0
                    };
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

    /// Creates the edges of a leaf with priors from the policy logits, and
    /// records the evaluator's value (first player's view, W − L).
    fn expand(&mut self, node: NodeId, policy_logits: &[f32], raw_value: f32) {
        let is_root = node == self.tree.root;
        let temperature = if is_root {
            self.config.root_policy_temperature.max(1e-3)
        } else {
            1.0
        };
        let state = &self.tree.node(node).state;
        self.game.legal_actions(state, &mut self.actions);
        if self.config.decisive_moves
            && self.game.forcing_moves(state, &mut self.forced) != Forcing::Free
        {
            // Only the winning moves, or only the moves that stop the
            // opponent's immediate win.
            let forced = &self.forced;
            self.actions.retain(|action| forced.contains(action));
        }
        let first_edge = self.tree.edges.len() as u32;
        let max_logit = self
            .actions
            .iter()
            .map(|a| policy_logits[a.index()])
            .fold(f32::NEG_INFINITY, f32::max);
        let mut total = 0.0;
        for &action in &self.actions {
            let weight = ((policy_logits[action.index()] - max_logit) / temperature).exp();
            total += weight;
            self.tree.edges.push(Edge {
                action,
                prior: weight,
                child: NO_NODE,
            });
        }
        let count = self.actions.len() as u32;
        let current = self.tree.node_mut(node);
        current.first_edge = first_edge;
        current.edge_count = count;
        current.expanded = true;
        current.raw_value = raw_value;
        for edge in self.tree.edges_of_mut(node) {
            edge.prior /= total;
        }
        if is_root {
            self.prepare_root();
        }
    }

    /// Root noise and the Gumbel candidates, once the root is expanded.
    fn prepare_root(&mut self) {
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
    fn root_edge_visits(&self) -> Vec<u32> {
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
    fn gumbel_next(&mut self) -> Option<usize> {
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
    fn root_child_values(&self) -> Vec<Option<f32>> {
        let root = self.tree.root();
        self.tree
            .edges_of(self.tree.root)
            .iter()
            .map(|edge| {
                if edge.child == NO_NODE {
                    return None;
                }
                let child = self.tree.node(edge.child);
                if let Some(exact) = child.proof.first_wdl() {
                    return Some(sign(root.side) * (exact[0] - exact[2]));
                }
                (child.visits > 0).then(|| child.mean_value(root.side))
            })
            .collect()
    }

    /// Adds one completed simulation with first-player `wdl` to every node of
    /// `self.path`, removing its virtual loss; `moves_left` is the plies left
    /// after the path's last node, to which each node adds its distance.
    fn backup(&mut self, wdl: [f32; 3], moves_left: f32) {
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
    }

    /// The moves-left utility of a child expected to end the game in
    /// `child_moves_left` plies, for the side choosing at `parent` (see the
    /// module header of [`crate::search`]); 0 when the evaluator does not
    /// predict the plies left.
    fn moves_left_utility(&self, parent: &Node<G::State>, child_moves_left: f32) -> f32 {
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
    fn propagate_proof(&mut self) {
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
                let (visits, wdl, proof, moves_left) = if edge.child == NO_NODE {
                    (0, [0.0, 1.0, 0.0], None, None)
                } else {
                    let child = self.tree.node(edge.child);
                    (
                        child.visits,
                        child.mean_wdl(side),
                        child.proof.outcome_for(side),
                        (self.moves_left_known && child.visits > 0)
                            .then(|| child.mean_moves_left()),
                    )
                };
                ChildReport {
                    action: edge.action,
                    prior: edge.prior,
                    visits,
                    wdl,
                    proof,
                    moves_left,
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
            children,
            policy_target,
        }
    }

    /// The root's value for its side: the search mean, or the evaluator's
    /// value before any visit.
    fn root_value_estimate(&self) -> f32 {
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
                lower_confidence_bound_choice(&candidates, |c| {
                    c.moves_left
                        .map_or(0.0, |plies| self.moves_left_utility(root, plies))
                })
            }
        }
    }

    /// A candidate drawn in proportion to its weight raised to
    /// 1/temperature; at temperature 0 (or without weights) the most visited.
    fn sample_by_weights(
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

    /// Plays `action` at the root, keeping its subtree when tree reuse is on.
    ///
    /// # Panics
    ///
    /// Panics if `action` is not legal at the root.
    pub fn advance(&mut self, action: Action) {
        assert!(self.pending.is_empty(), "advance during a search");
        let root = self.tree.root;
        let child = self
            .tree
            .edges_of(root)
            .iter()
            .find(|e| e.action == action)
            .map(|e| e.child);
        self.gumbel = None;
        match child {
            // An unexpanded child may be proven without its moves (a win
            // at once): the new root starts afresh.
            Some(child)
                if child != NO_NODE && self.config.reuse_tree && self.tree.node(child).expanded =>
            {
                self.tree = self.tree.subtree(child);
            }
            _ => {
                let next = self
                    .game
                    .play(self.state(), action)
                    .expect("advance with a legal action");
                self.tree = Tree::new(Self::make_node(&self.game, next));
            }
        }
    }

    /// Forgets the tree and starts from `state`.
    pub fn reset(&mut self, state: G::State) {
        assert!(self.pending.is_empty(), "reset during a search");
        self.gumbel = None;
        self.tree = Tree::new(Self::make_node(&self.game, state));
    }
}

/// KataGo's choice: the best lower confidence bound on the value (plus the
/// moves-left utility, `utility`), among children with at least a tenth of
/// the most visited one's visits.
fn lower_confidence_bound_choice(
    candidates: &[&ChildReport],
    utility: impl Fn(&ChildReport) -> f32,
) -> Action {
    let max_visits = candidates.iter().map(|c| c.visits).max().unwrap_or(0);
    let threshold = (max_visits as f32 * 0.1).max(1.0);
    let bound = |c: &ChildReport| {
        if c.proof.is_some() {
            return c.wdl[0] - c.wdl[2];
        }
        let n = c.visits.max(1) as f32;
        let mean = c.wdl[0] - c.wdl[2];
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
fn most_visited<'a>(candidates: &[&'a ChildReport]) -> &'a ChildReport {
    candidates
        .iter()
        .copied()
        .max_by(|a, b| {
            let value = |c: &ChildReport| {
                if c.visits > 0 || c.proof.is_some() {
                    c.wdl[0] - c.wdl[2]
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
