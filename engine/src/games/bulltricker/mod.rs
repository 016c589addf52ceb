//! Bulltricker (1992, "half draughts, half chess"): wall the opposing King
//! in between four rectangular pieces. Rules: `shared/rules/bulltricker.md`;
//! the engine's grid, names and notation are in [`board`] and [`position`].
//!
//! Actions: a move from grid cell `f` to grid cell `t` is `f · 225 + t`, a
//! square of from-to logits over the 15 × 15 grid (junctions included, so
//! that the policy lies on the network's grid). There is no pass: a side
//! without a move has drawn.
//!
//! Engine rules, each a parameter where it is a number (docs/bulltricker.md
//! lists them with the sources' disagreements):
//! - after every move both Kings are tested: a King whose four rectangles
//!   are all occupied, one at least by an enemy piece, is mated and its
//!   side loses, the mover included (the Trick); both mated: the mover
//!   wins;
//! - a draw when the side to move has no move, when fewer than
//!   `material` rectangles (both colours together, default 4) are
//!   occupied, when a position (pieces and side to move) stands for the
//!   `repetitions`-th time (default 3), and after `plies` plies (default
//!   400) — unless the rules adjudicate the last two by material
//!   (`adjudicate=material`, a training rule: the side with more material,
//!   a Queen 3 and a Pawn 1, then wins);
//! - the two-step belongs to the transversal Pawns on their start line
//!   (a Pawn of that side there has never moved: Pawns go only forward);
//! - a Pawn ending a move, a chain of captures included, on the opposing
//!   back line becomes a Queen.

pub mod baselines;
pub mod board;
mod encoding;
pub mod moves;
mod position;

use std::fmt::{self, Write};
use std::ops::ControlFlow;
use std::str::FromStr;

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;

pub use board::{GRID, Kind, Rects, SIZE};
pub use encoding::{PLANE_COUNT, PLANE_NAMES};
pub use moves::Move;
pub use position::{Draw, Key, Position, Status, colour_name};

use crate::game::{
    Action, ActionLayout, Forcing, Game, GameSpec, Hints, Notation, Outcome, ParseError, Player,
    Symmetric, Symmetry,
};
use crate::parameters::{choice, read_fields, whole_number};
use crate::search::Tactics;

/// Version of the network input encoding (see [`PLANE_NAMES`]): 2 appends
/// the opponent's moves (were it to move) to version 1's 16 planes.
pub const ENCODING_VERSION: u32 = 2;
/// Plies before a draw (engine rule).
pub const DEFAULT_PLY_CAP: u16 = 400;
/// Fewer occupied rectangles than this draw (engine rule).
pub const DEFAULT_MATERIAL: u32 = 4;
/// The occurrence of a position that draws (engine rule).
pub const DEFAULT_REPETITIONS: usize = 3;
/// Pawns of lead that [`Hints::heuristic`] reads as tanh(1) ≈ 0.76.
const HEURISTIC_SCALE: f32 = 5.0;

/// The rules of Bulltricker with their parameters.
#[derive(Clone, Debug)]
pub struct Bulltricker {
    rules: BulltrickerRules,
    spec: GameSpec,
}

/// The rules' parameters, written `plies=N material=M repetitions=R`, then
/// ` adjudicate=material` if material decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BulltrickerRules {
    /// Plies before a draw (at least 1).
    pub plies: u16,
    /// Fewer occupied rectangles than this draw.
    pub material: u32,
    /// The occurrence of a position that draws (at least 1).
    pub repetitions: usize,
    /// A repetition or the ply cap goes to the side with more material
    /// instead of drawing (a training rule).
    pub adjudicate_material: bool,
}

impl Default for BulltrickerRules {
    fn default() -> BulltrickerRules {
        BulltrickerRules {
            plies: DEFAULT_PLY_CAP,
            material: DEFAULT_MATERIAL,
            repetitions: DEFAULT_REPETITIONS,
            adjudicate_material: false,
        }
    }
}

impl fmt::Display for BulltrickerRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "plies={} material={} repetitions={}",
            self.plies, self.material, self.repetitions
        )?;
        if self.adjudicate_material {
            f.write_str(" adjudicate=material")?;
        }
        Ok(())
    }
}

