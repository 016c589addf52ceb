//! Command-line arguments, as clap reads them; `commands` validates them.

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use grandmaitre_play::registry::{GAME_NAMES, rules_help};

/// The game of every command without `--game`: the first registered.
const DEFAULT_GAME: &str = GAME_NAMES[0];

/// Grand Maître: an AlphaZero-style engine for abstract board games.
#[derive(Debug, Parser)]
#[command(name = "grandmaitre", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count the legal move sequences of a given length (move-generator check).
    Perft(PerftArgs),
    /// Draw a position as text: the board, whose turn it is, the game's
    /// particulars (Heraldis: symbols, reserves, truce) and the legal moves.
    Show(PositionArgs),
    /// Train a model by self-play: self-play → training → checkpoint, in
    /// generations, resumable.
    Train(TrainArgs),
    /// Add self-play to a training run from another process.
    Selfplay(SelfplayArgs),
    /// The Grand Maître's move for a position: principal variation,
    /// win/draw/loss after search, the alternatives.
    Advise(AdviseArgs),
    /// The win-probability bar: P(first player wins), P(draw), P(second
    /// player wins), named by the game's colours.
    Winprob(WinprobArgs),
    /// Fit and store the calibration of the bar from engine games; report
    /// its calibration error with a reliability diagram.
    Calibrate(CalibrateArgs),
    /// Play a match between two players and rate them.
    Arena(ArenaArgs),
    /// Speak the engine protocol (GTP v2 framing) on stdin and stdout.
    Gtp(GtpArgs),
    /// Export a model for embedding: ONNX and a description.
    Export(ExportArgs),
    /// Solve a position exactly (depth-first proof-number search): the
    /// win, draw or loss of the side to move with perfect play, and a move
    /// that keeps it.
    Solve(SolveArgs),
    /// Measure the engine's speed.
    #[command(subcommand)]
    Bench(BenchCommand),
}

/// Which game, on which board, from which position.
#[derive(Debug, Args)]
pub struct PositionArgs {
    /// The game.
    #[arg(long, default_value = DEFAULT_GAME)]
    pub game: String,
    /// The game's rules parameters (a Heraldis layout, Havannah's `base=8
    /// swap=1`; see --help).
    #[arg(long, visible_alias = "layout", long_help = rules_help())]
    pub rules: Option<String>,
    /// Starting position in the game's notation (default: the start).
    #[arg(long)]
    pub position: Option<String>,
    /// Moves played from the position, separated by spaces.
    #[arg(long)]
    pub moves: Option<String>,
}

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// The game.
    #[arg(long, default_value = DEFAULT_GAME)]
    pub game: String,
    /// The rules of the run's games (a new run keeps them in its settings;
    /// default: the game's default rules).
    #[arg(long, visible_alias = "layout", long_help = rules_help())]
    pub rules: Option<String>,
    /// The run (created, or resumed where it stopped): a directory, or an
    /// object store's URL (s3://bucket/prefix, gs://…, az://…; settings
    /// from the AWS_*, GOOGLE_* or AZURE_* environment).
    #[arg(long)]
    pub run: String,
    /// Settings (TOML) for a new run; an existing run keeps its own.
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Stop after this long (e.g. 90s, 45m, 2h); the current generation
    /// finishes first.
    #[arg(long, conflicts_with = "generations")]
    pub time: Option<String>,
    /// Stop after this many generations.
    #[arg(long, allow_negative_numbers = true)]
    pub generations: Option<u32>,
    /// burn's backend for training: flex (default), ndarray, or tch (a
    /// build with the tch feature).
    #[arg(long, default_value = "flex")]
    pub backend: String,
    /// The device: cpu, or cuda (tch only).
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// Self-play comes from `grandmaitre selfplay` workers: the trainer
    /// plays none, and each generation waits until the run holds
    /// games_per_generation more games than at the previous one.
    #[arg(long)]
    pub workers: bool,
    /// How often a trainer with --workers looks for new games (e.g. 5s).
    #[arg(long, default_value = "5s", requires = "workers")]
    pub poll: String,
    /// How long the store may fail for a reason that can pass (a timeout,
    /// a lost connection, an overloaded server) before the trainer gives up
    /// (e.g. 15m, 0 to never wait).
    #[arg(long, default_value = "15m")]
    pub store_patience: String,
}

