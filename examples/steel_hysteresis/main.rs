//! Serban & Recuero 2019, Example 5.2: a mass on a bar (their Fig. 4) whose restoring force
//! follows the exponential model (EM) of hysteresis — an index-1 DAE whose law restarts from the
//! state at every velocity reversal (a hybrid system with memory, the paper's §4) — and the
//! gradient of the total deformation `G = ∫₀¹⁰ u² dt` with respect to the four parameters of
//! the law, `p = (k_a, k_b, α, β) = (32π², π², 205, 0)`, by forward sensitivities and by the
//! adjoint.
//!
//! The model is in `model.rs` (Eq. 45–46). The example prints
//!
//! - the reversals (the events): time, guard, modes and `dt_k/dp`, with the reversal times of
//!   an independent reference solve of the paper's problem (DOP853 at rtol 1e-12, atol 1e-14)
//!   and the difference;
//! - `G` and the gradient `dG/dp` (and `dG/d(u0, v0)`) by the forward sensitivities (FSA) and
//!   by the discrete adjoint (ASA) side by side with their relative difference — the same
//!   discrete solution, so they agree to round-off — and against the values of the reference
//!   solve, with the relative errors and the tolerances to which those values are trusted for
//!   a solve at rtol 1e-8;
//! - the adjoint `λ = dG/dy` at the start and right after the four reversals of the paper's
//!   Fig. 8 window `[6, 8]` against the continuous adjoint of the reference solve (Eq. 48 with
//!   the jumps of Algorithm 1; 7 digits) — the adjoint jumps there although the states and
//!   their sensitivities are continuous: the memory of each mode is reset;
//! - the paths of three pictures: `steel_hysteresis_loop.svg`, the restoring force `A z`
//!   against the displacement `u` (the hysteresis loops, growing with the load);
//!   `steel_sensitivities.svg`, `u` and `∂u/∂(k_a, k_b, α)` over time with the reversals
//!   marked (the paper's Fig. 7 shows them on `[0, 4]`); `steel_adjoint.svg`, `λ₁` and `λ₂`
//!   over time, each mode's piece drawn on its own so the jumps at the reversals show
//!   (the paper's Fig. 8 shows `λ₁` on `[6, 8]`).
//!
//! **Sign convention.** `λ(t) = dG/dy(t)` here, the discrete adjoint of the library. The
//! paper's §4 adds its multiplier to `−ṡ + f_y s + …` (Eq. 31; "convention B", as against
//! the `+λᵀ(F_ẏ ṡ + …)` of its §3.2, Eq. 9, "convention A"), which gives `dG/dy0 = +λ(t0)`: the
//! same sign as ours, so the values compare directly.
//!
//! **λ of a DAE, and at `t0`.** The library's adjoint point is the total derivative with the
//! stress `z` following `u` through the constraint (`AdjointPoint::y`), as the continuous
//! adjoint of the reference. At `t0` there are two points: `λ(0⁺)`, the reference's value, and
//! `dG/dy0`, which adds the capture of the first memory `u* = u0` (the gradient's entry).
//!
//! **Units.** The paper gives none. The example reads the model in SI with a dimensionless
//! area `A = 1`: `t` in s, `u` in m, `v` in m/s, the stress `z` (a force, as `A = 1`) in N,
//! `k_a`, `k_b` in N/m, `α`, `β` in 1/m, the mass 1 kg; so `G` is in m²·s.
//!
//! Run with `cargo run --release -p hysens-examples --example steel_hysteresis`.

use std::error::Error;

use hysens::prelude::*;

#[path = "../common/check.rs"]
mod check;
mod model;
#[path = "../common/plot.rs"]
mod plot;
#[path = "../common/stats.rs"]
mod stats;

use model::{paper_parameters, steel, REFERENCE_ADJOINT_JUMPS, REFERENCE_ADJOINT_START};
use plot::{split_at, Figure, LegendAt, Panel, XyFigure};