impl FromStr for BulltrickerRules {
    type Err = ParseError;

    /// Reads `plies=N material=M repetitions=R adjudicate=none|material`,
    /// any of them left out.
    fn from_str(text: &str) -> Result<BulltrickerRules, ParseError> {
        let mut rules = BulltrickerRules::default();
        let fields = [
            ("plies", "N"),
            ("material", "M"),
            ("repetitions", "R"),
            ("adjudicate", "none|material"),
        ];
        read_fields(text, &fields, |key, value| {
            match key {
                "plies" => rules.plies = whole_number(key, value, 1, 10_000)?,
                "material" => rules.material = whole_number(key, value, 0, 112)?,
                "repetitions" => rules.repetitions = whole_number(key, value, 1, 100)?,
                _ => {
                    rules.adjudicate_material =
                        choice(key, value, &[("none", false), ("material", true)])?;
                }
            }
            Ok(())
        })?;
        Ok(rules)
    }
}

impl From<BulltrickerRules> for Bulltricker {
    fn from(rules: BulltrickerRules) -> Bulltricker {
        Bulltricker::new(rules.plies, rules.material, rules.repetitions)
            .adjudicating_material(rules.adjudicate_material)
    }
}

impl Default for Bulltricker {
    fn default() -> Bulltricker {
        BulltrickerRules::default().into()
    }
}

impl Bulltricker {
    /// The rules with a draw after `ply_cap` plies, below `material`
    /// occupied rectangles, and at a position's `repetitions`-th
    /// occurrence.
    ///
    /// # Panics
    ///
    /// Panics if `ply_cap` or `repetitions` is 0.
    pub fn new(ply_cap: u16, material: u32, repetitions: usize) -> Bulltricker {
        assert!(ply_cap > 0 && repetitions > 0, "limits must be positive");
        Bulltricker {
            rules: BulltrickerRules {
                plies: ply_cap,
                material,
                repetitions,
                adjudicate_material: false,
            },
            spec: GameSpec {
                name: "bulltricker",
                action_count: GRID * GRID,
                action_layout: ActionLayout::CellPairs,
                observation_shape: [PLANE_COUNT, SIZE, SIZE],
                board_plane: None,
                encoding_version: ENCODING_VERSION,
                earlier_encodings: &[(1, 16)],
                max_game_length: usize::from(ply_cap),
                symmetry_count: 2,
            },
        }
    }

    /// These rules with repetitions and the ply cap adjudicated by
    /// material (or not).
    pub fn adjudicating_material(mut self, on: bool) -> Bulltricker {
        self.rules.adjudicate_material = on;
        self
    }

    /// Whether material decides repetitions and the ply cap
    /// (`adjudicate=material`).
    pub fn adjudicates_material(&self) -> bool {
        self.rules.adjudicate_material
    }

    /// The ply cap.
    pub fn ply_cap(&self) -> u16 {
        self.rules.plies
    }

    /// The action of a move.
    pub fn move_action(&self, m: Move) -> Action {
        Action((m.from * GRID + m.to) as u16)
    }

    /// The move of an action.
    pub fn action_move(&self, action: Action) -> Move {
        Move {
            from: action.index() / GRID,
            to: action.index() % GRID,
        }
    }

    /// Whether `player`'s King is walled in: its four rectangles occupied,
    /// one at least by the other side.
    pub fn is_mated(&self, position: &Position, player: Player) -> bool {
        let wall = king_wall(position.king(player));
        wall.count_ones() == 4
            && position.occupied() & wall == wall
            && position.pieces(player.opponent()) & wall != 0
    }

