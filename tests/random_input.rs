//! The binary under random input: one engine-protocol session per game (all
//! four of them) fed
//! thousands of random and mangled lines, and `calibrate --games-in` on
//! damaged records files. The session answers every line that is not blank
//! or a comment exactly once, in order, framed `=[id]` or `?[id]` and a
//! blank line, and never dies; `calibrate` succeeds or exits with status 2
//! and a one-line error.

use std::path::Path;

use assert_cmd::Command;
use grandmaitre_engine::bulltricker::Bulltricker;
use grandmaitre_engine::game::random_states;
use grandmaitre_engine::halma::Halma;
use grandmaitre_engine::havannah::Havannah;
use grandmaitre_engine::heraldis::{Heraldis, Layout};
use grandmaitre_engine::{Action, Game, Notation};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

fn grandmaitre() -> Command {
    Command::cargo_bin("grandmaitre").expect("the binary is built")
}

/// Lines fed to each session.
const LINES: usize = 3000;

// ---------------------------------------------------------------------------
// Lines

/// Command names, the protocol's and a few near misses.
const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "clear_board",
    "play",
    "genmove",
    "undo",
    "showboard",
    "gm-game",
    "gm-layout",
    "gm-position",
    "gm-sims",
    "gm-level",
    "gm-winprob",
    "Play",
    "gm-",
    "boardsize",
];

/// What one game's session is fed: its colours, moves, boards and positions.
struct Vocabulary {
    game: &'static str,
    colours: Vec<&'static str>,
    moves: Vec<String>,
    boards: Vec<String>,
    positions: Vec<String>,
}

fn heraldis_vocabulary() -> Vocabulary {
    let mut rng = StdRng::seed_from_u64(7);
    let game = Heraldis::default();
    let mut moves: Vec<String> = (0..25)
        .map(|cell| {
            let name = format!("{}{}", char::from(b'a' + cell % 5), 1 + cell / 5);
            if cell % 3 == 0 {
                format!("x{name}")
            } else {
                name
            }
        })
        .collect();
    moves.extend(["pass", "f1", "a0", "xx"].map(str::to_string));
    let mut boards = vec!["default".to_string(), "random:3".to_string()];
    boards.push(Layout::random(&mut rng).to_string());
    Vocabulary {
        game: "heraldis",
        colours: vec!["light", "dark", "l", "d", "Light", "white", "b"],
        moves,
        boards,
        positions: random_states(&game, 40, 30, 1)
            .iter()
            .map(|state| game.format_state(state))
            .collect(),
    }
}

fn havannah_vocabulary() -> Vocabulary {
    let game = Havannah::new(5, true);
    let mut moves: Vec<String> = (0..game.spec().action_count)
        .map(|action| game.format_action(&game.initial_state(), Action(action as u16)))
        .collect();
    moves.extend(["swap", "z1", "a0", "a99"].map(str::to_string));
    let boards = [
        "base=5 swap=1",
        "base=4 swap=0",
        "base=2",
        "base=6",
        "base=11",
        "swap=1",
    ];
    Vocabulary {
        game: "havannah",
        colours: vec!["white", "black", "w", "b", "White", "light"],
        moves,
        boards: boards.map(str::to_string).to_vec(),
        positions: random_states(&game, 40, 60, 2)
            .iter()
            .map(|state| game.format_state(state))
            .collect(),
    }
}

/// The moves of `game` in notation, as they are written in random games
/// from the start, and a few that are not moves.
fn moves_in_random_games<G: Notation>(game: &G, junk: &[&str]) -> Vec<String> {
    let mut moves = Vec::new();
    let mut actions = Vec::new();
    for state in random_states(game, 20, 40, 3) {
        game.legal_actions(&state, &mut actions);
        moves.extend(
            actions
                .iter()
                .take(6)
                .map(|&action| game.format_action(&state, action)),
        );
    }
    moves.sort();
    moves.dedup();
    moves.extend(junk.iter().map(|word| word.to_string()));
    moves
}

