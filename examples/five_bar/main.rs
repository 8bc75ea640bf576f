//! The five-bar mechanism of Corner, Sandu & Sandu (2019, §7): a planar linkage with two
//! degrees of freedom whose middle joint bounces on the ground, solved as a constrained
//! mechanical system (a stabilized index-2 mode, `model.rs`) with forward sensitivities to the
//! springs' natural lengths `L01`, `L02` through every impact, and checked against the
//! project notes' reconstruction of the paper's example (`reference.rs`).
//!
//! The example prints
//!
//! - the impacts: time, the pre-impact velocity `ẏ2⁻` of the bouncing joint and the
//!   sensitivities of the impact time, next to the reference;
//! - the state of the bouncing joint, the paper's two quadratures `z1 = ∫ ẏ2 dt` and
//!   `z2 = ∫ ÿ2 dt` and their sensitivities at `T = 5 s` against the reference, and the
//!   adjoint gradient of `z1 + z2` next to the forward one;
//! - the constraint drift: the largest `|Φ|` and `|Φ_q v|` over the samples;
//! - the path of `five_bar.svg`: `y2` and `ẏ2` with the impacts, the sensitivities of `y2` and
//!   `ẏ2` to both lengths (jumping at each impact), and the constraint residuals.
//!
//! As the paper says: `z1 = y2(t) − y2(0)` (so its sensitivities are those of `y2`), while
//! `z2` is not `ẏ2(t) − ẏ2(0)`: the impulses of the impacts are not in the integral of the
//! acceleration.
//!
//! Run with `cargo run --release -p hysens-examples --example five_bar`.

use std::error::Error;

use hysens::prelude::*;

#[path = "../common/check.rs"]
mod check;
mod model;
#[path = "../common/plot.rs"]
mod plot;
mod reference;
#[path = "../common/stats.rs"]
mod stats;

use model::five_bar;
use plot::{split_at, Figure, LegendAt, Panel};
use reference::{constraint_residuals, params, quantities, start, AT_5, IMPACTS, QUANTITIES};

/// Final time (s).
const T_END: f64 = 5.0;
/// Sample times, evenly spaced on `[0, T_END]`.
const N_SAMPLES: usize = 501;

fn main() -> Result<(), Box<dyn Error>> {
    let (rtol, atol) = (1e-10, 1e-12);
    let times: Vec<f64> = (0..N_SAMPLES)
        .map(|k| T_END * k as f64 / (N_SAMPLES - 1) as f64)
        .collect();
    // One solver for both, so that the adjoint's forward pass takes the same steps (landing on
    // the same sample times) and its gradient is that of the same discrete solution.
    let solver = five_bar::Model
        .solver()
        .tolerances(rtol, atol)
        .samples(&times);
    let (x0, p): (five_bar::X, five_bar::P) = (start(), params());
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, T_END, &x0, &p)?;
    let gradient = solver.gradient(0.0, T_END, &x0, &p)?;

    println!(
        "Five-bar mechanism: L01 = {} m, L02 = {} m, t in [0, {T_END}] s, rtol {rtol:e}, \
         atol {atol:e}, {N_SAMPLES} samples",
        p.l01, p.l02
    );
    check::model(&[
        "joints q1, q2, q3 (natural coordinates) between pins A, B; bars as uniform rods \
         (M = K ⊗ I₂), gravity, springs A–3 (L01) and B–2 (L02), k = 100 N/m;",
        "stabilized index-2 form q' = v + Φ_qᵀ μ, v' = M⁻¹(F − Φ_qᵀ λ), 0 = Φ, 0 = Φ_q v; \
         joint 2 bounces on y = −2.35 (ẏ2⁺ = −ẏ2⁻, the other velocities from Φ_q v⁺ = 0);",
        "costs z1 = ∫ ẏ2 dt, z2 = ∫ ÿ2 dt",
    ]);

    // The impacts next to the reference.
    println!();
    println!(
        "{:>2}  {:>15}  {:>13}  {:>13}  {:>13}  {:>9}",
        "k", "t (s)", "ẏ2⁻ (m/s)", "dt/dL01", "dt/dL02", "Δ (rel)"
    );
    for (k, event) in solution.events.iter().enumerate() {
        let dt = [event.dt[0], event.dt[1]];
        let difference = IMPACTS.get(k).map_or(f64::NAN, |(t, w, d)| {
            let pairs = [
                (event.t, *t),
                (event.y_before[9], *w),
                (dt[0], d[0]),
                (dt[1], d[1]),
            ];
            pairs
                .iter()
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs() / b.abs().max(1.0)))
        });
        println!(
            "{:>2}  {:>15.12}  {:>13.10}  {:>13.10}  {:>13.10}  {:>9.1e}",
            k + 1,
            event.t,
            event.y_before[9],
            dt[0],
            dt[1],
            difference
        );
    }

    // The drift of the constraints over the samples.
    let (position, velocity) = solution.samples.iter().fold((0.0f64, 0.0f64), |(p, v), s| {
        let (a, b) = constraint_residuals(&s.y);
        (p.max(a), v.max(b))
    });
    println!();
    println!(
        "constraint drift over the samples: |Φ| ≤ {position:.1e} m², |Φ_q v| ≤ {velocity:.1e} m²/s"
    );
    let mut largest = 0.0f64;
    for name in ["l01", "l02"] {
        let (adjoint, forward) = (gradient.wrt(name)?, solution.cost_gradient(name)?);
        println!("dG/d{name}, G = z1(T) + z2(T): adjoint {adjoint:.12e}, forward {forward:.12e}");
        largest = largest.max((adjoint - forward).abs() / forward.abs());
    }
    println!("FSA vs adjoint: largest relative difference {largest:.1e}");
    println!("{}", stats::line(&solution.stats));
    let verdict = against_reference(&solution, rtol);
    let path = draw(&solution)?;
    println!("plot: {}", path.display());
    Ok(verdict.into_result()?)
}

