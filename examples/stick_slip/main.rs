//! Stick–slip: a mass on a spring, resting on a moving belt, with dry friction between them —
//! a Filippov system whose trajectory sticks to the belt, breaks loose when the spring pulls
//! harder than the friction can hold, slips, comes back to the belt's speed and sticks again:
//! a stick–slip limit cycle; with the sensitivities of all this to the friction, the spring,
//! the belt's speed and the initial state, against the closed form.
//!
//! The model (`model.rs`), per unit mass: `x' = v`, `v' = −ω² x + F`, with the friction
//! `F = −a sign(v − v_b) + b (v − v_b)`: `+a + b(v − v_b)` slower than the belt (`v < v_b`,
//! mode `slip_back`), `−a + b(v − v_b)` faster than it (mode `slip_forward`). The belt speed
//! `g = v − v_b` is a `#[switching_surface(slip_back, slip_forward)]`, so hysens generates the
//! sliding mode `belt_sliding` — the mass **sticking** to the belt: Filippov's field
//! `(1 − α) f¹ + α f²`, `α = σ₁/(σ₁ − σ₂)`, with `σ₁ = a − ω² x`, `σ₂ = −a − ω² x` on the
//! surface, which is `x' = v_b`, `v' = 0` (the equivalent friction `F_eq = ω² x` balances the
//! spring) while `|ω² x| < a`.
//!
//! **Why the friction weakens with slip (`b > 0`).** With pure Coulomb friction (`b = 0`) the
//! mass breaks loose at `x = a/ω²` with `v = v_b` and slips on a circle about `a/ω²` through
//! that very point: it comes back to the belt's speed exactly where it left it, tangentially
//! (`g = v_b(cos ωτ − 1) ≤ 0` touches 0 after one period), and the stick phase of the cycle has
//! zero length — the limit cycle is degenerate, a pure slip oscillation grazing the surface.
//! (hysens, with `b = 0` from rest, sticks once, breaks loose and then slips on that circle to
//! the end without another event — a valid continuation, but no stick–slip, and a grazing
//! contact is no test of event location.) Real stick–slip needs the
//! friction at rest to exceed the friction in slip; the simplest smooth form of that, one a
//! Filippov surface can carry, is friction that weakens linearly with the slip speed (the
//! linearised Stribeck curve): `a − b|v − v_b|`. Then each slip loop grows (`e^{bτ/2}`), comes
//! back to the belt's speed before it closes, inside the sticking band, and sticks again.
//!
//! With `ω = 1/s`, `a = 1 m/s²`, `b = 0.3/s`, `v_b = 0.5 m/s`, from `x(0) = 0`,
//! `v(0) = 2 m/s` (kicked forward, faster than the belt) on `[0, 24] s`:
//!
//! 1. faster than the belt, the mass decelerates about `x = −(a + b v_b)/ω²` and reaches the
//!    belt's speed at `x > a/ω²`, where the spring pulls harder than the friction can hold
//!    (`σ₁ < 0`, `σ₂ < 0`): it **crosses** (guard `belt_from_slip_forward`,
//!    `slip_forward → slip_back`);
//! 2. slower than the belt, it oscillates about `x = (a − b v_b)/ω²` with a growing amplitude
//!    and comes back to the belt's speed inside the band `|ω² x| < a`: it **sticks**
//!    (`belt_from_slip_back`, `slip_back → belt_sliding`);
//! 3. stuck, it rides with the belt (`x` grows at `v_b`) until the spring's pull `ω² x` reaches
//!    `a` (`σ₁ = 0`, `α = 0`): it **breaks loose** (`belt_exit_to_slip_back`,
//!    `belt_sliding → slip_back`), always at the same point `(a/ω², v_b)` — from here on the
//!    motion is the limit cycle (period 7.155 s, 2.057 s of it stuck): slip (one growing loop),
//!    stick at the same `x`, break loose; the initial state is forgotten but for the cycle's
//!    phase (all later event times shift by the same `dt/dx(0)`, `dt/dv(0)`);
//! 4. two more cycles follow; the solve ends slipping, after the third break.
//!
//! The example prints
//!
//! - the event log: time, guard, modes and `dt/dθ` for `θ = (x(0), v(0), ω, a, b, v_b)`, with
//!   the difference from the closed form, and the closed form's switches under it;
//! - the state at `T` and its sensitivities next to the closed form;
//! - the cost `G = ∫₀ᵀ x² dt` and its gradient `dG/dθ` by the forward sensitivities (FSA), by
//!   the discrete adjoint and by the closed form;
//! - the largest difference from the closed form over everything compared (the above, and the
//!   states and sensitivities at 101 sample times, each in the closed form's mode), and the
//!   largest relative difference between FSA and the adjoint;
//! - the paths of two pictures: `stick_slip_phase.svg`, the trajectory in the phase plane with
//!   the belt speed (dashed) and the stick segments on it, and `stick_slip.svg`, the states,
//!   the friction (the equivalent friction while sticking) and the sensitivities of `x` over
//!   time, the events marked.
//!
//! **The closed form.** Each piece is explicit ([`closed_form`]). Slipping on the side
//! `s = ±1` (`+1` slower than the belt), `x'' − b x' + ω² x = s a − b v_b`: about the shifted
//! equilibrium `x_e = (s a − b v_b)/ω²`, with `β = b/2`, `ω_d = √(ω² − β²)`,
//! `x(τ) = x_e + e^{βτ}(A cos ω_d τ + B sin ω_d τ)`, `A = x₀ − x_e`, `B = (v₀ − β A)/ω_d`, and
//! `v = x'`. The return to the belt's speed, `v(τ) = v_b`, is transcendental for `b > 0`: its
//! first root is bracketed on a grid, bisected and polished by Newton's method in dual numbers
//! (whose last step gives the implicit function's derivative `−(∂v/∂θ)/v'` exactly). At the
//! belt, the sign tests of Pytlak & Suski (`σ₁ = a − ω² x`, `σ₂ = −a − ω² x`) decide crossing
//! or sticking. Stuck, `x(τ) = x₀ + v_b τ`, `v = v_b`, and the mass breaks loose at
//! `τ = (a/ω² − x₀)/v_b` (`σ₁ = 0`; or at `−a/ω²`, `σ₂ = 0`, for a belt running backwards). The
//! cost adds up, piece by piece, `∫ x² dτ` in closed form: `x₀² τ + x₀ v_b τ² + v_b² τ³/3`
//! stuck, and for a slip the integrals of `e^{pτ} cos qτ`, `e^{pτ} sin qτ` with `(p, q)` =
//! `(β, ω_d)` and `(2β, 2ω_d)`. The derivatives with respect to `θ` are those of these
//! expressions, computed with dual numbers (event times and states carry their derivatives
//! through the pieces exactly as the formulas compose; not finite differences).
//!
//! **What to expect.** The slip pieces are exponentially growing oscillations, integrated to the
//! tolerance (rtol 1e-10); the stick pieces are linear in time, which every tableau follows
//! exactly (and so does the cost's quadrature, without a step limit). The differences are a
//! few 1e-9 of the size of what is compared: the event times agree to about 1e-9 s; the
//! sensitivities, which grow to 10–35 over three cycles (`∂/∂ω`, `∂/∂b`: a cycle's period
//! depends on both), to a few 1e-8 absolute — which is also what the printed "relative to
//! max(1, |closed form|)" shows, where a sensitivity of order 1 passes through zero next to
//! ones of order 10. They are the integration's, not the closed form's: at rtol 1e-12 they all
//! fall a hundredfold (to 8e-10). FSA and the adjoint differentiate the same discrete solution,
//! so they agree to round-off.
//!
//! Run with `cargo run --release -p hysens-examples --example stick_slip`.

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

