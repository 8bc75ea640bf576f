//! The memory toy, the project's own test problem (in no paper; defined here): a mode that reads
//! the memory and a switch whose time moves with a parameter, so the memory's sensitivity must
//! be the total derivative `s⁺ + ẏ⁺ τ` at the switch — erratum of Serban & Recuero 2019, §4.1,
//! Eq. 25, which sets `s* = s⁺`: read literally it gives `dG/dp2 = −1.26424`, which is wrong.
//!
//! `y1' = 1`, `y2' = −p1 (y2 − y2*) + 1` from `y(0) = 0` (the first mode's memory is the initial
//! state, so `y2* = 0`), the switch when `y1 − p2` rises through zero (at `t1 = p2`) with `y`
//! continuous, after which `y2*` is `y2(t1)`; the cost `G = ∫₀³ y2 dt`.
//!
//! The model exists only here: the facade's tests include this file by `#[path]` through
//! `tests/support/event_models.rs`.

use hysens::hybrid_model;

/// The memory toy (the project's own test problem; module docs).
#[hybrid_model]
pub mod memory_toy {
    /// The states.
    #[states]
    pub struct X {
        /// A clock, `y1 = t`.
        pub y1: f64,
        /// The state that relaxes towards its value at the last switch.
        pub y2: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// The relaxation rate.
        pub p1: f64,
        /// The switching threshold on `y1` (the switch time).
        pub p2: f64,
    }

    /// Before the switch: `y2` relaxes towards `y2* = y2(0)`.
    #[mode(initial)]
    fn before(x: &X, p: &P, m: &Memory) -> X {
        X {
            y1: 1.0,
            y2: -p.p1 * (x.y2 - m.y.y2) + 1.0,
        }
    }

    /// After the switch: the same law, with `y2* = y2(t1)`.
    #[mode]
    fn after(x: &X, p: &P, m: &Memory) -> X {
        X {
            y1: 1.0,
            y2: -p.p1 * (x.y2 - m.y.y2) + 1.0,
        }
    }

    /// `y1` reaches `p2`.
    #[guard(before -> after, rising)]
    fn threshold(x: &X, p: &P) -> f64 {
        x.y1 - p.p2
    }

    /// `G = ∫ y2 dt`.
    #[cost(integral)]
    fn area(x: &X) -> f64 {
        x.y2
    }
}
