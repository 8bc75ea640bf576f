//! Parallel batches (feature `rayon`): one model solved for many parameter sets and initial
//! states at once — multistart, parameter sweeps, Monte Carlo — on rayon's thread pool.
//!
//! Every solve of a batch is independent and sequential inside (one ESDIRK integration with
//! its events and sensitivities), so the parallelism is across items: each item is one call of
//! the same [`Solver`] on its own thread. The [`Batch`] trait adds three methods to every
//! solver (it is in [`crate::prelude`]):
//!
//! | method | each item | storage |
//! |---|---|---|
//! | [`Batch::solve_batch`] | [`Solver::solve`]: an owned [`Solution`] or a [`SolveFailure`] | owned results, as a sequential solve allocates them |
//! | [`Batch::gradient_batch`] | [`Solver::gradient`]: `G` and `dG/dθ` by the adjoint | an owned tape per item, as a sequential gradient |
//! | [`Batch::solve_batch_into`] | [`Solver::solve_into`] into the item's [`Slot`] | caller storage: no heap per solve |
//!
//! What a batch promises:
//!
//! - **Input order**: result `k` (or slot `k`) belongs to item `k`, whatever thread solved it.
//! - **The sequential results, bit for bit**: an item runs exactly the code of a sequential
//!   call with the same arguments, and nothing is shared between items but the read-only
//!   solver, so its states, sensitivities and costs are the same bits as the sequential solve
//!   (`tests/batch.rs` asserts it).
//! - **Errors per item**: a failing item (a NaN parameter, a step-size underflow, …) comes back
//!   as its own error, with what was computed up to it; the other items are unaffected, and
//!   nothing panics.
//! - **No heap per solve** in [`Batch::solve_batch_into`]: each item writes into the storage
//!   of its slot, made by the caller before the batch. The only allocations during such a
//!   batch are rayon's own scheduling: once per thread at its first batches (thread locals),
//!   then none in most batches and one in 63 (a new block of the pool's queue of injected
//!   jobs) — never per item or per step (`tests/batch_alloc.rs` counts them on every
//!   thread).
//!
//! - **Any model size on rayon's threads**: an item runs on its worker's stack (2 MiB by
//!   default) when that suffices, else on a larger segment mapped for the item — the
//!   builder's stack growth ([`crate::runtime::stack_estimate`]). A small model never needs
//!   it; a large one (the 101-state chain with sensitivities needs up to 15 MiB in release)
//!   pays one mapping per item, not a heap allocation — but its pages are new to every
//!   item, and faulting them in costs about 1.5 µs per 4 KiB touched (+50 % on a 31-state
//!   FSA solve of 0.9 ms). For such a model, run the batch in a pool whose threads have the
//!   stack it needs, and no item grows it:
//!   `rayon::ThreadPoolBuilder::new().stack_size(Solver::STACK_ESTIMATE + (1 << 20))`
//!   `.build()?.install(..)` (1 MiB more for rayon's own frames)
//!   ([`Solver::STACK_ESTIMATE`] covers every solve of the builder).
//!
//! The batch runs on rayon's global pool (one thread per core by default). For another
//! number of threads, run it inside a pool of your own:
//! `rayon::ThreadPoolBuilder::new().num_threads(4).build()?.install(|| solver.solve_batch(..))`.
//!
//! The solver is shared by reference across the threads: a [`Solver`] is `Sync` (and `Copy`)
//! whenever its model is `Sync`, as every `#[hybrid_model]` is (a unit struct).

use rayon::prelude::*;

use std::fmt;

use crate::runtime::{
    AdjointProducts, Gradient, HybridModel, HybridOutputs, HybridSolution, ModelSizes, ModelTypes,
    Solution, SolveError, SolveFailure, Solver,
};

/// The model's state type ([`ModelTypes::State`]).
type StateOf<M, const NY: usize, const NZ: usize, const NP: usize> =
    <M as ModelTypes<NY, NZ, NP>>::State;
/// One item of a batch: the initial state and the parameters, as the model's types.
type Item<M, const NY: usize, const NZ: usize, const NP: usize> = (
    <M as ModelTypes<NY, NZ, NP>>::State,
    <M as ModelTypes<NY, NZ, NP>>::Params,
);
/// Why one item's solve or gradient failed, with the solution up to the error.
type Failure<M, const NY: usize, const NZ: usize, const NP: usize> =
    SolveFailure<StateOf<M, NY, NZ, NP>, NY, NZ, NP>;
/// One item's owned solve: its solution, or its failure.
type Solved<M, const NY: usize, const NZ: usize, const NP: usize> =
    Result<Solution<StateOf<M, NY, NZ, NP>, NY, NZ, NP>, Failure<M, NY, NZ, NP>>;

