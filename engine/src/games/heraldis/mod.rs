//! Heraldis: a 5×5 placement-and-capture game (rules: `shared/rules/heraldis.md`).
//!
//! Actions: `0..25` are the cells (`a1` = 0 … `e5` = 24; a placement on an
//! empty cell or a capture of an opponent piece, whichever the cell allows) and
//! 25 is `pass`.

pub mod alphabeta;
pub mod board;
mod board_text;
mod encoding;
pub mod layout;
mod position;

use board::{Bitboard, CELLS, FULL, bit, completing_cells, has_four_in_row};
pub use encoding::{PLANE_COUNT, PLANE_NAMES};
pub use layout::{DEFAULT_LAYOUT, Layout, Site, Symbol};
pub use position::{PIECES_PER_PLAYER, Position, side_letter};

use std::fmt;
use std::str::FromStr;

use crate::game::{
    Action, ActionLayout, Game, GameSpec, Hints, Notation, Outcome, ParseError, Player, Symmetric,
    Symmetry,
};
use crate::parameters::{read_fields, whole_number};

/// The action that passes (only legal with an empty reserve).
pub const PASS: Action = Action(CELLS as u16);
/// Number of actions: 25 cells and `pass`.
pub const ACTION_COUNT: usize = CELLS + 1;
/// The default game length limit, in plies (an engine rule: captures can
/// cycle forever).
pub const DEFAULT_PLY_LIMIT: u16 = 150;
/// Version of the network input encoding (see [`PLANE_NAMES`]).
pub const ENCODING_VERSION: u32 = 2;

/// The rules of Heraldis on one layout, with precomputed tables.
#[derive(Clone, Debug)]
pub struct Heraldis {
    rules: HeraldisRules,
    spec: GameSpec,
    /// Houses of each symbol, by [`Symbol::index`].
    houses_of: [Bitboard; 5],
    /// Alliance cells.
    alliances: Bitboard,
    /// For each set of owned House symbols (bit `s` = symbol `s`), the
    /// Alliance cells whose two symbols are both owned.
    capturable: [Bitboard; 32],
}

/// The rules' parameters: the layout and the ply limit, written
/// `layout=<layout> limit=<plies>`, where the layout is `default`,
/// `random:SEED` or its 25 cells rank 5 first, cells separated by `,` and
/// ranks by `/` (`layout=A,S,OS,CS,AC/LS,LA,O,C,OA/…`).
///
/// Earlier spellings still read: a layout alone in the rules' notation
/// (`default`, `random:SEED`, or its 25 tokens separated by spaces), then
/// optionally `| <ply limit>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HeraldisRules {
    /// The board: which cells are Houses and which Alliances.
    pub layout: Layout,
    /// The game is drawn once this many plies have been played (at least
    /// 1).
    pub ply_limit: u16,
}

impl Default for HeraldisRules {
    fn default() -> HeraldisRules {
        HeraldisRules {
            layout: Layout::default_layout(),
            ply_limit: DEFAULT_PLY_LIMIT,
        }
    }
}

impl fmt::Display for HeraldisRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("layout=")?;
        if self.layout == Layout::default_layout() {
            f.write_str("default")?;
        } else {
            let ranks: Vec<String> = self
                .layout
                .to_string()
                .split(" / ")
                .map(|rank| rank.replace(' ', ","))
                .collect();
            f.write_str(&ranks.join("/"))?;
        }
        write!(f, " limit={}", self.ply_limit)
    }
}

impl FromStr for HeraldisRules {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<HeraldisRules, ParseError> {
        let mut rules = HeraldisRules::default();
        if text.contains('=') || text.trim().is_empty() {
            let fields = [
                (
                    "layout",
                    "default|random:SEED|<25 cells, ','/'/'-separated>",
                ),
                ("limit", "N"),
            ];
            read_fields(text, &fields, |key, value| {
                match key {
                    "layout" => {
                        rules.layout = Layout::from_spec(&value.replace(',', " "))
                            .map_err(|error| format!("layout: {}", error.reason))?;
                    }
                    _ => rules.ply_limit = whole_number(key, value, 1, u16::MAX)?,
                }
                Ok(())
            })?;
            return Ok(rules);
        }
        // The earlier spelling: `<layout>`, then optionally `| <ply limit>`.
        let layout = match text.rsplit_once('|') {
            Some((layout, limit)) => {
                rules.ply_limit = whole_number("the ply limit", limit.trim(), 1, u16::MAX)
                    .map_err(|reason| ParseError::new("game parameters", text, reason))?;
                layout
            }
            None => text,
        };
        rules.layout = Layout::from_spec(layout)?;
        Ok(rules)
    }
}

