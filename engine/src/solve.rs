//! Exact solving by depth-first proof-number search (df-pn; Nagai 2002,
//! "Df-pn algorithm for searching AND/OR trees and its applications"),
//! with a transposition table keyed by the position reduced by the rules'
//! own symmetries.
//!
//! One df-pn proves or disproves that a given player (the *attacker*)
//! wins: at the attacker's nodes (OR) one move must win, at the other
//! side's (AND) every move must. A draw disproves both sides' wins, so the
//! value of a position takes at most two searches: "does the side to move
//! win?", then, if not, "does the opponent win?"; neither is a draw.
//!
//! Proof and disproof numbers start at 1 for every new position (the
//! order in which moves are tried is then the game's move order); a
//! finished game is proven (the attacker won) or disproven. Thresholds
//! follow Nagai's: a child is searched until its number passes the
//! second-best sibling's, with the "1 + ε" widening of Pawlewicz and Lew
//! (2007) against the thrashing of small thresholds. Games whose positions
//! never come back (Heraldis: every move adds a piece; Halma and Havannah
//! count their moves) search a DAG, so the table's numbers are exact
//! bounds (no graph-history interaction). Bulltricker's repetition rule
//! looks at earlier positions that its positions' equality leaves out, so
//! a Bulltricker solution can be wrong where repetitions decide.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::time::Instant;

use crate::game::{Action, Game, Outcome, Player, Symmetric, Symmetry};

/// A proof or disproof number: ∞ is proven (or disproven) for good.
const INFINITE: u32 = u32::MAX;

/// The result of solving a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solution {
    /// The game's value for the side to move.
    Solved(Outcome),
    /// The budget ran out first.
    Unknown,
}

/// What a solve did.
#[derive(Clone, Debug)]
pub struct SolveReport {
    /// The value for the side to move, if found.
    pub solution: Solution,
    /// A winning move for the side to move when it wins (a drawing one when
    /// it draws, any when it loses); none in a finished game.
    pub best_move: Option<Action>,
    /// Positions expanded.
    pub nodes: u64,
    /// Positions in the transposition table.
    pub table_size: usize,
    /// Seconds spent.
    pub seconds: f64,
}

/// Limits of a solve.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// At most this many expanded positions.
    pub nodes: u64,
    /// At most this many seconds.
    pub seconds: f64,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    proof: u32,
    disproof: u32,
}

/// How far a solve has gone, for a progress display.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Positions expanded so far.
    pub nodes: u64,
    /// Positions in the transposition table.
    pub table_size: usize,
    /// Seconds since the solve began.
    pub seconds: f64,
}

/// Called with the solve's progress about once a second.
type ProgressReport = Box<dyn FnMut(&Progress) + Send>;

/// A df-pn solver for one game, keeping its table between solves.
pub struct Solver<G: Game> {
    game: G,
    /// The symmetries under which the rules are the same (the identity
    /// first).
    symmetries: Vec<Symmetry>,
    /// Per attacker, the numbers of the positions seen.
    tables: [HashMap<u64, Entry>; 2],
    hasher: std::collections::hash_map::RandomState,
    nodes: u64,
    started: Instant,
    budget: Budget,
    out_of_budget: bool,
    /// 1 + ε of the threshold widening.
    epsilon: f64,
    progress: Option<ProgressReport>,
    last_report: f64,
}

impl<G: Game> std::fmt::Debug for Solver<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solver")
            .field("game", &self.game)
            .field("nodes", &self.nodes)
            .field("table_size", &(self.tables[0].len() + self.tables[1].len()))
            .finish_non_exhaustive()
    }
}

impl<G: Symmetric> Solver<G> {
    /// A solver for `game`.
    pub fn new(game: G) -> Solver<G> {
        let symmetries = crate::game::rule_symmetries(&game);
        Solver {
            game,
            symmetries,
            tables: [HashMap::new(), HashMap::new()],
            hasher: std::collections::hash_map::RandomState::new(),
            nodes: 0,
            started: Instant::now(),
            budget: Budget {
                nodes: u64::MAX,
                seconds: f64::INFINITY,
            },
            out_of_budget: false,
            epsilon: 0.25,
            progress: None,
            last_report: 0.0,
        }
    }

    /// The same solver, reporting its progress to `report` about once a
    /// second while it searches.
    pub fn with_progress(mut self, report: impl FnMut(&Progress) + Send + 'static) -> Solver<G> {
        self.progress = Some(Box::new(report));
        self
    }

    /// The position's key: the smallest hash over the symmetries that keep
    /// the rules.
    fn key(&self, state: &G::State) -> u64 {
        self.symmetries
            .iter()
            .map(|&s| {
                let mut hasher = self.hasher.build_hasher();
                if s.0 == 0 {
                    state.hash(&mut hasher);
                } else {
                    self.game.transform_state(state, s).hash(&mut hasher);
                }
                hasher.finish()
            })
            .min()
            .expect("the identity")
    }

