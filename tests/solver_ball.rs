//! The builder on the bouncing ball: sensitivities with respect to initial states and
//! parameters chosen per solve by name, against the closed form.
//!
//! Free flight `h' = v, v' = −g` from `(h0, v0)`; the impact at `t1 = (v0 + w)/g` with
//! `w = √(v0² + 2 g h0)` reverses the velocity to `e w`; after it, `h(T) = e w (T − t1) −
//! g (T − t1)²/2` and `v(T) = e w − g (T − t1)`. The derivatives of this closed form are taken
//! with num-dual, one direction at a time. The integrator is exact on quadratic flight (every
//! tableau has order ≥ 2, and the problem is linear with polynomial solution), so the discrete
//! solution, its event time and its exact discrete sensitivities equal the closed form to
//! round-off: the tolerance 1e-12 is a round-off bound, not a truncation bound.

use hysens::hybrid_model;
use hysens::runtime::{InitialStates, Params, Solver, Wrt};
use num_dual::{Dual64, DualNum};

/// A ball bouncing on the floor.
#[hybrid_model]
pub mod ball {
    /// Height and velocity.
    #[states]
    pub struct X {
        /// Height above the floor.
        pub h: f64,
        /// Upward velocity.
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
        X { h: x.v, v: -p.g }
    }

    /// The height falls through zero.
    #[guard(flight -> flight, falling)]
    fn impact(x: &X, _p: &P) -> f64 {
        x.h
    }

    /// The velocity reverses and shrinks.
    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            h: x.h,
            v: -p.e * x.v,
        }
    }
}

/// `(h(T), v(T))` after one bounce, with derivatives along the seeds of the arguments.
fn closed_form(h0: Dual64, v0: Dual64, g: Dual64, e: Dual64, t: f64) -> [Dual64; 2] {
    let w = (v0 * v0 + g * h0 * 2.0).sqrt();
    let t1 = (v0 + w) / g;
    let after = -t1 + t;
    [e * w * after - g * after * after * 0.5, e * w - g * after]
}

const H0: f64 = 1.0;
const V0: f64 = 0.5;
const G: f64 = 9.81;
const E: f64 = 0.8;
const T: f64 = 0.9;

/// `∂(h, v)(T)/∂θ` of the closed form, `θ` the `k`-th of `(h0, v0, g, e)`.
fn closed_form_derivative(k: usize) -> [f64; 2] {
    let seed = |i: usize, x: f64| Dual64::new(x, if i == k { 1.0 } else { 0.0 });
    let [h, v] = closed_form(seed(0, H0), seed(1, V0), seed(2, G), seed(3, E), T);
    [h.eps, v.eps]
}

#[test]
fn all_parameters_and_initial_states_against_the_closed_form() {
    let solution = Solver::new(&ball::Model)
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, T, &[H0, V0], &[G, E])
        .expect("the ball solves");
    let exact = closed_form(H0.into(), V0.into(), G.into(), E.into(), T).map(|d| d.re);
    assert!((solution.y[0] - exact[0]).abs() < 1e-12, "{:?}", solution.y);
    assert!((solution.y[1] - exact[1]).abs() < 1e-12, "{:?}", solution.y);
    assert_eq!(solution.events.len(), 1);
    assert_eq!(
        (
            solution.events[0].guard,
            solution.events[0].from,
            solution.events[0].to
        ),
        ("impact", "flight", "flight")
    );
    let directions = [
        Wrt::InitialState("h"),
        Wrt::InitialState("v"),
        Wrt::Param("g"),
        Wrt::Param("e"),
    ];
    let mut worst = 0.0f64;
    for (k, wrt) in directions.into_iter().enumerate() {
        let exact = closed_form_derivative(k);
        for (i, of) in ["h", "v"].into_iter().enumerate() {
            let computed = solution.sensitivity(of, wrt).expect("a chosen direction");
            assert!(
                (computed - exact[i]).abs() < 1e-12,
                "∂{of}/∂{wrt:?}: {computed} vs {}",
                exact[i]
            );
            worst = worst.max((computed - exact[i]).abs());
        }
    }
    println!("largest error of ∂(h, v)(T)/∂(h0, v0, g, e): {worst:.1e}");
}
