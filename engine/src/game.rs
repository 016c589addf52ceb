//! The interface every game implements.
//!
//! The split follows OpenSpiel's Game/State: a [`Game`] value holds the rules
//! and their parameters (for Heraldis the board layout and the ply limit), a
//! [`Game::State`] is a plain, cheaply cloned position. Every method that needs
//! the rules takes the game by reference, so a search tree stores states of a
//! few bytes each.
//!
//! Values and outcomes are always from the point of view of the side to move.

use std::fmt::{self, Debug};
use std::hash::Hash;
use std::str::FromStr;

use thiserror::Error;

/// An action: the index of a move in the policy head of the network.
///
/// Actions are dense, in `0..GameSpec::action_count`; each game documents its
/// own numbering (for Heraldis: the 25 cells, then `pass`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Action(pub u16);

/// The positions that led to a position, oldest first, each with the move
/// played there (the bar reads a person's moves from it).
pub type History<G> = [(<G as Game>::State, Action)];

impl Action {
    /// The action's index into the policy head.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// One of the two players; the first player moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Player {
    /// The player who makes the first move.
    First,
    /// The player who makes the second move.
    Second,
}

impl Player {
    /// The other player.
    pub fn opponent(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }

    /// 0 for the first player, 1 for the second.
    pub fn index(self) -> usize {
        match self {
            Player::First => 0,
            Player::Second => 1,
        }
    }
}

/// The result of a finished game, from the point of view of one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// That player won.
    Win,
    /// Nobody won.
    Draw,
    /// That player lost.
    Loss,
}

impl Outcome {
    /// The same result seen by the other player.
    pub fn flipped(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Draw => Outcome::Draw,
            Outcome::Loss => Outcome::Win,
        }
    }

    /// +1 for a win, 0 for a draw, −1 for a loss.
    pub fn value(self) -> f32 {
        match self {
            Outcome::Win => 1.0,
            Outcome::Draw => 0.0,
            Outcome::Loss => -1.0,
        }
    }
}

/// What the rules force at once, where a game can tell it cheaply: its
/// decisive and anti-decisive moves (Teytaud & Teytaud 2010, "On the
/// huge benefit of decisive moves in Monte-Carlo tree search algorithms").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forcing {
    /// Nothing is known to be forced.
    Free,
    /// The moves listed win at once for the side to move.
    Wins,
    /// The side to move has no winning move, and the opponent would win at
    /// once on each move listed: every move outside the list loses at once
    /// (and with two or more listed, every move loses).
    Blocks,
}

/// Static facts about a game: the sizes the search and the network are built
/// with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSpec {
    /// Short lowercase name, as accepted by `--game`.
    pub name: &'static str,
    /// Number of actions, which is the size of the policy head. The first
    /// actions follow the board as `action_layout` says; others come after
    /// them.
    pub action_count: usize,
    /// How the first actions map onto the grid's cells.
    pub action_layout: ActionLayout,
    /// Shape of the encoded position: planes, height, width.
    pub observation_shape: [usize; 3],
    /// The input plane that is 1 on the board's cells and 0 on grid cells
    /// off the board, when the board does not fill its grid.
    pub board_plane: Option<usize>,
    /// Version of the encoding; bumped whenever a plane changes meaning.
    pub encoding_version: u32,
    /// Earlier versions of the encoding whose planes are the first planes
    /// of this one, with their plane counts: a network of such a version
    /// reads this encoding with zero weights on the planes it lacks, and so
    /// computes what it did (see the model's checkpoints).
    pub earlier_encodings: &'static [(u32, usize)],
    /// No game lasts more plies than this.
    pub max_game_length: usize,
    /// Number of symmetries of the board (index 0 is the identity).
    pub symmetry_count: usize,
}

/// How a game's first actions map onto the grid's cells (a cell is its
/// offset within a plane, row-major), for networks whose policy follows the
/// board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionLayout {
    /// Actions below height × width are the cells, as far as the game's
    /// actions are cells (a placement game).
    Cells,
    /// Actions below cells² are moves from one cell to another, action
    /// `from · cells + to` (a game of moving pieces).
    CellPairs,
}

impl GameSpec {
    /// Actions that the board's cells give: one per cell, or one per pair
    /// of cells.
    pub fn board_actions(&self) -> usize {
        let cells = self.observation_shape[1] * self.observation_shape[2];
        match self.action_layout {
            ActionLayout::Cells => cells,
            ActionLayout::CellPairs => cells * cells,
        }
    }

