//! A guard that returns the wrong type and a reset for an unknown guard (mistakes `validate`
//! finds) are the only errors: the code below, which uses the generated items, reports nothing
//! of its own.
use hysens::hybrid_model;
use hysens::runtime::{HybridModel, HybridOptions, HybridOutputs, HybridSolution};

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub g: f64, pub e: f64 }
    #[mode(initial)] fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
    #[guard(flight -> flight, falling)] fn impact(x: &X, _p: &P) -> X { X { h: x.h, v: x.v } }
    #[reset(impakt)] fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.v } }
}

fn state_names<M: HybridModel<2, 0, 2>>(_model: &M) -> [&'static str; 2] { M::STATE_NAMES }

fn main() {
    let problem = ball::Model::problem(0.0, 1.0, &ball::X { h: 1.0, v: 0.0 }, &ball::P { g: 9.81, e: 0.9 });
    let mut outputs = HybridOutputs { samples: &mut [], events: None, steps: None, dense: None };
    let mut solution = HybridSolution::ZERO;
    let result = ball::Model.solve(&problem, &HybridOptions::new(1e-8, 1e-10), &mut outputs, &mut solution);
    let p: [f64; 2] = ball::Model::parameters(&ball::P { g: 9.81, e: 0.9 }).to_array();
    let _ = (result, p, state_names(&ball::Model), ball::Model::JACOBIAN_NONZEROS);
}
