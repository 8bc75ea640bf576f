//! Hessenberg index-2 modes (`#[mode(index2)]`; Serban & Recuero 2019, §3.3, Eq. 15): the
//! kernels the macro generates for them, `hidden_constraint` (`H = k_y f + k_t`) and
//! `hidden_constraint_partials` (`H_y, H_z, H_p, H_t`), against their closed forms, against
//! the model's own `residual`, `jacobian` and `time_partials` kernels (`H = g_y f + g_t`, since
//! `g = k` in an index-2 mode), and against central differences of `H`; and `MODES[m].index2`.
//!
//! Mode `line` (index 2): `y1' = 1 + z`, `y2' = y1 − 2z`, `0 = y1 + y2 − a t`:
//! `H = (1 + z) + (y1 − 2z) − a = 1 + y1 − z − a`, `H_z = −1`.
//! Mode `bent` (index 2): `y1' = z y2`, `y2' = sin t + a z`, `0 = y1² + a y2 t`:
//! `H = 2 y1 z y2 + a t (sin t + a z) + a y2`, `H_z = 2 y1 y2 + a² t`.
//! Mode `free` (index 1): `y1' = y2`, `y2' = −y1`, `0 = z − y1`: no hidden constraint, and its
//! kernels write nothing.
#![deny(missing_docs)]

use hysens::hybrid_model;
use hysens::runtime::{ConditionPartials, HybridModel, Memory, ModeJacobian, Point};

/// The model.
#[hybrid_model]
pub mod slide {
    /// The states.
    #[states]
    pub struct X {
        /// First.
        pub y1: f64,
        /// Second.
        pub y2: f64,
    }
    /// The algebraic variable.
    #[algebraic]
    pub struct Z {
        /// The multiplier.
        pub z: f64,
    }
    /// The parameter.
    #[params]
    pub struct P {
        /// The constraint's rate.
        pub a: f64,
    }

    #[mode(index2, initial)]
    fn line(t: f64, x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (
            X {
                y1: 1.0 + z.z,
                y2: x.y1 - 2.0 * z.z,
            },
            [x.y1 + x.y2 - p.a * t],
        )
    }

    #[mode(index2)]
    fn bent(t: f64, x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (
            X {
                y1: z.z * x.y2,
                y2: t.sin() + p.a * z.z,
            },
            [x.y1 * x.y1 + p.a * x.y2 * t],
        )
    }

    #[mode]
    fn free(x: &X, z: &Z) -> (X, [f64; 1]) {
        (
            X {
                y1: x.y2,
                y2: -x.y1,
            },
            [z.z - x.y1],
        )
    }

    #[guard(line -> bent, rising)]
    fn over(x: &X) -> f64 {
        x.y1 - 1.0
    }

    #[guard(bent -> free, falling)]
    fn under(x: &X) -> f64 {
        x.y2
    }
}

type M = slide::Model;

/// A point `(t, y, z, p)`.
#[derive(Clone, Copy)]
struct At {
    t: f64,
    y: [f64; 2],
    z: [f64; 1],
    p: [f64; 1],
}

impl At {
    /// The points the tests evaluate at.
    fn all() -> Vec<At> {
        let mut points = Vec::new();
        for (k, t) in [0.0, 0.3, 1.7, -2.5].into_iter().enumerate() {
            let s = k as f64;
            points.push(At {
                t,
                y: [0.4 - 0.3 * s, -1.1 + 0.7 * s],
                z: [0.8 - 0.45 * s],
                p: [1.3 + 0.2 * s],
            });
        }
        points
    }