use closed_form::{piece_by_piece, ClosedForm, ClosedFormGradient, Report, Solves};
use model::oscillator;
use pieces::{joined_in_mode, over_time, pieces};
use plot::{Figure, LegendAt, Panel, XyFigure};

/// Initial position (m).
const X_0: f64 = 0.0;
/// Initial velocity (m/s): faster than the belt.
const V_0: f64 = 2.0;
/// The spring's angular frequency (1/s).
const OMEGA: f64 = 1.0;
/// The friction at zero slip, per unit mass (m/s²).
const A: f64 = 1.0;
/// The friction's weakening with the slip speed (1/s).
const B: f64 = 0.3;
/// The belt's speed (m/s).
const VB: f64 = 0.5;
/// Final time (s): three stick phases, the last two on the limit cycle, and a slip after them.
const T_END: f64 = 24.0;
/// Relative tolerance.
const RTOL: f64 = 1e-10;
/// Absolute tolerance.
const ATOL: f64 = 1e-12;
/// Sample times compared with the closed form, evenly spaced on `[0, T_END]`.
const N_SAMPLES: usize = 101;
/// Sample times of the pictures (plus the event times).
const PLOT_SAMPLES: usize = 1101;
/// The number of directions `θ`.
const N_THETA: usize = 6;

