//! Hybrid models with events shared by the tests, each declared once:
//!
//! - the models of the facade's kernel checks (each `tests/model_*.rs` checks one against its
//!   plain-Rust twin) and of `tests/adjoint_events.rs` (their adjoint against their forward
//!   sensitivities): the ball (the `bouncing_ball` example's model), the ball as an index-1 DAE
//!   (`dae_ball`), a two-mode DAE with memory and an input (`two_mode`), and the EM hysteretic
//!   oscillator of Serban & Recuero's Example 5.2 (`steel`, the `steel_hysteresis` example's);
//! - the models of the tests that check the runtime's numbers against closed forms and
//!   references through its core API (`tests/hybrid_*.rs`, `tests/adjoint_memory.rs`,
//!   `tests/zero_alloc.rs`, with the problems in `support/runtime.rs`): Example 5.2 again
//!   (`steel`), the memory toy (`memory_toy`, `examples/reproduce`'s), Example 5.1 with all
//!   three cost kinds (`ex51_costs`), a switched DAE whose guard reads the algebraic variable
//!   (`switched_dae`), a near-tangent guard (`graze`) and two guards with simultaneous roots
//!   (`twin_guards`);
//! - ball variants of the model language's features: a ball stopped at its apex by a terminal
//!   guard (`bounce_to_apex`, `tests/terminal_events.rs`), and a ball with drag written out and
//!   through helpers that return the states (`written_out`, `with_helpers`,
//!   `tests/state_helpers.rs`).
//!
//! The example models are included from their files, not copied.
// Each test binary that includes this file uses a subset of its models.
#![allow(dead_code, unused_imports)] // the re-exports of included model files too

use hysens::hybrid_model;

/// A ball bouncing on the ground (`examples/bouncing_ball/model.rs`, included here).
#[path = "../../examples/bouncing_ball/model.rs"]
mod ball_model;
pub use ball_model::ball;

/// The ball as an index-1 DAE: `v' = v² − w` with the algebraic `w` from
/// `0 = r + r³/10`, `r = w − v² − g` (solution `w = v² + g`, so `v' = −g` as for the ball,
/// but `f` reads `z`, `g` reads `y`, the constraint is nonlinear in `w` and `w` changes along
/// the flight: Newton's method and the sensitivities go through the algebraic rows).
#[hybrid_model]
pub mod dae_ball {
    /// The differential states.
    #[states]
    pub struct X {
        /// Height.
        pub h: f64,
        /// Velocity.
        pub v: f64,
    }

    /// The algebraic variable.
    #[algebraic]
    pub struct Z {
        /// `v² + g`.
        pub w: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// Gravity.
        pub g: f64,
        /// Restitution.
        pub e: f64,
    }

    #[mode(initial)]
    fn flight(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        let r = z.w - x.v.powi(2) - p.g;
        (
            X {
                h: x.v,
                v: x.v.powi(2) - z.w,
            },
            [r + 0.1 * r.powi(3)],
        )
    }

    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.h
    }

    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            h: x.h,
            v: -p.e * x.v,
        }
    }

    #[cost(terminal)]
    fn height(x: &X) -> f64 {
        x.h
    }

    #[cost(terminal)]
    fn energy(x: &X, p: &P) -> f64 {
        0.5 * x.v.powi(2) + p.g * x.h
    }
}

/// A two-mode index-1 DAE with algebraic guards, memory and an input.
#[hybrid_model]
pub mod two_mode {
    /// Differential states.
    #[states]
    pub struct X {
        /// Position.
        pub a: f64,
        /// Velocity.
        pub b: f64,
    }

    /// Algebraic variables.
    #[algebraic]
    pub struct Z {
        /// Force.
        pub w: f64,
        /// Switching signal.
        pub s: f64,
    }

    /// Parameters.
    #[params]
    pub struct P {
        /// Stiffness.
        pub k: f64,
        /// Damping.
        pub c: f64,
        /// Switching threshold on `s`.
        pub thr: f64,
        /// Restitution at the switch up.
        pub e: f64,
    }