/// Prints the table of the quantities at `T_END` and their sensitivities against the
/// reference, and the impacts' count; returns its verdict.
fn against_reference(solution: &Solution<five_bar::X, 12, 8, 2>, rtol: f64) -> check::Verdict {
    let values = quantities(solution);
    let mut comparison = check::Comparison::new(
        "the notes' reconstruction, index-1 form at tolerance 1e-13 (trusted to 1e-9)",
    )
    .bound(
        1e4 * rtol,
        "1e4·rtol: the sensitivities grow through nine impacts (to 166 for dz2/dL02); \
         measured 4.1e-8 at worst",
    );
    for (row, of) in ["", "d/dL01 ", "d/dL02 "].into_iter().enumerate() {
        for (i, name) in QUANTITIES.into_iter().enumerate() {
            comparison =
                comparison.row(format!("{of}{name}({T_END})"), values[row][i], AT_5[row][i]);
        }
    }
    comparison = comparison.row(
        "impacts in [0, 5]",
        solution.events.len() as f64,
        IMPACTS.len() as f64,
    );
    comparison.print()
}

/// Draws `five_bar.svg`: the bouncing joint's height and velocity, their sensitivities, and
/// the constraint residuals, cut at the impacts.
fn draw(solution: &Solution<five_bar::X, 12, 8, 2>) -> Result<std::path::PathBuf, Box<dyn Error>> {
    let impacts: Vec<f64> = solution.events.iter().map(|e| e.t).collect();
    let series = |value: &dyn Fn(usize) -> f64| {
        let points = (0..solution.samples.len()).map(|k| (solution.samples[k].t, value(k)));
        split_at(points, &impacts)
    };
    let sample = |k: usize| &solution.samples[k];
    let sens = |of: &'static str, wrt: &'static str| {
        move |k: usize| solution.sample_sensitivity(k, of, wrt).unwrap_or(f64::NAN)
    };
    let ground = vec![vec![(0.0, five_bar::GROUND), (T_END, five_bar::GROUND)]];
    let p: five_bar::P = params();
    let title = format!(
        "Five-bar mechanism (L01 = {} m, L02 = {} m): the bouncing joint and its sensitivities",
        p.l01, p.l02
    );
    Figure::new("five_bar", title, "time t (s)")
        .events("impact", impacts.clone())
        .panel(
            Panel::new("height y2 (m)")
                .line("y2(t)", series(&|k| sample(k).x.y2))
                .line("ground", ground)
                .legend(LegendAt::UpperRight),
        )
        .panel(Panel::new("velocity ẏ2 (m/s)").line("ẏ2(t)", series(&|k| sample(k).x.w2)))
        .panel(
            Panel::new("∂y2/∂L (dimensionless)")
                .line("∂y2/∂L01", series(&sens("y2", "l01")))
                .line("∂y2/∂L02", series(&sens("y2", "l02")))
                .legend(LegendAt::LowerLeft),
        )
        .panel(
            Panel::new("∂ẏ2/∂L (1/s)")
                .line("∂ẏ2/∂L01", series(&sens("w2", "l01")))
                .line("∂ẏ2/∂L02", series(&sens("w2", "l02")))
                .legend(LegendAt::LowerLeft),
        )
        .panel(
            Panel::new("constraints (1e-15)")
                .line(
                    "max |Φ| (m²)",
                    series(&|k| 1e15 * constraint_residuals(&sample(k).y).0),
                )
                .line(
                    "max |Φ_q v| (m²/s)",
                    series(&|k| 1e15 * constraint_residuals(&sample(k).y).1),
                )
                .legend(LegendAt::UpperLeft),
        )
        .save()
}
