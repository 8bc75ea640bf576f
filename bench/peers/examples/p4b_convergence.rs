//! P4b (Van der Pol, μ = 1000, [0, 2000]): why every tool's `dy/dμ` is wrong at rtol 1e-6.
//!
//! Run: `cargo run --release --example p4b_convergence` (under a second after the build;
//! output kept in `results/p4b_convergence.md`).
//!
//! 1. **Convergence**: rtol = 1e-4 … 1e-10 (hysens also 1e-11, 1e-12), atol = rtol/100 (the
//!    case's ratio), for hysens' default tableau (sensitivities outside and inside the error
//!    test) and diffsol's BDF and ESDIRK34, all with the benchmark's own runners: steps, the
//!    benchmark's errors (`src/metrics.rs`) of `y` and `dy/dμ` at t = 2000, and the observed
//!    rate `log10(err_prev / err) / log10(rtol_prev / rtol)` (errors per decade of rtol).
//!    Then the tightest solves against each other, to tell the solvers' error from the
//!    reference's (~1e-7 at t = 2000).
//! 2. **Phase**: the same solvers at rtol 1e-6 (and 1e-8) stopped at t = 250, 500, …, 2000,
//!    against scipy Radau (rtol 1e-12) at those times ([`REF`]). On a slow branch every error
//!    that is not along the flow decays (the transverse eigenvalue is ~ −μ(y1² − 1)), so the
//!    error of `s = dy/dμ` must be `e ≈ −ẏ(t) δ` with a constant `δ` (a time shift per unit
//!    μ: an error in the sensitivity of the jump times). The table prints
//!    `δ = −e1 / ẏ1`, the check `e2 / (−ẏ2 δ)` (1 if the error is along the flow) and the
//!    state's own phase error `Δt = −(y1 − y1_ref) / ẏ1`; then finer times across the first
//!    jump (t ≈ 807), against hysens at rtol 1e-12, to see where δ is created.
//! 3. **Finite differences**: central differences in μ of each solver's own `y1(2000)` at
//!    rtol 1e-6 (steps re-chosen for every μ), against its forward sensitivity.
//! 4. **Frozen steps** (hysens): central differences of replays of the adaptive step log
//!    (`StepPlan::Replay`, the map whose exact derivative hysens' sensitivity is).

#[path = "../../../tests/support/models.rs"]
mod models;

use hysens::runtime::tableau::ESDIRK436L2SA;
use hysens::runtime::{
    HybridOptions, HybridOutputs, HybridProblem, HybridRun, HybridSolution, LoggedStep, StepPlan,
};
use hysens_peers::case::{Case, Solution};
use hysens_peers::metrics::{sens_error, state_error};
use hysens_peers::runners::{self, Runner};
use hysens_peers::{problems, reference};
use models::vdp;

const MU: f64 = 1000.0;

/// `[t, y1, y2, dy1/dμ, dy2/dμ]`: scipy 1.17.1 Radau, rtol 1e-12, on the augmented system
/// (`bench/reference/vdp_fsa_times.py`; a second run at rtol 1e-11 agrees to ≤ 2.5e-7 relative
/// in the sensitivities, ≤ 1e-13 in the states). The jumps are at t ≈ 807 and ≈ 1614.
#[allow(clippy::excessive_precision)]
const REF: [[f64; 5]; 8] = [
    [
        250.0,
        1.81959829368299797e+00,
        -7.87384904814003475e-04,
        1.96845601371836351e-04,
        9.46282998853885335e-07,
    ],
    [
        500.0,
        1.59676895105266592e+00,
        -1.03039118783935244e-03,
        5.15194480731664180e-04,
        1.79190396646548392e-06,
    ],
    [
        750.0,
        1.24720306981180284e+00,
        -2.24509394465887378e-03,
        1.68381404162362301e-03,
        1.61878876400939204e-05,
    ],
    [
        1000.0,
        -1.86364625480813983e+00,
        7.53543086543512989e-04,
        -7.53194372205229419e-04,
        -1.30436561124382271e-06,
    ],
    [
        1250.0,
        -1.65342085552368112e+00,
        9.53638926003050964e-04,
        -1.19160712712838694e-03,
        -2.43371513184951860e-06,
    ],
    [
        1500.0,
        -1.35474591948660139e+00,
        1.62178872759751532e-03,
        -2.43193073670543722e-03,
        -1.15032843723021495e-05,
    ],
    [
        1750.0,
        1.90588641832900163e+00,
        -7.24009927689240598e-04,
        1.26634774466189478e-03,
        1.57056230258503347e-06,
    ],
    [
        2000.0,
        1.70616773217055107e+00,
        -8.92809701024724323e-04,
        1.78479348441772144e-03,
        2.80420349601885766e-06,
    ],
];

