//! Solution books (`engine/src/book.rs`) on the shipped proof that Light
//! wins Heraldis on the default layout: a book is kept only where it is a
//! proof under the rules it is read with, and then proves positions (and
//! their mirror images) and gives their winning moves.

use grandmaitre_engine::agent::{Agent, RandomAgent};
use grandmaitre_engine::book::{Book, BookAgent};
use grandmaitre_engine::game::rule_symmetries;
use grandmaitre_engine::heraldis::{Heraldis, Layout, Position};
use grandmaitre_engine::{Action, Game, Notation, Outcome, Player, Symmetric};
use std::sync::Arc;

const PROOF: &str = include_str!("../../checkpoints/heraldis/solution/default.proof");

fn rules(text: &str) -> Heraldis {
    Heraldis::with_rules(text).expect("rules")
}

fn default_rules(plies: u32) -> Heraldis {
    rules(&format!("{} | {plies}", Layout::default()))
}

fn read(game: &Heraldis) -> Book<Heraldis> {
    Book::read(game, PROOF).expect("the shipped proof reads as a book")
}

/// The book's lines, each winner's position with its move.
fn proof_lines(game: &Heraldis, book: &Book<Heraldis>) -> Vec<(Position, Action)> {
    PROOF
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let (position, _) = line.split_once('\t').expect("a line");
            let state = game.parse_state(position).expect("position");
            let action = book.best_move(game, &state).expect("its move");
            (state, action)
        })
        .collect()
}

/// Light's a1 (not the book's move), then a Light position after Dark's
/// first reply, which no line of the proof meets, and a legal move there.
fn off_the_proof(game: &Heraldis) -> (Position, Position, Action) {
    let start = game.initial_state();
    let off = game
        .play(&start, game.parse_action(&start, "a1").expect("a1"))
        .expect("legal");
    let mut actions = Vec::new();
    game.legal_actions(&off, &mut actions);
    let position = game.play(&off, actions[0]).expect("legal");
    game.legal_actions(&position, &mut actions);
    (off, position, actions[0])
}

#[test]
fn the_shipped_proof_is_a_book_under_every_ply_limit_its_lines_fit() {
    // Solved under 14 plies; its lines all end in Light's win by the 13th,
    // so it is a proof under the real 150 and any limit from 13.
    for plies in [13, 14, 20, 150] {
        let game = default_rules(plies);
        let book = read(&game);
        assert_eq!(book.winner(), Player::First);
        assert_eq!(book.root(), &game.initial_state());
        assert_eq!(book.len(), 16_809);
    }
    // Under 12 plies the start is a draw: the game is over before some of
    // the book's moves.
    let error = Book::read(&default_rules(12), PROOF).expect_err("not a proof at 12 plies");
    assert!(error.contains("illegal move"), "{error}");
    // Another layout: other rules, other game.
    assert!(Book::read(&rules("random:1 | 150"), PROOF).is_err());
}

#[test]
fn a_book_with_a_hole_or_an_illegal_move_is_refused_and_says_where() {
    let game = Heraldis::default();
    let lines: Vec<&str> = PROOF.lines().collect();
    // Without the line of a position at ply 2 (the fifth line is the
    // first after the header and the start).
    let missing = lines[5].split('\t').next().expect("a position");
    let holed: String = lines
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != 5)
        .map(|(_, line)| format!("{line}\n"))
        .collect();
    let error = Book::read(&game, &holed).expect_err("a hole");
    assert_eq!(error, format!("{missing}: the book has no move there"));
    // e1 is a House: no stone there on the first move.
    let illegal = PROOF.replacen("5/5/5/5/5 l - 0\tb1", "5/5/5/5/5 l - 0\te1", 1);
    let error = Book::read(&game, &illegal).expect_err("an illegal move");
    assert!(error.starts_with("line 5: "), "{error}");
    // Without its claim.
    let unclaimed = PROOF.replacen("# winner: light", "# (no claim)", 1);
    assert_eq!(
        Book::read(&game, &unclaimed)
            .expect_err("no winner")
            .as_str(),
        "no '# winner: PLAYER' line"
    );
}

#[test]
fn a_book_whose_line_ends_in_a_draw_is_refused() {
    // A position of the proof at ply 12 (Light to move) with a move that
    // does not make four: under a 13-ply limit that line is a draw.
    let game = default_rules(13);
    let (position, state) = PROOF
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split_once('\t').expect("a line").0)
        .map(|p| (p, game.parse_state(p).expect("position")))
        .find(|(_, s)| game.ply(s) == 12)
        .expect("a position at ply 12");
    let mut actions = Vec::new();
    game.legal_actions(&state, &mut actions);
    let drawing = actions
        .into_iter()
        .find(|&a| {
            game.outcome_for(&game.play(&state, a).expect("legal"), Player::First)
                == Some(Outcome::Draw)
        })
        .expect("a move that does not win");
    let text = format!(
        "# root: {position}\n# winner: light\n{position}\t{}\n",
        game.format_action(&state, drawing)
    );
    let error = Book::read(&game, &text).expect_err("a drawn line");
    assert!(
        error.ends_with(": the game ends without light's win"),
        "{error}"
    );
    // The proof's own move there wins.
    let own = read(&game).best_move(&game, &state).expect("its move");
    let text = format!(
        "# root: {position}\n# winner: light\n{position}\t{}\n",
        game.format_action(&state, own)
    );
    assert_eq!(Book::read(&game, &text).expect("a one-move proof").len(), 1);
}

