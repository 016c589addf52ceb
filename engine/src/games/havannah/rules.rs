//! Win detection: bridges, forks and rings.
//!
//! A ring encloses a cell whatever it holds, the mover's own stones
//! included: a cell is enclosed when it is not on the boundary and every path
//! from it to the boundary crosses the mover's stones (its own stone aside),
//! as in OpenSpiel, whose ring search follows any cycle of the mover's stones
//! around a cell.
//!
//! [`wins_after`] is the fast test made after every move (inside the
//! search). It looks only at the group of the stone just placed; for a ring,
//! at the two ways that stone can enclose cells. It can cut a region of
//! non-own cells off the boundary only if it joins two separate arcs of own
//! neighbours: the gaps between the arcs are flooded until they reach the
//! boundary (no ring there) or stop growing (a ring). Or it can complete the
//! six own neighbours of an own stone next to it (a region made of own stones
//! only has such a stone next to the stone that closed it). [`structures`] is
//! the whole-board analysis, used to read positions and to report results.

use super::bitboard::Bitboard;
use super::board::Board;

/// The winning structures a player's stones form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Structures {
    /// A group holds two corners or more.
    pub bridge: bool,
    /// A group touches three edges or more.
    pub fork: bool,
    /// The stones enclose at least one cell (of any content).
    pub ring: bool,
}

impl Structures {
    /// Whether any structure is formed, which wins the game.
    pub fn any(self) -> bool {
        self.bridge || self.fork || self.ring
    }

    /// The names of the structures formed, joined with `+` (`ring`,
    /// `bridge+fork`, …), or `none`.
    pub fn names(self) -> String {
        let names: Vec<&str> = [
            (self.bridge, "bridge"),
            (self.fork, "fork"),
            (self.ring, "ring"),
        ]
        .into_iter()
        .filter_map(|(formed, name)| formed.then_some(name))
        .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join("+")
        }
    }
}

/// For each 6-bit mask of own neighbours (bit `d` for direction `d`, in
/// the cyclic order of `board::DIRECTIONS`): how many runs of own neighbours
/// it has, and its gaps (runs of other neighbours) as direction masks.
struct Arcs {
    own_runs: [u8; 64],
    gaps: [[u8; 3]; 64],
}

const fn runs_of_ones(mask: u8) -> [u8; 3] {
    let mut runs = [0u8; 3];
    let mut count = 0;
    if mask == 0 || mask == 63 {
        if mask == 63 {
            runs[0] = 63;
        }
        return runs;
    }
    // Start after a zero so that no run wraps around the start.
    let mut start = 0;
    while mask >> start & 1 != 0 {
        start += 1;
    }
    let mut step = 1;
    let mut current = 0u8;
    while step <= 6 {
        let direction = (start + step) % 6;
        if mask >> direction & 1 != 0 {
            current |= 1 << direction;
        } else if current != 0 {
            runs[count] = current;
            count += 1;
            current = 0;
        }
        step += 1;
    }
    runs
}

const fn arcs() -> Arcs {
    let mut own_runs = [0u8; 64];
    let mut gaps = [[0u8; 3]; 64];
    let mut mask = 0;
    while mask < 64 {
        let runs = runs_of_ones(mask as u8);
        own_runs[mask] = (runs[0] != 0) as u8 + (runs[1] != 0) as u8 + (runs[2] != 0) as u8;
        gaps[mask] = runs_of_ones(!(mask as u8) & 63);
        mask += 1;
    }
    Arcs { own_runs, gaps }
}

static ARCS: Arcs = arcs();

/// Number of edges that `cells` touch.
#[inline]
fn edges_touched(board: &Board, cells: Bitboard) -> usize {
    board
        .edges()
        .iter()
        .filter(|edge| edge.intersects(cells))
        .count()
}

