//! The five-bar mechanism (`examples/five_bar/model.rs`: Corner, Sandu & Sandu 2019, §7, as
//! reconstructed in the project's notes; a constrained mechanism in a stabilized index-2 mode
//! with constrained impacts) against the notes' reference (`examples/five_bar/reference.rs`:
//! the index-1 form at tolerance 1e-13, trusted to about 1e-9), and its adjoint against its
//! forward gradient.

use crate::{five_bar_model as model, five_bar_reference as reference};

use hysens::prelude::*;
use model::five_bar;
use reference::{constraint_residuals, params, quantities, start, AT_1, AT_5, IMPACTS, QUANTITIES};

/// `|a − b|` relative to `max(|b|, 1)`.
fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1.0)
}

/// The nine impacts in `[0, 5]` (times, pre-impact `ẏ2`, the times' sensitivities) and the
/// state, the costs and their sensitivities at `T = 1` and `T = 5` against the reference, at
/// rtol 1e-10; the constraints at the end. Measured: worst 2.3e-8 relative (`∂ẏ2(5)/∂L02`,
/// −8.38: the sensitivities grow through nine impacts); the constraints 1.3e-15 (`|Φ|`);
/// asserted 1e-6 relative to `max(|v|, 1)` (the notes' suggested tolerance for this case) and
/// 1e-12.
#[test]
fn against_the_reference() {
    let mut worst = (0.0f64, String::new());
    let mut check = |what: String, v: f64, reference: f64| {
        if rel(v, reference) > worst.0 {
            worst = (rel(v, reference), what.clone());
        }
        assert!(rel(v, reference) < 1e-6, "{what}: {v} vs {reference}");
    };
    for (tf, reference) in [(1.0, &AT_1), (5.0, &AT_5)] {
        let solution = five_bar::Model
            .solver()
            .tolerances(1e-10, 1e-12)
            .sensitivities_to(Params::All, InitialStates::None)
            .solve(0.0, tf, &start::<five_bar::X>(), &params::<five_bar::P>())
            .expect("solves");
        let values = quantities(&solution);
        for (row, of) in ["", "d/dL01 ", "d/dL02 "].into_iter().enumerate() {
            for (i, name) in QUANTITIES.into_iter().enumerate() {
                check(
                    format!("{of}{name}({tf})"),
                    values[row][i],
                    reference[row][i],
                );
            }
        }
        let (position, velocity) = constraint_residuals(&solution.y);
        println!(
            "T = {tf}: {} impacts, |Φ| {position:.1e}, |Φ_q v| {velocity:.1e}",
            solution.events.len()
        );
        assert!(position < 1e-12 && velocity < 1e-12);
        if tf == 5.0 {
            assert_eq!(solution.events.len(), IMPACTS.len());
            for (k, (event, (t, w, dt))) in solution.events.iter().zip(IMPACTS).enumerate() {
                check(format!("t{k}"), event.t, t);
                check(format!("ẏ2⁻ at t{k}"), event.y_before[9], w);
                check(format!("dt{k}/dL01"), event.dt[0], dt[0]);
                check(format!("dt{k}/dL02"), event.dt[1], dt[1]);
            }
        }
    }
    println!("worst relative difference {:e} ({})", worst.0, worst.1);
}

/// The adjoint gradient of `z1 + z2` at `T = 5` (through nine constrained impacts) equals the
/// forward one of the same solve. Measured: 1.9e-12 (`L01`) and 7e-14 (`L02`) relative;
/// asserted 1e-10.
#[test]
fn adjoint_equals_forward() {
    let solver = five_bar::Model.solver().tolerances(1e-8, 1e-10);
    let forward = solver
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 5.0, &start::<five_bar::X>(), &params::<five_bar::P>())
        .expect("solves");
    let gradient = solver
        .gradient(0.0, 5.0, &start::<five_bar::X>(), &params::<five_bar::P>())
        .expect("solves");
    for name in ["l01", "l02"] {
        let (a, f) = (
            gradient.wrt(name).unwrap(),
            forward.cost_gradient(name).unwrap(),
        );
        println!("dG/d{name}: adjoint {a:.15e}, forward {f:.15e}");
        assert!(rel(a, f) < 1e-10, "dG/d{name}: {a} vs {f}");
    }
}

/// The same mechanism with `M` not inverted: the equations of motion `M a + Φ_qᵀ λ = F` are
/// index-1 equations of the index-2 mode, next to its position and velocity constraints, with
/// the accelerations `a` algebraic variables (`HybridModel::is_constraint`: the macro marks the
/// equations that read `z`). `Φ` is written once (as printed, no ½); its gradient enters
/// through `diff` (`Φ_qᵀ λ = ∂(λ·Φ)/∂q`, `Φ_q v = Σ ∂Φ/∂q_j v_j`).
#[hysens::hybrid_model]
mod five_bar_mass {
    const G: f64 = 9.81;
    const K_SPRING: f64 = 100.0;
    #[allow(clippy::approx_constant)]
    const L_OUTER: f64 = 1.4142;
    const L_INNER: f64 = 1.8027;
    const GROUND: f64 = -2.35;

