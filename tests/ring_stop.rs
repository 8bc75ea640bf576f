//! A constrained impact with a closed form (Corner, Sandu & Sandu's map (c): the independent
//! velocity jumped, the dependent one re-projected with the post-event constraints): a bead on
//! a frictionless ring of radius `L` (no gravity), written in Cartesian coordinates as a
//! stabilized index-2 mode (`q' = v + q μ`, `v' = −q λ`, `0 = (|q|² − L²)/2`, `0 = q·v`), hits a
//! stop at `x = −d`. The impact keeps the position and jumps the independent velocity `u`
//! (horizontal) with restitution `e`, `u⁺ = −e u⁻`; the dependent `w` follows from the
//! post-impact velocity constraint `x u⁺ + y w⁺ = 0`.
//!
//! **The closed form** (angle `θ` from the downward vertical, `x = L sin θ`, `y = −L cos θ`):
//! from `θ = a` at speed `θ' = ω < 0`, `θ = a + ωt` until the stop at `θ_w = −asin(d/L)`, at
//! `t₁ = (θ_w − a)/ω`; then `θ = θ_w − eω (t − t₁)`, away from the stop (the next contact, from
//! the other side of the ring, is after `T`). `λ = θ'²` (the centripetal acceleration per unit
//! length). The cost `G = y(T) + 0.1 λ(T) + ∫₀ᵀ x² dt`, with `∫ L² sin²θ dt` over each arc of
//! constant `θ'` equal to `L² [θ/2 − sin 2θ/4]/θ'` between its ends.

use hysens::prelude::*;
use num_dual::{Dual64, DualNum};

#[hybrid_model]
mod ring {
    /// Position and velocity of the bead.
    #[states]
    pub struct X {
        /// Horizontal position.
        pub x: f64,
        /// Vertical position.
        pub y: f64,
        /// Horizontal velocity (the independent one at the stop).
        pub u: f64,
        /// Vertical velocity.
        pub w: f64,
    }

    /// The multipliers of the position and velocity constraints.
    #[algebraic]
    pub struct Z {
        /// `λ`.
        pub lam: f64,
        /// `μ`.
        pub mu: f64,
    }

    /// Radius, restitution, the stop's distance, the start angle and angular speed.
    #[params]
    pub struct P {
        /// `L`.
        pub l: f64,
        /// `e`.
        pub e: f64,
        /// `d`.
        pub d: f64,
        /// `a`.
        pub a: f64,
        /// `ω`.
        pub om: f64,
    }

    /// On the ring at angle `a`, turning at `ω`.
    #[initial_state]
    fn start(p: &P) -> X {
        X {
            x: p.l * p.a.sin(),
            y: -p.l * p.a.cos(),
            u: p.l * p.a.cos() * p.om,
            w: p.l * p.a.sin() * p.om,
        }
    }

    /// Sliding on the ring (GGL, index 2).
    #[mode(initial, index2)]
    fn sliding(x: &X, z: &Z, p: &P) -> (X, [f64; 2]) {
        (
            X {
                x: x.u + x.x * z.mu,
                y: x.w + x.y * z.mu,
                u: -x.x * z.lam,
                w: -x.y * z.lam,
            },
            [
                0.5 * (x.x * x.x + x.y * x.y - p.l * p.l),
                x.x * x.u + x.y * x.w,
            ],
        )
    }

    /// The stop at `x = −d`.
    #[guard(sliding -> sliding, falling)]
    fn stop(x: &X, p: &P) -> f64 {
        x.x + p.d
    }

    /// `u⁺ = −e u⁻`, `w⁺` from `x u⁺ + y w⁺ = 0`.
    #[reset(stop)]
    fn impact(x: &X, p: &P) -> X {
        let u = -p.e * x.u;
        X {
            x: x.x,
            y: x.y,
            u,
            w: -x.x * u / x.y,
        }
    }

    /// The height and the multiplier at the end.
    #[cost(terminal)]
    fn end(x: &X, z: &Z) -> f64 {
        x.y + 0.1 * z.lam
    }

