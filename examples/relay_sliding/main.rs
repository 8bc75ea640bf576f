//! Relay feedback that slides, and leaves the line: a double integrator under the relay
//! controller `u = −k sign(s)`, `s = x₂ + λ x₁`, with a constant load `d` larger than the
//! relay's amplitude — a Filippov system whose trajectory crosses the switching line, comes
//! back to it, slides along it towards the origin and leaves it where the relay can no longer
//! hold the load; with the sensitivities of all this to `λ`, `k`, `d` and the initial state,
//! against the closed form.
//!
//! The model (`model.rs`): `x₁' = x₂`, `x₂' = u + d`, with `u = +k` below the line (`s < 0`,
//! mode `below`) and `u = −k` above it (`s > 0`, mode `above`); the line is a
//! `#[switching_surface(below, above)]`, so hysens generates the sliding mode `line_sliding`
//! (Filippov's field `(1 − α) f¹ + α f²` with `α = σ₁/(σ₁ − σ₂)`, `σᵢ = ∇s · fⁱ`) and the
//! guards that enter and leave it. With `λ = 1/s`, `k = 1 m/s²`, `d = 1.5 m/s²`, from
//! `x(0) = (6 m, −4 m/s)` on `[0, 5] s`:
//!
//! 1. above the line the net acceleration `d − k` is positive; the state reaches the line at
//!    `x₁ > (d + k)/λ²`, where both fields point across it (`σ₁, σ₂ < 0`): it **crosses**
//!    (guard `line_from_above`, `above → below`);
//! 2. below it, with `d + k`, it comes back to the line inside the segment
//!    `(d − k)/λ² < x₁ < (d + k)/λ²`, where the fields point at each other (`σ₁ > 0 > σ₂`):
//!    it **enters** the sliding mode (`line_from_below`, `below → line_sliding`);
//! 3. on the line `s` stays zero and `x₁' = −λ x₁`: the classic sliding motion towards the
//!    origin, held by the relay's average, the *equivalent control* `u_eq = −(λ x₂ + d)`
//!    `= λ² x₁ − d`; as `x₁` shrinks the load needs more of the relay, and at
//!    `x₁ = (d − k)/λ²` it needs all of it (`u_eq = −k`, `α = 1`, `σ₂ = 0`): the trajectory
//!    **exits** to the side above (`line_exit_to_above`, `line_sliding → above`);
//! 4. above, the load wins: the state drifts away with acceleration `d − k`.
//!
//! The example prints
//!
//! - the event log: time, guard, modes and `dt/dθ` for `θ = (x₁(0), x₂(0), λ, k, d)`, with the
//!   difference from the closed form, and the closed form's switches under it;
//! - the state at `T` and its sensitivities next to the closed form;
//! - the cost `G = ∫₀ᵀ x₁² dt` and its gradient `dG/dθ` by the forward sensitivities (FSA),
//!   by the discrete adjoint and by the closed form;
//! - the largest difference from the closed form over everything compared (the above, and the
//!   states and sensitivities at 101 sample times, each in the closed form's mode), and the
//!   largest relative difference between FSA and the adjoint;
//! - the paths of two pictures: `relay_sliding_phase.svg`, the trajectory in the phase plane
//!   with the switching line (dashed) and the sliding segment on it, and `relay_sliding.svg`,
//!   the states, `s`, the relay's output (the equivalent control while sliding) and the
//!   sensitivities of `x₁` and `x₂` over time, the events marked.
//!
//! **The closed form.** Each piece is explicit ([`closed_form`]). Off the line the
//! acceleration is a constant `a` (`d + k` below, `d − k` above): from `(x₁, x₂)`,
//! `x₁(τ) = x₁ + x₂ τ + a τ²/2`, `x₂(τ) = x₂ + a τ`, and `s(τ) = s + (a + λ x₂) τ + λ a τ²/2`
//! reaches zero at the smallest positive root of that quadratic (right after a crossing, where
//! `s = 0`, at `τ = −2(a + λ x₂)/(λ a)`). At the line, the sign tests of Pytlak & Suski
//! (`σ₁ = λ x₂ + d + k`, `σ₂ = λ x₂ + d − k`) decide crossing or sliding. On the line,
//! `x₂' = −λ x₂` (the sliding field keeps `s' = 0`): `x₂(τ) = x₂ₑ e^{−λτ}`,
//! `x₁(τ) = x₁ₑ + x₂ₑ (1 − e^{−λτ})/λ` (`= x₁ₑ e^{−λτ}`, as `x₂ₑ = −λ x₁ₑ`), and `σ₂ = 0` at
//! `τ = ln(−λ x₂ₑ/(d − k))/λ` (the exit at `x₁ = (d − k)/λ²`). The cost adds up, piece by
//! piece, `∫ (c₀ + c₁ τ + c₂ τ²)² dτ` off the line and `∫ (A + B e^{−λτ})² dτ` on it. The
//! derivatives with respect to `θ` are those of these expressions, computed with dual numbers
//! (the event times and states carry their derivatives through the pieces exactly as the
//! formulas compose; a derivative is an exact derivative of the closed form, not a finite
//! difference).
//!
//! **What to expect.** The pieces off the line are quadratic in time, which every ESDIRK
//! tableau integrates exactly; the sliding piece is an exponential, integrated to the
//! tolerance (rtol 1e-10): the differences are a few 1e-9 at most (the exit time and what
//! follows it inherit the sliding piece's error). The cost's quadrature is in the step's
//! error test (the default; [`options`] measures it against none and against a longest
//! step), else the steps after the exit miss `x₁²` by 1e-3. FSA and the adjoint
//! differentiate the same discrete solution, so they agree to round-off.
//!
//! Run with `cargo run --release -p hysens-examples --example relay_sliding`.

