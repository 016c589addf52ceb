//! Halma on 8 × 8 (10 pieces a side) and 10 × 10 (15 pieces), as the
//! seed's game club plays it (rules: `shared/rules/halma.md`; every engine
//! rule is a parameter).
//!
//! Actions: a move from cell `f` to cell `t` is `f · N² + t` (cells
//! `x + N · y`, see [`board`]), so that the policy is an N² × N² square of
//! from-to logits; then one action for `pass`, legal only when no move is.
//! A move is its two ends: jump paths to the same cell are one move.
//!
//! After each move of player X, with n its moves so far and L the yard
//! limit (30 on 8 × 8, 50 on 10 × 10): all of X's pieces in the opposing
//! yard win; otherwise, past the limit (n > L, or n ≥ L with `compare=ge`),
//! a piece of X still in its own yard loses. Two passes in a row draw, and
//! so does reaching the draw limit (200 moves each) — unless the rules
//! adjudicate it by the race (`adjudicate=race`, a training rule: the side
//! whose pieces are nearer their goal corner then wins).

pub mod baselines;
pub mod board;
mod board_text;
mod encoding;
pub mod moves;
mod position;
mod walks;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub use board::{Board, Cells, Corner, SIZES, cells_of};
pub use encoding::{PLANE_COUNT, PLANE_NAMES};
pub use position::{Position, Status, colour_name, side_letter};

use crate::game::{
    Action, ActionLayout, Forcing, Game, GameSpec, Hints, Notation, Outcome, ParseError, Player,
    Symmetric, Symmetry,
};
use crate::parameters::{choice, read_fields, whole_number};

/// Version of the network input encoding (see [`PLANE_NAMES`]): 2 added
/// the race planes (distances to the goal corners, the sides' totals and
/// yards).
pub const ENCODING_VERSION: u32 = 2;
/// The default board size.
pub const DEFAULT_SIZE: usize = 8;
/// Moves each side may make before the game is drawn (engine rule).
pub const DEFAULT_DRAW_MOVES: u16 = 200;

/// The yard limit of a board size: 30 moves on 8 × 8, 50 on 10 × 10.
pub fn default_yard_limit(size: usize) -> u16 {
    if size == 8 { 30 } else { 50 }
}

/// The rules of Halma on one board, with their parameters.
#[derive(Clone, Debug)]
pub struct Halma {
    board: Arc<Board>,
    rules: HalmaRules,
    spec: GameSpec,
}

/// The rules' parameters, written `size=N limit=L compare=gt|ge
/// corner=a1|h1 draw=M` (`h1` is the last file's corner: `j1` on 10 × 10),
/// then ` adjudicate=race` if the race decides the draw limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HalmaRules {
    /// Cells per side: 8 or 10.
    pub size: usize,
    /// White's yard.
    pub corner: Corner,
    /// L: the moves after which a piece left in its own yard loses.
    pub yard_limit: u16,
    /// The yard rule binds after move L (`>`, the club's text) or from
    /// move L on (`≥`).
    pub inclusive: bool,
    /// Moves each side makes before a draw.
    pub draw_moves: u16,
    /// The draw limit goes to the side ahead in the race (smaller sum of
    /// files plus ranks to its goal corner) instead of drawing (a training
    /// rule).
    pub adjudicate_race: bool,
}

impl HalmaRules {
    /// The club's rules on a board of `size`.
    pub fn of_size(size: usize) -> HalmaRules {
        HalmaRules {
            size,
            corner: Corner::A1,
            yard_limit: default_yard_limit(size),
            inclusive: false,
            draw_moves: DEFAULT_DRAW_MOVES,
            adjudicate_race: false,
        }
    }
}

impl Default for HalmaRules {
    fn default() -> HalmaRules {
        HalmaRules::of_size(DEFAULT_SIZE)
    }
}

impl fmt::Display for HalmaRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "size={} limit={} compare={} corner={} draw={}",
            self.size,
            self.yard_limit,
            if self.inclusive { "ge" } else { "gt" },
            match self.corner {
                Corner::A1 => "a1",
                Corner::LastFile => "h1",
            },
            self.draw_moves,
        )?;
        if self.adjudicate_race {
            f.write_str(" adjudicate=race")?;
        }
        Ok(())
    }
}

impl FromStr for HalmaRules {
    type Err = ParseError;

