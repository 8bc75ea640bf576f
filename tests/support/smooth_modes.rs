//! Smooth modes for the tests of the ESDIRK integrator alone (`Esdirk`, below the hybrid
//! driver): each is one DAE `y' = f(t, y, z, p)`, `0 = g(t, y, z, p)` written against the
//! integrator's own interface, [`SmoothMode`], with its closed form or a reference solution:
//! [`Smooth`], [`CubicDae`], [`Linear`], [`Scalar`]. They are written by hand because
//! `#[hybrid_model]` generates hybrid models, not smooth modes, and these tests exercise the
//! integrator without the hybrid layer.
//!
//! A mode of a model written once with `#[hybrid_model]` (Robertson's kinetics,
//! `support/models.rs`) reaches the integrator through [`ModeOf`], which presents it as a
//! smooth mode.
#![allow(dead_code)] // each test binary uses a subset
#![allow(clippy::excessive_precision)] // reference values are quoted with all their digits

use hysens::runtime::smooth::SmoothMode;
use hysens::runtime::{HybridModel, Memory, ModeJacobian, Point};

/// Mode `mode` of the hybrid model `model`, with zero memory, as a [`SmoothMode`]: its
/// residual and Jacobians are the model's at that mode. For the integrator tests of a model
/// written with `#[hybrid_model]` (the runtime's own adapter of a mode, which also carries the
/// memory and its sensitivities for the hybrid driver, is not public).
#[derive(Debug)]
pub struct ModeOf<'a, M> {
    /// The model.
    pub model: &'a M,
    /// The mode.
    pub mode: usize,
}

impl<'a, M> ModeOf<'a, M> {
    /// The first mode of `model`: the one mode of a single-mode model such as Robertson's
    /// kinetics (`support/models.rs`).
    pub const fn first(model: &'a M) -> Self {
        ModeOf { model, mode: 0 }
    }
}

impl<M, const NY: usize, const NZ: usize, const NP: usize> SmoothMode<NY, NZ, NP> for ModeOf<'_, M>
where
    M: HybridModel<NY, NZ, NP>,
{
    type Store = M::Store;
    fn f(&self, t: f64, y: &[f64; NY], z: &[f64; NZ], p: &[f64; NP], out: &mut [f64; NY]) {
        self.residual(t, y, z, p, out, &mut [0.0; NZ]);
    }
    fn g(&self, t: f64, y: &[f64; NY], z: &[f64; NZ], p: &[f64; NP], out: &mut [f64; NZ]) {
        self.residual(t, y, z, p, &mut [0.0; NY], out);
    }
    fn residual(
        &self,
        t: f64,
        y: &[f64; NY],
        z: &[f64; NZ],
        p: &[f64; NP],
        f: &mut [f64; NY],
        g: &mut [f64; NZ],
    ) {
        let memory = Memory::ZERO;
        let at = Point {
            t,
            y,
            z,
            p,
            memory: &memory,
        };
        self.model.residual(self.mode, &at, f, g);
    }
    fn jacobian(
        &self,
        t: f64,
        y: &[f64; NY],
        z: &[f64; NZ],
        p: &[f64; NP],
        jac: &mut ModeJacobian<NY, NZ, M::Store>,
    ) {
        let memory = Memory::ZERO;
        let at = Point {
            t,
            y,
            z,
            p,
            memory: &memory,
        };
        self.model.jacobian(self.mode, &at, jac);
    }
    fn parameter_jacobian(
        &self,
        t: f64,
        y: &[f64; NY],
        z: &[f64; NZ],
        p: &[f64; NP],
        fp: &mut [[f64; NP]; NY],
        gp: &mut [[f64; NP]; NZ],
    ) {
        let memory = Memory::ZERO;
        let at = Point {
            t,
            y,
            z,
            p,
            memory: &memory,
        };
        self.model.parameter_jacobian(self.mode, &at, fp, gp);
    }
    fn time_partials(
        &self,
        t: f64,
        y: &[f64; NY],
        z: &[f64; NZ],
        p: &[f64; NP],
        ft: &mut [f64; NY],
        gt: &mut [f64; NZ],
    ) {
        let memory = Memory::ZERO;
        let at = Point {
            t,
            y,
            z,
            p,
            memory: &memory,
        };
        self.model.time_partials(self.mode, &at, ft, gt);
    }
    fn jacobian_is_constant(&self) -> bool {
        M::MODES[self.mode].constant_jacobian
    }
}

/// y1' = −y1², y2' = cos(t)·y2; exact y1 = 1/(1+t) (y1(0) = 1), y2 = exp(sin t) (y2(0) = 1).
#[derive(Debug)]
pub struct Smooth;
impl SmoothMode<2, 0, 0> for Smooth {
    type Store = hysens::runtime::Inline;
    fn f(&self, t: f64, y: &[f64; 2], _: &[f64; 0], _: &[f64; 0], o: &mut [f64; 2]) {
        o[0] = -y[0] * y[0];
        o[1] = libm::cos(t) * y[1];
    }
    fn g(&self, _: f64, _: &[f64; 2], _: &[f64; 0], _: &[f64; 0], _: &mut [f64; 0]) {}
    fn jacobian(
        &self,
        t: f64,
        y: &[f64; 2],
        _: &[f64; 0],
        _: &[f64; 0],
        j: &mut ModeJacobian<2, 0>,
    ) {
        j.fy[0][0] = -2.0 * y[0];
        j.fy[1][1] = libm::cos(t);
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        _: &[f64; 2],
        _: &[f64; 0],
        _: &[f64; 0],
        _: &mut [[f64; 0]; 2],
        _: &mut [[f64; 0]; 0],
    ) {
    }
}
/// The exact solution of [`Smooth`] at `t`.
pub fn smooth_exact(t: f64) -> [f64; 2] {
    [1.0 / (1.0 + t), libm::exp(libm::sin(t))]
}

