//! Typed variables: a model's `X`, `Z`, `P` structs seen as the runtime's arrays.

/// A struct of `K` named `f64` fields, seen as the runtime's `[f64; K]` in declaration order.
///
/// `#[hybrid_model]` implements it for the model's `#[states]`, `#[algebraic]`, `#[params]` and
/// `#[inputs]` structs; `[f64; K]` implements it too, so hand-written models and callers that
/// hold arrays use the same entry points.
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