    /// Reads the fields it writes, any of them left out: size 8, the
    /// size's limit (30 or 50), `gt`, `a1`, 200, `adjudicate=none`.
    fn from_str(text: &str) -> Result<HalmaRules, ParseError> {
        let mut rules = HalmaRules::default();
        let mut limit = None;
        let fields = [
            ("size", "8|10"),
            ("limit", "L"),
            ("compare", "gt|ge"),
            ("corner", "a1|h1"),
            ("draw", "M"),
            ("adjudicate", "none|race"),
        ];
        read_fields(text, &fields, |key, value| {
            match key {
                "size" => rules.size = choice(key, value, &[("8", 8), ("10", 10)])?,
                "limit" => limit = Some(whole_number(key, value, 1, 1000)?),
                "draw" => rules.draw_moves = whole_number(key, value, 1, 1000)?,
                "compare" => {
                    rules.inclusive = choice(key, value, &[("gt", false), ("ge", true)])?;
                }
                "corner" => {
                    rules.corner = choice(
                        key,
                        value,
                        &[
                            ("a1", Corner::A1),
                            ("h1", Corner::LastFile),
                            ("j1", Corner::LastFile),
                        ],
                    )?;
                }
                _ => {
                    rules.adjudicate_race = choice(key, value, &[("none", false), ("race", true)])?;
                }
            }
            Ok(())
        })?;
        rules.yard_limit = limit.unwrap_or_else(|| default_yard_limit(rules.size));
        Ok(rules)
    }
}

impl From<HalmaRules> for Halma {
    fn from(rules: HalmaRules) -> Halma {
        Halma::new(
            rules.size,
            rules.corner,
            rules.yard_limit,
            rules.inclusive,
            rules.draw_moves,
        )
        .adjudicating_race(rules.adjudicate_race)
    }
}

impl Halma {
    /// Halma of `size` (8 or 10) with White's yard at `corner`, the yard
    /// limit `yard_limit` (binding after it, or from it on if `inclusive`)
    /// and the draw after `draw_moves` moves each.
    ///
    /// # Panics
    ///
    /// Panics if `size` is not 8 or 10, or a limit is 0
    /// (reading [`HalmaRules`] checks them instead).
    pub fn new(
        size: usize,
        corner: Corner,
        yard_limit: u16,
        inclusive: bool,
        draw_moves: u16,
    ) -> Halma {
        assert!(yard_limit > 0 && draw_moves > 0, "limits must be positive");
        let board = Board::new(size, corner);
        let cells = board.cell_count();
        Halma {
            spec: GameSpec {
                name: "halma",
                action_count: cells * cells + 1,
                action_layout: ActionLayout::CellPairs,
                observation_shape: [PLANE_COUNT, size, size],
                board_plane: None,
                encoding_version: ENCODING_VERSION,
                earlier_encodings: &[],
                // Every move but the last is followed by at most one pass.
                max_game_length: 4 * usize::from(draw_moves) + 2,
                symmetry_count: 2,
            },
            board: Arc::new(board),
            rules: HalmaRules {
                size,
                corner,
                yard_limit,
                inclusive,
                draw_moves,
                adjudicate_race: false,
            },
        }
    }

    /// These rules with the draw limit adjudicated by the race (or not).
    pub fn adjudicating_race(mut self, on: bool) -> Halma {
        self.rules.adjudicate_race = on;
        self
    }