/// A small index-1 DAE with a parameter p = [u]:
/// x1' = −u x1 + z, x2' = x1 − x2 z, 0 = z³ + z − x1 x2 − u; run from x(0) = (1, 0.5),
/// z(0) = 1 at u = 0.7 on [0, 1] (see [`CUBIC_DAE_X1`]).
#[derive(Debug)]
pub struct CubicDae;
impl SmoothMode<2, 1, 1> for CubicDae {
    type Store = hysens::runtime::Inline;
    fn f(&self, _: f64, x: &[f64; 2], z: &[f64; 1], p: &[f64; 1], o: &mut [f64; 2]) {
        o[0] = -p[0] * x[0] + z[0];
        o[1] = x[0] - x[1] * z[0];
    }
    fn g(&self, _: f64, x: &[f64; 2], z: &[f64; 1], p: &[f64; 1], o: &mut [f64; 1]) {
        o[0] = z[0] * z[0] * z[0] + z[0] - x[0] * x[1] - p[0];
    }
    fn jacobian(
        &self,
        _: f64,
        x: &[f64; 2],
        z: &[f64; 1],
        p: &[f64; 1],
        j: &mut ModeJacobian<2, 1>,
    ) {
        j.fy = [[-p[0], 0.0], [1.0, -z[0]]];
        j.fz = [[1.0], [-x[1]]];
        j.gy = [[-x[1], -x[0]]];
        j.gz = [[3.0 * z[0] * z[0] + 1.0]];
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        x: &[f64; 2],
        _: &[f64; 1],
        _: &[f64; 1],
        fp: &mut [[f64; 1]; 2],
        gp: &mut [[f64; 1]; 1],
    ) {
        fp[0][0] = -x[0];
        gp[0][0] = -1.0;
    }
}

/// The DAE above at t = 1 (u = 0.7): reference from ESDIRK34 with N = 4096 fixed steps in
/// 50-digit arithmetic; its own error is ≈ 6.2e-6·(10/4096)³ ≈ 1e-13.
pub const CUBIC_DAE_X1: [f64; 2] = [1.116889410843720, 0.916851892065798];
/// z(1) of the DAE above.
pub const CUBIC_DAE_Z1: f64 = 0.927118543605219;

/// Linear system with closed form: a damped oscillator y1' = −y1 + 10 y2, y2' = −10 y1 − y2
/// and a stiff forced component y3' = −1000 (y3 − cos t) − sin t.
/// Exact: y1 = e^{−t}(cos 10t + sin 10t), y2 = e^{−t}(cos 10t − sin 10t) for y(0) = (1, 1),
/// y3 = cos t + e^{−1000 t} for y3(0) = 2.
#[derive(Debug)]
pub struct Linear;
impl SmoothMode<3, 0, 0> for Linear {
    type Store = hysens::runtime::Inline;
    fn f(&self, t: f64, y: &[f64; 3], _: &[f64; 0], _: &[f64; 0], o: &mut [f64; 3]) {
        o[0] = -y[0] + 10.0 * y[1];
        o[1] = -10.0 * y[0] - y[1];
        o[2] = -1000.0 * (y[2] - libm::cos(t)) - libm::sin(t);
    }
    fn g(&self, _: f64, _: &[f64; 3], _: &[f64; 0], _: &[f64; 0], _: &mut [f64; 0]) {}
    fn jacobian(
        &self,
        _: f64,
        _: &[f64; 3],
        _: &[f64; 0],
        _: &[f64; 0],
        j: &mut ModeJacobian<3, 0>,
    ) {
        j.fy = [[-1.0, 10.0, 0.0], [-10.0, -1.0, 0.0], [0.0, 0.0, -1000.0]];
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        _: &[f64; 3],
        _: &[f64; 0],
        _: &[f64; 0],
        _: &mut [[f64; 0]; 3],
        _: &mut [[f64; 0]; 0],
    ) {
    }
}
/// The exact solution of [`Linear`] at `t`.
pub fn linear_exact(t: f64) -> [f64; 3] {
    let e = libm::exp(-t);
    let (s, c) = (libm::sin(10.0 * t), libm::cos(10.0 * t));
    [
        e * (c + s),
        e * (c - s),
        libm::cos(t) + libm::exp(-1000.0 * t),
    ]
}

/// Scalar y' = λ y + a·3t² with λ and a as parameters (for exactness checks).
#[derive(Debug)]
pub struct Scalar;
impl SmoothMode<1, 0, 2> for Scalar {
    type Store = hysens::runtime::Inline;
    fn f(&self, t: f64, y: &[f64; 1], _: &[f64; 0], p: &[f64; 2], o: &mut [f64; 1]) {
        o[0] = p[0] * y[0] + p[1] * 3.0 * t * t;
    }
    fn g(&self, _: f64, _: &[f64; 1], _: &[f64; 0], _: &[f64; 2], _: &mut [f64; 0]) {}
    fn jacobian(
        &self,
        _: f64,
        _: &[f64; 1],
        _: &[f64; 0],
        p: &[f64; 2],
        j: &mut ModeJacobian<1, 0>,
    ) {
        j.fy[0][0] = p[0];
    }
    fn parameter_jacobian(
        &self,
        t: f64,
        y: &[f64; 1],
        _: &[f64; 0],
        _: &[f64; 2],
        fp: &mut [[f64; 2]; 1],
        _: &mut [[f64; 2]; 0],
    ) {
        fp[0] = [y[0], 3.0 * t * t];
    }
}
