//! Quickstart: Serban & Recuero's Example 5.1, a scalar ODE that switches its right-hand side
//! when `x³ − 5x² + 7x` crosses the parameter `p`, and the gradient of `G = ∫₀⁵ x dt` with
//! respect to `p` — exact across its three switches — together with the sensitivity of the
//! final state to the initial one; then the same gradient by the discrete adjoint. Last, it
//! draws the paper's Fig. 2 — the state `x(t)` and its sensitivity `dx/dp`, which jumps at
//! each switch although `x` does not (Eq. 40–41) — into `ex51_state.svg`, and its Fig. 3 —
//! the adjoint of the gradient just computed, which jumps at each switch too (Eq. 43–44) —
//! into `ex51_adjoint.svg`, checks that adjoint at `t = 0` and right after each switch against
//! the closed form, and prints both paths.
//!
//! The adjoint is the library's `λ(t) = dG/dx(t)`; the paper's multiplier is its negative,
//! `dG/dx0 = −λ_paper(0)`, so the picture is Fig. 3 mirrored in the time axis, as its title
//! says. "Convention A" below is the sign of the paper's §3.2 (Eq. 9 adds
//! `λᵀ(F_ẏ ṡ + F_y s + …)`, which for `F = ẋ − f` gives Eq. 43 and `dG/dx0 = −λ(0)`), as
//! against its §3.3 and §4 (Eq. 31), which add the multiplier to `−ṡ + f_y s + …`
//! ("convention B", `dG/dx0 = +λ(0)`).
//!
//! Run with `cargo run --release -p hysens-examples --example quickstart`.

use hysens::prelude::*;

#[path = "../common/check.rs"]
mod check;
mod model;
#[path = "../common/plot.rs"]
mod plot;
use model::ex51;
use plot::{split_at, Figure, LegendAt, Panel};

/// Sample times of the plot, evenly spaced on `[0, 5]` (the solver lands on each).
const PLOT_SAMPLES: usize = 1001;
/// The paper's adjoint (its convention A) at `t = 0`: Eqs. 43–44 of Serban & Recuero 2019,
/// Ex. 5.1, solved in closed form along the closed-form solution of Eq. 39 and evaluated with
/// mpmath at 40 digits (central differences give `dG/dx0 = −λ(0)`).
const FIGURE_3_LAMBDA_0: f64 = -1.24971060155432;
/// The paper's adjoint right after the switches `t1, t2, t3` (`λ_i⁺`), same source.
const FIGURE_3_LAMBDA_PLUS: [f64; 3] = [-0.499862603181965, -1.36166971366913, -0.499714266642075];
/// `G` and `dG/dp` in closed form (Serban & Recuero 2019, §5.1).
const REFERENCE_G: f64 = 20.029074653359594;
/// See [`REFERENCE_G`].
const REFERENCE_DG_DP: f64 = -2.3119531074438905;
/// The relative tolerance of every solve.
const RTOL: f64 = 1e-8;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let solution = ex51::Model
        .solver()
        .tolerances(RTOL, 1e-10)
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 })?;

    println!("Serban & Recuero Example 5.1, p = 2.9, rtol 1e-8, atol 1e-10 (ESDIRK4(3)6L[2]SA)");
    check::model(&[
        "x' = 4 - x in mode a while h = x³ - 5x² + 7x - p ≤ 0, x' = 10 - 2x in mode b while h > 0;",
        "a -> b when h rises through 0, b -> a when it falls; x(0) = 0, p = 2.9; G = ∫₀⁵ x dt",
    ]);
    for (k, e) in solution.events.iter().enumerate() {
        let dt_dp = solution.event_time_sensitivity(k, "p").unwrap_or(f64::NAN);
        println!(
            "  switch {} -> {} at t = {:.15}, dt/dp = {dt_dp:.12}",
            e.from, e.to, e.t
        );
    }
    let sensitivity = |wrt| solution.sensitivity("x", wrt).unwrap_or(f64::NAN);
    println!("x(5) = {:.15}", solution.x.x);
    println!("dx(5)/dp = {:.15e}", sensitivity(Wrt::Param("p")));
    println!("dx(5)/dx(0) = {:.15e}", sensitivity(Wrt::InitialState("x")));
    println!(
        "dG/dp = {:.15}",
        solution.cost_gradient("p").unwrap_or(f64::NAN)
    );
    println!("G = {:.15}", solution.cost);
    // The same gradient by the discrete adjoint: one backward pass over a tape of the solve,
    // transposing the same chain across the switches.
    let gradient = ex51::Model.solver().tolerances(RTOL, 1e-10).gradient(
        0.0,
        5.0,
        &ex51::X { x: 0.0 },
        &ex51::P { p: 2.9 },
    )?;
    println!(
        "dG/dp (adjoint) = {:.15}",
        gradient.wrt("p").unwrap_or(f64::NAN)
    );
    let s = &solution.stats;
    println!(
        "steps {}, rejected {}, f evaluations {}, Jacobians {}, LU factorizations {}, Newton iterations {}",
        s.steps, s.rejected_steps, s.f_evals, s.jacobian_evals, s.lu_factorizations, s.newton_iterations,
    );
    println!("reference (closed form, Serban & Recuero 2019, §5.1): G = 20.029074653359594, dG/dp = -2.3119531074438905");
    let path = draw_figure_2()?;
    println!(
        "plot of x and dx/dp (the paper's Fig. 2): {}",
        path.display()
    );
    let verdict = against_closed_form(
        solution.cost,
        solution.cost_gradient("p").unwrap_or(f64::NAN),
        &gradient,
    );
    let path = draw_figure_3(&gradient.adjoint, &solution.events)?;
    println!(
        "plot of the adjoint lambda = dG/dx (the paper's Fig. 3): {}",
        path.display()
    );
    Ok(verdict.into_result()?)
}