/// The solver's settings: the tolerances.
fn options() -> HybridOptions<2, 0> {
    HybridOptions::new(RTOL, ATOL)
}

/// `θ`, the directions of the sensitivities: their names as printed, as the solution knows
/// them, and their values.
const DIRECTIONS: [(&str, Wrt<'static>, f64); N_THETA] = [
    ("x(0)", Wrt::InitialState("x"), X_0),
    ("v(0)", Wrt::InitialState("v"), V_0),
    ("ω", Wrt::Param("omega"), OMEGA),
    ("a", Wrt::Param("a"), A),
    ("b", Wrt::Param("b"), B),
    ("v_b", Wrt::Param("vb"), VB),
];

/// Where the closed form is: slipping on either side of the belt's speed, or stuck to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    /// `v < v_b`, `F = a + b(v − v_b)`.
    SlipBack,
    /// `v > v_b`, `F = −a + b(v − v_b)`.
    SlipForward,
    /// Stuck to the belt, `v = v_b`.
    Stick,
}

impl closed_form::Piece for Piece {
    fn mode(self) -> &'static str {
        match self {
            Piece::SlipBack => "slip_back",
            Piece::SlipForward => "slip_forward",
            Piece::Stick => "belt_sliding",
        }
    }
}

/// A slip piece from `(x₀, v₀)`: `x(τ) = x_e + e^{βτ}(A cos ω_d τ + B sin ω_d τ)`.
#[derive(Clone, Copy, Debug)]
struct Slip {
    /// `+1` slower than the belt (friction forward), `−1` faster.
    side: f64,
    /// The equilibrium `x_e = (s a − b v_b)/ω²`.
    xe: Dual64,
    /// `β = b/2`, the growth rate.
    beta: Dual64,
    /// `ω_d = √(ω² − β²)`.
    wd: Dual64,
    /// `A = x₀ − x_e`.
    ca: Dual64,
    /// `B = (v₀ − β A)/ω_d`.
    cb: Dual64,
    omega: Dual64,
    a: Dual64,
    b: Dual64,
    vb: Dual64,
}

/// `∫₀^τ e^{pt} cos qt dt` and `∫₀^τ e^{pt} sin qt dt` (`p² + q² > 0`).
fn exp_cos_sin_integrals(p: Dual64, q: Dual64, tau: Dual64) -> (Dual64, Dual64) {
    let e = (p * tau).exp();
    let (s, c) = (q * tau).sin_cos();
    let n = p * p + q * q;
    ((e * (p * c + q * s) - p) / n, (e * (p * s - q * c) + q) / n)
}

impl Slip {
    fn new(piece: Piece, (x, v): (Dual64, Dual64), [omega, a, b, vb]: [Dual64; 4]) -> Slip {
        let side = if piece == Piece::SlipBack { 1.0 } else { -1.0 };
        let omega2 = omega * omega;
        let xe = (a * side - b * vb) / omega2;
        let beta = b * 0.5;
        let wd = (omega2 - beta * beta).sqrt();
        let ca = x - xe;
        let cb = (v - beta * ca) / wd;
        Slip {
            side,
            xe,
            beta,
            wd,
            ca,
            cb,
            omega,
            a,
            b,
            vb,
        }
    }

    /// `(x, v)` at `τ`.
    fn state(&self, tau: Dual64) -> (Dual64, Dual64) {
        let e = (self.beta * tau).exp();
        let (s, c) = (self.wd * tau).sin_cos();
        let (ca, cb) = (self.ca, self.cb);
        (
            self.xe + e * (ca * c + cb * s),
            e * ((self.beta * ca + self.wd * cb) * c + (self.beta * cb - self.wd * ca) * s),
        )
    }

    /// `v'` at `(x, v)`.
    fn acceleration(&self, (x, v): (Dual64, Dual64)) -> Dual64 {
        -self.omega * self.omega * x + self.a * self.side + self.b * (v - self.vb)
    }

