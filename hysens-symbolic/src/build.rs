//! Simplifying constructors: the only way nodes enter a [`Graph`].
//!
//! Each constructor applies a few local rewrites before hash-consing the node, so that
//! derivatives stay small without a separate simplification pass:
//!
//! - **constant folding** when every operand is a constant and the result is finite (a
//!   non-finite result, such as `ln(-1)`, is kept symbolic so it fails at run time exactly as the
//!   user's Rust would);
//! - **neutral and absorbing elements**: `a + 0`, `a * 1`, `a * 0`, `a / 1`, `a.powi(1)`, …;
//! - **sign tidying**: `-(-a) = a`, `a + (-b) = a - b`, `(-a) * b = -(a * b)`, `-(a - b) = b - a`;
//! - **power tidying**: `a * a = a²`, `aᵐ · aⁿ = aᵐ⁺ⁿ`, `(aᵐ)ⁿ = aᵐⁿ`, `(√a)² = a`;
//! - **chain-rule tidying**: `c₁ · (c₂ · a) = (c₁c₂) · a`, so the constant factors that the chain
//!   rule produces collapse into one;
//! - **canonical order** of commutative operands (constants first in products, last in sums,
//!   otherwise by id), so `a * b` and `b * a` are one node.
//!
//! Sums are never re-associated: `(a + b) + c` and `a + (b + c)` differ in floating point, and the
//! engine evaluates exactly the expression the user wrote. `0 * a = 0` is applied although
//! `0 * inf` is NaN in IEEE arithmetic: derivatives are taken where the expression is finite.
//! For the same reason signed zeros are not preserved (`-0.0` is stored as `0.0`, and `0 * a`
//! is `+0` even for negative `a`); this only shows on branch cuts such as `atan2(±0, x < 0)`
//! or in `1 / ±0`, where a model would not be differentiable anyway.

use crate::function::{Func1, Func2};
use crate::graph::{ExprId, Graph, Node};

impl Graph {
    /// The constant `value` (`-0.0` is stored as `0.0`).
    pub fn constant(&mut self, value: f64) -> ExprId {
        let value = if value == 0.0 { 0.0 } else { value };
        self.intern(Node::Const(value.to_bits()))
    }

    /// The constant folded from an operation, if it is finite.
    fn folded(&mut self, value: f64) -> Option<ExprId> {
        value.is_finite().then(|| self.constant(value))
    }

    /// `a + b`
    pub fn add(&mut self, a: ExprId, b: ExprId) -> ExprId {
        match (self.as_const(a), self.as_const(b)) {
            (Some(x), Some(y)) => {
                if let Some(c) = self.folded(x + y) {
                    return c;
                }
            }
            (Some(0.0), None) => return b,
            (None, Some(0.0)) => return a,
            _ => {}
        }
        if a == b {
            let two = self.constant(2.0);
            return self.mul(two, a);
        }
        // a + (−b) = a − b, also for a negative constant or constant factor.
        if let Some(nb) = self.cheap_negation(b) {
            return self.sub(a, nb);
        }
        if let Some(na) = self.cheap_negation(a) {
            return self.sub(b, na);
        }
        // Canonical order: constants last, otherwise ascending id.
        let (a, b) = if self.as_const(a).is_some() || (self.as_const(b).is_none() && b < a) {
            (b, a)
        } else {
            (a, b)
        };
        self.intern(Node::Add(a, b))
    }

    /// `a - b`
    pub fn sub(&mut self, a: ExprId, b: ExprId) -> ExprId {
        match (self.as_const(a), self.as_const(b)) {
            (Some(x), Some(y)) => {
                if let Some(c) = self.folded(x - y) {
                    return c;
                }
            }
            (Some(0.0), None) => return self.neg(b),
            (None, Some(0.0)) => return a,
            _ => {}
        }
        // a − a = 0, unless `a` is a non-finite constant (∞ − ∞ is NaN).
        if a == b && self.as_const(a).is_none() {
            return self.constant(0.0);
        }
        if let Some(nb) = self.cheap_negation(b) {
            return self.add(a, nb);
        }
        if let Node::Neg(na) = self.node(a) {
            let sum = self.add(na, b);
            return self.neg(sum);
        }
        self.intern(Node::Sub(a, b))
    }

