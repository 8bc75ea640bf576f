//! Runs one case of the corpus at every tolerance and with every tableau, and compares what
//! happened — the events (guard, modes, time), the state at the end, or the error — with the
//! exact answer.

use hysens::runtime::{
    HybridModel, ModelSizes, ModelTypes, SolveError, Solver, ESDIRK23, ESDIRK34,
};

/// The relative tolerances every case runs at.
pub const RTOLS: [f64; 5] = [1e-3, 1e-6, 1e-8, 1e-10, 1e-12];

/// The tableaus every case runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// ESDIRK2(3), order 2.
    Esdirk23,
    /// ESDIRK3(4), order 3.
    Esdirk34,
    /// Kennedy & Carpenter's ESDIRK4(3)6L[2]SA, order 4 (the default).
    Esdirk436,
}

impl Method {
    /// The order `p` of the propagated solution.
    fn order(self) -> i32 {
        match self {
            Method::Esdirk23 => 2,
            Method::Esdirk34 => 3,
            Method::Esdirk436 => 4,
        }
    }
}

/// Every tableau.
pub const METHODS: [Method; 3] = [Method::Esdirk23, Method::Esdirk34, Method::Esdirk436];

/// One setting of the grid.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// Tableau.
    pub method: Method,
}

/// An event as a solve reports it.
#[derive(Clone, Debug)]
pub struct Seen {
    /// The guard.
    pub guard: &'static str,
    /// The mode left.
    pub from: &'static str,
    /// The mode entered.
    pub to: &'static str,
    /// Its time.
    pub t: f64,
}

/// What a solve did.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The events, in order.
    pub events: Vec<Seen>,
    /// The states there.
    pub y: Vec<f64>,
    /// The error that ended it, if any.
    pub error: Option<SolveError>,
}

/// Solves `model` on `[t0, tf]` from `x0` with `p` at `setting` through the builder, landing
/// on the sample times `samples`.
#[allow(clippy::too_many_arguments)]
pub fn solve<
    M,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    model: &M,
    setting: Setting,
    t0: f64,
    tf: f64,
    x0: &M::State,
    p: &M::Params,
    samples: &[f64],
) -> Outcome
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    let solver = Solver::new(model)
        .tolerances(setting.rtol, setting.atol)
        .samples(samples);
    let result = match setting.method {
        Method::Esdirk23 => solver.tableau(&ESDIRK23).solve(t0, tf, x0, p),
        Method::Esdirk34 => solver.tableau(&ESDIRK34).solve(t0, tf, x0, p),
        Method::Esdirk436 => solver.solve(t0, tf, x0, p),
    };
    let (solution, error) = match result {
        Ok(solution) => (solution, None),
        Err(failure) => (*failure.partial, Some(failure.error)),
    };
    Outcome {
        events: solution
            .events
            .iter()
            .map(|e| Seen {
                guard: e.guard,
                from: e.from,
                to: e.to,
                t: e.t,
            })
            .collect(),
        y: solution.y.to_vec(),
        error,
    }
}

/// How accurate the answer of a case is at a setting.
#[derive(Clone, Copy, Debug)]
pub enum Accuracy {
    /// The flow is polynomial of degree ≤ 2 in `t` between events (piecewise-constant or
    /// piecewise-linear fields), which every tableau integrates exactly (order ≥ 2): times and
    /// states to round-off, accumulated over at most a few thousand steps.
    Exact,
    /// Times and states to `factor · rtol^{p/(p+1)}` (relative to `max(1, |value|)`) for a
    /// tableau of order `p`: a flow the tableaus approximate. With the local error per step
    /// held at `rtol`, `N ∝ rtol^{−1/(p+1)}` steps accumulate a global error
    /// `∝ rtol^{p/(p+1)}` (measured: the thermostat's switching times with ESDIRK2(3) and
    /// ESDIRK3(4) follow exponents 0.66 and 0.74 from rtol 1e-8 to 1e-12); each case's factor
    /// is its measured worst case with a margin, and says so.
    Global(f64),
    /// Times and states to this absolute tolerance, whatever the tolerances (an ill-posed
    /// quantity, such as the time of a crossing without rate; each use says why).
    Absolute(f64),
}

impl Accuracy {
    fn tolerance(self, method: Method, rtol: f64, value: f64) -> f64 {
        let scale = value.abs().max(1.0);
        match self {
            Accuracy::Exact => 1e-12 * scale,
            Accuracy::Global(factor) => {
                let p = f64::from(method.order());
                factor * rtol.powf(p / (p + 1.0)) * scale
            }
            Accuracy::Absolute(tolerance) => tolerance,
        }
    }
}

