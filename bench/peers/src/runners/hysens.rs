//! The hysens runners: P1–P4 as the `#[hybrid_model]`s of the main crate's tests
//! (`tests/support/models.rs`), P5/P6 as those of the reproduce table
//! (`examples/reproduce/models/stiff.rs`), both included below, not copied, solved as
//! `Model::solve_with(&tableau, &problem, &HybridOptions::new(rtol, atol), StepPlan::Adaptive,
//! ..)` does it (a `HybridRun` of the tableau, plan and options, and `hysens::runtime::solve`:
//! [`solve`], one function for all) and forward sensitivities (`problem.sensitivities = Some(seeds)`), once per tableau:
//!
//! * ESDIRK4(3)6L[2]SA (Kennedy & Carpenter; hysens' default) — the baseline row;
//! * ESDIRK34 and ESDIRK23 (the other tableaus hysens ships);
//! * ESDIRK4(3)6L[2]SA with the sensitivities in the error test
//!   (`Options::sensitivity_error_test`), the setting of the diffsol runners.
//!
//! Settings: the case's scalar `rtol`/`atol`, every other option at its default. By default
//! the sensitivities are **not** in hysens' error test: its forward sensitivities are the exact
//! derivatives of the discrete solution (steps, event times), so the step sizes are chosen on
//! the states alone; the `+ sens. error test` row puts them in, as the diffsol runners do.
//! Layouts as in `crate::case`:
//!
//! * P1 `outputs = [x(5), G]` with `G = solution.cost`, `dG/dp = solution.cost_gradient`;
//! * P2 `p = (z0, v0, g, γ)`, `y0 = (z0, v0)` with unit seeds `∂y0/∂(z0, v0)`;
//! * P3 `dy/dk`, P4 `dy/dμ` (seeds zero: `y0` does not depend on the parameters).
//! * P5 (HIRES) `dy/dk`; P6 (Chemical Akzo Nobel, the index-1 DAE as hysens writes it: five
//!   states, the algebraic `y6` from `0 = Ks y1 y4 − y6`) `outputs = (y1..y5, y6)` with
//!   `y6 = solution.z[0]` and its sensitivities `solution.sz`; seeds zero, the algebraic guess
//!   `z0 = Ks y1(0) y4(0)` (consistent; the solve makes any guess consistent).

#[path = "../../../../tests/support/models.rs"]
mod models;
#[path = "../../../../examples/reproduce/models/stiff.rs"]
#[allow(dead_code)] // the reference constants there are the reproduce table's
mod stiff;

use hysens::runtime::tableau::{ESDIRK23, ESDIRK34, ESDIRK436L2SA};
use hysens::runtime::{
    HybridModel, HybridOptions, HybridOutputs, HybridProblem, HybridRun, HybridSolution,
    ModelSizes, StepPlan,
};
use models::{ball, ex51, robertson, vdp};
use stiff::{akzo, hires};

use super::{runners_of, Methods, Runner};
use crate::case::{Case, RunResult, Solution};

/// The hysens tableaus benchmarked, the first one being the baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Kennedy & Carpenter's ESDIRK4(3)6L[2]SA, hysens' default.
    Esdirk436,
    /// ESDIRK34.
    Esdirk34,
    /// ESDIRK23.
    Esdirk23,
    /// ESDIRK4(3)6L[2]SA with the sensitivities in the error test.
    Esdirk436SensitivityTest,
}

impl Methods for Method {
    const TOOL: &'static str = "hysens";
    const ALL: &'static [Method] = &[
        Method::Esdirk436,
        Method::Esdirk34,
        Method::Esdirk23,
        Method::Esdirk436SensitivityTest,
    ];

    fn name(self) -> &'static str {
        match self {
            Method::Esdirk436 => "ESDIRK4(3)6L[2]SA",
            Method::Esdirk34 => "ESDIRK34",
            Method::Esdirk23 => "ESDIRK23",
            Method::Esdirk436SensitivityTest => "ESDIRK4(3)6L[2]SA + sens. error test",
        }
    }

    fn is_baseline(self) -> bool {
        self == Method::Esdirk436
    }
}

