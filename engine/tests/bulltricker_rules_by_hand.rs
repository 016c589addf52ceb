//! Bulltricker rule fixtures written by hand from the rules
//! (`shared/rules/bulltricker.md`) and the engine rules that settle its
//! open points (docs/bulltricker.md), checked against the naive
//! implementation in `support/bulltricker_naive.rs` and against the
//! engine's (`grandmaitre_engine::bulltricker`): each position is read by
//! both, and every move list, move and result is asserted on both.
//!
//! Every position below was composed by hand in the engine rules' notation, with a
//! few pieces only, and every expected move list was derived by reasoning
//! from the rules, not produced by a program. The comments give the pieces
//! as (row R, column C) grid cells and as cell names, and the reasoning.
//!
//! Reminder of the names: even R → `H{R/2+1}` (R=0 is H1), odd R →
//! `A{(15-R)/2}` (R=13 is A1); even C → `V{C/2+1}`, odd C → `C{(C+1)/2}`.
//! An even row of the notation lists its 7 H rects (C = 1, 3, .., 13), an
//! odd row its 15 cells (C = 0..14).

#[path = "support/bulltricker_naive.rs"]
mod bulltricker_naive;

use bulltricker_naive::{NaivePosition, NaiveResult, perft};
use grandmaitre_engine::bulltricker::{Bulltricker, Position};
use grandmaitre_engine::{Game, Notation, Outcome, Player};

/// A position held by both implementations, which must agree on it.
struct Pair {
    naive: NaivePosition,
    engine: Position,
}

impl Pair {
    fn game() -> Bulltricker {
        Bulltricker::default()
    }

    /// The notation both write (the engine's also says how often the
    /// position stood before, `seen=N`, which the naive one leaves out).
    fn notation(&self) -> String {
        let text = self.naive.notation();
        let engine = Self::game().format_state(&self.engine);
        let engine = engine.split(" seen=").next().expect("a notation");
        assert_eq!(engine, text);
        text
    }

    fn legal_moves(&self) -> Vec<String> {
        let game = Self::game();
        let mut actions = Vec::new();
        game.legal_actions(&self.engine, &mut actions);
        let mut engine: Vec<String> = actions
            .iter()
            .map(|&a| game.format_action(&self.engine, a))
            .collect();
        engine.sort();
        let naive = self.naive.legal_moves();
        assert_eq!(
            engine,
            naive,
            "the engine's moves of {}",
            self.naive.notation()
        );
        naive
    }

    fn play(&self, text: &str) -> Pair {
        let game = Self::game();
        let action = game
            .parse_action(&self.engine, text)
            .unwrap_or_else(|e| panic!("{e}"));
        let pair = Pair {
            naive: self.naive.play(text),
            engine: game.play(&self.engine, action).expect("legal"),
        };
        pair.notation();
        pair
    }

    fn result(&self) -> Option<NaiveResult> {
        let game = Self::game();
        let result = self.naive.result();
        let side = game.current_player(&self.engine);
        let engine = game
            .outcome(&self.engine)
            .map(|outcome| match (outcome, side) {
                (Outcome::Draw, _) => NaiveResult::Draw,
                (Outcome::Win, Player::First) | (Outcome::Loss, Player::Second) => {
                    NaiveResult::WhiteWins
                }
                _ => NaiveResult::BlackWins,
            });
        assert_eq!(
            engine,
            result,
            "the engine's result of {}",
            self.naive.notation()
        );
        result
    }
}

fn position(text: &str) -> Pair {
    Pair {
        naive: NaivePosition::parse(text).unwrap_or_else(|error| panic!("{text}: {error}")),
        engine: Pair::game()
            .parse_state(text)
            .unwrap_or_else(|error| panic!("{error}")),
    }
}

/// The hand list, sorted (the naive implementation returns a sorted list).
fn sorted(moves: &[&str]) -> Vec<String> {
    let mut list: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    list.sort();
    list
}

/// Asserts that the position's legal moves are exactly the hand list.
fn assert_moves(position: &Pair, expected: &[&str]) {
    let expected = sorted(expected);
    assert_eq!(
        expected.len(),
        moves_len(expected.as_slice()),
        "duplicate in the hand list"
    );
    assert_eq!(
        position.legal_moves(),
        expected,
        "legal moves of {}",
        position.notation()
    );
}

fn moves_len(list: &[String]) -> usize {
    let mut copy = list.to_vec();
    copy.dedup();
    copy.len()
}

// ----- Notation ---------------------------------------------------------

#[test]
fn start_notation_round_trips() {
    let start = NaivePosition::start();
    let text = "7/q1q1q1qkq1q1q1q/ppppppp/p1p1p1p1p1p1p1p/7/15/7/15/7/15/7/\
                P1P1P1P1P1P1P1P/PPPPPPP/Q1Q1Q1QKQ1Q1Q1Q/7 w 0";
    assert_eq!(start.notation(), text);
    assert_eq!(position(text).notation(), text);
    assert_eq!(start.result(), None);
}

