//! Corners of the model language that the five paper/issue models do not reach, each model
//! checked kernel by kernel against num-dual (see `support`):
//!
//! - `noparams`: no `#[params]` (`NP = 0`), a constant defined from another constant and
//!   `core::f64::consts::PI`, a `let` in a mode body, the time named `_t`, `atan`, `exp_m1`,
//!   `hypot`, `powf`, a guard reading `t` with direction `either`, a reset reading the memory,
//!   a sampled cost whose datum is not called `d` and that reads `t`;
//! - `daeprobe`: a DAE without parameters, structs not named `X`/`Z`, a state field named `t`
//!   and one named `y` (so `mem.y.y`), memory read only through `z*` in `g`, a mode with no
//!   parameters at all (constant equations), `-x.powi(2)` (unary minus below a method call),
//!   `abs`, `recip`, `sinh`, a guard reading only the memory and `y`, an integral cost reading
//!   `z*`;
//! - `affine`: which modes have a constant Jacobian (`ModeInfo::constant_jacobian`).
#![deny(missing_docs)]

use crate::support;

use hysens::hybrid_model;
use hysens::runtime::{HybridModel, Memory};
use support::{check_model, Reference, Rng, Scalar, Vars};

/// No parameters at all; a time-dependent guard; a reset reading memory; `_t`.
#[hybrid_model]
pub mod noparams {
    /// The states.
    #[states]
    pub struct X {
        /// First state.
        pub a: f64,
        /// Second state.
        pub b: f64,
    }
    const K: f64 = 2.0;
    const TWO_K: f64 = 2.0 * K + core::f64::consts::PI;
    #[mode(initial)]
    fn only(x: &X, _t: f64) -> X {
        let s = x.a * x.b;
        X {
            a: -TWO_K * s,
            b: (s).atan() + _t.exp_m1(),
        }
    }
    #[guard(only -> only, either)]
    fn tick(x: &X, t: f64) -> f64 {
        t - x.a.hypot(x.b)
    }
    #[reset(tick)]
    fn jump(x: &X, m: &Memory) -> X {
        X {
            a: m.y.a,
            b: x.b + m.y.b.powf(2.5),
        }
    }
    #[cost(sampled)]
    fn s(x: &X, data: f64, t: f64) -> f64 {
        (x.a - data).powi(2) * t
    }
}

/// `noparams` again, in plain Rust over a number type.
struct NoParams;
impl Reference<2, 0, 0> for NoParams {
    fn f<D: Scalar>(&self, _m: usize, v: &Vars<D, 2, 0, 0>) -> [D; 2] {
        let s = v.y[0] * v.y[1];
        [
            -(s * (4.0 + core::f64::consts::PI)),
            s.atan() + v.t.exp_m1(),
        ]
    }
    fn guard<D: Scalar>(&self, _g: usize, v: &Vars<D, 2, 0, 0>) -> D {
        v.t - (v.y[0].powi(2) + v.y[1].powi(2)).sqrt()
    }
    fn reset<D: Scalar>(&self, _g: usize, v: &Vars<D, 2, 0, 0>) -> Option<[D; 2]> {
        Some([v.ys[0], v.y[1] + v.ys[1].powf(2.5)])
    }
    fn sampled_cost<D: Scalar>(&self, v: &Vars<D, 2, 0, 0>, d: D) -> Option<D> {
        Some((v.y[0] - d).powi(2) * v.t)
    }
}

#[test]
fn noparams_kernels_match_num_dual() {
    let mut rng = Rng::new(9);
    let pts: Vec<_> = (0..16)
        .map(|_| {
            let y = rng.array(-2.0, 2.0);
            let m = Memory {
                y: rng.array(0.1, 2.0),
                z: [],
            };
            let t = rng.uniform(0.0, 3.0);
            rng.point(t, y, [], [], m)
        })
        .collect();
    check_model("noparams", &noparams::Model, &NoParams, &pts);
}

/// A DAE without parameters; memory read through z* only; constant mode; `-x.powi(2)`.
#[hybrid_model]
pub mod daeprobe {
    /// The states.
    #[states]
    pub struct State {
        /// A state named like the memory's field.
        pub y: f64,
        /// A state named like the time.
        pub t: f64,
    }
    /// The algebraic variable.
    #[algebraic]
    pub struct Alg {
        /// The algebraic variable.
        pub q: f64,
    }
    #[mode(initial)]
    fn first(s: &State, a: &Alg, mem: &Memory) -> (State, [f64; 1]) {
        (
            State {
                y: -s.y.powi(2),
                t: a.q.abs(),
            },
            [a.q.sinh() + a.q - mem.z.q * s.t.recip()],
        )
    }
    #[mode]
    fn second() -> (State, [f64; 1]) {
        (State { y: 1.0, t: 0.0 }, [2.0])
    }
    #[guard(first -> second, rising)]
    fn go(s: &State, mem: &Memory) -> f64 {
        mem.y.y - mem.y.t + s.y
    }
    #[cost(integral)]
    fn l(a: &Alg, mem: &Memory) -> f64 {
        a.q * mem.z.q
    }
}