    /// Halma of `size` with the club's rules.
    pub fn of_size(size: usize) -> Halma {
        HalmaRules::of_size(size).into()
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Cells per side.
    pub fn size(&self) -> usize {
        self.board.size()
    }

    /// L: the moves after which a piece left in its own yard loses.
    pub fn yard_limit(&self) -> u16 {
        self.rules.yard_limit
    }

    /// Moves each side makes before a draw.
    pub fn draw_moves(&self) -> u16 {
        self.rules.draw_moves
    }

    /// Whether the race decides the draw limit (`adjudicate=race`).
    pub fn adjudicates_race(&self) -> bool {
        self.rules.adjudicate_race
    }

    /// Whether a side's move number `n` (from 1) is past the yard limit.
    pub fn yard_rule_binds(&self, n: u16) -> bool {
        if self.rules.inclusive {
            n >= self.rules.yard_limit
        } else {
            n > self.rules.yard_limit
        }
    }

    /// The action of the move from `from` to `to`.
    pub fn move_action(&self, from: usize, to: usize) -> Action {
        Action((from * self.board.cell_count() + to) as u16)
    }

    /// The action of a pass.
    pub fn pass_action(&self) -> Action {
        let cells = self.board.cell_count();
        Action((cells * cells) as u16)
    }

    /// The two ends of a move's action, or `None` for the pass.
    pub fn move_ends(&self, action: Action) -> Option<(usize, usize)> {
        let cells = self.board.cell_count();
        let index = action.index();
        (index < cells * cells).then(|| (index / cells, index % cells))
    }

    /// The cells the piece on `from` can move to in `position`.
    pub fn targets(&self, position: &Position, from: usize) -> Cells {
        moves::targets(&self.board, position.occupied(), from)
    }

    /// Whether the side to move has a move (else it must pass).
    fn can_move(&self, position: &Position) -> bool {
        let moves = moves::Moves::new(&self.board, position.occupied());
        cells_of(position.pieces(position.side)).any(|from| moves.targets(from) != 0)
    }

    /// How the game stands after a move of `mover` (its `moves` already
    /// counted).
    fn status_after_move(&self, position: &Position, mover: Player) -> Status {
        let own = position.pieces(mover);
        if own & !self.board.yard(mover.opponent()) == 0 {
            Status::Won(mover)
        } else if self.yard_rule_binds(position.moves[mover.index()])
            && own & self.board.yard(mover) != 0
        {
            Status::Won(mover.opponent())
        } else if position.moves.iter().all(|&n| n >= self.rules.draw_moves) {
            self.status_at_draw_limit(position)
        } else {
            Status::Playing
        }
    }

    /// How the game ends at the draw limit: drawn, or with `adjudicate=race`
    /// won by the side whose pieces are nearer their goal corner (drawn if
    /// the races are level).
    fn status_at_draw_limit(&self, position: &Position) -> Status {
        if !self.rules.adjudicate_race {
            return Status::Drawn;
        }
        let race = |player: Player| self.board.race(player, position.pieces(player));
        match race(Player::First).cmp(&race(Player::Second)) {
            std::cmp::Ordering::Less => Status::Won(Player::First),
            std::cmp::Ordering::Greater => Status::Won(Player::Second),
            std::cmp::Ordering::Equal => Status::Drawn,
        }
    }

    /// Plays a legal action.
    fn apply(&self, position: &mut Position, action: Action) {
        let mover = position.side;
        position.ply += 1;
        position.side = mover.opponent();
        match self.move_ends(action) {
            None => {
                if position.passed {
                    position.status = Status::Drawn;
                }
                position.passed = true;
            }
            Some((from, to)) => {
                position.pieces[mover.index()] ^= (1 << from) | (1 << to);
                position.moves[mover.index()] += 1;
                position.passed = false;
                position.status = self.status_after_move(position, mover);
            }
        }
    }
}

impl Default for Halma {
    /// 8 × 8 with the club's rules.
    fn default() -> Halma {
        Halma::of_size(DEFAULT_SIZE)
    }
}

impl Game for Halma {
    type State = Position;

    type Rules = HalmaRules;

    fn rules(&self) -> &HalmaRules {
        &self.rules
    }

    fn spec(&self) -> &GameSpec {
        &self.spec
    }

    fn under_own_rules(&self) -> Self {
        self.clone().adjudicating_race(false)
    }

    fn initial_state(&self) -> Position {
        Position::start(&self.board)
    }

    fn current_player(&self, state: &Position) -> Player {
        state.side
    }

    fn ply(&self, state: &Position) -> usize {
        usize::from(state.ply)
    }

    fn legal_actions(&self, state: &Position, actions: &mut Vec<Action>) {
        actions.clear();
        if state.status != Status::Playing {
            return;
        }
        let moves = moves::Moves::new(&self.board, state.occupied());
        for from in cells_of(state.pieces(state.side)) {
            for to in cells_of(moves.targets(from)) {
                actions.push(self.move_action(from, to));
            }
        }
        if actions.is_empty() {
            actions.push(self.pass_action());
        }
    }

    fn is_legal(&self, state: &Position, action: Action) -> bool {
        if state.status != Status::Playing || action.index() >= self.spec.action_count {
            return false;
        }
        match self.move_ends(action) {
            None => !self.can_move(state),
            Some((from, to)) => {
                state.pieces(state.side) & (1 << from) != 0
                    && self.targets(state, from) & (1 << to) != 0
            }
        }
    }

