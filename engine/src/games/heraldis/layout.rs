//! Board layouts: which cells are Founding Houses and which are Alliances.
//!
//! A layout is data, never hard-wired: 25 tokens, rank 5 first, files a→e,
//! ranks separated by `/`; a one-letter token is a House, a two-letter token
//! an Alliance of two distinct symbols (letter order does not matter).

use std::fmt;
use std::str::FromStr;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use super::board::{self, Bitboard, CELLS, SIZE, bit, cell_at};
use crate::game::ParseError;

/// The five heraldic symbols, by their French initials.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Symbol {
    /// `L`, Loup (Wolf).
    Loup,
    /// `A`, Aigle (Eagle).
    Aigle,
    /// `O`, Ours (Bear).
    Ours,
    /// `C`, Cerf (Stag).
    Cerf,
    /// `S`, Sanglier (Boar).
    Sanglier,
}

impl Symbol {
    /// All symbols, in index order.
    pub const ALL: [Symbol; 5] = [
        Symbol::Loup,
        Symbol::Aigle,
        Symbol::Ours,
        Symbol::Cerf,
        Symbol::Sanglier,
    ];

    /// Index in `0..5`, the order of [`Symbol::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The French initial.
    pub fn letter(self) -> char {
        match self {
            Symbol::Loup => 'L',
            Symbol::Aigle => 'A',
            Symbol::Ours => 'O',
            Symbol::Cerf => 'C',
            Symbol::Sanglier => 'S',
        }
    }

    /// The symbol of a French initial.
    pub fn from_letter(letter: char) -> Option<Symbol> {
        Symbol::ALL.into_iter().find(|s| s.letter() == letter)
    }

    /// Position of the letter when an Alliance is written: `L O A C S`, the
    /// order in which the default layout writes its Alliances.
    fn writing_rank(self) -> u8 {
        match self {
            Symbol::Loup => 0,
            Symbol::Ours => 1,
            Symbol::Aigle => 2,
            Symbol::Cerf => 3,
            Symbol::Sanglier => 4,
        }
    }
}

/// What a cell of the layout is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Site {
    /// A Founding House of one symbol; its pieces can never be captured.
    House(Symbol),
    /// An Alliance of two distinct symbols, stored in writing order.
    Alliance(Symbol, Symbol),
}

impl Site {
    /// An Alliance of two symbols, in either order.
    pub fn alliance(first: Symbol, second: Symbol) -> Site {
        if first.writing_rank() <= second.writing_rank() {
            Site::Alliance(first, second)
        } else {
            Site::Alliance(second, first)
        }
    }

    /// Whether the cell carries `symbol`.
    pub fn has_symbol(self, symbol: Symbol) -> bool {
        match self {
            Site::House(s) => s == symbol,
            Site::Alliance(a, b) => a == symbol || b == symbol,
        }
    }

    fn token(self) -> String {
        match self {
            Site::House(s) => s.letter().to_string(),
            Site::Alliance(a, b) => format!("{}{}", a.letter(), b.letter()),
        }
    }
}

/// The default layout (a stand-in for the app's unpublished one).
pub const DEFAULT_LAYOUT: &str =
    "A S OS CS AC / LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S A";

/// A valid layout: exactly 10 Houses, each symbol on two of them, and 15
/// Alliances of two distinct symbols.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    /// `sites[cell]`, cells indexed as in [`board`].
    sites: [Site; CELLS],
}

impl Layout {
    /// The default layout.
    pub fn default_layout() -> Layout {
        DEFAULT_LAYOUT.parse().expect("the default layout is valid")
    }

    /// Reads a layout given on a command line: `default`, `random:SEED` (the
    /// layout [`Layout::random`] draws from that seed) or the notation.
    pub fn from_spec(spec: &str) -> Result<Layout, ParseError> {
        let spec = spec.trim();
        if spec == "default" {
            return Ok(Layout::default_layout());
        }
        if let Some(seed) = spec.strip_prefix("random:") {
            let seed: u64 = seed.parse().map_err(|_| {
                ParseError::new("layout", spec, "expected random:SEED with a number as SEED")
            })?;
            return Ok(Layout::random(&mut StdRng::seed_from_u64(seed)));
        }
        spec.parse()
    }

