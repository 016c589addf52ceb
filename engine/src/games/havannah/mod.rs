//! Havannah: Christian Freeling's connection game on a hexagon of base `n`
//! (rules: `shared/rules/havannah.md`), in OpenSpiel's coordinates and action
//! ids so that games compare move by move with its `havannah`.
//!
//! Actions: `x + y × (2n − 1)` for the cell `(x, y)` (see [`board`]); the ids
//! of grid cells off the hexagon are never legal. With the swap rule, Black's
//! first move may be the id of White's stone, which takes it over.
//!
//! The mover wins with a bridge (a group holding two corners), a fork (a
//! group touching three edges) or a ring (stones enclosing a cell); a full
//! board without one is a draw. Detection after each move is on bitboards
//! (see [`rules`]).

pub mod bitboard;
pub mod board;
mod board_text;
mod encoding;
mod position;
pub mod rules;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

pub use bitboard::Bitboard;
pub use board::{Board, MAX_BASE, MIN_BASE, SYMMETRY_COUNT};
pub use encoding::{PLANE_COUNT, PLANE_NAMES};
pub use position::{Position, Status, colour_name, side_letter};
pub use rules::Structures;

use crate::game::{
    Action, ActionLayout, Forcing, Game, GameSpec, Hints, Notation, Outcome, ParseError, Player,
    Symmetric, Symmetry,
};
use crate::parameters::{choice, read_fields, whole_number};

/// The default base: 169 cells.
pub const DEFAULT_BASE: usize = 8;
/// Version of the network input encoding (see [`PLANE_NAMES`]).
pub const ENCODING_VERSION: u32 = 1;

/// The rules of Havannah on one board size, with or without the swap rule.
#[derive(Clone, Debug)]
pub struct Havannah {
    board: Arc<Board>,
    rules: HavannahRules,
    spec: GameSpec,
}

/// The rules' parameters: the board's base and the swap rule, written
/// `base=<n> swap=<0|1>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HavannahRules {
    /// Cells per side, in `MIN_BASE..=MAX_BASE`.
    pub base: usize,
    /// Whether the second player may take over the first stone.
    pub swap: bool,
}

impl Default for HavannahRules {
    /// Base 8 with the swap rule.
    fn default() -> HavannahRules {
        HavannahRules {
            base: DEFAULT_BASE,
            swap: true,
        }
    }
}

impl fmt::Display for HavannahRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "base={} swap={}", self.base, u8::from(self.swap))
    }
}

impl FromStr for HavannahRules {
    type Err = ParseError;

    /// Reads `base=<n> swap=<0|1>`; either may be left out.
    fn from_str(text: &str) -> Result<HavannahRules, ParseError> {
        let mut rules = HavannahRules::default();
        read_fields(text, &[("base", "<n>"), ("swap", "0|1")], |key, value| {
            match key {
                "base" => rules.base = whole_number(key, value, MIN_BASE, MAX_BASE)?,
                _ => rules.swap = choice(key, value, &[("0", false), ("1", true)])?,
            }
            Ok(())
        })?;
        Ok(rules)
    }
}

impl From<HavannahRules> for Havannah {
    fn from(rules: HavannahRules) -> Havannah {
        Havannah::new(rules.base, rules.swap)
    }
}

impl Havannah {
    /// Havannah of base `base` (cells per side, in `MIN_BASE..=MAX_BASE`),
    /// with the swap rule if `swap`.
    ///
    /// # Panics
    ///
    /// Panics if `base` is out of range; reading [`HavannahRules`] checks
    /// it instead.
    pub fn new(base: usize, swap: bool) -> Havannah {
        let board = Board::new(base);
        let diameter = board.diameter();
        Havannah {
            spec: GameSpec {
                name: "havannah",
                action_count: board.action_count(),
                action_layout: ActionLayout::Cells,
                observation_shape: [PLANE_COUNT, diameter, diameter],
                board_plane: Some(encoding::BOARD_PLANE),
                encoding_version: ENCODING_VERSION,
                earlier_encodings: &[],
                max_game_length: board.cell_count() + usize::from(swap),
                symmetry_count: SYMMETRY_COUNT,
            },
            board: Arc::new(board),
            rules: HavannahRules { base, swap },
        }
    }

    /// The board: its size, cells and tables.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Cells per side.
    pub fn base(&self) -> usize {
        self.board.base()
    }

    /// Whether the swap rule is on.
    pub fn swap(&self) -> bool {
        self.rules.swap
    }