use std::error::Error;

use hysens::prelude::*;
use hysens::runtime::HybridOptions;
use num_dual::{Dual64, DualNum};

#[path = "../common/check.rs"]
mod check;
#[path = "../common/closed_form.rs"]
mod closed_form;
mod model;
#[path = "../common/pieces.rs"]
mod pieces;
#[path = "../common/plot.rs"]
mod plot;
#[path = "../common/stats.rs"]
mod stats;

use closed_form::{piece_by_piece, ClosedForm, Report, Solves};
use model::relay;
use pieces::{joined_in_mode, over_time, pieces};
use plot::{Figure, LegendAt, Panel, XyFigure};

/// Initial position (m).
const X1_0: f64 = 6.0;
/// Initial velocity (m/s).
const X2_0: f64 = -4.0;
/// The slope of the switching line (1/s).
const LAMBDA: f64 = 1.0;
/// The relay's amplitude (m/s²).
const K: f64 = 1.0;
/// The load (m/s²).
const D: f64 = 1.5;
/// Final time (s).
const T_END: f64 = 5.0;
/// Relative tolerance.
const RTOL: f64 = 1e-10;
/// Absolute tolerance.
const ATOL: f64 = 1e-12;
/// Sample times compared with the closed form, evenly spaced on `[0, T_END]`.
const N_SAMPLES: usize = 101;
/// Sample times of the pictures (plus the event times).
const PLOT_SAMPLES: usize = 1001;

