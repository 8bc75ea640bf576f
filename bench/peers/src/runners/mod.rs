//! The plug-in point: every tool/method joins the benchmark as a [`Runner`] in [`registry`].
//!
//! A runner owns the [`Case`] it solves (settings and reference live in the case, the equations
//! in the runner) and returns final outputs and sensitivities in the case's canonical layout
//! (see [`crate::case`]). The harness times [`Runner::run`] as a whole, interleaved round-robin
//! with every other runner, and compares its [`Solution`](crate::case::Solution) against the
//! case's reference.

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

/// All runners for the given cases: hysens' (first, baseline) and diffsol's.
pub fn registry(cases: &[Case]) -> Vec<Box<dyn Runner>> {
    let mut runners = hysens::runners(cases);
    runners.extend(diffsol::runners(cases));
    runners
}