    /// Whether the side to move may take over White's first stone now.
    #[inline]
    pub fn swap_available(&self, position: &Position) -> bool {
        self.rules.swap && position.ply == 1 && position.status == Status::Playing
    }

    /// The winning structures that `player`'s stones form (looking at the
    /// whole board).
    pub fn structures(&self, position: &Position, player: Player) -> Structures {
        rules::structures(&self.board, position.stones(player))
    }

    /// Appends the actions of the empty cells where a stone of `player`
    /// would win at once.
    fn winning_cells(&self, position: &Position, player: Player, moves: &mut Vec<Action>) {
        let own = position.stones(player);
        // The smallest winning structure: a ring of six stones, or a bridge
        // of `base` stones along an edge.
        if (own.count() as usize) + 1 < self.base().min(6) {
            return;
        }
        let empty = self.board.cells().without(position.occupied());
        for bit in (self.board.dilate(own) & empty).iter() {
            let mut after = own;
            after.insert(bit);
            if rules::wins_after(&self.board, after, bit) {
                moves.push(Action(self.board.action_of_bit(bit) as u16));
            }
        }
    }

    /// The legal moves as a set of cells.
    #[inline]
    pub fn legal_cells(&self, position: &Position) -> Bitboard {
        if position.status != Status::Playing {
            return Bitboard::EMPTY;
        }
        let empty = self.board.cells().without(position.occupied());
        if self.swap_available(position) {
            empty | position.stones[0]
        } else {
            empty
        }
    }

    /// Plays a legal action.
    #[inline]
    fn apply(&self, position: &mut Position, action: Action) {
        let Some(bit) = self.board.bit_of_action(action.index()) else {
            panic!("action {} is off the board", action.0);
        };
        let side = position.side_to_move().index();
        position.ply += 1;
        if position.stones[1 - side].contains(bit) {
            // The swap: a lone stone changes colour, and wins nothing.
            position.stones[1 - side].remove(bit);
            position.stones[side].insert(bit);
            return;
        }
        position.stones[side].insert(bit);
        if rules::wins_after(&self.board, position.stones[side], bit) {
            position.status = Status::Won;
        } else if position.occupied().count() as usize == self.board.cell_count() {
            position.status = Status::Drawn;
        }
    }

    /// Reads a position, checking that it can arise in this game.
    pub fn parse_position(&self, text: &str) -> Result<Position, ParseError> {
        let error = |reason: String| ParseError::new("position", text, reason);
        let (stones, side) = position::parse_fields(&self.board, text).map_err(error)?;
        let [white, black] = stones.map(|s| s.count() as usize);
        let swapped = match side {
            Player::First if white == black => false,
            Player::Second if white == black + 1 => false,
            Player::First if black == white + 1 => true,
            Player::Second if white == black && white > 0 => true,
            _ => {
                return Err(error(format!(
                    "{white} White and {black} Black stones cannot have {} to move",
                    colour_name(side)
                )));
            }
        };
        if swapped && !self.rules.swap {
            return Err(error(format!(
                "{white} White and {black} Black stones with {} to move need the swap rule, which is off",
                colour_name(side)
            )));
        }
        let ply = white + black + usize::from(swapped);
        let mut position = Position {
            stones,
            ply: ply as u16,
            status: Status::Playing,
        };
        let to_move = self.structures(&position, side);
        if to_move.any() {
            return Err(error(format!(
                "{} to move has already won ({})",
                colour_name(side),
                to_move.names()
            )));
        }
        if self.structures(&position, side.opponent()).any() {
            position.status = Status::Won;
        } else if white + black == self.board.cell_count() {
            position.status = Status::Drawn;
        }
        Ok(position)
    }
}

impl Default for Havannah {
    /// Base 8 with the swap rule.
    fn default() -> Havannah {
        HavannahRules::default().into()
    }
}

impl Game for Havannah {
    type State = Position;

    type Rules = HavannahRules;

    fn rules(&self) -> &HavannahRules {
        &self.rules
    }

    fn spec(&self) -> &GameSpec {
        &self.spec
    }

    fn initial_state(&self) -> Position {
        Position::start()
    }

    fn current_player(&self, state: &Position) -> Player {
        state.side_to_move()
    }

    fn ply(&self, state: &Position) -> usize {
        state.ply()
    }