#[test]
fn bad_notation_is_refused() {
    let good = "7/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w 0";
    assert!(NaivePosition::parse(good).is_ok());
    let bad = [
        // 14 rows.
        "13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w 0",
        // An even row of 8 cells.
        "8/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w 0",
        // An odd row of 14 cells.
        "7/12k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w 0",
        // A bad letter.
        "7/13k1/7/15/7/15/7/15/7/15/7/R13P/7/1K13/7 w 0",
        // No black King.
        "7/15/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w 0",
        // Two white Kings.
        "7/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K11K1/7 w 0",
        // A King on a V rect (R=13, C=0).
        "7/13k1/7/15/7/15/7/15/7/15/7/P13P/7/K14/7 w 0",
        // A King on an H rect.
        "7/13k1/7/15/7/15/7/15/7/15/7/P13P/K6/15/7 w 0",
        // A pawn on a royal square (R=11, C=1).
        "7/13k1/7/15/7/15/7/15/7/15/7/1P12P/7/1K13/7 w 0",
        // Bad side, bad plies, missing field.
        "7/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 x 0",
        "7/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w -1",
        "7/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w",
    ];
    for text in bad {
        assert!(NaivePosition::parse(text).is_err(), "{text} was accepted");
    }
}

// ----- The start --------------------------------------------------------

/// White's 50 first moves, from the rules:
/// - the King (A1C4) is boxed in by its own Queens and the pawn H7C4: none;
/// - each Queen of allée 1 (A1V1..A1V8) has its two diagonal rects on H7
///   taken by the transversal pawns, her axis blocked by the pawn above and
///   the board's edge below, her row by her sister Queens and the King: she
///   may only go to the empty H8 rects diagonally below (1 for the corner
///   Queens, 2 for the others: 14);
/// - each transversal pawn H7Cn steps to H6Cn or, first move, to H5Cn
///   (its diagonals A2V are taken by pawns): 14;
/// - each vertical pawn A2Vn steps to A3Vn (8) and diagonally to the H6
///   rects on either side (1 at the edges, 2 elsewhere: 14).
///
/// 14 + 14 + 8 + 14 = 50.
#[test]
fn start_position_moves() {
    let start = Pair {
        naive: NaivePosition::start(),
        engine: Pair::game().initial_state(),
    };
    assert_moves(
        &start,
        &[
            // Queens.
            "A1V1-H8C1",
            "A1V2-H8C1",
            "A1V2-H8C2",
            "A1V3-H8C2",
            "A1V3-H8C3",
            "A1V4-H8C3",
            "A1V4-H8C4",
            "A1V5-H8C4",
            "A1V5-H8C5",
            "A1V6-H8C5",
            "A1V6-H8C6",
            "A1V7-H8C6",
            "A1V7-H8C7",
            "A1V8-H8C7",
            // Transversal pawns: one step, two steps.
            "H7C1-H6C1",
            "H7C1-H5C1",
            "H7C2-H6C2",
            "H7C2-H5C2",
            "H7C3-H6C3",
            "H7C3-H5C3",
            "H7C4-H6C4",
            "H7C4-H5C4",
            "H7C5-H6C5",
            "H7C5-H5C5",
            "H7C6-H6C6",
            "H7C6-H5C6",
            "H7C7-H6C7",
            "H7C7-H5C7",
            // Vertical pawns: straight, diagonals.
            "A2V1-A3V1",
            "A2V1-H6C1",
            "A2V2-A3V2",
            "A2V2-H6C1",
            "A2V2-H6C2",
            "A2V3-A3V3",
            "A2V3-H6C2",
            "A2V3-H6C3",
            "A2V4-A3V4",
            "A2V4-H6C3",
            "A2V4-H6C4",
            "A2V5-A3V5",
            "A2V5-H6C4",
            "A2V5-H6C5",
            "A2V6-A3V6",
            "A2V6-H6C5",
            "A2V6-H6C6",
            "A2V7-A3V7",
            "A2V7-H6C6",
            "A2V7-H6C7",
            "A2V8-A3V8",
            "A2V8-H6C7",
        ],
    );
}

/// Depth 1 (50) was counted by hand (`start_position_moves`). Depths 2 and 3
/// are regression values produced by the naive implementation itself, not
/// checked by hand. Depth 2 is 50 × 50 = 2500: after any White first move
/// Black still has exactly its own 50 (no piece of one side can reach the
/// other's in one move, and no White move frees or blocks a Black one).
#[test]
fn start_perft() {
    let start = NaivePosition::start();
    assert_eq!(perft(&start, 0), 1);
    assert_eq!(perft(&start, 1), 50);
    assert_eq!(perft(&start, 2), 2500);
    assert_eq!(perft(&start, 3), PERFT_3);
}

