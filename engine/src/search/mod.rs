//! PUCT Monte-Carlo tree search with batched evaluation, generic over
//! [`Game`](crate::game::Game).
//!
//! # Selection
//!
//! At a node with N visits (completed plus in flight), the child maximising
//!
//! ```text
//! Q(a) + c(N) · P(a) · √N / (1 + n(a)),    c(N) = c_puct + ln((1 + N + c_base) / c_base)
//! ```
//!
//! is followed (AlphaZero, Silver et al. 2018). Q is the mean of W − L for
//! the side choosing, over the child's visits; a visit in flight counts as a
//! loss (virtual loss), which keeps the leaves of one batch apart. An
//! unvisited child is valued at the parent's value minus
//! `fpu_reduction · √(prior mass of visited children)` (first-play urgency,
//! as in Leela Chess Zero). Values are win/draw/loss triples: a draw is a
//! result of its own, not a missing one.
//!
//! # Root
//!
//! Dirichlet noise: P'(a) = (1 − ε) P(a) + ε η(a), η ~ Dir(α) with
//! α = `dirichlet_alpha_total` / (number of legal moves). Or the Gumbel root
//! ([`config::RootSelection::Gumbel`]): m candidates by Gumbel-top-k on
//! g(a) + log P(a), the simulations split among them by sequential halving
//! on g(a) + log P(a) + σ(q̂(a)) with σ(q̂) = (c_visit + max_b n(b)) · c_scale
//! · q̂, and the improved policy softmax(log P + σ(completed q̂)) as the
//! training target (Danihelka et al. 2022, "Policy improvement by planning
//! with Gumbel").
//!
//! Forced playouts (KataGo, Wu 2019), with `forced_playouts` k > 0 at a
//! PUCT root: a move whose visits are below √(k · P(a) · N) is taken before
//! PUCT is consulted. The policy target is then pruned: every move but the
//! most visited one, a*, gives back up to that many visits, as long as its
//! PUCT score with the visits left stays below a*'s; a move left with one
//! visit is dropped.
//!
//! # Moves left
//!
//! With an evaluator that predicts the plies until the game ends (M), each
//! node keeps the mean over its visits of M at the leaf plus the plies from
//! the node down to it (0 at a finished game). Where the side choosing is
//! nearly sure of the result, |Q(parent)| > `threshold`, a visited child's
//! Q gains
//!
//! ```text
//! sign(Q(parent)) · w · clamp(slope · (M(parent) − 1 − M(child)), ±max_effect),
//! w = (|Q(parent)| − threshold) / (1 − threshold)
//! ```
//!
//! in selection and in the final choice: a won game is ended sooner, a lost
//! one drawn out (Leela Chess Zero's moves-left head). Without it, every
//! move of a won position is worth the same 1 and the search can wander
//! until a move limit draws the game. The win-probability bar's search
//! leaves it off.
//!
//! # Solver
//!
//! Finished games are exact. A node is proven won as soon as one move wins
//! for its side, and proven once all its moves are proven (the best of them)
//! — Winands, Björnsson, Saito 2008, "Monte-Carlo Tree Search Solver".
//! Proven nodes are not searched again: reaching one backs up its exact
//! value.
//!
//! With `decisive_moves`, a game that knows its immediate wins
//! ([`Game::forcing_moves`](crate::game::Game::forcing_moves)) has a node
//! with a win at once proven when it is created (no evaluation), and a node
//! whose opponent threatens one expanded with only the moves that stop it
//! (Teytaud & Teytaud 2010, "On the huge benefit of decisive moves in
//! Monte-Carlo tree search algorithms"). A position whose result the rules
//! already decide ([`Game::decided`](crate::game::Game::decided)) is proven
//! when it is created as well.
//!
//! # Implicit minimax backups
//!
//! With `minimax_weight` α > 0 (Lanctot, Winands, Pepels, Sturtevant 2014,
//! "Monte Carlo tree search with heuristic evaluations using implicit
//! minimax backups"), each expanded node also keeps V, the minimax over its
//! expanded subtree of the game's heuristic (`Hints::heuristic`), or of the
//! evaluator's values in a game without one: the best V of its expanded
//! or proven children for its side, and its own value while some move is
//! not expanded and none is better. A visited child is then valued at
//! (1 − α) Q + α V in selection. The mean hides a refutation found late
//! under many visits; V shows it as soon as it is expanded.
//!
//! # Leaf search
//!
//! With `leaf_depth` D > 0 (minimax at the leaves: Baier and Winands 2015,
//! "MCTS-minimax hybrids"), each position is searched D plies deep by
//! alpha-beta on the game's heuristic when it enters the tree
//! ([`crate::alphabeta::HeuristicEvaluation`], moves in the order of
//! `Hints::heuristic_moves`). A position where a side is mated within D
//! plies is proven then, with no evaluation: the solver sees D plies past
//! the tree. The others keep the search's heuristic score s
//! (`Hints::heuristic_score`, linear, so that a lead already large still
//! tells one move from another), read as x = tanh(s / scale) (the side to
//! move's view, −1 to 1). x stands for the heuristic in the implicit
//! minimax backups, and a new leaf backs up (1 − w) · (W, D, L) + w ·
//! (max(x, 0), 1 − |x|, max(−x, 0)) with `leaf_weight` w, the evaluator's
//! win/draw/loss the first term (w = 0 in a game without a heuristic). The
//! root is read too, for its value, but never proven this way (it keeps
//! its moves).
//!
//! # Score utility
//!
//! Once one side is far ahead, every value is near ±1 and the search no
//! longer tells the move that widens the lead from the one that marks
//! time: a won game is held, not won. With `score_utility` λ > 0 (after
//! KataGo's score utility, on the game's heuristic score
//! `Hints::heuristic_score`), each node also keeps S, the minimax over
//! its expanded subtree of the heuristic scores of its positions (the leaf
//! search's where it ran, else the static score; a proven result counts
//! as 100 scales won or lost, a draw as 0), backed up as V is; and a
//! visited child is worth U = λ · (2/π) · atan((S − C) / `score_scale`)
//! more, C the root's S, for the side choosing: in selection and in the
//! final choice, like the moves-left utility. Centred on the root, U ranks
//! the moves around the present lead however large it is; a minimax, not
//! a mean, so that a move is scored by its best replies. The values
//! reported are untouched; the scores are reported (`score`).
//!
//! # Single moves
//!
//! With `skip_single_moves`, a leaf with one move (after the decisive
//! moves' filter) is expanded without an evaluation and the simulation goes
//! on through its move: a compulsory capture costs no network call, and the
//! position's value is that of the position after it.
//!
//! # Final move
//!
//! A proven win if there is one; else by visit count n(a)^(1/T) (T = 0: the
//! most visited), or by the lower confidence bound Q − 2σ/√n among children
//! with at least a tenth of the top visits (KataGo, Wu 2019).
//!
//! # Batching
//!
//! [`run_searches`] steps many searches together: each gathers up to
//! `leaves_per_batch` leaves, one evaluator call serves them all, and each
//! absorbs its answers; gathering and absorbing run on rayon's threads.

