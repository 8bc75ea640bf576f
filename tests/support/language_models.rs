//! The models of the tests of the model language's features, each declared once (the ball
//! variants among them live with the other balls in `event_models.rs`):
//!
//! - terminal guards (`tests/terminal_events.rs`): a tank draining to a level (Torricelli), a
//!   decay written as an index-1 DAE stopped at a level; and the `projectile` example's launch
//!   (`tests/initial_state.rs` too);
//! - `#[initial_state]` (`tests/initial_state.rs`): a DAE tank filled to a fraction of a given
//!   height;
//! - integral costs limited to modes (`tests/mode_costs.rs`): two speeds, a relay that slides;
//! - helpers that return the states (`tests/state_helpers.rs`): the filled tank's DAE mode
//!   through one;
//! - a model without parameters (`tests/initial_state.rs`), whose solves take `&NoParams`.
#![allow(dead_code, unused_imports)] // each test binary uses a subset

#[path = "../../examples/projectile/model.rs"]
mod projectile;
pub use projectile::launch;

/// A tank draining by Torricelli's law, `h' = −k √h`, until `h` falls to `level`.
#[hysens::hybrid_model]
pub mod tank {
    /// The level.
    #[states]
    pub struct X {
        /// Height of the liquid.
        pub h: f64,
    }

    /// Outflow coefficient and the level that ends the solve.
    #[params]
    pub struct P {
        /// Outflow coefficient.
        pub k: f64,
        /// The level at which the solve stops.
        pub level: f64,
    }

    /// Draining.
    #[mode(initial)]
    fn draining(x: &X, p: &P) -> X {
        X {
            h: -p.k * x.h.sqrt(),
        }
    }

    /// The level is reached.
    #[guard(draining -> stop, falling)]
    fn reaches_level(x: &X, p: &P) -> f64 {
        x.h - p.level
    }

    /// The time to drain to the level (a terminal cost that reads the moving final time).
    #[cost(terminal)]
    fn drain_time(t: f64) -> f64 {
        t
    }

    /// The level over time (an integral cost that ends at the stop).
    #[cost(integral)]
    fn level_over_time(x: &X) -> f64 {
        x.h
    }
}

/// A decay as an index-1 DAE, `y' = −z`, `0 = z − k y`, stopped when `y` falls to `level`.
#[hysens::hybrid_model]
pub mod dae_decay {
    /// The decaying state.
    #[states]
    pub struct X {
        /// `y`.
        pub y: f64,
    }

    /// The flux.
    #[algebraic]
    pub struct Z {
        /// `z = k y`.
        pub z: f64,
    }

    /// Rate and stopping level.
    #[params]
    pub struct P {
        /// Decay rate.
        pub k: f64,
        /// The level at which the solve stops.
        pub level: f64,
    }

    /// The decay.
    #[mode(initial)]
    fn decay(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (X { y: -z.z }, [z.z - p.k * x.y])
    }

    /// The level is reached.
    #[guard(decay -> stop, falling)]
    fn reaches_level(x: &X, p: &P) -> f64 {
        x.y - p.level
    }

    /// The stopping time plus the flux at the stop.
    #[cost(terminal)]
    fn time_and_flux(z: &Z, t: f64) -> f64 {
        t + z.z
    }
}

/// A tank draining by Torricelli's law: the outflow's speed `r = √(h + a)` is given by its
/// square, `0 = r² − (h + a)`, so from the default guess `r = 0` Newton's method meets the
/// singular `g_z = 2r`, and a guess below zero would find the negative root. The model's guess
/// `r = (h + a + 1)/2 ≥ √(h + a)` (the arithmetic mean of `h + a` and 1 against the geometric
/// one) lies on the positive root's side; it reads the state after `#[initial_state]`.
#[hysens::hybrid_model]
pub mod torricelli {
    /// The level.
    #[states]
    pub struct X {
        /// Height of the liquid above the outlet's reference.
        pub h: f64,
    }

    /// The outflow's speed.
    #[algebraic]
    pub struct Z {
        /// `r = √(h + a)`.
        pub r: f64,
    }

    /// Outlet coefficient, head offset and fill fraction.
    #[params]
    pub struct P {
        /// Outlet coefficient.
        pub k: f64,
        /// Head offset.
        pub a: f64,
        /// Fraction of the given height the tank is filled to.
        pub fill: f64,
    }

    /// Filled to a fraction of the given height.
    #[initial_state]
    fn filled(x: &X, p: &P) -> X {
        X { h: p.fill * x.h }
    }

    /// On the positive root's side of `r² = h + a`.
    #[algebraic_guess]
    fn above_the_root(x: &X, p: &P) -> Z {
        Z {
            r: 0.5 * (x.h + p.a + 1.0),
        }
    }

    /// Draining: `h' = −k r`, `0 = r² − (h + a)`.
    #[mode(initial)]
    fn draining(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (X { h: -p.k * z.r }, [z.r * z.r - x.h - p.a])
    }

    /// The final level.
    #[cost(terminal)]
    fn level(x: &X) -> f64 {
        x.h
    }
}

