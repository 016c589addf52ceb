//! A deliberately naive Halma, written for the tests only: the board a grid
//! of `Option<player>`, jumps found by a depth-first search over landing
//! squares, the end of the game tested straight from the rules' wording.
//! It shares no code with the engine, so that the two check each other:
//! on the perft fixtures (`fixtures/halma.perft`, both sizes), and move by
//! move on random games (the legal moves, the positions' notation, the
//! results).

use std::collections::BTreeSet;

use grandmaitre_engine::halma::Halma;
use grandmaitre_engine::{Game, Notation, Outcome};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const DIRECTIONS: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// A turn: a move from one cell to another, or a pass (`None`).
type Turn = Option<((i32, i32), (i32, i32))>;

#[derive(Clone, Copy)]
struct Rules {
    n: i32,
    /// White's yard at a1 (else at the last file of rank 1).
    corner_a1: bool,
    limit: u32,
    inclusive: bool,
    draw: u32,
}

#[derive(Clone)]
struct NaiveState {
    /// `grid[y][x]`: `Some(0)` White, `Some(1)` Black.
    grid: Vec<Vec<Option<usize>>>,
    to_move: usize,
    moves: [u32; 2],
    passed: bool,
    /// `None` while the game goes on; `Some(None)` a draw, `Some(Some(p))`
    /// a win for `p`.
    result: Option<Option<usize>>,
}

impl Rules {
    fn of(game: &Halma) -> Rules {
        // The parameters as the engine writes them, read here by hand.
        let text = game.rules().to_string();
        let field = |key: &str| {
            text.split_whitespace()
                .find_map(|f| f.strip_prefix(&format!("{key}=")))
                .expect("field")
                .to_string()
        };
        Rules {
            n: field("size").parse().expect("size"),
            corner_a1: field("corner") == "a1",
            limit: field("limit").parse().expect("limit"),
            inclusive: field("compare") == "ge",
            draw: field("draw").parse().expect("draw"),
        }
    }

    /// How far (x, y) is from White's corner, counted along a rank and a
    /// file.
    fn distance_from_white_corner(&self, x: i32, y: i32) -> i32 {
        if self.corner_a1 {
            x + y
        } else {
            (self.n - 1 - x) + y
        }
    }

    fn in_yard(&self, player: usize, x: i32, y: i32) -> bool {
        let depth = if self.n == 8 { 3 } else { 4 };
        let d = self.distance_from_white_corner(x, y);
        if player == 0 {
            d <= depth
        } else {
            d >= 2 * (self.n - 1) - depth
        }
    }

    fn on_board(&self, x: i32, y: i32) -> bool {
        x >= 0 && y >= 0 && x < self.n && y < self.n
    }

    fn name(&self, (x, y): (i32, i32)) -> String {
        format!("{}{}", (b'a' + x as u8) as char, y + 1)
    }

    fn parse(&self, text: &str) -> NaiveState {
        let fields: Vec<&str> = text.split(' ').collect();
        let mut grid = vec![vec![None; self.n as usize]; self.n as usize];
        for (row, rank) in fields[0].split('/').enumerate() {
            let y = self.n as usize - 1 - row;
            let mut x = 0;
            let mut number = 0;
            for c in rank.chars() {
                if let Some(d) = c.to_digit(10) {
                    number = number * 10 + d as usize;
                    continue;
                }
                x += number;
                number = 0;
                grid[y][x] = Some(if c == 'W' { 0 } else { 1 });
                x += 1;
            }
        }
        NaiveState {
            grid,
            to_move: if fields[1] == "w" { 0 } else { 1 },
            moves: [
                fields[2].parse().expect("moves"),
                fields[3].parse().expect("moves"),
            ],
            passed: fields.len() == 5,
            result: None,
        }
    }