/// Regression value from the naive code (see `start_perft`).
const PERFT_3: u64 = 133_547;

/// Depth 4, a regression value from the naive code as well (about 0.3 s in
/// a release build; ignored because a debug build is much slower).
#[test]
#[ignore = "slow in debug builds"]
fn start_perft_depth_4() {
    assert_eq!(perft(&NaivePosition::start(), 4), 7_133_423);
}

// ----- Line captures ------------------------------------------------------

/// White: King (13,1) A1C1, pawn (8,5) H5C3, Queen (11,0) A2V1.
/// Black: King (1,13) A7C7, Queen (1,0) A7V1, pawns (3,12) A6V7, (6,5) H4C3.
///
/// The H pawn H5C3 has the black pawn H4C3 right ahead, the royal square
/// (7,5) and (5,5) free, and H3C3 (4,5) empty beyond: a line capture, hence
/// compulsory; the chain stops there ((2,5) is empty). The Queen A2V1 finds
/// nothing along her row. So the capture is the only legal move: no King,
/// Queen or other pawn move.
#[test]
fn a_line_capture_is_compulsory() {
    let before = position("7/q12k1/7/12p2/7/15/2p4/15/2P4/15/7/Q14/7/1K13/7 w 0");
    assert_moves(&before, &["H5C3xH3C3"]);
    let after = before.play("H5C3xH3C3");
    assert_eq!(
        after.notation(),
        "7/q12k1/7/12p2/2P4/15/7/15/7/15/7/Q14/7/1K13/7 b 1"
    );
    assert_eq!(after.result(), None);
}

/// As above, plus a black pawn (11,4) A2V3 and a White pawn (11,8) A2V5.
/// The Queen A2V1 now scans her row: (11,2) empty, (11,4) black with the
/// royal square (11,5) free and (11,6) empty beyond: she must take it; she
/// may land on (11,6) A2V4 only, since (11,8) holds her own pawn. The pawn
/// line capture H5C3xH3C3 still exists but a Queen's line capture has
/// priority over it.
#[test]
fn a_queen_line_capture_has_priority_over_a_pawn_one() {
    let before = position("7/q12k1/7/15/7/15/2p4/15/2P4/15/7/Q3p3P6/7/1K13/7 w 0");
    assert_moves(&before, &["A2V1xA2V4"]);
    let after = before.play("A2V1-A2V4");
    assert_eq!(
        after.notation(),
        "7/q12k1/7/15/7/15/2p4/15/2P4/15/7/6Q1P6/7/1K13/7 b 1"
    );
}

/// White: King (13,1), Queen (7,0) A4V1, pawn (7,14) A4V8.
/// Black: King (1,13), Queen (1,0), pawn (3,12), pawn (7,2) A4V2, Queen
/// (7,6) A4V4.
///
/// The Queen A4V1 scans right along allée 4: (7,2) black, (7,4) empty: she
/// takes it; beyond, (7,4) empty then (7,6) black with (7,8) empty: she must
/// take it too; beyond, (7,8), (7,10), (7,12) are empty and (7,14) holds
/// her own pawn. Three landing cells, A4V5, A4V6, A4V7, each taking both.
/// Leftwards is the edge. Nothing else is legal.
#[test]
fn a_queen_takes_along_a_line_with_several_landings() {
    let before = position("7/q12k1/7/12p2/7/15/7/Q1p3q7P/7/15/7/15/7/1K13/7 w 0");
    assert_moves(&before, &["A4V1xA4V5", "A4V1xA4V6", "A4V1xA4V7"]);
    let after = before.play("A4V1xA4V6");
    assert_eq!(
        after.notation(),
        "7/q12k1/7/12p2/7/15/7/10Q3P/7/15/7/15/7/1K13/7 b 1"
    );
    assert_eq!(after.result(), None);
}

/// An H Queen takes along a column, and a King stops her landings.
/// White: King (13,1), Queen (14,5) H8C3, pawn (11,14) A2V8.
/// Black: King (1,5) A7C3, Queen (1,0), pawn (3,12), pawn (10,5) H6C3,
/// Queen (4,5) H3C3.
///
/// Upwards along column 5: (12,5) empty, (10,5) black, (8,5) empty: taken;
/// then (8,5), (6,5) empty, (4,5) black, (2,5) empty: taken too; then (2,5)
/// H2C3 is empty and the royal square (1,5) holds the black King: she may
/// not go past it (nor to H1C3). One move.
#[test]
fn an_h_queen_takes_along_a_column_up_to_a_king() {
    let before = position("7/q4k9/7/12p2/2q4/15/7/15/7/15/2p4/14P/7/1K13/2Q4 w 0");
    assert_moves(&before, &["H8C3xH2C3"]);
    let after = before.play("H8C3xH2C3");
    assert_eq!(
        after.notation(),
        "7/q4k9/2Q4/12p2/7/15/7/15/7/15/7/14P/7/1K13/7 b 1"
    );
    assert_eq!(after.result(), None);
}