    /// The first return to the belt's speed, `v(τ) = v_b` crossed from this side, before
    /// `rest`: bracketed on a grid of 512 points per period (from `τ > 0`: the piece may start
    /// on the belt's speed), bisected, then polished by Newton's method in dual numbers.
    fn return_to_belt(&self, rest: f64) -> Option<Dual64> {
        let g = |tau: f64| self.side * (self.state(Dual64::from(tau)).1.re - self.vb.re);
        let delta = 2.0 * std::f64::consts::PI / self.wd.re / 512.0;
        let (mut lo, mut hi) = (0.0, delta);
        while g(hi) < 0.0 {
            if hi > rest {
                return None;
            }
            (lo, hi) = (hi, hi + delta);
        }
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if g(mid) < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let mut tau = Dual64::from(hi);
        for _ in 0..3 {
            let state = self.state(tau);
            tau -= (state.1 - self.vb) / self.acceleration(state);
        }
        (tau.re < rest).then_some(tau)
    }

    /// `∫₀^τ x² dt`.
    fn cost(&self, tau: Dual64) -> Dual64 {
        let (xe, ca, cb) = (self.xe, self.ca, self.cb);
        let (c1, s1) = exp_cos_sin_integrals(self.beta, self.wd, tau);
        let (c2, s2) = exp_cos_sin_integrals(self.beta * 2.0, self.wd * 2.0, tau);
        // ∫ e^{2βt} dt, exactly τ for β = 0.
        let e2 = if self.beta.re == 0.0 {
            tau
        } else {
            (self.beta * tau * 2.0).exp_m1() / (self.beta * 2.0)
        };
        xe * xe * tau
            + xe * (ca * c1 + cb * s1) * 2.0
            + (ca * ca + cb * cb) * e2 * 0.5
            + (ca * ca - cb * cb) * c2 * 0.5
            + ca * cb * s2
    }
}

/// The closed form (see the module docs) at `t_end`, for `θ = (x(0), v(0), ω, a, b, v_b)`,
/// each a dual number (seed the direction to differentiate along). An error if the closed
/// form does not cover the case (a start on the belt's speed, `b = 0` or `b ≥ 2ω`).
fn closed_form(theta: [Dual64; N_THETA], t_end: f64) -> Result<ClosedForm<Piece, 2>, String> {
    let [x0, v0, omega, a, b, vb] = theta;
    if v0.re == vb.re {
        return Err("the closed form does not start on the belt's speed".into());
    }
    // b = 0 (Coulomb) makes every slip after a break graze the belt's speed where it left it
    // (see the module docs): the bracketing below would take the grazing for a return.
    if b.re >= 2.0 * omega.re || b.re <= 0.0 || vb.re == 0.0 {
        return Err("the closed form needs 0 < b < 2ω and a moving belt".into());
    }
    let first = if v0.re > vb.re {
        Piece::SlipForward
    } else {
        Piece::SlipBack
    };
    let (mut x, mut v) = (x0, v0);
    let mut cost = Dual64::from(0.0);
    let (piece, switches) = piece_by_piece(first, t_end, 40, |piece, _, rest| {
        Ok(match piece {
            Piece::SlipBack | Piece::SlipForward => {
                let slip = Slip::new(piece, (x, v), [omega, a, b, vb]);
                let hit = slip.return_to_belt(rest.re);
                let tau = hit.unwrap_or(rest);
                cost += slip.cost(tau);
                (x, v) = slip.state(tau);
                // At the belt's speed (exactly `v_b`, by the definition of `τ`): Filippov's
                // sign tests.
                let next = hit.map(|_| {
                    v = vb;
                    let sigma1 = a - omega * omega * x;
                    let sigma2 = -a - omega * omega * x;
                    match piece {
                        Piece::SlipBack if sigma2.re > 0.0 => {
                            ("belt_from_slip_back", Piece::SlipForward)
                        }
                        Piece::SlipBack => ("belt_from_slip_back", Piece::Stick),
                        _ if sigma1.re < 0.0 => ("belt_from_slip_forward", Piece::SlipBack),
                        _ => ("belt_from_slip_forward", Piece::Stick),
                    }
                });
                (tau, next)
            }
            Piece::Stick => {
                // x = x₀ + v_b τ reaches a/ω² (σ₁ = 0) or −a/ω² (σ₂ = 0).
                let limit = a / (omega * omega);
                let exits = [
                    (limit, "belt_exit_to_slip_back", Piece::SlipBack),
                    (-limit, "belt_exit_to_slip_forward", Piece::SlipForward),
                ];
                let exit = exits
                    .into_iter()
                    .map(|(level, guard, to)| ((level - x) / vb, level, guard, to))
                    .filter(|(tau, ..)| tau.re > 0.0 && tau.re < rest.re)
                    .min_by(|p, q| p.0.re.total_cmp(&q.0.re));
                let tau = exit.map_or(rest, |(tau, ..)| tau);
                cost += x * x * tau + x * vb * tau * tau + vb * vb * tau * tau * tau / 3.0;
                x = exit.map_or(x + vb * tau, |(_, level, ..)| level);
                v = vb;
                (tau, exit.map(|(_, _, guard, to)| (guard, to)))
            }
        })
    })?;
    Ok(ClosedForm {
        x: [x, v],
        piece,
        switches,
        cost,
    })
}