/// The runners studied: hysens' default tableau without and with the sensitivity error test,
/// diffsol's BDF and ESDIRK34 (TR-BDF2 is left out: slow and least accurate).
const METHODS: [(&str, &str); 4] = [
    ("hysens", "ESDIRK4(3)6L[2]SA"),
    ("hysens", "ESDIRK4(3)6L[2]SA + sens. error test"),
    ("diffsol 0.18", "BDF"),
    ("diffsol 0.18", "ESDIRK34"),
];

fn label(r: &dyn Runner) -> String {
    format!("{} {}", r.tool(), r.method())
}

/// The runners of `METHODS` on `case`, in `METHODS` order.
fn runners_for(case: &Case) -> Vec<Box<dyn Runner>> {
    let mut all = runners::registry(std::slice::from_ref(case));
    let mut out = Vec::new();
    for (tool, method) in METHODS {
        if let Some(i) = all
            .iter()
            .position(|r| r.tool() == tool && r.method() == method)
        {
            out.push(all.remove(i));
        }
    }
    out
}

/// P4b with rtol and atol = rtol/100.
fn at_rtol(base: &Case, rtol: f64) -> Case {
    let mut case = base.clone();
    case.rtol = rtol;
    case.atol = base.atol * rtol / base.rtol;
    case
}

/// Mixed relative difference of two solutions in the benchmark's metric (the second one
/// playing the reference).
fn difference(case: &Case, a: &Solution, b: &Solution) -> (f64, f64) {
    let mut c = case.clone();
    c.reference.outputs = b.outputs.clone();
    c.reference.sens = b.sens.clone();
    (state_error(&c, a), sens_error(&c, a).0)
}

fn main() {
    let base = problems::all()
        .into_iter()
        .find(|c| c.id == "P4b")
        .expect("P4b");
    convergence(&base);
    phase(&base, 1e-6);
    phase(&base, 1e-8);
    across_jump(&base, 1e-6);
    finite_differences(&base, 1e-6);
    frozen_steps(1e-6);
    frozen_steps(1e-8);
}

/// hysens' default tableau on P4b to t = 2000 with `μ`, adaptive (logging the steps into
/// `log`) or replaying a step log.
fn hysens_vdp(
    mu: f64,
    rtol: f64,
    plan: StepPlan<'_>,
    log: Option<&mut [LoggedStep]>,
) -> Result<HybridSolution<2, 0, 1>, String> {
    let problem = HybridProblem {
        sensitivities: Some([[0.0]; 2]),
        ..vdp::Model::problem(0.0, 2000.0, &vdp::X { y1: 2.0, y2: 0.0 }, &vdp::P { mu })
    };
    let options = HybridOptions::new(rtol, rtol / 100.0);
    let run = HybridRun::new(&vdp::Model, &ESDIRK436L2SA, &problem, &options).with_plan(plan);
    let mut out = HybridOutputs {
        samples: &mut [],
        events: None,
        steps: log,
        dense: None,
    };
    let mut sol = HybridSolution::ZERO;
    hysens::runtime::solve(&run, &mut out, &mut sol).map_err(|e| e.to_string())?;
    Ok(sol)
}

/// hysens' sensitivity is the exact derivative of its discrete map with the steps frozen
/// (`StepPlan::Replay`). Central differences of replays of the adaptive run's step log must
/// reproduce it; central differences of adaptive solves (steps re-chosen for every μ) are
/// what the previous table shows.
fn frozen_steps(rtol: f64) {
    let r = reference::vdp::T2000[2];
    let mut log = vec![LoggedStep::ZERO; 200_000];
    let sol = hysens_vdp(MU, rtol, StepPlan::Adaptive, Some(&mut log)).expect("adaptive");
    let log = &log[..sol.n_logged_steps];
    let h_min = log.iter().map(|s| s.h).fold(f64::INFINITY, f64::min);
    println!(
        "## hysens ESDIRK4(3)6L[2]SA at rtol {rtol:.0e}: frozen steps vs re-chosen steps \
         ({} logged steps, smallest h = {h_min:.2e}); relative error of dy1/dμ(2000)\n",
        log.len()
    );
    println!(
        "| Δμ/μ | forward sens. | central diff., frozen steps (replay) | central diff., adaptive |"
    );
    println!("|---|---|---|---|");
    for e in [1e-8, 1e-7, 1e-6, 1e-5] {
        let d = MU * e;
        let replay = |mu| hysens_vdp(mu, rtol, StepPlan::Replay(log), None).map(|s| s.y[0]);
        let adaptive = |mu| hysens_vdp(mu, rtol, StepPlan::Adaptive, None).map(|s| s.y[0]);
        let show = |p: Result<f64, String>, q: Result<f64, String>| match (p, q) {
            (Ok(p), Ok(q)) => format!("{:+.2e}", (p - q) / (2.0 * d) / r - 1.0),
            (Err(e), _) | (_, Err(e)) => format!("failed: {e}"),
        };
        println!(
            "| {e:.0e} | {:+.2e} | {} | {} |",
            sol.sy[0][0] / r - 1.0,
            show(replay(MU + d), replay(MU - d)),
            show(adaptive(MU + d), adaptive(MU - d)),
        );
    }
    println!();
}

