//! The games the program plays: one entry per game, and the one dispatch
//! through which every command reaches a game.
//!
//! An entry says what the engine's [`Game`] trait does not: the game's
//! name on the command line, how `--rules` reads its parameters, the
//! shipped model compiled into the program, the players that rate a
//! training run, the baselines it has, and how its export describes the
//! network's input and output. Adding a game is its engine module
//! (`engine/src/games/`), an `impl Registered` below, and its type in the
//! [`registry!`] line at the end of this file.

use std::sync::Arc;

use anyhow::Result;
use grandmaitre_engine::agent::Agent;
use grandmaitre_engine::book::Book;
use grandmaitre_engine::bulltricker::{self, Bulltricker};
use grandmaitre_engine::halma::{self, Halma};
use grandmaitre_engine::havannah::{self, Havannah};
use grandmaitre_engine::heraldis::alphabeta::AlphaBetaAgent;
use grandmaitre_engine::heraldis::{self, Heraldis, Layout};
use grandmaitre_engine::{Game, Notation, Playable, Player};
use rand::SeedableRng;
use rand::rngs::StdRng;

/// A checkpoint compiled into the program: its two files' contents.
#[derive(Clone, Copy, Debug)]
pub struct ShippedModel {
    /// `checkpoint.json`.
    pub metadata: &'static str,
    /// `weights.bpk`.
    pub weights: &'static [u8],
}

/// How an export describes the network's input and output, for a runtime
/// that encodes positions itself.
#[derive(Clone, Debug)]
pub struct ExportNotes {
    /// The game's rules parameters, as `--rules` reads them.
    pub rules: String,
    /// The rules again, field by field, for the game's runtime.
    pub fields: Vec<(&'static str, serde_json::Value)>,
    /// How a cell of the board maps to an offset within a plane.
    pub cell_index: String,
    /// One name per input plane.
    pub planes: Vec<&'static str>,
    /// How actions are numbered.
    pub actions: String,
    /// The JavaScript modules of the game's app (file name, contents), if
    /// it has one: first the game's (its rules and encoding; it imports the
    /// others), then the game-neutral Grand Maître (the model, the bar, the
    /// book, the levels), then the engine's search, then its solver.
    pub modules: &'static [(&'static str, &'static str)],
}

/// What the command line needs of a game beyond its rules.
pub trait Registered: Playable + 'static {
    /// The name accepted by `--game` and the engine protocol's `gm-game`.
    const NAME: &'static str;

    /// What `--rules` accepts for this game, for the help.
    const RULES_HELP: &'static str;

    /// The shipped model, compiled into the program, if the game has one.
    const SHIPPED: Option<ShippedModel>;

    /// Solution books compiled into the program (`solve --out`), each the
    /// text of one: one applies wherever it checks as a proof under the
    /// rules in force ([`book`]).
    const BOOKS: &'static [&'static str] = &[];

    /// Default fixed opponents of a training run's ratings (`arena` player
    /// specs this game can play).
    const ANCHORS: &'static [&'static str];

    /// The depth `bench perft` counts to by default: a second or so from
    /// the start.
    const PERFT_BENCH_DEPTH: u32;

    /// The same rules on a random board drawn from `seed` (a random layout
    /// for Heraldis), for games whose board varies.
    fn random_board(&self, _seed: u64) -> Option<Self> {
        None
    }

    /// The game's alpha-beta baseline at `depth`, if it has one.
    fn alphabeta(_depth: u32, _seed: u64) -> Option<Box<dyn Agent<Self>>> {
        None
    }

    /// The game's greedy baseline, if it has one.
    fn greedy(_seed: u64) -> Option<Box<dyn Agent<Self>>> {
        None
    }

    /// OpenSpiel's name of the same game (with its parameters), when
    /// OpenSpiel has it with the same action ids.
    fn openspiel_game(&self) -> Option<String> {
        None
    }

    /// How the export describes this game's encoding and actions.
    fn export_notes(&self) -> ExportNotes;
}