/// Final time (s).
const T_END: f64 = 10.0;
/// Relative tolerance: the tolerances to which the reference values are trusted are stated for a
/// solve at rtol 1e-8.
const RTOL: f64 = 1e-8;
/// Absolute tolerance.
const ATOL: f64 = 1e-10;
/// Sample times of the pictures, evenly spaced on `[0, T_END]` (the solver lands on each).
const PLOT_SAMPLES: usize = 2001;

/// The parameter names, in the model's order, as printed.
const PARAMS: [&str; 4] = ["k_a", "k_b", "alpha", "beta"];

/// The reference solve of Serban & Recuero 2019, Ex. 5.2 (DOP853 at rtol 1e-12, atol 1e-14,
/// initial mode loading, mode-0 memory `(u*, z*) = (0, 0)`): `G`, and the tolerance to which it
/// is trusted for a solve at rtol 1e-8 (`|G − G_ref| < 1e-7`).
const REFERENCE_G: (f64, f64) = (0.0499397886064, 1e-7);
/// The converged `dG/dp = [dG/dk_a, dG/dk_b, dG/dα, dG/dβ]` (FSA and ASA of the reference
/// solve, equal to central differences to 8–9 digits), and the relative error to which each is
/// trusted for a solve at rtol 1e-8 (`dG/dβ` is exactly zero: β enters only through
/// `2 sinh(βu) − 2βu`, flat at β = 0).
const REFERENCE_GRADIENT: [(f64, f64); 4] = [
    (-1.336643884e-05, 1e-5),
    (3.266790158e-03, 1e-5),
    (-1.530224960e-06, 1e-4),
    (0.0, 0.0),
];
/// `dG/dv0 = λ₂(0) = 9.062163e-05` of the reference solve's adjoint (confirmed by finite
/// differences; 7 digits given).
const REFERENCE_DG_DV0: f64 = 9.062163e-05;
/// The reference solve's 19 reversal times `t_k` and the states there `(u(t_k), z(t_k))`.
const REFERENCE_REVERSALS: [(f64, f64, f64); 19] = [
    (0.4215126674, 0.0016182472, 0.2266543926),
    (0.8710606940, -0.0048765951, -0.5416493662),
    (1.4279046830, 0.0094761471, 0.7743748757),
    (2.0003351169, -0.0232170360, -0.9736284128),
    (2.5709690443, 0.0449745620, 1.1901182510),
    (3.1246319252, -0.0628280293, -1.3663261757),
    (3.6562785047, 0.0694582906, 1.4317642317),
    (4.1676309149, -0.0727410961, -1.4641642236),
    (4.6720012986, 0.0817138812, 1.5527220628),
    (5.1795568591, -0.0935283258, -1.6693259573),
    (5.6880628062, 0.1021957596, 1.7548701001),
    (6.1932427100, -0.1086091009, -1.8181672418),
    (6.6961284647, 0.1168743970, 1.8997424450),
    (7.1996069287, -0.1268148046, -1.9978503353),
    (7.7035886582, 0.1355193758, 2.0837610094),
    (8.2064959830, -0.1429063813, -2.1566678318),
    (8.7084090696, 0.1511304424, 2.2378360610),
    (9.2104805499, -0.1603832055, -2.3291571728),
    (9.7128048062, 0.1690214972, 2.4144136942),
];
/// The relative difference `|a − b| / |b|` (the absolute one if `b = 0`).
fn relative(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        (a - b).abs()
    } else {
        (a - b).abs() / b.abs()
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let x0 = steel::X { u: 0.0, v: 0.0 };
    let p = paper_parameters();
    let solver = steel::Model.solver().tolerances(RTOL, ATOL);
    let fsa = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, T_END, &x0, &p)?;
    let asa = solver.gradient(0.0, T_END, &x0, &p)?;

    println!(
        "Serban & Recuero Example 5.2, the EM hysteretic oscillator: k_a = 32π² N/m, \
         k_b = π² N/m, alpha = 205 1/m, beta = 0 1/m, m = 1 kg, A = 1, f(t) = t sin(2πt)/2 N, \
         t in [0, {T_END}] s, rtol {RTOL:e}, atol {ATOL:e} (ESDIRK4(3)6L[2]SA)"
    );
    check::model(&[
        "u' = v, m v' = -A z + f(t), 0 = z - σ(ξ, u, u*, z*) (the EM law), ξ = 1 in mode \
         loading, -1 in unloading, (u*, z*) the state at the last reversal;",
        "loading -> unloading when v falls through 0, unloading -> loading when it rises; \
         G = ∫₀¹⁰ u² dt",
    ]);

    // The reversals, against the reference solve.
    println!();
    print!(
        "{:>2}  {:>16}  {:<13}  {:<22}",
        "k", "t_k (s)", "guard", "from -> to"
    );
    for name in PARAMS {
        print!("  {:>14}", format!("dt/d{name}"));
    }
    println!("  {:>13}  {:>8}", "reference t_k", "Δt");
    let mut worst_time: f64 = 0.0;
    for (k, event) in fsa.events.iter().enumerate() {
        print!(
            "{:>2}  {:>16.12}  {:<13}  {:<22}",
            k + 1,
            event.t,
            event.guard,
            format!("{} -> {}", event.from, event.to)
        );
        for name in PARAMS {
            let dt = fsa.event_time_sensitivity(k, name).unwrap_or(f64::NAN);
            print!("  {dt:>14.6e}");
        }
        match REFERENCE_REVERSALS.get(k) {
            Some(&(t, _, _)) => {
                worst_time = worst_time.max((event.t - t).abs());
                println!("  {t:>13.10}  {:>8.1e}", event.t - t);
            }
            None => println!(),
        }
    }
    println!(
        "{} reversals (reference: {}), largest |t_k − reference| = {worst_time:.1e} s",
        fsa.events.len(),
        REFERENCE_REVERSALS.len()
    );

    // G and the gradient: FSA and ASA of the same solve, and the reference.
    println!();
    println!("G = {:.13}", fsa.cost);
    let (g_ref, g_trust) = REFERENCE_G;
    println!(
        "G by the adjoint's forward pass = {:.13} (relative difference from the FSA solve {:.1e})",
        asa.cost,
        relative(asa.cost, fsa.cost)
    );
    let g_error = (fsa.cost - g_ref).abs();
    println!(
        "reference G = {g_ref} (reference solve, DOP853 at rtol 1e-12): |G − reference| = \
         {g_error:.1e} (trusted at rtol 1e-8: < {g_trust:.0e})"
    );
    println!();
    println!(
        "{:<10}  {:>20}  {:>20}  {:>12}  {:>16}  {:>14}  {:>8}",
        "dG/d", "FSA", "adjoint", "FSA vs adj.", "reference", "rel. error", "trusted"
    );
    let mut worst_pair: f64 = 0.0;
    let mut within_trust = g_error < g_trust;
    for (name, &(reference, trust)) in PARAMS.iter().zip(&REFERENCE_GRADIENT) {
        let forward = fsa.cost_gradient(*name).unwrap_or(f64::NAN);
        let adjoint = asa.wrt(*name).unwrap_or(f64::NAN);
        let pair = relative(adjoint, forward);
        worst_pair = worst_pair.max(pair);
        let error = relative(forward, reference);
        // β: the reference is exactly zero, so its error is absolute and must be round-off.
        let trusted = if reference == 0.0 { 1e-15 } else { trust };
        within_trust &= error < trusted;
        println!(
            "{name:<10}  {forward:>20.12e}  {adjoint:>20.12e}  {pair:>12.1e}  \
             {reference:>16.9e}  {error:>14.1e}  {trusted:>8.0e}"
        );
    }
    for state in ["u", "v"] {
        let forward = fsa
            .cost_gradient(Wrt::InitialState(state))
            .unwrap_or(f64::NAN);
        let adjoint = asa.wrt(Wrt::InitialState(state)).unwrap_or(f64::NAN);
        let pair = relative(adjoint, forward);
        worst_pair = worst_pair.max(pair);
        print!(
            "{:<10}  {forward:>20.12e}  {adjoint:>20.12e}  {pair:>12.1e}",
            format!("{state}0")
        );
        if state == "v" {
            // The reference gives 7 digits and no tolerance for this one.
            let error = relative(forward, REFERENCE_DG_DV0);
            println!("  {REFERENCE_DG_DV0:>16.9e}  {error:>14.1e}  {:>8}", "-");
        } else {
            println!();
        }
    }
    println!(
        "FSA vs adjoint: largest relative difference {worst_pair:.1e}; G and dG/dp within the \
         reference's trusted tolerances: {}",
        if within_trust { "yes" } else { "NO" }
    );

    let verdict = against_reference(fsa.cost, &|wrt| fsa.cost_gradient(wrt).unwrap_or(f64::NAN));

    // The adjoint at the start and right after the reversals of the Fig. 8 window.
    println!();
    println!(
        "adjoint λ = dG/dy at t0 and right after the reversals of the Fig. 8 window, against the \
         reference solve (convention B, the paper's §4 sign, is ours):"
    );
    println!(
        "{:>12}  {:>13}  {:>13}  {:>10}  {:>13}  {:>13}  {:>10}",
        "t (s)", "λ₁ = dG/du", "reference", "rel. error", "λ₂ = dG/dv", "reference", "rel. error"
    );
    // λ(0⁺): the last point at t0 in time order (the first is dG/dy0, memory included).
    let t0 = asa.adjoint.first().ok_or("no adjoint points")?.t;
    let start = asa
        .adjoint
        .iter()
        .take_while(|a| a.t == t0)
        .last()
        .ok_or("no adjoint points")?;
    let mut rows = vec![(start, REFERENCE_ADJOINT_START)];
    for &(t_ref, l1_plus, _, l2) in &REFERENCE_ADJOINT_JUMPS {
        // The reversal nearest the reference time; its segment's first point is the right limit.
        let k = nearest_event(&fsa.events, t_ref).ok_or("no reversals")?;
        let right = asa
            .adjoint
            .iter()
            .find(|a| a.segment == k + 1)
            .ok_or("no adjoint point after a reversal")?;
        rows.push((right, [l1_plus, l2]));
    }
    let mut worst = [0.0f64; 2];
    for (point, reference) in rows {
        print!("{:>12.9}", point.t);
        for i in 0..2 {
            let error = relative(point.y[i], reference[i]);
            worst[i] = worst[i].max(error);
            print!(
                "  {:>13.6e}  {:>13.6e}  {error:>10.1e}",
                point.y[i], reference[i]
            );
        }
        println!();
    }
    println!(
        "largest relative error: λ₂ {:.1e}, λ₁ {:.1e} (the reference gives 7 digits)",
        worst[1], worst[0]
    );

    for (what, s) in [("FSA solve", &fsa.stats), ("adjoint's forward", &asa.stats)] {
        println!("{what}: {}", stats::line(s));
    }
    let a = &asa.adjoint_stats;
    println!(
        "adjoint's backward pass: steps {}, LU factorizations {}, events {}",
        a.steps, a.lu_factorizations, a.events
    );

    // The pictures.
    println!();
    let reversal_times: Vec<f64> = fsa.events.iter().map(|e| e.t).collect();
    let drawn = draw_solution(&p, &reversal_times)?;
    let (mut worst_u, mut worst_z) = (0.0f64, 0.0f64);
    for (&(u, z), &(_, u_ref, z_ref)) in drawn.at_reversals.iter().zip(&REFERENCE_REVERSALS) {
        worst_u = worst_u.max((u - u_ref).abs());
        worst_z = worst_z.max((z - z_ref).abs());
    }
    println!(
        "states at the {} reversals (the pictures' solve, sampled at the times above) against \
         the reference: largest |Δu| = {worst_u:.1e} m, |Δz| = {worst_z:.1e} N",
        drawn.at_reversals.len()
    );
    println!(
        "plot of the hysteresis loop (force vs displacement): {}",
        drawn.loop_path.display()
    );
    println!(
        "plot of u and its sensitivities (the paper's Fig. 7): {}",
        drawn.sensitivities_path.display()
    );
    let adjoint_path = draw_adjoint(&asa.adjoint, &reversal_times)?;
    println!(
        "plot of the adjoint λ (the paper's Fig. 8): {}",
        adjoint_path.display()
    );
    Ok(verdict.into_result()?)
}

