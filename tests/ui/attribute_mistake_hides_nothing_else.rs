//! A mistake in an attribute's arguments that does not change where the item belongs (a
//! guard's direction, tokens after a surface's two modes) does not hide the item's other
//! mistakes: the unknown modes the same attribute names, its return type, its body.
use hysens::hybrid_model;

#[hybrid_model] mod relay {
    #[states] pub struct X { pub x: f64 }
    #[mode(initial)] fn low() -> X { X { x: 1.0 } }
    #[mode] fn high() -> X { X { x: -1.0 } }
    #[guard(lwo -> high, upward)] fn lift(x: &X) -> X { X { x: x.x } }
    #[switching_surface(low, hgih, rising)] fn wall(x: &X) -> f64 { x.x * 2 }
}

fn main() {}