    /// Builds a layout from its 25 sites, checking the rules of layouts.
    pub fn from_sites(sites: [Site; CELLS]) -> Result<Layout, String> {
        let houses = sites.iter().filter(|s| matches!(s, Site::House(_))).count();
        if houses != 10 {
            return Err(format!("expected exactly 10 Houses, found {houses}"));
        }
        for symbol in Symbol::ALL {
            let count = sites.iter().filter(|&&s| s == Site::House(symbol)).count();
            if count != 2 {
                return Err(format!(
                    "symbol {} is on {count} Houses, expected 2",
                    symbol.letter()
                ));
            }
        }
        for site in &sites {
            if let Site::Alliance(a, b) = site
                && a == b
            {
                return Err(format!(
                    "Alliance {} needs two distinct symbols",
                    site.token()
                ));
            }
        }
        Ok(Layout { sites })
    }

    /// A uniformly shuffled layout: the 10 Houses on random cells, each
    /// Alliance a random pair of distinct symbols.
    pub fn random(rng: &mut impl Rng) -> Layout {
        let mut houses: Vec<Site> = Symbol::ALL
            .iter()
            .flat_map(|&s| [Site::House(s), Site::House(s)])
            .collect();
        let mut sites = [Site::House(Symbol::Loup); CELLS];
        let mut cells: Vec<usize> = (0..CELLS).collect();
        cells.shuffle(rng);
        houses.shuffle(rng);
        for (i, &cell) in cells.iter().enumerate() {
            sites[cell] = match houses.get(i) {
                Some(&house) => house,
                None => {
                    let first = rng.random_range(0..5);
                    let second = (first + rng.random_range(1..5)) % 5;
                    Site::alliance(Symbol::ALL[first], Symbol::ALL[second])
                }
            };
        }
        Layout::from_sites(sites).expect("a shuffled layout keeps the rules of layouts")
    }

    /// The site of a cell.
    pub fn site(&self, cell: usize) -> Site {
        self.sites[cell]
    }

    /// Cells that are Houses of `symbol`.
    pub fn houses_of(&self, symbol: Symbol) -> Bitboard {
        self.cells_where(|site| site == Site::House(symbol))
    }

    /// Cells that are Houses.
    pub fn houses(&self) -> Bitboard {
        self.cells_where(|site| matches!(site, Site::House(_)))
    }

    /// Cells that are Alliances.
    pub fn alliances(&self) -> Bitboard {
        board::FULL & !self.houses()
    }

    /// Cells that carry `symbol`, as a House or in an Alliance.
    pub fn cells_with_symbol(&self, symbol: Symbol) -> Bitboard {
        self.cells_where(|site| site.has_symbol(symbol))
    }

    fn cells_where(&self, predicate: impl Fn(Site) -> bool) -> Bitboard {
        (0..CELLS)
            .filter(|&cell| predicate(self.sites[cell]))
            .map(bit)
            .sum()
    }

    /// The layout seen through one of the 8 symmetries of the square.
    pub fn transformed(&self, symmetry: usize) -> Layout {
        let mut sites = self.sites;
        for (cell, &site) in self.sites.iter().enumerate() {
            sites[usize::from(board::CELL_MAPS[symmetry][cell])] = site;
        }
        Layout { sites }
    }
}

impl Default for Layout {
    fn default() -> Layout {
        Layout::default_layout()
    }
}

impl FromStr for Layout {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Layout, ParseError> {
        let error = |reason: String| ParseError::new("layout", text, reason);
        let ranks: Vec<&str> = text.split('/').collect();
        if ranks.len() != SIZE {
            return Err(error(format!(
                "expected 5 ranks separated by '/', found {}",
                ranks.len()
            )));
        }
        let mut sites = [Site::House(Symbol::Loup); CELLS];
        for (row, rank_text) in ranks.iter().enumerate() {
            let rank = SIZE - 1 - row;
            let tokens: Vec<&str> = rank_text.split_whitespace().collect();
            if tokens.len() != SIZE {
                return Err(error(format!(
                    "rank {} has {} cells, expected 5",
                    rank + 1,
                    tokens.len()
                )));
            }
            for (file, token) in tokens.iter().enumerate() {
                let symbols: Option<Vec<Symbol>> = token.chars().map(Symbol::from_letter).collect();
                let site = match symbols.as_deref() {
                    Some(&[house]) => Site::House(house),
                    Some(&[first, second]) if first != second => Site::alliance(first, second),
                    Some(&[_, _]) => {
                        return Err(error(format!(
                            "Alliance {token} needs two distinct symbols"
                        )));
                    }
                    _ => {
                        return Err(error(format!(
                            "bad cell '{token}': expected one or two of the letters L A O C S"
                        )));
                    }
                };
                sites[cell_at(file, rank)] = site;
            }
        }
        Layout::from_sites(sites).map_err(error)
    }
}

