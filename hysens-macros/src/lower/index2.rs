//! Hessenberg index-2 modes (`#[mode(index2)]`; Serban & Recuero 2019, §3.3, Eq. 15):
//! `y' = f(t, y, z, p)`, `0 = k(t, y, p)`, whose algebraic equations `g` are the constraints
//! `k`. Their algebraic variables are defined by the hidden constraint, the constraints'
//! derivative along the solution,
//!
//! `H = k_y f + k_t = 0`, `Hᵢ = Σⱼ (∂kᵢ/∂yⱼ) fⱼ + ∂kᵢ/∂t`,
//!
//! built here in the model's graph (the kernels differentiate it for its partials
//! `H_y, H_z, H_p, H_t`). A mode may also mix in equations that read `z`, `0 = g(t, y, z, p)`:
//! index-1 equations next to the constraints, such as a mechanism's equations of motion
//! `M a + Φ_qᵀ λ = F` with its accelerations `a` as algebraic variables next to its position
//! and velocity constraints (so that `M` need not be inverted). The condition that defines `z`
//! is then `c = [g on those rows; H on the constraints]`; an equation is a constraint when its
//! expression depends on no algebraic variable.
//!
//! One check needs the equations' symbolic dependence and is made here, an error at the mode:
//! the mode has a constraint, and `c_z` is structurally nonsingular (a perfect matching of
//! equations to algebraic variables exists on its structural nonzeros, the entries that did not
//! simplify to the constant 0). Structural nonsingularity is necessary, not sufficient: a
//! matrix with a perfect matching can still be singular at some point, or everywhere through a
//! cancellation the symbolic engine does not see; the runtime reports a singular `c_z` when it
//! meets one.

use hysens_symbolic::{ExprId, VarId};
use syn::ItemFn;

use super::Lowered;
use crate::validate::Checked;