impl Method {
    /// The case's tolerances, every other option at its default except the error test.
    fn options<const NY: usize, const NZ: usize>(self, case: &Case) -> HybridOptions<NY, NZ> {
        let mut options = HybridOptions::new(case.rtol, case.atol);
        options.integrator.sensitivity_error_test = self == Method::Esdirk436SensitivityTest;
        options
    }
}

/// Calls `$body` with `$t` bound to the tableau of `$method` (the tableaus differ in their
/// stage count, a const generic).
macro_rules! with_tableau {
    ($method:expr, |$t:ident| $body:expr) => {
        match $method {
            Method::Esdirk436 | Method::Esdirk436SensitivityTest => {
                let $t = &ESDIRK436L2SA;
                $body
            }
            Method::Esdirk34 => {
                let $t = &ESDIRK34;
                $body
            }
            Method::Esdirk23 => {
                let $t = &ESDIRK23;
                $body
            }
        }
    };
}

/// Every hysens tableau on every case.
pub fn runners(cases: &[Case]) -> Vec<Box<dyn Runner>> {
    runners_of(cases, |id| match id {
        "P1" => Some(solve_p1 as fn(&Case, Method) -> RunResult),
        "P2" => Some(solve_p2),
        "P3a" | "P3b" => Some(solve_p3),
        "P4a" | "P4b" => Some(solve_p4),
        "P5" => Some(solve_p5),
        "P6" => Some(solve_p6),
        _ => None,
    })
}

/// No samples, events or step log: only the final state is wanted.
fn no_outputs<'a, const NY: usize, const NZ: usize, const NP: usize>(
) -> HybridOutputs<'a, NY, NZ, NP> {
    HybridOutputs {
        samples: &mut [],
        events: None,
        steps: None,
        dense: None,
    }
}

/// Final states `y` as outputs, `sy[i][j] = dy_i/dp_j` transposed to `sens[j][i]`.
fn states_solution<const NY: usize, const NP: usize>(sol: &HybridSolution<NY, 0, NP>) -> Solution {
    Solution {
        outputs: sol.y.to_vec(),
        sens: (0..NP)
            .map(|j| (0..NY).map(|i| sol.sy[i][j]).collect())
            .collect(),
        steps: Some(sol.stats.steps),
        f_evals: Some(sol.stats.f_evals),
    }
}

/// Error message of a failed solve, with the time reached.
fn failed<const NY: usize, const NZ: usize, const NP: usize>(
    e: hysens::runtime::SolveError,
    sol: &HybridSolution<NY, NZ, NP>,
) -> String {
    format!("hysens: {e} (t = {:e}, {} steps)", sol.t, sol.stats.steps)
}

/// Solves `problem` of `model` with the tableau of `method` and the case's options, with
/// adaptive steps and no outputs (what `Model::solve_with` does): the final summary, or the
/// error with the time reached.
fn solve<M, const NY: usize, const NZ: usize, const NP: usize, const N: usize, const NS: usize>(
    model: &M,
    problem: &HybridProblem<'_, NY, NZ, NP>,
    case: &Case,
    method: Method,
) -> Result<HybridSolution<NY, NZ, NP>, String>
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS>,
{
    let options = method.options(case);
    let mut sol = HybridSolution::ZERO;
    with_tableau!(method, |t| {
        let run = HybridRun::new(model, t, problem, &options).with_plan(StepPlan::Adaptive);
        hysens::runtime::solve(&run, &mut no_outputs(), &mut sol).map_err(|e| failed(e, &sol))?
    });
    Ok(sol)
}

