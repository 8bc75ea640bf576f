//! Comparing a solve with a piecewise closed form, for the examples that have one
//! (`relay_sliding`, `stick_slip`): the closed form is evaluated over dual numbers once per
//! direction `θ` (an initial state or a parameter), which gives its exact derivatives; the
//! report prints the event log, the state at `T` and the cost gradient next to it, checks
//! every sample, and sums up the largest differences and the agreement of the forward
//! sensitivities (FSA) with the adjoint. Shared with it: the loop that follows a closed form
//! piece by piece from switch to switch ([`piece_by_piece`]), and the solves that an example
//! compares and draws ([`Solves`]).
//!
//! A difference is absolute, and relative to `max(1, |closed form|)`; a value the solve did not
//! produce (NaN) counts as an infinite difference, so a missing direction cannot pass.

use std::error::Error;

use hysens::prelude::*;
use num_dual::Dual64;

use crate::pieces::grid_with;

/// A piece of the closed form: knows the name of the model's mode it is in.
pub trait Piece: Copy + PartialEq + std::fmt::Debug {
    /// The mode's name in the model.
    fn mode(self) -> &'static str;
}

/// A switch of the closed form: its time (with its derivative), guard and pieces.
#[derive(Clone, Copy, Debug)]
pub struct Switch<P> {
    pub t: Dual64,
    pub guard: &'static str,
    pub from: P,
    pub to: P,
}

/// The closed form up to some time: the state there, its piece, the switches before it and
/// the cost up to it; each number with its derivative along one direction.
#[derive(Clone, Debug)]
pub struct ClosedForm<P, const NX: usize> {
    pub x: [Dual64; NX],
    pub piece: P,
    pub switches: Vec<Switch<P>>,
    pub cost: Dual64,
}

