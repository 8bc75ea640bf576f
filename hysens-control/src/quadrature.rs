//! Composite Simpson's rule, the quadrature of the filter's process-noise integral and of the
//! OCP's tracking integral: on `n` (even) equal sub-intervals of width `h`,
//! `∫ f ≈ h/3 (f_0 + 4 f_1 + 2 f_2 + … + 4 f_{n−1} + f_n)`, exact for cubics, error `O(h⁴)`.

/// Weight of node `k` of `0..=n` (without the factor `h/3`).
pub(crate) fn simpson_weight(k: usize, n: usize) -> f64 {
    match k {
        0 => 1.0,
        k if k == n => 1.0,
        k if k % 2 == 1 => 4.0,
        _ => 2.0,
    }
}