impl From<HeraldisRules> for Heraldis {
    fn from(rules: HeraldisRules) -> Heraldis {
        Heraldis::with_ply_limit(rules.layout, rules.ply_limit)
    }
}

impl Heraldis {
    /// Heraldis on `layout` with the default ply limit.
    pub fn new(layout: Layout) -> Heraldis {
        Heraldis::with_ply_limit(layout, DEFAULT_PLY_LIMIT)
    }

    /// Heraldis on `layout`, drawn after `ply_limit` plies (at least 1).
    pub fn with_ply_limit(layout: Layout, ply_limit: u16) -> Heraldis {
        let ply_limit = ply_limit.max(1);
        let houses_of = Symbol::ALL.map(|symbol| layout.houses_of(symbol));
        let mut capturable = [0; 32];
        for (owned, mask) in capturable.iter_mut().enumerate() {
            for cell in 0..CELLS {
                if let Site::Alliance(a, b) = layout.site(cell)
                    && owned & (1 << a.index()) != 0
                    && owned & (1 << b.index()) != 0
                {
                    *mask |= bit(cell);
                }
            }
        }
        Heraldis {
            alliances: layout.alliances(),
            rules: HeraldisRules { layout, ply_limit },
            spec: GameSpec {
                name: "heraldis",
                action_count: ACTION_COUNT,
                action_layout: ActionLayout::Cells,
                observation_shape: [PLANE_COUNT, board::SIZE, board::SIZE],
                board_plane: None,
                encoding_version: ENCODING_VERSION,
                earlier_encodings: &[],
                max_game_length: usize::from(ply_limit),
                symmetry_count: board::SYMMETRY_COUNT,
            },
            houses_of,
            capturable,
        }
    }

    /// The layout played on.
    pub fn layout(&self) -> &Layout {
        &self.rules.layout
    }

    /// The game is drawn once this many plies have been played.
    pub fn ply_limit(&self) -> u16 {
        self.rules.ply_limit
    }

    /// The set of House symbols on which `pieces` stand, bit `s` for
    /// symbol `s`.
    #[inline]
    fn owned_symbols(&self, pieces: Bitboard) -> usize {
        let mut owned = 0;
        for (index, &houses) in self.houses_of.iter().enumerate() {
            owned |= usize::from(pieces & houses != 0) << index;
        }
        owned
    }

    /// Opponent pieces that `player` may capture in `position`, ignoring whose
    /// turn it is but honouring the Truce when `player` is to move.
    #[inline]
    pub fn capturable_by(&self, position: &Position, player: Player) -> Bitboard {
        let mine = position.pieces(player);
        let theirs = position.pieces(player.opponent());
        let truce = if player == position.side_to_move() {
            bit(usize::from(position.truce)) & FULL
        } else {
            0
        };
        self.capturable[self.owned_symbols(mine)] & theirs & !truce
    }

    /// The legal actions as a bit set: bit `a` for action `a` (bit 25 is
    /// `pass`).
    #[inline]
    pub fn legal_mask(&self, position: &Position) -> u32 {
        if self.outcome_of(position).is_some() {
            return 0;
        }
        let side = position.side_to_move();
        if position.reserve(side) == 0 {
            return 1 << PASS.0;
        }
        let empty = FULL & !position.occupied();
        if position.ply == 0 {
            // The First Oath: Light's first piece goes on an Alliance.
            return empty & self.alliances;
        }
        empty | self.capturable_by(position, side)
    }

