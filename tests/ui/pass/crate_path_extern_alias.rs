//! `#[hybrid_model(crate = hy)]` for a crate that knows `hysens` as `hy`: every generated path
//! goes through `hy`, and the model solves. Also checks `Model::mode_name` and
//! `Model::guard_name`.
extern crate hysens as hy;

use hy::runtime::{EventRecord, HybridModel, HybridOptions, HybridOutputs, HybridSolution};

/// A ball that bounces until it rests on the ground.
#[hy::hybrid_model(crate = hy)]
pub mod ball {
    /// Height and velocity.
    #[states] pub struct X { /** Height. */ pub h: f64, /** Upward velocity. */ pub v: f64 }
    /// Gravity and restitution.
    #[params] pub struct P {
        /** Gravitational acceleration. */ pub g: f64,
        /** Coefficient of restitution. */ pub e: f64,
    }
    #[mode(initial)] fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
    #[mode] fn resting(_x: &X) -> X { X { h: 0.0, v: 0.0 } }
    #[guard(flight -> flight, falling)] fn impact(x: &X, _p: &P) -> f64 { x.h }
    #[reset(impact)] fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.v } }
    #[guard(flight -> resting, falling)] fn settle(x: &X, _p: &P) -> f64 { x.v + 100.0 }
    #[cost(terminal)] fn height(x: &X, _p: &P) -> f64 { x.h }
}

fn modes<M: HybridModel<2, 0, 2>>(_model: &M) -> usize { M::MODES.len() }

fn main() {
    assert_eq!(modes(&ball::Model), 2);
    assert_eq!(ball::Model::mode_name(0), Some("flight"));
    assert_eq!(ball::Model::mode_name(1), Some("resting"));
    assert_eq!(ball::Model::mode_name(2), None);
    assert_eq!(ball::Model::guard_name(0), Some("impact"));
    assert_eq!(ball::Model::guard_name(1), Some("settle"));
    assert_eq!(ball::Model::guard_name(usize::MAX), None);

    let problem = ball::Model::problem(0.0, 1.0, &ball::X { h: 1.0, v: 0.0 }, &ball::P { g: 9.81, e: 0.9 });
    let mut events = [EventRecord::ZERO; 4];
    let mut outputs = HybridOutputs { samples: &mut [], events: Some(&mut events), steps: None, dense: None };
    let mut solution = HybridSolution::ZERO;
    let options = HybridOptions::new(1e-8, 1e-10);
    let solved = ball::Model.solve_with_sensitivities(&problem, &options, &mut outputs, &mut solution);
    solved.expect("the ball solves");
    assert_eq!(solution.n_events, 1);
    let first = &events[0];
    assert_eq!(ball::Model::guard_name(first.guard), Some("impact"));
    // The ball falls from 1 m: it lands at t = sqrt(2 / g).
    assert!((first.t - (2.0f64 / 9.81).sqrt()).abs() < 1e-6);
}