    fn apply_unchecked(&self, state: &mut Position, action: Action) {
        debug_assert!(self.is_legal(state, action), "illegal action {action:?}");
        self.apply(state, action);
    }

    fn outcome(&self, state: &Position) -> Option<Outcome> {
        match state.status {
            Status::Playing => None,
            Status::Drawn => Some(Outcome::Draw),
            Status::Won(winner) if winner == state.side => Some(Outcome::Win),
            Status::Won(_) => Some(Outcome::Loss),
        }
    }

    fn encode(&self, state: &Position, planes: &mut [f32]) {
        encoding::encode(self, state, planes);
    }
}

impl Notation for Halma {
    fn parse_state(&self, text: &str) -> Result<Position, ParseError> {
        self.parse_position(text)
    }

    fn format_state(&self, state: &Position) -> String {
        state.to_notation(&self.board)
    }

    /// Reads `e3-f4` (the two ends; a jump's path `a1-c3-e5` may be given
    /// in full, only its ends count) or `pass`.
    fn parse_action(&self, state: &Position, text: &str) -> Result<Action, ParseError> {
        let error = |reason: String| ParseError::new("move", text, reason);
        if state.status != Status::Playing {
            return Err(error("the game is over".to_string()));
        }
        let action = if text == "pass" {
            if self.can_move(state) {
                return Err(error("a pass is legal only without a move".to_string()));
            }
            self.pass_action()
        } else {
            let cells: Vec<&str> = text.split('-').collect();
            let last = self.board.last_file();
            let size = self.size();
            let parsed: Option<Vec<usize>> = cells
                .iter()
                .map(|name| self.board.parse_cell(name))
                .collect();
            let Some(path) = parsed.filter(|path| path.len() >= 2) else {
                return Err(error(format!(
                    "expected two cells a1 to {last}{size} joined by '-' (e3-f4), or pass"
                )));
            };
            let (from, to) = (path[0], path[path.len() - 1]);
            if state.pieces(state.side) & (1 << from) == 0 {
                return Err(error(format!(
                    "no {} piece on {}",
                    colour_name(state.side),
                    self.board.cell_name(from)
                )));
            }
            if self.targets(state, from) & (1 << to) == 0 {
                return Err(error(format!(
                    "the piece on {} cannot reach {}",
                    self.board.cell_name(from),
                    self.board.cell_name(to)
                )));
            }
            self.move_action(from, to)
        };
        Ok(action)
    }

    fn format_action(&self, _state: &Position, action: Action) -> String {
        match self.move_ends(action) {
            None => "pass".to_string(),
            Some((from, to)) => format!(
                "{}-{}",
                self.board.cell_name(from),
                self.board.cell_name(to)
            ),
        }
    }

    fn render(&self, state: &Position) -> String {
        board_text::render(self, state)
    }

    fn player_name(&self, player: Player) -> &'static str {
        match player {
            Player::First => "white",
            Player::Second => "black",
        }
    }
}

impl Symmetric for Halma {
    fn transform_state(&self, state: &Position, symmetry: Symmetry) -> Position {
        if symmetry.0 == 0 {
            return *state;
        }
        Position {
            pieces: state.pieces.map(|cells| self.board.reflect_cells(cells)),
            ..*state
        }
    }

    fn transform_action(&self, action: Action, symmetry: Symmetry) -> Action {
        match self.move_ends(action) {
            Some((from, to)) if symmetry.0 != 0 => {
                self.move_action(self.board.reflect(from), self.board.reflect(to))
            }
            _ => action,
        }
    }

    fn transform_cell(&self, cell: usize, symmetry: Symmetry) -> usize {
        if symmetry.0 == 0 {
            cell
        } else {
            self.board.reflect(cell)
        }
    }
}

impl Hints for Halma {
    fn guard_nodes(&self) -> u64 {
        crate::guard::GUARD_NODES
    }

    /// Every piece in the opposing yard (both sides done), then `plies`
    /// random moves of each side played backwards, Black's first: a move is
    /// its own reverse (steps and jumps alike), so a backward move is a
    /// random legal move of that side. The walk may bring pieces back into
    /// their own yard; the position starts the move counts afresh (0 each,
    /// White to move), so a side meets the yard rule after the yard limit
    /// as in a game from the start, and a long walk looks like one.
    fn reverse_start(&self, plies: u32, seed: u64) -> Option<Position> {
        let board = &*self.board;
        // Both sides done: every piece in the opposing yard; Black's move
        // back first.
        let done = [board.yard(Player::Second), board.yard(Player::First)];
        let mut rng = SmallRng::seed_from_u64(seed);
        self.walk(
            done,
            [Player::Second, Player::First],
            [plies; 2],
            [0.0; 2],
            &mut rng,
        )
    }