    fn notation(&self, state: &NaiveState) -> String {
        let mut ranks = Vec::new();
        for y in (0..self.n as usize).rev() {
            let mut rank = String::new();
            let mut empty = 0;
            for x in 0..self.n as usize {
                match state.grid[y][x] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            rank += &empty.to_string();
                        }
                        empty = 0;
                        rank.push(if p == 0 { 'W' } else { 'B' });
                    }
                }
            }
            if empty > 0 {
                rank += &empty.to_string();
            }
            ranks.push(rank);
        }
        let mut text = format!(
            "{} {} {} {}",
            ranks.join("/"),
            if state.to_move == 0 { "w" } else { "b" },
            state.moves[0],
            state.moves[1]
        );
        if state.passed {
            text += " passed";
        }
        text
    }

    /// Landing squares of jump chains from (x, y), the origin lifted.
    fn jumps(
        &self,
        grid: &[Vec<Option<usize>>],
        from: (i32, i32),
        seen: &mut BTreeSet<(i32, i32)>,
    ) {
        for (dx, dy) in DIRECTIONS {
            let (mx, my) = (from.0 + dx, from.1 + dy);
            let (lx, ly) = (from.0 + 2 * dx, from.1 + 2 * dy);
            if self.on_board(lx, ly)
                && grid[my as usize][mx as usize].is_some()
                && grid[ly as usize][lx as usize].is_none()
                && seen.insert((lx, ly))
            {
                self.jumps(grid, (lx, ly), seen);
            }
        }
    }

    fn moves(&self, state: &NaiveState) -> Vec<((i32, i32), (i32, i32))> {
        let mut list = Vec::new();
        if state.result.is_some() {
            return list;
        }
        for y in 0..self.n {
            for x in 0..self.n {
                if state.grid[y as usize][x as usize] != Some(state.to_move) {
                    continue;
                }
                let mut grid = state.grid.clone();
                grid[y as usize][x as usize] = None;
                let mut targets = BTreeSet::new();
                for (dx, dy) in DIRECTIONS {
                    let (tx, ty) = (x + dx, y + dy);
                    if self.on_board(tx, ty) && grid[ty as usize][tx as usize].is_none() {
                        targets.insert((tx, ty));
                    }
                }
                let mut seen = BTreeSet::new();
                seen.insert((x, y));
                self.jumps(&grid, (x, y), &mut seen);
                seen.remove(&(x, y));
                targets.extend(seen);
                list.extend(targets.into_iter().map(|to| ((x, y), to)));
            }
        }
        list
    }

    fn play(&self, state: &NaiveState, step: Turn) -> NaiveState {
        let mut next = state.clone();
        let mover = state.to_move;
        next.to_move = 1 - mover;
        let Some((from, to)) = step else {
            if state.passed {
                next.result = Some(None);
            }
            next.passed = true;
            return next;
        };
        next.passed = false;
        next.grid[from.1 as usize][from.0 as usize] = None;
        next.grid[to.1 as usize][to.0 as usize] = Some(mover);
        next.moves[mover] += 1;
        let mut all_in_target = true;
        let mut one_at_home = false;
        for y in 0..self.n {
            for x in 0..self.n {
                if next.grid[y as usize][x as usize] == Some(mover) {
                    all_in_target &= self.in_yard(1 - mover, x, y);
                    one_at_home |= self.in_yard(mover, x, y);
                }
            }
        }
        let n = next.moves[mover];
        let past = if self.inclusive {
            n >= self.limit
        } else {
            n > self.limit
        };
        if all_in_target {
            next.result = Some(Some(mover));
        } else if past && one_at_home {
            next.result = Some(Some(1 - mover));
        } else if next.moves[0] >= self.draw && next.moves[1] >= self.draw {
            next.result = Some(None);
        }
        next
    }

    /// The legal turns: the moves, or a pass when there is none.
    fn turns(&self, state: &NaiveState) -> Vec<Turn> {
        if state.result.is_some() {
            return Vec::new();
        }
        let moves = self.moves(state);
        if moves.is_empty() {
            vec![None]
        } else {
            moves.into_iter().map(Some).collect()
        }
    }

    fn perft(&self, state: &NaiveState, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let turns = self.turns(state);
        if depth == 1 {
            return turns.len() as u64;
        }
        turns
            .into_iter()
            .map(|turn| self.perft(&self.play(state, turn), depth - 1))
            .sum()
    }

    fn turn_name(&self, turn: Turn) -> String {
        match turn {
            None => "pass".to_string(),
            Some((from, to)) => format!("{}-{}", self.name(from), self.name(to)),
        }
    }
}

