//! A deliberately naive Havannah, written for the tests only: cells in a
//! grid of `Option<player>`, groups found by breadth-first search, rings
//! tested straight from the rules' wording (some cell from which a search
//! through cells that are not the mover's stones never reaches a boundary
//! cell). It shares no code with the engine, so that the two can check each
//! other on random games.

use std::collections::VecDeque;

use grandmaitre_engine::havannah::Havannah;
use grandmaitre_engine::{Action, Game, Notation, Outcome, Player};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

struct Naive {
    base: i32,
    swap: bool,
}

/// The winning structures a player's stones form, as the naive searches
/// find them.
#[derive(Clone, Copy, Debug, Default)]
struct NaiveStructures {
    /// Some cell cannot reach the boundary without crossing the stones.
    ring: bool,
    /// A group holds two corners or more.
    bridge: bool,
    /// A group touches three edges or more (a corner is on no edge).
    fork: bool,
}

impl NaiveStructures {
    fn any(self) -> bool {
        self.ring || self.bridge || self.fork
    }
}

#[derive(Clone)]
struct NaiveState {
    /// `cells[y][x]`: `Some(0)` White, `Some(1)` Black.
    cells: Vec<Vec<Option<usize>>>,
    to_move: usize,
    ply: usize,
    first_stone: Option<(i32, i32)>,
    /// `None` while the game goes on; `Some(None)` a draw, `Some(Some(p))`
    /// a win for `p`.
    result: Option<Option<usize>>,
}

impl Naive {
    fn diameter(&self) -> i32 {
        2 * self.base - 1
    }

    fn on_board(&self, x: i32, y: i32) -> bool {
        let d = self.diameter();
        x >= 0 && y >= 0 && x < d && y < d && (x - y).abs() < self.base
    }

    fn neighbours(&self, x: i32, y: i32) -> Vec<(i32, i32)> {
        [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)]
            .iter()
            .map(|(dx, dy)| (x + dx, y + dy))
            .filter(|&(nx, ny)| self.on_board(nx, ny))
            .collect()
    }

    fn is_corner(&self, x: i32, y: i32) -> bool {
        let (m, e) = (self.base - 1, 2 * self.base - 2);
        [(0, 0), (m, 0), (e, m), (e, e), (m, e), (0, m)].contains(&(x, y))
    }

    /// The side a boundary cell that is no corner lies on.
    fn edge(&self, x: i32, y: i32) -> Option<usize> {
        if self.is_corner(x, y) || self.neighbours(x, y).len() == 6 {
            return None;
        }
        let (m, e) = (self.base - 1, 2 * self.base - 2);
        let sides = [y == 0, x - y == m, x == e, y == e, y - x == m, x == 0];
        sides.iter().position(|&on| on)
    }

    fn cells(&self) -> Vec<(i32, i32)> {
        let d = self.diameter();
        (0..d)
            .flat_map(|y| (0..d).map(move |x| (x, y)))
            .filter(|&(x, y)| self.on_board(x, y))
            .collect()
    }

    fn start(&self) -> NaiveState {
        let d = self.diameter() as usize;
        NaiveState {
            cells: vec![vec![None; d]; d],
            to_move: 0,
            ply: 0,
            first_stone: None,
            result: None,
        }
    }

    fn structures(&self, state: &NaiveState, player: usize) -> NaiveStructures {
        let owner = |(x, y): (i32, i32)| state.cells[y as usize][x as usize];
        let mut found = NaiveStructures::default();
        // Groups.
        let mut seen = vec![];
        for cell in self.cells() {
            if owner(cell) != Some(player) || seen.contains(&cell) {
                continue;
            }
            let mut group = vec![cell];
            let mut queue = VecDeque::from([cell]);
            while let Some((x, y)) = queue.pop_front() {
                for next in self.neighbours(x, y) {
                    if owner(next) == Some(player) && !group.contains(&next) {
                        group.push(next);
                        queue.push_back(next);
                    }
                }
            }
            let corners = group.iter().filter(|&&(x, y)| self.is_corner(x, y)).count();
            let mut edges: Vec<usize> =
                group.iter().filter_map(|&(x, y)| self.edge(x, y)).collect();
            edges.sort();
            edges.dedup();
            found.bridge |= corners >= 2;
            found.fork |= edges.len() >= 3;
            seen.extend(group);
        }
        // Rings: a cell from which the boundary cannot be reached without
        // crossing the player's stones.
        let d = self.diameter() as usize;
        found.ring = self.cells().into_iter().any(|start| {
            let mut reached = vec![vec![false; d]; d];
            reached[start.1 as usize][start.0 as usize] = true;
            let mut queue = VecDeque::from([start]);
            while let Some((x, y)) = queue.pop_front() {
                if self.neighbours(x, y).len() < 6 {
                    return false;
                }
                for (nx, ny) in self.neighbours(x, y) {
                    let seen = &mut reached[ny as usize][nx as usize];
                    if owner((nx, ny)) != Some(player) && !*seen {
                        *seen = true;
                        queue.push_back((nx, ny));
                    }
                }
            }
            true
        });
        found
    }

    /// Legal moves as `(x, y)`, in action id order.
    fn moves(&self, state: &NaiveState) -> Vec<(i32, i32)> {
        if state.result.is_some() {
            return vec![];
        }
        self.cells()
            .into_iter()
            .filter(|&(x, y)| {
                state.cells[y as usize][x as usize].is_none()
                    || (self.swap && state.ply == 1 && state.first_stone == Some((x, y)))
            })
            .collect()
    }

    fn play(&self, state: &mut NaiveState, (x, y): (i32, i32)) {
        let player = state.to_move;
        state.cells[y as usize][x as usize] = Some(player);
        if state.ply == 0 {
            state.first_stone = Some((x, y));
        }
        state.ply += 1;
        state.to_move = 1 - player;
        if self.structures(state, player).any() {
            state.result = Some(Some(player));
        } else if self
            .cells()
            .iter()
            .all(|&(x, y)| state.cells[y as usize][x as usize].is_some())
        {
            state.result = Some(None);
        }
    }
}