impl Registered for Heraldis {
    const NAME: &'static str = "heraldis";
    const RULES_HELP: &'static str = "heraldis: `layout=L limit=N` (L is `default`, `random:SEED`, or the 25 cells in the rules' notation, rank 5 first, cells separated by `,` and ranks by `/`; the game is drawn after N plies, default 150), either may be left out; a layout alone in the rules' notation, optionally followed by `| N`, still reads";
    const SHIPPED: Option<ShippedModel> = Some(ShippedModel {
        metadata: include_str!("../../checkpoints/heraldis/checkpoint.json"),
        weights: include_bytes!("../../checkpoints/heraldis/weights.bpk"),
    });
    const BOOKS: &'static [&'static str] = &[include_str!(
        "../../checkpoints/heraldis/solution/default.proof"
    )];
    const ANCHORS: &'static [&'static str] = &["alphabeta:depth=4", "rollout:sims=10000"];
    const PERFT_BENCH_DEPTH: u32 = 7;

    fn random_board(&self, seed: u64) -> Option<Self> {
        let layout = Layout::random(&mut StdRng::seed_from_u64(seed));
        Some(Heraldis::with_ply_limit(layout, self.ply_limit()))
    }

    fn alphabeta(depth: u32, seed: u64) -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(AlphaBetaAgent::heraldis(depth, seed)))
    }

    fn export_notes(&self) -> ExportNotes {
        ExportNotes {
            rules: self.layout().to_string(),
            fields: vec![
                ("layout", self.layout().to_string().into()),
                ("ply_limit", self.ply_limit().into()),
            ],
            cell_index: "5 × (rank − 1) + file: a1 = 0, b1 = 1, …, e5 = 24; planes are plane-major, each 25 values".to_string(),
            planes: heraldis::PLANE_NAMES.to_vec(),
            actions: "0..24 are the cells (5 × (rank − 1) + file: a1 = 0, …, e5 = 24), placing or capturing there; 25 is pass".to_string(),
            modules: &[
                ("heraldis.js", include_str!("../../web/heraldis.js")),
                ("grandmaitre.js", include_str!("../../web/grandmaitre.js")),
                ("search.js", include_str!("../../web/search.js")),
                ("solve.js", include_str!("../../web/solve.js")),
            ],
        }
    }
}

impl Registered for Havannah {
    const NAME: &'static str = "havannah";
    const RULES_HELP: &'static str = "havannah: `base=N swap=0|1` (base 2 to 10, default 8; swap default 1), either may be left out";
    const SHIPPED: Option<ShippedModel> = Some(ShippedModel {
        metadata: include_str!("../../checkpoints/havannah/checkpoint.json"),
        weights: include_bytes!("../../checkpoints/havannah/weights.bpk"),
    });
    const ANCHORS: &'static [&'static str] = &["rollout:sims=1000"];
    const PERFT_BENCH_DEPTH: u32 = 4;

    fn openspiel_game(&self) -> Option<String> {
        Some(format!(
            "havannah(board_size={},swap={})",
            self.base(),
            if self.swap() { "True" } else { "False" }
        ))
    }

    fn export_notes(&self) -> ExportNotes {
        let side = 2 * self.base() - 1;
        ExportNotes {
            rules: self.rules().to_string(),
            fields: vec![("base", self.base().into()), ("swap", self.swap().into())],
            cell_index: format!(
                "cell (x, y) of the {side} × {side} grid (on the board when |x − y| < {base}; named by the letter a + x then y + 1) is at offset y × {side} + x; planes are plane-major, each {area} values",
                base = self.base(),
                area = side * side
            ),
            planes: havannah::PLANE_NAMES.to_vec(),
            actions: format!(
                "the action of a cell is its offset, y × {side} + x (OpenSpiel's ids); with swap, the second player takes over the first stone by playing on its cell"
            ),
            modules: &[],
        }
    }
}

