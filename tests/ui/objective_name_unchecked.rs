//! `Solver::objective` looks the cost up by name, and a name the model does not have is an
//! error (never a silent objective of zero): its result is a `Result`, so a solver whose
//! objective is unchecked cannot be solved or differentiated.
use hysens::prelude::*;

#[hybrid_model] mod ramp {
    #[states] pub struct X { pub x: f64 }
    #[params] pub struct P { pub k: f64 }
    #[mode(initial)] fn rise(p: &P) -> X { X { x: p.k } }
    #[cost(integral)] fn area(x: &X) -> f64 { x.x }
    #[cost(terminal)] fn height(x: &X) -> f64 { x.x }
}

fn main() {
    let (x0, p) = (ramp::X { x: 0.0 }, ramp::P { k: 1.0 });
    let _ = ramp::Model.solver().objective("area").gradient(0.0, 1.0, &x0, &p);
}
