//! The engine protocol, in GTP v2 framing: a session that answers lines
//! (`grandmaitre gtp` serves it on stdin and stdout).
//!
//! Each command is a line, optionally preceded by a numeric id; each answer
//! is `=[id] text` or `?[id] error`, followed by a blank line. Besides GTP's
//! `protocol_version`, `name`, `version`, `known_command`, `list_commands`,
//! `quit`, `clear_board`, `play`, `genmove`, `undo` and `showboard`, the
//! extensions are `gm-game`, `gm-rules` (or `gm-layout`), `gm-position`,
//! `gm-sims`, `gm-level`, `gm-players` (who plays each side, for the bar:
//! `gm-players light=10 dark=human`; alone, it answers the seats) and
//! `gm-winprob` (`= <P(first player wins)> <P(draw)> <P(second player
//! wins)>`, then `proven <outcome>` where the result is proven: the bar,
//! as `winprob` gives it for the same seats).
//! Where the game's solution book proves a win, `genmove` plays its move
//! (unless `gm-level` asked for a level with random moves) and the bar is
//! exact; elsewhere, when it plays its best, it asks the solver before it
//! trusts its search (`grandmaitre_engine::guard`). `gm-game` naming another game ends this session
//! ([`Ending::SwitchTo`]), and the caller starts one on that game. With a
//! stand-in player (`--player SPEC`), `genmove` plays as that arena player
//! (a baseline such as `alphabeta:depth=4`), and `gm-sims` and `gm-level`,
//! which set the Grand Maître's search, are refused.

use std::io::{BufRead, Write};
use std::sync::Arc;

use anyhow::Result;
use grandmaitre_engine::agent::{Agent, MctsAgent};
use grandmaitre_engine::book::Book;
use grandmaitre_engine::game::OneLine;
use grandmaitre_engine::guard::Guard;
use grandmaitre_engine::levels::Level;
use grandmaitre_engine::search::{Evaluator, MoveChoice, RolloutEvaluator, SearchConfig};
use grandmaitre_engine::seats::Seats;
use grandmaitre_engine::{Action, ForPlayers, Player};
use grandmaitre_model::Calibrations;
use grandmaitre_model::bar;

use crate::players::{ModelChoice, PlayerSpec};
use crate::registry::{self, GAME_NAMES, Registered};

/// The commands, as `list_commands` gives them.
const COMMANDS: [&str; 19] = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "clear_board",
    "play",
    "genmove",
    "undo",
    "showboard",
    "gm-game",
    "gm-rules",
    "gm-layout",
    "gm-position",
    "gm-sims",
    "gm-level",
    "gm-players",
    "gm-winprob",
];

/// The evaluator a session searches with.
type SharedEvaluator<G> = Arc<dyn Evaluator<G> + Send + Sync>;

/// What guides a session's search on one board: the evaluator, the
/// leaves it evaluates at once (a network is fastest on batches; rollouts
/// are best one at a time), the model's calibrations and the game's book.
struct Guide<G: Registered> {
    evaluator: SharedEvaluator<G>,
    leaves: u32,
    calibrations: Calibrations,
    book: Option<Arc<Book<G>>>,
}

impl<G: Registered> Guide<G> {
    /// The guide of `model` for `game`'s board.
    fn of(model: &ModelChoice, game: &G) -> Result<Guide<G>> {
        Ok(match model {
            ModelChoice::Rollouts => Guide {
                evaluator: Arc::new(RolloutEvaluator::default()),
                leaves: 1,
                calibrations: Calibrations::default(),
                book: registry::book(game),
            },
            choice => {
                let model = choice.load(game)?;
                Guide {
                    evaluator: Arc::new(model.evaluator),
                    leaves: 8,
                    calibrations: model.calibrations,
                    book: model.book,
                }
            }
        })
    }
}

/// How a session ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `quit`, or the end of the input.
    Quit,
    /// `gm-game` named another game: the caller goes on with a session on
    /// that game.
    SwitchTo(String),
}