/// The « fourchette »: White Queen (9,6) A3V4 between black pawns (9,4)
/// A3V3 and (9,10) A3V6. Leftwards: (9,4) black, (9,2) empty: taken,
/// landings (9,2) A3V2 and (9,0) A3V1. Rightwards: (9,8) empty, (9,10)
/// black, (9,12) empty: taken, landings A3V7 and A3V8. Both directions are
/// offered (one per move).
/// Also: White King (13,1), pawn (11,14); Black King (1,13), Queen (1,0).
#[test]
fn the_fourchette_offers_both_directions() {
    let before = position("7/q12k1/7/15/7/15/7/15/7/4p1Q3p4/7/14P/7/1K13/7 w 0");
    assert_moves(
        &before,
        &["A3V4xA3V1", "A3V4xA3V2", "A3V4xA3V7", "A3V4xA3V8"],
    );
    let after = before.play("A3V4xA3V8");
    assert_eq!(
        after.notation(),
        "7/q12k1/7/15/7/15/7/15/7/4p9Q/7/14P/7/1K13/7 b 1"
    );
}

/// White: King (13,1), Queen (13,14) A1V8, transversal pawn (12,5) H7C3.
/// Black: King (1,13), Queen (1,0), pawns (3,12), (10,5) H6C3, (6,5) H4C3.
///
/// The pawn H7C3 takes H6C3 landing on (8,5) H5C3, then H4C3 landing on
/// (4,5) H3C3; (2,5) is empty, so the chain ends. Only the final cell is a
/// legal move (not H5C3). The Queen A1V1's row meets the White King at
/// (13,1) before any piece: no Queen capture.
#[test]
fn a_pawn_chain_of_line_captures_ends_on_its_last_cell() {
    let before = position("7/q12k1/7/12p2/7/15/2p4/15/7/15/2p4/15/2P4/1K12Q/7 w 0");
    assert_moves(&before, &["H7C3xH3C3"]);
    let after = before.play("H7C3xH3C3");
    assert_eq!(
        after.notation(),
        "7/q12k1/7/12p2/2P4/15/7/15/7/15/7/15/7/1K12Q/7 b 1"
    );
}

/// A line capture may not cross a royal square holding a King.
/// White: King (13,13) A1C7, Queen (9,0) A3V1.
/// Black: King (9,3) A3C2, pawn (9,2) A3V2, Queen (1,14), pawn (3,14).
///
/// The Queen's row: (9,2) black, but the royal square (9,3) beyond holds
/// the black King: no capture. Her other moves: diagonals (8,1) H5C1 and
/// (10,1) H6C1; up her column (7,0), (5,0), (3,0), (1,0); down (11,0),
/// (13,0); across: blocked at once by (9,2); no column capture. The King:
/// (11,13) over (12,13), (13,11) over (13,12).
#[test]
fn a_king_blocks_a_queen_line_capture() {
    let before = position("7/14q/7/14p/7/15/7/15/7/Q1pk11/7/15/7/13K1/7 w 0");
    assert_moves(
        &before,
        &[
            "A3V1-H5C1",
            "A3V1-H6C1",
            "A3V1-A4V1",
            "A3V1-A5V1",
            "A3V1-A6V1",
            "A3V1-A7V1",
            "A3V1-A2V1",
            "A3V1-A1V1",
            "A1C7-A2C7",
            "A1C7-A1C6",
        ],
    );
}

/// White: King (13,1), transversal pawn (12,7) H7C4.
/// Black: King (9,7) A3C4, pawn (10,7) H6C4, Queens (1,0), (1,14).
///
/// The pawn would take H6C4 landing on (8,7), but the second royal square
/// crossed, (9,7), holds the black King: no capture. Its straight step hits
/// H6C4 (H pawns have no column capture), so no step nor two-step; its
/// diagonals (11,6) A2V4 and (11,8) A2V5 are free. The King: (11,1) and
/// (13,3).
#[test]
fn a_king_blocks_a_pawn_line_capture() {
    let before = position("7/q13q/7/15/7/15/7/15/7/7k7/3p3/15/3P3/1K13/7 w 0");
    assert_moves(
        &before,
        &["H7C4-A2V4", "H7C4-A2V5", "A1C1-A2C1", "A1C1-A1C2"],
    );
}

// ----- Column captures ------------------------------------------------------

