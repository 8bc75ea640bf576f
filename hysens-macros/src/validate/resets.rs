//! `#[reset(guard)]` functions: each belongs to a guard of the model, at most one per guard,
//! and returns the states after the switch.

use super::names::Index;
use super::signature::{check_struct_return, signature, Signature, TypeNames};
use crate::model::Model;

/// For each guard (by index), the index into `model.resets` of its reset, or `None` when the
/// switch keeps the states (`y⁺ = y⁻`); and the signature of every reset, in declaration order
/// (a reset whose guard is unknown included, so that its body is still checked).
pub fn check(
    model: &Model,
    index: &Index<'_>,
    types: Option<&TypeNames>,
    errors: &mut Vec<syn::Error>,
) -> (Vec<Option<usize>>, Vec<Signature>) {
    let mut of_guard: Vec<Option<usize>> = vec![None; model.guards.len()];
    let mut signatures = Vec::new();
    for (k, r) in model.resets.iter().enumerate() {
        let mut sig = signature(&r.func, types, false, errors);
        if let Some(types) = types {
            sig.sound &= check_struct_return(
                &r.func,
                &types.states,
                "a reset returns the states after the switch",
                errors,
            );
        }
        signatures.push(sig);
        let unknown = || {
            format!(
                "unknown guard `{}`: `#[reset(name)]` names a `#[guard]` function (guards: {})",
                r.guard, index.guard_names
            )
        };
        match index.guard(&r.guard, unknown, errors) {
            Some(g) if of_guard[g].is_some() => errors.push(syn::Error::new(
                r.guard.span(),
                format!("guard `{}` already has a reset: a switch applies one reset, so merge them into one `#[reset]` function", r.guard),
            )),
            Some(g) => of_guard[g] = Some(k),
            None => {}
        }
    }
    (of_guard, signatures)
}