    /// `-a`
    pub fn neg(&mut self, a: ExprId) -> ExprId {
        match self.node(a) {
            Node::Const(bits) => self.constant(-f64::from_bits(bits)),
            Node::Neg(x) => x,
            Node::Sub(x, y) => self.sub(y, x),
            Node::Mul(c, x) if self.as_const(c).is_some() => {
                let minus_c = self.neg(c);
                self.mul(minus_c, x)
            }
            _ => self.intern(Node::Neg(a)),
        }
    }

    /// `a * b`
    pub fn mul(&mut self, a: ExprId, b: ExprId) -> ExprId {
        // Constants first.
        let (a, b) = if self.as_const(b).is_some() && self.as_const(a).is_none() {
            (b, a)
        } else {
            (a, b)
        };
        match (self.as_const(a), self.as_const(b)) {
            (Some(x), Some(y)) => {
                if let Some(c) = self.folded(x * y) {
                    return c;
                }
            }
            (Some(x), None) => {
                if x == 0.0 {
                    return a;
                }
                if x == 1.0 {
                    return b;
                }
                if x == -1.0 {
                    return self.neg(b);
                }
                // c₁ · (c₂ · e) = (c₁c₂) · e
                if let Node::Mul(c2, e) = self.node(b) {
                    if let Some(y) = self.as_const(c2) {
                        if let Some(c) = self.folded(x * y) {
                            return self.mul(c, e);
                        }
                    }
                }
                // c · (−e) = (−c) · e
                if let Node::Neg(e) = self.node(b) {
                    let minus_c = self.constant(-x);
                    return self.mul(minus_c, e);
                }
            }
            _ => {}
        }
        match (self.node(a), self.node(b)) {
            (Node::Neg(x), Node::Neg(y)) => return self.mul(x, y),
            (Node::Neg(x), _) => {
                let p = self.mul(x, b);
                return self.neg(p);
            }
            (_, Node::Neg(y)) => {
                let p = self.mul(a, y);
                return self.neg(p);
            }
            _ => {}
        }
        if let Some((base, m, n)) = self.same_base_powers(a, b) {
            if let Some(k) = m.checked_add(n) {
                return self.powi(base, k);
            }
        }
        let (a, b) = if self.as_const(a).is_none() && b < a {
            (b, a)
        } else {
            (a, b)
        };
        self.intern(Node::Mul(a, b))
    }

