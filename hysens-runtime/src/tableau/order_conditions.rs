//! Test support: generic Butcher order conditions over rooted trees.
//!
//! A Runge–Kutta method with weights `w` has order `p` iff for every rooted tree `τ` with
//! `|τ| ≤ p` nodes, `wᵀ Φ(τ) = 1/γ(τ)` (Butcher; Hairer, Nørsett & Wanner I, Thm. II.2.13),
//! where the stage vector of a tree `τ = [τ_1, …, τ_m]` (root with subtrees `τ_k`) is
//! `Φ(τ)_i = Π_k (A Φ(τ_k))_i` (the single node gives the all-ones vector) and the density is
//! `γ(τ) = |τ| Π_k γ(τ_k)`. Trees are enumerated by grafting a leaf onto every node of every
//! tree of one order lower and removing duplicates via a canonical form.

extern crate std;
use super::Tableau;
use std::string::String;
use std::vec::Vec;

/// A rooted tree: the list of its root's subtrees, kept in canonical (sorted) order.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tree(pub Vec<Tree>);

impl Tree {
    fn canonicalize(&mut self) {
        for c in &mut self.0 {
            c.canonicalize();
        }
        self.0.sort();
    }

    fn order(&self) -> usize {
        1 + self.0.iter().map(Tree::order).sum::<usize>()
    }

    fn density(&self) -> f64 {
        self.order() as f64 * self.0.iter().map(Tree::density).product::<f64>()
    }

    /// All trees obtained by adding one leaf to some node of `self`.
    fn grafts(&self) -> Vec<Tree> {
        let mut out = Vec::new();
        let mut here = self.clone();
        here.0.push(Tree(Vec::new()));
        out.push(here);
        for k in 0..self.0.len() {
            for g in self.0[k].grafts() {
                let mut t = self.clone();
                t.0[k] = g;
                out.push(t);
            }
        }
        out
    }

    fn describe(&self) -> String {
        let mut s = String::from("[");
        for c in &self.0 {
            s.push_str(&c.describe());
        }
        s.push(']');
        s
    }

    /// Stage vector `Φ(τ)` (see module docs).
    fn phi<const S: usize>(&self, t: &Tableau<S>) -> [f64; S] {
        let mut v = [1.0; S];
        for child in &self.0 {
            let u = child.phi(t);
            for (i, vi) in v.iter_mut().enumerate() {
                let au: f64 = (0..S).map(|j| t.a[i][j] * u[j]).sum();
                *vi *= au;
            }
        }
        v
    }
}

/// All rooted trees with exactly `n ≥ 1` nodes.
pub fn rooted_trees(n: usize) -> Vec<Tree> {
    let mut level = std::vec![Tree(Vec::new())];
    for _ in 1..n {
        let mut next: Vec<Tree> = Vec::new();
        for t in &level {
            for mut g in t.grafts() {
                g.canonicalize();
                if !next.contains(&g) {
                    next.push(g);
                }
            }
        }
        level = next;
    }
    level
}

/// Checks `wᵀΦ(τ) = 1/γ(τ)` for all trees of order `≤ p` with absolute tolerance `tol`.
/// Returns the first violated tree (as a bracket string) and its defect.
pub fn check_order<const S: usize>(
    t: &Tableau<S>,
    w: &[f64; S],
    p: usize,
    tol: f64,
) -> Result<(), (String, f64)> {
    for n in 1..=p {
        for tree in rooted_trees(n) {
            let phi = tree.phi(t);
            let lhs: f64 = w.iter().zip(phi.iter()).map(|(a, b)| a * b).sum();
            let defect = lhs - 1.0 / tree.density();
            if defect.abs() > tol {
                return Err((tree.describe(), defect));
            }
        }
    }
    Ok(())
}