/// A tank filled to `fill · x` of the caller's height, draining through a valve whose flow
/// is the algebraic variable: `h' = −q`, `0 = q − k h`.
#[hysens::hybrid_model]
pub mod filled_tank {
    /// The level.
    #[states]
    pub struct X {
        /// Height of the liquid.
        pub h: f64,
    }

    /// The outflow.
    #[algebraic]
    pub struct Z {
        /// Flow through the valve.
        pub q: f64,
    }

    /// Valve coefficient and fill fraction.
    #[params]
    pub struct P {
        /// Valve coefficient.
        pub k: f64,
        /// Fraction of the given height the tank is filled to.
        pub fill: f64,
    }

    /// Filled to a fraction of the given height.
    #[initial_state]
    fn filled(x: &X, p: &P) -> X {
        X { h: p.fill * x.h }
    }

    /// The level falls with the outflow (a helper that returns the states).
    fn falling_with(z: &Z) -> X {
        X { h: -z.q }
    }

    /// Draining: the derivatives through the helper, then the valve's equation.
    #[mode(initial)]
    fn draining(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (falling_with(z), [z.q - p.k * x.h])
    }

    /// The outflow over the solve, `∫ q dt`, plus the final level squared.
    #[cost(integral)]
    fn outflow(z: &Z) -> f64 {
        z.q
    }

    /// The final level squared.
    #[cost(terminal)]
    fn final_level(x: &X) -> f64 {
        x.h * x.h
    }
}

/// Two speeds: `x' = va` in `a` until `x` rises through `level`, then `x' = vc` in `c`.
/// `∫ x dt` over the whole solve, `∫ x² dt` only in `c`.
#[hysens::hybrid_model]
pub mod two_speeds {
    /// The position.
    #[states]
    pub struct X {
        /// Position.
        pub x: f64,
    }

    /// The speeds and the switching level.
    #[params]
    pub struct P {
        /// Speed in `a`.
        pub va: f64,
        /// Speed in `c`.
        pub vc: f64,
        /// Where `a` switches to `c`.
        pub level: f64,
    }

    /// Before the level.
    #[mode(initial)]
    fn a(p: &P) -> X {
        X { x: p.va }
    }

    /// After it.
    #[mode]
    fn c(p: &P) -> X {
        X { x: p.vc }
    }

    /// The level is reached.
    #[guard(a -> c, rising)]
    fn reaches(x: &X, p: &P) -> f64 {
        x.x - p.level
    }

    /// Over the whole solve.
    #[cost(integral)]
    fn position(x: &X) -> f64 {
        x.x
    }

    /// Only after the switch.
    #[cost(integral, modes(c))]
    fn squared_after(x: &X) -> f64 {
        x.x * x.x
    }
}

/// A relay: `x' = up` below the wall `x = 0`, `x' = −down` above it; from below, the solve
/// slides on the wall until a terminal guard on the time stops it (declared in `below`, so
/// watched in the sliding mode too). It starts from the given state plus an input `bias`
/// (`#[initial_state]`, which reads `t0` too). The cost counts the time spent above — in the
/// sliding mode the share `α = up/(up + down)` of the chattering trajectory's time above — and
/// adds `t² + x` at the stop. The features of the model language together.
#[hysens::hybrid_model]
pub mod relay {
    /// The position.
    #[states]
    pub struct X {
        /// Position.
        pub x: f64,
    }

    /// The two speeds and the stopping time.
    #[params]
    pub struct P {
        /// Speed below the wall.
        pub up: f64,
        /// Speed above it.
        pub down: f64,
        /// When the solve stops.
        pub t_stop: f64,
    }

    /// An offset of the start.
    #[inputs]
    pub struct U {
        /// Added to the given state.
        pub bias: f64,
    }

    /// The given state plus the bias (at `t0 = 0`).
    #[initial_state]
    fn biased(x: &X, u: &U, t: f64) -> X {
        X {
            x: x.x + u.bias + t,
        }
    }

    /// Below the wall.
    #[mode(initial_if(wall, negative))]
    fn below(p: &P) -> X {
        X { x: p.up }
    }

    /// Above the wall.
    #[mode(initial)]
    fn above(p: &P) -> X {
        X { x: -p.down }
    }

    /// The wall `x = 0`.
    #[switching_surface(below, above)]
    fn wall(x: &X) -> f64 {
        x.x
    }

    /// The stop, in either direction (it crosses rising).
    #[guard(below -> stop, either)]
    fn time_is_up(p: &P, t: f64) -> f64 {
        t - p.t_stop
    }

    /// Time spent above the wall.
    #[cost(integral, modes(above))]
    fn time_above() -> f64 {
        1.0
    }

    /// At the stop.
    #[cost(terminal)]
    fn at_the_stop(x: &X, t: f64) -> f64 {
        t * t + x.x
    }
}

/// A model without parameters: `x' = −x`, `G = ∫ x dt` (its solves take `&NoParams`).
#[hysens::hybrid_model]
pub mod unparameterized {
    /// The decaying state.
    #[states]
    pub struct X {
        /// `x`.
        pub x: f64,
    }

    /// The decay.
    #[mode(initial)]
    fn decay(x: &X) -> X {
        X { x: -x.x }
    }

    /// The area under `x`.
    #[cost(integral)]
    fn area(x: &X) -> f64 {
        x.x
    }
}