/// The solver's settings: the tolerances, and by default the integral cost's quadrature in
/// the error test with them (`Options::cost_error_test`). It is needed here: off the line the
/// states are quadratic in time, which the integrator follows exactly with steps of any
/// length, so the states' test alone lets a single step of 2.5 s run from the exit to `T`,
/// and its quadrature of the quartic `x₁²` is off by 1e-3 (relative 4.5e-5, and no better at
/// a tighter tolerance). Measured (difference of `G` from the closed form, largest difference
/// of `G` and `dG/dθ`; steps, `f` evaluations and LU factorizations of the FSA solve):
///
/// | setting                                  | G       | G, dG/dθ | steps | f evals | LU  |
/// |------------------------------------------|---------|----------|-------|---------|-----|
/// | cost test off                            | 9.5e-4  | 7.9e-3   | 60    | 655     | 281 |
/// | cost test off, `h_max` 0.025 s           | 7.2e-10 | 1.7e-9   | 212   | 1561    | 273 |
/// | cost test (the default, this)            | 6.1e-10 | 2.8e-9   | 228   | 1674    | 455 |
/// | cost test and `h_max` 0.025 s            | 2.4e-10 | 1.3e-9   | 261   | 1866    | 389 |
///
/// (the states, event times and samples are as accurate in every row, 6e-10 to 8e-10). An
/// even grid of 0.025 s, the example's setting before the test was the default, is as
/// accurate in fewer LU factorizations (a constant step reuses the iteration matrix), but it
/// must be tuned to the problem; the test puts the steps where `x₁²` needs them, unasked.
fn options() -> HybridOptions<2, 0> {
    HybridOptions::new(RTOL, ATOL)
}

/// `θ`, the directions of the sensitivities: their names as printed, as the solution knows
/// them, and their values.
const DIRECTIONS: [(&str, Wrt<'static>, f64); 5] = [
    ("x1(0)", Wrt::InitialState("x1"), X1_0),
    ("x2(0)", Wrt::InitialState("x2"), X2_0),
    ("λ", Wrt::Param("lambda"), LAMBDA),
    ("k", Wrt::Param("k"), K),
    ("d", Wrt::Param("d"), D),
];

/// Where the closed form is: off the line on either side, or sliding on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    /// `s < 0`, `u = +k`.
    Below,
    /// `s > 0`, `u = −k`.
    Above,
    /// On the line.
    Sliding,
}

impl closed_form::Piece for Piece {
    fn mode(self) -> &'static str {
        match self {
            Piece::Below => "below",
            Piece::Above => "above",
            Piece::Sliding => "line_sliding",
        }
    }
}

/// The smallest positive root of `a τ² + b τ + c` (`a ≠ 0`), if any; the roots are computed
/// without cancellation.
fn first_positive_root(a: Dual64, b: Dual64, c: Dual64) -> Option<Dual64> {
    let discriminant = b * b - a * c * 4.0;
    if discriminant.re < 0.0 {
        return None;
    }
    let sign = if b.re < 0.0 { -1.0 } else { 1.0 };
    let q = -(b + discriminant.sqrt() * sign) * 0.5;
    [q / a, c / q]
        .into_iter()
        .filter(|r| r.re > 0.0 && r.re.is_finite())
        .min_by(|r, s| r.re.total_cmp(&s.re))
}

/// `∫₀ᴸ (c₀ + c₁ τ + c₂ τ²)² dτ`.
fn integral_of_square(c: [Dual64; 3], l: Dual64) -> Dual64 {
    let [c0, c1, c2] = c;
    let (l2, l3) = (l * l, l * l * l);
    c0 * c0 * l
        + c0 * c1 * l2
        + (c1 * c1 + c0 * c2 * 2.0) * l3 / 3.0
        + c1 * c2 * l2 * l2 * 0.5
        + c2 * c2 * l3 * l2 / 5.0
}