    fn legal_actions(&self, state: &Position, actions: &mut Vec<Action>) {
        let cells = self.legal_cells(state);
        actions.clear();
        actions.resize(cells.count() as usize, Action(0));
        // Filled through a slice, whose length stays in a register. Bits and
        // action ids are both row-major: the order is kept.
        let slots = &mut actions[..];
        let mut index = 0;
        for (limb, &word) in cells.0.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let bit = limb * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                slots[index] = Action(self.board.action_of_bit(bit) as u16);
                index += 1;
            }
        }
    }

    fn is_legal(&self, state: &Position, action: Action) -> bool {
        match self.board.bit_of_action(action.index()) {
            Some(bit) => self.legal_cells(state).contains(bit),
            None => false,
        }
    }

    fn apply_unchecked(&self, state: &mut Position, action: Action) {
        debug_assert!(self.is_legal(state, action), "illegal action {action:?}");
        self.apply(state, action);
    }

    fn outcome(&self, state: &Position) -> Option<Outcome> {
        match state.status {
            Status::Playing => None,
            Status::Won => Some(Outcome::Loss),
            Status::Drawn => Some(Outcome::Draw),
        }
    }

    fn encode(&self, state: &Position, planes: &mut [f32]) {
        encoding::encode(self, state, planes);
    }
}

impl Notation for Havannah {
    fn parse_state(&self, text: &str) -> Result<Position, ParseError> {
        self.parse_position(text)
    }

    fn format_state(&self, state: &Position) -> String {
        state.to_notation(&self.board)
    }

    /// Reads a cell name (`h8`), as OpenSpiel writes moves; `swap` (or the
    /// name of White's stone) takes over White's first stone.
    fn parse_action(&self, state: &Position, text: &str) -> Result<Action, ParseError> {
        let error = |reason: &str| ParseError::new("move", text, reason);
        let action = if text == "swap" {
            match state.stones[0].first() {
                Some(bit) if self.swap_available(state) => self.board.action_of_bit(bit),
                _ => return Err(error("no swap is possible now")),
            }
        } else {
            let last = char::from(b'a' + self.board.diameter() as u8 - 1);
            self.board.parse_cell(text).ok_or_else(|| {
                error(&format!(
                    "expected a cell of the board, a1 to {last}{}, or swap",
                    self.board.diameter()
                ))
            })?
        };
        let action = Action(action as u16);
        if !self.is_legal(state, action) {
            let reason = if state.status != Status::Playing {
                "the game is over"
            } else {
                "the cell is taken"
            };
            return Err(error(reason));
        }
        Ok(action)
    }

    fn format_action(&self, _state: &Position, action: Action) -> String {
        self.board.cell_name(action.index())
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

impl Symmetric for Havannah {
    fn transform_state(&self, state: &Position, symmetry: Symmetry) -> Position {
        let symmetry = usize::from(symmetry.0);
        Position {
            stones: state
                .stones
                .map(|stones| self.board.symmetric_cells(stones, symmetry)),
            ..*state
        }
    }

    fn transform_action(&self, action: Action, symmetry: Symmetry) -> Action {
        if action.index() >= self.board.action_count() {
            return action;
        }
        let image = self
            .board
            .symmetric_action(action.index(), usize::from(symmetry.0));
        Action(image as u16)
    }

    fn inverse_symmetry(&self, symmetry: Symmetry) -> Symmetry {
        Symmetry(board::inverse_symmetry(usize::from(symmetry.0)) as u8)
    }
}

impl Hints for Havannah {
    /// Wins at once are the empty cells next to the side's stones where a
    /// stone completes a bridge, fork or ring (a lone stone forms none);
    /// the opponent's are found the same way.
    fn forcing_moves(&self, state: &Position, moves: &mut Vec<Action>) -> Forcing {
        moves.clear();
        // While the swap is available it also takes a threat away (on the
        // smallest boards one stone threatens a bridge).
        if state.status != Status::Playing || self.swap_available(state) {
            return Forcing::Free;
        }
        let side = state.side_to_move();
        for (player, forcing) in [(side, Forcing::Wins), (side.opponent(), Forcing::Blocks)] {
            self.winning_cells(state, player, moves);
            if !moves.is_empty() {
                return forcing;
            }
        }
        Forcing::Free
    }

    /// Stones: the cell's owner at the end is the stone on it.
    fn ownership(&self, state: &Position, player: Player, owners: &mut [f32]) -> bool {
        owners.fill(0.0);
        for (side, value) in [(player, 1.0), (player.opponent(), -1.0)] {
            for bit in state.stones(side).iter() {
                owners[self.board.action_of_bit(bit)] = value;
            }
        }
        true
    }
}