#[derive(Debug, Args)]
pub struct SelfplayArgs {
    /// The game.
    #[arg(long, default_value = DEFAULT_GAME)]
    pub game: String,
    /// The rules of the run's games (default: those the run keeps in its
    /// settings).
    #[arg(long, visible_alias = "layout", long_help = rules_help())]
    pub rules: Option<String>,
    /// The run (it must exist: `train` creates it): a directory, or an
    /// object store's URL, as for `train`.
    #[arg(long)]
    pub run: String,
    /// Stop after this long (e.g. 30m): the games finished by then are
    /// written as a last shard. SIGTERM or Ctrl-C stops the same way.
    #[arg(long, conflicts_with = "shards")]
    pub time: Option<String>,
    /// Stop after writing this many shards.
    #[arg(long, allow_negative_numbers = true)]
    pub shards: Option<u32>,
    /// How long the store may fail for a reason that can pass (a timeout,
    /// a lost connection, an overloaded server) before the worker gives up
    /// and keeps its shard on this machine, for the next worker here to
    /// write (e.g. 15m, 0 to never wait).
    #[arg(long, default_value = "15m")]
    pub store_patience: String,
}

#[derive(Debug, Args)]
pub struct ArenaArgs {
    /// Player A: random, rollout:sims=N[,rollouts=R], uniform:sims=N,
    /// alphabeta:depth=D (Heraldis, Halma, Bulltricker), greedy (Halma, Bulltricker),
    /// openspiel:sims=N[,rollouts=R] (OpenSpiel's MCTSBot, Havannah), or
    /// mcts[:model=DIR][,sims=N][,level=L][,cpuct=C][,fpu=F][,lcb=0|1]
    /// [,temp=T][,noise=P][,decisive=0|1][,forced=K][,book=0|1][,opening=N]
    /// [,mlh=S][,minimax=W][,single=0|1][,leafdepth=D][,rootdepth=D][,leafweight=W]
    /// [,score=W][,scorescale=S] (the
    /// network's search; the game's shipped model without model=; book=1
    /// plays the game's solution book where it proves a win; opening=N
    /// makes its first N moves uniformly random; mlh=S sets the moves-left
    /// utility's value per ply, 0 turns it off, for a network that predicts
    /// the plies left; minimax=W weighs the implicit minimax backups of the
    /// game's heuristic or the network's values, 0 to 1, off by default;
    /// single=1 takes a position's only move without evaluating the
    /// position; leafdepth=D searches each new position of the tree D plies
    /// deep by alpha-beta on the game's heuristic, proving the mates it
    /// finds, 0 to 8, off by default; rootdepth=D searches the root's moves
    /// D plies deep instead; leafweight=W mixes that search's score
    /// into a new leaf's value, 0 to 1, 0 by default; score=W adds the score
    /// utility on the game's heuristic score, up to W, 0 to 1, off by
    /// default; scorescale=S is the score at which it reaches half of W,
    /// by default the game's scale).
    #[arg(long)]
    pub a: String,
    /// Player B, in the same form.
    #[arg(long)]
    pub b: String,
    /// Games to play (colours alternate).
    #[arg(long, default_value_t = 100, allow_negative_numbers = true)]
    pub games: u32,
    /// Threads playing games at once (default: all cores).
    #[arg(long, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Distinct random openings, each played twice with colours swapped
    /// (0: every game from the start position).
    #[arg(long, default_value_t = 50, allow_negative_numbers = true)]
    pub openings: u32,
    /// Random plies in each opening. One random first move balances the
    /// colours best in Heraldis, where the first player's edge is large.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub opening_plies: u32,
    /// Openings from a file instead of random ones: one per line, moves
    /// from the start in the game's notation separated by spaces (`#`
    /// starts a comment; lines with no move are skipped), each played twice
    /// with colours swapped, in turn.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["openings", "opening_plies"])]
    pub opening_file: Option<std::path::PathBuf>,
    /// Stop early once a sequential probability ratio test of Elo ELO0
    /// against ELO1 decides (α = β = 0.05).
    #[arg(long, value_name = "ELO0,ELO1")]
    pub sprt: Option<String>,
    /// Seed of the openings and players.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub seed: u64,
    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// The game.
    #[arg(long, default_value = DEFAULT_GAME)]
    pub game: String,
    /// The game's rules parameters as for other commands, or `random` for a
    /// different random board in each opening (drawn from --seed; Heraldis
    /// layouts).
    #[arg(long, visible_alias = "layout")]
    pub rules: Option<String>,
    /// Write every game (rules, players' colours, moves, result) to this
    /// file, one JSON object per line.
    #[arg(long, value_name = "FILE")]
    pub games_out: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct GtpArgs {
    /// Simulations per move.
    #[arg(long = "sims", default_value_t = 2000, allow_negative_numbers = true)]
    pub simulations: u32,
    /// A checkpoint directory whose network guides the search (default: the
    /// game's shipped model, inside the program); `rollouts` searches with
    /// random rollouts instead.
    #[arg(long)]
    pub model: Option<std::path::PathBuf>,
    /// `genmove` plays as this arena player instead of the Grand Maître
    /// (for example `alphabeta:depth=4`: a baseline for a front end to play
    /// against); `gm-winprob` stays the Grand Maître's bar.
    #[arg(long, conflicts_with = "simulations")]
    pub player: Option<String>,
    #[command(flatten)]
    pub position: PositionArgs,
}

#[derive(Debug, Args)]
pub struct AdviseArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// A checkpoint directory (default: the game's shipped model, inside
    /// the program).
    #[arg(long)]
    pub model: Option<std::path::PathBuf>,
    /// Playing level, 1 (gentlest) to 10 (full strength, the default).
    #[arg(long, conflicts_with = "simulations", allow_negative_numbers = true)]
    pub level: Option<u32>,
    /// Simulations instead of a level (the most visited move is played).
    #[arg(long = "sims", allow_negative_numbers = true)]
    pub simulations: Option<u32>,
    /// Alternatives listed (0: all).
    #[arg(long, default_value_t = 5, allow_negative_numbers = true)]
    pub alternatives: usize,
    /// Seed of the levels' move choice.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub seed: u64,
    /// Who plays each side, for the bar, in the game's colours:
    /// `light=3,dark=human` (a level 1-10 or `human`, a person of unknown
    /// strength; a side left out is level 10; default: level 10 on both
    /// sides).
    #[arg(long)]
    pub players: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct WinprobArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// A checkpoint directory (default: the game's shipped model, inside
    /// the program).
    #[arg(long)]
    pub model: Option<std::path::PathBuf>,
    /// Who plays each side, for the bar, in the game's colours:
    /// `light=3,dark=human` (a level 1-10 or `human`, a person of unknown
    /// strength; a side left out is level 10; default: level 10 on both
    /// sides).
    #[arg(long)]
    pub players: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// The checkpoint directory whose calibration is fitted and stored
    /// (default: the game's shipped model, inside the program, which can
    /// only be measured: with --dry-run and --report). Games of one rules
    /// setting other than the default store that setting's own
    /// calibration; the default rules, or several settings pooled, store
    /// the one for every setting without its own.
    #[arg(long)]
    pub model: Option<std::path::PathBuf>,
    /// Engine games to play; half fit the calibration, half measure it.
    #[arg(long, default_value_t = 1000, allow_negative_numbers = true)]
    pub games: u32,
    /// The level whose games are played (default 10, the advice).
    #[arg(long, default_value_t = 10, allow_negative_numbers = true)]
    pub level: u32,
    /// Random plies of each opening are drawn between 0 and this; only
    /// the positions after them are recorded.
    #[arg(long, default_value_t = 6, allow_negative_numbers = true)]
    pub opening_plies: u32,
    /// Who plays: `self` (--level against itself, its random moves left
    /// out), `mixed` (pairs of levels such as 10 v 5 and 7 v 3, as the
    /// app's players meet them, random moves included, colours swapped),
    /// `every` (every ordered pair of levels 1-10 in turn) or ordered pairs
    /// of levels, the first player's first, such as `10v5,5v10,4v4`.
    #[arg(long, default_value = "self")]
    pub pairing: String,
    /// Seed of the openings and of the split.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub seed: u64,
    /// Threads playing games at once (default: all cores).
    #[arg(long, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Where to write calibration.md, calibration.json and reliability.png
    /// (default: the checkpoint directory, or its `rules-size-10-limit-50`-like
    /// subdirectory for a calibration of one rules setting other than the
    /// default).
    #[arg(long)]
    pub report: Option<std::path::PathBuf>,
    /// Measure only: leave the checkpoint's calibration as it is.
    #[arg(long)]
    pub dry_run: bool,
    /// Also write the games' records (the bar at every position and the
    /// result, one JSON object per game) to this file. Each game goes to
    /// FILE.part as it ends; a run that stops keeps them there, and the
    /// same command resumes from it, playing only the games left.
    #[arg(long)]
    pub games_out: Option<std::path::PathBuf>,
    /// Fit and measure on the records of earlier `--games-out` runs instead
    /// of playing games (several files, after one flag or each after its
    /// own, pool runs of other seeds, or of other rules parameters of the
    /// same game, such as a board size: `--games-in fit-*.jsonl`;
    /// `--games`, `--level` and `--opening-plies` are then those of the
    /// files).
    #[arg(long, num_args = 1.., conflicts_with = "games_out")]
    pub games_in: Vec<std::path::PathBuf>,
    /// With `--games-in`: every game of those files fits the calibration,
    /// and the games of these (other seeds or other rules parameters,
    /// played alike; one or several files) measure it, instead of halves
    /// of one pool.
    #[arg(long, num_args = 1.., requires = "games_in")]
    pub held_out: Vec<std::path::PathBuf>,
    /// Records of earlier runs (`--games-out`; one or several files) of
    /// the same game and rules whose games of levels that both play their
    /// best (7-10, no random move: one opening, one game) are not played
    /// again: an opening that reaches a position one of them started from,
    /// with the same levels, is drawn again. A run never repeats its own
    /// such games.
    #[arg(long, num_args = 1.., conflicts_with = "games_in")]
    pub distinct_from: Vec<std::path::PathBuf>,
    /// The game.
    #[arg(long, default_value = DEFAULT_GAME)]
    pub game: String,
    /// The game's rules parameters (default: the game's default rules).
    #[arg(long, visible_alias = "layout", long_help = rules_help())]
    pub rules: Option<String>,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// A checkpoint directory (default: the game's shipped model, inside
    /// the program).
    #[arg(long)]
    pub model: Option<std::path::PathBuf>,
    /// The directory to write.
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// The game.
    #[arg(long, default_value = DEFAULT_GAME)]
    pub game: String,
    /// The rules parameters the app plays under (default: the game's
    /// default rules).
    #[arg(long, visible_alias = "layout", long_help = rules_help())]
    pub rules: Option<String>,
}

