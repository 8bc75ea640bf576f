//! The classic Robertson problem of `models.rs`: the initial state `(1, 0, 0)` and the rate
//! constants `(0.04, 3e7, 1e4)` of Robertson (1966), the settings of benchmark P3.
//!
//! Declared once so that the benchmark and the tests that solve the classic problem cannot
//! drift apart. Included by `#[path]` next to `models.rs` (as a sibling module of `models`).

use super::models::robertson;

/// The classic initial state: all mass in the first species.
pub const CLASSIC_Y0: robertson::X = robertson::X {
    y1: 1.0,
    y2: 0.0,
    y3: 0.0,
};

/// The classic rate constants `k1, k2, k3`.
pub const CLASSIC_RATES: robertson::P = robertson::P {
    k1: 0.04,
    k2: 3e7,
    k3: 1e4,
};
