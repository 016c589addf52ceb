//! One search tree: leaf gathering with virtual loss, expansion, backup, the
//! solver, root noise, the final move and tree reuse. The formulas are in the
//! module header of [`crate::search`].

mod backup;
mod choice;
mod selection;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Gamma};

use super::config::{MoveChoice, RootSelection, SearchConfig};
use super::evaluator::{EvaluationRequest, Evaluations};
use super::gumbel::GumbelRoot;
use super::tree::{Edge, NO_NODE, Node, NodeId, Proof, Tree, sign};
use crate::alphabeta::{AlphaBeta, HEURISTIC_UNIT, HeuristicEvaluation};
use crate::game::{Action, Forcing, Game, Hints, Outcome, Player};
use crate::wdl::{ForPlayers, ToMove};

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
    pub wdl: ToMove,
    /// Proven result for the side to move at the root, if any.
    pub proof: Option<Outcome>,
    /// Plies expected until the game ends after this move, when the
    /// evaluator predicts them and the move was visited.
    pub moves_left: Option<f32>,
    /// The game's heuristic score after this move for the side to move at
    /// the root, the minimax over the tree the search read below it, when
    /// the score utility is on and the move was visited.
    pub score: Option<f32>,
}

/// What a search found at the root.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The side to move at the root.
    pub side: Player,
    /// Win/draw/loss for the side to move (exact when proven).
    pub wdl: ToMove,
    /// The proven result for the side to move, if the solver found one.
    pub proof: Option<Outcome>,
    /// Completed simulations through the root (including reused ones).
    pub visits: u32,
    /// Plies expected until the game ends, when the evaluator predicts them.
    pub moves_left: Option<f32>,
    /// The game's heuristic score for the side to move, the minimax over
    /// the tree searched, when the score utility is on.
    pub score: Option<f32>,
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
    /// Whether the game has a heuristic ([`Hints::heuristic`]) for the leaf
    /// search's score to be mixed into the values.
    has_heuristic: bool,
    /// The game's [`Hints::heuristic_scale`].
    heuristic_scale: f32,
    /// The score utility's scale, resolved ([`crate::search::Tactics::score_scale`]).
    score_scale: f32,
}