    /// The game's result for the side to move, or `None` while it goes on.
    #[inline]
    fn outcome_of(&self, position: &Position) -> Option<Outcome> {
        let last_mover = position.side_to_move().opponent();
        if has_four_in_row(position.pieces(last_mover)) {
            Some(Outcome::Loss)
        } else if position.occupied() == FULL || position.ply >= self.rules.ply_limit {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    /// `perft(position, 2)`: the replies to every legal move, counted in
    /// closed form instead of making each move.
    ///
    /// After a placement or a capture by the side to move, the opponent's
    /// House symbols are unchanged (captures happen on Alliances only), so
    /// the opponent's capturable cells are the same table entry for every
    /// move; a reply count is then the empty cells plus the mover's pieces in
    /// that entry (no Truce follows a placement; after a capture the Truce
    /// cell is the captured cell, which is not a mover's piece of before).
    fn perft_two(&self, position: &Position) -> u64 {
        let moves = self.legal_mask(position);
        if moves == 0 {
            return 0;
        }
        if moves == 1 << PASS.0 || position.ply == 0 || position.ply + 1 >= self.rules.ply_limit {
            // A pass, the First Oath, or replies into the ply limit: count
            // each child directly.
            let mut total = 0;
            let mut rest = moves;
            while rest != 0 {
                let action = rest.trailing_zeros() as u16;
                rest &= rest - 1;
                let mut next = *position;
                self.apply(&mut next, Action(action));
                total += u64::from(self.legal_mask(&next).count_ones());
            }
            return total;
        }
        let side = position.side_to_move();
        let mine = position.pieces(side);
        let theirs = position.pieces(side.opponent());
        let empty = FULL & !(mine | theirs);
        let empty_count = empty.count_ones();
        let opponent_can_play = position.reserve(side.opponent()) > 0;
        let opponent_targets = self.capturable[self.owned_symbols(theirs)];
        let exposed = (opponent_targets & mine).count_ones();

        // Moves that complete a line end the game: no replies.
        let moves = moves & !completing_cells(mine);
        let captures = u64::from((moves & theirs).count_ones());
        let placements = moves & empty;
        let capture_replies = captures * u64::from(empty_count + exposed);
        let placement_replies = if empty_count == 1 {
            0 // the board fills up: a draw
        } else if !opponent_can_play {
            u64::from(placements.count_ones()) // the opponent must pass
        } else {
            u64::from(placements.count_ones()) * u64::from(empty_count - 1 + exposed)
                + u64::from((placements & opponent_targets).count_ones())
        };
        capture_replies + placement_replies
    }

    /// Plays a legal action.
    #[inline]
    fn apply(&self, position: &mut Position, action: Action) {
        let side = position.side_to_move().index();
        position.truce = position::NO_TRUCE;
        if action != PASS {
            let cell = bit(action.index());
            let other = 1 - side;
            if position.pieces[other] & cell != 0 {
                position.pieces[other] ^= cell;
                position.truce = action.0 as u8;
            }
            position.pieces[side] |= cell;
        }
        position.ply += 1;
    }

    /// Reads a position, checking that it can arise on this layout.
    pub fn parse_position(&self, text: &str) -> Result<Position, ParseError> {
        let position = Position::parse_fields(text)
            .map_err(|reason| ParseError::new("position", text, reason))?;
        self.validate(&position)
            .map_err(|reason| ParseError::new("position", text, reason))?;
        Ok(position)
    }

    fn validate(&self, position: &Position) -> Result<(), String> {
        let ply = position.ply;
        if ply > self.rules.ply_limit {
            return Err(format!(
                "ply {ply} is beyond the limit of {} plies",
                self.rules.ply_limit
            ));
        }
        for player in [Player::First, Player::Second] {
            let count = position.pieces(player).count_ones();
            // Light plays the even plies, Dark the odd ones: one piece a ply at most.
            let turns = (u32::from(ply) + 1 - player.index() as u32) / 2;
            let name = if player == Player::First {
                "Light"
            } else {
                "Dark"
            };
            if count > PIECES_PER_PLAYER {
                return Err(format!("{name} has {count} pieces, at most 13 exist"));
            }
            if count > turns {
                return Err(format!(
                    "{name} has {count} pieces after only {turns} of its turns"
                ));
            }
        }
        let side = position.side_to_move();
        if has_four_in_row(position.pieces(side)) {
            return Err("the side to move already has four in a row".to_string());
        }
        if let Some(cell) = position.truce() {
            let name = board::cell_name(cell);
            if position.pieces(side.opponent()) & bit(cell) == 0 {
                return Err(format!(
                    "truce cell {name} does not hold a piece of the side that just captured"
                ));
            }
            if self.alliances & bit(cell) == 0 {
                return Err(format!(
                    "truce cell {name} is a House, where nothing is ever captured"
                ));
            }
        }
        Ok(())
    }
}

impl Default for Heraldis {
    fn default() -> Heraldis {
        Heraldis::new(Layout::default_layout())
    }
}

impl Game for Heraldis {
    type State = Position;

    type Rules = HeraldisRules;

    fn rules(&self) -> &HeraldisRules {
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
        actions.clear();
        let mut mask = self.legal_mask(state);
        while mask != 0 {
            actions.push(Action(mask.trailing_zeros() as u16));
            mask &= mask - 1;
        }
    }

    fn is_legal(&self, state: &Position, action: Action) -> bool {
        action.index() < ACTION_COUNT && self.legal_mask(state) & (1 << action.0) != 0
    }

    fn apply_unchecked(&self, state: &mut Position, action: Action) {
        debug_assert!(self.is_legal(state, action), "illegal action {action:?}");
        self.apply(state, action);
    }

    fn outcome(&self, state: &Position) -> Option<Outcome> {
        self.outcome_of(state)
    }

    fn encode(&self, state: &Position, planes: &mut [f32]) {
        encoding::encode(self, state, planes);
    }

    /// Counts the move sequences of length `depth` (bulk-counting the last
    /// ply from the legal-move mask).
    fn perft(&self, position: &Position, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => u64::from(self.legal_mask(position).count_ones()),
            2 => self.perft_two(position),
            _ => {
                let mut moves = self.legal_mask(position);
                let mut total = 0;
                while moves != 0 {
                    let action = moves.trailing_zeros() as u16;
                    moves &= moves - 1;
                    let mut next = *position;
                    self.apply(&mut next, Action(action));
                    total += self.perft(&next, depth - 1);
                }
                total
            }
        }
    }
}

impl Notation for Heraldis {
    fn parse_state(&self, text: &str) -> Result<Position, ParseError> {
        self.parse_position(text)
    }