/// The vocabulary of a game whose colours are white and black: its moves
/// in random games and `junk`, the rules texts `boards`, positions of
/// random games drawn with `seed`.
fn white_black_vocabulary<G: Notation>(
    game: &G,
    name: &'static str,
    boards: &[&str],
    junk: &[&str],
    seed: u64,
) -> Vocabulary {
    Vocabulary {
        game: name,
        colours: vec!["white", "black", "w", "b", "White", "light"],
        moves: moves_in_random_games(game, junk),
        boards: boards.iter().map(|board| board.to_string()).collect(),
        positions: random_states(game, 40, 60, seed)
            .iter()
            .map(|state| game.format_state(state))
            .collect(),
    }
}

fn halma_vocabulary() -> Vocabulary {
    let boards = [
        "size=8",
        "size=10",
        "size=10 limit=50",
        "size=12",
        "limit=-1",
        "compare=ge corner=h1",
        "draw=0",
        "adjudicate=race",
        "size=8 size=10",
    ];
    let junk = ["a1-a1", "a1-z9", "pass", "-", "a1-"];
    white_black_vocabulary(&Halma::default(), "halma", &boards, &junk, 4)
}

fn bulltricker_vocabulary() -> Vocabulary {
    let boards = [
        "plies=400",
        "plies=60 material=4",
        "repetitions=2",
        "adjudicate=material",
        "plies=0",
        "material=x",
        "repetitions=1 plies=10",
    ];
    let junk = ["a1-a1", "z9-a1", "pass", "x", "h8-"];
    white_black_vocabulary(&Bulltricker::default(), "bulltricker", &boards, &junk, 5)
}

/// A command of the protocol with plausible arguments.
fn command(vocabulary: &Vocabulary, rng: &mut StdRng) -> String {
    let pick = |list: &[String], rng: &mut StdRng| list.choose(rng).expect("a word").clone();
    let colour = *vocabulary.colours.choose(rng).expect("a colour");
    match rng.random_range(0..16) {
        0..=3 => format!("play {colour} {}", pick(&vocabulary.moves, rng)),
        4..=5 => format!("genmove {colour}"),
        6 => "undo".to_string(),
        7 => format!("gm-position {}", pick(&vocabulary.positions, rng)),
        8 => format!("gm-layout {}", pick(&vocabulary.boards, rng)),
        9 => format!("gm-sims {}", rng.random_range(0..40)),
        10 => format!("gm-level {}", rng.random_range(0..8)),
        11 => "gm-winprob".to_string(),
        12 => format!("gm-game {}", vocabulary.game),
        13 => format!("known_command {}", COMMANDS.choose(rng).expect("a command")),
        _ => COMMANDS.choose(rng).expect("a command").to_string(),
    }
}

/// `line` with a few characters or words deleted, inserted, replaced or
/// repeated.
fn mangled(line: &str, rng: &mut StdRng) -> String {
    const ODD: &[char] = &[
        ' ', '\t', '#', '-', 'x', '0', '9', '=', '?', '\r', '\u{0}', '\u{1b}', '\u{85}',
        '\u{2028}', 'é', '５',
    ];
    let mut chars: Vec<char> = line.chars().collect();
    for _ in 0..rng.random_range(1..4) {
        let at = rng.random_range(0..=chars.len());
        let c = if rng.random_bool(0.7) {
            *ODD.choose(rng).expect("a character")
        } else {
            rng.random::<char>()
        };
        match rng.random_range(0..5) {
            0 => chars.insert(at, c),
            1 if at < chars.len() => {
                chars.remove(at);
            }
            2 if at < chars.len() => chars[at] = c,
            3 => {
                // A word repeated or dropped.
                let text: String = chars.iter().collect();
                let mut words: Vec<&str> = text.split(' ').collect();
                let index = rng.random_range(0..words.len());
                if rng.random_bool(0.5) {
                    words.insert(index, words[index]);
                } else if words.len() > 1 {
                    words.remove(index);
                }
                chars = words.join(" ").chars().collect();
            }
            _ => {
                let digits = rng.random_range(0..u64::MAX).to_string();
                let end = rng.random_range(1..=digits.len());
                chars.splice(at..at, digits[..end].chars());
            }
        }
    }
    chars.into_iter().collect()
}