/// White: King (13,13) A1C7, Queen (13,0) A1V1, pawn (3,14) A6V8.
/// Black: King (1,1) A7C1, pawn (11,0) A2V1, Queens (1,6) A7V4, (1,14) A7V8.
///
/// No line capture for White (the Queen's row runs into her own King at
/// (13,13); V pawns make none). So every move is legal, column captures
/// among them:
/// - Queen A1V1: diagonals (12,1) H7C1, (14,1) H8C1; up her column (11,0)
///   holds a black pawn: column capture A1V1xA2V1; along row 13 over empty
///   royal squares (13,2)..(13,12); the royal square (13,13) holds her King;
/// - pawn A6V8: straight onto the black Queen (1,14): column capture
///   A6V8xA7V8; diagonal (2,13) H2C7 ((2,15) is off the board);
/// - King A1C7: (11,13) and (13,11).
#[test]
fn column_captures_are_optional() {
    let before = position("7/1k4q7q/7/14P/7/15/7/15/7/15/7/p14/7/Q12K1/7 w 0");
    assert_moves(
        &before,
        &[
            "A1V1-H7C1",
            "A1V1-H8C1",
            "A1V1xA2V1",
            "A1V1-A1V2",
            "A1V1-A1V3",
            "A1V1-A1V4",
            "A1V1-A1V5",
            "A1V1-A1V6",
            "A1V1-A1V7",
            "A6V8xA7V8",
            "A6V8-H2C7",
            "A1C7-A2C7",
            "A1C7-A1C6",
        ],
    );
    let after = before.play("A1V1xA2V1");
    assert_eq!(
        after.notation(),
        "7/1k4q7q/7/14P/7/15/7/15/7/15/7/Q14/7/13K1/7 b 1"
    );
    let after = before.play("A6V8-A7V8");
    assert_eq!(
        after.notation(),
        "7/1k4q7P/7/15/7/15/7/15/7/15/7/p14/7/Q12K1/7 b 1"
    );
}

// ----- Pawns --------------------------------------------------------------

/// White: King (13,1), V pawn (1,8) A7V5, H pawn (2,3) H2C2.
/// Black: King (5,13) A5C7, Queen (3,0), pawns (5,0), (7,0).
///
/// The V pawn A7V5 has no straight step (off the board) and goes
/// diagonally onto H1 (R=0), White's promotion line: H1C4 or H1C5. The H
/// pawn H2C2 steps straight to H1C2 over the free royal square (1,3), or
/// diagonally to A7V2 / A7V3 (no two-step: it is not on White's transversal
/// line). The King: (11,1), (13,3). A pawn ending on H1 becomes a Queen.
#[test]
fn a_pawn_reaching_the_back_line_becomes_a_queen() {
    let before = position("7/8P6/1P5/q14/7/p12k1/7/p14/7/15/7/15/7/1K13/7 w 0");
    assert_moves(
        &before,
        &[
            "A1C1-A1C2",
            "A1C1-A2C1",
            "A7V5-H1C4",
            "A7V5-H1C5",
            "H2C2-H1C2",
            "H2C2-A7V2",
            "H2C2-A7V3",
        ],
    );
    assert_eq!(
        before.play("A7V5-H1C4").notation(),
        "3Q3/15/1P5/q14/7/p12k1/7/p14/7/15/7/15/7/1K13/7 b 1"
    );
    assert_eq!(
        before.play("H2C2-H1C2").notation(),
        "1Q5/8P6/7/q14/7/p12k1/7/p14/7/15/7/15/7/1K13/7 b 1"
    );
    // A pawn on A7V2 does not promote (R=1 is not the back line).
    assert_eq!(
        before.play("H2C2-A7V2").notation(),
        "7/2P5P6/7/q14/7/p12k1/7/p14/7/15/7/15/7/1K13/7 b 1"
    );
}

/// White: King (9,9) A3C5, transversal pawns (12,3) H7C2, (12,9) H7C5.
/// Black: King (1,1), Queen (1,14), pawn (3,14).
///
/// H7C2: one step to H6C2, two steps to H5C2 (royal squares (11,3), (9,3)
/// free, (10,3), (8,3) empty), diagonals A2V2, A2V3. H7C5: one step to
/// H6C5, but no two-step: the second royal square crossed, (9,9), holds
/// the White King; diagonals A2V5, A2V6. The King: four free directions.
#[test]
fn transversal_pawns_step_twice_unless_a_king_is_crossed() {
    let before = position("7/1k12q/7/14p/7/15/7/15/7/9K5/7/15/1P2P2/15/7 w 0");
    assert_moves(
        &before,
        &[
            "H7C2-H6C2",
            "H7C2-H5C2",
            "H7C2-A2V2",
            "H7C2-A2V3",
            "H7C5-H6C5",
            "H7C5-A2V5",
            "H7C5-A2V6",
            "A3C5-A4C5",
            "A3C5-A2C5",
            "A3C5-A3C4",
            "A3C5-A3C6",
        ],
    );
}