    fn format_state(&self, state: &Position) -> String {
        state.to_notation()
    }

    /// Reads `c3` (a placement, or a capture if c3 holds an opponent piece),
    /// `xc3` (a capture) or `pass`.
    fn parse_action(&self, state: &Position, text: &str) -> Result<Action, ParseError> {
        let error = |reason: &str| ParseError::new("move", text, reason);
        let action = if text == "pass" {
            PASS
        } else {
            let (capture, name) = match text.strip_prefix('x') {
                Some(name) => (true, name),
                None => (false, text),
            };
            let cell = board::parse_cell(name)
                .ok_or_else(|| error("expected a cell a1-e5, x and a cell, or pass"))?;
            let opponent = state.pieces(state.side_to_move().opponent());
            if capture && opponent & bit(cell) == 0 {
                return Err(error("a capture needs an opponent piece on that cell"));
            }
            Action(cell as u16)
        };
        if !self.is_legal(state, action) {
            return Err(error("illegal move"));
        }
        Ok(action)
    }

    fn format_action(&self, state: &Position, action: Action) -> String {
        if action == PASS {
            return "pass".to_string();
        }
        let opponent = state.pieces(state.side_to_move().opponent());
        let name = board::cell_name(action.index());
        if opponent & bit(action.index()) != 0 {
            format!("x{name}")
        } else {
            name
        }
    }

    fn render(&self, state: &Position) -> String {
        board_text::render(self, state)
    }

    fn player_name(&self, player: Player) -> &'static str {
        match player {
            Player::First => "light",
            Player::Second => "dark",
        }
    }
}

impl Symmetric for Heraldis {
    fn transformed(&self, symmetry: Symmetry) -> Heraldis {
        Heraldis::with_ply_limit(
            self.rules.layout.transformed(usize::from(symmetry.0)),
            self.rules.ply_limit,
        )
    }

    fn transform_state(&self, state: &Position, symmetry: Symmetry) -> Position {
        let symmetry = usize::from(symmetry.0);
        Position {
            pieces: state.pieces.map(|p| board::transform_bitboard(p, symmetry)),
            ply: state.ply,
            truce: match state.truce() {
                Some(cell) => board::CELL_MAPS[symmetry][cell],
                None => position::NO_TRUCE,
            },
        }
    }

    fn transform_action(&self, action: Action, symmetry: Symmetry) -> Action {
        if action.index() < CELLS {
            Action(u16::from(
                board::CELL_MAPS[usize::from(symmetry.0)][action.index()],
            ))
        } else {
            action
        }
    }

    fn inverse_symmetry(&self, symmetry: Symmetry) -> Symmetry {
        Symmetry(board::inverse_symmetry(usize::from(symmetry.0)) as u8)
    }
}

impl Hints for Heraldis {
    fn guard_nodes(&self) -> u64 {
        crate::guard::GUARD_NODES
    }

    /// The pieces on the board at the end (a cell's plane offset is its
    /// index).
    fn ownership(&self, state: &Position, player: Player, owners: &mut [f32]) -> bool {
        owners.fill(0.0);
        for (side, value) in [(player, 1.0), (player.opponent(), -1.0)] {
            let mut pieces = state.pieces(side);
            while pieces != 0 {
                owners[pieces.trailing_zeros() as usize] = value;
                pieces &= pieces - 1;
            }
        }
        true
    }
}