/// P1: `[x(5), G]`, `[[dx(5)/dp, dG/dp]]`.
fn solve_p1(case: &Case, method: Method) -> RunResult {
    let problem = HybridProblem {
        sensitivities: Some([[0.0]]),
        ..ex51::Model::problem(
            0.0,
            case.t_end,
            &ex51::X { x: 0.0 },
            &ex51::P { p: case.params[0] },
        )
    };
    let sol = solve(&ex51::Model, &problem, case, method)?;
    Ok(Solution {
        outputs: vec![sol.y[0], sol.cost],
        sens: vec![vec![sol.sy[0][0], sol.cost_gradient[0]]],
        steps: Some(sol.stats.steps),
        f_evals: Some(sol.stats.f_evals),
    })
}

/// P2: `[z(T), v(T)]`, sensitivities to `(z0, v0, g, γ)`; `y0 = (z0, v0)` with unit seeds.
fn solve_p2(case: &Case, method: Method) -> RunResult {
    let p = case.params;
    let params = ball::P {
        z0: p[0],
        v0: p[1],
        g: p[2],
        gamma: p[3],
    };
    let problem = HybridProblem {
        sensitivities: Some([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]),
        ..ball::Model::problem(
            0.0,
            case.t_end,
            &ball::X {
                z: params.z0,
                v: params.v0,
            },
            &params,
        )
    };
    let sol = solve(&ball::Model, &problem, case, method)?;
    Ok(states_solution(&sol))
}

/// P3: `y`, `dy/dk`.
fn solve_p3(case: &Case, method: Method) -> RunResult {
    let k = case.params;
    let problem = HybridProblem {
        sensitivities: Some([[0.0; 3]; 3]),
        ..robertson::Model::problem(
            0.0,
            case.t_end,
            &robertson::X {
                y1: 1.0,
                y2: 0.0,
                y3: 0.0,
            },
            &robertson::P {
                k1: k[0],
                k2: k[1],
                k3: k[2],
            },
        )
    };
    let sol = solve(&robertson::Model, &problem, case, method)?;
    Ok(states_solution(&sol))
}

/// P4: `y`, `dy/dμ`.
fn solve_p4(case: &Case, method: Method) -> RunResult {
    let problem = HybridProblem {
        sensitivities: Some([[0.0]; 2]),
        ..vdp::Model::problem(
            0.0,
            case.t_end,
            &vdp::X { y1: 2.0, y2: 0.0 },
            &vdp::P { mu: case.params[0] },
        )
    };
    let sol = solve(&vdp::Model, &problem, case, method)?;
    Ok(states_solution(&sol))
}

/// P5 (HIRES): `y`, `dy/dk`.
fn solve_p5(case: &Case, method: Method) -> RunResult {
    let problem = HybridProblem {
        sensitivities: Some([[0.0]; 8]),
        ..hires::Model::problem(
            0.0,
            case.t_end,
            &stiff::HIRES_Y0,
            &hires::P { k: case.params[0] },
        )
    };
    let sol = solve(&hires::Model, &problem, case, method)?;
    Ok(states_solution(&sol))
}

/// P6 (Chemical Akzo Nobel): `(y1..y5, y6)`, their derivatives by `(k1, kla)`; `y6` is the
/// algebraic variable.
fn solve_p6(case: &Case, method: Method) -> RunResult {
    let y0 = stiff::AKZO_Y0;
    let problem = HybridProblem {
        sensitivities: Some([[0.0; 2]; 5]),
        z0: [115.83 * y0.y1 * y0.y4],
        ..akzo::Model::problem(
            0.0,
            case.t_end,
            &y0,
            &akzo::P {
                k1: case.params[0],
                kla: case.params[1],
            },
        )
    };
    let sol = solve(&akzo::Model, &problem, case, method)?;
    let mut outputs = sol.y.to_vec();
    outputs.push(sol.z[0]);
    Ok(Solution {
        outputs,
        sens: (0..2)
            .map(|j| {
                (0..5)
                    .map(|i| sol.sy[i][j])
                    .chain(std::iter::once(sol.sz[0][j]))
                    .collect()
            })
            .collect(),
        steps: Some(sol.stats.steps),
        f_evals: Some(sol.stats.f_evals),
    })
}
