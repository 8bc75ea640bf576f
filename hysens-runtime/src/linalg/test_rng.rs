//! A small deterministic generator for the unit tests (SplitMix64, Steele, Lea & Flood 2014):
//! reproducible random matrices, seeds and points without a dependency.

/// SplitMix64, mapped to `[-1, 1)`.
pub(crate) struct Rng(pub u64);

impl Rng {
    /// The next value, uniform in `[-1, 1)`.
    pub(crate) fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}