    /// Inputs (held constant over a solve).
    #[inputs]
    pub struct U {
        /// Forcing amplitude.
        pub f0: f64,
    }

    /// A tenth: a module constant used in the expressions.
    const TENTH: f64 = 0.1;

    /// The spring force.
    fn spring(a: f64, p: &P) -> f64 {
        -p.k * a
    }

    #[mode(initial)]
    fn low(x: &X, z: &Z, p: &P, u: &U, t: f64) -> (X, [f64; 2]) {
        (
            X {
                a: x.b,
                b: spring(x.a, p) - p.c * x.b + z.w,
            },
            [
                z.w - u.f0 * t.sin() - z.s * x.a,
                z.s - (x.a * x.b).tanh() - TENTH * z.w,
            ],
        )
    }

    #[mode(initial_if(up, positive))]
    fn high(x: &X, z: &Z, p: &P, u: &U, m: &Memory) -> (X, [f64; 2]) {
        let damping = p.c * x.b.powi(3);
        (
            X {
                a: x.b,
                b: spring(x.a, p) - damping + z.w * z.s,
            },
            [
                z.w.exp() - 1.0 - u.f0 * x.b,
                z.s * (1.0 + x.a.powi(2)) - z.w.cosh() - m.z.s,
            ],
        )
    }

    #[guard(low -> high, rising)]
    fn up(z: &Z, p: &P) -> f64 {
        z.s - p.thr
    }

    #[guard(high -> low, falling)]
    fn down(x: &X, z: &Z, m: &Memory) -> f64 {
        x.a - m.y.a + z.w
    }

    #[reset(up)]
    fn kick(x: &X, z: &Z, p: &P, t: f64) -> X {
        X {
            a: x.a,
            b: -p.e * x.b + TENTH * z.w * t.sin(),
        }
    }

    #[cost(integral)]
    fn effort(x: &X, z: &Z) -> f64 {
        x.a.powi(2) + 0.5 * z.w.powi(2)
    }

    #[cost(integral)]
    fn drift(x: &X, m: &Memory) -> f64 {
        (x.a - m.y.a).powi(2)
    }

    #[cost(terminal)]
    fn final_state(x: &X, z: &Z, p: &P, t: f64) -> f64 {
        p.k * x.b.powi(2) + z.s * (0.5 * t).cos()
    }

    #[cost(sampled)]
    fn signal_misfit(z: &Z, d: f64) -> f64 {
        (z.s - d).powi(2)
    }
}

/// The exponential-model hysteretic oscillator (Serban & Recuero 2019, Example 5.2): the
/// `steel_hysteresis` example's model, included.
#[path = "../../examples/steel_hysteresis/model.rs"]
mod steel_model;
pub use steel_model::{steel, REFERENCE_ADJOINT_JUMPS, REFERENCE_ADJOINT_START};

/// The memory toy, the project's own test problem (defined in
/// `examples/reproduce/models/memory_toy.rs`, included): a mode that reads the memory and a
/// switch whose time moves with a parameter.
#[path = "../../examples/reproduce/models/memory_toy.rs"]
mod memory_toy_model;
pub use memory_toy_model::memory_toy;

/// Serban & Recuero 2019, Example 5.1 (the quickstart's `ex51` of `support/models.rs`) with all
/// three cost kinds: `G = ∫ x dt + x(t_f) + Σ_k (x(t_k) − d_k)²`, for the tests of the cost
/// terms against the closed form (`tests/hybrid_ex51.rs`) and of a solve that allocates nothing
/// (`tests/zero_alloc.rs`).
#[hybrid_model]
pub mod ex51_costs {
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

    /// Mode A, while `h ≤ 0`.
    #[mode(initial_if(to_b, negative))]
    fn a(x: &X) -> X {
        X { x: 4.0 - x.x }
    }

    /// Mode B, while `h > 0`.
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

    /// `∫ x dt`.
    #[cost(integral)]
    fn area(x: &X) -> f64 {
        x.x
    }