/// Prints the table of `G` and its gradient (`gradient`, by FSA) against the reference solve,
/// each within the tolerance to which the reference is trusted; returns its verdict.
fn against_reference(g: f64, gradient: &dyn Fn(Wrt<'static>) -> f64) -> check::Verdict {
    let (g_ref, g_trust) = REFERENCE_G;
    let [k_a, k_b, alpha, beta] = REFERENCE_GRADIENT;
    let trust = "the reference's trust for a solve at rtol 1e-8";
    check::Comparison::new("the reference solve, DOP853 at rtol 1e-12")
        .bound(
            g_trust / g_ref,
            format!("|G - reference| < {g_trust:.0e}, {trust}, relative to G"),
        )
        .row("G", g, g_ref)
        .bound(
            k_a.1,
            format!("{trust} (dG/dv0: its 7 digits, no stated trust)"),
        )
        .row("dG/dk_a", gradient(Wrt::Param("k_a")), k_a.0)
        .row("dG/dk_b", gradient(Wrt::Param("k_b")), k_b.0)
        .row("dG/dv0", gradient(Wrt::InitialState("v")), REFERENCE_DG_DV0)
        .bound(alpha.1, trust)
        .row("dG/dalpha", gradient(Wrt::Param("alpha")), alpha.0)
        .bound(
            1e-15,
            "β enters only through 2 sinh(βu) - 2βu, flat at β = 0: zero up to round-off \
             (absolute)",
        )
        .row("dG/dbeta", gradient(Wrt::Param("beta")), beta.0)
        .print()
}

/// What [`draw_solution`] drew.
struct Drawn {
    /// The path of the hysteresis loop.
    loop_path: std::path::PathBuf,
    /// The path of the sensitivities over time.
    sensitivities_path: std::path::PathBuf,
    /// The states `(u, z)` sampled at the reversal times it was given.
    at_reversals: Vec<(f64, f64)>,
}

/// The index of the event nearest `t`.
fn nearest_event<const NY: usize>(events: &[Event<NY>], t: f64) -> Option<usize> {
    (0..events.len()).min_by(|&a, &b| (events[a].t - t).abs().total_cmp(&(events[b].t - t).abs()))
}

/// Draws the hysteresis loop and the sensitivities over time, from a solve with dense samples
/// (a solve of its own, so the numbers printed are those of the solves without samples); the
/// samples include the reversal times of that solve, `reversals`, so the loop's dots are the
/// reversal points.
fn draw_solution(p: &steel::P, reversals: &[f64]) -> Result<Drawn, Box<dyn Error>> {
    let mut times: Vec<f64> = (0..PLOT_SAMPLES)
        .map(|k| T_END * k as f64 / (PLOT_SAMPLES - 1) as f64)
        .chain(reversals.iter().copied())
        .collect();
    times.sort_by(f64::total_cmp);
    let solution = steel::Model
        .solver()
        .tolerances(RTOL, ATOL)
        .sensitivities_to(Params::All, InitialStates::None)
        .samples(&times)
        .solve(0.0, T_END, &steel::X { u: 0.0, v: 0.0 }, p)?;
    let own_reversals: Vec<f64> = solution.events.iter().map(|e| e.t).collect();
    let samples = &solution.samples;
    // The sample indices between reversals, by the mode they are in (that of their first).
    let pieces = split_at(
        samples.iter().enumerate().map(|(k, s)| (s.t, k as f64)),
        &own_reversals,
    );
    let (loading, unloading): (Vec<_>, Vec<_>) = pieces
        .into_iter()
        .map(|piece| {
            piece
                .into_iter()
                .map(|(_, k)| k as usize)
                .collect::<Vec<_>>()
        })
        .partition(|piece| piece.first().is_some_and(|&k| samples[k].mode == "loading"));
    let map = |pieces: &[Vec<usize>], value: &dyn Fn(usize) -> (f64, f64)| {
        pieces
            .iter()
            .map(|piece| piece.iter().map(|&k| value(k)).collect())
            .collect::<Vec<Vec<(f64, f64)>>>()
    };

    // (a) The loop: the restoring force A z (A = 1) against u, and the reversal points.
    let force = |k: usize| (samples[k].x.u, samples[k].z[0]);
    let at_reversals: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| reversals.contains(&s.t))
        .map(|s| (s.x.u, s.z[0]))
        .collect();
    let loop_path = XyFigure::new(
        "steel_hysteresis_loop",
        "Serban & Recuero 2019, Example 5.2: restoring force vs displacement, t in [0, 10] s",
        "displacement u (m)",
        "restoring force A z (N)",
    )
    .line(
        "loading, v > 0 (tangent k_a after a reversal, k_b far from it)",
        map(&loading, &force),
    )
    .line("unloading, v < 0", map(&unloading, &force))
    .dots(
        "velocity reversals (the memory u*, z*)",
        at_reversals.clone(),
    )
    .legend(LegendAt::UpperLeft)
    .save()?;

    // (b) u and its sensitivities to the parameters over time.
    let all: Vec<Vec<usize>> = {
        let mut all: Vec<Vec<usize>> = loading.iter().chain(&unloading).cloned().collect();
        all.sort_by_key(|piece| piece.first().copied());
        all
    };
    let of = |wrt: Option<&str>| {
        map(&all, &|k| {
            let value = match wrt {
                None => samples[k].x.u,
                Some(name) => solution
                    .sample_sensitivity(k, "u", name)
                    .unwrap_or(f64::NAN),
            };
            (samples[k].t, value)
        })
    };
    let sensitivities_path = Figure::new(
        "steel_sensitivities",
        "Example 5.2 (Fig. 7): displacement u and its sensitivities (∂u/∂β ≡ 0 at β = 0)",
        "time t (s)",
    )
    .events("velocity reversal", own_reversals.clone())
    .panel(
        Panel::new("displacement u (m)")
            .line("u(t)", of(None))
            .legend(LegendAt::UpperLeft),
    )
    .panel(
        Panel::new("∂u/∂k_a (m²/N)")
            .line("∂u/∂k_a", of(Some("k_a")))
            .legend(LegendAt::UpperLeft),
    )
    .panel(
        Panel::new("∂u/∂k_b (m²/N)")
            .line("∂u/∂k_b", of(Some("k_b")))
            .legend(LegendAt::UpperLeft),
    )
    .panel(
        Panel::new("∂u/∂α (m²)")
            .line("∂u/∂α", of(Some("alpha")))
            .legend(LegendAt::UpperLeft),
    )
    .save()?;
    Ok(Drawn {
        loop_path,
        sensitivities_path,
        at_reversals,
    })
}

