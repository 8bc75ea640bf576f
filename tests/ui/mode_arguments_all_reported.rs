//! Every mistake in `#[mode(..)]` arguments is reported at its own span, not only the first:
//! a misspelt `initial` next to a reserved kind, `initial` given twice, `initial` next to
//! `initial_if(..)`, and a wrong sign.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(intial, mechanical)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[mode(initial, initial)] fn resting(_x: &X) -> X { X { h: 0.0, v: 0.0 } }
    #[mode(initial, initial_if(impact, negative))] fn rolling(x: &X) -> X { X { h: 0.0, v: x.v } }
    #[mode(initial_if(impact, postive))] fn sliding(x: &X) -> X { X { h: 0.0, v: -x.v } }
    #[guard(flight -> resting, falling)] fn impact(x: &X) -> f64 { x.h }
}

fn main() {}