/// The error a case must end with.
#[derive(Clone, Copy, Debug)]
pub enum Failure {
    /// [`SolveError::StuckAtGuard`] of `guard` from `from` to `to`.
    Stuck {
        /// Guard.
        guard: &'static str,
        /// Mode left.
        from: &'static str,
        /// Mode entered.
        to: &'static str,
    },
    /// [`SolveError::GrazingEvent`] of `guard`.
    Grazing(&'static str),
    /// [`SolveError::RepulsiveSurface`].
    Repulsive,
    /// [`SolveError::NoInitialMode`].
    NoInitialMode,
}

/// The exact answer of a case.
#[derive(Clone, Debug)]
pub struct Expected {
    /// The events, in order: guard, mode left, mode entered, time.
    pub events: Vec<(&'static str, &'static str, &'static str, f64)>,
    /// How the solve ends: the states at the final time, or an error at a time.
    pub end: End,
    /// The accuracy of times and states.
    pub accuracy: Accuracy,
}

/// How a case's solve ends.
#[derive(Clone, Debug)]
pub enum End {
    /// At the final time with these states.
    Finished(Vec<f64>),
    /// With this error at this time (the events before it as expected).
    Failed(Failure, f64),
    /// With this error after at least the expected events (Zeno: how many precede the
    /// error depends on the tolerance), before this time.
    FailedBefore(Failure, f64),
}

/// Compares what happened with what should have (empty if they agree).
pub fn compare(outcome: &Outcome, expected: &Expected, setting: Setting) -> Vec<String> {
    let mut wrong = Vec::new();
    let tolerance = |value: f64| {
        expected
            .accuracy
            .tolerance(setting.method, setting.rtol, value)
    };
    let at_least = matches!(expected.end, End::FailedBefore(..));
    let count_ok = if at_least {
        outcome.events.len() >= expected.events.len()
    } else {
        outcome.events.len() == expected.events.len()
    };
    if !count_ok {
        wrong.push(format!(
            "{} events {:?}, expected {:?}",
            outcome.events.len(),
            outcome
                .events
                .iter()
                .map(|e| (e.guard, e.from, e.to, e.t))
                .collect::<Vec<_>>(),
            expected.events
        ));
    }
    for (k, (seen, &(guard, from, to, t))) in
        outcome.events.iter().zip(&expected.events).enumerate()
    {
        if (seen.guard, seen.from, seen.to) != (guard, from, to) {
            wrong.push(format!(
                "event {k}: {} {} -> {}, expected {guard} {from} -> {to}",
                seen.guard, seen.from, seen.to
            ));
        }
        if !within(seen.t, t, tolerance(t)) {
            wrong.push(format!("event {k} at t = {:e}, expected {t:e}", seen.t));
        }
    }
    match (&expected.end, &outcome.error) {
        (End::Finished(y), None) => {
            for (i, (a, b)) in outcome.y.iter().zip(y).enumerate() {
                if !within(*a, *b, tolerance(*b)) {
                    wrong.push(format!("state {i} = {a:e} at the end, expected {b:e}"));
                }
            }
        }
        (End::Finished(_), Some(e)) => wrong.push(format!("failed: {e}")),
        (End::Failed(f, _) | End::FailedBefore(f, _), None) => {
            wrong.push(format!("finished, expected {f:?}"));
        }
        (End::Failed(f, t), Some(e)) => {
            if !matches_failure(f, e) {
                wrong.push(format!("failed with {e}, expected {f:?}"));
            }
            if !within(e.time(), *t, tolerance(*t)) {
                wrong.push(format!("failed at t = {:e}, expected {t:e}", e.time()));
            }
        }
        (End::FailedBefore(f, t), Some(e)) => {
            if !matches_failure(f, e) {
                wrong.push(format!("failed with {e}, expected {f:?}"));
            }
            if e.time().partial_cmp(t) == Some(core::cmp::Ordering::Greater) || e.time().is_nan() {
                wrong.push(format!(
                    "failed at t = {:e}, expected before {t:e}",
                    e.time()
                ));
            }
        }
    }
    wrong
}

/// Whether `a` is within `tolerance` of `b` (false for a NaN).
fn within(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance
}

/// Whether `error` is `failure` (its names are checked by [`name_mismatch`]).
fn matches_failure(failure: &Failure, error: &SolveError) -> bool {
    matches!(
        (failure, error),
        (Failure::Stuck { .. }, SolveError::StuckAtGuard { .. })
            | (Failure::Grazing(_), SolveError::GrazingEvent { .. })
            | (Failure::Repulsive, SolveError::RepulsiveSurface { .. })
            | (Failure::NoInitialMode, SolveError::NoInitialMode { .. })
    )
}

/// Runs `run` at every tolerance of [`RTOLS`] (with `atol = atol_of(rtol)`) and every tableau,
/// and panics with every disagreement with `expected` (and what the names in an error
/// resolve to, checked by `names`).
pub fn check(
    case: &str,
    expected: &Expected,
    atol_of: impl Fn(f64) -> f64,
    run: impl Fn(Setting) -> Outcome,
    names: impl Fn(&SolveError) -> (&'static str, &'static str, &'static str),
) {
    let mut report = Vec::new();
    for rtol in RTOLS {
        for method in METHODS {
            let setting = Setting {
                rtol,
                atol: atol_of(rtol),
                method,
            };
            let outcome = run(setting);
            let mut wrong = compare(&outcome, expected, setting);
            if let (Some(error), End::Failed(failure, _) | End::FailedBefore(failure, _)) =
                (&outcome.error, &expected.end)
            {
                wrong.extend(name_mismatch(failure, error, &names));
            }
            for w in wrong {
                report.push(format!("rtol {rtol:e}, {method:?}: {w}"));
            }
        }
    }
    assert!(report.is_empty(), "{case}:\n  {}", report.join("\n  "));
}

/// Whether the guard and modes an error names are those expected (through `names`, which
/// resolves an error's guard, mode and target to the model's names).
fn name_mismatch(
    failure: &Failure,
    error: &SolveError,
    names: &impl Fn(&SolveError) -> (&'static str, &'static str, &'static str),
) -> Option<String> {
    let (guard, from, to) = names(error);
    match *failure {
        Failure::Stuck {
            guard: g,
            from: f,
            to: t,
        } if (guard, from, to) != (g, f, t) => Some(format!(
            "stuck at {guard} {from} -> {to}, expected {g} {f} -> {t}"
        )),
        Failure::Grazing(g) if guard != g => Some(format!("grazing {guard}, expected {g}")),
        _ => None,
    }
}

/// The names an error of model `M` gives: its guard, its mode and, for
/// [`SolveError::StuckAtGuard`], the mode its event leads to.
pub fn names_of<M, const NY: usize, const NZ: usize, const NP: usize>(
    error: &SolveError,
) -> (&'static str, &'static str, &'static str)
where
    M: HybridModel<NY, NZ, NP>,
{
    let mode = |m: usize| M::MODES.get(m).map_or("?", |m| m.name);
    let guard = |g: usize| M::GUARDS.get(g).map_or("?", |g| g.name);
    match *error {
        SolveError::StuckAtGuard {
            mode: m,
            guard: g,
            to,
            ..
        } => (guard(g), mode(m), mode(to)),
        SolveError::GrazingEvent {
            mode: m, guard: g, ..
        }
        | SolveError::RepulsiveSurface {
            mode: m, guard: g, ..
        } => (guard(g), mode(m), ""),
        ref other => ("", mode(other.mode()), ""),
    }
}

/// `atol = rtol / 100`: states of size one, resolved a hundred times below the relative
/// tolerance.
pub fn atol_hundredth(rtol: f64) -> f64 {
    rtol * 1e-2
}

/// Checks the case named `$name` — model `$model` (a `#[hybrid_model]`'s unit struct)
/// solved on `[$t0, $tf]` from `$x0` with `$p` — against `$expected` over the grid (with
/// `atol = $atol(rtol)`, by default [`atol_hundredth`]; landing on the sample times
/// `$samples`, by default none).
#[macro_export]
macro_rules! corpus_case {
    ($name:expr, $model:path, $expected:expr, ($t0:expr, $tf:expr), $x0:expr, $p:expr) => {
        $crate::corpus_case!(
            $name,
            $model,
            $expected,
            ($t0, $tf),
            $x0,
            $p,
            $crate::harness::atol_hundredth
        )
    };
    ($name:expr, $model:path, $expected:expr, ($t0:expr, $tf:expr), $x0:expr, $p:expr, $atol:expr) => {
        $crate::corpus_case!($name, $model, $expected, ($t0, $tf), $x0, $p, $atol, &[])
    };
    ($name:expr, $model:path, $expected:expr, ($t0:expr, $tf:expr), $x0:expr, $p:expr, $atol:expr, $samples:expr) => {{
        let (x0, p) = ($x0, $p);
        $crate::harness::check(
            $name,
            &$expected,
            $atol,
            |setting| $crate::harness::solve(&$model, setting, $t0, $tf, &x0, &p, $samples),
            |error| $crate::harness::names_of::<$model, _, _, _>(error),
        )
    }};
}

/// A table of cases, one `#[test]` a row: `test_fn: "case name", Model, (t0, tf), x0, p =>
/// [events], end, accuracy` (the fields of [`Expected`]), and optionally `, atol_of` and
/// `, samples` as for [`corpus_case!`]. For the cases whose answer is written out in numbers;
/// a case that derives its answer in steps stays a function of its own.
#[macro_export]
macro_rules! corpus_tests {
    ($(
        $(#[$doc:meta])*
        $test:ident: $name:literal, $model:path, ($t0:expr, $tf:expr), $x0:expr, $p:expr
            => [$($event:expr),* $(,)?], $end:expr, $accuracy:expr $(, $extra:expr)* ;
    )*) => {$(
        $(#[$doc])*
        #[test]
        fn $test() {
            let expected = $crate::harness::Expected {
                events: vec![$($event),*],
                end: $end,
                accuracy: $accuracy,
            };
            $crate::corpus_case!($name, $model, expected, ($t0, $tf), $x0, $p $(, $extra)*);
        }
    )*};
}