    /// Every piece in its own yard, then `plies` moves of each side (at
    /// most one less than the yard limit), White's first, and every other
    /// time one more move of White's (Black to move); each side draws
    /// how purposeful it is, a chance from 0 to 1 that a move of its is
    /// drawn among those that bring a piece nearer its goal corner (else
    /// among all). A position a game could reach, with its true move
    /// counts, in which each side has emptied its yard more or less: the
    /// yard rule's deadline is as near as in such a game, and which side
    /// it threatens varies.
    fn opening_walk(&self, plies: u32, seed: u64) -> Option<Position> {
        let board = &*self.board;
        let start = [board.yard(Player::First), board.yard(Player::Second)];
        let mut rng = SmallRng::seed_from_u64(seed);
        let limit = self.rules.yard_limit.min(self.rules.draw_moves);
        let purpose: [f64; 2] = [rng.random(), rng.random()];
        // Every other walk ends after White's move: Black to move, so that
        // the side whose deadline comes first is either colour.
        let extra = u16::from(rng.random_bool(0.5));
        let last = limit.saturating_sub(1 + extra).max(1);
        let count = plies.min(u32::from(last)) as u16;
        let moves = [count + extra, count];
        let mut position = self.walk(
            start,
            [Player::First, Player::Second],
            moves.map(u32::from),
            purpose,
            &mut rng,
        )?;
        position.moves = moves;
        position.ply = 2 * count + extra;
        position.side = if extra == 1 {
            Player::Second
        } else {
            Player::First
        };
        Some(position)
    }

    /// The decisive moves: with one piece left outside the opposing yard,
    /// its moves into that yard win at once. (No blocks: stopping an
    /// opponent's last piece can take many kinds of move.)
    fn forcing_moves(&self, state: &Position, moves: &mut Vec<Action>) -> Forcing {
        moves.clear();
        if state.status != Status::Playing {
            return Forcing::Free;
        }
        let goal = self.board.yard(state.side.opponent());
        let outside = state.pieces(state.side) & !goal;
        if outside.count_ones() == 1 {
            let from = outside.trailing_zeros() as usize;
            let wins = moves::targets(&self.board, state.occupied(), from) & goal;
            moves.extend(cells_of(wins).map(|to| self.move_action(from, to)));
        }
        if moves.is_empty() {
            Forcing::Free
        } else {
            Forcing::Wins
        }
    }

    /// The yard rule decided in advance. A move takes at most one piece
    /// out of its own yard, so a side with more pieces there than moves
    /// left up to its first binding move has lost by that move at the
    /// latest; it is decided when the other side cannot lose by the yard
    /// rule before it (an empty yard, or a later binding move). Two cases
    /// escape it, both needing a side with no legal move or a side forced
    /// back into its own yard past its limit: a pass delays a side's
    /// binding move (two in a row draw), and the other side may still lose
    /// first by re-entering its yard.
    fn decided(&self, state: &Position) -> Option<Outcome> {
        if state.status != Status::Playing {
            return None;
        }
        let binding = if self.rules.inclusive {
            self.rules.yard_limit
        } else {
            self.rules.yard_limit + 1
        };
        if binding > self.rules.draw_moves {
            return None;
        }
        // Each side with a piece in its own yard: the ply from now of its
        // binding move (the side to move plays the odd plies), and whether
        // its yard can no longer be emptied by then.
        let deadline = |player: Player| {
            let in_yard = (state.pieces(player) & self.board.yard(player)).count_ones();
            let made = state.moves[player.index()];
            (in_yard > 0 && made < binding).then(|| {
                let left = u32::from(binding - made);
                (2 * left - u32::from(player == state.side), in_yard > left)
            })
        };
        let loses_first = |doomed: Option<(u32, bool)>, other: Option<(u32, bool)>| matches!(doomed, Some((ply, true)) if other.is_none_or(|(other_ply, _)| ply < other_ply));
        let (mine, theirs) = (deadline(state.side), deadline(state.side.opponent()));
        if loses_first(mine, theirs) {
            Some(Outcome::Loss)
        } else if loses_first(theirs, mine) {
            Some(Outcome::Win)
        } else {
            None
        }
    }
}