/// Black to move. Black: King (1,13) A7C7, transversal pawns (2,5) H2C3 and
/// (2,11) H2C6. White: King (3,5) A6C3, pawns (11,0), (11,14).
///
/// H2C3's straight step crosses the royal square (3,5), which holds the
/// White King: no step, no two-step; diagonals (3,4) A6V3, (3,6) A6V4.
/// H2C6: one step H3C6, two steps H4C6, diagonals A6V6, A6V7. The black
/// King: (3,13) and (1,11), both at least 4 grid columns from (3,5).
#[test]
fn a_king_blocks_a_black_pawn_step() {
    let before = position("7/13k1/2p2p1/5K9/7/15/7/15/7/15/7/P13P/7/15/7 b 0");
    assert_moves(
        &before,
        &[
            "H2C3-A6V3",
            "H2C3-A6V4",
            "H2C6-H3C6",
            "H2C6-H4C6",
            "H2C6-A6V6",
            "H2C6-A6V7",
            "A7C7-A6C7",
            "A7C7-A7C6",
        ],
    );
}

// ----- Kings --------------------------------------------------------------

/// White: King (7,7) A4C4, H pawn (8,7) H5C4.
/// Black: King (3,9) A6C5, Queens (1,0), (1,14), pawn (3,0).
///
/// The White King: up to (5,7) would stand diagonally next to the black
/// King's royal square (|ΔR| = 2, |ΔC| = 2): forbidden; down to (9,7) is
/// barred by its pawn on (8,7); left (7,5) and right (7,9) are legal (4 rows
/// from the black King). The pawn H5C4: its straight step crosses (7,7),
/// the White King: none; diagonals (7,6) A4V4, (7,8) A4V5.
#[test]
fn kings_keep_a_royal_square_between_them() {
    let before = position("7/q13q/7/p8k5/7/15/7/7K7/3P3/15/7/15/7/15/7 w 0");
    assert_moves(
        &before,
        &["A4C4-A4C3", "A4C4-A4C5", "H5C4-A4V4", "H5C4-A4V5"],
    );
}

// ----- End of the game ----------------------------------------------------

/// White: King (13,7) A1C4, Queen (5,8) A5V5, pawn (7,6) A4V4.
/// Black: King (5,7) A5C4, Queen (4,7) H3C4, pawns (5,6) A5V4, (1,0) A7V1
/// (the last one only keeps 4 rects on the board after a capture).
///
/// The black King's rects: (4,7) black Queen, (5,6) black pawn, (5,8)
/// White Queen, (6,7) empty. Filling (6,7) mates it.
/// White's moves (no line capture: the Queen's row meets the black King
/// leftwards and nothing rightwards):
/// - Queen A5V5: diagonals (4,9), (6,7), (6,9) ((4,7) is taken); up (3,8),
///   (1,8); down (7,8), (9,8), (11,8), (13,8); right (5,10), (5,12),
///   (5,14); left barred by the King on (5,7); no column capture;
/// - pawn A4V4: column capture of (5,6), diagonals (6,5) and (6,7);
/// - King A1C4: (11,7), (13,5), (13,9).
#[test]
fn walling_in_the_enemy_king_mates_it() {
    let before = position("7/p14/7/15/3q3/6pkQ6/7/6P8/7/15/7/15/7/7K7/7 w 0");
    assert_moves(
        &before,
        &[
            "A5V5-H3C5",
            "A5V5-H4C4",
            "A5V5-H4C5",
            "A5V5-A6V5",
            "A5V5-A7V5",
            "A5V5-A4V5",
            "A5V5-A3V5",
            "A5V5-A2V5",
            "A5V5-A1V5",
            "A5V5-A5V6",
            "A5V5-A5V7",
            "A5V5-A5V8",
            "A4V4xA5V4",
            "A4V4-H4C3",
            "A4V4-H4C4",
            "A1C4-A2C4",
            "A1C4-A1C3",
            "A1C4-A1C5",
        ],
    );
    assert_eq!(before.result(), None);
    let after = before.play("A4V4-H4C4");
    assert_eq!(after.result(), Some(NaiveResult::WhiteWins));
    assert!(after.legal_moves().is_empty());
    // The Queen filling (6,7) empties (5,8): no mate.
    assert_eq!(before.play("A5V5-H4C4").result(), None);
    // Taking the pawn leaves (6,7) empty: no mate.
    assert_eq!(before.play("A4V4xA5V4").result(), None);
}

/// The Trick. White: King (7,7) A4C4, Queen (7,2) A4V2.
/// Black: King (1,13), pawns (7,4) A4V3, (6,7) H4C4, (7,8) A4V5, Queen
/// (8,7) H5C4.
///
/// The White King's rects: (6,7), (8,7), (7,8) black, (7,6) empty. The
/// Queen must take (7,4) (line capture: (7,6) empty beyond, royal square
/// (7,5) free), and her only landing is (7,6), since the royal square (7,7)
/// holds her King. That capture is the only legal move, and it walls in
/// White's own King with enemy pieces: White loses.
#[test]
fn the_trick_a_compulsory_capture_walls_in_the_own_king() {
    let before = position("7/13k1/7/15/7/15/3p3/2Q1p2Kp6/3q3/15/7/15/7/15/7 w 0");
    assert_moves(&before, &["A4V2xA4V4"]);
    let after = before.play("A4V2xA4V4");
    assert_eq!(
        after.notation(),
        "7/13k1/7/15/7/15/3p3/6QKp6/3q3/15/7/15/7/15/7 b 1"
    );
    assert_eq!(after.result(), Some(NaiveResult::BlackWins));
    assert!(after.legal_moves().is_empty());
}