    /// Plays a legal move.
    fn apply(&self, position: &mut Position, m: Move) {
        let mover = position.side();
        let key = &position.key;
        let king_move = position.king(mover) == m.from;
        let taken = if king_move {
            0
        } else {
            moves::captured(position, m)
        };
        let queen = !king_move && key.queens & board::bit(m.from) != 0;
        position.push_history(king_move || (queen && taken == 0));
        let key = &mut position.key;
        if king_move {
            key.kings[mover.index()] = m.to as u8;
        } else {
            let path = board::bit(m.from) | board::bit(m.to);
            key.pieces[mover.index()] ^= path;
            key.pieces[mover.opponent().index()] &= !taken;
            key.queens &= !taken;
            if queen {
                key.queens ^= path;
            } else if board::row_col(m.to).0 == moves::promotion_row(mover) {
                key.queens |= board::bit(m.to);
            }
        }
        key.side = mover.opponent();
        position.plies += 1;
        position.status = self.status_after_move(position, mover);
    }

    fn status_after_move(&self, position: &Position, mover: Player) -> Status {
        let mated = [Player::First, Player::Second].map(|p| self.is_mated(position, p));
        if mated[mover.opponent().index()] {
            Status::Won(mover)
        } else if mated[mover.index()] {
            Status::Won(mover.opponent())
        } else if position.occupied().count_ones() < self.rules.material {
            Status::Drawn(Draw::Material)
        } else if position.earlier_occurrences() + 1 >= self.rules.repetitions {
            self.drawn_unless_adjudicated(position, Draw::Repetition)
        } else if position.plies >= self.rules.plies {
            self.drawn_unless_adjudicated(position, Draw::PlyCap)
        } else if !moves::has_move(position) {
            Status::Drawn(Draw::NoMove)
        } else {
            Status::Playing
        }
    }

    /// A draw by `reason`, or with `adjudicate=material` a win for the side
    /// with more material (a draw if they are level).
    fn drawn_unless_adjudicated(&self, position: &Position, reason: Draw) -> Status {
        if !self.rules.adjudicate_material {
            return Status::Drawn(reason);
        }
        let [white, black] = [Player::First, Player::Second].map(|p| position.material(p));
        match white.cmp(&black) {
            std::cmp::Ordering::Greater => Status::Won(Player::First),
            std::cmp::Ordering::Less => Status::Won(Player::Second),
            std::cmp::Ordering::Equal => Status::Drawn(reason),
        }
    }

    /// Reads a position, checking what the rules allow.
    pub fn parse_position(&self, text: &str) -> Result<Position, ParseError> {
        let error = |reason: String| ParseError::new("position", text, reason);
        let mut position = Position::parse_fields(text).map_err(error)?;
        let (white, black) = (
            board::row_col(position.king(Player::First)),
            board::row_col(position.king(Player::Second)),
        );
        if (white.0 - black.0).abs() < 4 && (white.1 - black.1).abs() < 4 {
            return Err(error("the Kings stand side by side".to_string()));
        }
        for player in [Player::First, Player::Second] {
            let row = moves::promotion_row(player);
            let pawns = position.pieces(player) & !position.key.queens;
            if board::rect_cells(pawns).any(|g| board::row_col(g).0 == row) {
                return Err(error(format!(
                    "a {} Pawn on the opposing back line",
                    colour_name(player)
                )));
            }
        }
        if position.plies > self.rules.plies {
            return Err(error(format!(
                "{} plies played, more than the cap {}",
                position.plies, self.rules.plies
            )));
        }
        // The result of the position as it stands (mates are those of the
        // last move, by the side not to move).
        let mover = position.side().opponent();
        position.status = self.status_after_move(&position, mover);
        Ok(position)
    }

    /// The legal moves of `position`.
    pub fn legal_moves(&self, position: &Position) -> Vec<Move> {
        let mut list = Vec::new();
        if position.status == Status::Playing {
            moves::for_each_legal(position, |m| {
                list.push(m);
                ControlFlow::Continue(())
            });
        }
        list
    }

    fn is_capture(&self, position: &Position, m: Move) -> bool {
        position.king(position.side()) != m.from && moves::captured(position, m) != 0
    }
}

/// The rectangles around the royal square `king` (four on the grid).
pub fn king_wall(king: usize) -> Rects {
    debug_assert_eq!(board::kind(king), board::Kind::Royal);
    KING_WALLS[king]
}