/// Prints the adjoint at `t = 0` and right after each switch next to the closed form, then the
/// table of `G`, `dG/dp` (by FSA and by the adjoint `gradient`) and those adjoint values
/// against the closed form; returns its verdict.
fn against_closed_form(cost: f64, dg_dp: f64, gradient: &Gradient<1, 1>) -> check::Verdict {
    // The adjoint of the same gradient against the closed form: at t0, and right after each
    // switch (the first point of each mode segment).
    let mut compared = vec![("lambda(0)", gradient.adjoint.first(), -FIGURE_3_LAMBDA_0)];
    for (k, &lambda_plus) in FIGURE_3_LAMBDA_PLUS.iter().enumerate() {
        let first = gradient.adjoint.iter().find(|a| a.segment == k + 1);
        compared.push(("lambda(t+)", first, -lambda_plus));
    }
    let mut worst: f64 = 0.0;
    let mut values = Vec::new();
    let mut comparison = check::Comparison::new("the closed form, Serban & Recuero 2019, §5.1")
        .bound(
            100.0 * RTOL,
            "100 rtol: the global error of a solve at rtol 1e-8 over its 78 steps and 3 switches",
        )
        .row("G", cost, REFERENCE_G)
        .row("dG/dp (FSA)", dg_dp, REFERENCE_DG_DP)
        .row(
            "dG/dp (adjoint)",
            gradient.wrt("p").unwrap_or(f64::NAN),
            REFERENCE_DG_DP,
        );
    for (what, point, reference) in compared {
        let value = point.map_or(f64::NAN, |a| a.y[0]);
        let at = point.map_or(f64::NAN, |a| a.t);
        comparison = comparison.row(format!("{what} at {at:.6}"), value, reference);
        let error = (value - reference).abs() / reference.abs();
        worst = worst.max(if error.is_nan() { f64::INFINITY } else { error });
        values.push(format!(
            "{what} at {:.6} = {value:.9}",
            point.map_or(f64::NAN, |a| a.t)
        ));
    }
    println!(
        "adjoint lambda = dG/dx (= -lambda of the paper's Fig. 3, its convention A): {}; \
         largest relative error against the closed form {worst:.1e}",
        values.join(", ")
    );
    comparison.print()
}

