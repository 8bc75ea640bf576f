//! Not supported yet, each reported at its span: an index-2 mode that reads the memory, a
//! terminal guard leaving an index-2 mode, and a switching surface next to an index-2 mode
//! (which also meets the rule that surfaces separate ODE modes). The code below, which uses
//! the model, reports nothing.
use hysens::hybrid_model;

#[hybrid_model] mod crane {
    #[states] pub struct X { pub q: f64, pub v: f64 }
    #[algebraic] pub struct Z { pub w: f64 }
    #[mode(initial, index2)] fn lifting(x: &X, z: &Z, m: &Memory) -> (X, [f64; 1]) {
        (X { q: x.v, v: z.w }, [x.q - m.y.q])
    }
    #[mode(index2)] fn lowering(x: &X, z: &Z) -> (X, [f64; 1]) {
        (X { q: x.v, v: z.w }, [x.q + 1.0])
    }
    #[mode] fn free(x: &X, z: &Z) -> (X, [f64; 1]) {
        (X { q: x.v, v: -9.81 }, [z.w - x.q])
    }
    #[guard(lifting -> lowering, rising)] fn top(x: &X) -> f64 { x.q - 2.0 }
    #[guard(lowering -> stop, falling)] fn ground(x: &X) -> f64 { x.q }
    #[switching_surface(lowering, free)] fn rope(x: &X) -> f64 { x.v }
}

fn main() {
    let _ = crane::Model::mode_name(0);
}