    /// `−e` when it costs no new operation: the operand of a negation, the opposite of a
    /// negative constant, or a product whose constant factor is negative with that factor's
    /// sign flipped. Negating a float is exact, so rewriting `a + (−c)` as `a − c` changes no
    /// value.
    fn cheap_negation(&mut self, e: ExprId) -> Option<ExprId> {
        match self.node(e) {
            Node::Neg(x) => Some(x),
            Node::Const(bits) if f64::from_bits(bits) < 0.0 => {
                Some(self.constant(-f64::from_bits(bits)))
            }
            Node::Mul(c, x) => match self.as_const(c) {
                Some(v) if v < 0.0 => {
                    let minus_c = self.constant(-v);
                    Some(self.mul(minus_c, x))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// If `a = eᵐ` and `b = eⁿ` for one base `e` (a bare `e` counting as `e¹`), returns
    /// `(e, m, n)`.
    fn same_base_powers(&self, a: ExprId, b: ExprId) -> Option<(ExprId, i32, i32)> {
        let split = |id: ExprId| match self.node(id) {
            Node::Powi(e, k) => (e, k),
            _ => (id, 1),
        };
        let ((ea, m), (eb, n)) = (split(a), split(b));
        (ea == eb && self.as_const(ea).is_none()).then_some((ea, m, n))
    }

    /// `a / b`
    pub fn div(&mut self, a: ExprId, b: ExprId) -> ExprId {
        match (self.as_const(a), self.as_const(b)) {
            (Some(x), Some(y)) => {
                if let Some(c) = self.folded(x / y) {
                    return c;
                }
            }
            (Some(0.0), None) => return a,
            (_, Some(1.0)) => return a,
            (_, Some(-1.0)) => return self.neg(a),
            _ => {}
        }
        // a / a = 1, unless `a` is a constant whose quotient did not fold (0/0, ∞/∞ are NaN).
        if a == b && self.as_const(a).is_none() {
            return self.constant(1.0);
        }
        if let Node::Neg(x) = self.node(a) {
            let q = self.div(x, b);
            return self.neg(q);
        }
        if let Node::Neg(y) = self.node(b) {
            let q = self.div(a, y);
            return self.neg(q);
        }
        self.intern(Node::Div(a, b))
    }

    /// `a.powi(n)`
    pub fn powi(&mut self, a: ExprId, n: i32) -> ExprId {
        if n == 0 {
            return self.constant(1.0);
        }
        if n == 1 {
            return a;
        }
        if let Some(x) = self.as_const(a) {
            if let Some(c) = self.folded(x.powi(n)) {
                return c;
            }
        }
        match self.node(a) {
            Node::Powi(e, m) => {
                if let Some(k) = m.checked_mul(n) {
                    return self.powi(e, k);
                }
            }
            Node::Neg(e) => {
                let p = self.powi(e, n);
                return if n % 2 == 0 { p } else { self.neg(p) };
            }
            // (√e)² = e on the domain of √, e ≥ 0.
            Node::Call1(Func1::Sqrt, e) if n == 2 => return e,
            _ => {}
        }
        self.intern(Node::Powi(a, n))
    }

    /// `a.powf(b)`
    pub fn powf(&mut self, a: ExprId, b: ExprId) -> ExprId {
        match (self.as_const(a), self.as_const(b)) {
            (Some(x), Some(y)) => {
                if let Some(c) = self.folded(x.powf(y)) {
                    return c;
                }
            }
            // powf(x, 0) = 1 for every x, NaN included (IEEE 754 pow).
            (_, Some(0.0)) => return self.constant(1.0),
            (_, Some(1.0)) => return a,
            _ => {}
        }
        self.intern(Node::Powf(a, b))
    }

    /// `f(a)` for a one-argument function.
    pub fn call1(&mut self, f: Func1, a: ExprId) -> ExprId {
        if let Some(x) = self.as_const(a) {
            if let Some(c) = self.folded(f.apply(x)) {
                return c;
            }
        }
        match (f, self.node(a)) {
            (Func1::Ln, Node::Call1(Func1::Exp, e)) => e,
            (Func1::Abs, Node::Neg(e)) => self.call1(Func1::Abs, e),
            (Func1::Abs, Node::Call1(Func1::Abs, _)) => a,
            (Func1::Signum, Node::Call1(Func1::Signum, _)) => a,
            _ => self.intern(Node::Call1(f, a)),
        }
    }

    /// `a.f(b)` for a two-argument function.
    pub fn call2(&mut self, f: Func2, a: ExprId, b: ExprId) -> ExprId {
        if let (Some(x), Some(y)) = (self.as_const(a), self.as_const(b)) {
            if let Some(c) = self.folded(f.apply(x, y)) {
                return c;
            }
        }
        self.intern(Node::Call2(f, a, b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (Graph, ExprId, ExprId) {
        let mut g = Graph::new();
        let x = g.var("x");
        let y = g.var("y");
        (g, x, y)
    }

    #[test]
    fn structurally_equal_expressions_are_one_node() {
        let (mut g, x, y) = setup();
        let a = g.mul(x, y);
        let b = g.mul(y, x);
        assert_eq!(a, b, "commutative operands are ordered canonically");
        let s1 = g.add(a, x);
        let s2 = g.add(x, b);
        assert_eq!(s1, s2);
        let before = g.len();
        let sin1 = g.call1(Func1::Sin, s1);
        let sin2 = g.call1(Func1::Sin, s2);
        assert_eq!(sin1, sin2);
        assert_eq!(g.len(), before + 1, "the second sin is not a new node");
    }

    #[test]
    fn constants_fold_only_to_finite_values() {
        let mut g = Graph::new();
        let two = g.constant(2.0);
        let three = g.constant(3.0);
        let s = g.mul(two, three);
        assert_eq!(g.as_const(s), Some(6.0));
        let minus_one = g.constant(-1.0);
        let ln = g.call1(Func1::Ln, minus_one);
        assert_eq!(
            g.as_const(ln),
            None,
            "ln(-1) stays symbolic: NaN at run time"
        );
        assert!(g.eval(ln, &[]).is_nan());
        let zero = g.constant(0.0);
        let q = g.div(two, zero);
        assert_eq!(g.as_const(q), None, "2/0 stays symbolic");
        let neg_zero = g.constant(-0.0);
        assert_eq!(neg_zero, zero, "-0.0 and 0.0 are one constant");
    }

    #[test]
    fn neutral_and_absorbing_elements_vanish() {
        let (mut g, x, _) = setup();
        let zero = g.constant(0.0);
        let one = g.constant(1.0);
        let minus_one = g.constant(-1.0);
        assert_eq!(g.add(x, zero), x);
        assert_eq!(g.add(zero, x), x);
        assert_eq!(g.sub(x, zero), x);
        assert_eq!(g.mul(one, x), x);
        assert_eq!(g.mul(x, zero), zero);
        assert_eq!(g.div(x, one), x);
        assert_eq!(g.div(zero, x), zero);
        assert_eq!(g.powi(x, 1), x);
        assert_eq!(g.powi(x, 0), one);
        assert_eq!(g.powf(x, one), x);
        let neg_x = g.neg(x);
        assert_eq!(g.mul(minus_one, x), neg_x);
        assert_eq!(g.sub(zero, x), neg_x);
        assert_eq!(g.sub(x, x), zero);
        assert_eq!(g.div(x, x), one);
    }

    #[test]
    fn signs_are_tidied() {
        let (mut g, x, y) = setup();
        let nx = g.neg(x);
        let ny = g.neg(y);
        assert_eq!(g.neg(nx), x);
        let x_minus_y = g.sub(x, y);
        assert_eq!(g.add(x, ny), x_minus_y);
        let y_minus_x = g.sub(y, x);
        assert_eq!(g.neg(x_minus_y), y_minus_x);
        let xy = g.mul(x, y);
        assert_eq!(g.mul(nx, ny), xy);
        let neg_xy = g.neg(xy);
        assert_eq!(g.mul(nx, y), neg_xy);
        let x_plus_y = g.add(x, y);
        assert_eq!(g.sub(x, ny), x_plus_y);
        let q = g.div(x, y);
        let neg_q = g.neg(q);
        assert_eq!(g.div(nx, y), neg_q);
        assert_eq!(g.div(x, ny), neg_q);
    }

    #[test]
    fn powers_and_constant_factors_collapse() {
        let (mut g, x, _) = setup();
        let x2 = g.powi(x, 2);
        assert_eq!(g.mul(x, x), x2);
        let x3 = g.powi(x, 3);
        assert_eq!(g.mul(x2, x), x3);
        let x5 = g.powi(x, 5);
        assert_eq!(g.mul(x2, x3), x5);
        let x6 = g.powi(x, 6);
        assert_eq!(g.powi(x2, 3), x6);
        let sqrt_x = g.call1(Func1::Sqrt, x);
        assert_eq!(g.powi(sqrt_x, 2), x);
        // Chain-rule tidying: 3 · (−2 · x) = −6 · x.
        let three = g.constant(3.0);
        let minus_two = g.constant(-2.0);
        let inner = g.mul(minus_two, x);
        let outer = g.mul(three, inner);
        let minus_six = g.constant(-6.0);
        assert_eq!(outer, g.mul(minus_six, x));
        // A negated product with a constant factor folds the sign into the constant.
        let six = g.constant(6.0);
        assert_eq!(g.neg(outer), g.mul(six, x));
    }

    #[test]
    fn undefined_constant_quotients_stay_undefined() {
        let mut g = Graph::new();
        let zero = g.constant(0.0);
        let nan = g.div(zero, zero);
        assert!(g.eval(nan, &[]).is_nan(), "0/0 is NaN, not 1");
        // A literal that overflows to ∞ (e.g. `1e400`) is a constant node.
        let inf = g.constant(f64::INFINITY);
        let diff = g.sub(inf, inf);
        assert!(g.eval(diff, &[]).is_nan(), "∞ − ∞ is NaN, not 0");
    }

    #[test]
    fn negative_constants_and_factors_become_subtractions() {
        let (mut g, x, y) = setup();
        let minus_quarter = g.constant(-0.25);
        let quarter = g.constant(0.25);
        let sum = g.add(x, minus_quarter);
        assert_eq!(sum, g.sub(x, quarter));
        let minus_three = g.constant(-3.0);
        let m = g.mul(minus_three, y);
        let three = g.constant(3.0);
        let p = g.mul(three, y);
        let diff = g.sub(x, m);
        assert_eq!(diff, g.add(x, p), "x − (−3y) = x + 3y");
    }

    #[test]
    fn sums_are_not_reassociated() {
        let (mut g, x, y) = setup();
        let one = g.constant(1.0);
        let a = g.add(x, y);
        let left = g.add(a, one);
        let b = g.add(y, one);
        let right = g.add(x, b);
        assert_ne!(left, right, "(x + y) + 1 and x + (y + 1) round differently");
    }
}
