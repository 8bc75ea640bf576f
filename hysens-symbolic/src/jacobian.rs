//! Gradients, Jacobians, their structural sparsity, and Jacobian–vector products.
//!
//! The runtime needs more than `J`: forward sensitivities need `J·v` and adjoints need `vᵀ·J`.
//! Both are built here as expressions from the structurally nonzero entries only, so a kernel
//! for `J·v` costs what the sparsity pattern costs.

use std::collections::BTreeMap;

use crate::diff::Derivative;
use crate::graph::{ExprId, Graph, VarId};

/// The matrix of expressions `entry(i, j) = ∂ fᵢ / ∂ xⱼ`, stored by rows (compressed sparse
/// rows): only the entries whose function reads the variable are kept, so a Jacobian of `N`
/// functions of `N` variables with `O(N)` nonzeros costs `O(N)` to build and to store — the
/// 5,000-state models of the scaling benchmark have 25 million entries and 15,000 nonzeros.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Jacobian {
    rows: usize,
    cols: usize,
    /// `row_start[i]..row_start[i + 1]` indexes row `i`'s entries in `kept`.
    row_start: Vec<usize>,
    /// `(column, expression)` of the kept entries, row by row, columns ascending.
    kept: Vec<(usize, ExprId)>,
    /// The constant `0`, every entry not kept.
    zero: ExprId,
}

/// The positions of the structurally nonzero entries of a [`Jacobian`], row by row.
///
/// An entry is a structural zero when its expression simplified to the constant `0`: it is zero
/// for every value of every variable. Other entries may still evaluate to zero at some points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sparsity {
    /// Number of rows (functions).
    pub rows: usize,
    /// Number of columns (variables).
    pub cols: usize,
    /// `(row, column)` of every structural nonzero, in row-major order.
    pub nonzeros: Vec<(usize, usize)>,
}

impl Jacobian {
    /// Number of rows (functions).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns (variables).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// `∂ fᵢ / ∂ xⱼ`. Panics if `i` or `j` is out of range, like slice indexing.
    pub fn entry(&self, i: usize, j: usize) -> ExprId {
        assert!(
            i < self.rows && j < self.cols,
            "Jacobian index out of range"
        );
        let row = &self.kept[self.row_start[i]..self.row_start[i + 1]];
        row.binary_search_by_key(&j, |&(c, _)| c)
            .map_or(self.zero, |k| row[k].1)
    }

    /// All entries, row-major (`rows × cols`, the zeros included).
    pub fn entries(&self) -> Vec<ExprId> {
        let mut dense = vec![self.zero; self.rows * self.cols];
        for (i, j, e) in self.kept_entries() {
            dense[i * self.cols + j] = e;
        }
        dense
    }

    /// The kept entries as `(row, column, expression)`, row-major: every entry whose function
    /// reads the variable, including derivatives that simplified to zero.
    fn kept_entries(&self) -> impl Iterator<Item = (usize, usize, ExprId)> + '_ {
        (0..self.rows).flat_map(move |i| {
            self.kept[self.row_start[i]..self.row_start[i + 1]]
                .iter()
                .map(move |&(j, e)| (i, j, e))
        })
    }

    /// The structurally nonzero entries as `(row, column, expression)`, row-major.
    pub fn nonzeros(&self, graph: &Graph) -> Vec<(usize, usize, ExprId)> {
        self.kept_entries()
            .filter(|&(_, _, e)| !graph.is_zero(e))
            .collect()
    }

    /// The structural sparsity pattern.
    pub fn sparsity(&self, graph: &Graph) -> Sparsity {
        Sparsity {
            rows: self.rows,
            cols: self.cols,
            nonzeros: self
                .nonzeros(graph)
                .into_iter()
                .map(|(i, j, _)| (i, j))
                .collect(),
        }
    }
}

impl Graph {
    /// `∇f = (∂f/∂x₁, …, ∂f/∂xₙ)`.
    pub fn gradient(&mut self, f: ExprId, vars: &[VarId]) -> Vec<ExprId> {
        vars.iter()
            .map(|&v| Derivative::new(v).of(self, f))
            .collect()
    }