fn main() -> Result<(), Box<dyn Error>> {
    let x0 = oscillator::X { x: X_0, v: V_0 };
    let p = oscillator::P {
        omega: OMEGA,
        a: A,
        b: B,
        vb: VB,
    };
    let solver = oscillator::Model.solver().options(options());
    let solves = Solves::new(solver, T_END, (N_SAMPLES, PLOT_SAMPLES), &x0, &p)?;
    let report = Report {
        directions: DIRECTIONS,
        states: [("x", "m"), ("v", "m/s")],
        closed_form,
    };

    println!(
        "Stick-slip: x' = v, v' = -ω² x + F, F = -a sign(v - v_b) + b (v - v_b); \
         ω = {OMEGA} 1/s, a = {A} m/s², b = {B} 1/s, v_b = {VB} m/s, \
         x(0) = ({X_0} m, {V_0} m/s), t in [0, {T_END}] s, rtol {RTOL:e}, atol {ATOL:e}"
    );
    check::model(&[
        "x' = v; v' = -ω² x + a + b (v - v_b) in mode slip_back (v < v_b), -ω² x - a + \
         b (v - v_b) in mode slip_forward (v > v_b);",
        "the switching surface v = v_b between them: crossed, or stuck to (mode belt_sliding, \
         Filippov); G = ∫₀ᵀ x² dt",
    ]);
    println!(
        "the belt holds the mass (sticking, v = v_b) while |ω² x| < a, i.e. {:.4} m < x < {:.4} m; \
         it breaks loose at x = a/ω² with v = v_b, the start of every later cycle",
        -A / (OMEGA * OMEGA),
        A / (OMEGA * OMEGA)
    );

    // The event log, against the closed form's switches; the state at T; every sample; the
    // cost and its gradient by FSA, the adjoint and the closed form (`common/closed_form.rs`).
    let cost = ("G = ∫ x² dt", "m²·s");
    let verdict = report.compare(&solves, T_END, cost, RTOL, print_limit_cycle)?;

    let (phase, time) = draw(&x0, &p, &solves)?;
    println!("plot (phase plane): {}", phase.display());
    println!("plot (over time): {}", time.display());
    Ok(verdict.into_result()?)
}

/// Prints the limit cycle of the closed form `closed_form`: from one breaking loose to the
/// next, stuck from the last sticking between them.
fn print_limit_cycle(closed_form: &ClosedFormGradient<Piece, 2, N_THETA>) {
    let switches = &closed_form.values().switches;
    let exits: Vec<f64> = switches
        .iter()
        .filter(|s| s.from == Piece::Stick)
        .map(|s| s.t.re)
        .collect();
    if let [.., e1, e2] = exits.as_slice() {
        let stuck = switches
            .iter()
            .filter(|s| s.to == Piece::Stick && s.t.re < *e2)
            .map(|s| e2 - s.t.re)
            .next_back()
            .unwrap_or(f64::NAN);
        let limit = A / (OMEGA * OMEGA);
        println!(
            "limit cycle (closed form): period {:.12} s, stuck for {stuck:.12} s from \
             x = {:.12} m to a/ω² = {limit} m",
            e2 - e1,
            limit - VB * stuck,
        );
    }
}