/// Solve with runner `m` of `METHODS` at `rtol` (atol = rtol/100), to `t_end`, with `μ`.
fn solve(base: &Case, m: usize, rtol: f64, t_end: f64, mu: f64) -> Result<Solution, String> {
    let mut case = at_rtol(base, rtol);
    case.t_end = t_end;
    case.params = Box::leak(Box::new([mu]));
    runners_for(&case).into_iter().nth(m).expect("runner").run()
}

/// Where δ is created: around the first fast transition (t ≈ 807), against hysens at rtol
/// 1e-12 (its own error there is far below the rtol 1e-6 solves').
fn across_jump(base: &Case, rtol: f64) {
    const T: [f64; 12] = [
        700.0, 780.0, 800.0, 805.0, 806.0, 806.5, 807.0, 807.5, 808.0, 810.0, 850.0, 950.0,
    ];
    println!("## Across the first jump at rtol {rtol:.0e}, against hysens rtol 1e-12\n");
    println!("δ = −e1/ẏ1_ref is meaningful only where the error is along the flow (along ≈ 1).\n");
    print!("| t | y1 | ẏ1 | dy1/dμ |");
    for (tool, method) in &METHODS[..3] {
        print!(" {tool} {method}: δ (along) |");
    }
    println!();
    println!("|---|---|---|---|{}", "---|".repeat(3));
    for t in T {
        let r = solve(base, 0, 1e-12, t, MU).expect("reference solve");
        let (y1, y2) = (r.outputs[0], r.outputs[1]);
        let dy2 = MU * (1.0 - y1 * y1) * y2 - y1;
        print!("| {t} | {y1:+.4} | {y2:+.3e} | {:+.3e} |", r.sens[0][0]);
        for m in 0..3 {
            match solve(base, m, rtol, t, MU) {
                Ok(a) => {
                    let delta = -(a.sens[0][0] - r.sens[0][0]) / y2;
                    let along = (a.sens[0][1] - r.sens[0][1]) / (-dy2 * delta);
                    print!(" {delta:+.3e} ({along:.2}) |");
                }
                Err(e) => print!(" failed: {e} |"),
            }
        }
        println!();
    }
    println!();
}

/// Central differences of each solver's own y1(2000) in μ, at the same rtol, against its
/// forward sensitivity and the reference: is the sensitivity the derivative of a discrete
/// solution whose jump times wiggle with μ on the scale of the step mesh?
fn finite_differences(base: &Case, rtol: f64) {
    println!("## Central differences of y1(2000) in μ at rtol {rtol:.0e} (relative error against the reference)\n");
    let eps = [1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2];
    print!("| solver | forward sens. |");
    for e in eps {
        print!(" Δμ/μ = {e:.0e} |");
    }
    println!();
    println!("|---|---|{}", "---|".repeat(eps.len()));
    let r = reference::vdp::T2000[2];
    for (m, (tool, method)) in METHODS.iter().enumerate() {
        let Ok(a) = solve(base, m, rtol, 2000.0, MU) else {
            continue;
        };
        print!("| {tool} {method} | {:+.2e} |", a.sens[0][0] / r - 1.0);
        for e in eps {
            let d = MU * e;
            match (
                solve(base, m, rtol, 2000.0, MU + d),
                solve(base, m, rtol, 2000.0, MU - d),
            ) {
                (Ok(p), Ok(q)) => {
                    let fd = (p.outputs[0] - q.outputs[0]) / (2.0 * d);
                    print!(" {:+.2e} |", fd / r - 1.0);
                }
                _ => print!(" failed |"),
            }
        }
        println!();
    }
    println!();
}

