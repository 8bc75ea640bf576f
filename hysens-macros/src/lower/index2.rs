//! Hessenberg index-2 modes (`#[mode(index2)]`; Serban & Recuero 2019, §3.3, Eq. 15):
//! `y' = f(t, y, z, p)`, `0 = k(t, y, p)`, whose algebraic equations `g` are the constraints
//! `k`. Their algebraic variables are defined by the hidden constraint, the constraints'
//! derivative along the solution,
//!
//! `H = k_y f + k_t = 0`, `Hᵢ = Σⱼ (∂kᵢ/∂yⱼ) fⱼ + ∂kᵢ/∂t`,
//!
//! built here in the model's graph (the kernels differentiate it for its partials
//! `H_y, H_z, H_p, H_t`). `H` defines `z` when `H_z = k_y f_z` is nonsingular.
//!
//! Two checks need the equations' symbolic dependence and are made here, each an error at the
//! offending span: no constraint reads `z` (its expression depends on no `z` variable), and
//! `H_z = k_y f_z` is structurally nonsingular: a perfect matching of constraints to algebraic
//! variables exists on its structural nonzeros (the entries that did not simplify to the
//! constant 0). Structural nonsingularity is necessary, not sufficient: a matrix with a perfect
//! matching can still be singular at some point, or everywhere through a cancellation the
//! symbolic engine does not see; the runtime reports a singular `H_z` when it meets one.

use hysens_symbolic::{ExprId, VarId};
use syn::{Expr, ItemFn};

use super::{split_body, unparen, Lowered};
use crate::validate::Checked;

/// Builds the hidden constraint of every index-2 mode of `lowered` (the `#[mode]` functions come
/// first in the runtime's numbering, so mode `m` of the model is mode `m` there) into
/// [`super::LoweredMode::hidden`], after checking that its constraints do not read `z` and that
/// `k_y f_z` is structurally nonsingular; `Err` with every mode's mistakes.
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
        let k = lowered.modes[m].g.clone();
        let f = lowered.modes[m].f.clone();
        let reads = reads_algebraic(lowered, func, &k, &algebraic);
        if !reads.is_empty() {
            errors.extend(reads);
            continue;
        }
        let hidden = hidden_constraint(lowered, &k, &f);
        if let Err(e) = structurally_nonsingular(lowered, func, &hidden, &algebraic) {
            errors.push(e);
            continue;
        }
        lowered.modes[m].hidden = Some(hidden);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// An error for each constraint of `k` (of the mode `func`) that reads an algebraic variable
/// (`names`: their field names), naming the first it reads.
fn reads_algebraic(
    lowered: &Lowered,
    func: &ItemFn,
    k: &[ExprId],
    names: &[String],
) -> Vec<syn::Error> {
    let graph = &lowered.graph;
    let name = &func.sig.ident;
    k.iter()
        .enumerate()
        .filter_map(|(i, &ki)| {
            let j = lowered
                .vars
                .z
                .iter()
                .position(|&z| graph.depends_on(ki, z))?;
            let w = &names[j];
            Some(at_equation(
                func,
                i,
                format!("equation {i} of index-2 mode `{name}` reads the algebraic variable `{w}`: an index-2 mode's constraints are `0 = k(t, y, p)`, functions of the time, the states and the parameters only, and its algebraic variables are defined by their derivative `k_y f + k_t = 0`; write this constraint without `{w}`, or remove `index2` to make `{name}` an index-1 mode `0 = g(t, y, z, p)`"),
            ))
        })
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

/// `Ok` when `H_z = k_y f_z` of the mode `func` (`hidden`: its `H`) has a perfect matching on
/// its structural nonzeros; otherwise the error, at the mode's name, says why (`names`: the
/// algebraic variables' field names).
fn structurally_nonsingular(
    lowered: &mut Lowered,
    func: &ItemFn,
    hidden: &[ExprId],
    names: &[String],
) -> Result<(), syn::Error> {
    let z: Vec<VarId> = lowered.vars.z.clone();
    let h_z = lowered.graph.jacobian(hidden, &z);
    let n = z.len();
    let mut pattern = vec![vec![false; n]; n];
    for (i, j, _) in h_z.nonzeros(&lowered.graph) {
        pattern[i][j] = true;
    }
    let rank = structural_rank(&pattern);
    if rank == n {
        return Ok(());
    }
    let name = &func.sig.ident;
    let why = if let Some(i) = (0..n).find(|&i| !pattern[i].contains(&true)) {
        format!("the derivative `k_y f + k_t` of equation {i} reads no algebraic variable")
    } else if let Some(j) = (0..n).find(|&j| pattern.iter().all(|row| !row[j])) {
        format!(
            "no equation's derivative `k_y f + k_t` reads the algebraic variable `{}`",
            names[j]
        )
    } else {
        format!("only {rank} of its {n} algebraic variables can each be paired with an equation whose derivative `k_y f + k_t` reads it")
    };
    Err(syn::Error::new(
        name.span(),
        format!("index-2 mode `{name}` does not define its algebraic variables: `k_y f_z` (the constraints' state Jacobian times the derivatives' algebraic Jacobian) is structurally singular: {why}; each constraint `0 = k(t, y, p)` must read states whose derivatives read the algebraic variables, with one algebraic variable per constraint (checked structurally, on the entries that are not identically zero)"),
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

/// An error with `message` at algebraic equation `i` of the mode `func` (the `i`-th element of
/// the array in its value `(X { .. }, [..])`), or at its name when the body is not of that
/// shape.
fn at_equation(func: &ItemFn, i: usize, message: String) -> syn::Error {
    let equation = split_body(func)
        .ok()
        .and_then(|(_, value)| match unparen(value) {
            Expr::Tuple(t) if t.elems.len() == 2 => match unparen(&t.elems[1]) {
                Expr::Array(a) => a.elems.iter().nth(i),
                _ => None,
            },
            _ => None,
        });
    match equation {
        Some(equation) => syn::Error::new_spanned(equation, message),
        None => syn::Error::new(func.sig.ident.span(), message),
    }
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
