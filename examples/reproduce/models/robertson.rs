//! Robertson's stiff chemical kinetics (Hairer & Wanner II, §IV.1, eq. (1.4)) with the rate
//! constants as parameters, so that forward sensitivities are taken with respect to them.
//!
//! Shared by `cargo run --example reproduce` (against the literature and reference values) and
//! the facade's tests, benchmarks and `bench/peers`, which include this file by `#[path]`
//! through `tests/support/models.rs`.

use hysens::hybrid_model;

/// Robertson's kinetics (benchmark problem P3).
#[hybrid_model]
pub mod robertson {
    /// Concentrations.
    #[states]
    pub struct X {
        /// Species 1.
        pub y1: f64,
        /// Species 2.
        pub y2: f64,
        /// Species 3.
        pub y3: f64,
    }
    /// Rate constants.
    #[params]
    pub struct P {
        /// k1.
        pub k1: f64,
        /// k2.
        pub k2: f64,
        /// k3.
        pub k3: f64,
    }
    #[mode(initial)]
    fn kinetics(x: &X, p: &P) -> X {
        X {
            y1: -p.k1 * x.y1 + p.k3 * x.y2 * x.y3,
            y2: p.k1 * x.y1 - p.k3 * x.y2 * x.y3 - p.k2 * x.y2.powi(2),
            y3: p.k2 * x.y2.powi(2),
        }
    }
}