#[test]
fn the_book_proves_the_start_and_every_reply_to_its_move() {
    let game = Heraldis::default();
    let book = read(&game);
    let start = game.initial_state();
    assert_eq!(book.outcome(&game, &start), Some(Outcome::Win));
    let action = book.best_move(&game, &start).expect("a move at the start");
    assert!(game.is_legal(&start, action));
    let after = game.play(&start, action).expect("legal");
    // Dark to move, every reply answered: Dark has lost.
    assert_eq!(book.outcome(&game, &after), Some(Outcome::Loss));
    assert_eq!(book.best_move(&game, &after), None, "no move for the loser");
    let mut replies = Vec::new();
    game.legal_actions(&after, &mut replies);
    for reply in replies {
        let position = game.play(&after, reply).expect("legal");
        assert_eq!(book.outcome(&game, &position), Some(Outcome::Win));
    }
}

#[test]
fn mirror_images_of_proven_positions_are_proven_with_the_mirrored_move() {
    let game = Heraldis::default();
    let book = read(&game);
    let symmetries = rule_symmetries(&game);
    // The default layout is the same turned half a turn.
    assert_eq!(symmetries.len(), 2);
    let mirror = symmetries[1];
    let start = game.initial_state();
    let first = book.best_move(&game, &start).expect("a move");
    let after = game.play(&start, first).expect("legal");
    let mut replies = Vec::new();
    game.legal_actions(&after, &mut replies);
    let mut images = 0;
    for reply in replies {
        let position = game.play(&after, reply).expect("legal");
        let image = game.transform_state(&position, mirror);
        assert_ne!(image, position, "the first stone moves");
        let action = book
            .best_move(&game, &image)
            .expect("proven through the mirror");
        assert_eq!(
            action,
            game.transform_action(
                book.best_move(&game, &position).expect("in the book"),
                mirror
            )
        );
        let next = game
            .play(&image, action)
            .expect("the mirrored move is legal");
        assert_eq!(book.outcome(&game, &next), Some(Outcome::Loss));
        images += 1;
    }
    assert!(images > 10, "{images}");
}

#[test]
fn positions_off_the_book_are_not_proven() {
    let game = Heraldis::default();
    let book = read(&game);
    // Light's a1 is not the book's move; nor its mirror e5.
    let start = game.initial_state();
    let off = game
        .play(&start, game.parse_action(&start, "a1").expect("a1"))
        .expect("legal");
    assert_eq!(book.outcome(&game, &off), None);
    let mut replies = Vec::new();
    game.legal_actions(&off, &mut replies);
    for reply in replies {
        let position = game.play(&off, reply).expect("legal");
        assert_eq!(book.best_move(&game, &position), None);
        assert_eq!(book.outcome(&game, &position), None);
    }
}

#[test]
fn a_line_the_proof_never_reaches_is_not_kept() {
    let game = Heraldis::default();
    // A position the replay from the root never meets, given a legal move
    // as if it won.
    let (off, position, action) = off_the_proof(&game);
    let stray = format!(
        "{}\t{}\n",
        game.format_state(&position),
        game.format_action(&position, action)
    );
    let book = Book::read(&game, &format!("{PROOF}{stray}")).expect("still a proof");
    assert_eq!(book.len(), 16_809);
    assert_eq!(book.best_move(&game, &position), None);
    assert_eq!(book.outcome(&game, &position), None);
    assert_eq!(book.outcome(&game, &off), None);
}

#[test]
fn light_playing_the_book_beats_every_random_defence() {
    let game = Heraldis::default();
    let book = Arc::new(read(&game));
    for seed in 0..200 {
        let mut light = BookAgent::new(Arc::clone(&book), Box::new(RandomAgent::new(seed)));
        let mut dark = RandomAgent::new(seed + 1000);
        let mut state = game.initial_state();
        while game.outcome(&state).is_none() {
            let action = if game.current_player(&state) == Player::First {
                let action = light.select(&game, &state);
                assert_eq!(Some(action), book.best_move(&game, &state), "off the book");
                action
            } else {
                dark.select(&game, &state)
            };
            light.observe(&game, &state, action);
            state = game.play(&state, action).expect("legal");
        }
        assert_eq!(game.outcome_for(&state, Player::First), Some(Outcome::Win));
        assert!(game.ply(&state) <= 13, "{} plies", game.ply(&state));
    }
}

#[test]
fn a_book_written_back_reads_the_same() {
    let game = Heraldis::default();
    let book = read(&game);
    let lines = proof_lines(&game, &book);
    let text = Book::text(&game, "again", book.root(), book.winner(), &lines);
    let again = Book::read(&game, &text).expect("reads");
    assert_eq!(again.len(), book.len());
    assert_eq!(text.lines().filter(|l| !l.starts_with('#')).count(), 16_809);
}

#[test]
fn a_proof_is_written_only_if_it_reads_back_whole() {
    let game = Heraldis::default();
    let book = read(&game);
    let lines = proof_lines(&game, &book);
    let (again, _) = Book::checked_text(&game, "whole", book.root(), book.winner(), &lines)
        .expect("the whole proof");
    assert_eq!(again.len(), lines.len());
    // Without one of its positions: a hole, refused.
    let holed: Vec<_> = lines.iter().skip(1).cloned().collect();
    let error =
        Book::checked_text(&game, "holed", book.root(), book.winner(), &holed).expect_err("a hole");
    assert!(error.ends_with("the book has no move there"), "{error}");
    // With a position no line reaches: refused too.
    let (_, stray, action) = off_the_proof(&game);
    let mut padded = lines.clone();
    padded.push((stray, action));
    let error = Book::checked_text(&game, "padded", book.root(), book.winner(), &padded)
        .expect_err("a stray line");
    assert_eq!(error, "1 of the proof's 16810 positions are off its lines");
}