/// Caller storage for one solve of [`Batch::solve_batch_into`]: the outputs it writes (samples,
/// event and step logs, as for [`Solver::solve_into`]), its summary and its result.
///
/// After the batch, `solution` holds the final time, state, sensitivities (all parameters,
/// then all initial states: `NS = NP + NY` columns), cost, cost gradient and statistics — or,
/// on failure, everything up to the error — and `result` says which.
#[derive(Debug)]
pub struct Slot<'s, const NY: usize, const NZ: usize, const NS: usize> {
    /// Where the solve writes its samples and, if given, its event and step logs.
    pub outputs: HybridOutputs<'s, NY, NZ, NS>,
    /// The summary of the solve.
    pub solution: HybridSolution<NY, NZ, NS>,
    /// The outcome of the solve (`Ok(())` until the slot is used).
    pub result: Result<(), SolveError>,
}

impl<'s, const NY: usize, const NZ: usize, const NS: usize> Slot<'s, NY, NZ, NS> {
    /// A slot writing into `outputs` (its `samples` must hold one entry per sample time of the
    /// solver, as for [`Solver::solve_into`]).
    pub fn new(outputs: HybridOutputs<'s, NY, NZ, NS>) -> Self {
        Slot {
            outputs,
            solution: HybridSolution::ZERO,
            result: Ok(()),
        }
    }

    /// A slot that keeps the summary only: no samples, no event log, no step log (for a solver
    /// without sample times).
    pub fn summary() -> Self {
        Slot::new(HybridOutputs {
            samples: &mut [],
            events: None,
            steps: None,
            dense: None,
        })
    }
}

/// [`Batch::solve_batch_into`] was given fewer slots than items; nothing was solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooFewSlots {
    /// The number of items.
    pub items: usize,
    /// The number of slots.
    pub slots: usize,
}

impl fmt::Display for TooFewSlots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a batch of {} items needs as many slots, but {} were given",
            self.items, self.slots
        )
    }
}

impl std::error::Error for TooFewSlots {}

