//! Search settings: data with defaults, one documented field each.

/// How the root chooses which child to simulate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RootSelection {
    /// PUCT at the root as everywhere else.
    Puct,
    /// Gumbel-top-k sampling and sequential halving (Danihelka et al. 2022).
    Gumbel(GumbelConfig),
}

/// Settings of the Gumbel root.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GumbelConfig {
    /// Number of candidate moves sampled at the root (m in the paper).
    pub candidates: usize,
    /// `c_visit` of the monotone transform σ(q̂) = (c_visit + max N) · c_scale · q̂.
    pub c_visit: f32,
    /// `c_scale` of the same transform.
    pub c_scale: f32,
    /// Add Gumbel noise to the root logits (self-play); without it the root
    /// is deterministic (evaluation games).
    pub sample: bool,
}

impl Default for GumbelConfig {
    fn default() -> GumbelConfig {
        GumbelConfig {
            candidates: 16,
            c_visit: 50.0,
            c_scale: 1.0,
            sample: true,
        }
    }
}

/// The moves-left utility (Leela Chess Zero's): in a position the side to
/// move is sure to win (or lose), a move expected to end the game sooner
/// (later) gains up to `max_effect` of value, so that a won game is won
/// rather than drawn out. It needs an evaluator that predicts the plies
/// left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MovesLeftConfig {
    /// Value per ply of difference from the expected plies left (0 turns
    /// the utility off).
    pub slope: f32,
    /// The largest value the utility adds or takes away.
    pub max_effect: f32,
    /// |value| of the parent below which the utility is off; it grows
    /// linearly to its full weight at |value| = 1.
    pub threshold: f32,
}

impl Default for MovesLeftConfig {
    fn default() -> MovesLeftConfig {
        MovesLeftConfig {
            slope: 0.005,
            max_effect: 0.05,
            threshold: 0.8,
        }
    }
}

impl MovesLeftConfig {
    /// The utility turned off.
    pub fn off() -> MovesLeftConfig {
        MovesLeftConfig {
            slope: 0.0,
            ..MovesLeftConfig::default()
        }
    }

    /// The value a child gains for the side choosing at a parent of value
    /// `parent_value` (that side's view) when the child is expected to end
    /// the game `sooner` plies before the parent's other moves would.
    pub fn utility(&self, parent_value: f32, sooner: f32) -> f32 {
        let strength =
            ((parent_value.abs() - self.threshold) / (1.0 - self.threshold)).clamp(0.0, 1.0);
        if strength == 0.0 || self.slope == 0.0 {
            return 0.0;
        }
        let effect = (self.slope * sooner).clamp(-self.max_effect, self.max_effect);
        strength * effect * parent_value.signum()
    }
}

/// Settings of one Monte-Carlo tree search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    /// Simulations (leaf evaluations or terminal visits) per search.
    pub simulations: u32,
    /// PUCT exploration constant at zero visits (AlphaZero's c_init).
    pub c_puct: f32,
    /// Visits over which the exploration constant grows by one
    /// (AlphaZero's c_base: c = c_puct + ln((1 + N + c_base) / c_base)).
    pub c_puct_base: f32,
    /// First-play urgency: an unvisited child is valued at its parent's value
    /// minus this, times the square root of the policy mass already visited.
    pub fpu_reduction: f32,
    /// Weight of the root Dirichlet noise (0 turns it off).
    pub dirichlet_weight: f32,
    /// The Dirichlet α is this divided by the number of legal moves.
    pub dirichlet_alpha_total: f32,
    /// Softmax temperature of the root's priors (above 1 flattens them).
    pub root_policy_temperature: f32,
    /// Leaves gathered per tree before each evaluator call, kept apart by
    /// virtual loss.
    pub leaves_per_batch: u32,
    /// Propagate proven wins, losses and draws (MCTS-solver).
    pub solver: bool,
    /// Use the moves the rules force ([`crate::Game::forcing_moves`]): a
    /// position with a win at once is proven without an evaluation, and
    /// where the opponent threatens one only the moves that stop it are
    /// searched; a position whose result the rules already decide
    /// ([`crate::Game::decided`]) is proven too.
    pub decisive_moves: bool,
    /// Keep the subtree of the move played for the next search.
    pub reuse_tree: bool,
    /// Root child selection: PUCT or the Gumbel root.
    pub root: RootSelection,
    /// Forced playouts at a PUCT root (KataGo): a root move of prior P gets
    /// at least √(k · P · N) of the root's N visits; 0 turns them off. The
    /// policy target then leaves out the visits they forced (policy target
    /// pruning), so that it stays what the search wanted, and so does a
    /// move drawn by visits ([`MoveChoice::Visits`]).
    pub forced_playouts: f32,
    /// The moves-left utility, used when the evaluator predicts the plies
    /// left.
    pub moves_left: MovesLeftConfig,
    /// The game's tactics ([`Tactics`]): none by default, the game's own
    /// with [`SearchConfig::for_game`].
    pub tactics: Tactics,
    /// Values under the game's own rules: where the evaluator gives them
    /// apart ([`Evaluations::rules_wdl`](super::Evaluations::rules_wdl)),
    /// the search backs them up instead of its main value (the bar's
    /// search; play keeps the main value, which a training rule's
    /// adjudication may sharpen).
    pub rules_value: bool,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            simulations: 800,
            c_puct: 1.25,
            c_puct_base: 19652.0,
            fpu_reduction: 0.25,
            dirichlet_weight: 0.0,
            dirichlet_alpha_total: 10.0,
            root_policy_temperature: 1.0,
            leaves_per_batch: 8,
            solver: true,
            decisive_moves: true,
            reuse_tree: true,
            root: RootSelection::Puct,
            forced_playouts: 0.0,
            moves_left: MovesLeftConfig::default(),
            tactics: Tactics::default(),
            rules_value: false,
        }
    }
}