/// The Trick by an ordinary move. White: King (9,7) A3C4, pawns (9,6)
/// A3V4, (10,7) H6C4, (11,8) A2V5. Black: King (1,13), pawn (8,7) H5C4.
///
/// The White King's rects: (8,7) black, (10,7) and (9,6) White, (9,8)
/// empty. White's moves: H6C4 has H5C4 ahead (no column capture for H
/// pawns; its line capture would cross the King's square (9,7)), so only
/// its diagonal (9,8) ((9,6) is taken); A3V4: straight (7,6), diagonal
/// (8,5) ((8,7) is taken: pawns never take diagonally); A2V5: straight
/// (9,8), diagonal (10,9) ((10,7) taken); the King: only (9,9) over (9,8).
/// A2V5-A3V5 fills (9,8) and walls in White's King with a black piece:
/// White loses. H6C4-A3V5 fills (9,8) too but empties (10,7): no mate.
#[test]
fn the_trick_an_ordinary_move_walls_in_the_own_king() {
    let before = position("7/13k1/7/15/7/15/7/15/3p3/6PK7/3P3/8P6/7/15/7 w 0");
    assert_moves(
        &before,
        &[
            "H6C4-A3V5",
            "A3V4-A4V4",
            "A3V4-H5C3",
            "A2V5-A3V5",
            "A2V5-H6C5",
            "A3C4-A3C5",
        ],
    );
    assert_eq!(
        before.play("A2V5-A3V5").result(),
        Some(NaiveResult::BlackWins)
    );
    assert_eq!(before.play("H6C4-A3V5").result(), None);
    assert_eq!(before.play("A2V5-H6C5").result(), None);
}

/// Four own pieces around a King are no mate. White: King (9,7) A3C4,
/// pawns (8,7) H5C4, (9,6) A3V4, (10,7) H6C4, (11,8) A2V5. Black: King
/// (1,13).
///
/// White's moves: H5C4 straight (6,7) over the free (7,7), diagonals (7,6),
/// (7,8); H6C4 only its diagonal (9,8); A3V4 straight (7,6), diagonal (8,5);
/// A2V5 straight (9,8), diagonal (10,9); the King (9,9). After a pawn fills
/// (9,8), the White King is surrounded by four White pieces: nothing
/// happens, and Black (whose King can move) plays on.
#[test]
fn four_own_pieces_around_a_king_are_no_mate() {
    let before = position("7/13k1/7/15/7/15/7/15/3P3/6PK7/3P3/8P6/7/15/7 w 0");
    assert_moves(
        &before,
        &[
            "H5C4-H4C4",
            "H5C4-A4V4",
            "H5C4-A4V5",
            "H6C4-A3V5",
            "A3V4-A4V4",
            "A3V4-H5C3",
            "A2V5-A3V5",
            "A2V5-H6C5",
            "A3C4-A3C5",
        ],
    );
    let after = before.play("A2V5-A3V5");
    assert_eq!(after.result(), None);
    assert_moves(&after, &["A7C7-A6C7", "A7C7-A7C6"]);
}

/// Stalemate. White: King (13,13) A1C7, pawns (2,1) H2C1, (3,2) A6V2,
/// (11,14) A2V8, (12,13) H7C7. Black: King (1,1) A7C1 alone.
///
/// The black King can leave (1,1) only over (1,2) (to (1,3)) or (2,1) (to
/// (3,1)); (2,1) already holds a White pawn. White's moves: the King only
/// to (13,11) ((12,13) is its own pawn); H7C7: H6C7, H5C7, A2V7 ((11,14)
/// is taken); A2V8: A3V8, H6C7; H2C1: its step crosses the black King's
/// square, so only diagonals A7V1, A7V2; A6V2: straight (1,2) A7V2,
/// diagonal (2,3) H2C2 ((2,1) is taken).
/// A6V2-A7V2 leaves the black King two free rects (no mate) but no move:
/// a draw.
#[test]
fn no_legal_move_is_a_draw() {
    let before = position("7/1k13/P6/2P12/7/15/7/15/7/15/7/14P/6P/13K1/7 w 0");
    assert_moves(
        &before,
        &[
            "A1C7-A1C6",
            "H7C7-H6C7",
            "H7C7-H5C7",
            "H7C7-A2V7",
            "A2V8-A3V8",
            "A2V8-H6C7",
            "H2C1-A7V1",
            "H2C1-A7V2",
            "A6V2-A7V2",
            "A6V2-H2C2",
        ],
    );
    let after = before.play("A6V2-A7V2");
    assert_eq!(after.result(), Some(NaiveResult::Draw));
    assert!(after.legal_moves().is_empty());
    // H2C1-A7V2 frees (2,1): Black can play A7C1-A6C1.
    let after = before.play("H2C1-A7V2");
    assert_eq!(after.result(), None);
    assert_moves(&after, &["A7C1-A6C1"]);
}