/// Parallel batches of solves and gradients of one [`Solver`] (feature `rayon`); see the
/// [module documentation](self) for what a batch promises.
///
/// An item is a pair `(x0, p)`: the initial states and the parameters, as the model's own
/// types ([`ModelTypes`]: its `X` and its `P`, as [`Solver::solve`] takes them). `t0`, `tf`
/// and every setting of the solver are shared by all items. The generic parameters are the
/// model and its sizes, inferred from the solver.
///
/// ```
/// use hysens::prelude::*;
/// use hysens::batch::Slot;
///
/// /// Serban & Recuero 2019, Example 5.1.
/// #[hybrid_model]
/// pub mod ex51 {
///     #[states]
///     pub struct X { pub x: f64 }
///     #[params]
///     pub struct P { pub p: f64 }
///     fn h(x: &X, p: &P) -> f64 { x.x.powi(3) - 5.0 * x.x.powi(2) + 7.0 * x.x - p.p }
///     #[mode(initial_if(to_b, negative))]
///     fn a(x: &X) -> X { X { x: 4.0 - x.x } }
///     #[mode(initial_if(to_a, positive))]
///     fn b(x: &X) -> X { X { x: 10.0 - 2.0 * x.x } }
///     #[guard(a -> b, rising)]
///     fn to_b(x: &X, p: &P) -> f64 { h(x, p) }
///     #[guard(b -> a, falling)]
///     fn to_a(x: &X, p: &P) -> f64 { h(x, p) }
///     #[cost(integral)]
///     fn area(x: &X) -> f64 { x.x }
/// }
///
/// let solver = ex51::Model
///     .solver()
///     .tolerances(1e-8, 1e-10)
///     .sensitivities_to(Params::All, InitialStates::All);
///
/// // A sweep of the threshold p from the same initial state, one of them invalid.
/// let items: Vec<_> = [2.5, 2.9, f64::NAN, 3.3]
///     .into_iter()
///     .map(|p| (ex51::X { x: 0.0 }, ex51::P { p }))
///     .collect();
///
/// // Owned solutions, in input order; the NaN item fails alone.
/// let solutions = solver.solve_batch(0.0, 5.0, &items);
/// assert_eq!(solutions.len(), 4);
/// let at_2_9 = solutions[1].as_ref().expect("p = 2.9 solves");
/// assert_eq!(at_2_9.events.len(), 3);
/// assert!((at_2_9.cost_gradient("p").unwrap() + 2.3119531).abs() < 1e-5);
/// assert!(matches!(solutions[2], Err(ref failure)
///     if matches!(failure.error, SolveError::NonFiniteValue { .. })));
/// assert!(solutions[3].is_ok());
///
/// // The same objective's gradient by the adjoint, per item.
/// let gradients = solver.gradient_batch(0.0, 5.0, &items);
/// let dg_dp = gradients[1].as_ref().expect("p = 2.9 solves").wrt("p").unwrap();
/// assert!((dg_dp - at_2_9.cost_gradient("p").unwrap()).abs() < 1e-9); // ASA = FSA
/// assert!(gradients[2].is_err());
///
/// // No heap per solve: each item writes into its slot, made before the batch.
/// let mut slots: Vec<_> = items.iter().map(|_| Slot::summary()).collect();
/// solver.solve_batch_into(0.0, 5.0, &items, &mut slots)?;
/// assert_eq!(slots[1].result, Ok(()));
/// assert_eq!(slots[1].solution.y, at_2_9.y); // the same bits as the owned solve
/// assert!(slots[2].result.is_err());
/// # Ok::<(), hysens::batch::TooFewSlots>(())
/// ```
pub trait Batch<M, const NY: usize, const NZ: usize, const NP: usize, const NS: usize>
where
    M: ModelTypes<NY, NZ, NP>,
{
    /// Solves every item `(x0, p)` on `[t0, tf]` in parallel with [`Solver::solve`]: result
    /// `k` is item `k`'s owned [`Solution`], or its [`SolveFailure`] with the solution up to
    /// the error. Equal to the sequential solves, bit for bit.
    fn solve_batch(
        &self,
        t0: f64,
        tf: f64,
        items: &[Item<M, NY, NZ, NP>],
    ) -> Vec<Solved<M, NY, NZ, NP>>;

    /// The objective and its gradient with respect to every parameter and initial state for
    /// every item, in parallel with [`Solver::gradient`] (the discrete adjoint): result `k`
    /// is item `k`'s, or its [`SolveFailure`]. Equal to the sequential gradients, bit for bit.
    fn gradient_batch(
        &self,
        t0: f64,
        tf: f64,
        items: &[Item<M, NY, NZ, NP>],
    ) -> Vec<Result<Gradient<NY, NP>, Failure<M, NY, NZ, NP>>>
    where
        M: AdjointProducts<NY, NZ, NP>;

    /// Solves every item in parallel with [`Solver::solve_into`], item `k` into `slots[k]`,
    /// with no heap allocation per solve: each slot's `solution` and `result` are overwritten
    /// and its `outputs` written as by a sequential `solve_into`; slots past the items are
    /// left untouched.
    ///
    /// # Errors
    ///
    /// [`TooFewSlots`] if `slots` is shorter than `items` (then nothing is solved). A failing
    /// item is not an error of the batch: it is in its slot's `result`.
    fn solve_batch_into(
        &self,
        t0: f64,
        tf: f64,
        items: &[Item<M, NY, NZ, NP>],
        slots: &mut [Slot<'_, NY, NZ, NS>],
    ) -> Result<(), TooFewSlots>;
}

impl<
        M,
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
        const NS: usize,
    > Batch<M, NY, NZ, NP, NS> for Solver<'_, M, S, NY, NZ, NP, N, NS>
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP> + Sync,
    StateOf<M, NY, NZ, NP>: Send + Sync,
    <M as ModelTypes<NY, NZ, NP>>::Params: Sync,
{
    fn solve_batch(
        &self,
        t0: f64,
        tf: f64,
        items: &[Item<M, NY, NZ, NP>],
    ) -> Vec<Solved<M, NY, NZ, NP>> {
        items
            .par_iter()
            .map(|(x0, p)| self.solve(t0, tf, x0, p))
            .collect()
    }

    fn gradient_batch(
        &self,
        t0: f64,
        tf: f64,
        items: &[Item<M, NY, NZ, NP>],
    ) -> Vec<Result<Gradient<NY, NP>, Failure<M, NY, NZ, NP>>>
    where
        M: AdjointProducts<NY, NZ, NP>,
    {
        items
            .par_iter()
            .map(|(x0, p)| self.gradient(t0, tf, x0, p))
            .collect()
    }

    fn solve_batch_into(
        &self,
        t0: f64,
        tf: f64,
        items: &[Item<M, NY, NZ, NP>],
        slots: &mut [Slot<'_, NY, NZ, NS>],
    ) -> Result<(), TooFewSlots> {
        let too_few = TooFewSlots {
            items: items.len(),
            slots: slots.len(),
        };
        let slots = slots.get_mut(..items.len()).ok_or(too_few)?;
        items
            .par_iter()
            .zip(slots.par_iter_mut())
            .for_each(|((x0, p), slot)| {
                slot.result = self.solve_into(t0, tf, x0, p, &mut slot.outputs, &mut slot.solution);
            });
        Ok(())
    }
}