/// Serves `session` on `input` and `output`, a line and its answer at a
/// time, until `quit`, the end of the input, or `gm-game` naming another
/// game.
pub fn serve<G: Registered>(
    session: &mut Session<G>,
    mut input: impl BufRead,
    mut output: impl Write,
) -> Result<Ending> {
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            return Ok(Ending::Quit);
        }
        // A line that is not UTF-8 is still a line: it gets an answer
        // (most likely `? unknown command`), not the end of the session.
        let line = String::from_utf8_lossy(&bytes);
        let Some(reply) = session.handle(&line) else {
            continue;
        };
        write!(output, "{reply}\n\n")?;
        output.flush()?;
        if session.quit {
            return Ok(Ending::Quit);
        }
        if let Some(name) = session.switch_to.take() {
            return Ok(Ending::SwitchTo(name));
        }
    }
}

/// The protocol's state: the game, the moves played, the engine.
pub struct Session<G: Registered> {
    game: G,
    history: Vec<(G::State, Action)>,
    state: G::State,
    agent: MctsAgent<G, SharedEvaluator<G>>,
    /// The player `genmove` plays as instead of the Grand Maître, with its
    /// description (`--player`).
    stand_in: Option<(String, Box<dyn Agent<G>>)>,
    /// The evaluator of the bar (the agent's own).
    evaluator: SharedEvaluator<G>,
    /// Where the evaluator comes from: `gm-rules` loads it again for
    /// another board size.
    model: ModelChoice,
    /// The model's calibrations; the bar takes those of the rules in
    /// force (`gm-rules` may change them).
    calibrations: Calibrations,
    /// The game's solution book under the rules in force, if one applies.
    book: Option<Arc<Book<G>>>,
    /// Who plays each side, for the bar (`gm-players`).
    seats: Seats,
    /// The solver the Grand Maître asks before it trusts its search, when
    /// it plays its best (built on the first such move of these rules).
    guard: Option<Guard<G>>,
    quit: bool,
    /// Another game `gm-game` asked for.
    switch_to: Option<String>,
}

