//! The plug-in point: every tool/method joins the benchmark as a [`Runner`] in [`registry`].
//!
//! A runner owns the [`Case`] it solves (settings and reference live in the case, the equations
//! in the runner) and returns final outputs and sensitivities in the case's canonical layout
//! (see [`crate::case`]). The harness times [`Runner::run`] as a whole, interleaved round-robin
//! with every other runner, and compares its [`Solution`](crate::case::Solution) against the
//! case's reference.
//!
//! A tool joins with its [`Methods`]: each of them on each case it has a solve function for
//! is one [`ToolRunner`] ([`runners_of`]).

#[cfg(feature = "cvodes")]
pub mod cvodes;
pub mod diffsol;
pub mod hysens;

use crate::case::{Case, RunResult};

/// One tool/method combination on one case.
pub trait Runner {
    /// The case solved (settings, reference).
    fn case(&self) -> &Case;
    /// Tool name and version as shown in the table ("diffsol 0.18").
    fn tool(&self) -> &str;
    /// Method as shown in the table ("BDF", "ESDIRK34").
    fn method(&self) -> &str;
    /// True for the runner the "ratio" column divides by (hysens; one per case).
    fn is_baseline(&self) -> bool {
        false
    }
    /// One complete solve, from parameters to final outputs and sensitivities. Everything a
    /// user pays per solve (building the problem, creating the solver, integrating) belongs
    /// inside, since this is what is timed.
    fn run(&self) -> RunResult;
}

/// The methods (tableaus, integrators) of one tool.
pub trait Methods: Copy + PartialEq + 'static {
    /// Tool name and version as shown in the table ("diffsol 0.18").
    const TOOL: &'static str;
    /// Every method benchmarked, in table order.
    const ALL: &'static [Self];
    /// Method as shown in the table ("BDF", "ESDIRK34").
    fn name(self) -> &'static str;
    /// True for the method the "ratio" column divides by.
    fn is_baseline(self) -> bool {
        false
    }
}

/// A tool's runner: one case, one method, and the function that solves the case with it.
pub struct ToolRunner<T: Methods> {
    case: Case,
    method: T,
    solve: fn(&Case, T) -> RunResult,
}

impl<T: Methods> Runner for ToolRunner<T> {
    fn case(&self) -> &Case {
        &self.case
    }
    fn tool(&self) -> &str {
        T::TOOL
    }
    fn method(&self) -> &str {
        self.method.name()
    }
    fn is_baseline(&self) -> bool {
        self.method.is_baseline()
    }
    fn run(&self) -> RunResult {
        (self.solve)(&self.case, self.method)
    }
}

/// Every method of `T` on every case for which `solve_of(case.id)` has a solve function.
pub fn runners_of<T: Methods>(
    cases: &[Case],
    solve_of: impl Fn(&str) -> Option<fn(&Case, T) -> RunResult>,
) -> Vec<Box<dyn Runner>> {
    let mut out: Vec<Box<dyn Runner>> = Vec::new();
    for case in cases {
        let Some(solve) = solve_of(case.id) else {
            continue;
        };
        for &method in T::ALL {
            out.push(Box::new(ToolRunner {
                case: case.clone(),
                method,
                solve,
            }));
        }
    }
    out
}

/// All runners for the given cases: hysens' (first, baseline), diffsol's and, with feature
/// `cvodes`, CVODES'.
pub fn registry(cases: &[Case]) -> Vec<Box<dyn Runner>> {
    let mut runners = hysens::runners(cases);
    runners.extend(diffsol::runners(cases));
    #[cfg(feature = "cvodes")]
    runners.extend(cvodes::runners(cases));
    runners
}