#[derive(Debug, Args)]
pub struct PerftArgs {
    /// Length of the move sequences.
    #[arg(long, allow_negative_numbers = true)]
    pub depth: u32,
    /// Also print the count below each legal move.
    #[arg(long)]
    pub divide: bool,
    #[command(flatten)]
    pub position: PositionArgs,
}

#[derive(Debug, Args)]
pub struct SolveArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Give up after this long (e.g. 90s, 45m, 2h; default: no limit).
    #[arg(long)]
    pub time: Option<String>,
    /// Give up after expanding this many positions (default: no limit).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Write the proof of a win here: one winning move for each of the
    /// winner's positions in it, a line `POSITION<TAB>MOVE` each.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Perft speed on one thread: leaves counted per second (a game's own
    /// perft may count the last plies without making their moves).
    Perft(BenchPerftArgs),
    /// Pure search speed: simulations per second with the uniform evaluator
    /// on one thread.
    Search(BenchSearchArgs),
    /// Network inference speed: our path and burn's, the machine's GEMM
    /// speed, and MCTS with the network as evaluator.
    Nn(BenchNnArgs),
    /// Latency of the win-probability bar (network + small search) on one
    /// thread.
    Winprob(BenchWinprobArgs),
    /// Training-step throughput (samples/s) of burn's backends, from the
    /// same weights on the same batch.
    Train(BenchTrainArgs),
    /// Self-play throughput against the network's raw inference bound at
    /// the batch self-play gives it.
    Selfplay(BenchSelfplayArgs),
    /// Speed of the search's tactics on one thread: the alpha-beta on the
    /// game's heuristic from positions of play.
    Tactics(BenchTacticsArgs),
}