/// What a closed form's piece from time `t` gives, with `rest = t_end − t` left: its length
/// `τ`, and the guard and piece of the switch that ends it (none if the piece lasts to the
/// end).
pub type PieceEnd<P> = Result<(Dual64, Option<(&'static str, P)>), String>;

/// Runs a closed form piece by piece from `first` at `t = 0` to `t_end`: `piece(p, t, rest)`
/// follows piece `p` from `t` (and updates the state and cost it keeps) and says where it
/// ends. Returns the last piece and the switches; an error past `max_switches` switches.
pub fn piece_by_piece<P: Copy>(
    first: P,
    t_end: f64,
    max_switches: usize,
    mut piece: impl FnMut(P, Dual64, Dual64) -> PieceEnd<P>,
) -> Result<(P, Vec<Switch<P>>), String> {
    let (mut from, mut t) = (first, Dual64::from(0.0));
    let mut switches = Vec::new();
    loop {
        let (tau, next) = piece(from, t, -t + t_end)?;
        t += tau;
        let Some((guard, to)) = next else {
            return Ok((from, switches));
        };
        switches.push(Switch { t, guard, from, to });
        from = to;
        if switches.len() > max_switches {
            return Err(format!(
                "more than {max_switches} switches: the closed form gives up"
            ));
        }
    }
}

/// A direction `θ`: its name, how the solution names it, and its value.
pub type Direction = (&'static str, Wrt<'static>, f64);

/// A closed form over `K` directions, up to a time `t`.
pub type ClosedFormFn<P, const NX: usize, const K: usize> =
    fn([Dual64; K], f64) -> Result<ClosedForm<P, NX>, String>;

/// The closed form at one time with its derivatives along every direction: the values (from
/// the first) and, for each direction, the derivatives.
pub struct ClosedFormGradient<P, const NX: usize, const K: usize> {
    along: Vec<ClosedForm<P, NX>>,
}

impl<P: Piece, const NX: usize, const K: usize> ClosedFormGradient<P, NX, K> {
    /// `closed_form` at `t`, seeded along each of `directions`.
    pub fn new(
        directions: &[Direction; K],
        closed_form: ClosedFormFn<P, NX, K>,
        t: f64,
    ) -> Result<Self, String> {
        let along = (0..K)
            .map(|j| {
                let theta = std::array::from_fn(|i| {
                    Dual64::new(directions[i].2, if i == j { 1.0 } else { 0.0 })
                });
                closed_form(theta, t)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ClosedFormGradient { along })
    }

    /// The closed form's values (any direction's real parts).
    pub fn values(&self) -> &ClosedForm<P, NX> {
        &self.along[0]
    }

    /// `x_i` and its gradient.
    pub fn state(&self, i: usize) -> (f64, [f64; K]) {
        let gradient = std::array::from_fn(|j| self.along[j].x[i].eps);
        (self.values().x[i].re, gradient)
    }

    /// Switch `n`'s time and its gradient.
    pub fn switch_time(&self, n: usize) -> (f64, [f64; K]) {
        let gradient = std::array::from_fn(|j| self.along[j].switches[n].t.eps);
        (self.values().switches[n].t.re, gradient)
    }

    /// The cost and its gradient.
    pub fn cost(&self) -> (f64, [f64; K]) {
        let gradient = std::array::from_fn(|j| self.along[j].cost.eps);
        (self.values().cost.re, gradient)
    }
}

/// The largest differences from the closed form seen so far (module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct Differences {
    pub absolute: f64,
    pub relative: f64,
}

impl Differences {
    /// Compares a value and its gradient with the closed form's.
    pub fn record<const K: usize>(
        &mut self,
        value: f64,
        gradient: [f64; K],
        exact: (f64, [f64; K]),
    ) {
        let computed = std::iter::once(value).chain(gradient);
        let expected = std::iter::once(exact.0).chain(exact.1);
        for (c, e) in computed.zip(expected) {
            let d = (c - e).abs();
            let d = if d.is_nan() { f64::INFINITY } else { d };
            self.absolute = self.absolute.max(d);
            self.relative = self.relative.max(d / e.abs().max(1.0));
        }
    }

    /// The larger of both.
    pub fn max(self, other: Differences) -> Differences {
        Differences {
            absolute: self.absolute.max(other.absolute),
            relative: self.relative.max(other.relative),
        }
    }
}

/// `|a − b| / max(|a|, |b|)` (0 if both are 0).
pub fn relative(a: f64, b: f64) -> f64 {
    let scale = a.abs().max(b.abs());
    if scale == 0.0 {
        0.0
    } else {
        (a - b).abs() / scale
    }
}

/// What a report compares: the directions, the states' names and units, the closed form.
pub struct Report<P, const NX: usize, const K: usize> {
    pub directions: [Direction; K],
    /// `(name, unit)` of each state.
    pub states: [(&'static str, &'static str); NX],
    pub closed_form: ClosedFormFn<P, NX, K>,
}

/// The solves of an example with a closed form, all with the same settings and so of the same
/// discrete solution: forward sensitivities (FSA) to every parameter and initial state, the
/// adjoint gradient, FSA again at evenly spaced sample times to compare with the closed form,
/// and FSA at the denser sample times of the pictures. The sampled solves are their own (so
/// that the first is not cut at the samples); the pictures' times include the event times of
/// the first, so that the pieces of a trajectory join and the states at the events are
/// samples. Samples that close to an event are exact too: the sensitivities after a sample
/// within round-off of an event are those of the event (`tests/short_steps.rs`).
pub struct Solves<X, const NX: usize, const NP: usize> {
    pub solution: Solution<X, NX, 0, NP>,
    pub adjoint: Gradient<NX, NP>,
    pub sampled: Solution<X, NX, 0, NP>,
    pub pictured: Solution<X, NX, 0, NP>,
}

impl<X: Fields<NX>, const NX: usize, const NP: usize> Solves<X, NX, NP> {
    /// The solves of `solver` on `[0, t_end]` from `x0` with `p`: the compared one sampled
    /// at `n_samples` evenly spaced times, the pictures' at `n_pictured` and the events.
    pub fn new<M, const S: usize, const N: usize, const NS: usize>(
        solver: Solver<'_, M, S, NX, 0, NP, N, NS>,
        t_end: f64,
        (n_samples, n_pictured): (usize, usize),
        x0: &X,
        p: &<M as ModelTypes<NX, 0, NP>>::Params,
    ) -> Result<Self, Box<dyn Error>>
    where
        M: HybridModel<NX, 0, NP>
            + AdjointProducts<NX, 0, NP>
            + ModelSizes<N, NS>
            + ModelTypes<NX, 0, NP, State = X>,
        X: 'static,
    {
        let all = solver.sensitivities_to(Params::All, InitialStates::All);
        let solution = all.solve(0.0, t_end, x0, p)?;
        let adjoint = solver.gradient(0.0, t_end, x0, p)?;
        let times = grid_with(t_end, n_samples, &[]);
        let sampled = all.samples(&times).solve(0.0, t_end, x0, p)?;
        let events: Vec<f64> = solution.events.iter().map(|e| e.t).collect();
        let times = grid_with(t_end, n_pictured, &events);
        let pictured = all.samples(&times).solve(0.0, t_end, x0, p)?;
        Ok(Solves {
            solution,
            adjoint,
            sampled,
            pictured,
        })
    }
}

/// The largest differences of a report, by what was compared.
pub struct Summary {
    pub events: Differences,
    pub final_state: Differences,
    pub samples: Differences,
    pub cost: Differences,
    /// The largest relative difference between FSA and the adjoint (cost and gradient).
    pub fsa_vs_adjoint: f64,
}

impl<P: Piece, const NX: usize, const K: usize> Report<P, NX, K> {
    /// The closed form at `t` along every direction.
    pub fn at(&self, t: f64) -> Result<ClosedFormGradient<P, NX, K>, String> {
        ClosedFormGradient::new(&self.directions, self.closed_form, t)
    }

    /// The gradient of `f` along every direction (NaN where the solve has none).
    fn gradient(&self, f: impl Fn(Wrt<'static>) -> Result<f64, LookupError>) -> [f64; K] {
        self.directions
            .map(|(_, wrt, _)| f(wrt).unwrap_or(f64::NAN))
    }

    /// Prints the event log with `dt/dθ` next to the closed form's switches (which must be
    /// the same guards between the same modes), and returns the largest difference.
    pub fn events<X: Fields<NX>, const NP: usize>(
        &self,
        solution: &Solution<X, NX, 0, NP>,
        exact: &ClosedFormGradient<P, NX, K>,
    ) -> Result<Differences, Box<dyn Error>> {
        let switches = &exact.values().switches;
        let expected: Vec<_> = switches
            .iter()
            .map(|s| (s.guard, s.from.mode(), s.to.mode()))
            .collect();
        let found: Vec<_> = solution
            .events
            .iter()
            .map(|e| (e.guard, e.from, e.to))
            .collect();
        if found != expected {
            return Err(format!("events {found:?}, the closed form has {expected:?}").into());
        }
        let guard_width = expected.iter().map(|e| e.0.len()).max().unwrap_or(5);
        let modes_width = expected
            .iter()
            .map(|e| e.1.len() + e.2.len() + 4)
            .max()
            .unwrap_or(10);
        let row = |n: &str, t: f64, guard: &str, from: &str, to: &str, dt: [f64; K]| {
            print!(
                "{n:>2}  {t:>17.14}  {guard:<guard_width$}  {:<modes_width$}",
                format!("{from} -> {to}")
            );
            for d in dt {
                print!("  {d:>13.9}");
            }
        };
        println!();
        print!(
            "{:>2}  {:>17}  {:<guard_width$}  {:<modes_width$}",
            "#", "t (s)", "guard", "from -> to"
        );
        for (name, _, _) in self.directions {
            print!("  {:>13}", format!("dt/d{name}"));
        }
        println!("  {:>13}", "closed-form Δ");
        let mut worst = Differences::default();
        for (n, event) in solution.events.iter().enumerate() {
            let dt = self.gradient(|wrt| solution.event_time_sensitivity(n, wrt));
            let mut this_event = Differences::default();
            this_event.record(event.t, dt, exact.switch_time(n));
            worst = worst.max(this_event);
            let number = (n + 1).to_string();
            row(&number, event.t, event.guard, event.from, event.to, dt);
            println!("  {:>13.1e}", this_event.absolute);
        }
        for (n, switch) in switches.iter().enumerate() {
            let (t, dt) = exact.switch_time(n);
            row(
                "cf",
                t,
                switch.guard,
                switch.from.mode(),
                switch.to.mode(),
                dt,
            );
            println!("  (closed form)");
        }
        Ok(worst)
    }

    /// Prints the state at `t_end` and its sensitivities next to the closed form, checks the
    /// final mode, and returns the largest difference.
    pub fn final_state<X: Fields<NX>, const NP: usize>(
        &self,
        solution: &Solution<X, NX, 0, NP>,
        exact: &ClosedFormGradient<P, NX, K>,
        t_end: f64,
    ) -> Result<Differences, Box<dyn Error>> {
        let label_width = self
            .states
            .iter()
            .map(|(of, unit)| of.len() + unit.len() + 17)
            .max()
            .unwrap_or(20);
        println!();
        print!(
            "{:<label_width$}  {:>16}",
            format!("at t = {t_end} s"),
            "value"
        );
        for (name, _, _) in self.directions {
            print!("  {:>16}", format!("d/d{name}"));
        }
        println!();
        let mut worst = Differences::default();
        for (i, (of, unit)) in self.states.into_iter().enumerate() {
            let value = solution.y[i];
            let gradient = self.gradient(|wrt| solution.sensitivity(of, wrt));
            let closed = exact.state(i);
            worst.record(value, gradient, closed);
            for (source, value, gradient) in [
                ("hysens", value, gradient),
                ("closed form", closed.0, closed.1),
            ] {
                let label = format!("{of} ({unit}), {source}");
                print!("{label:<label_width$}  {value:>16.12}");
                for d in gradient {
                    print!("  {d:>16.12}");
                }
                println!();
            }
        }
        let mode = exact.values().piece.mode();
        if solution.mode != mode {
            let message = format!(
                "the solve ends in {}, the closed form in {mode}",
                solution.mode
            );
            return Err(message.into());
        }
        Ok(worst)
    }

    /// Every sample of `sampled` (states and sensitivities, and its mode) against the closed
    /// form at its time; returns the largest difference.
    pub fn samples<X: Fields<NX>, const NP: usize>(
        &self,
        sampled: &Solution<X, NX, 0, NP>,
    ) -> Result<Differences, Box<dyn Error>> {
        let mut worst = Differences::default();
        for (n, sample) in sampled.samples.iter().enumerate() {
            let at = self.at(sample.t)?;
            let mode = at.values().piece.mode();
            if sample.mode != mode {
                let message = format!(
                    "at t = {}: mode {}, the closed form's {mode}",
                    sample.t, sample.mode
                );
                return Err(message.into());
            }
            for (i, (of, _)) in self.states.into_iter().enumerate() {
                let gradient = self.gradient(|wrt| sampled.sample_sensitivity(n, of, wrt));
                worst.record(sample.y[i], gradient, at.state(i));
            }
        }
        Ok(worst)
    }

    /// The whole comparison of `solves` with the closed form up to `t_end`: prints the event
    /// log, what `after_events` prints from the closed form, the state at `t_end`, the cost
    /// (`cost`, `unit`: see [`Report::cost`]) and the summary at the relative tolerance `rtol`
    /// ([`Summary::print`]), and checks every sample; then the table of [`Report::table`],
    /// whose verdict it returns (an error only if the comparison could not be made).
    pub fn compare<X: Fields<NX>, const NP: usize>(
        &self,
        solves: &Solves<X, NX, NP>,
        t_end: f64,
        (cost, unit): (&str, &str),
        rtol: f64,
        after_events: impl FnOnce(&ClosedFormGradient<P, NX, K>),
    ) -> Result<crate::check::Verdict, Box<dyn Error>> {
        let exact = self.at(t_end)?;
        let events = self.events(&solves.solution, &exact)?;
        after_events(&exact);
        let final_state = self.final_state(&solves.solution, &exact, t_end)?;
        let samples = self.samples(&solves.sampled)?;
        let (cost, fsa_vs_adjoint) =
            self.cost(cost, unit, &solves.solution, &solves.adjoint, &exact);
        let summary = Summary {
            events,
            final_state,
            samples,
            cost,
            fsa_vs_adjoint,
        };
        let stats = &solves.solution.stats;
        summary.print(solves.sampled.samples.len(), rtol, stats);
        Ok(self.table(&solves.solution, &exact, rtol))
    }

    /// Prints the table of the state at `T`, the cost and its gradient by FSA against the
    /// closed form `exact`, within `1000 rtol` (the bound of [`Summary::print`]'s verdict);
    /// returns its verdict.
    fn table<X: Fields<NX>, const NP: usize>(
        &self,
        solution: &Solution<X, NX, 0, NP>,
        exact: &ClosedFormGradient<P, NX, K>,
        rtol: f64,
    ) -> crate::check::Verdict {
        let mut comparison = crate::check::Comparison::new("the closed form").bound(
            1e3 * rtol,
            "1000 rtol: the global error of a solve at rtol, grown through the entry into \
             and the exit from the surface, and the cost's quadrature",
        );
        for (i, (of, unit)) in self.states.into_iter().enumerate() {
            comparison =
                comparison.row(format!("{of}(T) ({unit})"), solution.y[i], exact.state(i).0);
        }
        let (cost, gradient) = exact.cost();
        comparison = comparison.row("G", solution.cost, cost);
        let forward = self.gradient(|wrt| solution.cost_gradient(wrt));
        for (j, (name, _, _)) in self.directions.into_iter().enumerate() {
            comparison = comparison.row(format!("dG/d{name} (FSA)"), forward[j], gradient[j]);
        }
        comparison.print()
    }

    /// Prints the cost `cost` (a description, e.g. `G = ∫ x² dt`) and its gradient by FSA,
    /// by the adjoint and by the closed form; returns the largest difference from the closed
    /// form and the largest relative difference between FSA and the adjoint.
    pub fn cost<X: Fields<NX>, const NP: usize>(
        &self,
        cost: &str,
        unit: &str,
        solution: &Solution<X, NX, 0, NP>,
        adjoint: &Gradient<NX, NP>,
        exact: &ClosedFormGradient<P, NX, K>,
    ) -> (Differences, f64) {
        let (value, gradient) = exact.cost();
        let mut worst = Differences::default();
        let forward = self.gradient(|wrt| solution.cost_gradient(wrt));
        worst.record(solution.cost, forward, exact.cost());
        println!();
        println!(
            "{cost}: FSA solve {:.13}, adjoint's forward pass {:.13}, closed form {value:.13} \
             ({unit})",
            solution.cost, adjoint.cost
        );
        println!(
            "{:<8}  {:>20}  {:>20}  {:>20}  {:>12}  {:>14}",
            "dG/d", "FSA", "adjoint", "closed form", "FSA vs adj.", "FSA vs c. f."
        );
        let mut worst_pair = relative(adjoint.cost, solution.cost);
        for (j, (name, wrt, _)) in self.directions.into_iter().enumerate() {
            let backward = adjoint.wrt(wrt).unwrap_or(f64::NAN);
            let pair = relative(backward, forward[j]);
            worst_pair = worst_pair.max(if pair.is_nan() { f64::INFINITY } else { pair });
            let closed = gradient[j];
            println!(
                "{name:<8}  {:>20.12e}  {backward:>20.12e}  {closed:>20.12e}  {pair:>12.1e}  \
                 {:>14.1e}",
                forward[j],
                (forward[j] - closed).abs() / closed.abs().max(1.0)
            );
        }
        (worst, worst_pair)
    }
}

impl Summary {
    /// Prints the largest differences (`n_samples` samples compared), the verdict at the
    /// relative tolerance `rtol` (hysens within `1000 rtol` of the closed form, FSA and the
    /// adjoint within `1e-12`) and the solve's statistics.
    pub fn print(&self, n_samples: usize, rtol: f64, stats: &hysens::runtime::Stats) {
        let worst = self
            .final_state
            .max(self.events)
            .max(self.samples)
            .max(self.cost);
        println!();
        println!(
            "largest difference from the closed form: {:.1e} \
             (relative to max(1, |closed form|): {:.1e})",
            worst.absolute, worst.relative
        );
        println!(
            "  state at T and sensitivities {:.1e}, event times and their sensitivities {:.1e}, \
             the {n_samples} samples {:.1e}, G and dG/dθ {:.1e}",
            self.final_state.absolute,
            self.events.absolute,
            self.samples.absolute,
            self.cost.absolute
        );
        println!(
            "FSA vs adjoint: largest relative difference {:.1e} (G and dG/dθ)",
            self.fsa_vs_adjoint
        );
        let yes = |ok: bool| if ok { "yes" } else { "no" };
        println!(
            "verdict: hysens within 1000 rtol = {:.0e} of the closed form (relative): {}; \
             FSA and the adjoint within 1e-12 of each other: {}",
            1e3 * rtol,
            yes(worst.relative <= 1e3 * rtol),
            yes(self.fsa_vs_adjoint <= 1e-12)
        );
        println!("{}", crate::stats::line(stats));
    }
}
