//! Deterministic, well-spread sample points in a kernel's domain.
//!
//! A Kronecker sequence: coordinate `j` of point `k` is the fractional part of
//! `0.5 + (k + 1)·αⱼ` with `αⱼ = √pⱼ` for the `j`-th prime, scaled into the coordinate's
//! interval. The `αⱼ` are rationally independent, so the points fill the box evenly without
//! random seeds, and every run checks the same points.

/// The primes whose square roots give the sequence's directions, one per coordinate.
const PRIMES: [u32; 10] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29];

/// `count` points in the box `domain` (one interval per coordinate).
///
/// Panics for more coordinates than there are directions.
pub fn points(domain: &[(f64, f64)], count: usize) -> Vec<Vec<f64>> {
    assert!(
        domain.len() <= PRIMES.len(),
        "add primes for more coordinates"
    );
    (0..count)
        .map(|k| {
            domain
                .iter()
                .zip(PRIMES)
                .map(|(&(lo, hi), p)| {
                    let t = (0.5 + (k + 1) as f64 * f64::from(p).sqrt()).fract();
                    lo + t * (hi - lo)
                })
                .collect()
        })
        .collect()
}