    /// Number of floats in one encoded position.
    pub fn observation_len(&self) -> usize {
        self.observation_shape.iter().product()
    }
}

/// An action that is not legal in the position it was applied to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("illegal move")]
pub struct IllegalAction;

/// A symmetry of the board, as an index in `0..GameSpec::symmetry_count`;
/// index 0 is the identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Symmetry(pub u8);

/// A two-player, alternating, perfect-information game: its rules, and
/// the encoding a network reads.
///
/// This is the core a game must write: nine methods (its rules as a value,
/// its static facts, the start, the side to move, the ply count, the legal
/// moves, their effect, the end, the encoding). What else a game has, it
/// opts into through traits of its own, each with defaults:
/// - [`Notation`]: positions and moves as text (every registered game has
///   it: the program reads and prints them);
/// - [`Symmetric`]: the board's symmetries (by default the identity only);
/// - [`Hints`]: what a game can tell the search and training beyond its
///   rules (forcing moves, decided positions, other starts, ownership).
///
/// Implementations must keep these facts, which the generic conformance check
/// (`crate::conformance`) verifies on random games:
/// - [`legal_actions`](Game::legal_actions) is sorted, without duplicates, in
///   range, and empty exactly when [`outcome`](Game::outcome) is `Some`;
/// - a game never lasts more than `max_game_length` plies;
/// - the default game is the game of the default rules, and a game's rules
///   read back from their text;
/// - [`Notation::format_state`] and [`Notation::parse_state`] round-trip,
///   and so do [`Notation::format_action`] and [`Notation::parse_action`];
/// - each symmetry maps legal moves onto legal moves and encodings onto
///   encodings.
///
/// # Chance and hidden information
///
/// Nothing here draws dice or hides a card. A game with chance (a card game
/// such as Holmes, whose deals are random) would get chance nodes: a state
/// whose "player" is chance, with a method listing the outcomes and their
/// probabilities, which the search samples or averages over instead of
/// choosing (as OpenSpiel's `ChanceOutcomes`). Hidden information would add
/// a per-player view of the state: [`encode`](Game::encode) and the
/// notation would take the observing player, and the search would run on
/// states sampled consistently with that view (determinisation, or
/// information-set search). Both are additions to this trait with defaults
/// for the games without them; neither exists yet.
pub trait Game: Clone + Debug + Default + Send + Sync {
    /// A position. Small and cheap to clone: search trees store many.
    type State: Clone + Debug + PartialEq + Eq + Hash + Send + Sync;

    /// The rules' parameters as a value (for Heraldis the layout and the
    /// ply limit): written and read as text in one syntax (`key=value`
    /// fields, [`crate::parameters`]), compared and hashed as values, the
    /// default the default rules. The game of given rules is
    /// `rules.into()`.
    type Rules: Clone
        + Debug
        + Default
        + PartialEq
        + Eq
        + Hash
        + fmt::Display
        + FromStr<Err = ParseError>
        + Into<Self>
        + Send
        + Sync;

    /// The rules in force.
    fn rules(&self) -> &Self::Rules;

    /// The game's static facts.
    fn spec(&self) -> &GameSpec;

    /// The position at the start of a game.
    fn initial_state(&self) -> Self::State;

    /// The player whose turn it is (also defined, but meaningless, once the
    /// game is over).
    fn current_player(&self, state: &Self::State) -> Player;

    /// Number of plies played since the start.
    fn ply(&self, state: &Self::State) -> usize;

    /// Appends the legal actions, in increasing order, to `actions` (which is
    /// cleared first). Empty exactly when the game is over.
    fn legal_actions(&self, state: &Self::State, actions: &mut Vec<Action>);

    /// Plays `action`, which must be legal.
    ///
    /// # Panics
    ///
    /// May panic, or leave a meaningless state, when `action` is not legal;
    /// use [`play`](Game::play) for unchecked input.
    fn apply_unchecked(&self, state: &mut Self::State, action: Action);

    /// `None` while the game goes on; otherwise its result for the side to
    /// move.
    fn outcome(&self, state: &Self::State) -> Option<Outcome>;

    /// Writes the network input for `state` into `planes`, whose length is
    /// `spec().observation_len()`, plane-major.
    fn encode(&self, state: &Self::State, planes: &mut [f32]);

    /// The game under the rules `text` names.
    fn with_rules(text: &str) -> Result<Self, ParseError> {
        Ok(text.parse::<Self::Rules>()?.into())
    }