/// A line of the session, as bytes without its newline.
fn line(vocabulary: &Vocabulary, rng: &mut StdRng) -> Vec<u8> {
    let mut text = match rng.random_range(0..20) {
        0 => {
            // Raw bytes, often not UTF-8.
            let length = rng.random_range(0..40);
            return (0..length)
                .map(|_| rng.random::<u8>())
                .filter(|&b| b != b'\n')
                .collect();
        }
        1 => ["", "   ", "\t", "# a comment", "  # genmove light", "\r"]
            .choose(rng)
            .expect("a line")
            .to_string(),
        2..=9 => mangled(&command(vocabulary, rng), rng),
        _ => command(vocabulary, rng),
    };
    if rng.random_bool(0.3) {
        text = format!("{} {text}", rng.random_range(0..1000));
    }
    text.into_bytes()
}

// ---------------------------------------------------------------------------
// What the session must answer

/// `line` after GTP's preprocessing, as the engine protocol documents it:
/// the comment cut, control characters other than tabs dropped, tabs made
/// spaces.
fn preprocessed(line: &[u8]) -> String {
    String::from_utf8_lossy(line)
        .split('#')
        .next()
        .unwrap_or("")
        .chars()
        .filter(|&c| c == '\t' || !c.is_control())
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect()
}

/// The id of the answer to `line`, or `None` when it gets no answer (blank
/// or comment).
fn expected_id(line: &[u8]) -> Option<String> {
    let kept = preprocessed(line);
    let kept = kept.trim();
    if kept.is_empty() {
        return None;
    }
    let first = kept.split(char::is_whitespace).next().unwrap_or("");
    Some(if first.chars().all(|c| c.is_ascii_digit()) {
        first.to_string()
    } else {
        String::new()
    })
}

/// The command word of `line` after its id, if it has one.
fn command_word(line: &[u8]) -> Option<(String, String)> {
    let kept = preprocessed(line);
    let mut words = kept.split_whitespace();
    let mut word = words.next()?;
    if word.chars().all(|c| c.is_ascii_digit()) {
        word = words.next()?;
    }
    Some((word.to_string(), words.next().unwrap_or("").to_string()))
}

/// Lines that would end the session (`quit`) or search for long (many
/// simulations) are left out.
fn harmless(line: &[u8]) -> bool {
    match command_word(line) {
        Some((word, argument)) => match word.as_str() {
            "quit" => false,
            "gm-sims" => argument.parse::<u64>().map_or(true, |n| n <= 64),
            "gm-level" => argument.parse::<u64>().map_or(true, |n| n <= 7),
            _ => true,
        },
        None => true,
    }
}

