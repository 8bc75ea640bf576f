//! Numeric evaluation of nodes, for tests and for checking emitted code.
//!
//! Evaluation uses the same `f64` operations, in the same order, as the code that
//! [`crate::emit`](mod@crate::emit) generates, so a compiled kernel and [`Graph::eval`] agree to rounding (the
//! compiler may expand a constant `powi` into multiplications).

use crate::graph::{ExprId, Graph, Node};

impl Graph {
    /// The value of `root`, with variable `v` set to `values[v.index()]`.
    ///
    /// Variables without a value (an index past the end of `values`) evaluate to NaN.
    pub fn eval(&self, root: ExprId, values: &[f64]) -> f64 {
        self.eval_many(&[root], values)[0]
    }

    /// The values of several roots, sharing the evaluation of common subexpressions.
    pub fn eval_many(&self, roots: &[ExprId], values: &[f64]) -> Vec<f64> {
        let needed = self.reachable(roots);
        let mut value = vec![f64::NAN; needed.len()];
        for (i, _) in needed.iter().enumerate().filter(|(_, &n)| n) {
            let v = |id: ExprId| value[id.index()];
            value[i] = match self.node(ExprId(i as u32)) {
                Node::Const(bits) => f64::from_bits(bits),
                Node::Var(var) => values.get(var.index()).copied().unwrap_or(f64::NAN),
                Node::Add(a, b) => v(a) + v(b),
                Node::Sub(a, b) => v(a) - v(b),
                Node::Mul(a, b) => v(a) * v(b),
                Node::Div(a, b) => v(a) / v(b),
                Node::Neg(a) => -v(a),
                Node::Powi(a, n) => v(a).powi(n),
                Node::Powf(a, b) => v(a).powf(v(b)),
                Node::Call1(f, a) => f.apply(v(a)),
                Node::Call2(f, a, b) => f.apply(v(a), v(b)),
            };
        }
        roots.iter().map(|r| value[r.index()]).collect()
    }
}