fn convergence(base: &Case) {
    println!("## P4b convergence (atol = rtol/100; errors as in the benchmark, t = 2000)\n");
    println!("| solver | rtol | steps | err y | err dy/dμ | rate y | rate dy/dμ | dy1/dμ(2000) |");
    println!("|---|---|---|---|---|---|---|---|");
    // tightest solution of every method, for the cross-check
    let mut tightest: Vec<(String, f64, Solution)> = Vec::new();
    for (m, method) in METHODS.iter().enumerate() {
        let last_k = if m < 2 { 12 } else { 10 };
        let mut prev: Option<(f64, f64, f64)> = None;
        for k in 4..=last_k {
            let case = at_rtol(base, 10f64.powi(-k));
            let runner = runners_for(&case).into_iter().nth(m).expect("runner");
            assert_eq!(runner.method(), method.1);
            let sol = match runner.run() {
                Ok(sol) => sol,
                Err(e) => {
                    println!(
                        "| {} | {:.0e} | failed: {e} |||||",
                        label(&*runner),
                        case.rtol
                    );
                    prev = None;
                    continue;
                }
            };
            let (ey, es) = (state_error(&case, &sol), sens_error(&case, &sol).0);
            let rate = |p: f64, e: f64, rp: f64| (p / e).log10() / (rp / case.rtol).log10();
            let (ry, rs) = match prev {
                Some((rp, py, ps)) => (
                    format!("{:.2}", rate(py, ey, rp)),
                    format!("{:.2}", rate(ps, es, rp)),
                ),
                None => ("".into(), "".into()),
            };
            println!(
                "| {} | {:.0e} | {} | {:.1e} | {:.1e} | {ry} | {rs} | {:.10e} |",
                label(&*runner),
                case.rtol,
                sol.steps.unwrap_or(0),
                ey,
                es,
                sol.sens[0][0]
            );
            prev = Some((case.rtol, ey, es));
            if k == 10 || k == last_k {
                if let Some(t) = tightest.iter_mut().find(|t| t.0 == label(&*runner)) {
                    *t = (label(&*runner), case.rtol, sol);
                } else {
                    tightest.push((label(&*runner), case.rtol, sol));
                }
            }
        }
    }
    println!(
        "\nReference dy1/dμ(2000) = {:.10e} (src/reference/vdp.rs; good to ~1e-7)\n",
        reference::vdp::T2000[2]
    );
    println!("### Tightest solves against each other (err y, err dy/dμ; row against column)\n");
    print!("| | reference |");
    for (l, r, _) in &tightest {
        print!(" {l} {r:.0e} |");
    }
    println!();
    println!("|---|---|{}", "---|".repeat(tightest.len()));
    for (l, r, a) in &tightest {
        let case = at_rtol(base, 1e-10);
        print!(
            "| {l} {r:.0e} | {:.1e}, {:.1e} |",
            state_error(&case, a),
            sens_error(&case, a).0
        );
        for (_, _, b) in &tightest {
            let (dy, ds) = difference(&case, a, b);
            print!(" {dy:.1e}, {ds:.1e} |");
        }
        println!();
    }
    println!();
}

/// Error of `dy/dμ` along t at one rtol, split into a phase shift `δ` of the sensitivity.
fn phase(base: &Case, rtol: f64) {
    println!(
        "## Error along t at rtol {rtol:.0e} (atol {:.0e}), against scipy Radau 1e-12\n",
        rtol / 100.0
    );
    println!(
        "δ = −e1/ẏ1 (time shift per unit μ carried by the sensitivity error), along = e2/(−ẏ2 δ),"
    );
    println!(
        "Δt = −(y1 − y1_ref)/ẏ1 (the state's own phase error), rel = relative error of dy1/dμ.\n"
    );
    println!("| solver | t | rel dy1/dμ | δ | along | Δt | δ/(t/μ) |");
    println!("|---|---|---|---|---|---|---|");
    for m in 0..METHODS.len() {
        for r in REF {
            let [t, y1, y2, s1, s2] = r;
            let mut case = at_rtol(base, rtol);
            case.t_end = t;
            let runner = runners_for(&case).into_iter().nth(m).expect("runner");
            let sol = match runner.run() {
                Ok(sol) => sol,
                Err(e) => {
                    println!("| {} | {t} | failed: {e} |||||", label(&*runner));
                    continue;
                }
            };
            let dy1 = y2;
            let dy2 = MU * (1.0 - y1 * y1) * y2 - y1;
            let e1 = sol.sens[0][0] - s1;
            let e2 = sol.sens[0][1] - s2;
            let delta = -e1 / dy1;
            println!(
                "| {} | {t} | {:+.1e} | {:+.3e} | {:.3} | {:+.1e} | {:+.1e} |",
                label(&*runner),
                e1 / s1,
                delta,
                e2 / (-dy2 * delta),
                -(sol.outputs[0] - y1) / dy1,
                delta / (t / MU)
            );
        }
    }
    println!();
}
