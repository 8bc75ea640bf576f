//! Probe: how P2's `dz(T)/dγ` from diffsol depends on the way the bounce is written.
//!
//! The brief reported diffsol 0.18 ESDIRK34 giving `dz(T)/dγ ≈ 8.17` (correct: 9.09995…). The
//! benchmark runner (`runners/diffsol/p2_bouncing_ball.rs`) writes the reset as
//! `(z, v) ↦ (0, −γ v)` with sensitivities in the error test; this probe runs the three
//! methods with
//!
//! * `z+ = 0`    — the benchmark's reset;
//! * `z+ = z-`   — identity on z (the textbook `v ↦ −γ v` only);
//!
//! each with and without sensitivity error control, and prints `dz(T)/dγ`, `z(T)` and the
//! number of accepted steps.
//!
//! A last block steps manually (`step`, `state_mut_back`, `apply_reset_with_sens`, the same
//! sequence as `solve_dense_sensitivities`) without sensitivity error control, once as is and
//! once recomputing the sensitivity derivative `ds = f_y s + f_p` after the reset. diffsol's
//! `apply_reset_with_sens` recomputes `dy` but not `ds`, and the SDIRK methods take their
//! explicit first stage from `dy`/`ds` of the previous step (`runge_kutta.rs`), so the first
//! step after an event integrates the sensitivities with the pre-event `ds`.
//!
//! Run: `cargo run --release --example p2_reset_variants`

use diffsol::{
    DenseMatrix, DiffsolError, NalgebraLU, NalgebraMat, OdeBuilder, OdeSolverMethod,
    OdeSolverStopReason, SensitivitiesOdeSolverMethod, Vector,
};

type M = NalgebraMat<f64>;
type LS = NalgebraLU<f64>;

const P: [f64; 4] = [5.0, -0.1, 10.0, 0.8];
const T: f64 = 1.9;

/// The P2 problem (the benchmark runner's equations) with the reset `z+ = 0` (`zero_z`) or
/// `z+ = z-`, and the sensitivities in the error test or not (`sens_control`, diffsol's default
/// is not).
macro_rules! problem {
    ($zero_z:expr, $sens_control:expr) => {{
        let (zero_z, sens_control): (bool, bool) = ($zero_z, $sens_control);
        let mut b = OdeBuilder::<M>::new().p(P).rtol(1e-8).atol([1e-10]);
        if sens_control {
            b = b
                .sens_rtol(1e-8)
                .sens_atol([1e-10])
                .param_scales(P.map(f64::abs));
        }
        hysens_peers::p2_bouncing_ball_equations!(b, zero_z)
            .build()
            .unwrap()
    }};
}

fn run(zero_z: bool, sens_control: bool, method: &str) -> String {
    let problem = problem!(zero_z, sens_control);
    type Out = Result<(M, Vec<M>, OdeSolverStopReason<f64>), DiffsolError>;
    let out = |r: Out, steps: usize| match r {
        Ok((y, s, _)) => format!(
            "dz/dγ = {:.10}  z(T) = {:.10}  steps = {steps}",
            s[3].get_index(0, 0),
            y.get_index(0, 0)
        ),
        Err(e) => format!("error: {e}"),
    };
    match method {
        "BDF" => {
            let mut s = problem.bdf_sens::<LS>().unwrap();
            let r = s.solve_dense_sensitivities(&[T]);
            out(r, s.get_statistics().number_of_steps)
        }
        "ESDIRK34" => {
            let mut s = problem.esdirk34_sens::<LS>().unwrap();
            let r = s.solve_dense_sensitivities(&[T]);
            out(r, s.get_statistics().number_of_steps)
        }
        _ => {
            let mut s = problem.tr_bdf2_sens::<LS>().unwrap();
            let r = s.solve_dense_sensitivities(&[T]);
            out(r, s.get_statistics().number_of_steps)
        }
    }
}

/// Manual stepping to `T` with the reset applied at every root; `refresh_ds` recomputes
/// `ds = f_y s + f_p` (for this problem: `(s_v, -[p = g])` per parameter lane) after it.
macro_rules! manual {
    ($solver:expr, $refresh_ds:expr) => {{
        let mut s = $solver;
        s.set_stop_time(T).unwrap();
        loop {
            match s.step().unwrap() {
                OdeSolverStopReason::InternalTimestep => {}
                OdeSolverStopReason::TstopReached => break,
                OdeSolverStopReason::RootFound(t, idx) => {
                    s.state_mut_back(t).unwrap();
                    s.apply_reset_with_sens(idx).unwrap();
                    if $refresh_ds {
                        let st = s.state_mut();
                        let sens = st.s.clone();
                        st.ds.for_each_batch_host([&sens], |d, [sj], lane| {
                            d[0] = sj[1];
                            d[1] = if lane == 2 { -1.0 } else { 0.0 };
                        });
                    }
                    s.set_stop_time(T).unwrap();
                }
            }
        }
        let mut dz_dgamma = f64::NAN;
        let mut scratch = s.state().s.clone();
        scratch.for_each_batch_host([s.state().s], |_, [sj], lane| {
            if lane == 3 {
                dz_dgamma = sj[0];
            }
        });
        format!(
            "dz/dγ = {dz_dgamma:.10}  steps = {}",
            s.get_statistics().number_of_steps
        )
    }};
}

fn main() {
    let (_, sens, _) = hysens_peers::reference::bouncing_ball::solve(P[0], P[1], P[2], P[3], T);
    println!("closed form: dz/dγ = {:.10}", sens[3][0]);
    for zero_z in [true, false] {
        for sens_control in [true, false] {
            for method in ["BDF", "ESDIRK34", "TR-BDF2"] {
                println!(
                    "z+ = {:4}  sens error control {:3}  {:8}  {}",
                    if zero_z { "0" } else { "z-" },
                    if sens_control { "on" } else { "off" },
                    method,
                    run(zero_z, sens_control, method)
                );
            }
        }
    }
    println!("manual stepping, z+ = 0, sens error control off:");
    let p = problem!(true, false);
    println!(
        "  ESDIRK34  as diffsol does it   {}",
        manual!(p.esdirk34_sens::<LS>().unwrap(), false)
    );
    println!(
        "  ESDIRK34  ds refreshed         {}",
        manual!(p.esdirk34_sens::<LS>().unwrap(), true)
    );
    println!(
        "  TR-BDF2   as diffsol does it   {}",
        manual!(p.tr_bdf2_sens::<LS>().unwrap(), false)
    );
    println!(
        "  TR-BDF2   ds refreshed         {}",
        manual!(p.tr_bdf2_sens::<LS>().unwrap(), true)
    );
}
