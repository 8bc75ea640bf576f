//! Bouncing ball: the sensitivities of the height and velocity to the initial state and the
//! parameters, `∂(h, v)/∂(h0, v0, g, e)`, carried through several impacts — and checked
//! against the closed form.
//!
//! The ball (`model.rs`) flies under gravity, `h' = v`, `v' = −g`, and bounces when `h` falls
//! through zero, `v⁺ = −e v⁻`. From `h0 = 1 m`, `v0 = 0`, `g = 9.81 m/s²`, `e = 0.8` it hits
//! the floor four times in `[0, 2.5] s`. The example prints
//!
//! - the event log, one aligned row per impact: its time, guard, modes and the sensitivities
//!   of the impact time `dt_k/d(h0, v0, g, e)`, with the largest difference from the closed
//!   form in the last column;
//! - the final state and its sensitivities next to the closed form, and the largest difference
//!   over everything compared (the final state, the impacts, every sample);
//! - the solver's statistics, and the path of `bouncing_ball.svg`: the height and its
//!   sensitivities to `g`, `e` and `h0` over time, with the jumps at the impacts.
//!
//! **The closed form.** The first impact is at `t₁ = (v0 + w)/g` with the impact speed
//! `w = √(v0² + 2 g h0)`. The ball leaves the floor after impact `k` at `e^k w` and is back
//! `2 e^k w / g` later, so `t_n = (v0 + w(1 + 2 S_n))/g` with `S_n = Σ_{k=1}^{n−1} e^k`. After
//! the `n`-th impact (`τ = t − t_n ≥ 0`), `h = u τ − g τ²/2` and `v = u − g τ` with `u = eⁿ w`;
//! before the first, `h = h0 + v0 t − g t²/2`, `v = v0 − g t`. The sensitivities are the
//! derivatives of these expressions (written out in [`ClosedForm`]). Each flight is quadratic
//! in time, which every ESDIRK tableau of order ≥ 2 integrates exactly, so the differences
//! are round-off plus the event location tolerance: about 1e-13 at tight tolerances. The
//! sensitivities jump at each impact although `h` does not (Serban & Recuero 2019, Eq. 6):
//! `∂h/∂θ` goes from `−v⁻ dt_n/dθ` to `−v⁺ dt_n/dθ`.
//!
//! Run with `cargo run --release -p hysens-examples --example bouncing_ball`.

use std::error::Error;

use hysens::prelude::*;

#[path = "../common/check.rs"]
mod check;
mod model;
#[path = "../common/plot.rs"]
mod plot;
#[path = "../common/stats.rs"]
mod stats;

use model::ball;
use plot::{split_at, Figure, LegendAt, Panel};

/// Initial height (m).
const H0: f64 = 1.0;
/// Initial velocity (m/s).
const V0: f64 = 0.0;
/// Gravitational acceleration (m/s²).
const G: f64 = 9.81;
/// Coefficient of restitution.
const E: f64 = 0.8;
/// Final time (s).
const T_END: f64 = 2.5;
/// Sample times, evenly spaced on `[0, T_END]` (the solver lands on each).
const N_SAMPLES: usize = 501;