    /// `x(t_f)`.
    #[cost(terminal)]
    fn last(x: &X) -> f64 {
        x.x
    }

    /// `(x(t_k) − d_k)²`.
    #[cost(sampled)]
    fn misfit(x: &X, d: f64) -> f64 {
        (x.x - d).powi(2)
    }
}

/// A switched semi-explicit index-1 DAE with a closed form, `y ∈ R`, `z ∈ R`, `p = (a, b)`:
/// in `relax`, `y' = z`, `0 = z + y − a` (so `z = a − y`, `y = a(1 − e^{−t})` from `y(0) = 0`);
/// the guard `z − b` falls through zero at `t1 = ln(a/b)`, `y1 = a − b`, into `decay`,
/// `y' = −z`, `0 = z − y²` (so `y = y1/(1 + y1(t − t1))`, `z = y²`). `z` jumps at the switch
/// (`b → y1²`), so the cost `G = ∫_0^T z dt` has a Leibniz term; closed form
/// `G = (a − b) + (y1 − y(T))` (`tests/hybrid_dae.rs`).
#[hybrid_model]
pub mod switched_dae {
    /// The state.
    #[states]
    pub struct X {
        /// `y`.
        pub y: f64,
    }

    /// The algebraic variable.
    #[algebraic]
    pub struct Z {
        /// `z`.
        pub z: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// The level `y` relaxes to.
        pub a: f64,
        /// The level of `z` at the switch.
        pub b: f64,
    }

    /// `y' = z`, `0 = z + y − a`.
    #[mode(initial)]
    fn relax(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (X { y: z.z }, [z.z + x.y - p.a])
    }

    /// `y' = −z`, `0 = z − y²`.
    #[mode]
    fn decay(x: &X, z: &Z) -> (X, [f64; 1]) {
        (X { y: -z.z }, [z.z - x.y.powi(2)])
    }

    /// `z` falls through `b`.
    #[guard(relax -> decay, falling)]
    fn z_low(z: &Z, p: &P) -> f64 {
        z.z - p.b
    }

    /// `G = ∫ z dt`.
    #[cost(integral)]
    fn area(z: &Z) -> f64 {
        z.z
    }
}

/// A near-tangent guard: `y' = 1` (`y = t`) and the guard `p − (y − 1)²` rising, from `a` to
/// `b`: for small `p > 0` it barely crosses zero near `t = 1` (roots `1 ∓ √p`, `ḣ = 2√p` at
/// them): a grazing event when the tolerances cannot resolve it (`tests/hybrid_events.rs`).
#[hybrid_model]
pub mod graze {
    /// The state.
    #[states]
    pub struct X {
        /// `y = t`.
        pub y: f64,
    }

    /// The parameter.
    #[params]
    pub struct P {
        /// How far the guard goes past zero.
        pub p: f64,
    }

    /// Before the crossing.
    #[mode(initial)]
    fn a() -> X {
        X { y: 1.0 }
    }

    /// After it.
    #[mode]
    fn b() -> X {
        X { y: 1.0 }
    }

    /// `p − (y − 1)²` rises through zero.
    #[guard(a -> b, rising)]
    fn touch(x: &X, p: &P) -> f64 {
        p.p - (x.y - 1.0).powi(2)
    }
}

/// Simultaneous roots: `y' = 1` with two guards of the same function `y − 1`, `first` (rising,
/// to `m1`) and `second` (either direction, to `m2`); the tie must go to the lower guard index
/// (`tests/hybrid_events.rs`). The parameter is read by nothing (`τ = 0`).
#[hybrid_model]
pub mod twin_guards {
    /// The state.
    #[states]
    pub struct X {
        /// `y = t`.
        pub y: f64,
    }

    /// A parameter no guard reads.
    #[params]
    pub struct P {
        /// Unused.
        pub p: f64,
    }

    /// Before the roots.
    #[mode(initial)]
    fn m0() -> X {
        X { y: 1.0 }
    }

