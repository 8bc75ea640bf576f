//! The bouncing ball against the closed form of its flight arcs: from h0 = 5, v0 = −0.1 with
//! g = 10, e = 0.8 on [0, 4.5] (three impacts), at rtol 1e-8, atol 1e-10 with
//! ESDIRK4(3)6L[2]SA: the impact times, h and v at the end, and their sensitivities to both
//! initial states and both parameters.
//!
//! The reference is the closed form, evaluated here with dual numbers (one direction at a
//! time): a flight arc from `(t_s, h_s, v_s)` is `h = h_s + v_s (t − t_s) − g (t − t_s)²/2`,
//! `v = v_s − g (t − t_s)`; it reaches the floor at `t_s + (v_s + w)/g` with the speed
//! `w = √(v_s² + 2 g h_s)`, and the reset starts the next arc from `(0, e w)`. Every tableau
//! has order ≥ 2, so the integrator is exact on these quadratic arcs and the errors are
//! round-off of the Newton iterations and the event location.
//!
//! Tolerances: `tests/hybrid_ball.rs`, `ball_closed_form_sensitivities` (the
//! same ball, settings and horizon): impact times 1e-7 absolute; states and sensitivities
//! 1e-7 relative to max(|ref|, 1).

use hysens::prelude::*;
use num_dual::{Dual64, DualNum};

use crate::ball_model::ball;
use crate::table::{event_rows, Bound, Row};

const CASE: &str = "Bouncing ball";

/// Initial height and velocity, gravity, restitution: the directions `θ` of the sensitivities.
const THETA: [f64; 4] = [5.0, -0.1, 10.0, 0.8];
/// How the solution names the directions `θ`.
const DIRECTIONS: [Wrt<'static>; 4] = [
    Wrt::InitialState("h"),
    Wrt::InitialState("v"),
    Wrt::Param("g"),
    Wrt::Param("e"),
];
/// How the table names them.
const THETA_NAMES: [&str; 4] = ["h0", "v0", "g", "e"];
/// The final time (three impacts before it, near 0.99, 2.59 and 3.87; the fourth is at 4.89).
const T: f64 = 4.5;

/// The closed form at `θ`, with derivatives along `θ_k` (none for `k ≥ 4`): the impact times
/// before `t_end` and `(h, v)(t_end)`.
fn closed_form(k: usize, t_end: f64) -> (Vec<Dual64>, [Dual64; 2]) {
    let [h0, v0, g, e] =
        std::array::from_fn(|i| Dual64::new(THETA[i], if i == k { 1.0 } else { 0.0 }));
    let (mut t_s, mut h_s, mut v_s) = (Dual64::from(0.0), h0, v0);
    let mut impacts = Vec::new();
    loop {
        let w = (v_s * v_s + g * h_s * 2.0).sqrt();
        let t_impact = t_s + (v_s + w) / g;
        if t_impact.re >= t_end {
            break;
        }
        impacts.push(t_impact);
        (t_s, h_s, v_s) = (t_impact, Dual64::from(0.0), e * w);
    }
    let dt = -t_s + t_end;
    let state = [h_s + v_s * dt - g * dt * dt * 0.5, v_s - g * dt];
    (impacts, state)
}

/// The rows of the bouncing ball.
pub fn rows() -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let x0 = ball::X {
        h: THETA[0],
        v: THETA[1],
    };
    let p = ball::P {
        g: THETA[2],
        e: THETA[3],
    };
    let solution = ball::Model
        .solver()
        .tolerances(1e-8, 1e-10)
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, T, &x0, &p)?;
    let (impacts, state) = closed_form(usize::MAX, T);
    // ∂(h, v)(T)/∂θ_k of the closed form.
    let derivatives: [[f64; 2]; 4] = std::array::from_fn(|k| closed_form(k, T).1.map(|d| d.eps));

    // hybrid_ball.rs asserts as many events as the closed form has impacts, and the impact
    // times to 1e-7 absolute.
    let impact_times: Vec<f64> = impacts.iter().map(|t| t.re).collect();
    let time_bound = Bound::Absolute(1e-7);
    let mut rows = event_rows(CASE, "impacts", &impact_times, &solution.events, time_bound);
    // hybrid_ball.rs: states and sensitivities to 1e-7 relative to max(|ref|, 1).
    let bound = Bound::RelativeToMax1(1e-7);
    for (i, of) in ["h", "v"].into_iter().enumerate() {
        let quantity = format!("{of}({T})");
        rows.push(Row::new(CASE, quantity, state[i].re, solution.y[i], bound));
        for (k, wrt) in DIRECTIONS.into_iter().enumerate() {
            let value = solution.sensitivity(of, wrt).unwrap_or(f64::NAN);
            let quantity = format!("d{of}({T})/d{}", THETA_NAMES[k]);
            rows.push(Row::new(CASE, quantity, derivatives[k][i], value, bound));
        }
    }
    Ok(rows)
}