    /// The numbers of a finished game for `attacker`, if `state` is one.
    fn finished(&self, state: &G::State, attacker: Player) -> Option<Entry> {
        self.game.outcome_for(state, attacker).map(|outcome| {
            if outcome == Outcome::Win {
                Entry {
                    proof: 0,
                    disproof: INFINITE,
                }
            } else {
                Entry {
                    proof: INFINITE,
                    disproof: 0,
                }
            }
        })
    }

    /// The numbers of the unfinished position of table key `key`: from the
    /// table, or 1 and 1.
    fn stored(&self, key: u64, attacker: Player) -> Entry {
        self.tables[attacker.index()]
            .get(&key)
            .copied()
            .unwrap_or(Entry {
                proof: 1,
                disproof: 1,
            })
    }

    /// The numbers of `state` for `attacker`: those of a finished game, or
    /// from the table, or 1 and 1.
    fn numbers(&self, state: &G::State, attacker: Player) -> Entry {
        self.finished(state, attacker)
            .unwrap_or_else(|| self.stored(self.key(state), attacker))
    }

    fn spent(&mut self) -> bool {
        if self.out_of_budget {
            return true;
        }
        if self.nodes >= self.budget.nodes {
            self.out_of_budget = true;
        } else if self.nodes.is_multiple_of(1024) {
            let seconds = self.started.elapsed().as_secs_f64();
            self.out_of_budget = seconds >= self.budget.seconds;
            if seconds >= self.last_report + 1.0 {
                self.last_report = seconds;
                let progress = Progress {
                    nodes: self.nodes,
                    table_size: self.tables[0].len() + self.tables[1].len(),
                    seconds,
                };
                if let Some(report) = &mut self.progress {
                    report(&progress);
                }
            }
        }
        self.out_of_budget
    }

    /// Whether `attacker` wins `state` (`None`: the budget ran out).
    pub fn proves_win(&mut self, state: &G::State, attacker: Player) -> Option<bool> {
        let entry = self.numbers(state, attacker);
        if entry.proof == 0 || entry.disproof == 0 {
            return Some(entry.proof == 0);
        }
        let entry = self.mid(state, attacker, INFINITE - 1, INFINITE - 1);
        if entry.proof == 0 {
            Some(true)
        } else if entry.disproof == 0 {
            Some(false)
        } else {
            None
        }
    }

    /// Nagai's multiple iterative deepening at `state`: searches until its
    /// numbers reach the thresholds, and returns them.
    fn mid(
        &mut self,
        state: &G::State,
        attacker: Player,
        proof_limit: u32,
        disproof_limit: u32,
    ) -> Entry {
        if let Some(entry) = self.finished(state, attacker) {
            return entry;
        }
        let key = self.key(state);
        let mut entry = self.stored(key, attacker);
        if entry.proof == 0 || entry.disproof == 0 {
            return entry;
        }
        self.nodes += 1;
        let or_node = self.game.current_player(state) == attacker;
        let mut actions = Vec::new();
        self.game.legal_actions(state, &mut actions);
        let children: Vec<G::State> = actions
            .iter()
            .map(|&a| {
                let mut child = state.clone();
                self.game.apply_unchecked(&mut child, a);
                child
            })
            .collect();
        // Each child once: a finished game's numbers, or its table key.
        let known: Vec<Result<Entry, u64>> = children
            .iter()
            .map(|c| self.finished(c, attacker).ok_or_else(|| self.key(c)))
            .collect();
        loop {
            let numbers: Vec<Entry> = known
                .iter()
                .map(|k| match *k {
                    Ok(entry) => entry,
                    Err(key) => self.stored(key, attacker),
                })
                .collect();
            entry = combine(&numbers, or_node);
            if entry.proof >= proof_limit || entry.disproof >= disproof_limit || self.spent() {
                break;
            }
            // The child to search: the most promising for the node's side,
            // and the second best's number, which bounds its threshold.
            let (best, second) = select(&numbers, or_node);
            let child = numbers[best];
            let widen = |n: u32| -> u32 {
                if n >= INFINITE - 1 {
                    n
                } else {
                    ((f64::from(n) * (1.0 + self.epsilon)).ceil() as u32).max(n.saturating_add(1))
                }
            };
            let (child_proof, child_disproof) = if or_node {
                (
                    proof_limit.min(widen(second)),
                    add(
                        child.disproof,
                        disproof_limit.saturating_sub(entry.disproof),
                    ),
                )
            } else {
                (
                    add(child.proof, proof_limit.saturating_sub(entry.proof)),
                    disproof_limit.min(widen(second)),
                )
            };
            let searched = self.mid(&children[best], attacker, child_proof, child_disproof);
            if let Err(child_key) = known[best] {
                self.tables[attacker.index()].insert(child_key, searched);
            }
        }
        self.tables[attacker.index()].insert(key, entry);
        entry
    }

