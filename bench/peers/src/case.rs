//! A benchmark *case*: one problem instance with fixed settings and its reference solution.
//!
//! Every runner (hysens and diffsol) solves a [`Case`] and reports its final outputs in
//! the case's canonical layout, so the harness can compare every tool against the same
//! reference with the same error metric. The layout is fixed per case:
//!
//! * `outputs[i]`: the i-th output named in [`Case::outputs`] (final states, and for P1 the
//!   integral `G`), evaluated at `t_end`;
//! * `sens[j][i]`: d outputs[i] / d params[j] (unscaled).

/// Identifier of a case, also the first column of the table ("P1", "P3a", ...).
pub type CaseId = &'static str;

/// One problem instance: equations are implemented by each runner, everything else is here.
#[derive(Clone, Debug)]
pub struct Case {
    /// Short id used in the table and by runners to find their case ("P3b").
    pub id: CaseId,
    /// Human-readable problem name with the time span ("Robertson [0, 4e10]").
    pub title: &'static str,
    /// Final time; the initial time is 0 for every case.
    pub t_end: f64,
    /// Nominal parameter values, in the order of `sens`.
    pub params: &'static [f64],
    /// Parameter names, for the table's Notes section.
    pub param_names: &'static [&'static str],
    /// Names of the compared outputs, in the order of `Reference::outputs`.
    pub outputs: &'static [&'static str],
    /// Relative tolerance given to every solver.
    pub rtol: f64,
    /// Absolute tolerance given to every solver (scalar, all states).
    pub atol: f64,
    /// Reference solution.
    pub reference: Reference,
    /// A sensitivity printed verbatim for every runner in a second table:
    /// `(param index j, output index i, label)` of `sens[j][i]`.
    pub key_sens: Option<(usize, usize, &'static str)>,
}

/// Reference outputs and sensitivities of a case, in the layout described in the module doc.
#[derive(Clone, Debug)]
pub struct Reference {
    pub outputs: Vec<f64>,
    /// `sens[j][i]` = d outputs[i] / d params[j].
    pub sens: Vec<Vec<f64>>,
    /// Where the numbers come from (printed under the table).
    pub source: &'static str,
}

/// What one solve returns. Runners fill in what their tool exposes; `None` counters print as "—".
#[derive(Clone, Debug, Default)]
pub struct Solution {
    /// Outputs at `t_end`, same layout as [`Reference::outputs`].
    pub outputs: Vec<f64>,
    /// `sens[j][i]` = d outputs[i] / d params[j], same layout as [`Reference::sens`].
    pub sens: Vec<Vec<f64>>,
    /// Accepted steps.
    pub steps: Option<usize>,
    /// Evaluations of the right-hand side f (not counting Jacobian-vector products or
    /// parameter-Jacobian products of the sensitivity equations).
    pub f_evals: Option<usize>,
}

/// Outcome of one solve: a solution, or the tool's error message.
pub type RunResult = Result<Solution, String>;