/// Whether a group of `group` cells is a bridge or a fork.
#[inline]
fn bridge_or_fork(board: &Board, group: Bitboard) -> bool {
    (group & board.corners()).count() >= 2 || edges_touched(board, group) >= 3
}

/// Whether the stone just placed on `bit` wins for its owner, whose stones
/// (that one included) are `own`; the position before it had no winner.
#[inline]
pub fn wins_after(board: &Board, own: Bitboard, bit: usize) -> bool {
    let neighbours = board.neighbours(bit);
    let mut mask = 0u8;
    for (direction, &neighbour) in neighbours.iter().enumerate() {
        mask |= u8::from(own.contains(usize::from(neighbour))) << direction;
    }
    if mask == 0 {
        // A lone stone touches at most one corner or one edge.
        return false;
    }
    let own_runs = ARCS.own_runs[usize::from(mask)];
    // Own neighbours in one arc touch each other: they were one group, which
    // had not won, and an inner stone adds no corner or edge to it. Else the
    // group can only win if all own stones together do.
    let may_connect = own_runs >= 2 || board.boundary().contains(bit);
    if may_connect
        && bridge_or_fork(board, own)
        && bridge_or_fork(board, board.flood(Bitboard::single(bit), own))
    {
        return true;
    }
    // An own stone (next to this one, or this one) whose six neighbours are
    // all own stones now.
    let surrounded = |cell: usize| {
        !board.boundary().contains(cell)
            && board
                .neighbours(cell)
                .iter()
                .all(|&n| own.contains(usize::from(n)))
    };
    if surrounded(bit)
        || neighbours
            .iter()
            .any(|&n| own.contains(usize::from(n)) && surrounded(usize::from(n)))
    {
        return true;
    }
    if own_runs < 2 {
        // Cutting non-own cells off the boundary needs the stone to join two
        // arcs of own neighbours: otherwise its other neighbours still touch
        // each other around it.
        return false;
    }
    let open = board.cells().without(own);
    let mut escaped = Bitboard::EMPTY;
    for &gap in &ARCS.gaps[usize::from(mask)] {
        let mut region = Bitboard::EMPTY;
        for (direction, &neighbour) in neighbours.iter().enumerate() {
            if gap >> direction & 1 != 0 {
                region.insert(usize::from(neighbour));
            }
        }
        region &= open;
        if region.is_empty() || region.intersects(escaped) {
            continue;
        }
        loop {
            if region.intersects(board.boundary()) {
                escaped |= region;
                break;
            }
            let grown = board.dilate(region) & open;
            if grown.same_as(region) {
                return true; // enclosed
            }
            region = grown;
        }
    }
    false
}

/// The structures that the stones `own` form, by looking at the whole board.
pub fn structures(board: &Board, own: Bitboard) -> Structures {
    let mut found = Structures::default();
    let mut rest = own;
    while let Some(bit) = rest.first() {
        let group = board.flood(Bitboard::single(bit), own);
        found.bridge |= (group & board.corners()).count() >= 2;
        found.fork |= edges_touched(board, group) >= 3;
        rest = rest.without(group);
    }
    // Cells reachable from the boundary through non-own cells, then every
    // cell next to one of them: the rest of the inside is enclosed.
    let open = board.cells().without(own);
    let outside = board.flood(board.boundary() & open, open);
    let reached = board.dilate(outside) | board.boundary();
    found.ring = !board.cells().without(reached).is_empty();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arcs_count_runs_around_the_cell() {
        assert_eq!(ARCS.own_runs[0], 0);
        assert_eq!(ARCS.own_runs[0b000001], 1);
        assert_eq!(ARCS.own_runs[0b100001], 1); // wraps around
        assert_eq!(ARCS.own_runs[0b000101], 2);
        assert_eq!(ARCS.own_runs[0b010101], 3);
        assert_eq!(ARCS.gaps[0b000101], [0b000010, 0b111000, 0]);
        assert_eq!(ARCS.gaps[0b111111], [0, 0, 0]);
    }
}