    /// Solves `state` within `budget`: its value for the side to move and
    /// a move that achieves it.
    pub fn solve(&mut self, state: &G::State, budget: Budget) -> SolveReport {
        self.nodes = 0;
        self.started = Instant::now();
        self.last_report = 0.0;
        self.budget = budget;
        self.out_of_budget = false;
        let side = self.game.current_player(state);
        let solution = match self.proves_win(state, side) {
            Some(true) => Solution::Solved(Outcome::Win),
            Some(false) => match self.proves_win(state, side.opponent()) {
                Some(true) => Solution::Solved(Outcome::Loss),
                Some(false) => Solution::Solved(Outcome::Draw),
                None => Solution::Unknown,
            },
            None => Solution::Unknown,
        };
        let best_move = match solution {
            Solution::Solved(outcome) => self.move_keeping(state, outcome),
            Solution::Unknown => None,
        };
        SolveReport {
            solution,
            best_move,
            nodes: self.nodes,
            table_size: self.tables[0].len() + self.tables[1].len(),
            seconds: self.started.elapsed().as_secs_f64(),
        }
    }

    /// A move of the side to move that keeps `outcome` (its value), from
    /// the table: for a win a proven child, for a draw a child the opponent
    /// does not win, for a loss any move.
    fn move_keeping(&mut self, state: &G::State, outcome: Outcome) -> Option<Action> {
        let side = self.game.current_player(state);
        let mut actions = Vec::new();
        self.game.legal_actions(state, &mut actions);
        actions.into_iter().find(|&action| {
            let child = self.game.play(state, action).expect("legal");
            match outcome {
                Outcome::Win => self.numbers(&child, side).proof == 0,
                Outcome::Draw => self.proves_win(&child, side.opponent()) == Some(false),
                Outcome::Loss => true,
            }
        })
    }
}

impl<G: Symmetric> Solver<G> {
    /// The proof that `attacker` wins `state`, as a book: one winning move
    /// for each position of the attacker's in the proof, the positions
    /// reached by that move at the attacker's turns and by every move at
    /// the other side's, each listed once (the proof is a DAG).
    /// `None` if the win is not proven within the solver's budget.
    pub fn proof(&mut self, state: &G::State, attacker: Player) -> Option<Vec<(G::State, Action)>> {
        let mut book = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![state.clone()];
        let mut actions = Vec::new();
        while let Some(current) = stack.pop() {
            if !seen.insert(current.clone()) {
                continue;
            }
            match self.game.outcome_for(&current, attacker) {
                Some(Outcome::Win) => continue,
                Some(_) => return None,
                None => {}
            }
            self.game.legal_actions(&current, &mut actions);
            if self.game.current_player(&current) == attacker {
                let winning = actions.iter().copied().find(|&action| {
                    let child = self.game.play(&current, action).expect("legal");
                    self.numbers(&child, attacker).proof == 0
                });
                // A position proven through the table has a proven child
                // there; one reached here first is proven now.
                let winning = match winning {
                    Some(action) => action,
                    None => {
                        if self.proves_win(&current, attacker) != Some(true) {
                            return None;
                        }
                        actions.iter().copied().find(|&action| {
                            let child = self.game.play(&current, action).expect("legal");
                            self.numbers(&child, attacker).proof == 0
                        })?
                    }
                };
                stack.push(self.game.play(&current, winning).expect("legal"));
                book.push((current, winning));
            } else {
                for &action in &actions {
                    stack.push(self.game.play(&current, action).expect("legal"));
                }
            }
        }
        Some(book)
    }
}

/// The numbers of a node from its children's.
fn combine(children: &[Entry], or_node: bool) -> Entry {
    let min_proof = children.iter().map(|e| e.proof).min().unwrap_or(INFINITE);
    let min_disproof = children
        .iter()
        .map(|e| e.disproof)
        .min()
        .unwrap_or(INFINITE);
    let sum_proof = children.iter().fold(0, |s: u32, e| add(s, e.proof));
    let sum_disproof = children.iter().fold(0, |s: u32, e| add(s, e.disproof));
    if or_node {
        Entry {
            proof: min_proof,
            disproof: sum_disproof,
        }
    } else {
        Entry {
            proof: sum_proof,
            disproof: min_disproof,
        }
    }
}

/// The child to search and the second best's number (proof at an OR node,
/// disproof at an AND node).
fn select(children: &[Entry], or_node: bool) -> (usize, u32) {
    let number = |e: &Entry| if or_node { e.proof } else { e.disproof };
    let mut best = 0;
    let mut second = INFINITE;
    for (index, child) in children.iter().enumerate().skip(1) {
        let n = number(child);
        if n < number(&children[best]) {
            second = number(&children[best]);
            best = index;
        } else if n < second {
            second = n;
        }
    }
    (best, second)
}

/// Saturating addition that keeps ∞ for good.
fn add(a: u32, b: u32) -> u32 {
    if a == INFINITE || b == INFINITE {
        INFINITE
    } else {
        a.saturating_add(b).min(INFINITE - 1)
    }
}
