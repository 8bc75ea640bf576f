//! Gradients, Jacobians, their structural sparsity, and Jacobian–vector products.
//!
//! The runtime needs more than `J`: forward sensitivities need `J·v` and adjoints need `vᵀ·J`.
//! Both are built here as expressions from the structurally nonzero entries only, so a kernel
//! for `J·v` costs what the sparsity pattern costs.

use crate::diff::Derivative;
use crate::graph::{ExprId, Graph, VarId};

/// A dense matrix of expressions, `entry(i, j) = ∂ fᵢ / ∂ xⱼ`, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Jacobian {
    rows: usize,
    cols: usize,
    entries: Vec<ExprId>,
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
        self.entries[i * self.cols + j]
    }

    /// All entries, row-major.
    pub fn entries(&self) -> &[ExprId] {
        &self.entries
    }

    /// The structurally nonzero entries as `(row, column, expression)`, row-major.
    pub fn nonzeros(&self, graph: &Graph) -> Vec<(usize, usize, ExprId)> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, &e)| !graph.is_zero(e))
            .map(|(k, &e)| (k / self.cols, k % self.cols, e))
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
    /// all rows, so common subexpressions are differentiated once per variable.
    pub fn jacobian(&mut self, fs: &[ExprId], vars: &[VarId]) -> Jacobian {
        let mut entries = vec![ExprId(0); fs.len() * vars.len()];
        let zero = self.constant(0.0);
        for (j, &v) in vars.iter().enumerate() {
            let mut d = Derivative::new(v);
            for (i, &f) in fs.iter().enumerate() {
                entries[i * vars.len() + j] = if self.depends_on(f, v) {
                    d.of(self, f)
                } else {
                    zero
                };
            }
        }
        Jacobian {
            rows: fs.len(),
            cols: vars.len(),
            entries,
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
