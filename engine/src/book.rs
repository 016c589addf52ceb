//! Solution books: a proof that one side wins a position, written by
//! `grandmaitre solve --out` ([`crate::solve::Solver::proof`]) and read
//! back to play it.
//!
//! A book holds one winning move for each position of the winner's in the
//! proof; at the loser's positions every move is part of the proof, so they
//! need no entry. Reading a book replays it under the rules it is read with
//! and keeps it only if it is a proof *under those rules*: every line from
//! the root ends in the winner's win, and every winner's position on the
//! way has its move, legal. A book is therefore never trusted beyond what
//! was checked, and a book solved under one set of rules applies under any
//! other where the same lines still win (Heraldis's proof under a 14-ply
//! limit holds under the 150 plies of the real game).
//!
//! Positions are looked up through the symmetries that keep the rules, so
//! a position the proof reaches only as a mirror image is proven too.
//!
//! The text: `#` lines are comments, except `# root: POSITION` (the solved
//! position) and `# winner: PLAYER`; every other line is
//! `POSITION<TAB>MOVE` in the game's notation.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::agent::Agent;
use crate::game::{Action, Game, Outcome, Player, Symmetry, rule_symmetries};
use crate::game::{Notation, Symmetric};
use crate::search::SearchResult;

/// A checked proof that `winner` wins from its root, as moves to play.
#[derive(Clone, Debug)]
pub struct Book<G: Game> {
    winner: Player,
    root: G::State,
    moves: HashMap<G::State, Action>,
    symmetries: Vec<Symmetry>,
}

impl<G: Notation + Symmetric> Book<G> {
    /// The book's text for the proof `lines` (as [`crate::solve::Solver::proof`]
    /// gives it) that `winner` wins `root`, with `comment` as its first line.
    pub fn text(
        game: &G,
        comment: &str,
        root: &G::State,
        winner: Player,
        lines: &[(G::State, Action)],
    ) -> String {
        let mut text = format!(
            "# {comment}\n# root: {}\n# winner: {}\n# {} positions of {}'s, each with its winning move\n",
            game.format_state(root),
            game.player_name(winner),
            lines.len(),
            game.player_name(winner),
        );
        for (position, action) in lines {
            text.push_str(&game.format_state(position));
            text.push('\t');
            text.push_str(&game.format_action(position, *action));
            text.push('\n');
        }
        text
    }

    /// [`Book::text`] read back through [`Book::read`]: the text of a book
    /// that proves its claim under `game`'s rules, or why it does not (a
    /// proof with a hole is refused before it is written anywhere).
    pub fn checked_text(
        game: &G,
        comment: &str,
        root: &G::State,
        winner: Player,
        lines: &[(G::State, Action)],
    ) -> Result<(Book<G>, String), String> {
        let text = Book::text(game, comment, root, winner, lines);
        let book = Book::read(game, &text)?;
        if book.len() != lines.len() {
            return Err(format!(
                "{} of the proof's {} positions are off its lines",
                lines.len() - book.len(),
                lines.len()
            ));
        }
        Ok((book, text))
    }

