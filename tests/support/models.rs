//! The benchmark problems P1–P4 (and a DAE with memory) as `#[hybrid_model]`s, shared by the
//! facade's tests, the criterion benchmarks and `bench/peers`. P1, Serban & Recuero's
//! Example 5.1, is the quickstart's model (`examples/quickstart/model.rs`), and P3, Robertson's
//! kinetics, the `robertson` example's (`examples/robertson/model.rs`), both included here.
//! The runtime's tests use them too: P1 and P2 against their closed forms through the core API
//! (`tests/hybrid_*.rs`, problems in `support/runtime.rs`), P3 as one smooth mode for the
//! integrator alone (`support/smooth_modes.rs`'s `ModeOf`, with [`ROBERTSON_K`] and
//! [`ROBERTSON_Y0`]).
// Each test or bench binary that includes this file uses a subset of its models.
#![allow(dead_code, unused_imports)] // the re-exports of included model files too

use hysens::hybrid_model;

/// P1: Serban & Recuero Example 5.1, the quickstart's model.
#[path = "../../examples/quickstart/model.rs"]
mod quickstart_model;
pub use quickstart_model::ex51;

/// P1's batch: `n` problems `(x0, p)` from `x0 = 0` with `p` evenly spaced on `[2.6, 3.2)` (one
/// to three switches each), the items of the batch benchmark (`benches/batch.rs`), of the
/// `batch_speedup` example and of the batch's allocation test.
pub fn ex51_batch(n: usize) -> Vec<(ex51::X, ex51::P)> {
    (0..n)
        .map(|k| {
            let p = 2.6 + 0.6 * k as f64 / n as f64;
            (ex51::X { x: 0.0 }, ex51::P { p })
        })
        .collect()
}

/// P2: the bouncing ball, with its initial state among the parameters and its final height as
/// a terminal cost.
#[hybrid_model]
pub mod ball {
    /// Height and velocity.
    #[states]
    pub struct X {
        /// Height.
        pub z: f64,
        /// Velocity.
        pub v: f64,
    }
    /// Initial state, gravity, restitution.
    #[params]
    pub struct P {
        /// Initial height.
        pub z0: f64,
        /// Initial velocity.
        pub v0: f64,
        /// Gravity.
        pub g: f64,
        /// Restitution.
        pub gamma: f64,
    }
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X { z: x.v, v: -p.g }
    }
    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.z
    }
    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            z: x.z,
            v: -p.gamma * x.v,
        }
    }
    /// The final height, so that `dG/dp = dz(T)/dp` (the runtime's tests of the ball; one
    /// evaluation at the end of a solve).
    #[cost(terminal)]
    fn height(x: &X) -> f64 {
        x.z
    }
}

/// P3: Robertson's kinetics (`examples/robertson/model.rs`, included here).
#[path = "../../examples/robertson/model.rs"]
mod robertson_model;
pub use robertson_model::{robertson, CLASSIC_RATES, CLASSIC_Y0};

/// P3's classic rate constants `(k1, k2, k3)`, for the tests that call the integrator with
/// arrays.
pub const ROBERTSON_K: [f64; 3] = [0.04, 3.0e7, 1.0e4];

/// P3's initial state.
pub const ROBERTSON_Y0: [f64; 3] = [1.0, 0.0, 0.0];

/// P4: the Van der Pol oscillator.
#[hybrid_model]
pub mod vdp {
    /// Position and velocity.
    #[states]
    pub struct X {
        /// Position.
        pub y1: f64,
        /// Velocity.
        pub y2: f64,
    }
    /// Stiffness.
    #[params]
    pub struct P {
        /// μ.
        pub mu: f64,
    }
    #[mode(initial)]
    fn oscillate(x: &X, p: &P) -> X {
        X {
            y1: x.y2,
            y2: p.mu * (1.0 - x.y1.powi(2)) * x.y2 - x.y1,
        }
    }
}

/// A two-mode index-1 DAE with memory: the algebraic variable relaxes towards the state's
/// value at the last switch, and the switch resets the velocity.
#[hybrid_model]
pub mod relay {
    /// Position and velocity.
    #[states]
    pub struct X {
        /// Position.
        pub q: f64,
        /// Velocity.
        pub v: f64,
    }
    /// The force.
    #[algebraic]
    pub struct Z {
        /// Force.
        pub f: f64,
    }
    /// Stiffness and damping.
    #[params]
    pub struct P {
        /// Stiffness.
        pub k: f64,
        /// Damping.
        pub c: f64,
    }
    #[mode(initial)]
    fn push(x: &X, z: &Z, p: &P, m: &Memory) -> (X, [f64; 1]) {
        (
            X {
                q: x.v,
                v: z.f - p.c * x.v,
            },
            [z.f + p.k * (x.q - m.y.q) - 1.0],
        )
    }
    #[mode]
    fn pull(x: &X, z: &Z, p: &P, m: &Memory) -> (X, [f64; 1]) {
        (
            X {
                q: x.v,
                v: z.f - p.c * x.v,
            },
            [z.f + p.k * (x.q - m.y.q) + 1.0],
        )
    }
    #[guard(push -> pull, rising)]
    fn far(x: &X) -> f64 {
        x.q - 0.5
    }
    #[guard(pull -> push, falling)]
    fn near(x: &X) -> f64 {
        x.q + 0.5
    }
    #[reset(far)]
    fn brake(x: &X) -> X {
        X {
            q: x.q,
            v: 0.5 * x.v,
        }
    }
    #[cost(integral)]
    fn effort(z: &Z) -> f64 {
        z.f.powi(2)
    }
}

/// The relay of the adjoint tests (`tests/adjoint_events.rs`, `tests/zero_alloc.rs`): from rest
/// at `k = 2`, `c = 0.3` on `[0, 10]`, with the consistent force `f = 1` as the algebraic guess.
pub fn relay_problem() -> hysens::runtime::HybridProblem<'static, 2, 1, 2> {
    let x0 = relay::X { q: 0.0, v: 0.0 };
    let mut problem = relay::Model::problem(0.0, 10.0, &x0, &relay::P { k: 2.0, c: 0.3 });
    problem.z0 = [1.0];
    problem
}