#[derive(Debug, Args)]
pub struct BenchTacticsArgs {
    /// Plies of each search (default: the deepest the game's tactics
    /// search, or 3 for a game without them).
    #[arg(long, allow_negative_numbers = true)]
    pub depth: Option<u32>,
    /// Positions searched.
    #[arg(long, default_value_t = 200, allow_negative_numbers = true)]
    pub positions: usize,
    /// The game.
    #[arg(long, default_value = DEFAULT_GAME)]
    pub game: String,
    /// The game's rules parameters (default: the game's default rules).
    #[arg(long, visible_alias = "layout", long_help = rules_help())]
    pub rules: Option<String>,
}

/// The network a benchmark times.
#[derive(Debug, Args)]
pub struct NetworkArgs {
    /// A checkpoint directory (default: a freshly initialised network of
    /// the default shape, or of --channels, --blocks and --pooled).
    #[arg(long)]
    pub model: Option<std::path::PathBuf>,
    /// Channels of a fresh network.
    #[arg(long, allow_negative_numbers = true)]
    pub channels: Option<usize>,
    /// Residual blocks of a fresh network.
    #[arg(long, allow_negative_numbers = true)]
    pub blocks: Option<usize>,
    /// A fresh network of pooled heads (any board size, pooling every
    /// second block) instead of dense ones.
    #[arg(long)]
    pub pooled: bool,
}

