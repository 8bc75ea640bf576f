//! `#[hybrid_model(crate = crate::deps::physics)]` for a crate that reaches `hysens` through a
//! re-export: every generated path goes through it, and the model solves.
mod deps {
    pub use hysens as physics;
}

use deps::physics::runtime::{HybridOptions, HybridOutputs, HybridSolution};

#[deps::physics::hybrid_model(crate = crate::deps::physics)]
mod decay {
    #[states] pub struct X { pub u: f64 }
    #[params] pub struct P { pub k: f64 }
    #[mode(initial)] fn decaying(x: &X, p: &P) -> X { X { u: -p.k * x.u } }
    #[cost(terminal)] fn last(x: &X) -> f64 { x.u }
}

fn main() {
    let problem = decay::Model::problem(0.0, 1.0, &decay::X { u: 1.0 }, &decay::P { k: 2.0 });
    let mut outputs = HybridOutputs { samples: &mut [], events: None, steps: None, dense: None };
    let mut solution = HybridSolution::ZERO;
    let options = HybridOptions::new(1e-10, 1e-12);
    let solved = decay::Model.solve_with_sensitivities(&problem, &options, &mut outputs, &mut solution);
    solved.expect("the decay solves");
    let exact = (-2.0f64).exp();
    assert!((solution.y[0] - exact).abs() < 1e-6);
    // dG/dk = d u(1)/dk = -t e^{-kt} at t = 1.
    assert!((solution.cost_gradient[0] + exact).abs() < 1e-5);
    assert_eq!(decay::Model::mode_name(0), Some("decaying"));
    assert_eq!(decay::Model::guard_name(0), None);
}
