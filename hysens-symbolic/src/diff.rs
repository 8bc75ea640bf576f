//! Symbolic differentiation.
//!
//! [`Derivative`] differentiates with respect to one variable, bottom-up over the DAG, and
//! remembers the derivative of every node it visited. Each node's derivative adds a bounded
//! number of new nodes and refers to its children's derivatives and to the node itself (for
//! example `d exp(a) = exp(a) · da` reuses the node `exp(a)`), so the derivative of an expression
//! of `n` nodes has `O(n)` nodes — never the exponential blow-up of tree-based differentiation.
//!
//! The rules are the textbook ones; the few choices worth knowing:
//! - `d(a / b) = (da − (a/b)·db) / b`, reusing the quotient node;
//! - `d asin(a) = da / √((1 − a)(1 + a))` and the like, factored to stay accurate near `|a| = 1`;
//! - `d |a| = signum(a) · da`, with Rust's `signum(0) = 1` (see [`crate::Func1::Signum`]).

use std::collections::HashMap;

use crate::function::{Func1, Func2};
use crate::graph::{ExprId, Graph, Node, VarId};

/// Differentiation with respect to one variable, with a memo shared by every expression it is
/// applied to (the rows of a Jacobian column share their common subexpressions' derivatives).
#[derive(Clone, Debug)]
pub struct Derivative {
    var: VarId,
    memo: HashMap<ExprId, ExprId>,
}

impl Derivative {
    /// Differentiation with respect to `var`.
    pub fn new(var: VarId) -> Self {
        Derivative {
            var,
            memo: HashMap::new(),
        }
    }

    /// `d root / d var`, as a node of `graph`.
    ///
    /// Visits only the nodes below `root` that depend on the variable and have no derivative
    /// yet (post-order, without recursion). Differentiating the rows of a Jacobian column one
    /// after the other therefore costs the number of nodes that depend on that column's
    /// variable — for a banded system, a few per row — not the size of the graph.
    pub fn of(&mut self, graph: &mut Graph, root: ExprId) -> ExprId {
        let mut stack = vec![(root, false)];
        while let Some((id, children_done)) = stack.pop() {
            if self.memo.contains_key(&id) {
                continue;
            }
            if !graph.depends_on(id, self.var) {
                // A subexpression free of the variable: zero, without looking inside.
                let zero = graph.constant(0.0);
                self.memo.insert(id, zero);
                continue;
            }
            if children_done {
                let d = self.rule(graph, id);
                self.memo.insert(id, d);
            } else {
                stack.push((id, true));
                for c in graph.node(id).children() {
                    if !self.memo.contains_key(&c) {
                        stack.push((c, false));
                    }
                }
            }
        }
        self.memo[&root]
    }

    /// The derivative of node `e`, given the derivatives of its children in the memo.
    fn rule(&self, g: &mut Graph, e: ExprId) -> ExprId {
        let d = |x: ExprId| self.memo[&x];
        match g.node(e) {
            Node::Const(_) => g.constant(0.0),
            Node::Var(v) => g.constant(if v == self.var { 1.0 } else { 0.0 }),
            Node::Add(a, b) => g.add(d(a), d(b)),
            Node::Sub(a, b) => g.sub(d(a), d(b)),
            Node::Mul(a, b) => {
                let da_b = g.mul(d(a), b);
                let a_db = g.mul(a, d(b));
                g.add(da_b, a_db)
            }
            Node::Div(a, b) => {
                let e_db = g.mul(e, d(b));
                let num = g.sub(d(a), e_db);
                g.div(num, b)
            }
            Node::Neg(a) => g.neg(d(a)),
            Node::Powi(a, n) => {
                let da = d(a);
                if g.is_zero(da) {
                    return da;
                }
                // d aⁿ = n aⁿ⁻¹ da
                let n_c = g.constant(f64::from(n));
                let power = g.powi(a, n - 1);
                let factor = g.mul(n_c, power);
                g.mul(factor, da)
            }
            Node::Powf(a, b) => powf_rule(g, e, a, b, d(a), d(b)),
            Node::Call1(f, a) => {
                let da = d(a);
                if g.is_zero(da) {
                    return da;
                }
                call1_rule(g, f, e, a, da)
            }
            Node::Call2(f, a, b) => call2_rule(g, f, e, a, b, d(a), d(b)),
        }
    }
}

/// `d aᵇ` for `e = a.powf(b)`: `b aᵇ⁻¹ da` when `b` is constant, `e ln(a) db` when `a` is, and
/// `e (db ln a + b da / a)` in general.
fn powf_rule(g: &mut Graph, e: ExprId, a: ExprId, b: ExprId, da: ExprId, db: ExprId) -> ExprId {
    if g.is_zero(db) {
        if g.is_zero(da) {
            return da;
        }
        let one = g.constant(1.0);
        let b_minus_1 = g.sub(b, one);
        let power = g.powf(a, b_minus_1);
        let factor = g.mul(b, power);
        return g.mul(factor, da);
    }
    let ln_a = g.call1(Func1::Ln, a);
    let db_ln_a = g.mul(db, ln_a);
    let inner = if g.is_zero(da) {
        db_ln_a
    } else {
        let b_da = g.mul(b, da);
        let b_da_over_a = g.div(b_da, a);
        g.add(db_ln_a, b_da_over_a)
    };
    g.mul(e, inner)
}