    /// The game under its own rules: these rules less any training rule
    /// that decides what the game's own rules call a draw (an adjudication
    /// at the ply cap). A game without such rules is its own.
    fn under_own_rules(&self) -> Self {
        self.clone()
    }

    /// Whether `action` is legal in `state`. By default it looks among the
    /// legal actions; a game overrides it with a faster test.
    fn is_legal(&self, state: &Self::State, action: Action) -> bool {
        let mut actions = Vec::new();
        self.legal_actions(state, &mut actions);
        actions.binary_search(&action).is_ok()
    }

    /// Plays `action` if it is legal.
    fn play(&self, state: &Self::State, action: Action) -> Result<Self::State, IllegalAction> {
        if !self.is_legal(state, action) {
            return Err(IllegalAction);
        }
        let mut next = state.clone();
        self.apply_unchecked(&mut next, action);
        Ok(next)
    }

    /// The result for `player` once the game is over.
    fn outcome_for(&self, state: &Self::State, player: Player) -> Option<Outcome> {
        let outcome = self.outcome(state)?;
        Some(if player == self.current_player(state) {
            outcome
        } else {
            outcome.flipped()
        })
    }

    /// Counts the move sequences of length `depth` from `state` (a finished
    /// game has no moves). Games may override it with a faster count.
    fn perft(&self, state: &Self::State, depth: u32) -> u64 {
        perft_by_moves(self, state, depth)
    }
}

/// A game's positions and moves as text: what the program reads and
/// prints, which the search never needs.
pub trait Notation: Game {
    /// Reads a position in the game's notation.
    fn parse_state(&self, text: &str) -> Result<Self::State, ParseError>;

    /// Writes a position in the game's notation.
    fn format_state(&self, state: &Self::State) -> String;

    /// Reads a legal move of `state` in the game's notation.
    fn parse_action(&self, state: &Self::State, text: &str) -> Result<Action, ParseError>;

    /// Writes `action`, a legal move of `state`, in the game's notation.
    fn format_action(&self, state: &Self::State, action: Action) -> String;

    /// The position drawn as text for people: the board, whose turn it is,
    /// the game's particulars and the legal moves. By default the
    /// position's notation, the side to move and the legal moves.
    fn render(&self, state: &Self::State) -> String {
        let mut actions = Vec::new();
        self.legal_actions(state, &mut actions);
        let moves: Vec<String> = actions
            .iter()
            .map(|&action| self.format_action(state, action))
            .collect();
        format!(
            "{}\n{} to move\nlegal moves: {}\n",
            self.format_state(state),
            self.player_name(self.current_player(state)),
            moves.join(" ")
        )
    }

    /// The name of `player` in this game, in lower case (a colour:
    /// "light", "white"…), as the engine protocol and reports write it.
    fn player_name(&self, player: Player) -> &'static str {
        match player {
            Player::First => "first",
            Player::Second => "second",
        }
    }

    /// The player a name stands for: the name [`Notation::player_name`]
    /// gives or its first letter, in any case.
    fn player_named(&self, name: &str) -> Option<Player> {
        [Player::First, Player::Second].into_iter().find(|&player| {
            let own = self.player_name(player);
            name.eq_ignore_ascii_case(own) || name.eq_ignore_ascii_case(&own[..1])
        })
    }
}

/// The symmetries of a game's board, `spec().symmetry_count` of them (index
/// 0 the identity): a game opts in by implementing this trait, and keeps
/// the defaults (the identity alone) if it has none.
pub trait Symmetric: Game {
    /// The game seen through `symmetry`: the same rules with their
    /// board-dependent parameters (such as a layout) transformed.
    fn transformed(&self, _symmetry: Symmetry) -> Self {
        self.clone()
    }

    /// `state` seen through `symmetry`; it is a position of
    /// `self.transformed(symmetry)`.
    fn transform_state(&self, state: &Self::State, _symmetry: Symmetry) -> Self::State {
        state.clone()
    }

    /// `action` seen through `symmetry`.
    fn transform_action(&self, action: Action, _symmetry: Symmetry) -> Action {
        action
    }

    /// The symmetry that undoes `symmetry`.
    fn inverse_symmetry(&self, symmetry: Symmetry) -> Symmetry {
        symmetry
    }

    /// The offset within a plane of the encoding where the cell at offset
    /// `cell` goes under `symmetry`. By default the action of that index
    /// moved by the symmetry, for games whose first actions are their cells
    /// in plane order (Heraldis, Havannah); a game whose actions are not
    /// cells gives its own.
    fn transform_cell(&self, cell: usize, symmetry: Symmetry) -> usize {
        self.transform_action(Action(cell as u16), symmetry).index()
    }
}

