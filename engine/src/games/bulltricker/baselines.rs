//! Bulltricker's hand-written players, the anchors that measure the Grand
//! Maître without any learning:
//!
//! - [`GreedyAgent`]: a mating move always; else the move that takes the
//!   most material (a Queen 3, a Pawn 1), the one that leaves the opposing
//!   King the fewest free rectangles among equals, at random among the
//!   rest of the ties; a move that loses at once (the Trick) only when no
//!   other is left.
//! - [`AlphaBetaAgent`]: fixed-depth alpha-beta on material and King
//!   freedom: Pawns 100, Queens 300, and 40 for each free rectangle around
//!   one's own King less those around the opponent's, from the side to
//!   move; captures tried first, the largest first.
//!
//! and the search's own heuristic ([`search_heuristic`]): the anchor's
//! evaluation, and the Pawns' progress, the Queens' nearness to the
//! opposing King and the walls round a lone King's region, which the
//! anchor's depth misses once a side is far ahead.

use rand::SeedableRng;
use rand::rngs::SmallRng;

use super::board::{self, Rects};
use super::moves;
use super::{Bulltricker, Position, Status, king_wall as wall};
use crate::agent::{Agent, best_at_random};
use crate::alphabeta::{AlphaBeta, Evaluation};
use crate::game::{Action, Game, Player};

/// Worth of a Pawn (a Queen is worth three: [`Position::material_of`]).
const PAWN: i32 = 100;
/// Worth of each free rectangle around a King.
const FREEDOM: i32 = 40;

/// Empty rectangles around `player`'s King.
fn freedom(state: &Position, player: Player) -> i32 {
    (wall(state.king(player)) & !state.occupied()).count_ones() as i32
}

/// The material of the rectangles `rects`.
fn material(state: &Position, rects: Rects) -> i32 {
    PAWN * state.material_of(rects) as i32
}

/// Material taken by a move of the side to move.
fn taken(game: &Bulltricker, state: &Position, action: Action) -> i32 {
    let m = game.action_move(action);
    if state.king(state.side()) == m.from {
        return 0;
    }
    material(state, super::moves::captured(state, m))
}

/// The legal moves of `state`, written to `moves`, the captures first,
/// the largest first (the rules' order among equals).
pub(super) fn captures_first(game: &Bulltricker, state: &Position, moves: &mut Vec<Action>) {
    game.legal_actions(state, moves);
    if moves.iter().any(|&a| taken(game, state, a) != 0) {
        moves.sort_by_cached_key(|&a| -taken(game, state, a));
    }
}

/// The search's heuristic score for the side to move, in Pawns
/// ([`crate::Hints::heuristic_score`]): [`MaterialEvaluation`], and each
/// side's Pawns' progress, Queens' nearness to the opposing King and hold
/// on a lone opposing King ([`cornering`]), one's own less the
/// opponent's.
pub(super) fn search_heuristic(game: &Bulltricker, state: &Position) -> f32 {
    let side = state.side();
    let opponent = side.opponent();
    let anchor = MaterialEvaluation.evaluate(game, state) as f32 / 100.0;
    anchor + pawn_progress(state, side) - pawn_progress(state, opponent)
        + queens_near_king(state, side)
        - queens_near_king(state, opponent)
        + cornering(state, side)
        - cornering(state, opponent)
}

/// The most material a side keeps and still counts as a lone King for
/// [`cornering`]: one Queen, or three Pawns.
const LONE: u32 = 3;
/// The worth in Pawns of each rectangle taken from a lone King's region
/// ([`cornering`]).
const CORNERING: f32 = 0.1;
/// The worth in Pawns of each royal step between a lone King and the
/// board's centre ([`cornering`]).
const OFF_CENTRE: f32 = 0.5;
/// The worth in Pawns of each royal step one's King comes nearer a lone
/// King ([`cornering`]).
const KINGS_NEAR: f32 = 0.1;
/// The worth in Pawns of each cell one's Queen comes nearer a lone King
/// ([`cornering`]).
const QUEENS_NEAR: f32 = 0.05;
/// The worth in Pawns of each royal square a lone King can no longer
/// reach within two steps ([`cornering`]).
const CLOSE_SQUARES: f32 = 0.2;
/// The most royal squares a King reaches within two steps: four at one,
/// eight at two.
const CLOSE_REACH: u32 = 12;

