//! The model of the quickstart: Serban & Recuero 2019, Example 5.1 (Eq. 39), as a
//! `#[hybrid_model]`. `x' = 4 − x` in mode A while `h = x³ − 5x² + 7x − p ≤ 0`,
//! `x' = 10 − 2x` in mode B while `h > 0`; the switch A → B fires when `h` rises through zero,
//! B → A when it falls; `x` is continuous; the cost is `G = ∫ x dt`.
//!
//! The macro-written Example 5.1 exists only here: the facade's tests and benchmarks (and
//! `bench/peers`) include this file by `#[path]` through `tests/support/models.rs`, and
//! `examples/reproduce` directly.

use hysens::hybrid_model;

/// Serban & Recuero 2019, Example 5.1 (Eq. 39).
#[hybrid_model]
pub mod ex51 {
    /// The state.
    #[states]
    pub struct X {
        /// The scalar state `x`.
        pub x: f64,
    }

    /// The parameter.
    #[params]
    pub struct P {
        /// The switching threshold `p`.
        pub p: f64,
    }

    /// The switching function `x³ − 5x² + 7x − p`.
    fn h(x: &X, p: &P) -> f64 {
        x.x.powi(3) - 5.0 * x.x.powi(2) + 7.0 * x.x - p.p
    }

    /// Mode A, while `h ≤ 0` (and first if `h < 0` at the start).
    #[mode(initial_if(to_b, negative))]
    fn a(x: &X) -> X {
        X { x: 4.0 - x.x }
    }

    /// Mode B, while `h > 0` (and first if `h > 0` at the start).
    #[mode(initial_if(to_a, positive))]
    fn b(x: &X) -> X {
        X {
            x: 10.0 - 2.0 * x.x,
        }
    }

    /// `h` rises through zero: A → B.
    #[guard(a -> b, rising)]
    fn to_b(x: &X, p: &P) -> f64 {
        h(x, p)
    }

    /// `h` falls through zero: B → A.
    #[guard(b -> a, falling)]
    fn to_a(x: &X, p: &P) -> f64 {
        h(x, p)
    }

    /// `G = ∫ x dt`.
    #[cost(integral)]
    fn area(x: &X) -> f64 {
        x.x
    }
}