    /// After `first`.
    #[mode]
    fn m1() -> X {
        X { y: 1.0 }
    }

    /// After `second`.
    #[mode]
    fn m2() -> X {
        X { y: 1.0 }
    }

    /// `y` rises through 1.
    #[guard(m0 -> m1, rising)]
    fn first(x: &X) -> f64 {
        x.y - 1.0
    }

    /// `y` crosses 1, either way.
    #[guard(m0 -> m2, either)]
    fn second(x: &X) -> f64 {
        x.y - 1.0
    }
}

/// A ball thrown down, bouncing once (`v⁺ = −e v⁻`) and stopped at its next apex.
#[hybrid_model]
pub mod bounce_to_apex {
    /// Height and velocity.
    #[states]
    pub struct X {
        /// Height.
        pub y: f64,
        /// Velocity.
        pub v: f64,
    }

    /// Gravity and restitution.
    #[params]
    pub struct P {
        /// Gravitational acceleration.
        pub g: f64,
        /// Coefficient of restitution.
        pub e: f64,
    }

    /// Free flight.
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X { y: x.v, v: -p.g }
    }

    /// The impact.
    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.y
    }

    /// The bounce.
    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            y: x.y,
            v: -p.e * x.v,
        }
    }

    /// The apex: the velocity falls through zero (only after the bounce: the ball starts
    /// moving down).
    #[guard(flight -> stop, falling)]
    fn apex(x: &X) -> f64 {
        x.v
    }

    /// The apex height and time.
    #[cost(terminal)]
    fn apex_height_and_time(x: &X, t: f64) -> f64 {
        x.y + t
    }
}

/// A ball with linear drag, bouncing, written out.
#[hybrid_model]
pub mod written_out {
    /// Height and velocity.
    #[states]
    pub struct X {
        /// Height.
        pub h: f64,
        /// Velocity.
        pub v: f64,
    }

    /// Gravity, drag, restitution, launch speed.
    #[params]
    pub struct P {
        /// Gravity.
        pub g: f64,
        /// Linear drag coefficient.
        pub c: f64,
        /// Restitution.
        pub e: f64,
        /// Launch speed.
        pub v0: f64,
    }

    /// Thrown up from the given height.
    #[initial_state]
    fn thrown(x: &X, p: &P) -> X {
        X { h: x.h, v: p.v0 }
    }

    /// Flight with drag.
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X {
            h: x.v,
            v: -p.g - p.c * x.v,
        }
    }

    /// The floor.
    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.h
    }

    /// The bounce.
    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            h: x.h,
            v: -p.e * x.v,
        }
    }

    /// The height over time.
    #[cost(integral)]
    fn height(x: &X) -> f64 {
        x.h
    }
}

/// The same ball through helpers.
#[hybrid_model]
pub mod with_helpers {
    /// Height and velocity.
    #[states]
    pub struct X {
        /// Height.
        pub h: f64,
        /// Velocity.
        pub v: f64,
    }

    /// Gravity, drag, restitution, launch speed.
    #[params]
    pub struct P {
        /// Gravity.
        pub g: f64,
        /// Linear drag coefficient.
        pub c: f64,
        /// Restitution.
        pub e: f64,
        /// Launch speed.
        pub v0: f64,
    }

    /// The state moving at `speed` from the height of `x`.
    fn moving(x: &X, speed: f64) -> X {
        X { h: x.h, v: speed }
    }

    /// Free fall with drag.
    fn free_fall(x: &X, p: &P) -> X {
        let drag = p.c * x.v;
        X {
            h: x.v,
            v: -p.g - drag,
        }
    }

    /// Thrown up from the given height.
    #[initial_state]
    fn thrown(x: &X, p: &P) -> X {
        moving(x, p.v0)
    }

    /// Flight with drag.
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        free_fall(x, p)
    }

    /// The floor.
    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.h
    }

    /// The bounce.
    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        moving(x, -p.e * x.v)
    }

    /// The height over time.
    #[cost(integral)]
    fn height(x: &X) -> f64 {
        x.h
    }
}