pub mod config;
pub mod evaluator;
mod gumbel;
mod mcts;
mod tree;

use crate::game::Hints;
use rayon::prelude::*;

pub use config::{GumbelConfig, MoveChoice, MovesLeftConfig, RootSelection, SearchConfig, Tactics};
pub use evaluator::{
    CachedEvaluator, EvaluationRequest, Evaluations, Evaluator, RolloutEvaluator, UniformEvaluator,
};
pub use mcts::{ChildReport, Search, SearchResult};
pub use tree::Proof;

/// Runs every search to its end, serving the leaves of all of them with one
/// evaluator call per step.
pub fn run_searches<G: Hints, E: Evaluator<G> + ?Sized>(searches: &mut [Search<G>], evaluator: &E) {
    for search in searches.iter_mut() {
        search.begin();
    }
    let mut evaluations = Evaluations::default();
    let parallel = searches.len() > 1;
    loop {
        if parallel {
            searches.par_iter_mut().for_each(|s| {
                s.gather();
            });
        } else {
            for search in searches.iter_mut() {
                search.gather();
            }
        }
        let mut offsets = Vec::with_capacity(searches.len());
        let mut total = 0;
        for search in searches.iter() {
            offsets.push(total);
            total += search.pending_count();
        }
        if total == 0 {
            if searches.iter().all(|s| s.is_finished()) {
                return;
            }
            continue;
        }
        {
            let requests: Vec<EvaluationRequest<'_, G>> =
                searches.iter().flat_map(|s| s.requests()).collect();
            evaluator.evaluate(&requests, &mut evaluations);
        }
        assert_eq!(evaluations.len(), total, "one evaluation per request");
        if parallel {
            searches
                .par_iter_mut()
                .zip(offsets.par_iter())
                .for_each(|(search, &offset)| search.absorb(&evaluations, offset));
        } else {
            for (search, &offset) in searches.iter_mut().zip(&offsets) {
                search.absorb(&evaluations, offset);
            }
        }
    }
}
