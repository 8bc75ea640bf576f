//! Typed variables: a model's `X`, `Z`, `P` structs seen as the runtime's arrays, and the
//! model's own types of the builder's inputs.

/// A struct of `K` named `f64` fields, seen as the runtime's `[f64; K]` in declaration order.
///
/// `#[hybrid_model]` implements it for the model's `#[states]`, `#[algebraic]`, `#[params]` and
/// `#[inputs]` structs (and for its `Parameters`, the parameters and inputs of a model with
/// inputs); `[f64; K]` implements it too, for hand-written models.
pub trait Fields<const K: usize>: Sized {
    /// The fields as an array, in declaration order.
    fn to_array(&self) -> [f64; K];
    /// The struct from an array in declaration order.
    fn from_array(values: [f64; K]) -> Self;
}

impl<const K: usize> Fields<K> for [f64; K] {
    fn to_array(&self) -> [f64; K] {
        *self
    }
    fn from_array(values: [f64; K]) -> Self {
        values
    }
}

/// The parameters of a model without `#[params]` and `#[inputs]`: what its solves take in
/// their place (`solver().solve(t0, tf, &x0, &NoParams)`), so that every entry point has the
/// same shape for every model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoParams;

impl Fields<0> for NoParams {
    fn to_array(&self) -> [f64; 0] {
        []
    }
    fn from_array(_: [f64; 0]) -> Self {
        NoParams
    }
}

/// The types a model's solves take: its initial state, its algebraic variables and its
/// parameters, each a [`Fields`] of the model's size.
///
/// The [`crate::Solver`] builder takes and returns these types, not bare arrays, so that two
/// inputs of the same size cannot be swapped: a ball's state `X { h, v }` and parameters
/// `P { g, e }` are both two numbers, and `solve(t0, tf, &p, &x0)` is a compile error rather
/// than a solve with `g = 1, e = 0` (issue #19).
///
/// `#[hybrid_model]` implements it with the model's `#[states]` and `#[algebraic]` structs and
/// its parameters: the `#[params]` struct, or for a model with `#[inputs]` the generated
/// `Parameters { params, inputs }` (what `Model::parameters(&p, &u)` returns), as `p` holds
/// both; for a model with neither, [`NoParams`]. A hand-written model implements it with arrays (`type State = [f64; 2];` …), or with
/// structs of its own.
pub trait ModelTypes<const NY: usize, const NZ: usize, const NP: usize> {
    /// The differential states (the initial state `x0`, the final state of a solution).
    type State: Fields<NY>;
    /// The algebraic variables (the guess `z0` of [`crate::Solver::algebraic_guess`]).
    type Algebraic: Fields<NZ>;
    /// The parameters, inputs included.
    type Params: Fields<NP>;
}