/// [`king_wall`] of every grid cell (only the royal squares' are asked).
static KING_WALLS: [Rects; board::GRID] = {
    let mut walls = [0; board::GRID];
    let size = board::SIZE as i32;
    let mut g = 0;
    while g < board::GRID {
        let (r, c) = ((g / board::SIZE) as i32, (g % board::SIZE) as i32);
        let mut d = 0;
        while d < 4 {
            let (dr, dc) = board::DIRECTIONS[d];
            let (nr, nc) = (r + dr, c + dc);
            if nr >= 0 && nr < size && nc >= 0 && nc < size {
                walls[g] |= 1 << ((nr * size + nc) / 2);
            }
            d += 1;
        }
        g += 1;
    }
    walls
};

impl Game for Bulltricker {
    type State = Position;

    type Rules = BulltrickerRules;

    fn rules(&self) -> &BulltrickerRules {
        &self.rules
    }

    fn spec(&self) -> &GameSpec {
        &self.spec
    }

    fn under_own_rules(&self) -> Self {
        self.clone().adjudicating_material(false)
    }

    fn initial_state(&self) -> Position {
        Position::start()
    }

    fn current_player(&self, state: &Position) -> Player {
        state.side()
    }

    fn ply(&self, state: &Position) -> usize {
        usize::from(state.plies)
    }

    fn legal_actions(&self, state: &Position, actions: &mut Vec<Action>) {
        actions.clear();
        if state.status != Status::Playing {
            return;
        }
        moves::for_each_legal(state, |m| {
            actions.push(self.move_action(m));
            ControlFlow::Continue(())
        });
        actions.sort_unstable();
    }