/// The tactical settings of a search, for capture games: what a game's
/// own players — the levels that play their best, the advice, the engine
/// protocol and `mcts` players — search with where the game gives them
/// ([`crate::Hints::search_tactics`]), because its network alone misses
/// what they find. The default is none of them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tactics {
    /// Weight α of the implicit minimax backups (Lanctot, Winands, Pepels
    /// and Sturtevant 2014): a visited child is valued at (1 − α) Q + α V,
    /// V the minimax over its expanded subtree of the game's heuristic
    /// ([`crate::Hints::heuristic`]), or of the evaluator's values in a game
    /// without one; 0 turns them off.
    pub minimax_weight: f32,
    /// A position with one move (after the forcing moves' filter, with
    /// `decisive_moves`) is not evaluated: the move is expanded at once and
    /// the simulation goes on through it, so that the position's value is
    /// its child's (a compulsory capture costs no evaluation).
    pub skip_single_moves: bool,
    /// Plies of an alpha-beta search on the game's heuristic
    /// ([`crate::Hints::heuristic`]) from each new position of the tree,
    /// the root's children and below (minimax at the leaves, Baier and
    /// Winands 2015): a position where it finds a side mated within that
    /// depth is proven without an evaluation; the others keep its score,
    /// which replaces the heuristic in the implicit minimax backups and
    /// weighs `leaf_weight` in the value backed up. 0 turns it off.
    pub leaf_depth: u32,
    /// Plies of the same search from the root's moves, where it is worth
    /// more (a mate within this depth and one ply is proven at the
    /// move's first visit); below `leaf_depth` it is `leaf_depth`.
    pub root_leaf_depth: u32,
    /// The share of the leaf search's score in the value a new leaf backs
    /// up, the evaluator's the rest: the score x (the side to move's view,
    /// between −1 and 1) reads as a win with probability max(x, 0), a loss
    /// with max(−x, 0) and a draw otherwise. 0: the leaf search only proves.
    pub leaf_weight: f32,
    /// The weight λ of the score utility (after KataGo's, on the game's
    /// heuristic score): a visited child is worth λ · (2/π) · atan((s −
    /// c) / `score_scale`) more in selection and in the final choice, s
    /// the minimax of the heuristic scores over its expanded subtree (the
    /// leaf search's where it ran) and c the root's, for the side
    /// choosing. A lead that already saturates the values still ranks the
    /// moves that widen it, so that a won game is won rather than held. 0
    /// (the default) turns it off; no effect in a game without a
    /// heuristic.
    pub score_utility: f32,
    /// Units of the heuristic score at which the score utility reaches
    /// half its weight; 0: the game's scale
    /// ([`crate::Hints::heuristic_scale`]).
    pub score_scale: f32,
}

impl SearchConfig {
    /// The defaults with `game`'s tactics: how the game's own players
    /// search, their budget apart.
    pub fn for_game<G: crate::Hints>(game: &G) -> SearchConfig {
        SearchConfig {
            tactics: game.search_tactics(),
            ..SearchConfig::default()
        }
    }
}

/// How the move is chosen once the search is over.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MoveChoice {
    /// Sample by visit count raised to 1/temperature (the pruned visits of
    /// the policy target under forced playouts); temperature 0 takes the
    /// most visited move.
    Visits {
        /// Sampling temperature.
        temperature: f32,
    },
    /// The move with the best lower confidence bound on its value (KataGo),
    /// among moves with enough visits.
    LowerConfidenceBound,
}

impl MoveChoice {
    /// The choice a move-choice temperature stands for: the move of best
    /// lower confidence bound at temperature 0, else sampling by visits.
    pub fn for_temperature(temperature: f32) -> MoveChoice {
        if temperature == 0.0 {
            MoveChoice::LowerConfidenceBound
        } else {
            MoveChoice::Visits { temperature }
        }
    }
}