impl fmt::Display for Layout {
    /// The layout in its notation, ranks separated by ` / `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..SIZE).rev() {
            if rank != SIZE - 1 {
                f.write_str(" / ")?;
            }
            let tokens: Vec<String> = (0..SIZE)
                .map(|file| self.sites[cell_at(file, rank)].token())
                .collect();
            f.write_str(&tokens.join(" "))?;
        }
        Ok(())
    }
}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Layout({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_layout_prints_as_the_rules_write_it() {
        assert_eq!(Layout::default_layout().to_string(), DEFAULT_LAYOUT);
    }

    #[test]
    fn the_default_layout_is_symmetric_under_a_half_turn() {
        let layout = Layout::default_layout();
        assert_eq!(layout.transformed(2), layout);
        assert_ne!(layout.transformed(1), layout);
    }

    #[test]
    fn the_centre_of_the_default_layout_is_ours_and_cerf() {
        let layout = Layout::default_layout();
        let centre = board::parse_cell("c3").expect("cell");
        assert_eq!(
            layout.site(centre),
            Site::alliance(Symbol::Cerf, Symbol::Ours)
        );
        assert_eq!(layout.houses().count_ones(), 10);
        assert_eq!(layout.alliances().count_ones(), 15);
    }

    #[test]
    fn alliance_letters_may_come_in_either_order() {
        let swapped = DEFAULT_LAYOUT.replace("OS", "SO");
        assert_eq!(swapped.parse::<Layout>(), Ok(Layout::default_layout()));
    }

    #[test]
    fn random_layouts_are_valid_and_round_trip() {
        let mut rng = StdRng::seed_from_u64(7);
        for _ in 0..200 {
            let layout = Layout::random(&mut rng);
            assert_eq!(layout.to_string().parse::<Layout>(), Ok(layout.clone()));
            for symbol in Symbol::ALL {
                assert_eq!(layout.houses_of(symbol).count_ones(), 2);
            }
        }
    }

    #[test]
    fn layout_specs_name_the_default_a_seed_or_the_notation() {
        assert_eq!(Layout::from_spec("default"), Ok(Layout::default_layout()));
        assert_eq!(
            Layout::from_spec(DEFAULT_LAYOUT),
            Ok(Layout::default_layout())
        );
        assert_eq!(Layout::from_spec("random:3"), Layout::from_spec("random:3"));
        assert_ne!(Layout::from_spec("random:3"), Layout::from_spec("random:4"));
        let error = Layout::from_spec("random:x")
            .expect_err("bad seed")
            .to_string();
        assert_eq!(
            error,
            "invalid layout 'random:x': expected random:SEED with a number as SEED"
        );
    }

    #[test]
    fn bad_layouts_name_their_fault() {
        let cases = [
            ("A S OS CS AC / LS LA O C OA", "expected 5 ranks"),
            (
                "A S OS CS / LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S A",
                "rank 5 has 4 cells",
            ),
            (
                "A S OS CS AX / LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S A",
                "bad cell 'AX'",
            ),
            (
                "A S OS CS AAC / LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S A",
                "bad cell 'AAC'",
            ),
            (
                "A S OS CS AA / LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S A",
                "Alliance AA needs two distinct symbols",
            ),
            (
                "A S OS CS A / LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S A",
                "expected exactly 10 Houses, found 11",
            ),
            (
                "A S OS CS AC / LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S L",
                "symbol L is on 3 Houses",
            ),
        ];
        for (text, expected) in cases {
            let error = text.parse::<Layout>().expect_err(text).to_string();
            assert!(error.contains(expected), "{error}");
            assert!(!error.contains('\n'));
        }
    }
}