/// The worth in Pawns of `player`'s hold on the opposing King once the
/// opponent has at most [`LONE`] material left ([`search_heuristic`]),
/// the mop-up terms of an ending that needs a plan longer than the
/// search's sight, each nothing before:
/// - 0.1 for each of the 112 rectangles that is not a liberty of the
///   King's region ([`Region`]): the mate is a region of one
///   square without a liberty, 11.2;
/// - 0.5 for each royal step of the King from the centre (Manhattan), up
///   to 3 in a corner, where two of its four rectangles are the board's
///   edge and no way out;
/// - 0.1 for each royal step one's own King is nearer than twelve (the
///   Kings keep a square apart, so one's King walls in too);
/// - 0.05 for each cell each of one's Queens is nearer the King than
///   fourteen, the farthest cells can be apart ([`cells_apart`]): the
///   region shrinks only once a wall is whole, and the Queens must come
///   to build it;
/// - 0.2 for each of the twelve royal squares within two steps that the
///   King can no longer reach in two ([`Region::close`]), which tells a
///   King hemmed in from one still free before any wall is whole.
fn cornering(state: &Position, player: Player) -> f32 {
    if state.material(player.opponent()) > LONE {
        return 0.0;
    }
    let region = Region::of(state, player.opponent());
    let taken = board::RECTS as u32 - region.liberties;
    let steps = |a: i32, b: i32| (a - b).abs() / 2;
    let (row, col) = board::row_col(state.king(player.opponent()));
    let (own_row, own_col) = board::row_col(state.king(player));
    let centre = (board::SIZE / 2) as i32;
    let off_centre = steps(row, centre) + steps(col, centre);
    let apart = steps(row, own_row) + steps(col, own_col);
    let queens_near: i32 = queens_to_king(state, player).map(|d| FARTHEST - d).sum();
    CORNERING * taken as f32
        + OFF_CENTRE * off_centre as f32
        + KINGS_NEAR * (12 - apart) as f32
        + QUEENS_NEAR * queens_near as f32
        + CLOSE_SQUARES * (CLOSE_REACH - region.close) as f32
}

/// A King's region: the royal squares that the King could reach one step
/// at a time through empty rectangles, were the opponent's pieces to
/// stand still. The squares beside the other King are out of the region,
/// as the rules keep the Kings apart.
struct Region {
    /// The empty rectangles around the region's squares.
    liberties: u32,
    /// The region's squares within two steps of the King, the King's own
    /// square left out (at most [`CLOSE_REACH`]).
    close: u32,
}

impl Region {
    /// The region of `player`'s King, searched breadth first, one step a
    /// round.
    fn of(state: &Position, player: Player) -> Region {
        let empty = !state.occupied();
        let beside_other = ROYAL.beside[royal(state.king(player.opponent()))];
        let start = royal(state.king(player));
        let (mut seen, mut frontier) = (1u64 << start, 1u64 << start);
        let mut liberties: Rects = 0;
        let (mut steps, mut close) = (0, 0);
        while frontier != 0 {
            let mut next = 0;
            for square in bits(frontier) {
                for (side, neighbour) in ROYAL.sides[square]
                    .into_iter()
                    .zip(ROYAL.neighbours[square])
                {
                    if empty & side != 0 {
                        liberties |= side;
                        next |= neighbour;
                    }
                }
            }
            frontier = next & !seen & !beside_other;
            seen |= frontier;
            steps += 1;
            if steps <= 2 {
                close += frontier.count_ones();
            }
        }
        Region {
            liberties: liberties.count_ones(),
            close,
        }
    }
}