/// The closed form (see the module docs) at `t_end`, for `θ = (x₁(0), x₂(0), λ, k, d)`, each
/// a dual number (seed the direction to differentiate along). An error if the closed form
/// does not cover the case (a start on the line, a repulsive line).
fn closed_form(theta: [Dual64; 5], t_end: f64) -> Result<ClosedForm<Piece, 2>, String> {
    let [x1_0, x2_0, lambda, k, d] = theta;
    let s0 = x2_0 + lambda * x1_0;
    if s0.re == 0.0 {
        return Err("the closed form does not start on the line".into());
    }
    let first = if s0.re > 0.0 {
        Piece::Above
    } else {
        Piece::Below
    };
    let (mut x1, mut x2) = (x1_0, x2_0);
    // Right after a crossing, `s = 0` exactly (the switch time is defined by it).
    let mut on_line = false;
    let mut cost = Dual64::from(0.0);
    let (piece, switches) = piece_by_piece(first, t_end, 20, |piece, t, rest| {
        let (tau, next) = match piece {
            Piece::Below | Piece::Above => {
                let a = if piece == Piece::Below { d + k } else { d - k };
                // s(τ) = s + (a + λ x₂) τ + λ a τ²/2.
                let (quadratic, linear) = (lambda * a * 0.5, a + lambda * x2);
                let hit = if on_line {
                    Some(-linear / quadratic).filter(|r| r.re > 0.0)
                } else {
                    first_positive_root(quadratic, linear, x2 + lambda * x1)
                };
                let hit = hit.filter(|h| (t + *h).re < t_end);
                let tau = hit.unwrap_or(rest);
                cost += integral_of_square([x1, x2, a * 0.5], tau);
                (x1, x2) = (x1 + x2 * tau + a * tau * tau * 0.5, x2 + a * tau);
                // At the line: Filippov's sign tests.
                let next = hit.map(|_| {
                    let sigma1 = lambda * x2 + d + k;
                    let sigma2 = lambda * x2 + d - k;
                    match piece {
                        Piece::Above if sigma1.re < 0.0 => ("line_from_above", Piece::Below),
                        Piece::Above => ("line_from_above", Piece::Sliding),
                        _ if sigma2.re > 0.0 => ("line_from_below", Piece::Above),
                        _ => ("line_from_below", Piece::Sliding),
                    }
                });
                (tau, next)
            }
            Piece::Sliding => {
                // x₂ = x₂ₑ e^{−λτ}: λ x₂ goes monotonically to 0 and reaches the level `c` of
                // an exit (σ₂ = 0 at λ x₂ = −(d − k), σ₁ = 0 at λ x₂ = −(d + k)) at
                // τ = −ln(c/(λ x₂ₑ))/λ if 0 < c/(λ x₂ₑ) < 1.
                let exits = [
                    (-(d - k), "line_exit_to_above", Piece::Above),
                    (-(d + k), "line_exit_to_below", Piece::Below),
                ];
                let exit = exits
                    .into_iter()
                    .filter_map(|(level, guard, to)| {
                        let ratio = level / (lambda * x2);
                        (ratio.re > 0.0 && ratio.re < 1.0)
                            .then(|| (-ratio.ln() / lambda, guard, to))
                    })
                    .filter(|(tau, _, _)| (t + *tau).re < t_end)
                    .min_by(|a, b| a.0.re.total_cmp(&b.0.re));
                let tau = exit.map_or(rest, |(tau, _, _)| tau);
                // x₁ = A + B e^{−λτ} with A = x₁ₑ + x₂ₑ/λ, B = −x₂ₑ/λ.
                let (a, b) = (x1 + x2 / lambda, -x2 / lambda);
                let decay = (-lambda * tau).exp();
                cost += a * a * tau
                    + a * b * (-decay + 1.0) * 2.0 / lambda
                    + b * b * (-decay * decay + 1.0) / (lambda * 2.0);
                (x1, x2) = (a + b * decay, x2 * decay);
                (tau, exit.map(|(_, guard, to)| (guard, to)))
            }
        };
        // A next piece starts at this one's switch, on the line.
        on_line = true;
        Ok((tau, next))
    })?;
    Ok(ClosedForm {
        x: [x1, x2],
        piece,
        switches,
        cost,
    })
}