/// Insufficient material. White: King (13,1), pawn (8,5) H5C3. Black: King
/// (1,13), Queen (1,0), pawns (3,12), (6,5) H4C3: four rects occupied.
///
/// The only legal move is the compulsory capture H5C3xH3C3, which leaves 3
/// rects occupied: a draw (Black would still have moves).
#[test]
fn fewer_than_four_rects_is_a_draw() {
    let before = position("7/q12k1/7/12p2/7/15/2p4/15/2P4/15/7/15/7/1K13/7 w 0");
    assert_eq!(before.result(), None);
    assert_moves(&before, &["H5C3xH3C3"]);
    let after = before.play("H5C3xH3C3");
    assert_eq!(after.result(), Some(NaiveResult::Draw));
    assert!(after.legal_moves().is_empty());
    // Three rects in a parsed position: drawn at once.
    let three = position("7/q12k1/7/12p2/7/15/7/15/2P4/15/7/15/7/1K13/7 w 0");
    assert_eq!(three.result(), Some(NaiveResult::Draw));
    assert!(three.legal_moves().is_empty());
}

/// Threefold repetition. White: King (13,1) A1C1, Queen (13,0) A1V1, pawn
/// (11,0) A2V1. Black: King (1,13) A7C7, Queen (1,14) A7V8, pawn (3,14)
/// A6V8.
///
/// White's moves: the Queen's diagonals (12,1) H7C1, (14,1) H8C1 (her
/// column is blocked by her pawn, her row by her King); the pawn A2V1:
/// A3V1, H6C1; the King: (11,1), (13,3).
/// The Queens shuffle A1V1-H8C1, A7V8-H1C7, H8C1-A1V1, H1C7-A7V8: after 4
/// plies the start is back (second time), after 8 plies the third time: a
/// draw.
#[test]
fn threefold_repetition_is_a_draw() {
    let start = position("7/13kq/7/14p/7/15/7/15/7/15/7/P14/7/QK13/7 w 0");
    assert_moves(
        &start,
        &[
            "A1V1-H7C1",
            "A1V1-H8C1",
            "A2V1-A3V1",
            "A2V1-H6C1",
            "A1C1-A2C1",
            "A1C1-A1C2",
        ],
    );
    let cycle = ["A1V1-H8C1", "A7V8-H1C7", "H8C1-A1V1", "H1C7-A7V8"];
    let mut game = start;
    for ply in 1..=8 {
        game = game.play(cycle[(ply - 1) % 4]);
        if ply < 8 {
            assert_eq!(game.result(), None, "after ply {ply}");
        }
    }
    assert_eq!(
        game.notation(),
        "7/13kq/7/14p/7/15/7/15/7/15/7/P14/7/QK13/7 w 8"
    );
    assert_eq!(game.result(), Some(NaiveResult::Draw));
    assert!(game.legal_moves().is_empty());
    // The count starts at the parsed position: the same position parsed
    // afresh is not a repetition.
    assert_eq!(position(&game.notation()).result(), None);
}

/// The ply cap: 400 plies played is a draw.
#[test]
fn the_ply_cap_is_a_draw() {
    let start = position("7/13kq/7/14p/7/15/7/15/7/15/7/P14/7/QK13/7 w 399");
    assert_eq!(start.result(), None);
    let after = start.play("A1V1-H8C1");
    assert_eq!(after.result(), Some(NaiveResult::Draw));
    assert!(after.legal_moves().is_empty());
}

/// Not a rule fixture: a self-check of the naive module on pseudo-random
/// games (a fixed linear congruential sequence): the notation round-trips
/// after every move, every listed move can be played, and a game ends with
/// a result exactly when no move is left.
#[test]
fn random_games_stay_consistent() {
    let mut seed: u64 = 0x5eed;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) as usize) % n
    };
    for _ in 0..40 {
        let mut game = NaivePosition::start();
        loop {
            let text = game.notation();
            assert_eq!(position(&text).notation(), text);
            let moves = game.legal_moves();
            match game.result() {
                Some(_) => {
                    assert!(moves.is_empty(), "{text}");
                    break;
                }
                None => {
                    assert!(!moves.is_empty(), "{text}");
                    game = game.play(&moves[next(moves.len())]);
                }
            }
        }
    }
}