#[derive(Debug, Args)]
pub struct BenchSelfplayArgs {
    /// The game.
    #[arg(long, default_value = DEFAULT_GAME)]
    pub game: String,
    /// The game's rules parameters (default: the game's default rules).
    #[arg(long, visible_alias = "layout", long_help = rules_help())]
    pub rules: Option<String>,
    /// The network timed.
    #[command(flatten)]
    pub network: NetworkArgs,
    /// Training settings whose [selfplay] section is timed (default: the
    /// defaults).
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Seconds of self-play to time.
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true)]
    pub seconds: f64,
}

#[derive(Debug, Args)]
pub struct BenchTrainArgs {
    /// The game whose network is timed (its default rules).
    #[arg(long, default_value = DEFAULT_GAME)]
    pub game: String,
    /// Backends to time, separated by commas: flex, ndarray, tch (tch needs
    /// a build with the tch feature; otherwise it is reported unavailable).
    #[arg(long, default_value = "flex,tch")]
    pub backends: String,
    /// The device: cpu, or cuda (tch only).
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// Channels of the network's tower (default 32, or the --config's).
    #[arg(long, allow_negative_numbers = true)]
    pub channels: Option<usize>,
    /// Residual blocks of the network (default 4, or the --config's).
    #[arg(long, allow_negative_numbers = true)]
    pub blocks: Option<usize>,
    /// Training settings whose network (heads included) is timed, at their
    /// batch size unless --batch says otherwise (default: dense heads, the
    /// default settings).
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Samples per step (default 256, or the --config's).
    #[arg(long, allow_negative_numbers = true)]
    pub batch: Option<usize>,
    /// Timed steps per backend.
    #[arg(long, default_value_t = 10, allow_negative_numbers = true)]
    pub steps: usize,
    /// Untimed steps before them.
    #[arg(long, default_value_t = 2, allow_negative_numbers = true)]
    pub warmup: usize,
}

#[derive(Debug, Args)]
pub struct BenchWinprobArgs {
    /// A checkpoint directory (default: the game's shipped model, inside
    /// the program).
    #[arg(long)]
    pub model: Option<std::path::PathBuf>,
    /// Positions measured (random positions of up to 12 plies).
    #[arg(long, default_value_t = 500, allow_negative_numbers = true)]
    pub positions: usize,
    /// The game.
    #[arg(long, default_value = DEFAULT_GAME)]
    pub game: String,
    /// The game's rules parameters (default: the game's default rules).
    #[arg(long, visible_alias = "layout", long_help = rules_help())]
    pub rules: Option<String>,
}

#[derive(Debug, Args)]
pub struct BenchNnArgs {
    /// The game whose network is timed (its default rules).
    #[arg(long, default_value = DEFAULT_GAME)]
    pub game: String,
    /// The network timed.
    #[command(flatten)]
    pub network: NetworkArgs,
    /// Batch sizes to time, separated by commas.
    #[arg(long, default_value = "1,8,64,256")]
    pub batches: String,
    /// Seconds to time each measurement.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub seconds: f64,
    /// Also time burn's forward pass on this backend (flex, ndarray), or
    /// `none`.
    #[arg(long, default_value = "flex")]
    pub burn: String,
    /// Write the timed network as a checkpoint to this directory (for the
    /// onnxruntime comparison script).
    #[arg(long)]
    pub save: Option<std::path::PathBuf>,
    /// Threads for inference and search (default: one per core).
    #[arg(long, allow_negative_numbers = true)]
    pub threads: Option<usize>,
}

#[derive(Debug, Args)]
pub struct BenchSearchArgs {
    /// Simulations per search.
    #[arg(long, default_value_t = 200_000, allow_negative_numbers = true)]
    pub simulations: u32,
    /// Leaves gathered per evaluator call.
    #[arg(long, default_value_t = 8, allow_negative_numbers = true)]
    pub leaves: u32,
    /// Searches to time; the fastest is reported.
    #[arg(long, default_value_t = 3, allow_negative_numbers = true)]
    pub repeat: u32,
    #[command(flatten)]
    pub position: PositionArgs,
}

#[derive(Debug, Args)]
pub struct BenchPerftArgs {
    /// Length of the move sequences (default: the game's, a count of a
    /// second or so: Heraldis 7, Havannah 4, Halma 5).
    #[arg(long, allow_negative_numbers = true)]
    pub depth: Option<u32>,
    /// Runs to time; the fastest is reported.
    #[arg(long, default_value_t = 3, allow_negative_numbers = true)]
    pub repeat: u32,
    #[command(flatten)]
    pub position: PositionArgs,
}

/// Prints a command-line error on one line (help and version text go out
/// whole) and gives the exit status: 2 for an error, 0 for help or version.
pub fn report_usage_error(error: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match error.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = error.print();
            if error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        _ => {
            // The message's first paragraph on one line: it may list the
            // missing arguments below its first line.
            let rendered = error.render().to_string();
            let paragraph: Vec<&str> = rendered
                .lines()
                .take_while(|line| !line.trim().is_empty())
                .map(str::trim)
                .collect();
            let message = if paragraph.is_empty() {
                "error: bad arguments".to_string()
            } else {
                paragraph.join(" ")
            };
            eprintln!("{message} (see --help)");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("grandmaitre").chain(args.iter().copied()))
    }