/// Serban & Recuero's Fig. 3: the adjoint on `[0, 5]`, from the gradient's discrete adjoint
/// (one point per step boundary, and both limits at each switch;
/// [`hysens::runtime::AdjointPoint`]), each mode segment a curve
/// of its own, so its jumps at the switches (Eq. 44) show as gaps. The library's `λ = dG/dx`
/// is the negative of the paper's multiplier (its §3.2 convention A, `dG/dx0 = −λ(0)`), whose
/// graph is Fig. 3 mirrored in the time axis.
fn draw_figure_3(
    adjoint: &[hysens::runtime::AdjointPoint<1>],
    switches: &[Event<1>],
) -> Result<std::path::PathBuf, Box<dyn std::error::Error>> {
    // The mode of segment k: the one left at the first switch (k = 0), else the one entered at
    // switch k.
    let mode_of = |k: usize| match k.checked_sub(1) {
        None => switches.first().map_or("", |e| e.from),
        Some(i) => switches.get(i).map_or("", |e| e.to),
    };
    let mut in_a: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut in_b: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut current = None;
    for point in adjoint {
        let pieces = if mode_of(point.segment) == "a" {
            &mut in_a
        } else {
            &mut in_b
        };
        if current != Some(point.segment) {
            pieces.push(Vec::new());
            current = Some(point.segment);
        }
        if let Some(piece) = pieces.last_mut() {
            piece.push((point.t, point.y[0]));
        }
    }
    Figure::new(
        "ex51_adjoint",
        "Serban & Recuero 2019, Example 5.1 (Fig. 3): the adjoint λ = dG/dx = −λ of the paper",
        "time t (dimensionless)",
    )
    .events("switch", switches.iter().map(|e| e.t).collect())
    .panel(
        Panel::new("λ = dG/dx (dimensionless)")
            .line_with_dots(
                "λ in mode A: λ' = λ − 1 (dots: step boundaries, limits at the switches)",
                in_a,
            )
            .line_with_dots("λ in mode B: λ' = 2λ − 1, λ(5) = 0", in_b)
            .legend(LegendAt::UpperRight),
    )
    .save()
}

/// Serban & Recuero's Fig. 2: `x(t)` and `s(t) = dx/dp` on `[0, 5]`, from a solve with dense
/// samples (a solve of its own, so the numbers printed above are those of the solve without
/// samples). Each piece between switches is drawn on its own and coloured by its mode.
fn draw_figure_2() -> Result<std::path::PathBuf, Box<dyn std::error::Error>> {
    let times: Vec<f64> = (0..PLOT_SAMPLES)
        .map(|k| 5.0 * k as f64 / (PLOT_SAMPLES - 1) as f64)
        .collect();
    let solution = ex51::Model
        .solver()
        .tolerances(RTOL, 1e-10)
        .sensitivities_to(Params::All, InitialStates::None)
        .samples(&times)
        .solve(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 })?;
    let switches: Vec<f64> = solution.events.iter().map(|e| e.t).collect();
    // The pieces between switches of `value(k)` at sample `k`, split by the mode they are in.
    let by_mode = |value: &dyn Fn(usize) -> f64| {
        let samples = solution.samples.iter().enumerate();
        let pieces = split_at(samples.map(|(k, s)| (s.t, value(k))), &switches);
        // The mode of a piece is that of its first sample (samples are in time order).
        let mode_of = |piece: &Vec<(f64, f64)>| {
            let t = piece.first().map_or(0.0, |p| p.0);
            let k = solution.samples.partition_point(|s| s.t < t);
            solution.samples.get(k).map_or("", |s| s.mode)
        };
        let (a, b): (Vec<_>, Vec<_>) = pieces.into_iter().partition(|p| mode_of(p) == "a");
        (a, b)
    };
    let (x_a, x_b) = by_mode(&|k| solution.samples[k].y[0]);
    let (s_a, s_b) = by_mode(&|k| solution.sample_sensitivity(k, "x", "p").unwrap_or(f64::NAN));
    Figure::new(
        "ex51_state",
        "Serban & Recuero 2019, Example 5.1 (Fig. 2): x(t) and dx/dp, p = 2.9",
        "time t (dimensionless)",
    )
    .events("switch", switches)
    .panel(
        Panel::new("state x (dimensionless)")
            .line("x in mode A (x' = 4 - x)", x_a)
            .line("x in mode B (x' = 10 - 2x)", x_b)
            .legend(LegendAt::LowerRight),
    )
    .panel(
        Panel::new("sensitivity dx/dp (dimensionless)")
            .line("dx/dp in mode A", s_a)
            .line("dx/dp in mode B", s_b)
            .legend(LegendAt::LowerRight),
    )
    .save()
}