/// `daeprobe` again, in plain Rust over a number type.
struct DaeProbe;
impl Reference<2, 1, 0> for DaeProbe {
    fn f<D: Scalar>(&self, m: usize, v: &Vars<D, 2, 1, 0>) -> [D; 2] {
        if m == 0 {
            [-v.y[0].powi(2), v.z[0].abs()]
        } else {
            [D::from(1.0), D::from(0.0)]
        }
    }
    fn g<D: Scalar>(&self, m: usize, v: &Vars<D, 2, 1, 0>) -> [D; 1] {
        if m == 0 {
            [v.z[0].sinh() + v.z[0] - v.zs[0] * v.y[1].recip()]
        } else {
            [D::from(2.0)]
        }
    }
    fn guard<D: Scalar>(&self, _g: usize, v: &Vars<D, 2, 1, 0>) -> D {
        v.ys[0] - v.ys[1] + v.y[0]
    }
    fn integral_cost<D: Scalar>(&self, _m: usize, v: &Vars<D, 2, 1, 0>) -> Option<D> {
        Some(v.z[0] * v.zs[0])
    }
}

#[test]
fn daeprobe_kernels_match_num_dual() {
    let mut rng = Rng::new(10);
    let pts: Vec<_> = (0..16)
        .map(|_| {
            let y = [rng.uniform(-2.0, 2.0), rng.uniform(0.5, 2.0)];
            let m = Memory {
                y: rng.array(-2.0, 2.0),
                z: rng.array(-2.0, 2.0),
            };
            let t = rng.uniform(0.0, 3.0);
            let z = [rng.uniform(-2.0, 2.0)];
            rng.point(t, y, z, [], m)
        })
        .collect();
    check_model("daeprobe", &daeprobe::Model, &DaeProbe, &pts);
    assert!(<daeprobe::Model as HybridModel<2, 1, 0>>::MODES[0].uses_memory);
    assert!(!<daeprobe::Model as HybridModel<2, 1, 0>>::MODES[1].uses_memory);
    // `first` is nonlinear; `second` has constant equations.
    assert!(!<daeprobe::Model as HybridModel<2, 1, 0>>::MODES[0].constant_jacobian);
    assert!(<daeprobe::Model as HybridModel<2, 1, 0>>::MODES[1].constant_jacobian);
    assert!(!<noparams::Model as HybridModel<2, 0, 0>>::MODES[0].constant_jacobian);
}

/// Which modes the macro proves affine (`ModeInfo::constant_jacobian`): coefficients may read
/// parameters and the memory, offsets may read `t`; a coefficient reading `t`, or a product of
/// unknowns, is not constant.
#[hybrid_model]
pub mod affine {
    /// The state.
    #[states]
    pub struct X {
        /// The state.
        pub x: f64,
    }
    /// The algebraic variable.
    #[algebraic]
    pub struct Z {
        /// The algebraic variable.
        pub z: f64,
    }
    /// The parameter.
    #[params]
    pub struct P {
        /// A rate.
        pub k: f64,
    }
    #[mode(initial)]
    fn constant(x: &X, z: &Z, p: &P, t: f64, m: &Memory) -> (X, [f64; 1]) {
        (
            X {
                x: -p.k * m.y.x * x.x + z.z + t.sin(),
            },
            [z.z - 2.0 * x.x + p.k.exp() * m.z.z],
        )
    }
    #[mode]
    fn time_varying(x: &X, z: &Z, t: f64) -> (X, [f64; 1]) {
        (X { x: -t * x.x }, [z.z - x.x])
    }
    #[mode]
    fn bilinear(x: &X, z: &Z) -> (X, [f64; 1]) {
        (X { x: z.z }, [z.z * x.x - 1.0])
    }
    #[guard(constant -> time_varying, rising)]
    fn first(x: &X) -> f64 {
        x.x - 1.0
    }
    #[guard(time_varying -> bilinear, rising)]
    fn second(x: &X) -> f64 {
        x.x - 2.0
    }
}

#[test]
fn affine_modes_are_detected() {
    let modes = <affine::Model as HybridModel<1, 1, 1>>::MODES;
    let constant: Vec<bool> = modes.iter().map(|m| m.constant_jacobian).collect();
    assert_eq!(constant, [true, false, false]);
}