/// The royal squares, numbered 7 · i + j for the square on grid row
/// 2i + 1 and column 2j + 1, so that a set of them is a `u64`.
const ROYALS: usize = 49;

/// The number of the royal square at grid cell `g`.
fn royal(g: usize) -> usize {
    let (row, col) = board::row_col(g);
    debug_assert!(row % 2 == 1 && col % 2 == 1);
    (row as usize / 2) * 7 + col as usize / 2
}

/// The numbers of the royal squares in `set`, in increasing order.
fn bits(mut set: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let square = set.trailing_zeros() as usize;
            set &= set - 1;
            square
        })
    })
}

/// What [`Region::of`] needs of each royal square, by its number
/// ([`royal`]).
struct RoyalSquares {
    /// The rectangle on each of its four sides.
    sides: [[Rects; 4]; ROYALS],
    /// The royal square beyond each side, as a bit (none off the grid).
    neighbours: [[u64; 4]; ROYALS],
    /// The royal squares at most one step away, diagonals included (where
    /// the other King may not go while this King stands there).
    beside: [u64; ROYALS],
}

/// Each royal square's sides, neighbours and squares beside it.
static ROYAL: RoyalSquares = {
    let mut royal = RoyalSquares {
        sides: [[0; 4]; ROYALS],
        neighbours: [[0; 4]; ROYALS],
        beside: [0; ROYALS],
    };
    let size = board::SIZE as i32;
    let mut square = 0;
    while square < ROYALS {
        let (i, j) = ((square / 7) as i32, (square % 7) as i32);
        let (row, col) = (2 * i + 1, 2 * j + 1);
        let mut d = 0;
        while d < 4 {
            let (dr, dc) = board::DIRECTIONS[d];
            royal.sides[square][d] = 1 << (((row + dr) * size + col + dc) / 2);
            let (ni, nj) = (i + dr, j + dc);
            if ni >= 0 && ni < 7 && nj >= 0 && nj < 7 {
                royal.neighbours[square][d] = 1 << (ni * 7 + nj);
            }
            d += 1;
        }
        let mut other = 0;
        while other < ROYALS {
            let (oi, oj) = ((other / 7) as i32, (other % 7) as i32);
            if (oi - i).abs() <= 1 && (oj - j).abs() <= 1 {
                royal.beside[square] |= 1 << other;
            }
            other += 1;
        }
        square += 1;
    }
    royal
};

/// The worth in Pawns of `player`'s Pawns' progress towards promotion
/// ([`search_heuristic`]).
fn pawn_progress(state: &Position, player: Player) -> f32 {
    let pawns = state.pieces(player) & !state.key.queens;
    let goal = moves::promotion_row(player);
    board::rect_cells(pawns)
        .map(|g| PROGRESS[(board::row_col(g).0 - goal).unsigned_abs() as usize])
        .sum()
}

/// A Pawn's progress in Pawns at each count of rows from its promotion
/// row d: 2 · (1 − d / 12)², nothing from twelve rows on.
const PROGRESS: [f32; board::SIZE] = {
    let mut worth = [0.0; board::SIZE];
    let mut rows = 0;
    while rows < board::SIZE {
        let progress = (1.0 - rows as f32 / 12.0).max(0.0);
        worth[rows] = 2.0 * progress * progress;
        rows += 1;
    }
    worth
};

/// The worth in Pawns of `player`'s Queens' nearness to the opposing
/// King ([`search_heuristic`]), 0.3 · (1 − d / 14) each at d cells
/// ([`cells_apart`]).
fn queens_near_king(state: &Position, player: Player) -> f32 {
    queens_to_king(state, player)
        .map(|d| QUEEN_NEAR[d as usize])
        .sum()
}