    #[test]
    fn perft_reads_depth_divide_and_position() {
        let cli = parse(&["perft", "--depth", "3", "--divide", "--moves", "c3 b2"])
            .expect("valid arguments");
        let Command::Perft(args) = cli.command else {
            panic!("expected perft");
        };
        assert_eq!(args.depth, 3);
        assert!(args.divide);
        assert_eq!(args.position.moves.as_deref(), Some("c3 b2"));
        assert_eq!(args.position.game, "heraldis");
    }

    #[test]
    fn perft_needs_a_numeric_depth() {
        assert!(parse(&["perft"]).is_err());
        assert!(parse(&["perft", "--depth", "x"]).is_err());
        assert!(parse(&["perft", "--depth", "-1"]).is_err());
    }

    #[test]
    fn show_reads_layout_and_position() {
        let cli = parse(&[
            "show",
            "--layout",
            "random:5",
            "--position",
            "5/5/5/5/5 l - 0",
        ])
        .expect("valid arguments");
        let Command::Show(args) = cli.command else {
            panic!("expected show");
        };
        assert_eq!(args.rules.as_deref(), Some("random:5"));
        assert_eq!(args.position.as_deref(), Some("5/5/5/5/5 l - 0"));
    }

    #[test]
    fn bench_perft_leaves_the_depth_to_the_game_unless_given() {
        let cli = parse(&["bench", "perft"]).expect("valid arguments");
        let Command::Bench(BenchCommand::Perft(args)) = cli.command else {
            panic!("expected bench perft");
        };
        assert_eq!(args.depth, None);
        let cli = parse(&["bench", "perft", "--depth", "3"]).expect("valid arguments");
        let Command::Bench(BenchCommand::Perft(args)) = cli.command else {
            panic!("expected bench perft");
        };
        assert_eq!(args.depth, Some(3));
    }

