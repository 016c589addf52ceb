//! The search tree: nodes and edges in two flat arenas.
//!
//! An expanded node owns a contiguous run of edges, one per legal action,
//! each with its prior; the child node is created only when its edge is
//! first visited. Statistics are sums of win and loss probabilities from the
//! first player's point of view, so that no sign depends on whose turn it is.

use crate::game::{Action, Outcome, Player};
use crate::wdl::{ForPlayers, ToMove};

/// Index of a node in the arena.
pub(crate) type NodeId = u32;
/// Marker for an edge whose child has not been created.
pub(crate) const NO_NODE: NodeId = NodeId::MAX;

/// A move out of a node.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub action: Action,
    /// Policy prior (after noise, at the root).
    pub prior: f32,
    /// The child node, or [`NO_NODE`] while unvisited.
    pub child: NodeId,
}

/// A result proven by the solver (or by the rules at a finished game),
/// stored from the first player's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    /// Not proven.
    Unknown,
    /// The first player wins with best play.
    FirstWins,
    /// A draw with best play.
    Draw,
    /// The second player wins with best play.
    SecondWins,
}

impl Proof {
    /// The proof of `outcome` for `player`.
    pub fn from_outcome(outcome: Outcome, player: Player) -> Proof {
        match (outcome, player) {
            (Outcome::Draw, _) => Proof::Draw,
            (Outcome::Win, Player::First) | (Outcome::Loss, Player::Second) => Proof::FirstWins,
            (Outcome::Win, Player::Second) | (Outcome::Loss, Player::First) => Proof::SecondWins,
        }
    }

    /// The proven outcome for `player`, if any.
    pub fn outcome_for(self, player: Player) -> Option<Outcome> {
        let for_first = match self {
            Proof::Unknown => return None,
            Proof::FirstWins => Outcome::Win,
            Proof::Draw => Outcome::Draw,
            Proof::SecondWins => Outcome::Loss,
        };
        Some(match player {
            Player::First => for_first,
            Player::Second => for_first.flipped(),
        })
    }

    /// The exact value W − L for the first player.
    pub fn first_value(self) -> Option<f32> {
        self.first_wdl().map(|exact| exact[0] - exact[2])
    }

    /// Exact win/draw/loss probabilities for the players.
    pub fn first_wdl(self) -> Option<ForPlayers> {
        match self {
            Proof::Unknown => None,
            Proof::FirstWins => Some(ForPlayers([1.0, 0.0, 0.0])),
            Proof::Draw => Some(ForPlayers([0.0, 1.0, 0.0])),
            Proof::SecondWins => Some(ForPlayers([0.0, 0.0, 1.0])),
        }
    }
}

/// A position in the tree.
#[derive(Clone, Debug)]
pub(crate) struct Node<S> {
    pub state: S,
    /// The player to move here.
    pub side: Player,
    /// Completed simulations through this node.
    pub visits: u32,
    /// Simulations through this node awaiting their evaluation (virtual
    /// loss: each counts as a loss for the player choosing this node).
    pub in_flight: u32,
    /// Sum of P(first player wins) over the visits.
    pub win_sum: f64,
    /// Sum of P(first player loses) over the visits.
    pub loss_sum: f64,
    /// Sum over the visits of the plies until the game ends (with an
    /// evaluator that predicts them).
    pub moves_left_sum: f64,
    /// The evaluator's value of this position, first player's view (W − L).
    pub raw_value: f32,
    /// The value implicit minimax backups start from at this node, first
    /// player's view: the game's heuristic, or else the evaluator's value.
    pub minimax_leaf: f32,
    /// The minimax of those values over the expanded tree below (implicit
    /// minimax backups), first player's view: `minimax_leaf` at a leaf, the
    /// exact value when proven.
    pub minimax: f32,
    /// The leaf search's score of this position, first player's view, in
    /// the units of the game's heuristic score
    /// ([`crate::search::Tactics::leaf_depth`]), when `leaf_searched`
    /// is not 0.
    pub leaf_score: f32,
    /// The depth of the leaf search that read this position (0: none).
    pub leaf_searched: u32,
    /// The heuristic score of this position, first player's view, with
    /// the score utility on: the leaf search's, else the static score.
    pub score_leaf: f32,
    /// The minimax of those scores over the expanded tree below, first
    /// player's view (a proven result far past any lead).
    pub minimax_score: f32,
    pub first_edge: u32,
    pub edge_count: u32,
    pub expanded: bool,
    pub proof: Proof,
}

