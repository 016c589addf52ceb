//! Replays Havannah games read on standard input and prints, after every
//! move, what the engine makes of the position; the cross-check
//! (`scripts/havannah/crosscheck.py`) compares it with OpenSpiel.
//!
//! Commands, one a line:
//! - `game <parameters>`: the rules of the games that follow
//!   (`game base=8 swap=1`);
//! - `play <id> <id> …` (or `observe <id> …`): replays the action ids from
//!   the start and prints one line per position, the start included:
//!   `<legal> <result>` where `<legal>` is the set of legal action ids in
//!   hexadecimal (bit `a` for id `a`) and `<result>` is `-` while the game
//!   goes on, else White's return (`1`, `-1` or `0`); `observe` adds the
//!   stones of the side to move and of the opponent as two more sets. Then
//!   `end <structures>`: what the winner formed (`ring`, `bridge+fork`, …),
//!   `draw` or `unfinished`; or `illegal <index>` if a move is illegal;
//! - `show <id> <id> …`: replays the action ids and prints the final
//!   position drawn, with the structures each side forms;
//! - `bench <games> <seed>`: plays random games and prints
//!   `bench games=… moves=… seconds=… games_per_second=…`.

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;
use std::time::Instant;

use grandmaitre_engine::havannah::{Bitboard, Havannah, Position};
use grandmaitre_engine::{Action, Game, Notation, Outcome, Player};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut game = Havannah::default();
    let stdin = io::stdin();
    let mut out = BufWriter::new(io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| format!("reading standard input: {e}"))?;
        let (command, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        let result = match command {
            "game" => {
                game = Havannah::with_rules(rest).map_err(|e| e.to_string())?;
                Ok(())
            }
            "play" => replay(&game, rest, false, &mut out),
            "observe" => replay(&game, rest, true, &mut out),
            "bench" => bench(&game, rest, &mut out),
            "show" => show(&game, rest, &mut out),
            "" => Ok(()),
            other => return Err(format!("unknown command '{other}'")),
        };
        result.map_err(|e| format!("writing standard output: {e}"))?;
    }
    out.flush()
        .map_err(|e| format!("writing standard output: {e}"))
}

fn replay(game: &Havannah, ids: &str, observe: bool, out: &mut impl Write) -> io::Result<()> {
    let mut state = game.initial_state();
    let mut actions = Vec::new();
    let report = |state: &Position, actions: &mut Vec<Action>, out: &mut dyn Write| {
        game.legal_actions(state, actions);
        let legal = hex(game, actions.iter().map(|a| a.index()));
        let result = match game.outcome_for(state, Player::First) {
            None => "-",
            Some(Outcome::Win) => "1",
            Some(Outcome::Loss) => "-1",
            Some(Outcome::Draw) => "0",
        };
        write!(out, "{legal} {result}")?;
        if observe {
            let side = state.side_to_move();
            for stones in [state.stones(side), state.stones(side.opponent())] {
                write!(out, " {}", cells_hex(game, stones))?;
            }
        }
        writeln!(out)
    };
    report(&state, &mut actions, out)?;
    for (index, id) in ids.split_whitespace().enumerate() {
        let action = id.parse::<u16>().map(Action).ok();
        match action.and_then(|a| game.play(&state, a).ok()) {
            Some(next) => state = next,
            None => return writeln!(out, "illegal {index}"),
        }
        report(&state, &mut actions, out)?;
    }
    let end = match game.outcome(&state) {
        None => "unfinished".to_string(),
        Some(Outcome::Draw) => "draw".to_string(),
        Some(_) => {
            let winner = state.side_to_move().opponent();
            let names = game.structures(&state, winner).names();
            if names.contains("ring") && encloses_only_own_stones(game, &state, winner) {
                names.replace("ring", "ring-around-own")
            } else {
                names
            }
        }
    };
    writeln!(out, "end {end}")
}

fn show(game: &Havannah, ids: &str, out: &mut impl Write) -> io::Result<()> {
    let mut state = game.initial_state();
    for id in ids.split_whitespace() {
        let action = id.parse::<u16>().map(Action).ok();
        match action.and_then(|a| game.play(&state, a).ok()) {
            Some(next) => state = next,
            None => return writeln!(out, "illegal move {id}"),
        }
    }
    write!(out, "{}", game.render(&state))?;
    for player in [Player::First, Player::Second] {
        let formed = game.structures(&state, player).names();
        writeln!(out, "{player:?} forms: {formed}")?;
    }
    Ok(())
}

/// Whether every cell that `player`'s stones enclose is one of their own
/// stones (no empty or opponent cell is cut off from the boundary).
fn encloses_only_own_stones(game: &Havannah, state: &Position, player: Player) -> bool {
    let board = game.board();
    let open = board.cells().without(state.stones(player));
    board.flood(board.boundary() & open, open) == open
}

/// A set of action ids in hexadecimal, bit `a` for id `a`.
fn hex(game: &Havannah, ids: impl Iterator<Item = usize>) -> String {
    let mut words = vec![0u64; game.board().action_count().div_ceil(64)];
    for id in ids {
        words[id / 64] |= 1 << (id % 64);
    }
    words.iter().rev().map(|w| format!("{w:016x}")).collect()
}

fn cells_hex(game: &Havannah, cells: Bitboard) -> String {
    hex(
        game,
        cells.iter().map(|bit| game.board().action_of_bit(bit)),
    )
}

fn bench(game: &Havannah, args: &str, out: &mut impl Write) -> io::Result<()> {
    let mut fields = args.split_whitespace().map(|f| f.parse::<u64>().ok());
    let games = fields.next().flatten().unwrap_or(1000);
    let seed = fields.next().flatten().unwrap_or(0);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut actions = Vec::new();
    let mut moves = 0u64;
    let mut results = [0u64; 3];
    let start = Instant::now();
    for _ in 0..games {
        let mut state = game.initial_state();
        loop {
            game.legal_actions(&state, &mut actions);
            if actions.is_empty() {
                break;
            }
            let action = actions[rng.random_range(0..actions.len())];
            game.apply_unchecked(&mut state, action);
            moves += 1;
        }
        let white = game.outcome_for(&state, Player::First);
        results[(1.0 - white.map_or(0.0, |o| o.value())) as usize] += 1;
    }
    let seconds = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "bench games={games} moves={moves} seconds={seconds:.3} games_per_second={:.0} \
         white_wins={} draws={} black_wins={}",
        games as f64 / seconds,
        results[0],
        results[1],
        results[2]
    )
}