/// The directions of the sensitivities, in the order of the columns printed: their names as
/// printed and as the solution knows them.
const DIRECTIONS: [(&str, Wrt<'static>); 4] = [
    ("h0", Wrt::InitialState("h")),
    ("v0", Wrt::InitialState("v")),
    ("g", Wrt::Param("g")),
    ("e", Wrt::Param("e")),
];

/// A value and its gradient with respect to `(h0, v0, g, e)`.
#[derive(Clone, Copy, Debug)]
struct WithGradient {
    value: f64,
    gradient: [f64; 4],
}

/// The closed-form solution of the ball and its derivatives (see the module docs).
struct ClosedForm {
    h0: f64,
    v0: f64,
    g: f64,
    e: f64,
}

impl ClosedForm {
    /// The speed at the first impact, `w = √(v0² + 2 g h0)`, with
    /// `∂w/∂(h0, v0, g, e) = (g, v0, h0, 0)/w`.
    fn impact_speed(&self) -> WithGradient {
        let w = (self.v0 * self.v0 + 2.0 * self.g * self.h0).sqrt();
        WithGradient {
            value: w,
            gradient: [self.g / w, self.v0 / w, self.h0 / w, 0.0],
        }
    }

    /// The time of impact `n ≥ 1`, `t_n = (v0 + w(1 + 2 S))/g` with `S = Σ_{k=1}^{n−1} e^k`;
    /// by the quotient rule `∂t_n = (∂v0 + ∂w (1 + 2S) + 2w ∂S − t_n ∂g)/g`, where only
    /// `∂S/∂e = Σ k e^{k−1}` is not zero.
    fn impact_time(&self, n: usize) -> WithGradient {
        let w = self.impact_speed();
        let (s, ds_de) = (1..n).fold((0.0, 0.0), |(s, ds), k| {
            (
                s + self.e.powi(k as i32),
                ds + k as f64 * self.e.powi(k as i32 - 1),
            )
        });
        let t = (self.v0 + w.value * (1.0 + 2.0 * s)) / self.g;
        let dv0 = [0.0, 1.0, 0.0, 0.0];
        let dg = [0.0, 0.0, 1.0, 0.0];
        let ds = [0.0, 0.0, 0.0, ds_de];
        let gradient = std::array::from_fn(|j| {
            (dv0[j] + w.gradient[j] * (1.0 + 2.0 * s) + 2.0 * w.value * ds[j] - t * dg[j]) / self.g
        });
        WithGradient { value: t, gradient }
    }

    /// The number of impacts in `(0, t]`.
    fn impacts_until(&self, t: f64) -> usize {
        (1..)
            .take_while(|&n| self.impact_time(n).value <= t)
            .count()
    }

    /// `(h, v)` at time `t` and their gradients.
    fn state(&self, t: f64) -> [WithGradient; 2] {
        let n = self.impacts_until(t);
        if n == 0 {
            // Before the first impact: h = h0 + v0 t − g t²/2, v = v0 − g t.
            let h = WithGradient {
                value: self.h0 + self.v0 * t - 0.5 * self.g * t * t,
                gradient: [1.0, t, -0.5 * t * t, 0.0],
            };
            let v = WithGradient {
                value: self.v0 - self.g * t,
                gradient: [0.0, 1.0, -t, 0.0],
            };
            return [h, v];
        }
        // After impact n: τ = t − t_n, u = eⁿ w, h = u τ − g τ²/2, v = u − g τ, so
        // ∂h = ∂u τ + v ∂τ − ∂g τ²/2 and ∂v = ∂u − ∂g τ − g ∂τ, with ∂τ = −∂t_n.
        let (w, t_n) = (self.impact_speed(), self.impact_time(n));
        let tau = t - t_n.value;
        let en = self.e.powi(n as i32);
        let u = en * w.value;
        let du: [f64; 4] = std::array::from_fn(|j| {
            let de_n = if j == 3 {
                n as f64 * self.e.powi(n as i32 - 1)
            } else {
                0.0
            };
            en * w.gradient[j] + de_n * w.value
        });
        let v_value = u - self.g * tau;
        let dg = [0.0, 0.0, 1.0, 0.0];
        let h = WithGradient {
            value: u * tau - 0.5 * self.g * tau * tau,
            gradient: std::array::from_fn(|j| {
                du[j] * tau - v_value * t_n.gradient[j] - 0.5 * dg[j] * tau * tau
            }),
        };
        let v = WithGradient {
            value: v_value,
            gradient: std::array::from_fn(|j| du[j] - dg[j] * tau + self.g * t_n.gradient[j]),
        };
        [h, v]
    }
}

/// The largest differences from the closed form seen so far: absolute, and relative to
/// `max(1, |exact|)`. A missing value (NaN) counts as an infinite difference.
#[derive(Clone, Copy, Debug, Default)]
struct Differences {
    absolute: f64,
    relative: f64,
}

impl Differences {
    /// Compares a value and its gradient with the closed form's.
    fn record(&mut self, value: f64, gradient: [f64; 4], exact: &WithGradient) {
        let computed = std::iter::once(value).chain(gradient);
        let expected = std::iter::once(exact.value).chain(exact.gradient);
        for (c, e) in computed.zip(expected) {
            let d = (c - e).abs();
            let d = if d.is_nan() { f64::INFINITY } else { d };
            self.absolute = self.absolute.max(d);
            self.relative = self.relative.max(d / e.abs().max(1.0));
        }
    }

    /// The larger of both.
    fn max(self, other: Differences) -> Differences {
        Differences {
            absolute: self.absolute.max(other.absolute),
            relative: self.relative.max(other.relative),
        }
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let (rtol, atol) = (1e-10, 1e-12);
    let times: Vec<f64> = (0..N_SAMPLES)
        .map(|k| T_END * k as f64 / (N_SAMPLES - 1) as f64)
        .collect();
    let solution = ball::Model
        .solver()
        .tolerances(rtol, atol)
        .sensitivities_to(Params::All, InitialStates::All)
        .samples(&times)
        .solve(
            0.0,
            T_END,
            &ball::X { h: H0, v: V0 },
            &ball::P { g: G, e: E },
        )?;
    let exact = ClosedForm {
        h0: H0,
        v0: V0,
        g: G,
        e: E,
    };
    let sensitivity = |of: &str, wrt| solution.sensitivity(of, wrt).unwrap_or(f64::NAN);

    println!(
        "Bouncing ball: h0 = {H0} m, v0 = {V0} m/s, g = {G} m/s², e = {E}, t in [0, {T_END}] s, \
         rtol {rtol:e}, atol {atol:e}, {N_SAMPLES} samples"
    );
    check::model(&[
        "h' = v, v' = -g in the one mode flight; flight -> flight when h falls through 0, \
         with the reset v⁺ = -e v⁻;",
        "costs: the final height h(T) and the final energy per unit mass v(T)²/2 + g h(T)",
    ]);

    // The event log, and the impacts against the closed form.
    println!();
    print!(
        "{:>2}  {:>17}  {:<6}  {:<16}",
        "k", "t (s)", "guard", "from -> to"
    );
    for (name, _) in DIRECTIONS {
        print!("  {:>13}", format!("dt/d{name}"));
    }
    println!("  {:>15}", "closed-form Δ");
    let mut worst_events = Differences::default();
    for (k, event) in solution.events.iter().enumerate() {
        let dt =
            DIRECTIONS.map(|(_, wrt)| solution.event_time_sensitivity(k, wrt).unwrap_or(f64::NAN));
        let mut this_event = Differences::default();
        this_event.record(event.t, dt, &exact.impact_time(k + 1));
        worst_events = worst_events.max(this_event);
        print!(
            "{:>2}  {:>17.14}  {:<6}  {:<16}",
            k + 1,
            event.t,
            event.guard,
            format!("{} -> {}", event.from, event.to)
        );
        for d in dt {
            print!("  {d:>13.9}");
        }
        println!("  {:>15.1e}", this_event.absolute);
    }
    let expected_impacts = exact.impacts_until(T_END);
    if solution.events.len() != expected_impacts {
        return Err(format!(
            "{} impacts found, the closed form has {expected_impacts}",
            solution.events.len()
        )
        .into());
    }

    // The final state and its sensitivities next to the closed form.
    println!();
    print!("{:<22}  {:>16}", format!("at t = {T_END} s"), "value");
    for (name, _) in DIRECTIONS {
        print!("  {:>16}", format!("d/d{name}"));
    }
    println!();
    let exact_final = exact.state(T_END);
    let mut worst_final = Differences::default();
    for (i, of) in ["h", "v"].into_iter().enumerate() {
        let value = solution.y[i];
        let gradient = DIRECTIONS.map(|(_, wrt)| sensitivity(of, wrt));
        worst_final.record(value, gradient, &exact_final[i]);
        let unit = if of == "h" { "m" } else { "m/s" };
        print!("{:<22}  {value:>16.12}", format!("{of} ({unit}), hysens"));
        for d in gradient {
            print!("  {d:>16.12}");
        }
        println!();
        print!(
            "{:<22}  {:>16.12}",
            format!("{of} ({unit}), closed form"),
            exact_final[i].value
        );
        for d in exact_final[i].gradient {
            print!("  {d:>16.12}");
        }
        println!();
    }

    // Every sample against the closed form.
    let mut worst_samples = Differences::default();
    for (k, sample) in solution.samples.iter().enumerate() {
        let exact_sample = exact.state(sample.t);
        for (i, of) in ["h", "v"].into_iter().enumerate() {
            let gradient = DIRECTIONS
                .map(|(_, wrt)| solution.sample_sensitivity(k, of, wrt).unwrap_or(f64::NAN));
            worst_samples.record(sample.y[i], gradient, &exact_sample[i]);
        }
    }
    let worst = worst_final.max(worst_events).max(worst_samples);
    println!();
    println!(
        "largest difference from the closed form: {:.1e} (relative to max(1, |closed form|): {:.1e})",
        worst.absolute, worst.relative
    );
    println!(
        "  final state and sensitivities {:.1e}, impact times and their sensitivities {:.1e}, \
         the {} samples {:.1e}",
        worst_final.absolute,
        worst_events.absolute,
        solution.samples.len(),
        worst_samples.absolute
    );
    println!("{}", stats::line(&solution.stats));
    let verdict = against_closed_form(&solution, &exact, rtol);

    // The picture: the height and three of its sensitivities, cut at the impacts.
    let impacts: Vec<f64> = solution.events.iter().map(|e| e.t).collect();
    // The height (`None`) or its sensitivity to `wrt` at every sample, cut at the impacts.
    let height = |wrt: Option<Wrt<'_>>| {
        let points = solution.samples.iter().enumerate().map(|(k, s)| {
            let value = match wrt {
                None => s.x.h,
                Some(wrt) => solution.sample_sensitivity(k, "h", wrt).unwrap_or(f64::NAN),
            };
            (s.t, value)
        });
        split_at(points, &impacts)
    };
    let title = format!(
        "Bouncing ball (h0 = {H0} m, v0 = {V0} m/s, g = {G} m/s², e = {E}): \
         height and its sensitivities"
    );
    let path = Figure::new("bouncing_ball", title, "time t (s)")
        .events("impact", impacts.clone())
        .panel(Panel::new("height h (m)").line("h(t)", height(None)))
        .panel(
            Panel::new("∂h/∂g (s²)")
                .line("∂h/∂g, gravity", height(Some(Wrt::Param("g"))))
                .legend(LegendAt::LowerLeft),
        )
        .panel(
            Panel::new("∂h/∂e (m)")
                .line("∂h/∂e, restitution", height(Some(Wrt::Param("e"))))
                .legend(LegendAt::UpperLeft),
        )
        .panel(
            Panel::new("∂h/∂h0 (dimensionless)")
                .line(
                    "∂h/∂h0, initial height",
                    height(Some(Wrt::InitialState("h"))),
                )
                .legend(LegendAt::UpperLeft),
        )
        .save()?;
    println!("plot: {}", path.display());
    Ok(verdict.into_result()?)
}

/// Prints the table of the final state, the sensitivities of the final height and the last
/// impact time against the closed form `exact`; returns its verdict.
fn against_closed_form(
    solution: &Solution<ball::X, 2, 0, 2>,
    exact: &ClosedForm,
    rtol: f64,
) -> check::Verdict {
    let final_state = exact.state(T_END);
    let mut comparison = check::Comparison::new("the closed form of the flight arcs").bound(
        rtol,
        "rtol: each flight is quadratic in time, which the tableau integrates exactly; \
         what remains is round-off and the location of the impacts",
    );
    comparison = comparison
        .row(
            format!("h({T_END}) (m)"),
            solution.y[0],
            final_state[0].value,
        )
        .row(
            format!("v({T_END}) (m/s)"),
            solution.y[1],
            final_state[1].value,
        );
    for (j, (name, wrt)) in DIRECTIONS.into_iter().enumerate() {
        let value = solution.sensitivity("h", wrt).unwrap_or(f64::NAN);
        let reference = final_state[0].gradient[j];
        comparison = comparison.row(format!("dh({T_END})/d{name}"), value, reference);
    }
    let n = solution.events.len();
    if let Some(last) = solution.events.last() {
        let impact = exact.impact_time(n);
        let dt_de = solution
            .event_time_sensitivity(n - 1, "e")
            .unwrap_or(f64::NAN);
        comparison = comparison
            .row(format!("t{n}, impact {n} (s)"), last.t, impact.value)
            .row(format!("dt{n}/de"), dt_de, impact.gradient[3]);
    }
    comparison.print()
}