fn main() -> Result<(), Box<dyn Error>> {
    let x0 = relay::X { x1: X1_0, x2: X2_0 };
    let p = relay::P {
        lambda: LAMBDA,
        k: K,
        d: D,
    };
    let solver = relay::Model.solver().options(options());
    let solves = Solves::new(solver, T_END, (N_SAMPLES, PLOT_SAMPLES), &x0, &p)?;
    let report = Report {
        directions: DIRECTIONS,
        states: [("x1", "m"), ("x2", "m/s")],
        closed_form,
    };

    println!(
        "Relay with sliding: x1' = x2, x2' = u + d, u = -k sign(s), s = x2 + λ x1; \
         λ = {LAMBDA} 1/s, k = {K} m/s², d = {D} m/s², x(0) = ({X1_0} m, {X2_0} m/s), \
         t in [0, {T_END}] s, rtol {RTOL:e}, atol {ATOL:e}, integral cost in the error test"
    );
    check::model(&[
        "x1' = x2 in every mode; x2' = -k + d in mode above (s > 0), k + d in mode below \
         (s < 0);",
        "the switching surface s = 0 between them: crossed, or slid along (mode line_sliding, \
         Filippov); G = ∫₀ᵀ x1² dt",
    ]);
    println!(
        "the line s = 0 attracts from both sides (sliding) for (d - k)/λ² < x1 < (d + k)/λ², \
         i.e. {:.4} m < x1 < {:.4} m; sliding ends where u_eq = λ² x1 - d reaches -k",
        (D - K) / (LAMBDA * LAMBDA),
        (D + K) / (LAMBDA * LAMBDA)
    );

    // The event log, against the closed form's switches; the state at T; every sample; the
    // cost and its gradient by FSA, the adjoint and the closed form (`common/closed_form.rs`).
    let cost = ("G = ∫ x1² dt", "m²·s");
    let verdict = report.compare(&solves, T_END, cost, RTOL, |_| {})?;

    let (phase, time) = draw(&p, &solves)?;
    println!("plot (phase plane): {}", phase.display());
    println!("plot (over time): {}", time.display());
    Ok(verdict.into_result()?)
}