/// `fixtures/halma.perft`: `rules | position | counts from depth 1`.
fn fixtures() -> Vec<(String, String, Vec<u64>)> {
    include_str!("fixtures/halma.perft")
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split('|').map(str::trim).collect();
            let counts = fields[2]
                .split_whitespace()
                .map(|c| c.parse().expect("count"))
                .collect();
            (fields[0].to_string(), fields[1].to_string(), counts)
        })
        .collect()
}

#[test]
fn the_naive_rules_count_the_fixtures_alike() {
    let list = fixtures();
    assert!(list.len() >= 10);
    for (rules, position, counts) in list {
        let game = Halma::with_rules(&rules).expect("rules");
        let naive = Rules::of(&game);
        let state = game.parse_state(&position).expect("position");
        let naive_state = naive.parse(&position);
        // The naive rules only see a finished game through `play`: a
        // fixture's position goes on.
        assert_eq!(game.outcome(&state), None, "{position}");
        for (depth, &expected) in counts.iter().enumerate() {
            let depth = depth as u32 + 1;
            assert_eq!(
                naive.perft(&naive_state, depth),
                expected,
                "naive, {rules} | {position} depth {depth}"
            );
            assert_eq!(
                game.perft(&state, depth),
                expected,
                "engine, {rules} | {position} depth {depth}"
            );
        }
    }
}

#[test]
fn random_games_agree_move_by_move() {
    let mut rng = StdRng::seed_from_u64(18);
    for rules in [
        "size=8",
        "size=10",
        "size=8 corner=h1 compare=ge limit=12",
        "size=10 limit=20 draw=40",
    ] {
        let game = Halma::with_rules(rules).expect("rules");
        let naive = Rules::of(&game);
        let mut results = [0; 3];
        for _ in 0..12 {
            let mut state = game.initial_state();
            let mut naive_state = naive.parse(&game.format_state(&state));
            let mut actions = Vec::new();
            loop {
                assert_eq!(
                    game.format_state(&state),
                    naive.notation(&naive_state),
                    "{rules}"
                );
                game.legal_actions(&state, &mut actions);
                let turns = naive.turns(&naive_state);
                let ours: BTreeSet<String> = actions
                    .iter()
                    .map(|&a| game.format_action(&state, a))
                    .collect();
                let theirs: BTreeSet<String> = turns.iter().map(|&t| naive.turn_name(t)).collect();
                assert_eq!(ours, theirs, "{rules}: {}", game.format_state(&state));
                if actions.is_empty() {
                    let expected = naive_state.result.expect("the naive game is over too");
                    let outcome = game.outcome(&state).expect("over");
                    let side = game.current_player(&state).index();
                    let wanted = match expected {
                        None => Outcome::Draw,
                        Some(winner) if winner == side => Outcome::Win,
                        Some(_) => Outcome::Loss,
                    };
                    assert_eq!(outcome, wanted, "{rules}: {}", game.format_state(&state));
                    results[match outcome {
                        Outcome::Draw => 1,
                        _ if expected == Some(0) => 0,
                        _ => 2,
                    }] += 1;
                    break;
                }
                let index = rng.random_range(0..actions.len());
                let action = actions[index];
                let text = game.format_action(&state, action);
                let turn = turns
                    .iter()
                    .copied()
                    .find(|&t| naive.turn_name(t) == text)
                    .expect("the same move");
                game.apply_unchecked(&mut state, action);
                naive_state = naive.play(&naive_state, turn);
            }
        }
        assert_eq!(results.iter().sum::<u32>(), 12, "{rules}: {results:?}");
    }
}