    /// `f` of the kernels' `Point` at this point (its memory: the point's own state).
    fn with_point<R>(&self, f: impl FnOnce(&Point<'_, 2, 1, 1>) -> R) -> R {
        let memory = Memory {
            y: self.y,
            z: self.z,
        };
        let at = Point {
            t: self.t,
            y: &self.y,
            z: &self.z,
            p: &self.p,
            memory: &memory,
        };
        f(&at)
    }

    /// `H` of `mode` by the generated kernel, starting from `fill` (to see what is written).
    fn hidden(&self, mode: usize, fill: f64) -> [f64; 1] {
        let mut h = [fill];
        self.with_point(|at| M::default().hidden_constraint(mode, at, &mut h));
        h
    }

    /// The partials of `H` of `mode` by the generated kernel (zeroed first, as the runtime
    /// does).
    fn partials(&self, mode: usize) -> ConditionPartials<2, 1, 1> {
        let mut partials = ConditionPartials::ZERO;
        self.with_point(|at| M::default().hidden_constraint_partials(mode, at, &mut partials));
        partials
    }

    /// `g_y f + g_t` of `mode` from the generated `residual`, `jacobian` and `time_partials`.
    fn by_other_kernels(&self, mode: usize) -> f64 {
        self.with_point(|at| {
            let model = M::default();
            let (mut f, mut g) = ([0.0; 2], [0.0; 1]);
            model.residual(mode, at, &mut f, &mut g);
            let mut jac = ModeJacobian::ZERO;
            model.jacobian(mode, at, &mut jac);
            let (mut ft, mut gt) = ([0.0; 2], [0.0; 1]);
            model.time_partials(mode, at, &mut ft, &mut gt);
            jac.gy[0][0] * f[0] + jac.gy[0][1] * f[1] + gt[0]
        })
    }

    /// `H` of `mode` in closed form.
    fn closed_form(&self, mode: usize) -> f64 {
        let ([y1, y2], [z], [a], t) = (self.y, self.z, self.p, self.t);
        match mode {
            0 => 1.0 + y1 - z - a,
            _ => 2.0 * y1 * z * y2 + a * t * (t.sin() + a * z) + a * y2,
        }
    }

    /// `(H_y1, H_y2, H_z, H_a, H_t)` of `mode` in closed form.
    fn closed_form_partials(&self, mode: usize) -> [f64; 5] {
        let ([y1, y2], [z], [a], t) = (self.y, self.z, self.p, self.t);
        match mode {
            0 => [1.0, 0.0, -1.0, -1.0, 0.0],
            _ => [
                2.0 * z * y2,
                2.0 * y1 * z + a,
                2.0 * y1 * y2 + a * a * t,
                t * (t.sin() + a * z) + a * t * z + y2,
                a * (t.sin() + a * z) + a * t * t.cos(),
            ],
        }
    }
}

/// Whether `a` and `b` agree to `tol`, relative to their size.
fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn modes_say_which_are_index_2() {
    let modes = <M as HybridModel<2, 1, 1>>::MODES;
    let index2: Vec<(&str, bool)> = modes.iter().map(|m| (m.name, m.index2)).collect();
    assert_eq!(index2, [("line", true), ("bent", true), ("free", false)]);
    assert!(modes[0].index2);
}

#[test]
fn hidden_constraint_is_k_y_f_plus_k_t() {
    for at in At::all() {
        for mode in [0, 1] {
            let h = at.hidden(mode, f64::NAN)[0];
            let exact = at.closed_form(mode);
            assert!(close(h, exact, 1e-14), "mode {mode}: {h} ≠ {exact}");
            let other = at.by_other_kernels(mode);
            assert!(
                close(h, other, 1e-14),
                "mode {mode}: {h} ≠ g_y f + g_t = {other}"
            );
        }
    }
}

#[test]
fn hidden_constraint_partials_match_the_closed_form() {
    for at in At::all() {
        for mode in [0, 1] {
            let c = at.partials(mode);
            let got = [c.cy[0][0], c.cy[0][1], c.cz[0][0], c.cp[0][0], c.ct[0]];
            let exact = at.closed_form_partials(mode);
            for (k, (g, e)) in got.iter().zip(exact).enumerate() {
                assert!(close(*g, e, 1e-14), "mode {mode}, partial {k}: {g} ≠ {e}");
            }
        }
    }
}

#[test]
fn hidden_constraint_partials_match_central_differences() {
    let step = 1e-6;
    for at in At::all() {
        for mode in [0, 1] {
            let c = at.partials(mode);
            let got = [c.cy[0][0], c.cy[0][1], c.cz[0][0], c.cp[0][0], c.ct[0]];
            let shifted = |k: usize, by: f64| {
                let mut moved = at;
                match k {
                    0 => moved.y[0] += by,
                    1 => moved.y[1] += by,
                    2 => moved.z[0] += by,
                    3 => moved.p[0] += by,
                    _ => moved.t += by,
                }
                moved.hidden(mode, 0.0)[0]
            };
            for (k, g) in got.iter().enumerate() {
                let fd = (shifted(k, step) - shifted(k, -step)) / (2.0 * step);
                assert!(close(*g, fd, 1e-7), "mode {mode}, partial {k}: {g} ≠ {fd}");
            }
        }
    }
}

#[test]
fn other_modes_write_nothing() {
    for at in At::all() {
        assert_eq!(at.hidden(2, 7.0), [7.0]);
        assert_eq!(at.partials(2), ConditionPartials::ZERO);
        // Out of range: nothing either.
        assert_eq!(at.hidden(3, 7.0), [7.0]);
    }
}
