//! Solving a `#[hybrid_model]` allocates nothing on the heap, with and without sensitivities:
//! the generated kernels and entry points, and the runtime under them, work in fixed-size
//! storage only. Counted with the runtime's thread-local counting allocator.
#![deny(missing_docs)]

#[path = "../hysens-runtime/tests/support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::count;
use hysens::hybrid_model;
use hysens::runtime::{EventRecord, HybridOptions, HybridOutputs, HybridSolution, Sample};

/// Serban & Recuero Example 5.1: an ODE with three switches and an integral cost.
#[hybrid_model]
pub mod ex51 {
    /// The state.
    #[states]
    pub struct X {
        /// `x`.
        pub x: f64,
    }
    /// The parameter.
    #[params]
    pub struct P {
        /// The threshold `p`.
        pub p: f64,
    }
    /// The switching function.
    fn h(x: &X, p: &P) -> f64 {
        x.x.powi(3) - 5.0 * x.x.powi(2) + 7.0 * x.x - p.p
    }
    #[mode(initial)]
    fn a(x: &X) -> X {
        X { x: 4.0 - x.x }
    }
    #[mode]
    fn b(x: &X) -> X {
        X {
            x: 10.0 - 2.0 * x.x,
        }
    }
    #[guard(a -> b, rising)]
    fn to_b(x: &X, p: &P) -> f64 {
        h(x, p)
    }
    #[guard(b -> a, falling)]
    fn to_a(x: &X, p: &P) -> f64 {
        h(x, p)
    }
    #[cost(integral)]
    fn area(x: &X) -> f64 {
        x.x
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

#[test]
fn generated_ode_model_solves_without_allocating() {
    let model = ex51::Model;
    let problem = ex51::Model::problem(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 });
    let options = HybridOptions::new(1e-8, 1e-10);
    let mut events = [EventRecord::ZERO; 8];
    for with_sensitivities in [false, true] {
        let mut solution = HybridSolution::ZERO;
        let (result, allocations) = count(|| {
            let mut outputs = HybridOutputs {
                samples: &mut [],
                events: Some(&mut events),
                steps: None,
            };
            if with_sensitivities {
                model.solve_with_sensitivities(&problem, &options, &mut outputs, &mut solution)
            } else {
                model.solve(&problem, &options, &mut outputs, &mut solution)
            }
        });
        assert_eq!(result, Ok(()));
        assert_eq!(solution.n_events, 3, "Example 5.1 switches three times");
        // The closed form (note 000 §4.1): G = 20.029074653359594; the solver's global error
        // at rtol 1e-8 is below 1e-6 relative (the runtime's accuracy tests say how much).
        assert!((solution.cost - 20.029074653359594).abs() < 1e-6 * 20.03);
        assert_eq!(allocations, 0, "sensitivities: {with_sensitivities}");
    }
}

#[test]
fn generated_dae_model_with_memory_solves_without_allocating() {
    let model = relay::Model;
    let x0 = relay::X { q: 0.0, v: 0.0 };
    let z0 = relay::Z { f: 1.0 };
    let params = relay::P { k: 2.0, c: 0.3 };
    let mut problem = relay::Model::problem(0.0, 10.0, &x0, &z0, &params);
    let times = [1.0, 2.0, 5.0];
    problem.sample_times = &times;
    let options = HybridOptions::new(1e-7, 1e-9);
    let mut samples = [Sample::ZERO; 3];
    let mut events = [EventRecord::ZERO; 64];
    for with_sensitivities in [false, true] {
        let mut solution = HybridSolution::ZERO;
        let (result, allocations) = count(|| {
            let mut outputs = HybridOutputs {
                samples: &mut samples,
                events: Some(&mut events),
                steps: None,
            };
            if with_sensitivities {
                model.solve_with_sensitivities(&problem, &options, &mut outputs, &mut solution)
            } else {
                model.solve(&problem, &options, &mut outputs, &mut solution)
            }
        });
        assert_eq!(result, Ok(()));
        assert!(solution.n_events >= 1, "the relay switches");
        assert_eq!(solution.n_samples, 3);
        assert_eq!(allocations, 0, "sensitivities: {with_sensitivities}");
    }
}
