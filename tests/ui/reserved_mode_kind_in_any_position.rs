//! A reserved mode kind gives its "reserved" message wherever it is in `#[mode(..)]`: after
//! `initial`, before it, after `initial_if(..)`, next to `index2`, with arguments of its own,
//! and next to another reserved kind (each reported). The code below, which uses the model,
//! reports nothing.
use hysens::hybrid_model;

#[hybrid_model] mod arm {
    #[states] pub struct X { pub q: f64, pub w: f64 }
    #[mode(initial, mechanical)] fn free(x: &X) -> X { X { q: x.w, w: -x.q } }
    #[mode(sliding, initial)] fn held(x: &X) -> X { X { q: x.w, w: 0.0 } }
    #[mode(initial_if(contact, positive), mechanical)] fn pressed(x: &X) -> X { X { q: 0.0, w: x.q } }
    #[mode(index2, mechanical(2))] fn swinging(x: &X) -> X { X { q: x.w, w: -x.q } }
    #[mode(sliding, mechanical)] fn rubbing(x: &X) -> X { X { q: x.w, w: -x.w } }
    #[guard(free -> held, falling)] fn contact(x: &X) -> f64 { x.q }
}

fn main() {
    let _ = (arm::Model::NY, arm::X::NAMES);
}
