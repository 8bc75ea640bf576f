//! A switching surface in a crate that denies warnings and missing docs: the sliding mode,
//! its guards and `event_target` expand warning-free, and a solve slides along the wall.
#![deny(warnings, missing_docs)]

use hysens::prelude::*;

/// A wall `x = c` that both fields point at.
#[hybrid_model]
pub mod wall {
    /// The states.
    #[states]
    pub struct X {
        /// Across the wall.
        pub x: f64,
        /// Along it.
        pub y: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// The wall.
        pub c: f64,
    }

    /// Below the wall: towards it.
    #[mode(initial)]
    fn below() -> X {
        X { x: 1.0, y: 1.0 }
    }

    /// Above the wall: towards it too.
    #[mode]
    fn above() -> X {
        X { x: -0.5, y: 1.0 }
    }

    /// The wall.
    #[switching_surface(below, above)]
    fn wall(x: &X, p: &P) -> f64 {
        x.x - p.c
    }
}

fn main() {
    let solution = wall::Model
        .solver()
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 2.0, &wall::X { x: 0.0, y: 0.0 }, &wall::P { c: 1.0 })
        .expect("the wall solves");
    assert_eq!(solution.mode, "wall_sliding");
    assert!((solution.x.x - 1.0).abs() < 1e-12);
    assert!((solution.sensitivity("x", "c").unwrap() - 1.0).abs() < 1e-12);
    assert_eq!(wall::Model::guard_name(0), Some("wall_from_below"));
}