impl<G: Registered> std::fmt::Debug for Session<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("game", &self.game)
            .field("state", &self.state)
            .field("moves", &self.history.len())
            .field("stand_in", &self.stand_in.as_ref().map(|(name, _)| name))
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl<G: Registered> Session<G> {
    /// A session on `game` from `state`, searching `simulations` a move
    /// with `model` (a network searches eight leaves at once, rollouts
    /// one), and playing as the arena player `player` instead of the Grand
    /// Maître where one is given.
    pub fn start(
        game: &G,
        state: G::State,
        simulations: u32,
        model: ModelChoice,
        player: Option<&str>,
    ) -> Result<Session<G>> {
        let guide = Guide::of(&model, game)?;
        let config = SearchConfig {
            simulations: simulations.max(1),
            leaves_per_batch: guide.leaves,
            ..SearchConfig::for_game(game)
        };
        let mut session = Session::new(game.clone(), state, config, model, guide);
        if let Some(text) = player {
            let prepared = PlayerSpec::parse(text)?.prepare(game)?;
            session.stand_in = Some((text.to_string(), prepared.build(game, 1)?));
        }
        Ok(session)
    }

    /// A session on `game` from `state`.
    fn new(
        game: G,
        state: G::State,
        config: SearchConfig,
        model: ModelChoice,
        guide: Guide<G>,
    ) -> Session<G> {
        let agent = MctsAgent::new(
            config,
            guide.evaluator.clone(),
            MoveChoice::LowerConfidenceBound,
            1,
        );
        Session {
            book: guide.book,
            seats: Seats::DEFAULT,
            guard: None,
            game,
            history: Vec::new(),
            state,
            agent,
            stand_in: None,
            evaluator: guide.evaluator,
            model,
            calibrations: guide.calibrations,
            quit: false,
            switch_to: None,
        }
    }

    /// Answers one line; `None` for a blank or comment line.
    ///
    /// As GTP asks, control characters other than tabs are dropped, tabs
    /// become spaces and a `#` starts a comment; an error answer is one
    /// line whatever the input it quotes.
    pub fn handle(&mut self, line: &str) -> Option<String> {
        let line: String = line
            .split('#')
            .next()
            .unwrap_or("")
            .chars()
            .filter(|&c| c == '\t' || !c.is_control())
            .map(|c| if c == '\t' { ' ' } else { c })
            .collect();
        let line = line.trim();
        if line.is_empty() {
            return None;
        }
        let (id, rest) = match line.split_once(char::is_whitespace) {
            Some((first, rest)) if first.chars().all(|c| c.is_ascii_digit()) => {
                (first, rest.trim())
            }
            _ if line.chars().all(|c| c.is_ascii_digit()) => (line, ""),
            _ => ("", line),
        };
        let (command, arguments) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        Some(match self.execute(command, arguments.trim()) {
            Ok(answer) if answer.is_empty() => format!("={id}"),
            Ok(answer) => format!("={id} {answer}"),
            Err(error) => format!("?{id} {}", OneLine(&error)),
        })
    }

    fn execute(&mut self, command: &str, arguments: &str) -> Result<String, String> {
        match command {
            "protocol_version" => Ok("2".to_string()),
            "name" => Ok("Grand Maître".to_string()),
            "version" => Ok(env!("CARGO_PKG_VERSION").to_string()),
            "known_command" => Ok(COMMANDS.contains(&arguments).to_string()),
            "list_commands" => Ok(COMMANDS.join("\n")),
            "quit" => {
                self.quit = true;
                Ok(String::new())
            }
            "clear_board" => {
                self.set_position(self.game.initial_state());
                Ok(String::new())
            }
            "play" => self.play(arguments),
            "genmove" => self.genmove(arguments),
            "undo" => match self.history.pop() {
                Some((previous, _)) => {
                    self.state = previous;
                    Ok(String::new())
                }
                None => Err("cannot undo".to_string()),
            },
            "showboard" => Ok(format!("\n{}", self.game.render(&self.state).trim_end())),
            "gm-game" => {
                if arguments == G::NAME {
                    self.set_position(self.game.initial_state());
                    Ok(String::new())
                } else if GAME_NAMES.contains(&arguments) {
                    self.switch_to = Some(arguments.to_string());
                    Ok(String::new())
                } else {
                    Err(format!(
                        "unknown game '{arguments}': expected {}",
                        GAME_NAMES.join(", ")
                    ))
                }
            }
            "gm-rules" | "gm-layout" => {
                let game = G::with_rules(arguments).map_err(|e| format!("{e:#}"))?;
                // A network is built for a board's size: another size loads
                // it again (or says why it cannot), and so does a stand-in.
                let guide = if game.spec() == self.game.spec() {
                    None
                } else {
                    Some(Guide::of(&self.model, &game).map_err(|e| format!("{e:#}"))?)
                };
                let stand_in = match &self.stand_in {
                    Some((text, _)) => {
                        let agent = PlayerSpec::parse(text)
                            .and_then(|spec| spec.prepare(&game))
                            .and_then(|prepared| prepared.build(&game, 1))
                            .map_err(|e| format!("{e:#}"))?;
                        Some((text.clone(), agent))
                    }
                    None => None,
                };
                match guide {
                    Some(guide) => {
                        self.agent.set_evaluator(guide.evaluator.clone());
                        self.evaluator = guide.evaluator;
                        self.calibrations = guide.calibrations;
                        self.book = guide.book;
                    }
                    None => self.book = registry::book(&game),
                }
                self.stand_in = stand_in;
                self.game = game;
                self.guard = None;
                // The kept tree holds the moves of the old rules.
                self.agent.clear_tree();
                self.set_position(self.game.initial_state());
                Ok(String::new())
            }
            "gm-position" => {
                let state = self
                    .game
                    .parse_state(arguments)
                    .map_err(|e| e.to_string())?;
                self.set_position(state);
                Ok(String::new())
            }
            "gm-sims" | "gm-level" if self.stand_in.is_some() => Err(format!(
                "{command} sets the Grand Maître's search, and this session plays as {}",
                self.stand_in.as_ref().map_or("", |(name, _)| name.as_str())
            )),
            "gm-sims" => {
                let simulations = positive(arguments, "simulations")?;
                let mut config = self.agent.config().clone();
                config.simulations = simulations;
                self.agent.set_config(config);
                Ok(String::new())
            }
            "gm-level" => {
                let level = Level::get(positive(arguments, "level")?)
                    .map_err(|_| "level must be between 1 and 10".to_string())?;
                let setting = level.setting(&self.game);
                let config = SearchConfig {
                    leaves_per_batch: self.agent.config().leaves_per_batch,
                    ..setting.config
                };
                self.agent.set_config(config);
                self.agent.set_choice(setting.choice);
                self.agent.set_noise(setting.noise);
                Ok(String::new())
            }
            "gm-players" if arguments.is_empty() => Ok(self.seats.text(&self.game)),
            "gm-players" => {
                self.seats = Seats::parse(&self.game, arguments)?;
                Ok(String::new())
            }
            "gm-winprob" => self.winprob(),
            _ => Err("unknown command".to_string()),
        }
    }

    fn set_position(&mut self, state: G::State) {
        self.state = state;
        self.history.clear();
    }

    fn colour(&self, name: &str) -> Result<Player, String> {
        self.game
            .player_named(name)
            .ok_or_else(|| format!("invalid color '{name}'"))
    }

    fn play(&mut self, arguments: &str) -> Result<String, String> {
        let (colour, text) = arguments
            .split_once(char::is_whitespace)
            .ok_or("syntax error: play <color> <move>")?;
        let player = self.colour(colour)?;
        if player != self.game.current_player(&self.state)
            || self.game.outcome(&self.state).is_some()
        {
            return Err("illegal move".to_string());
        }
        let action = self
            .game
            .parse_action(&self.state, text.trim())
            .map_err(|_| "illegal move".to_string())?;
        self.apply(action);
        Ok(String::new())
    }

    fn genmove(&mut self, arguments: &str) -> Result<String, String> {
        let player = self.colour(arguments)?;
        if self.game.outcome(&self.state).is_some() {
            return Err("game is over".to_string());
        }
        if player != self.game.current_player(&self.state) {
            return Err(format!("it is not {arguments}'s turn"));
        }
        let booked = self
            .book
            .as_ref()
            .filter(|_| self.agent.plays_its_best())
            .and_then(|book| book.best_move(&self.game, &self.state));
        let action = match (&mut self.stand_in, booked) {
            (Some((_, agent)), _) => agent.select(&self.game, &self.state),
            (None, Some(action)) => action,
            (None, None) => {
                let searched = self.agent.select(&self.game, &self.state);
                if self.agent.plays_its_best() && self.game.guard_nodes() > 0 {
                    self.guard
                        .get_or_insert_with(|| {
                            Guard::new(self.game.clone(), self.game.guard_nodes())
                        })
                        .check_search(&self.game, &self.state, searched, self.agent.last_result())
                        .action
                } else {
                    searched
                }
            }
        };
        let text = self.game.format_action(&self.state, action);
        self.apply(action);
        Ok(text)
    }

    fn apply(&mut self, action: Action) {
        self.agent.observe(&self.game, &self.state, action);
        if let Some((_, agent)) = &mut self.stand_in {
            agent.observe(&self.game, &self.state, action);
        }
        let next = self.game.play(&self.state, action).expect("checked legal");
        let previous = std::mem::replace(&mut self.state, next);
        self.history.push((previous, action));
    }

    /// The bar for the session's seats: P(first player wins), P(draw),
    /// P(second player wins), then what is proven if something is, as
    /// `winprob` gives it.
    fn winprob(&mut self) -> Result<String, String> {
        let shown = bar::bar(
            &self.game,
            &self.state,
            &self.evaluator,
            self.calibrations.for_rules(self.game.rules()),
            self.book.as_deref(),
            &self.seats,
            &self.history,
        );
        let ForPlayers([first, draw, second]) = shown.wdl;
        let proven = match shown.proven {
            Some(index) => format!(" proven {}", registry::outcome_names(&self.game)[index]),
            None => String::new(),
        };
        Ok(format!("{first:.4} {draw:.4} {second:.4}{proven}"))
    }
}

fn positive(text: &str, what: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{what} must be a positive whole number")),
    }
}