    fn is_legal(&self, state: &Position, action: Action) -> bool {
        if state.status != Status::Playing || action.index() >= self.spec.action_count {
            return false;
        }
        let wanted = self.action_move(action);
        let side = state.side();
        let own = board::is_rect(wanted.from) && state.pieces(side) & board::bit(wanted.from) != 0;
        if !own && state.king(side) != wanted.from {
            return false;
        }
        let mut found = false;
        moves::for_each_legal_from(state, wanted.from, |m| {
            if m == wanted {
                found = true;
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        found
    }

    fn apply_unchecked(&self, state: &mut Position, action: Action) {
        debug_assert!(self.is_legal(state, action), "illegal action {action:?}");
        self.apply(state, self.action_move(action));
    }

    fn outcome(&self, state: &Position) -> Option<Outcome> {
        match state.status {
            Status::Playing => None,
            Status::Drawn(_) => Some(Outcome::Draw),
            Status::Won(winner) if winner == state.side() => Some(Outcome::Win),
            Status::Won(_) => Some(Outcome::Loss),
        }
    }

    fn encode(&self, state: &Position, planes: &mut [f32]) {
        encoding::encode(self, state, planes);
    }
}

impl Notation for Bulltricker {
    fn parse_state(&self, text: &str) -> Result<Position, ParseError> {
        self.parse_position(text)
    }

    fn format_state(&self, state: &Position) -> String {
        state.to_notation()
    }

    /// `FROM-TO` or `FROMxTO`, cells named as [`board`] says, in any case.
    fn parse_action(&self, state: &Position, text: &str) -> Result<Action, ParseError> {
        let error = |reason: String| ParseError::new("move", text, reason);
        if state.status != Status::Playing {
            return Err(error("the game is over".to_string()));
        }
        let trimmed = text.trim();
        let Some(split) = trimmed.find(['-', 'x', 'X']).filter(|&i| i > 0) else {
            return Err(error(
                "expected FROM-TO or FROMxTO, cells such as A2V1 or H7C1".to_string(),
            ));
        };
        let (from_text, to_text) = (&trimmed[..split], &trimmed[split + 1..]);
        let cell = |name: &str| {
            board::parse_cell(name).ok_or_else(|| {
                error(format!(
                    "'{name}' names no cell (rows H1-H8 and A1-A7, columns V1-V8 and C1-C7)"
                ))
            })
        };
        let m = Move {
            from: cell(from_text)?,
            to: cell(to_text)?,
        };
        let legal = self.legal_moves(state);
        if legal.contains(&m) {
            return Ok(self.move_action(m));
        }
        let side = state.side();
        let owner = state
            .letter(m.from)
            .filter(|letter| letter.is_ascii_uppercase() == (side == Player::First));
        let reason = if owner.is_none() {
            format!(
                "no {} piece on {}",
                colour_name(side),
                board::cell_name(m.from)
            )
        } else if legal.iter().any(|l| self.is_capture(state, *l)) && !self.is_capture(state, m) {
            "a line capture is compulsory".to_string()
        } else {
            format!(
                "the piece on {} cannot go to {}",
                board::cell_name(m.from),
                board::cell_name(m.to)
            )
        };
        Err(error(reason))
    }

    fn format_action(&self, state: &Position, action: Action) -> String {
        let m = self.action_move(action);
        let separator = if self.is_capture(state, m) { 'x' } else { '-' };
        format!(
            "{}{separator}{}",
            board::cell_name(m.from),
            board::cell_name(m.to)
        )
    }

    fn render(&self, state: &Position) -> String {
        let mut text = String::new();
        // Royal squares `.` or a King, rectangles `-` (along the row) and
        // `|` (along the column) when empty, junctions `+`.
        let _ = writeln!(text, "    {}", column_labels());
        for r in 0..SIZE {
            let row_label = &board::cell_name(r * SIZE + 1)[..2];
            let _ = write!(text, "{row_label:>3} ");
            for c in 0..SIZE {
                let g = r * SIZE + c;
                let symbol = state.letter(g).unwrap_or(match board::kind(g) {
                    Kind::Junction => '+',
                    Kind::Horizontal => '-',
                    Kind::Vertical => '|',
                    Kind::Royal => '.',
                });
                let _ = write!(text, "{symbol:>3}");
            }
            text.push('\n');
        }
        let _ = writeln!(text, "position: {}", state.to_notation());
        let _ = writeln!(text, "ply {} of at most {}", state.plies, self.rules.plies);
        match state.status {
            Status::Playing => {
                let mut actions = Vec::new();
                self.legal_actions(state, &mut actions);
                let names: Vec<String> = actions
                    .iter()
                    .map(|&a| self.format_action(state, a))
                    .collect();
                let _ = writeln!(text, "{} to move", colour_name(state.side()));
                let _ = writeln!(text, "legal moves: {}", names.join(" "));
            }
            Status::Won(player) => {
                let how = if self.is_mated(state, player.opponent()) {
                    "by mate"
                } else {
                    "on material (adjudicated)"
                };
                let _ = writeln!(text, "result: {} wins {how}", colour_name(player));
            }
            Status::Drawn(reason) => {
                let why = match reason {
                    Draw::NoMove => "no legal move",
                    Draw::Material => "too little material",
                    Draw::Repetition => "repetition",
                    Draw::PlyCap => "the ply cap",
                };
                let _ = writeln!(text, "result: draw ({why})");
            }
        }
        text
    }

    fn player_name(&self, player: Player) -> &'static str {
        match player {
            Player::First => "white",
            Player::Second => "black",
        }
    }
}

impl Symmetric for Bulltricker {
    fn transform_state(&self, state: &Position, symmetry: Symmetry) -> Position {
        if symmetry.0 == 0 {
            return state.clone();
        }
        state.mirrored()
    }

    fn transform_action(&self, action: Action, symmetry: Symmetry) -> Action {
        if symmetry.0 == 0 {
            return action;
        }
        let m = self.action_move(action);
        self.move_action(Move {
            from: board::mirror(m.from),
            to: board::mirror(m.to),
        })
    }

    fn transform_cell(&self, cell: usize, symmetry: Symmetry) -> usize {
        if symmetry.0 == 0 {
            cell
        } else {
            board::mirror(cell)
        }
    }
}

impl Hints for Bulltricker {
    /// The decisive moves: the moves that mate the opposing King at once.
    /// Only a move landing on one of its four rectangles can (the last
    /// empty one, or one taken by a column capture), and then only when at
    /// most one of them is empty; each such move is played to see.
    fn forcing_moves(&self, state: &Position, wins: &mut Vec<Action>) -> Forcing {
        wins.clear();
        if state.status != Status::Playing {
            return Forcing::Free;
        }
        let mover = state.side();
        let wall = king_wall(state.king(mover.opponent()));
        if (wall & !state.occupied()).count_ones() > 1 {
            return Forcing::Free;
        }
        let mut candidates = Vec::new();
        moves::for_each_legal(state, |m| {
            if board::is_rect(m.to) && wall & board::bit(m.to) != 0 {
                candidates.push(m);
            }
            ControlFlow::Continue(())
        });
        for m in candidates {
            let mut next = state.clone();
            self.apply(&mut next, m);
            if next.status == Status::Won(mover) {
                wins.push(self.move_action(m));
            }
        }
        wins.sort_unstable();
        if wins.is_empty() {
            Forcing::Free
        } else {
            Forcing::Wins
        }
    }

    /// The alpha-beta anchor's evaluation in Pawns (material, a Pawn 1
    /// and a Queen 3, and 0.4 for each free rectangle around one's King
    /// less the opponent's), and two terms that the anchor's depth misses
    /// once a side is far ahead, one's own less the opponent's: each
    /// Pawn's road to its promotion, 2 · (1 − d / 12)² at d rows from the
    /// promotion row (nearly the two Pawns a Queen adds as it arrives,
    /// nothing from its start), each Queen's nearness to the opposing
    /// King (the pieces that mate must gather round it), and the walls
    /// round a lone King's region, 0.1 for each rectangle it loses.
    fn heuristic_score(&self, state: &Position) -> Option<f32> {
        Some(baselines::search_heuristic(self, state))
    }

    /// Five Pawns: a Queen up reads 0.54.
    fn heuristic_scale(&self) -> f32 {
        HEURISTIC_SCALE
    }

    /// The captures first, the largest first, as the alpha-beta anchor
    /// orders them.
    fn heuristic_moves(&self, state: &Position, moves: &mut Vec<Action>) {
        baselines::captures_first(self, state, moves);
    }

    /// A two-ply alpha-beta search on the heuristic from each new position
    /// of the tree and four plies from the root's moves, its score half of
    /// a new leaf's value; implicit minimax backups at half weight; no
    /// evaluation where a capture is compulsory or the move is the only
    /// one; and the score utility at a scale of one Pawn, so that a won
    /// game is played to the mate. The network alone loses material to a
    /// three-ply search one capture at a time; with these, 800 simulations
    /// of the shipped network won 54 and drew 6 of 60 games against
    /// `alphabeta:depth=3` (`docs/bulltricker.md`).
    fn search_tactics(&self) -> Tactics {
        Tactics {
            minimax_weight: 0.5,
            skip_single_moves: true,
            leaf_depth: 2,
            root_leaf_depth: 4,
            leaf_weight: 0.5,
            score_utility: 1.0,
            score_scale: 1.0,
        }
    }

    /// `plies` random legal moves of each side from the start, White's
    /// first, drawn uniformly with `seed`: a middle game whose material is
    /// often unbalanced (the compulsory captures of random play trade and
    /// lose pieces), where self-play meets won and lost positions far
    /// sooner than from the start. The ply count goes on from the walk.
    /// `None` if the walk ends the game.
    fn opening_walk(&self, plies: u32, seed: u64) -> Option<Position> {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut position = self.initial_state();
        for _ in 0..2 * plies {
            let m = *self.legal_moves(&position).choose(&mut rng)?;
            self.apply(&mut position, m);
        }
        (position.status == Status::Playing).then_some(position)
    }

    /// An ending for self-play: the pieces `plies` random legal moves of
    /// each side leave (random play's compulsory captures thin the board
    /// out, and unevenly), with the ply count and the repetitions started
    /// afresh, so that the whole cap is left to finish the game: where the
    /// side ahead must learn to wall the King in, which games from the
    /// start, decided at the cap, seldom show. `None` if the walk ends the
    /// game.
    fn reverse_start(&self, plies: u32, seed: u64) -> Option<Position> {
        let walked = self.opening_walk(plies, seed)?;
        Some(Position::new(walked.key, 0))
    }
}

/// The column names above the drawn board, three characters each.
fn column_labels() -> String {
    (0..SIZE)
        .map(|c| format!("{:>3}", &board::cell_name(SIZE + c)[2..]))
        .collect()
}