    /// Reads a book and checks that it proves its claim under `game`'s
    /// rules; the error says where it does not (a line that does not read,
    /// a position without its move, a line that does not end in a win).
    pub fn read(game: &G, text: &str) -> Result<Book<G>, String> {
        let mut root = None;
        let mut winner = None;
        let mut moves = HashMap::new();
        for (number, line) in text.lines().enumerate() {
            let at = |reason: String| format!("line {}: {reason}", number + 1);
            if let Some(comment) = line.strip_prefix('#') {
                let comment = comment.trim();
                if let Some(position) = comment.strip_prefix("root:") {
                    let state = game
                        .parse_state(position.trim())
                        .map_err(|e| at(e.to_string()))?;
                    root = Some(state);
                } else if let Some(name) = comment.strip_prefix("winner:") {
                    let player = game
                        .player_named(name.trim())
                        .ok_or_else(|| at(format!("unknown player '{}'", name.trim())))?;
                    winner = Some(player);
                }
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            let (position, action) = line
                .split_once('\t')
                .ok_or_else(|| at("expected POSITION<TAB>MOVE".to_string()))?;
            let state = game.parse_state(position).map_err(|e| at(e.to_string()))?;
            let action = game
                .parse_action(&state, action)
                .map_err(|e| at(e.to_string()))?;
            if !game.is_legal(&state, action) {
                let text = game.format_action(&state, action);
                return Err(at(format!("{text} is not legal there")));
            }
            moves.insert(state, action);
        }
        let root = root.ok_or("no '# root: POSITION' line")?;
        let winner = winner.ok_or("no '# winner: PLAYER' line")?;
        let mut book = Book {
            winner,
            root,
            moves,
            symmetries: rule_symmetries(game),
        };
        let reached = book.check(game)?;
        // A line the replay did not reach is no part of the proof: kept, it
        // would answer `best_move` and `outcome` without having been checked.
        book.moves.retain(|state, _| reached.contains(state));
        Ok(book)
    }

    /// Replays the proof from the root: every line must end in the
    /// winner's win. Returns the positions the replay reached, the only
    /// ones the check vouches for.
    fn check(&self, game: &G) -> Result<HashSet<G::State>, String> {
        let mut seen = HashSet::new();
        let mut stack = vec![self.root.clone()];
        let mut actions = Vec::new();
        while let Some(state) = stack.pop() {
            if !seen.insert(state.clone()) {
                continue;
            }
            match game.outcome_for(&state, self.winner) {
                Some(Outcome::Win) => continue,
                Some(_) => {
                    return Err(format!(
                        "{}: the game ends without {}'s win",
                        game.format_state(&state),
                        game.player_name(self.winner)
                    ));
                }
                None => {}
            }
            if game.current_player(&state) == self.winner {
                let action = self.moves.get(&state).ok_or_else(|| {
                    format!("{}: the book has no move there", game.format_state(&state))
                })?;
                // Legal: `read` checked every move of the book.
                let mut child = state.clone();
                game.apply_unchecked(&mut child, *action);
                stack.push(child);
            } else {
                game.legal_actions(&state, &mut actions);
                if actions.is_empty() {
                    return Err(format!(
                        "{}: no legal move and the game is not over",
                        game.format_state(&state)
                    ));
                }
                for &action in &actions {
                    let mut child = state.clone();
                    game.apply_unchecked(&mut child, action);
                    stack.push(child);
                }
            }
        }
        Ok(seen)
    }

    /// The side the book wins for.
    pub fn winner(&self) -> Player {
        self.winner
    }

    /// The position the book solves.
    pub fn root(&self) -> &G::State {
        &self.root
    }

    /// Positions with a move in the book (the winner's of the proof).
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether the book has no position (its root is then a position
    /// where the loser is to move and every move loses at once).
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// The symmetries under which positions are looked up, as cell maps:
    /// for each, where each cell of the board goes (for a runtime that
    /// looks positions up itself).
    pub fn cell_maps(&self, game: &G) -> Vec<Vec<usize>> {
        let cells = game.spec().board_actions();
        self.symmetries
            .iter()
            .map(|&s| {
                (0..cells)
                    .map(|cell| game.transform_cell(cell, s))
                    .collect()
            })
            .collect()
    }

    /// The proven move in `state`, if `state` (or an image of it under a
    /// symmetry of the rules) is a winner's position of the proof.
    pub fn best_move(&self, game: &G, state: &G::State) -> Option<Action> {
        if game.current_player(state) != self.winner {
            return None;
        }
        self.symmetries.iter().find_map(|&symmetry| {
            let image = if symmetry.0 == 0 {
                None
            } else {
                Some(game.transform_state(state, symmetry))
            };
            let action = *self.moves.get(image.as_ref().unwrap_or(state))?;
            Some(if symmetry.0 == 0 {
                action
            } else {
                game.transform_action(action, game.inverse_symmetry(symmetry))
            })
        })
    }

    /// The value of an unfinished `state` for its side to move, when the
    /// book proves it: a win at a winner's position of the proof, a loss
    /// where the loser is to move and every move leads to one (or ends the
    /// game in the winner's win).
    pub fn outcome(&self, game: &G, state: &G::State) -> Option<Outcome> {
        if game.outcome(state).is_some() {
            return None;
        }
        if game.current_player(state) == self.winner {
            return self.best_move(game, state).map(|_| Outcome::Win);
        }
        let mut actions = Vec::new();
        game.legal_actions(state, &mut actions);
        let lost = !actions.is_empty()
            && actions.iter().all(|&action| {
                let mut child = state.clone();
                game.apply_unchecked(&mut child, action);
                game.outcome_for(&child, self.winner) == Some(Outcome::Win)
                    || self.best_move(game, &child).is_some()
            });
        lost.then_some(Outcome::Loss)
    }
}

/// An agent that plays the book's move where the book has one, and the
/// agent it wraps everywhere else (told of every move, so that a search
/// keeps its tree).
pub struct BookAgent<G: Game> {
    book: Arc<Book<G>>,
    inner: Box<dyn Agent<G>>,
    from_book: bool,
}

impl<G: Notation + Symmetric> std::fmt::Debug for BookAgent<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BookAgent")
            .field("positions", &self.book.len())
            .field("from_book", &self.from_book)
            .finish_non_exhaustive()
    }
}

impl<G: Game> BookAgent<G> {
    /// `inner`, playing `book`'s moves where it has them.
    pub fn new(book: Arc<Book<G>>, inner: Box<dyn Agent<G>>) -> BookAgent<G> {
        BookAgent {
            book,
            inner,
            from_book: false,
        }
    }
}

impl<G: Notation + Symmetric + 'static> Agent<G> for BookAgent<G> {
    fn select(&mut self, game: &G, state: &G::State) -> Action {
        match self.book.best_move(game, state) {
            Some(action) => {
                self.from_book = true;
                action
            }
            None => {
                self.from_book = false;
                self.inner.select(game, state)
            }
        }
    }

    fn observe(&mut self, game: &G, state: &G::State, action: Action) {
        self.inner.observe(game, state, action);
    }

    /// The wrapped agent's search, when its move was played (none after a
    /// move of the book).
    fn last_result(&self) -> Option<&SearchResult> {
        if self.from_book {
            None
        } else {
            self.inner.last_result()
        }
    }
}
