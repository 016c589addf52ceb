//! Who plays each side of a game, as the bar reads it: a playing level
//! (1–10, [`crate::levels`]) or a human of unknown strength. The bar is
//! the probability of each outcome given the position *and* its seats: a
//! beginner holding a won position converts it less often than level 10.
//!
//! Seats are written with the game's colours: `light=10 dark=human`
//! (Heraldis), `white=3,black=7` (Halma); a side left out is level 10, and
//! [`Seats::DEFAULT`] (level 10 on both sides, the Grand Maître's own
//! reading) is what every interface uses when it is told nothing.

use std::fmt;

use crate::game::{Notation, Player};
use crate::levels::{ADVICE_LEVEL, Level};

/// Who plays one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seat {
    /// A playing level, 1 to 10.
    Level(u32),
    /// A person whose strength the bar does not know: its belief over the
    /// levels stands for them ([`HUMAN_LEVELS`]).
    Human,
}

/// The levels a human may play like, in the bar's belief: 1 to 9 (level
/// 10 is the engine at full strength, no person's play).
pub const HUMAN_LEVELS: std::ops::RangeInclusive<u32> = 1..=9;

impl Seat {
    /// `10`, `level:10`, `human`: the seat `text` names, or a one-line
    /// error.
    pub fn parse(text: &str) -> Result<Seat, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("human") {
            return Ok(Seat::Human);
        }
        let number = text
            .strip_prefix("level:")
            .unwrap_or(text)
            .parse::<u32>()
            .map_err(|_| format!("'{text}' is no seat: expected a level 1-10 or human"))?;
        Level::get(number)?;
        Ok(Seat::Level(number))
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Seat::Level(number) => write!(f, "{number}"),
            Seat::Human => write!(f, "human"),
        }
    }
}

/// The seats of a game: the first player's, then the second's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Seats(pub [Seat; 2]);

impl Default for Seats {
    fn default() -> Seats {
        Seats::DEFAULT
    }
}

impl Seats {
    /// Level 10 on both sides: the bar when nobody says who plays.
    pub const DEFAULT: Seats = Seats([Seat::Level(ADVICE_LEVEL); 2]);

    /// The seat of `player`.
    pub fn of(&self, player: Player) -> Seat {
        self.0[player.index()]
    }

    /// `light=10 dark=human` (or with commas) in `game`'s colours, either
    /// side left out being level 10; a one-line error names what is wrong.
    pub fn parse<G: Notation>(game: &G, text: &str) -> Result<Seats, String> {
        let mut seats = Seats::DEFAULT;
        let mut given = [false; 2];
        for item in text.split([',', ' ']).filter(|item| !item.is_empty()) {
            let (name, seat) = item.split_once('=').ok_or_else(|| {
                format!(
                    "'{item}' is no seat: expected {}=LEVEL or {}=human",
                    game.player_name(Player::First),
                    game.player_name(Player::Second)
                )
            })?;
            let player = game.player_named(name).ok_or_else(|| {
                format!(
                    "'{name}' is not a side of this game: {} or {}",
                    game.player_name(Player::First),
                    game.player_name(Player::Second)
                )
            })?;
            if std::mem::replace(&mut given[player.index()], true) {
                return Err(format!("{} is seated twice", game.player_name(player)));
            }
            seats.0[player.index()] = Seat::parse(seat)?;
        }
        Ok(seats)
    }

    /// `light=10 dark=human`, in `game`'s colours (what [`Seats::parse`]
    /// reads back).
    pub fn text<G: Notation>(&self, game: &G) -> String {
        format!(
            "{}={} {}={}",
            game.player_name(Player::First),
            self.0[0],
            game.player_name(Player::Second),
            self.0[1]
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heraldis::Heraldis;

    #[test]
    fn seats_read_the_games_colours_and_write_what_they_read() {
        let game = Heraldis::default();
        let seats = Seats::parse(&game, "light=3,dark=human").expect("seats");
        assert_eq!(seats, Seats([Seat::Level(3), Seat::Human]));
        assert_eq!(Seats::parse(&game, &seats.text(&game)), Ok(seats));
        // A side left out is level 10; first letters name the colours.
        assert_eq!(
            Seats::parse(&game, "D=level:7"),
            Ok(Seats([Seat::Level(10), Seat::Level(7)]))
        );
        assert_eq!(Seats::parse(&game, ""), Ok(Seats::DEFAULT));
    }

    #[test]
    fn bad_seats_are_refused_with_a_reason() {
        let game = Heraldis::default();
        for bad in [
            "white=3",
            "light=11",
            "light=0",
            "light=strong",
            "light",
            "light=3 light=4",
        ] {
            assert!(Seats::parse(&game, bad).is_err(), "{bad}");
        }
    }
}