/// Feeds `LINES` random lines to a session of `game` and checks every
/// answer.
fn session(vocabulary: &Vocabulary, arguments: &[&str], seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut input = Vec::new();
    let mut expected = Vec::new();
    while expected.len() < LINES {
        let line = line(vocabulary, &mut rng);
        if !harmless(&line) {
            continue;
        }
        input.extend_from_slice(&line);
        input.push(b'\n');
        expected.push((
            String::from_utf8_lossy(&line).into_owned(),
            expected_id(&line),
        ));
    }
    input.extend_from_slice(b"77 quit\n");
    expected.push(("77 quit".to_string(), Some("77".to_string())));

    let output = grandmaitre()
        .args([
            "gtp",
            "--game",
            vocabulary.game,
            "--model",
            "rollouts",
            "--sims",
            "16",
        ])
        .args(arguments)
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .expect("runs");
    let stdout = String::from_utf8(output.stdout).expect("answers are UTF-8");
    let tail = &stdout[stdout.len().saturating_sub(600)..];
    assert!(
        output.status.success(),
        "{:?} after\n{tail}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.ends_with("\n\n"), "{stdout}");
    let answers: Vec<&str> = stdout[..stdout.len() - 2].split("\n\n").collect();
    let asked: Vec<&(String, Option<String>)> =
        expected.iter().filter(|(_, id)| id.is_some()).collect();
    assert_eq!(answers.len(), asked.len(), "one answer a command");
    for (answer, (line, id)) in answers.iter().zip(asked) {
        let id = id.as_deref().unwrap_or_default();
        let framed = [format!("={id}"), format!("?{id}")]
            .iter()
            .any(|head| *answer == head.as_str() || answer.starts_with(&format!("{head} ")));
        assert!(framed, "{line:?} got {answer:?}");
        if answer.starts_with('?') {
            assert!(!answer.contains('\n'), "{line:?} got {answer:?}");
        }
    }
    let last = answers.last().expect("answers");
    assert_eq!(*last, "=77");
}

#[test]
fn a_heraldis_session_answers_every_line() {
    session(&heraldis_vocabulary(), &[], 1);
}

#[test]
fn a_havannah_session_answers_every_line() {
    session(&havannah_vocabulary(), &["--layout", "base=5 swap=1"], 2);
}

#[test]
fn a_halma_session_answers_every_line() {
    session(&halma_vocabulary(), &[], 3);
}

#[test]
fn a_bulltricker_session_answers_every_line() {
    session(&bulltricker_vocabulary(), &[], 4);
}

#[test]
fn a_line_that_is_not_utf8_gets_an_answer() {
    // Bytes that are not UTF-8 once ended the session with an I/O error.
    let output = grandmaitre()
        .args(["gtp", "--model", "rollouts"])
        .write_stdin(b"1 name\n2 \xff\xfe\n3 name\n".to_vec())
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        String::from_utf8(output.stdout).expect("UTF-8"),
        "=1 Grand Maître\n\n?2 unknown command\n\n=3 Grand Maître\n\n"
    );
}

#[test]
fn a_new_board_is_searched_afresh() {
    // The search kept its tree of the empty board of base 8 and offered
    // its moves on the empty board of base 4: `genmove` then panicked.
    let output = grandmaitre()
        .args([
            "gtp", "--game", "havannah", "--model", "rollouts", "--sims", "8",
        ])
        .write_stdin(
            "1 gm-layout base=8\n2 gm-winprob\n3 gm-layout base=4\n4 genmove white\n5 quit\n",
        )
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let answers: Vec<&str> = stdout.split("\n\n").collect();
    assert_eq!(answers[..3], ["=1", answers[1], "=3"], "{stdout}");
    assert!(answers[1].starts_with("=2 "), "{stdout}");
    assert!(answers[3].starts_with("=4 "), "{stdout}");
}

// ---------------------------------------------------------------------------
// calibrate --games-in

/// Damaged records files run through `calibrate`, a process each.
const RECORDS_FILES: usize = 200;

/// The header and the first `games` games of a shipped records file.
fn shipped_records(games: usize) -> String {
    let text = std::fs::read_to_string("checkpoints/heraldis/calibration-games/fit-1101.jsonl")
        .expect("the shipped calibration games");
    text.lines().take(games + 1).collect::<Vec<_>>().join("\n") + "\n"
}

/// `text` with a few lines dropped or repeated, numbers replaced or
/// characters inserted.
fn damaged_records(text: &str, rng: &mut StdRng) -> String {
    const NUMBERS: &[&str] = &[
        "0", "1", "2", "3", "-1", "1.5", "-0.1", "1e39", "65", "null", "\"1\"", "[]",
    ];
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..rng.random_range(1..4) {
        let index = rng.random_range(0..lines.len());
        match rng.random_range(0..5) {
            0 if lines.len() > 1 => {
                lines.remove(index);
            }
            1 => lines.insert(index, lines[index].clone()),
            2 => {
                let at = rng.random_range(0..=lines[index].len());
                let at = (0..=at)
                    .rev()
                    .find(|&i| lines[index].is_char_boundary(i))
                    .unwrap_or(0);
                let c = *['[', ']', ',', '"', '\n', '{', '0']
                    .choose(rng)
                    .expect("a char");
                lines[index].insert(at, c);
            }
            _ => {
                // The k-th number of the line becomes another value.
                let line = &lines[index];
                let starts: Vec<usize> = line
                    .char_indices()
                    .filter(|&(i, c)| {
                        (c.is_ascii_digit() || c == '-')
                            && !line[..i].ends_with(|p: char| p.is_ascii_digit() || p == '.')
                    })
                    .map(|(i, _)| i)
                    .collect();
                if let Some(&start) = starts.choose(rng) {
                    let end = line[start..]
                        .find(|c: char| !(c.is_ascii_digit() || "-+.eE".contains(c)))
                        .map_or(line.len(), |n| start + n);
                    let new = NUMBERS.choose(rng).expect("a number");
                    lines[index].replace_range(start..end, new);
                }
            }
        }
    }
    lines.join("\n") + "\n"
}