/// Draws the adjoint `λ = dG/dy` of the gradient, each mode segment a curve of its own.
fn draw_adjoint(
    adjoint: &[hysens::runtime::AdjointPoint<2>],
    reversals: &[f64],
) -> Result<std::path::PathBuf, Box<dyn Error>> {
    // Consecutive points of one segment form one curve.
    let curves = |i: usize| {
        let mut segments: Vec<Vec<(f64, f64)>> = Vec::new();
        let mut current = None;
        for point in adjoint {
            if current != Some(point.segment) {
                segments.push(Vec::new());
                current = Some(point.segment);
            }
            if let Some(segment) = segments.last_mut() {
                segment.push((point.t, point.y[i]));
            }
        }
        segments
    };
    Figure::new(
        "steel_adjoint",
        "Example 5.2 (Fig. 8): the adjoint λ = dG/dy(t) of G = ∫u² dt (the sign of the \
         paper's §4)",
        "time t (s)",
    )
    .events("velocity reversal", reversals.to_vec())
    .panel(
        Panel::new("λ₁ = dG/du (m·s)")
            .line("λ₁(t): jumps at the reversals", curves(0))
            .legend(LegendAt::LowerLeft),
    )
    .panel(
        Panel::new("λ₂ = dG/dv (m·s²)")
            .line("λ₂(t): continuous", curves(1))
            .legend(LegendAt::UpperLeft),
    )
    .save()
}
