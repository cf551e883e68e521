//! Python's Mersenne Twister, as PySolFC draws from it for game numbers from 32000 on
//! (`random.Random(n)` of the standard library, through `pysol_cards.random.MTRandom`).
//!
//! Invariants, each as CPython's `_randommodule.c` does it:
//! - Seeding with an integer `n` is MT19937's `init_by_array` over the 32-bit words of
//!   `n`, least significant first (one word `0` for `n = 0`).
//! - `random()` is 53 bits from two outputs: `(a * 2^26 + b) / 2^53` with
//!   `a = out >> 5`, `b = out >> 6`.
//! - `below(n)` is `floor(random() * n)`, PySolFC's `randint(0, n - 1)` (its own, not
//!   Python's `randrange`, which draws differently).

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER: u32 = 0x8000_0000;
const LOWER: u32 = 0x7fff_ffff;

/// MT19937 seeded as CPython seeds it from an integer.
#[derive(Clone)]
pub struct PythonMt {
    state: [u32; N],
    index: usize,
}

impl std::fmt::Debug for PythonMt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // 624 words say nothing to a reader; where the stream stands does.
        f.debug_struct("PythonMt")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl PythonMt {
    /// `random.Random(seed)` of CPython, for a non-negative integer seed.
    pub fn new(seed: u128) -> PythonMt {
        let mut key = [0u32; 4];
        let mut words = 0;
        let mut rest = seed;
        while rest > 0 {
            key[words] = rest as u32;
            rest >>= 32;
            words += 1;
        }
        let mut mt = PythonMt::from_u32(19_650_218);
        mt.mix_in(&key[..words.max(1)]);
        mt
    }

    /// MT19937's `init_genrand`.
    fn from_u32(seed: u32) -> PythonMt {
        let mut state = [0u32; N];
        state[0] = seed;
        for i in 1..N {
            let prev = state[i - 1];
            state[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        PythonMt { state, index: N }
    }

    /// MT19937's `init_by_array` (after `init_genrand(19650218)`).
    fn mix_in(&mut self, key: &[u32]) {
        let mt = &mut self.state;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = mt[i - 1];
            mt[i] = (mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = mt[i - 1];
            mt[i] =
                (mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        self.index = N;
    }

    /// The next 32-bit output.
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    fn twist(&mut self) {
        let mt = &mut self.state;
        let mix = |upper: u32, lower: u32, far: u32| {
            let y = (upper & UPPER) | (lower & LOWER);
            far ^ (y >> 1) ^ if y & 1 == 1 { MATRIX_A } else { 0 }
        };
        for k in 0..N {
            mt[k] = mix(mt[k], mt[(k + 1) % N], mt[(k + M) % N]);
        }
        self.index = 0;
    }

    /// Python's `random()`: a float in `[0, 1)` with 53 random bits.
    pub fn random(&mut self) -> f64 {
        let a = self.next_u32() >> 5;
        let b = self.next_u32() >> 6;
        (f64::from(a) * 67_108_864.0 + f64::from(b)) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// A number in `0..n`: `floor(random() * n)`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.random() * n as f64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_match_cpython() {
        // python3 -c "import random; r = random.Random(0); print(r.getrandbits(32), r.random())"
        let mut g = PythonMt::new(0);
        assert_eq!(g.next_u32(), 3_626_764_237);
        let mut g = PythonMt::new(0);
        assert_eq!(g.random(), 0.844_421_851_525_048_1);
        // Seeds of several words: random.Random(2**64 + 5).random(), and 10**20.
        assert_eq!(PythonMt::new((1 << 64) + 5).random(), MT_2_64_PLUS_5);
        assert_eq!(
            PythonMt::new(100_000_000_000_000_000_000).random(),
            MT_10_20
        );
    }

    const MT_2_64_PLUS_5: f64 = 0.510_578_376_936_511_2;
    const MT_10_20: f64 = 0.018_195_028_987_988_637;
}
