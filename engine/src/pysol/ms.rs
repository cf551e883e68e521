//! PySolFC's linear congruential generator for small game numbers (`LCRandom31`,
//! the Microsoft C runtime's `rand`, kept for Windows FreeCell's numbering).
//!
//! Invariants: the state advances as `x = (x * 214013 + 2531011) mod 2^33` and a draw is
//! bits 16..31 of the new state masked to 15 bits (`(x >> 16) & 0x7fff`), which is
//! what PySolFC does for every seed below 2^31 (all its game numbers that use this
//! generator are below 32000). `below(n)` is `draw % n`, PySolFC's `randint(0, n - 1)`.

/// The generator of PySolFC game numbers 1..=31999.
#[derive(Clone, Debug)]
pub struct MsRandom {
    state: u64,
}

/// The state mask: PySolFC keeps 33 bits (bits above 31 never reach a draw).
const STATE_MASK: u64 = (1 << 33) - 1;

impl MsRandom {
    /// The generator seeded with a game number (below 2^31).
    pub fn new(seed: u32) -> MsRandom {
        debug_assert!(
            seed < 1 << 31,
            "seeds from 2^31 draw differently in PySolFC"
        );
        MsRandom {
            state: u64::from(seed),
        }
    }

    /// The next 15-bit draw.
    pub fn draw(&mut self) -> u32 {
        self.state = (self.state * 214_013 + 2_531_011) & STATE_MASK;
        ((self.state >> 16) & 0x7fff) as u32
    }

    /// A number in `0..n`: the draw modulo `n`, as PySolFC's `randint(0, n - 1)`.
    pub fn below(&mut self, n: usize) -> usize {
        self.draw() as usize % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_the_c_runtime_rand() {
        // The Microsoft C runtime's rand() after srand(1): 41, 18467, 6334, 26500.
        let mut g = MsRandom::new(1);
        let draws: Vec<u32> = (0..4).map(|_| g.draw()).collect();
        assert_eq!(draws, [41, 18467, 6334, 26500]);
    }
}
