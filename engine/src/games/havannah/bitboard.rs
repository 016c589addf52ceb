//! Sets of cells as 384-bit bitboards.
//!
//! The board's `(2n − 1)²` grid is stored row by row with one spare column:
//! cell `(x, y)` is bit `y × width + x` with `width = 2n`. The spare column
//! (and every grid cell off the hexagon) is never set in a masked result, so
//! the six neighbour shifts (±1, ±width, ±(width + 1)) never wrap from one
//! row into the next. 384 bits hold the grid up to base 10 (19 rows of 20).

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

/// Number of 64-bit words in a bitboard.
pub const LIMBS: usize = 6;
/// Number of bits in a bitboard.
pub const BITS: usize = LIMBS * 64;

/// A set of bit indices in `0..BITS`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bitboard(pub(crate) [u64; LIMBS]);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard([0; LIMBS]);

    /// The set holding `bit` alone.
    #[inline]
    pub fn single(bit: usize) -> Bitboard {
        let mut board = Bitboard::EMPTY;
        board.insert(bit);
        board
    }

    /// Whether `bit` is in the set.
    #[inline]
    pub fn contains(&self, bit: usize) -> bool {
        self.0[bit / 64] >> (bit % 64) & 1 != 0
    }

    /// Adds `bit`.
    #[inline]
    pub fn insert(&mut self, bit: usize) {
        self.0[bit / 64] |= 1 << (bit % 64);
    }

    /// Removes `bit`.
    #[inline]
    pub fn remove(&mut self, bit: usize) {
        self.0[bit / 64] &= !(1 << (bit % 64));
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().fold(0, |all, &word| all | word) == 0
    }

    /// Whether the two sets are equal (a branch-free comparison for the
    /// flood loops).
    #[inline]
    pub fn same_as(&self, other: Bitboard) -> bool {
        self.0
            .iter()
            .zip(other.0)
            .fold(0, |diff, (a, b)| diff | (a ^ b))
            == 0
    }

    /// Whether the two sets share a bit.
    #[inline]
    pub fn intersects(&self, other: Bitboard) -> bool {
        !(*self & other).is_empty()
    }

    /// Number of bits in the set.
    #[inline]
    pub fn count(&self) -> u32 {
        self.0.iter().map(|word| word.count_ones()).sum()
    }

    /// The lowest bit of the set, if any.
    #[inline]
    pub fn first(&self) -> Option<usize> {
        self.0
            .iter()
            .position(|&word| word != 0)
            .map(|limb| limb * 64 + self.0[limb].trailing_zeros() as usize)
    }

    /// The bits of `self` that are not in `other`.
    #[inline]
    pub fn without(self, other: Bitboard) -> Bitboard {
        let mut result = self;
        for (word, other) in result.0.iter_mut().zip(other.0) {
            *word &= !other;
        }
        result
    }

    /// Every bit moved up by `shift` (1 to 63); bits past the top are lost.
    #[inline]
    pub fn shifted_up(self, shift: u32) -> Bitboard {
        debug_assert!((1..64).contains(&shift));
        let words = self.0;
        Bitboard(std::array::from_fn(|limb| {
            let carry = if limb > 0 {
                words[limb - 1] >> (64 - shift)
            } else {
                0
            };
            (words[limb] << shift) | carry
        }))
    }

    /// Every bit moved down by `shift` (1 to 63); bits below 0 are lost.
    #[inline]
    pub fn shifted_down(self, shift: u32) -> Bitboard {
        debug_assert!((1..64).contains(&shift));
        let words = self.0;
        Bitboard(std::array::from_fn(|limb| {
            let carry = if limb + 1 < LIMBS {
                words[limb + 1] << (64 - shift)
            } else {
                0
            };
            (words[limb] >> shift) | carry
        }))
    }

    /// The bits in increasing order.
    pub fn iter(&self) -> Bits {
        Bits {
            words: self.0,
            limb: 0,
        }
    }
}

/// The bits of a [`Bitboard`], lowest first.
#[derive(Clone, Debug)]
pub struct Bits {
    words: [u64; LIMBS],
    limb: usize,
}

impl Iterator for Bits {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.limb < LIMBS {
            let word = self.words[self.limb];
            if word != 0 {
                self.words[self.limb] = word & (word - 1);
                return Some(self.limb * 64 + word.trailing_zeros() as usize);
            }
            self.limb += 1;
        }
        None
    }
}

impl BitAnd for Bitboard {
    type Output = Bitboard;

    #[inline]
    fn bitand(mut self, other: Bitboard) -> Bitboard {
        self &= other;
        self
    }
}

impl BitAndAssign for Bitboard {
    #[inline]
    fn bitand_assign(&mut self, other: Bitboard) {
        for (word, other) in self.0.iter_mut().zip(other.0) {
            *word &= other;
        }
    }
}

impl BitOr for Bitboard {
    type Output = Bitboard;

    #[inline]
    fn bitor(mut self, other: Bitboard) -> Bitboard {
        self |= other;
        self
    }
}

impl BitOrAssign for Bitboard {
    #[inline]
    fn bitor_assign(&mut self, other: Bitboard) {
        for (word, other) in self.0.iter_mut().zip(other.0) {
            *word |= other;
        }
    }
}

impl Not for Bitboard {
    type Output = Bitboard;

    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(self.0.map(|word| !word))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_carry_across_words() {
        let board = Bitboard::single(63) | Bitboard::single(200);
        let up = board.shifted_up(21);
        assert_eq!(up.iter().collect::<Vec<_>>(), vec![84, 221]);
        assert_eq!(up.shifted_down(21), board);
        assert_eq!(Bitboard::single(BITS - 1).shifted_up(1), Bitboard::EMPTY);
        assert_eq!(Bitboard::single(0).shifted_down(1), Bitboard::EMPTY);
    }

    #[test]
    fn set_operations() {
        let mut board = Bitboard::EMPTY;
        for bit in [5, 64, 300] {
            board.insert(bit);
        }
        assert_eq!(board.count(), 3);
        assert_eq!(board.first(), Some(5));
        assert!(board.contains(64) && !board.contains(65));
        board.remove(5);
        assert_eq!(board.first(), Some(64));
        assert_eq!(
            board
                .without(Bitboard::single(64))
                .iter()
                .collect::<Vec<_>>(),
            vec![300]
        );
        assert!(board.intersects(Bitboard::single(300)));
        assert_eq!((!Bitboard::EMPTY).count(), BITS as u32);
    }
}