/// A Queen's nearness in Pawns at each count of cells d from the opposing
/// King: 0.3 · (1 − d / 14).
const QUEEN_NEAR: [f32; FARTHEST as usize + 1] = {
    let mut worth = [0.0; FARTHEST as usize + 1];
    let mut d = 0;
    while d <= FARTHEST as usize {
        worth[d] = 0.3 * (1.0 - d as f32 / FARTHEST as f32);
        d += 1;
    }
    worth
};

/// The farthest two cells of the grid can be apart ([`cells_apart`]).
const FARTHEST: i32 = board::SIZE as i32 - 1;

/// How many cells apart two cells of the grid are: the larger of the
/// rows' and the columns' distances.
fn cells_apart(a: usize, b: usize) -> i32 {
    let ((a_row, a_col), (b_row, b_col)) = (board::row_col(a), board::row_col(b));
    (a_row - b_row).abs().max((a_col - b_col).abs())
}

/// How many cells each of `player`'s Queens is from the opposing King
/// ([`cells_apart`]).
fn queens_to_king(state: &Position, player: Player) -> impl Iterator<Item = i32> {
    let king = state.king(player.opponent());
    board::rect_cells(state.pieces(player) & state.key.queens).map(move |g| cells_apart(g, king))
}

/// The greedy player.
#[derive(Debug)]
pub struct GreedyAgent {
    rng: SmallRng,
    actions: Vec<Action>,
}

impl GreedyAgent {
    /// A greedy player whose ties are broken by `seed`.
    pub fn new(seed: u64) -> GreedyAgent {
        GreedyAgent {
            rng: SmallRng::seed_from_u64(seed),
            actions: Vec::new(),
        }
    }
}

impl Agent<Bulltricker> for GreedyAgent {
    fn select(&mut self, game: &Bulltricker, state: &Position) -> Action {
        game.legal_actions(state, &mut self.actions);
        let mover = state.side();
        let key = |action: Action| {
            let next = game.play(state, action).expect("legal");
            let wins = next.status == Status::Won(mover);
            let loses = next.status == Status::Won(mover.opponent());
            (
                wins,
                !loses,
                taken(game, state, action),
                -freedom(&next, mover.opponent()),
            )
        };
        best_at_random(&mut self.rng, &self.actions, key)
    }
}

/// Alpha-beta on material and King freedom.
pub type AlphaBetaAgent = AlphaBeta<MaterialEvaluation>;

impl AlphaBetaAgent {
    /// A searcher of `depth` plies (at least 1); `seed` breaks ties between
    /// equally scored root moves.
    pub fn bulltricker(depth: u32, seed: u64) -> AlphaBetaAgent {
        AlphaBeta::new(depth, seed, MaterialEvaluation)
    }
}

/// Material and King freedom, captures ordered first.
#[derive(Clone, Copy, Debug)]
pub struct MaterialEvaluation;

impl Evaluation<Bulltricker> for MaterialEvaluation {
    fn evaluate(&self, _game: &Bulltricker, state: &Position) -> i32 {
        let side = state.side();
        let opponent = side.opponent();
        material(state, state.pieces(side)) - material(state, state.pieces(opponent))
            + FREEDOM * (freedom(state, side) - freedom(state, opponent))
    }

    fn ordered_moves(&self, game: &Bulltricker, state: &Position, moves: &mut Vec<Action>) {
        captures_first(game, state, moves);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Hints, Notation};