    /// `∂fᵢ/∂xⱼ` for every function and variable. One [`Derivative`] per variable is shared by
    /// all rows, so common subexpressions are differentiated once per variable. Only the
    /// functions that read a variable are differentiated by it (found from each function's
    /// dependency list, not by testing every pair), column by column, rows in order.
    pub fn jacobian(&mut self, fs: &[ExprId], vars: &[VarId]) -> Jacobian {
        let zero = self.constant(0.0);
        let mut columns_of: BTreeMap<VarId, Vec<usize>> = BTreeMap::new();
        for (j, &v) in vars.iter().enumerate() {
            columns_of.entry(v).or_default().push(j);
        }
        // The rows that read each column's variable, ascending.
        let mut rows_of = vec![Vec::new(); vars.len()];
        for (i, &f) in fs.iter().enumerate() {
            for v in self.dependencies(f) {
                for &j in columns_of.get(v).into_iter().flatten() {
                    rows_of[j].push(i);
                }
            }
        }
        let mut triplets = Vec::new();
        for (j, &v) in vars.iter().enumerate() {
            let mut d = Derivative::new(v);
            for &i in &rows_of[j] {
                triplets.push((i, j, d.of(self, fs[i])));
            }
        }
        triplets.sort_unstable_by_key(|&(i, j, _)| (i, j));
        let mut row_start = vec![0; fs.len() + 1];
        for &(i, _, _) in &triplets {
            row_start[i + 1] += 1;
        }
        for i in 0..fs.len() {
            row_start[i + 1] += row_start[i];
        }
        Jacobian {
            rows: fs.len(),
            cols: vars.len(),
            row_start,
            kept: triplets.into_iter().map(|(_, j, e)| (j, e)).collect(),
            zero,
        }
    }

    /// The directional derivative `J·v`: `(J·v)ᵢ = Σⱼ ∂fᵢ/∂xⱼ · vⱼ` over the structural
    /// nonzeros of `J`. `v` holds one expression per variable (typically fresh variables
    /// standing for a sensitivity vector).
    ///
    /// Panics if `v.len() != jacobian.cols()`.
    pub fn jacobian_vector_product(&mut self, jacobian: &Jacobian, v: &[ExprId]) -> Vec<ExprId> {
        assert_eq!(
            v.len(),
            jacobian.cols(),
            "J·v needs one entry of v per column"
        );
        let zero = self.constant(0.0);
        let mut out = vec![zero; jacobian.rows()];
        for (i, j, e) in jacobian.nonzeros(self) {
            let term = self.mul(e, v[j]);
            out[i] = self.add(out[i], term);
        }
        out
    }

    /// The transposed product `wᵀ·J`: `(wᵀJ)ⱼ = Σᵢ wᵢ · ∂fᵢ/∂xⱼ` over the structural nonzeros
    /// of `J`, as the adjoint needs it.
    ///
    /// Panics if `w.len() != jacobian.rows()`.
    pub fn vector_jacobian_product(&mut self, w: &[ExprId], jacobian: &Jacobian) -> Vec<ExprId> {
        assert_eq!(
            w.len(),
            jacobian.rows(),
            "wᵀ·J needs one entry of w per row"
        );
        let zero = self.constant(0.0);
        let mut out = vec![zero; jacobian.cols()];
        for (i, j, e) in jacobian.nonzeros(self) {
            let term = self.mul(w[i], e);
            out[j] = self.add(out[j], term);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::function::Func1;
    use crate::graph::{ExprId, Graph, VarId};

    /// The rows-and-dependencies construction gives, entry for entry, the derivative of every
    /// (function, variable) pair (the same hash-consed node, or the constant 0): with a
    /// function of no variable, a derivative that cancels, a variable no function reads, and a
    /// variable listed twice.
    #[test]
    fn every_entry_is_the_pairwise_derivative() {
        let mut g = Graph::new();
        let (x, y, z) = (g.var("x"), g.var("y"), g.var("z"));
        g.var("w"); // a variable no function reads
        let xy = g.mul(x, y);
        let three = g.constant(3.0);
        let sin_x = g.call1(Func1::Sin, x);
        let yz = g.mul(y, z);
        let yy = g.mul(y, y);
        let y3 = g.mul(three, y);
        let fs = [
            g.add(xy, z),
            sin_x,
            three,
            g.sub(yy, yy), // simplifies to 0
            g.add(x, yz),
            g.powi(y3, 2),
        ];
        let id = |g: &Graph, name: &str| -> VarId { g.var_id(name).expect("declared") };
        let vars = [
            id(&g, "x"),
            id(&g, "y"),
            id(&g, "x"),
            id(&g, "w"),
            id(&g, "z"),
        ];
        let jac = g.jacobian(&fs, &vars);
        let zero = g.constant(0.0);
        let mut dense: Vec<ExprId> = Vec::new();
        for &f in &fs {
            for &v in &vars {
                dense.push(if g.depends_on(f, v) {
                    g.diff(f, v)
                } else {
                    zero
                });
            }
        }
        assert_eq!(jac.entries(), dense);
        for (i, _) in fs.iter().enumerate() {
            for (j, _) in vars.iter().enumerate() {
                assert_eq!(
                    jac.entry(i, j),
                    dense[i * vars.len() + j],
                    "entry ({i}, {j})"
                );
            }
        }
        // Columns 0 and 2 are both x; w (column 3) is read by no function.
        let nonzeros: Vec<(usize, usize)> =
            jac.nonzeros(&g).iter().map(|&(i, j, _)| (i, j)).collect();
        assert_eq!(
            nonzeros,
            [
                (0, 0),
                (0, 1),
                (0, 2),
                (0, 4),
                (1, 0),
                (1, 2),
                (4, 0),
                (4, 1),
                (4, 2),
                (4, 4),
                (5, 1)
            ]
        );
    }
}