    /// The joints' positions and velocities (as the other model's).
    #[states]
    pub struct X {
        pub x1: f64,
        pub y1: f64,
        pub x2: f64,
        pub y2: f64,
        pub x3: f64,
        pub y3: f64,
        pub u1: f64,
        pub w1: f64,
        pub u2: f64,
        pub w2: f64,
        pub u3: f64,
        pub w3: f64,
    }

    /// The accelerations and the multipliers of both constraint levels.
    #[algebraic]
    pub struct Z {
        pub a1x: f64,
        pub a1y: f64,
        pub a2x: f64,
        pub a2y: f64,
        pub a3x: f64,
        pub a3y: f64,
        pub l1: f64,
        pub l2: f64,
        pub l3: f64,
        pub l4: f64,
        pub m1: f64,
        pub m2: f64,
        pub m3: f64,
        pub m4: f64,
    }

    /// The springs' natural lengths.
    #[params]
    pub struct P {
        pub l01: f64,
        pub l02: f64,
    }

    fn spring(dx: f64, dy: f64, rest: f64) -> f64 {
        let r = (dx * dx + dy * dy).sqrt();
        -K_SPRING * (r - rest) / r * dx
    }

    /// The four constraints `Φ`, written once: the bars A–1, 1–2, 2–3, 3–B.
    fn bar_a1(x: &X) -> f64 {
        (x.x1 + 0.5) * (x.x1 + 0.5) + x.y1 * x.y1 - L_OUTER * L_OUTER
    }
    fn bar_12(x: &X) -> f64 {
        (x.x2 - x.x1) * (x.x2 - x.x1) + (x.y2 - x.y1) * (x.y2 - x.y1) - L_INNER * L_INNER
    }
    fn bar_23(x: &X) -> f64 {
        (x.x3 - x.x2) * (x.x3 - x.x2) + (x.y3 - x.y2) * (x.y3 - x.y2) - L_INNER * L_INNER
    }
    fn bar_3b(x: &X) -> f64 {
        (x.x3 - 0.5) * (x.x3 - 0.5) + x.y3 * x.y3 - L_OUTER * L_OUTER
    }

    /// `Φ̇ = Φ_q v` of a constraint `phi`, by `diff`.
    fn rate(phi: f64, x: &X) -> f64 {
        diff(phi, x.x1) * x.u1
            + diff(phi, x.y1) * x.w1
            + diff(phi, x.x2) * x.u2
            + diff(phi, x.y2) * x.w2
            + diff(phi, x.x3) * x.u3
            + diff(phi, x.y3) * x.w3
    }

    /// `q' = v + Φ_qᵀ μ`, `v' = a`; `M a + Φ_qᵀ λ = F`, `Φ = 0`, `Φ_q v = 0`, with
    /// `Φ_qᵀ λ = ∂(λ·Φ)/∂q` taken by `diff` from `Φ` written once.
    #[mode(initial, index2)]
    fn moving(x: &X, z: &Z, p: &P) -> (X, [f64; 14]) {
        let c1 = bar_a1(x);
        let c2 = bar_12(x);
        let c3 = bar_23(x);
        let c4 = bar_3b(x);
        let lambda_phi = z.l1 * c1 + z.l2 * c2 + z.l3 * c3 + z.l4 * c4;
        let mu_phi = z.m1 * c1 + z.m2 * c2 + z.m3 * c3 + z.m4 * c4;
        let f2x = spring(x.x2 - 0.5, x.y2, p.l02);
        let f2y = -1.5 * G + spring(x.y2, x.x2 - 0.5, p.l02);
        let f3x = spring(x.x3 + 0.5, x.y3, p.l01);
        let f3y = -1.25 * G + spring(x.y3, x.x3 + 0.5, p.l01);
        (
            X {
                x1: x.u1 + diff(mu_phi, x.x1),
                y1: x.w1 + diff(mu_phi, x.y1),
                x2: x.u2 + diff(mu_phi, x.x2),
                y2: x.w2 + diff(mu_phi, x.y2),
                x3: x.u3 + diff(mu_phi, x.x3),
                y3: x.w3 + diff(mu_phi, x.y3),
                u1: z.a1x,
                w1: z.a1y,
                u2: z.a2x,
                w2: z.a2y,
                u3: z.a3x,
                w3: z.a3y,
            },
            [
                5.0 / 6.0 * z.a1x + 0.25 * z.a2x + diff(lambda_phi, x.x1),
                5.0 / 6.0 * z.a1y + 0.25 * z.a2y + diff(lambda_phi, x.y1) + 1.25 * G,
                0.25 * z.a1x + z.a2x + 0.25 * z.a3x + diff(lambda_phi, x.x2) - f2x,
                0.25 * z.a1y + z.a2y + 0.25 * z.a3y + diff(lambda_phi, x.y2) - f2y,
                0.25 * z.a2x + 5.0 / 6.0 * z.a3x + diff(lambda_phi, x.x3) - f3x,
                0.25 * z.a2y + 5.0 / 6.0 * z.a3y + diff(lambda_phi, x.y3) - f3y,
                c1,
                c2,
                c3,
                c4,
                rate(c1, x),
                rate(c2, x),
                rate(c3, x),
                rate(c4, x),
            ],
        )
    }