impl<S> Node<S> {
    pub fn new(state: S, side: Player, proof: Proof) -> Node<S> {
        Node {
            state,
            side,
            visits: 0,
            in_flight: 0,
            win_sum: 0.0,
            loss_sum: 0.0,
            moves_left_sum: 0.0,
            score_leaf: 0.0,
            minimax_score: 0.0,
            raw_value: 0.0,
            minimax_leaf: 0.0,
            minimax: 0.0,
            leaf_score: 0.0,
            leaf_searched: 0,
            first_edge: 0,
            edge_count: 0,
            expanded: false,
            proof,
        }
    }

    /// Mean value (W − L) for `player`, over completed visits.
    pub fn mean_value(&self, player: Player) -> f32 {
        if self.visits == 0 {
            return 0.0;
        }
        let value = ((self.win_sum - self.loss_sum) / f64::from(self.visits)) as f32;
        sign(player) * value
    }

    /// Mean plies until the game ends, over completed visits (0 before
    /// any).
    pub fn mean_moves_left(&self) -> f32 {
        if self.visits == 0 {
            return 0.0;
        }
        (self.moves_left_sum / f64::from(self.visits)) as f32
    }

    /// Mean win/draw/loss for `player` (the search's side to move),
    /// over completed visits.
    pub fn mean_wdl(&self, player: Player) -> ToMove {
        if let Some(exact) = self.proof.first_wdl() {
            return exact.to_move(player);
        }
        if self.visits == 0 {
            return ToMove([0.0, 1.0, 0.0]);
        }
        let n = f64::from(self.visits);
        let win = (self.win_sum / n) as f32;
        let loss = (self.loss_sum / n) as f32;
        ForPlayers([win, (1.0 - win - loss).max(0.0), loss]).to_move(player)
    }
}

/// +1 for the first player, −1 for the second.
pub(crate) fn sign(player: Player) -> f32 {
    match player {
        Player::First => 1.0,
        Player::Second => -1.0,
    }
}

/// The arenas and the root.
#[derive(Clone, Debug)]
pub(crate) struct Tree<S> {
    pub nodes: Vec<Node<S>>,
    pub edges: Vec<Edge>,
    pub root: NodeId,
}

impl<S: Clone> Tree<S> {
    pub fn new(root: Node<S>) -> Tree<S> {
        Tree {
            nodes: vec![root],
            edges: Vec::new(),
            root: 0,
        }
    }

    pub fn node(&self, id: NodeId) -> &Node<S> {
        &self.nodes[id as usize]
    }

    pub fn node_mut(&mut self, id: NodeId) -> &mut Node<S> {
        &mut self.nodes[id as usize]
    }

    pub fn root(&self) -> &Node<S> {
        self.node(self.root)
    }

    /// The edges of a node.
    pub fn edges_of(&self, id: NodeId) -> &[Edge] {
        let node = self.node(id);
        &self.edges[node.first_edge as usize..(node.first_edge + node.edge_count) as usize]
    }

    pub fn edges_of_mut(&mut self, id: NodeId) -> &mut [Edge] {
        let node = &self.nodes[id as usize];
        let range = node.first_edge as usize..(node.first_edge + node.edge_count) as usize;
        &mut self.edges[range]
    }

    /// A new tree holding only the subtree under `id`, which becomes the root.
    pub fn subtree(&self, id: NodeId) -> Tree<S> {
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        let mut queue = vec![(id, 0usize)];
        nodes.push(self.node(id).clone());
        // Breadth-first copy; `queue` holds (old id, new index) pairs.
        let mut head = 0;
        while head < queue.len() {
            let (old, new) = queue[head];
            head += 1;
            let first_edge = edges.len() as u32;
            for edge in self.edges_of(old) {
                let mut copy = *edge;
                if edge.child != NO_NODE {
                    copy.child = nodes.len() as NodeId;
                    queue.push((edge.child, nodes.len()));
                    nodes.push(self.node(edge.child).clone());
                }
                edges.push(copy);
            }
            nodes[new].first_edge = first_edge;
        }
        Tree {
            nodes,
            edges,
            root: 0,
        }
    }
}