/// What a game can tell the search and training beyond its rules, each
/// where it can tell it cheaply: a game opts into the ones it has; the
/// defaults know nothing.
pub trait Hints: Game {
    /// The moves the rules force in `state` (see [`Forcing`]), written to
    /// `moves` (cleared first): a game gives them when it can find
    /// immediate wins far faster than by playing every move. A finished
    /// game forces nothing.
    fn forcing_moves(&self, _state: &Self::State, moves: &mut Vec<Action>) -> Forcing {
        moves.clear();
        Forcing::Free
    }

    /// The result the rules already decide in the live position `state`,
    /// from the side to move's view (Halma: a side with more pieces in its
    /// own yard than moves left before the yard rule binds; it says which
    /// rare lines escape it). The search takes such a position as proven,
    /// like a finished one, without an evaluation.
    fn decided(&self, _state: &Self::State) -> Option<Outcome> {
        None
    }

    /// A start for self-play other than [`Game::initial_state`], for a game
    /// whose results are too rare from its start for a fresh network to
    /// learn from (a reverse curriculum, Florensa et al. 2017): a position
    /// near the game's end, about `plies` moves of each side from it, drawn
    /// with `seed`; the game goes on in it. Halma walks back from its end;
    /// Bulltricker, whose captures cannot be walked back, takes the few
    /// pieces a random walk of that length leaves, as a new start.
    fn reverse_start(&self, _plies: u32, _seed: u64) -> Option<Self::State> {
        None
    }

    /// A start for self-play walked forward from the game's own start:
    /// `plies` random moves of each side (in Halma, moves that bring a
    /// piece nearer its goal, with the true move counts, so that the yard
    /// rule meets a partly emptied yard), drawn with `seed`; the game goes
    /// on in it. It bridges [`Hints::reverse_start`]'s positions near the
    /// end and the real start.
    fn opening_walk(&self, _plies: u32, _seed: u64) -> Option<Self::State> {
        None
    }

    /// The positions each solve may expand where the Grand Maître at full
    /// strength asks the exact solver before it trusts its search
    /// ([`crate::guard`]): a game opts in where a solve is cheap and
    /// exact (a few milliseconds for the budget, no repetitions). 0, the
    /// default: no solver.
    fn guard_nodes(&self) -> u64 {
        0
    }

    /// A hand-written score of the live position `state` for the side to
    /// move, unbounded, in the game's own units (Bulltricker: Pawns of
    /// material, the Kings' freedom, the Pawns' progress and the Queens'
    /// nearness to the opposing King), where the game has one: what the
    /// search's leaf search maximises and its score utility compares.
    /// Below 1 000 units in size. None, the default: no heuristic.
    fn heuristic_score(&self, _state: &Self::State) -> Option<f32> {
        None
    }

    /// The score at which [`Hints::heuristic`] reads tanh(1) ≈ 0.76: how
    /// far ahead a side must be for the score to stand for a likely win.
    fn heuristic_scale(&self) -> f32 {
        1.0
    }

    /// [`Hints::heuristic_score`] read as a value between −1 (lost) and 1
    /// (won), tanh(score / scale): what the search's implicit minimax
    /// backups use in place of the evaluator's values.
    fn heuristic(&self, state: &Self::State) -> Option<f32> {
        self.heuristic_score(state)
            .map(|score| (score / self.heuristic_scale()).tanh())
    }

    /// Every legal move of `state`, written to `moves` (cleared first) in
    /// the order the short alpha-beta searches on [`Hints::heuristic`]
    /// should try them, the most promising first (good ordering makes the
    /// cut-offs): by default the rules' own order.
    fn heuristic_moves(&self, state: &Self::State, moves: &mut Vec<Action>) {
        self.legal_actions(state, moves);
    }

    /// The tactics the game's own players search with
    /// ([`crate::search::Tactics`]): by default none, the network's search
    /// alone.
    fn search_tactics(&self) -> crate::search::Tactics {
        crate::search::Tactics::default()
    }

    /// Each grid cell's owner once the game `state` is over, from
    /// `player`'s point of view: 1 own, −1 the opponent's, 0 nobody's or
    /// off the board, written to `owners` (height × width, row-major, as a
    /// plane). Returns false for a game without owners of cells (then no
    /// ownership target is learned).
    fn ownership(&self, _state: &Self::State, _player: Player, _owners: &mut [f32]) -> bool {
        false
    }
}