/// `d f(a)` for `e = f(a)`, with `da ≠ 0`.
fn call1_rule(g: &mut Graph, f: Func1, e: ExprId, a: ExprId, da: ExprId) -> ExprId {
    let one = g.constant(1.0);
    // (1 − a)(1 + a) = 1 − a², without cancellation near |a| = 1.
    let one_minus_a_sq = |g: &mut Graph| {
        let l = g.sub(one, a);
        let r = g.add(one, a);
        g.mul(l, r)
    };
    match f {
        Func1::Sqrt => {
            let two = g.constant(2.0);
            let den = g.mul(two, e);
            g.div(da, den)
        }
        Func1::Cbrt => {
            let three = g.constant(3.0);
            let e2 = g.powi(e, 2);
            let den = g.mul(three, e2);
            g.div(da, den)
        }
        Func1::Exp => g.mul(e, da),
        Func1::ExpM1 => {
            let exp_a = g.call1(Func1::Exp, a);
            g.mul(exp_a, da)
        }
        Func1::Ln => g.div(da, a),
        Func1::Ln1p => {
            let den = g.add(one, a);
            g.div(da, den)
        }
        Func1::Log10 | Func1::Log2 => {
            let ln_base = g.constant(if f == Func1::Log10 {
                core::f64::consts::LN_10
            } else {
                core::f64::consts::LN_2
            });
            let den = g.mul(ln_base, a);
            g.div(da, den)
        }
        Func1::Sin => {
            let cos_a = g.call1(Func1::Cos, a);
            g.mul(cos_a, da)
        }
        Func1::Cos => {
            let sin_a = g.call1(Func1::Sin, a);
            let p = g.mul(sin_a, da);
            g.neg(p)
        }
        Func1::Tan => {
            // 1 + tan² a
            let e2 = g.powi(e, 2);
            let factor = g.add(one, e2);
            g.mul(factor, da)
        }
        Func1::Asin | Func1::Acos => {
            let s = one_minus_a_sq(g);
            let den = g.call1(Func1::Sqrt, s);
            let q = g.div(da, den);
            if f == Func1::Asin {
                q
            } else {
                g.neg(q)
            }
        }
        Func1::Atan => {
            let a2 = g.powi(a, 2);
            let den = g.add(one, a2);
            g.div(da, den)
        }
        Func1::Sinh => {
            let cosh_a = g.call1(Func1::Cosh, a);
            g.mul(cosh_a, da)
        }
        Func1::Cosh => {
            let sinh_a = g.call1(Func1::Sinh, a);
            g.mul(sinh_a, da)
        }
        Func1::Tanh => {
            // 1 − tanh² a
            let e2 = g.powi(e, 2);
            let factor = g.sub(one, e2);
            g.mul(factor, da)
        }
        Func1::Asinh => {
            let a2 = g.powi(a, 2);
            let s = g.add(a2, one);
            let den = g.call1(Func1::Sqrt, s);
            g.div(da, den)
        }
        Func1::Acosh => {
            // √((a − 1)(a + 1)) = √(a² − 1), without cancellation near a = 1.
            let l = g.sub(a, one);
            let r = g.add(a, one);
            let s = g.mul(l, r);
            let den = g.call1(Func1::Sqrt, s);
            g.div(da, den)
        }
        Func1::Atanh => {
            let den = one_minus_a_sq(g);
            g.div(da, den)
        }
        Func1::Recip => {
            // d (1/a) = −(1/a)² da
            let e2 = g.powi(e, 2);
            let p = g.mul(e2, da);
            g.neg(p)
        }
        Func1::Abs => {
            let sign = g.call1(Func1::Signum, a);
            g.mul(sign, da)
        }
        Func1::Signum => g.constant(0.0),
    }
}

/// `d f(a, b)` for `e = a.f(b)`.
fn call2_rule(
    g: &mut Graph,
    f: Func2,
    e: ExprId,
    a: ExprId,
    b: ExprId,
    da: ExprId,
    db: ExprId,
) -> ExprId {
    if g.is_zero(da) && g.is_zero(db) {
        return da;
    }
    match f {
        // atan2(y, x) with y = a, x = b:  (x dy − y dx) / (x² + y²)
        Func2::Atan2 => {
            let x_dy = g.mul(b, da);
            let y_dx = g.mul(a, db);
            let num = g.sub(x_dy, y_dx);
            let x2 = g.powi(b, 2);
            let y2 = g.powi(a, 2);
            let den = g.add(x2, y2);
            g.div(num, den)
        }
        // hypot(a, b) = e:  (a da + b db) / e
        Func2::Hypot => {
            let a_da = g.mul(a, da);
            let b_db = g.mul(b, db);
            let num = g.add(a_da, b_db);
            g.div(num, e)
        }
    }
}

impl Graph {
    /// `d root / d var`. For several roots or variables, use [`Derivative`] or
    /// [`Graph::jacobian`], which share work.
    pub fn diff(&mut self, root: ExprId, var: VarId) -> ExprId {
        Derivative::new(var).of(self, root)
    }
}