/// Plays random games with both implementations and compares them at every
/// position; `local` makes most moves next to the mover's stones, which
/// builds rings.
fn compare(base: i32, swap: bool, games: usize, local: bool, seed: u64) -> [usize; 3] {
    let naive = Naive { base, swap };
    let game = Havannah::new(base as usize, swap);
    let d = naive.diameter();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut actions = Vec::new();
    let mut endings = [0; 3]; // rings, bridges or forks, draws
    for _ in 0..games {
        let mut state = game.initial_state();
        let mut reference = naive.start();
        loop {
            game.legal_actions(&state, &mut actions);
            let moves = naive.moves(&reference);
            let ids: Vec<Action> = moves
                .iter()
                .map(|&(x, y)| Action((x + y * d) as u16))
                .collect();
            assert_eq!(actions, ids, "{}", game.format_state(&state));
            let expected = reference.result.map(|winner| match winner {
                None => Outcome::Draw,
                Some(p) if p == state.side_to_move().index() => Outcome::Win,
                Some(_) => Outcome::Loss,
            });
            assert_eq!(
                game.outcome(&state),
                expected,
                "{}",
                game.format_state(&state)
            );
            if let Some(result) = reference.result {
                if let Some(winner) = result {
                    let player = [Player::First, Player::Second][winner];
                    let engine = game.structures(&state, player);
                    let formed = naive.structures(&reference, winner);
                    assert_eq!(
                        (engine.ring, engine.bridge, engine.fork),
                        (formed.ring, formed.bridge, formed.fork),
                        "{}: ring, bridge, fork",
                        game.format_state(&state)
                    );
                    endings[usize::from(!formed.ring)] += 1;
                } else {
                    endings[2] += 1;
                }
                break;
            }
            let player = reference.to_move;
            let near: Vec<usize> = (0..moves.len())
                .filter(|&i| {
                    let (x, y) = moves[i];
                    naive
                        .neighbours(x, y)
                        .iter()
                        .any(|&(nx, ny)| reference.cells[ny as usize][nx as usize] == Some(player))
                })
                .collect();
            let index = if local && !near.is_empty() && rng.random_bool(0.85) {
                near[rng.random_range(0..near.len())]
            } else {
                rng.random_range(0..moves.len())
            };
            game.apply_unchecked(&mut state, ids[index]);
            naive.play(&mut reference, moves[index]);
        }
    }
    endings
}

#[test]
fn the_engine_agrees_with_the_naive_rules_on_random_games() {
    for (base, swap) in [(3, false), (4, true), (5, false), (6, true)] {
        compare(base, swap, 40, false, base as u64);
    }
}

#[test]
fn the_engine_agrees_with_the_naive_rules_on_ring_building_games() {
    let mut rings = 0;
    for (base, swap) in [(4, false), (6, true), (8, false)] {
        rings += compare(base, swap, 40, true, 10 + base as u64)[0];
    }
    assert!(rings > 40, "only {rings} rings");
}

#[test]
fn small_boards_fill_up_to_draws_that_both_agree_on() {
    let endings = compare(3, false, 2000, false, 5);
    assert!(endings[2] > 0, "{endings:?}");
}