    #[test]
    fn arena_reads_players_games_and_sprt() {
        let cli = parse(&[
            "arena",
            "--a",
            "rollout:sims=100",
            "--b",
            "random",
            "--games",
            "10",
            "--sprt",
            "0,50",
            "--json",
        ])
        .expect("valid arguments");
        let Command::Arena(args) = cli.command else {
            panic!("expected arena");
        };
        assert_eq!(args.a, "rollout:sims=100");
        assert_eq!(args.games, 10);
        assert_eq!(args.sprt.as_deref(), Some("0,50"));
        assert!(args.json);
        assert!(parse(&["arena", "--a", "random"]).is_err());
    }

    #[test]
    fn calibrate_takes_several_records_files_after_one_flag() {
        let cli = parse(&[
            "calibrate",
            "--games-in",
            "fit-1.jsonl",
            "fit-2.jsonl",
            "--games-in",
            "fit-3.jsonl",
            "--held-out",
            "held-1.jsonl",
            "held-2.jsonl",
            "--game",
            "havannah",
        ])
        .expect("valid arguments");
        let Command::Calibrate(args) = cli.command else {
            panic!("expected calibrate");
        };
        let names = |paths: &[std::path::PathBuf]| -> Vec<String> {
            paths.iter().map(|p| p.display().to_string()).collect()
        };
        assert_eq!(
            names(&args.games_in),
            ["fit-1.jsonl", "fit-2.jsonl", "fit-3.jsonl"]
        );
        assert_eq!(names(&args.held_out), ["held-1.jsonl", "held-2.jsonl"]);
        assert_eq!(args.game, "havannah");
        let cli = parse(&["calibrate", "--distinct-from", "a.jsonl", "b.jsonl"])
            .expect("valid arguments");
        let Command::Calibrate(args) = cli.command else {
            panic!("expected calibrate");
        };
        assert_eq!(names(&args.distinct_from), ["a.jsonl", "b.jsonl"]);
        assert!(parse(&["calibrate", "--games-in"]).is_err());
    }

    #[test]
    fn unknown_options_are_errors() {
        assert!(parse(&["show", "--colour", "red"]).is_err());
        assert!(parse(&["fly"]).is_err());
    }
}
