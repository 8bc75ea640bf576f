//! The model of the `robertson` example: Robertson's chemical kinetics (Robertson 1966; Hairer
//! & Wanner, *Solving ODEs II*, §IV.1), the classic stiff test problem.
//!
//! Shared by the `reproduce` example and the facade's tests, benchmarks and
//! `bench/peers`, which include this file by `#[path]` through `tests/support/models.rs`.

use hysens::hybrid_model;

/// Three species, three reactions: `A → B` (rate constant `k1`), `2B → B + C` (`k2`) and
/// `B + C → A + C` (`k3`); `y1, y2, y3` are the concentrations of `A, B, C`. The rates span
/// nine orders of magnitude, which makes the system stiff. Every reaction conserves the
/// total, so `y1 + y2 + y3` stays at its initial value.
#[hybrid_model]
pub mod robertson {
    /// The concentrations (dimensionless: fractions of the initial amount of `A`).
    #[states]
    pub struct X {
        /// Species `A`.
        pub y1: f64,
        /// Species `B`, the fast intermediate (at most about 3.7e-5).
        pub y2: f64,
        /// Species `C`.
        pub y3: f64,
    }

    /// The rate constants.
    #[params]
    pub struct P {
        /// `A → B` (1/s).
        pub k1: f64,
        /// `2B → B + C` (1/s).
        pub k2: f64,
        /// `B + C → A + C` (1/s).
        pub k3: f64,
    }

    /// The kinetics: the only mode.
    #[mode(initial)]
    fn kinetics(x: &X, p: &P) -> X {
        X {
            y1: -p.k1 * x.y1 + p.k3 * x.y2 * x.y3,
            y2: p.k1 * x.y1 - p.k3 * x.y2 * x.y3 - p.k2 * x.y2.powi(2),
            y3: p.k2 * x.y2.powi(2),
        }
    }
}

/// The classic rate constants `k = (0.04, 3e7, 1e4)`, the setting of the literature's values
/// and of the references in `reference.rs` (with [`CLASSIC_Y0`]); the benchmarks and the tests
/// that solve the classic problem take them from here (through `tests/support/models.rs`).
pub const CLASSIC_RATES: robertson::P = robertson::P {
    k1: 0.04,
    k2: 3e7,
    k3: 1e4,
};

/// The classic initial concentrations `y(0) = (1, 0, 0)`: all `A`.
pub const CLASSIC_Y0: robertson::X = robertson::X {
    y1: 1.0,
    y2: 0.0,
    y3: 0.0,
};