fn calibrate(records: &Path, report: &Path) -> std::process::Output {
    grandmaitre()
        .args(["calibrate", "--dry-run", "--games-in"])
        .arg(records)
        .arg("--report")
        .arg(report)
        .output()
        .expect("runs")
}

#[test]
fn calibrate_reads_damaged_records_or_says_why_in_one_line() {
    let directory = tempfile::tempdir().expect("temp dir");
    let valid = shipped_records(12);
    let mut rng = StdRng::seed_from_u64(3);
    let (mut refused, mut fitted) = (0, 0);
    for index in 0..RECORDS_FILES {
        let text = if index == 0 {
            valid.clone()
        } else {
            damaged_records(&valid, &mut rng)
        };
        let records = directory.path().join(format!("games-{index}.jsonl"));
        std::fs::write(&records, &text).expect("written");
        let report = directory.path().join(format!("report-{index}"));
        let output = calibrate(&records, &report);
        let stderr = String::from_utf8_lossy(&output.stderr);
        match output.status.code() {
            Some(0) => {
                assert!(report.join("calibration.json").is_file(), "{text}");
                fitted += 1;
            }
            Some(2) => {
                assert_eq!(stderr.lines().count(), 1, "{text}\n{stderr}");
                assert!(stderr.starts_with("error: "), "{stderr}");
                refused += 1;
            }
            other => panic!("exit {other:?} on\n{text}\n{stderr}"),
        }
    }
    assert!(
        fitted > 1 && refused > 1,
        "{fitted} fitted, {refused} refused"
    );
}

#[test]
fn calibrate_refuses_records_it_cannot_keep_distinct_from_in_one_line() {
    let directory = tempfile::tempdir().expect("temp dir");
    let text = std::fs::read_to_string("checkpoints/heraldis/calibration-games/fit-1101.jsonl")
        .expect("the shipped calibration games");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // A game of two levels that play their best, from an opening.
    let index = lines
        .iter()
        .position(|line| {
            let game: serde_json::Value = serde_json::from_str(line).expect("JSON");
            game["levels"]
                .as_array()
                .is_some_and(|levels| levels.iter().all(|l| l.as_u64() >= Some(7)))
                && game["opening"].as_array().is_some_and(|o| !o.is_empty())
        })
        .expect("such a game");
    let mut game: serde_json::Value = serde_json::from_str(&lines[index]).expect("JSON");
    game["opening"][0] = serde_json::json!("z9");
    lines[index] = game.to_string();
    let bad_move = directory.path().join("bad-move.jsonl");
    std::fs::write(&bad_move, lines.join("\n") + "\n").expect("written");
    let default_rules = directory.path().join("default-rules.jsonl");
    std::fs::write(&default_rules, &text).expect("written");
    let cases: [(&[&str], &std::path::Path, &str); 3] = [
        (&[], &bad_move, "opening move 'z9'"),
        (&["--rules", "limit=100"], &default_rules, "of the rules"),
        (&["--game", "havannah"], &default_rules, "not havannah ones"),
    ];
    for (extra, records, said) in cases {
        let output = grandmaitre()
            .args(["calibrate", "--dry-run", "--games", "4", "--report"])
            .arg(directory.path().join("report"))
            .args(extra)
            .arg("--distinct-from")
            .arg(records)
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("error: --distinct-from") && stderr.contains(said),
            "{stderr}"
        );
    }
}