/// Builds the condition of every index-2 mode of `lowered` (the `#[mode]` functions come first
/// in the runtime's numbering, so mode `m` of the model is mode `m` there) into
/// [`super::LoweredMode::hidden`] and its constraint rows into
/// [`super::LoweredMode::constraint_rows`], after checking that it has a constraint and that
/// `c_z` is structurally nonsingular; `Err` with every mode's mistakes.
pub(super) fn hidden_constraints(
    checked: &Checked<'_>,
    lowered: &mut Lowered,
) -> Result<(), Vec<syn::Error>> {
    let mut errors = Vec::new();
    let algebraic: Vec<String> = checked
        .variables
        .algebraic
        .map(|z| z.field_names().iter().map(|i| i.to_string()).collect())
        .unwrap_or_default();
    for (m, mode) in checked.model.modes.iter().enumerate() {
        if mode.index2.is_none() {
            continue;
        }
        let func = &mode.func;
        let g = lowered.modes[m].g.clone();
        let f = lowered.modes[m].f.clone();
        let rows = constraint_rows(lowered, &g);
        if !rows.contains(&true) {
            let name = &func.sig.ident;
            errors.push(syn::Error::new(
                name.span(),
                format!("index-2 mode `{name}` has no constraint: each of its algebraic equations reads an algebraic variable, so none is a constraint `0 = k(t, y, p)` (a function of the time, the states and the parameters only) whose derivative `k_y f + k_t = 0` defines the algebraic variables; remove `index2` to make `{name}` an index-1 mode `0 = g(t, y, z, p)`"),
            ));
            continue;
        }
        let hidden = condition(lowered, &g, &f, &rows);
        if let Err(e) = structurally_nonsingular(lowered, func, &hidden, &rows, &algebraic) {
            errors.push(e);
            continue;
        }
        lowered.modes[m].hidden = Some(hidden);
        lowered.modes[m].constraint_rows = rows;
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Which equations of `g` are constraints: those that read no algebraic variable.
fn constraint_rows(lowered: &Lowered, g: &[ExprId]) -> Vec<bool> {
    let graph = &lowered.graph;
    g.iter()
        .map(|&gi| !lowered.vars.z.iter().any(|&z| graph.depends_on(gi, z)))
        .collect()
}

/// The condition `c` of the module docs: `H` on the constraint `rows` of `g`, `g` on the others.
fn condition(lowered: &mut Lowered, g: &[ExprId], f: &[ExprId], rows: &[bool]) -> Vec<ExprId> {
    let hidden = hidden_constraint(lowered, g, f);
    g.iter()
        .zip(hidden)
        .zip(rows)
        .map(|((&gi, hi), &constraint)| if constraint { hi } else { gi })
        .collect()
}

/// `Hᵢ = Σⱼ (∂kᵢ/∂yⱼ) fⱼ + ∂kᵢ/∂t` in the graph of `lowered`.
fn hidden_constraint(lowered: &mut Lowered, k: &[ExprId], f: &[ExprId]) -> Vec<ExprId> {
    let (y, t) = (lowered.vars.y.clone(), lowered.vars.t);
    let graph = &mut lowered.graph;
    let k_y = graph.jacobian(k, &y);
    let k_y_f = graph.jacobian_vector_product(&k_y, f);
    k.iter()
        .zip(k_y_f)
        .map(|(&ki, product)| {
            let k_t = graph.diff(ki, t);
            graph.add(product, k_t)
        })
        .collect()
}

/// `Ok` when `c_z` of the mode `func` (`condition`: its `c`; `rows`: which equations are
/// constraints) has a perfect matching on its structural nonzeros; otherwise the error, at the
/// mode's name, says why (`names`: the algebraic variables' field names).
fn structurally_nonsingular(
    lowered: &mut Lowered,
    func: &ItemFn,
    condition: &[ExprId],
    rows: &[bool],
    names: &[String],
) -> Result<(), syn::Error> {
    let z: Vec<VarId> = lowered.vars.z.clone();
    let c_z = lowered.graph.jacobian(condition, &z);
    let n = z.len();
    let mut pattern = vec![vec![false; n]; n];
    for (i, j, _) in c_z.nonzeros(&lowered.graph) {
        pattern[i][j] = true;
    }
    let rank = structural_rank(&pattern);
    if rank == n {
        return Ok(());
    }
    let name = &func.sig.ident;
    // Only a constraint's derivative can read no algebraic variable: the other rows read one.
    let why = if let Some(i) = (0..n).find(|&i| !pattern[i].contains(&true)) {
        format!("the derivative `k_y f + k_t` of equation {i} reads no algebraic variable")
    } else if let Some(j) = (0..n).find(|&j| pattern.iter().all(|row| !row[j])) {
        let w = &names[j];
        format!("no equation reads the algebraic variable `{w}` (a constraint through its derivative `k_y f + k_t`)")
    } else {
        format!("only {rank} of its {n} algebraic variables can each be paired with an equation that reads it (a constraint through its derivative `k_y f + k_t`)")
    };
    let what = if rows.contains(&false) {
        "the Jacobian with respect to `z` of its condition on `z` (`k_y f + k_t` on the constraints, the equations that read `z` as they are)"
    } else {
        "`k_y f_z` (the constraints' state Jacobian times the derivatives' algebraic Jacobian)"
    };
    Err(syn::Error::new(
        name.span(),
        format!("index-2 mode `{name}` does not define its algebraic variables: {what} is structurally singular: {why}; each constraint `0 = k(t, y, p)` must read states whose derivatives read the algebraic variables, with one algebraic variable per equation (checked structurally, on the entries that are not identically zero)"),
    ))
}

/// The size of a maximum matching of rows to columns on the `true` entries of `pattern` (a
/// square matrix): its structural rank (Kuhn's augmenting paths).
fn structural_rank(pattern: &[Vec<bool>]) -> usize {
    /// Whether row `i` can be matched, re-matching others along an augmenting path.
    fn augment(
        i: usize,
        pattern: &[Vec<bool>],
        seen: &mut [bool],
        row_of: &mut [Option<usize>],
    ) -> bool {
        for j in 0..pattern[i].len() {
            if !pattern[i][j] || seen[j] {
                continue;
            }
            seen[j] = true;
            if row_of[j].is_none_or(|other| augment(other, pattern, seen, row_of)) {
                row_of[j] = Some(i);
                return true;
            }
        }
        false
    }
    let n = pattern.first().map_or(0, Vec::len);
    let mut row_of = vec![None; n];
    (0..pattern.len())
        .filter(|&i| augment(i, pattern, &mut vec![false; n], &mut row_of))
        .count()
}

#[cfg(test)]
mod tests {
    #[test]
    fn structural_rank_is_a_maximum_matching() {
        let rank = |rows: &[&[u8]]| {
            let pattern: Vec<Vec<bool>> = rows
                .iter()
                .map(|r| r.iter().map(|&x| x != 0).collect())
                .collect();
            super::structural_rank(&pattern)
        };
        assert_eq!(rank(&[]), 0);
        assert_eq!(rank(&[&[1]]), 1);
        assert_eq!(rank(&[&[0]]), 0);
        // A greedy first choice (row 0 → column 0) must be undone for row 1.
        assert_eq!(rank(&[&[1, 1], &[1, 0]]), 2);
        // No zero row or column, and still singular: rows 1 and 2 both have only column 0.
        assert_eq!(rank(&[&[1, 1, 1], &[1, 0, 0], &[1, 0, 0]]), 2);
        assert_eq!(rank(&[&[0, 1, 0], &[0, 0, 1], &[1, 0, 0]]), 3);
    }
}