    #[test]
    fn greedy_takes_the_most_and_mates_when_it_can() {
        let game = Bulltricker::default();
        // White's Queen on A4V1 takes the Pawn on A4V2 and the Queen on
        // A4V4 in one line, landing on A4V5 to A4V8.
        let state = game
            .parse_state("7/13k1/7/15/7/15/7/Q1p3q8/7/15/7/P13P/7/1K13/7 w 0")
            .expect("position");
        for seed in 0..5 {
            let action = GreedyAgent::new(seed).select(&game, &state);
            let name = game.format_action(&state, action);
            assert!(name.starts_with("A4V1xA4V"), "{name}");
            assert_eq!(
                taken(&game, &state, action),
                PAWN + 3 * PAWN,
                "a Pawn and a Queen"
            );
        }
        // Black's King on A7C7 has three of its rectangles filled by White
        // Queens (H1C7, A7V7, A7V8) and H2C7 empty: the Queen on H3C7
        // slides up across A6C7 onto H2C7 and walls it in.
        let state = game
            .parse_state("6Q/12QkQ/7/15/6Q/15/7/15/7/15/7/P13P/7/1K13/7 w 0")
            .expect("position");
        let action = GreedyAgent::new(0).select(&game, &state);
        let next = game.play(&state, action).expect("legal");
        assert_eq!(
            next.status,
            Status::Won(Player::First),
            "{}",
            game.format_action(&state, action)
        );
        assert_eq!(
            (wall(next.king(Player::Second)) & next.occupied()).count_ones(),
            4
        );
    }

    /// The region as a walk from square to square finds it: its empty
    /// rectangles, and its squares within two steps.
    fn walked_region(state: &Position, player: Player) -> (u32, u32) {
        let empty = !state.occupied();
        let other = state.king(player.opponent());
        let mut steps = [u8::MAX; board::GRID];
        let mut queue = vec![state.king(player)];
        steps[queue[0]] = 0;
        let (mut liberties, mut close): (Rects, u32) = (0, 0);
        while let Some(square) = queue.pop() {
            let (row, col) = board::row_col(square);
            for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                let rect = board::at(row + dr, col + dc).expect("a royal square's side");
                if empty & board::bit(rect) == 0 {
                    continue;
                }
                liberties |= board::bit(rect);
                if let Some(next) = board::at(row + 2 * dr, col + 2 * dc)
                    && cells_apart(next, other) > 2
                    && steps[next] > steps[square] + 1
                {
                    steps[next] = steps[square] + 1;
                    queue.push(next);
                }
            }
        }
        for (g, &s) in steps.iter().enumerate() {
            close += u32::from(g != state.king(player) && s <= 2);
        }
        (liberties.count_ones(), close)
    }

    #[test]
    fn a_king_s_region_is_what_a_walk_from_square_to_square_reaches() {
        let game = Bulltricker::default();
        let mut regions = 0;
        for plies in [0, 20, 60, 100, 150] {
            for seed in 0..30 {
                let Some(state) = game.reverse_start(plies, seed) else {
                    continue;
                };
                for player in [Player::First, Player::Second] {
                    let region = Region::of(&state, player);
                    assert_eq!(
                        (region.liberties, region.close),
                        walked_region(&state, player),
                        "{}",
                        game.format_state(&state)
                    );
                    regions += 1;
                }
            }
        }
        assert!(regions > 200, "{regions} regions");
        // At the start White's King has Queens on both sides and a Pawn
        // ahead; behind it the empty back line, with no square beyond:
        // one liberty and nowhere to go.
        let start = Region::of(&game.initial_state(), Player::First);
        assert_eq!((start.liberties, start.close), (1, 0));
    }

    #[test]
    fn alpha_beta_mates_and_counts_material() {
        let game = Bulltricker::default();
        let state = game
            .parse_state("6Q/12QkQ/7/15/6Q/15/7/15/7/15/7/P13P/7/1K13/7 w 0")
            .expect("position");
        let action = AlphaBetaAgent::bulltricker(2, 1).select(&game, &state);
        let next = game.play(&state, action).expect("legal");
        assert_eq!(next.status, Status::Won(Player::First));
        let evaluation = MaterialEvaluation.evaluate(&game, &game.initial_state());
        assert_eq!(evaluation, 0, "the start is even");
    }
}