/// A game with every part the program uses: its rules, its notation, its
/// symmetries and its hints (the last two may be the defaults).
pub trait Playable: Notation + Symmetric + Hints {}

impl<G: Notation + Symmetric + Hints> Playable for G {}

/// The name of grid cell (x, y), both from 0: the file letter, then the
/// rank from 1 (`e3`).
pub fn grid_cell_name(x: usize, y: usize) -> String {
    format!("{}{}", char::from(b'a' + x as u8), y + 1)
}

/// The (x, y) a cell name stands for (`a1` is (0, 0)), before any check
/// that it lies on a game's board: a lowercase file letter and a rank from
/// 1 without leading zeros.
pub fn parse_grid_cell(text: &str) -> Option<(usize, usize)> {
    let mut chars = text.chars();
    let letter = chars.next()?;
    let digits = chars.as_str();
    if !letter.is_ascii_lowercase()
        || digits.is_empty()
        || digits.starts_with('0')
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let y = digits.parse::<usize>().ok()?.checked_sub(1)?;
    Some((usize::from(letter as u8 - b'a'), y))
}

/// Writes one rank of a FEN-like board notation: each piece's letter, and
/// each run of empty cells (`None`) as its length.
pub fn write_rank(text: &mut String, cells: impl IntoIterator<Item = Option<char>>) {
    let mut empty = 0;
    for cell in cells {
        match cell {
            None => empty += 1,
            Some(letter) => {
                if empty > 0 {
                    text.push_str(&empty.to_string());
                    empty = 0;
                }
                text.push(letter);
            }
        }
    }
    if empty > 0 {
        text.push_str(&empty.to_string());
    }
}

/// Counts the move sequences of length `depth` by listing and making every
/// move down to the last ply: the reference that faster game-specific counts
/// are checked against.
pub fn perft_by_moves<G: Game>(game: &G, state: &G::State, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut actions = Vec::new();
    game.legal_actions(state, &mut actions);
    if depth == 1 {
        return actions.len() as u64;
    }
    actions
        .iter()
        .map(|&action| {
            let mut next = state.clone();
            game.apply_unchecked(&mut next, action);
            perft_by_moves(game, &next, depth - 1)
        })
        .sum()
}

/// Bad text given for a position, a move or a game parameter.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub struct ParseError {
    /// What was being read ("position", "move", "layout", …).
    pub what: &'static str,
    /// The text that was given.
    pub input: String,
    /// What is wrong with it.
    pub reason: String,
}

impl ParseError {
    /// A new error about reading `what` from `input`.
    pub fn new(what: &'static str, input: &str, reason: impl Into<String>) -> ParseError {
        ParseError {
            what,
            input: input.to_string(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for ParseError {
    /// `invalid <what> '<input>': <reason>`, on one line whatever the input.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {} '{}': {}",
            self.what,
            OneLine(&self.input),
            self.reason
        )
    }
}

/// Text from outside (user input, a file) shown inside a one-line message:
/// control characters and line separators are escaped as Rust writes them
/// (`\n`, `\r`, `\u{2028}`), everything else is kept.
#[derive(Clone, Copy, Debug)]
pub struct OneLine<'a>(pub &'a str);

impl fmt::Display for OneLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write;
        for c in self.0.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_debug())?;
            } else if matches!(c, '\u{2028}' | '\u{2029}') {
                write!(f, "{}", c.escape_unicode())?;
            } else {
                f.write_char(c)?;
            }
        }
        Ok(())
    }
}

/// The symmetries under which `game`'s rules are the same (the identity
/// first): those whose transformed game has the same rules.
pub fn rule_symmetries<G: Symmetric>(game: &G) -> Vec<Symmetry> {
    (0..game.spec().symmetry_count)
        .map(|s| Symmetry(s as u8))
        .filter(|&s| s.0 == 0 || game.transformed(s).rules() == game.rules())
        .collect()
}

/// `count` positions, each reached by up to `max_plies` random moves from the
/// start (stopping early at a finished game), seeded by `seed`.
pub fn random_states<G: Game>(
    game: &G,
    count: usize,
    max_plies: usize,
    seed: u64,
) -> Vec<G::State> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let mut actions = Vec::new();
    (0..count)
        .map(|_| {
            let mut state = game.initial_state();
            for _ in 0..rng.random_range(0..=max_plies) {
                game.legal_actions(&state, &mut actions);
                if actions.is_empty() {
                    break;
                }
                game.apply_unchecked(&mut state, actions[rng.random_range(0..actions.len())]);
            }
            state
        })
        .collect()
}