impl Registered for Halma {
    const NAME: &'static str = "halma";
    const RULES_HELP: &'static str = "halma: `size=8|10 limit=L compare=gt|ge corner=a1|h1 draw=M adjudicate=none|race` (default size 8; limit 30 on 8 × 8, 50 on 10 × 10; gt; a1; 200; none — race, a training rule, gives the draw limit to the side nearer its goal), any of them may be left out";
    const SHIPPED: Option<ShippedModel> = Some(ShippedModel {
        metadata: include_str!("../../checkpoints/halma/checkpoint.json"),
        weights: include_bytes!("../../checkpoints/halma/weights.bpk"),
    });
    const ANCHORS: &'static [&'static str] = &["alphabeta:depth=3", "greedy"];
    const PERFT_BENCH_DEPTH: u32 = 5;

    fn alphabeta(depth: u32, seed: u64) -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(halma::baselines::AlphaBetaAgent::halma(
            depth, seed,
        )))
    }

    fn greedy(seed: u64) -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(halma::baselines::GreedyAgent::new(seed)))
    }

    fn export_notes(&self) -> ExportNotes {
        let size = self.size();
        let cells = size * size;
        ExportNotes {
            rules: self.rules().to_string(),
            fields: vec![
                ("size", size.into()),
                ("yard_limit", self.yard_limit().into()),
                ("draw_moves", self.draw_moves().into()),
            ],
            cell_index: format!(
                "{size} × (rank − 1) + file: a1 = 0, b1 = 1, …; planes are plane-major, each {cells} values"
            ),
            planes: halma::PLANE_NAMES.to_vec(),
            actions: format!(
                "a move from cell f to cell t is f × {cells} + t (cells numbered as the planes); {pass} is pass",
                pass = cells * cells
            ),
            modules: &[],
        }
    }
}

impl Registered for Bulltricker {
    const NAME: &'static str = "bulltricker";
    const RULES_HELP: &'static str = "bulltricker: `plies=N material=M repetitions=R adjudicate=none|material` (a draw after N plies, default 400; below M occupied rectangles, default 4; at a position's R-th occurrence, default 3; none — material, a training rule, gives a repetition or the ply cap to the side with more material), any of them may be left out";
    const SHIPPED: Option<ShippedModel> = Some(ShippedModel {
        metadata: include_str!("../../checkpoints/bulltricker/checkpoint.json"),
        weights: include_bytes!("../../checkpoints/bulltricker/weights.bpk"),
    });
    const ANCHORS: &'static [&'static str] = &["alphabeta:depth=3", "greedy"];
    const PERFT_BENCH_DEPTH: u32 = 4;

    fn alphabeta(depth: u32, seed: u64) -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(
            bulltricker::baselines::AlphaBetaAgent::bulltricker(depth, seed),
        ))
    }

    fn greedy(seed: u64) -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(bulltricker::baselines::GreedyAgent::new(seed)))
    }

    fn export_notes(&self) -> ExportNotes {
        let grid = bulltricker::GRID;
        ExportNotes {
            rules: self.rules().to_string(),
            fields: vec![("ply_cap", self.ply_cap().into())],
            cell_index: format!(
                "grid cell 15 × row + column (row 0 is Black's back line H1, column 0 is V1); junctions, rectangles and royal squares alike; planes are plane-major, each {grid} values"
            ),
            planes: bulltricker::PLANE_NAMES.to_vec(),
            actions: format!(
                "a move from grid cell f to grid cell t is f × {grid} + t (cells numbered as the planes)"
            ),
            modules: &[],
        }
    }
}

/// The first of the game's books that proves its claim under `game`'s
/// rules, if any: where it applies, the bar shows its exact result and the
/// Grand Maître plays its moves.
pub fn book<G: Registered>(game: &G) -> Option<Arc<Book<G>>> {
    book_and_text(game).map(|(book, _)| book)
}