/// Draws the phase plane and the quantities over time, from the solve of `solves` sampled for
/// the pictures (the dots are the states at the events of the solve compared above).
fn draw(
    x0: &oscillator::X,
    p: &oscillator::P,
    solves: &Solves<oscillator::X, 2, 4>,
) -> Result<(std::path::PathBuf, std::path::PathBuf), Box<dyn Error>> {
    let events: Vec<f64> = solves.solution.events.iter().map(|e| e.t).collect();
    let states = &solves.pictured;
    let samples = &states.samples;
    let pieces = pieces(states);
    let joined = |mode: &str| joined_in_mode(samples, &pieces, mode, |s| (s.x.x, s.x.v));

    // (a) The phase plane: the belt's speed across the trajectory's box, the pieces by mode.
    let (x_lo, x_hi) = samples
        .iter()
        .map(|s| s.x.x)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    let belt = vec![vec![(x_lo - 0.2, p.vb), (x_hi + 0.2, p.vb)]];
    let at_events: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| events.contains(&s.t))
        .map(|s| (s.x.x, s.x.v))
        .collect();
    let phase = XyFigure::new(
        "stick_slip_phase",
        format!(
            "Stick–slip on a belt (ω = {} 1/s, a = {} m/s², b = {} 1/s, v_b = {} m/s) \
             from (x, v) = ({}, {}), t in [0, {T_END}] s",
            p.omega, p.a, p.b, p.vb, x0.x, x0.v
        ),
        "position x (m)",
        "velocity v (m/s)",
    )
    .guide("belt speed v = v_b", belt)
    .line("v > v_b: F = −a + b(v − v_b)", joined("slip_forward"))
    .line("v < v_b: F = a + b(v − v_b)", joined("slip_back"))
    .line("stuck: v = v_b, F_eq = ω²x", joined("belt_sliding"))
    .dots("cross, stick, break loose", at_events)
    .legend(LegendAt::UpperRight)
    .save()?;

    // (b) Over time.
    let sensitivity = |wrt: Wrt<'static>| {
        over_time(samples, &pieces, |k| {
            states.sample_sensitivity(k, "x", wrt).unwrap_or(f64::NAN)
        })
    };
    // The friction: ±a + b(v − v_b) slipping, the equivalent friction ω² x stuck.
    let friction = |k: usize| {
        let s = &samples[k];
        let slip = p.b * (s.x.v - p.vb);
        match s.mode {
            "slip_back" => p.a + slip,
            "slip_forward" => -p.a + slip,
            _ => p.omega * p.omega * s.x.x,
        }
    };
    let own_events: Vec<f64> = states.events.iter().map(|e| e.t).collect();
    let limit = p.a / (p.omega * p.omega);
    // Horizontal lines across the figure, one segment each.
    let levels = |values: &[f64]| -> Vec<Vec<(f64, f64)>> {
        values.iter().map(|&v| vec![(0.0, v), (T_END, v)]).collect()
    };
    let time = Figure::new(
        "stick_slip",
        format!(
            "Stick–slip (ω = {} 1/s, a = {} m/s², b = {} 1/s, v_b = {} m/s): \
             states, friction, sensitivities of x",
            p.omega, p.a, p.b, p.vb
        ),
        "time t (s)",
    )
    .events("events: crossing, sticking, breaking loose", own_events)
    .panel(
        Panel::new("position x (m)")
            .line("x(t)", over_time(samples, &pieces, |k| samples[k].x.x))
            .line(
                "±a/ω², the ends of the sticking band",
                levels(&[-limit, limit]),
            )
            .legend(LegendAt::LowerRight),
    )
    .panel(
        Panel::new("velocity (m/s)")
            .line(
                "velocity v(t)",
                over_time(samples, &pieces, |k| samples[k].x.v),
            )
            .line("belt speed v_b", levels(&[p.vb]))
            .legend(LegendAt::LowerRight),
    )
    .panel(
        Panel::new("friction F (m/s²)")
            .line(
                "F: ±a + b(v − v_b) slipping, F_eq = ω²x stuck",
                over_time(samples, &pieces, friction),
            )
            .legend(LegendAt::LowerRight),
    )
    .panel(
        Panel::new("∂x/∂a (s²)")
            .line("∂x/∂a, friction at rest", sensitivity(Wrt::Param("a")))
            .legend(LegendAt::UpperRight),
    )
    .panel(
        Panel::new("∂x/∂v_b (s)")
            .line("∂x/∂v_b, belt speed", sensitivity(Wrt::Param("vb")))
            .legend(LegendAt::LowerLeft),
    )
    .panel(
        Panel::new("∂x/∂ω, ∂x/∂b (m·s)")
            .line("∂x/∂ω, spring", sensitivity(Wrt::Param("omega")))
            .line("∂x/∂b, friction weakening", sensitivity(Wrt::Param("b")))
            .legend(LegendAt::LowerLeft),
    )
    .panel(
        Panel::new("∂x/∂x(0) (1)")
            .line(
                "∂x/∂x(0), initial position",
                sensitivity(Wrt::InitialState("x")),
            )
            .legend(LegendAt::UpperRight),
    )
    .panel(
        Panel::new("∂x/∂v(0) (s)")
            .line(
                "∂x/∂v(0), initial velocity",
                sensitivity(Wrt::InitialState("v")),
            )
            .legend(LegendAt::LowerRight),
    )
    .save()?;
    Ok((phase, time))
}