/// Draws the phase plane and the quantities over time, from the solve of `solves` sampled for
/// the pictures (the dots are the states at the events of the solve compared above).
fn draw(
    p: &relay::P,
    solves: &Solves<relay::X, 2, 3>,
) -> Result<(std::path::PathBuf, std::path::PathBuf), Box<dyn Error>> {
    let events: Vec<f64> = solves.solution.events.iter().map(|e| e.t).collect();
    let states = &solves.pictured;
    let samples = &states.samples;
    let pieces = pieces(states);
    let joined = |mode: &str| joined_in_mode(samples, &pieces, mode, |s| (s.x.x1, s.x.x2));

    // (a) The phase plane: the line s = 0 across the trajectory's box, the pieces by mode.
    let range = |value: &dyn Fn(&relay::X) -> f64| {
        samples
            .iter()
            .map(|s| value(&s.x))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            })
    };
    let ((x1_lo, x1_hi), (x2_lo, x2_hi)) = (range(&|x| x.x1), range(&|x| x.x2));
    // x₂ = −λ x₁ within the box, a little beyond the trajectory.
    let (x1_from, x1_to) = (
        (x1_lo - 0.3).max(-(x2_hi + 0.3) / p.lambda),
        (x1_hi + 0.3).min(-(x2_lo - 0.3) / p.lambda),
    );
    let line = vec![vec![
        (x1_from, -p.lambda * x1_from),
        (x1_to, -p.lambda * x1_to),
    ]];
    let at_events: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| events.contains(&s.t))
        .map(|s| (s.x.x1, s.x.x2))
        .collect();
    let phase = XyFigure::new(
        "relay_sliding_phase",
        format!(
            "Relay u = −k sign(x₂ + λx₁) under a load d (λ = {} 1/s, k = {} m/s², \
             d = {} m/s²), t in [0, {T_END}] s",
            p.lambda, p.k, p.d
        ),
        "position x₁ (m)",
        "velocity x₂ (m/s)",
    )
    .guide("switching line s = x₂ + λx₁ = 0", line)
    .line(
        "above the line, u = −k (start at the right)",
        joined("above"),
    )
    .line("below the line, u = +k", joined("below"))
    .line(
        "sliding on the line, u_eq = λ²x₁ − d, while |u_eq| < k",
        joined("line_sliding"),
    )
    .dots("events: crossing, entry, exit", at_events)
    .legend(LegendAt::UpperRight)
    .save()?;

    // (b) Over time.
    let sensitivity = |of: &'static str, wrt: Wrt<'static>| {
        over_time(samples, &pieces, |k| {
            states.sample_sensitivity(k, of, wrt).unwrap_or(f64::NAN)
        })
    };
    // The relay's output: ∓k off the line, the equivalent control −(λ x₂ + d) on it.
    let relay_output = |k: usize| {
        let s = &samples[k];
        match s.mode {
            "below" => p.k,
            "above" => -p.k,
            _ => -(p.lambda * s.x.x2 + p.d),
        }
    };
    let own_events: Vec<f64> = states.events.iter().map(|e| e.t).collect();
    let time = Figure::new(
        "relay_sliding",
        format!(
            "Relay with sliding (λ = {} 1/s, k = {} m/s², d = {} m/s²): \
             states, s, relay output, sensitivities",
            p.lambda, p.k, p.d
        ),
        "time t (s)",
    )
    .events("events: crossing, entry, exit", own_events)
    .panel(
        Panel::new("position x₁ (m)")
            .line("x₁(t)", over_time(samples, &pieces, |k| samples[k].x.x1))
            .legend(LegendAt::UpperRight),
    )
    .panel(
        Panel::new("velocity (m/s)")
            .line(
                "velocity x₂(t)",
                over_time(samples, &pieces, |k| samples[k].x.x2),
            )
            .line(
                "s = x₂ + λx₁ (zero while sliding)",
                over_time(samples, &pieces, |k| {
                    samples[k].x.x2 + p.lambda * samples[k].x.x1
                }),
            )
            .legend(LegendAt::LowerRight),
    )
    .panel(
        Panel::new("relay output u (m/s²)")
            .line(
                "u: −k above, +k below the line, u_eq = −(λx₂ + d) on it",
                over_time(samples, &pieces, relay_output),
            )
            .legend(LegendAt::MiddleRight),
    )
    .panel(
        Panel::new("∂x₁/∂k, ∂x₁/∂d (s²)")
            .line(
                "∂x₁/∂k, relay amplitude",
                sensitivity("x1", Wrt::Param("k")),
            )
            .line("∂x₁/∂d, load", sensitivity("x1", Wrt::Param("d")))
            .legend(LegendAt::LowerLeft),
    )
    .panel(
        Panel::new("∂x₂/∂k, ∂x₂/∂d (s)")
            .line(
                "∂x₂/∂k, relay amplitude",
                sensitivity("x2", Wrt::Param("k")),
            )
            .line("∂x₂/∂d, load", sensitivity("x2", Wrt::Param("d")))
            .legend(LegendAt::LowerLeft),
    )
    .panel(
        Panel::new("∂x₁/∂λ (m·s)")
            .line(
                "∂x₁/∂λ, slope of the line",
                sensitivity("x1", Wrt::Param("lambda")),
            )
            .legend(LegendAt::UpperLeft),
    )
    .panel(
        Panel::new("∂x₁/∂x₁(0), ∂x₂/∂x₂(0) (1)")
            .line(
                "∂x₁/∂x₁(0), initial position",
                sensitivity("x1", Wrt::InitialState("x1")),
            )
            .line(
                "∂x₂/∂x₂(0), initial velocity",
                sensitivity("x2", Wrt::InitialState("x2")),
            )
            .legend(LegendAt::UpperRight),
    )
    .save()?;
    Ok((phase, time))
}