/// [`book`] with the text it was read from.
pub fn book_and_text<G: Registered>(game: &G) -> Option<(Arc<Book<G>>, &'static str)> {
    G::BOOKS
        .iter()
        .find_map(|text| Some((Arc::new(Book::read(game, text).ok()?), *text)))
}

/// Work to do on a game, whatever the game.
pub trait GameTask {
    /// Runs on `game`.
    fn run<G: Registered>(self, game: G) -> Result<()>;
}

/// Game `G` under the rules `rules` (its default rules without).
fn game_with_rules<G: Registered>(rules: Option<&str>) -> Result<G> {
    match rules {
        Some(text) => Ok(G::with_rules(text)?),
        None => Ok(G::default()),
    }
}

/// Lists the games: their names, and the dispatch over them.
macro_rules! registry {
    ($($game:ty),+ $(,)?) => {
        /// The names `--game` and the engine protocol's `gm-game` accept.
        pub const GAME_NAMES: &[&str] = &[$(<$game as Registered>::NAME),+];

        /// What `--rules` accepts, game by game.
        pub const RULES_HELPS: &[&str] = &[$(<$game as Registered>::RULES_HELP),+];

        /// Runs `task` on the game `name` under `rules`: the one place that
        /// turns a game's name into its type.
        pub fn dispatch(name: &str, rules: Option<&str>, task: impl GameTask) -> Result<()> {
            $(
                if name == <$game as Registered>::NAME {
                    return task.run(game_with_rules::<$game>(rules)?);
                }
            )+
            anyhow::bail!(
                "unknown game '{}': expected {}",
                grandmaitre_engine::game::OneLine(name),
                GAME_NAMES.join(", ")
            )
        }
    };
}

registry!(Heraldis, Havannah, Halma, Bulltricker);

/// The help of `--rules`: each game's parameters.
pub fn rules_help() -> String {
    format!(
        "The game's rules parameters (default: the game's default rules). {}",
        RULES_HELPS.join("; ")
    )
}

/// The names of the first and the second player of `game` ("light",
/// "dark").
pub fn player_names<G: Notation>(game: &G) -> [&'static str; 2] {
    [Player::First, Player::Second].map(|player| game.player_name(player))
}

/// `P(<first> wins)`-style names of the three outcomes of `game`, from the
/// first player's side: "light wins", "draw", "dark wins".
pub fn outcome_names<G: Notation>(game: &G) -> [String; 3] {
    let [first, second] = player_names(game);
    [
        format!("{first} wins"),
        "draw".to_string(),
        format!("{second} wins"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Check;

    impl GameTask for Check {
        fn run<G: Registered>(self, game: G) -> Result<()> {
            // The registered name is the game's own.
            assert_eq!(game.spec().name, G::NAME);
            // The default anchors are players of this game.
            for anchor in G::ANCHORS {
                crate::players::PlayerSpec::parse(anchor)?.prepare(&game)?;
            }
            // The shipped model loads for this game.
            if G::SHIPPED.is_some() {
                crate::players::ModelChoice::Shipped.load(&game)?;
            }
            // The rules read back from their own text.
            let notes = game.export_notes();
            assert_eq!(G::with_rules(&notes.rules)?.rules(), game.rules());
            assert_eq!(&game.rules().to_string().parse::<G::Rules>()?, game.rules());
            Ok(())
        }
    }

    #[test]
    fn every_game_is_consistent_with_its_entry() {
        for name in GAME_NAMES {
            dispatch(name, None, Check).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        }
    }

    #[test]
    fn an_unknown_game_is_named_with_the_known_ones() {
        let error = dispatch("chess", None, Check).expect_err("unknown");
        assert_eq!(
            error.to_string(),
            "unknown game 'chess': expected heraldis, havannah, halma, bulltricker"
        );
    }
}
