//! A mistake inside a mode's body (an unknown field) is the only error: the code below, which
//! uses everything the macro generates, reports nothing of its own, because a model with errors
//! still expands to its shell (sizes, names, conversions, entry points) and stub kernels.
use hysens::hybrid_model;
use hysens::runtime::{
    AdjointProducts, HybridModel, HybridOptions, HybridOutputs, HybridSolution, InitialStates,
    Params, Wrt,
};

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub g: f64, pub e: f64 }
    #[mode(initial)] fn flight(x: &X, p: &P) -> X { X { h: x.w, v: -p.g } }
    #[guard(flight -> flight, falling)] fn impact(x: &X, _p: &P) -> f64 { x.h }
    #[reset(impact)] fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.v } }
}

fn sizes(_model: &impl HybridModel<2, 0, 2>) -> usize { ball::Model::NY + ball::Model::NZ + ball::Model::NP }

fn adjoint(_model: &impl AdjointProducts<2, 0, 2>) {}

fn main() {
    let x0 = ball::X { h: 1.0, v: 0.0 };
    let names: [&str; 2] = ball::X::NAMES;
    let p = ball::P::from_array([9.81, 0.9]);
    let problem = ball::Model::problem(0.0, 1.0, &x0, &p);
    let mut outputs = HybridOutputs { samples: &mut [], events: None, steps: None, dense: None };
    let mut solution = HybridSolution::ZERO;
    let options = HybridOptions::new(1e-8, 1e-10);
    let result = ball::Model.solve_with_sensitivities(&problem, &options, &mut outputs, &mut solution);
    let memory = ball::Memory { y: x0 };
    let _ = (names, result, memory.y.to_array(), sizes(&ball::Model));
    let _ = (ball::Model::mode_name(0), ball::Model::guard_name(0));
    adjoint(&ball::Model);
    // The solving API on the model with errors.
    let solver = ball::Model.solver().tolerances(1e-8, 1e-10);
    let solver = solver.sensitivities_to(Params::All, InitialStates::All);
    let owned = solver.solve(0.0, 1.0, &ball::X { h: 1.0, v: 0.0 }, &p);
    if let Ok(solution) = owned {
        let x: &ball::X = &solution.x;
        let _ = (x.h, solution.sensitivity("h", Wrt::InitialState("v")));
    }
}