    #[guard(moving -> moving, falling)]
    fn ground(x: &X) -> f64 {
        x.y2 - GROUND
    }

    #[reset(ground)]
    fn impact(x: &X) -> X {
        let u2 = x.u2;
        let w2 = -x.w2;
        let ax = x.x1 + 0.5;
        let ay = x.y1;
        let bx = x.x2 - x.x1;
        let by = x.y2 - x.y1;
        let cx = x.x3 - x.x2;
        let cy = x.y3 - x.y2;
        let dx = x.x3 - 0.5;
        let dy = x.y3;
        let s1 = (bx * u2 + by * w2) / (-bx * ay + by * ax);
        let s3 = (cx * u2 + cy * w2) / (-cx * dy + cy * dx);
        X {
            x1: x.x1,
            y1: x.y1,
            x2: x.x2,
            y2: x.y2,
            x3: x.x3,
            y3: x.y3,
            u1: -s1 * ay,
            w1: s1 * ax,
            u2,
            w2,
            u3: -s3 * dy,
            w3: s3 * dx,
        }
    }

    /// `∫ ẏ2 dt`.
    #[cost(integral)]
    fn z1(x: &X) -> f64 {
        x.w2
    }

    /// `∫ ÿ2 dt`, an algebraic variable here.
    #[cost(integral)]
    fn z2(z: &Z) -> f64 {
        z.a2y
    }
}

/// The mass-matrix form (`five_bar_mass`) against the reference at `T = 5`, as the model with
/// `M⁻¹` written out, and its adjoint against its forward gradient. Measured: worst 1.7e-8
/// relative, the constraints at the end to 4e-16, adjoint and forward 3.2e-12 apart (5287
/// steps, as the other form's 5138); asserted 1e-6 (the notes' tolerance, as above), 1e-12 and
/// 1e-10.
#[test]
fn mass_matrix_form_against_the_reference() {
    let solver = five_bar_mass::Model.solver().tolerances(1e-10, 1e-12);
    let (x0, p): (five_bar_mass::X, five_bar_mass::P) = (start(), params());
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 5.0, &x0, &p)
        .expect("solves");
    assert_eq!(solution.events.len(), IMPACTS.len());
    let mut worst = 0.0f64;
    for (i, name) in QUANTITIES.into_iter().enumerate() {
        let (value, d01, d02) = match i {
            0..=3 => (
                solution.y[[2, 3, 8, 9][i]],
                solution.sensitivity(name, "l01").unwrap(),
                solution.sensitivity(name, "l02").unwrap(),
            ),
            _ => (
                solution.named_cost(name).unwrap(),
                solution.named_cost_gradient(name, "l01").unwrap(),
                solution.named_cost_gradient(name, "l02").unwrap(),
            ),
        };
        for (row, v) in [value, d01, d02].into_iter().enumerate() {
            let e = rel(v, AT_5[row][i]);
            worst = worst.max(e);
            assert!(e < 1e-6, "{name} row {row}: {v} vs {}", AT_5[row][i]);
        }
    }
    let (position, velocity) = constraint_residuals(&solution.y);
    let gradient = solver.gradient(0.0, 5.0, &x0, &p).expect("solves");
    let mut adjoint_difference = 0.0f64;
    for name in ["l01", "l02"] {
        let (a, f) = (
            gradient.wrt(name).unwrap(),
            solution.cost_gradient(name).unwrap(),
        );
        adjoint_difference = adjoint_difference.max(rel(a, f));
    }
    println!(
        "mass-matrix form: worst relative difference {worst:e}, |Φ| {position:.1e}, |Φ_q v| {velocity:.1e}, adjoint vs forward {adjoint_difference:.1e}, {} steps",
        solution.stats.steps
    );
    assert!(position < 1e-12 && velocity < 1e-12);
    assert!(adjoint_difference < 1e-10);
}