    /// `∫ x² dt`.
    #[cost(integral)]
    fn spread(x: &X) -> f64 {
        x.x * x.x
    }
}

const T: f64 = 2.0;
const THETA: [f64; 5] = [1.0, 0.8, 0.3, 0.3, -2.0];
const NAMES: [&str; 5] = ["l", "e", "d", "a", "om"];

/// `(t₁, (x, y, u, w)(T), G)` of the closed form (module docs) at `θ = (L, e, d, a, ω)`.
fn closed_form(p: [Dual64; 5]) -> (Dual64, [Dual64; 4], Dual64) {
    let [l, e, d, a, om] = p;
    let wall = -(d / l).asin();
    let t1 = (wall - a) / om;
    let om2 = -e * om;
    let theta = wall + om2 * (Dual64::from_re(T) - t1);
    let state = [
        l * theta.sin(),
        -l * theta.cos(),
        l * theta.cos() * om2,
        l * theta.sin() * om2,
    ];
    let arc = |from: Dual64, to: Dual64, rate: Dual64| {
        let primitive = |th: Dual64| th * 0.5 - (th * 2.0).sin() * 0.25;
        l * l * (primitive(to) - primitive(from)) / rate
    };
    let spread = arc(a, wall, om) + arc(wall, theta, om2);
    (t1, state, state[1] + om2 * om2 * 0.1 + spread)
}

/// `|a − b|` relative to `max(|b|, 1)`.
fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1.0)
}

/// The impact time, the final state, the cost and all their derivatives (forward and adjoint)
/// against the closed form at rtol 1e-10. Measured: worst 1.4e-10 relative (`∂w(T)/∂e`);
/// asserted 1e-8 relative (to `max(|v|, 1)`), the adjoint equal to the forward gradient to
/// 1e-10.
#[test]
fn against_the_closed_form() {
    let p = ring::P {
        l: THETA[0],
        e: THETA[1],
        d: THETA[2],
        a: THETA[3],
        om: THETA[4],
    };
    let zero = ring::X {
        x: 0.0,
        y: 0.0,
        u: 0.0,
        w: 0.0,
    };
    let solver = ring::Model.solver().tolerances(1e-10, 1e-12);
    let forward = solver
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, T, &zero, &p)
        .expect("solves");
    let gradient = solver.gradient(0.0, T, &zero, &p).expect("solves");
    assert_eq!(forward.events.len(), 1);
    let mut worst = (0.0f64, String::new());
    let mut check = |what: String, v: f64, reference: f64| {
        if rel(v, reference) > worst.0 {
            worst = (rel(v, reference), what.clone());
        }
        assert!(rel(v, reference) < 1e-8, "{what}: {v} vs {reference}");
    };
    for (k, name) in NAMES.into_iter().enumerate() {
        let seeded =
            core::array::from_fn(|j| Dual64::new(THETA[j], if j == k { 1.0 } else { 0.0 }));
        let (t1, state, g) = closed_form(seeded);
        if k == 0 {
            check("t1".into(), forward.events[0].t, t1.re);
            for (i, of) in ["x", "y", "u", "w"].into_iter().enumerate() {
                check(format!("{of}(T)"), forward.y[i], state[i].re);
            }
            check("G".into(), forward.cost, g.re);
        }
        check(format!("dt1/d{name}"), forward.events[0].dt[k], t1.eps);
        for (i, of) in ["x", "y", "u", "w"].into_iter().enumerate() {
            check(
                format!("d{of}(T)/d{name}"),
                forward.sensitivity(of, name).unwrap(),
                state[i].eps,
            );
        }
        let (f, a) = (
            forward.cost_gradient(name).unwrap(),
            gradient.wrt(name).unwrap(),
        );
        check(format!("dG/d{name} (forward)"), f, g.eps);
        check(format!("dG/d{name} (adjoint)"), a, g.eps);
        assert!(rel(a, f) < 1e-10, "dG/d{name}: adjoint {a} vs forward {f}");
    }
    println!("worst relative error {:e} ({})", worst.0, worst.1);
}
