//! The bouncing ball as a `#[hybrid_model]`.
use hysens::hybrid_model;

#[hybrid_model]
pub mod ball {
    /// Height and velocity.
    #[states]
    pub struct X {
        pub h: f64,
        pub v: f64,
    }
    #[params]
    pub struct P {
        pub g: f64,
        pub e: f64,
    }

    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X { h: x.v, v: -p.g }
    }

    #[guard(flight -> flight, falling)]
    fn impact(x: &X, _p: &P) -> f64 {
        x.h
    }

    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            h: x.h,
            v: -p.e * x.v,
        }
    }

    #[cost(terminal)]
    fn height(x: &X, _p: &P) -> f64 {
        x.h
    }
}

#[test]
fn compiles() {
    use hysens::runtime::hybrid_model::HybridModel;
    assert_eq!(ball::Model::NY, 2);
    assert_eq!(<ball::Model as HybridModel<2, 0, 2>>::GUARDS.len(), 1);
}
