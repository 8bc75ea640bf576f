//! Quickstart: Serban & Recuero's Example 5.1, a scalar ODE that switches its right-hand side
//! when `x³ − 5x² + 7x` crosses the parameter `p`, and the gradient of `G = ∫₀⁵ x dt` with
//! respect to `p` — exact across its three switches — together with the sensitivity of the
//! final state to the initial one; then the same gradient by the discrete adjoint. Last, it
//! draws the paper's Fig. 2 — the state `x(t)` and its sensitivity `dx/dp`, which jumps at
//! each switch although `x` does not (Eq. 40–41) — into `ex51_state.svg` and prints its path.
//!
//! Run with `cargo run --release --example quickstart`.

use hysens::prelude::*;

mod model;
#[path = "../common/plot.rs"]
mod plot;
use model::ex51;
use plot::{split_at, Figure, LegendAt, Panel};

/// Sample times of the plot, evenly spaced on `[0, 5]` (the solver lands on each).
const PLOT_SAMPLES: usize = 1001;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let solution = ex51::Model
        .solver()
        .tolerances(1e-8, 1e-10)
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 })?;

    println!("Serban & Recuero Example 5.1, p = 2.9, rtol 1e-8, atol 1e-10 (ESDIRK4(3)6L[2]SA)");
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
    let gradient = ex51::Model.solver().tolerances(1e-8, 1e-10).gradient(
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
    Ok(())
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
        .tolerances(1e-8, 1e-10)
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