impl<G: Hints> Search<G> {
    /// A search from `state`, with its random choices seeded by `seed`.
    pub fn new(game: G, state: G::State, config: SearchConfig, seed: u64) -> Search<G> {
        let root = Self::make_node(&game, state);
        let has_heuristic = game.heuristic_score(&root.state).is_some();
        let heuristic_scale = game.heuristic_scale();
        let score_scale = if config.tactics.score_scale > 0.0 {
            config.tactics.score_scale
        } else {
            heuristic_scale
        };
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
            has_heuristic,
            heuristic_scale,
            score_scale,
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
            let wdl = match evaluations.rules_wdl.get(offset + index) {
                Some(&rules_wdl) if self.config.rules_value => rules_wdl,
                _ => evaluations.wdl[offset + index],
            };
            let wdl = self.with_leaf_score(leaf.node, wdl);
            let moves_left = evaluations.moves_left.get(offset + index).copied();
            self.moves_left_known |= moves_left.is_some();
            let side = self.tree.node(leaf.node).side;
            let first_wdl = wdl.for_players(side);
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

    /// The leaf search ([`crate::search::Tactics::leaf_depth`]) from `state`, `depth`
    /// plies deep: the result it proves for the side to move, or else its
    /// score for that side, between −1 and 1.
    pub(super) fn leaf_search(&self, state: &G::State, depth: u32) -> Result<f32, Outcome> {
        let mut searcher = AlphaBeta::new(depth, 0, HeuristicEvaluation);
        let score = searcher.value(&self.game, state);
        match searcher.proven(score) {
            Some(outcome) => Err(outcome),
            None => Ok(score as f32 / HEURISTIC_UNIT),
        }
    }

    /// A heuristic score read as a value between −1 and 1, as
    /// [`Hints::heuristic`] reads it.
    pub(super) fn squash(&self, score: f32) -> f32 {
        (score / self.heuristic_scale).tanh()
    }

    /// The heuristic score of a new leaf for the minimax backups and the
    /// score utility, first player's view: its leaf search's, else the
    /// game's static score (None without a heuristic).
    fn leaf_score_of(&self, node: NodeId) -> Option<f32> {
        let current = self.tree.node(node);
        if current.leaf_searched > 0 {
            return Some(current.leaf_score);
        }
        self.game
            .heuristic_score(&current.state)
            .map(|score| sign(current.side) * score)
    }

    /// The evaluator's `wdl` of a new leaf, mixed with the leaf search's
    /// score by `leaf_weight` where the game has a heuristic; the score is
    /// kept for the implicit minimax backups. The children's scores are
    /// read as they enter the tree, the root's here.
    fn with_leaf_score(&mut self, node: NodeId, wdl: ToMove) -> ToMove {
        if self.config.tactics.leaf_depth == 0 {
            return wdl;
        }
        let current = self.tree.node(node);
        let side = current.side;
        if current.leaf_searched == 0 {
            let depth = self.config.tactics.leaf_depth;
            let score = match self.leaf_search(&current.state, depth) {
                Ok(score) => sign(side) * score,
                Err(outcome) => self.proven_score(Proof::from_outcome(outcome, side)),
            };
            let current = self.tree.node_mut(node);
            current.leaf_score = score;
            current.leaf_searched = depth;
        }
        let weight = self.config.tactics.leaf_weight.clamp(0.0, 1.0);
        if weight == 0.0 || !self.has_heuristic {
            return wdl;
        }
        let score = self.squash(sign(side) * self.tree.node(node).leaf_score);
        let read = [score.max(0.0), 1.0 - score.abs(), (-score).max(0.0)];
        ToMove(std::array::from_fn(|k| {
            (1.0 - weight) * wdl.0[k] + weight * read[k]
        }))
    }

    /// Runs the whole search on its own with `evaluator`.
    pub fn run(&mut self, evaluator: &impl super::Evaluator<G>) -> SearchResult {
        super::run_searches(std::slice::from_mut(self), evaluator);
        self.result()
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
        self.searched_actions(node);
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
        let values = self.config.tactics.minimax_weight > 0.0;
        let scores = self.scores_kept();
        if values || scores {
            // The heuristic read once for both backups.
            let score = self.leaf_score_of(node);
            let leaf = score.map_or(raw_value, |score| self.squash(score));
            let current = self.tree.node_mut(node);
            if values {
                current.minimax_leaf = leaf;
                current.minimax = leaf;
            }
            if scores {
                current.score_leaf = score.unwrap_or(0.0);
                current.minimax_score = current.score_leaf;
            }
        }
        for edge in self.tree.edges_of_mut(node) {
            edge.prior /= total;
        }
        if is_root {
            self.prepare_root();
        }
    }

    /// The moves searched at `node`, into `self.actions`: the legal ones,
    /// or with `decisive_moves` only those the rules force (the winning
    /// moves, or the moves that stop the opponent's immediate win).
    fn searched_actions(&mut self, node: NodeId) {
        let state = &self.tree.node(node).state;
        self.game.legal_actions(state, &mut self.actions);
        if self.config.decisive_moves
            && self.game.forcing_moves(state, &mut self.forced) != Forcing::Free
        {
            let forced = &self.forced;
            self.actions.retain(|action| forced.contains(action));
        }
    }

    /// With `skip_single_moves`, expands a leaf that has one move without
    /// an evaluation: its one edge has prior 1, and its value will be its
    /// child's.
    fn expand_if_single(&mut self, node: NodeId) {
        self.searched_actions(node);
        if self.actions.len() != 1 {
            return;
        }
        let first_edge = self.tree.edges.len() as u32;
        self.tree.edges.push(Edge {
            action: self.actions[0],
            prior: 1.0,
            child: NO_NODE,
        });
        let current = self.tree.node_mut(node);
        current.first_edge = first_edge;
        current.edge_count = 1;
        current.expanded = true;
        if node == self.tree.root {
            self.prepare_root();
        }
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
