//! Probe: hysens' full solver statistics on P1 (Ex. 5.1), P3 (Robertson) and P4 (Van der Pol), plain and with
//! forward sensitivities, per tableau; also the driver for profiling
//! (`valgrind --tool=callgrind target/release/examples/hysens_stats P3a fsa 20`).
//!
//! Run: `cargo run --release --example hysens_stats -- [P1|P3a|P3b|P4a|P4b] [plain|fsa|both] [REPEAT]`.

#[path = "../../../tests/support/models.rs"]
mod models;
#[path = "shared/probe_problems.rs"]
mod probe_problems;

use hysens::runtime::tableau::{ESDIRK23, ESDIRK34, ESDIRK436L2SA};
use hysens::runtime::{
    solve, HybridModel, HybridOptions, HybridOutputs, HybridProblem, HybridRun, HybridSolution,
    LoggedStep, ModelSizes, SolveError, StepPlan, Tableau,
};
use models::{ex51, robertson, vdp};
use probe_problems::{robertson_to, van_der_pol_to};

fn main() {
    let mut args = std::env::args().skip(1);
    let id = args.next().unwrap_or_else(|| "P3a".into());
    let which = args.next().unwrap_or_else(|| "both".into());
    let repeat: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(1);
    let modes: &[bool] = match which.as_str() {
        "plain" => &[false],
        "fsa" => &[true],
        _ => &[false, true],
    };
    for &fsa in modes {
        macro_rules! run {
            ($name:literal, $t:expr) => {{
                let t = std::time::Instant::now();
                let mut last = String::new();
                for _ in 0..repeat {
                    last = match id.as_str() {
                        "P1" => p1($t, fsa),
                        "P3a" | "P3b" => p3(&id, $t, fsa),
                        _ => p4(&id, $t, fsa),
                    };
                }
                println!(
                    "{id} {:5} {:18} {:8.1} µs  {last}",
                    if fsa { "fsa" } else { "plain" },
                    $name,
                    t.elapsed().as_secs_f64() * 1e6 / repeat as f64
                );
            }};
        }
        // HY_ONLY_DEFAULT=1: only the default tableau (for profiling)
        run!("ESDIRK4(3)6L[2]SA", &ESDIRK436L2SA);
        if std::env::var_os("HY_ONLY_DEFAULT").is_none() {
            run!("ESDIRK34", &ESDIRK34);
            run!("ESDIRK23", &ESDIRK23);
        }
    }
}

/// `HybridOptions::new(rtol, atol)` with optional overrides from the environment, for probes:
/// `HY_MAXIT` (max Newton iterations), `HY_NTOL` (Newton tolerance), `HY_REUSE` (Jacobian reuse
/// rate), `HY_FACMAX`.
fn options<const NY: usize>(rtol: f64, atol: f64) -> HybridOptions<NY, 0> {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<f64>().ok());
    let mut o = HybridOptions::new(rtol, atol);
    if let Some(v) = env("HY_MAXIT") {
        o.integrator.max_newton_iterations = v as usize;
    }
    if let Some(v) = env("HY_NTOL") {
        o.integrator.newton_tol = v;
    }
    if let Some(v) = env("HY_REUSE") {
        o.integrator.jacobian_reuse_rate = v;
    }
    if let Some(v) = env("HY_FACMAX") {
        o.integrator.fac_max = v;
    }
    o
}

/// Solves `problem` on adaptive steps with tableau `t`, logging the steps into `steps` when
/// given (what the models' `solve_with` does, for any model): the result and the solution.
fn solve_adaptive<
    M,
    const S: usize,
    const NY: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    model: &M,
    t: &Tableau<S>,
    problem: &HybridProblem<'_, NY, 0, NP>,
    options: &HybridOptions<NY, 0>,
    steps: Option<&mut [LoggedStep]>,
) -> (Result<(), SolveError>, HybridSolution<NY, 0, NP>)
where
    M: HybridModel<NY, 0, NP> + ModelSizes<N, NS>,
{
    let mut sol = HybridSolution::ZERO;
    let mut out = HybridOutputs {
        samples: &mut [],
        events: None,
        steps,
        dense: None,
    };
    let run = HybridRun::new(model, t, problem, options).with_plan(StepPlan::Adaptive);
    let r = solve(&run, &mut out, &mut sol);
    (r, sol)
}

fn report<const NY: usize, const NP: usize>(
    r: Result<(), SolveError>,
    sol: &HybridSolution<NY, 0, NP>,
) -> String {
    let s = &sol.stats;
    format!(
        "{} t={:e} y={:?} | steps {} rej {} newton_fail {} f {} jac {} lu {} lu_solves {} newton {} sens_jac {} sens_solves {}",
        match r {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("ERR {e}"),
        },
        sol.t,
        sol.y,
        s.steps,
        s.rejected_steps,
        s.newton_failures,
        s.f_evals,
        s.jacobian_evals,
        s.lu_factorizations,
        s.lu_solves,
        s.newton_iterations,
        s.sensitivity_jacobian_evals,
        s.sensitivity_solves
    )
}

fn p1<const S: usize>(t: &Tableau<S>, fsa: bool) -> String {
    let problem = HybridProblem {
        sensitivities: fsa.then_some([[0.0]]),
        ..ex51::Model::problem(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 })
    };
    let (r, sol) = solve_adaptive(&ex51::Model, t, &problem, &options(1e-8, 1e-10), None);
    report(r, &sol)
}

fn p3<const S: usize>(id: &str, t: &Tableau<S>, fsa: bool) -> String {
    let tf = if id == "P3b" { 4e10 } else { 1e5 };
    let problem = HybridProblem {
        sensitivities: fsa.then_some([[0.0; 3]; 3]),
        ..robertson_to(tf)
    };
    // HY_LOG=1: where the steps go, from the step log (one line per decade of t)
    let logging = std::env::var_os("HY_LOG").is_some();
    let mut log = vec![LoggedStep::ZERO; if logging { 100_000 } else { 0 }];
    let steps = logging.then_some(&mut log[..]);
    let (r, sol) = solve_adaptive(&robertson::Model, t, &problem, &options(1e-6, 1e-10), steps);
    if logging {
        let n = sol.n_logged_steps;
        let (mut tt, mut decade, mut line) = (0.0_f64, i32::MIN, String::new());
        for (i, st) in log[..n].iter().enumerate() {
            tt += st.h;
            let d = tt.log10().floor() as i32;
            if d != decade {
                if !line.is_empty() {
                    println!("{line}");
                }
                decade = d;
                line = format!("t ~ 1e{d}: from step {i}, h = {:.3e}", st.h);
            }
        }
        println!("{line}; {n} logged steps");
    }
    report(r, &sol)
}

fn p4<const S: usize>(id: &str, t: &Tableau<S>, fsa: bool) -> String {
    let tf = if id == "P4b" { 2000.0 } else { 500.0 };
    let problem = HybridProblem {
        sensitivities: fsa.then_some([[0.0]; 2]),
        ..van_der_pol_to(tf)
    };
    let (r, sol) = solve_adaptive(&vdp::Model, t, &problem, &options(1e-6, 1e-8), None);
    report(r, &sol)
}
