//! `#[reset(guard)]` functions: each belongs to a guard of the model, at most one per guard,
//! and returns the states after the switch.

use super::names::Index;
use super::signature::{check_struct_return, signature, Signature, TypeNames};
use crate::model::Model;

/// For each guard (by index): the index into `model.resets` of its reset and the reset's
/// signature, or `None` when the switch keeps the states (`y⁺ = y⁻`).
pub fn check(
    model: &Model,
    index: &Index<'_>,
    types: Option<&TypeNames>,
    errors: &mut Vec<syn::Error>,
) -> Vec<Option<(usize, Signature)>> {
    let mut resets: Vec<Option<(usize, Signature)>> = vec![None; model.guards.len()];
    for (k, r) in model.resets.iter().enumerate() {
        let sig = signature(&r.func, types, false, errors);
        if let Some(types) = types {
            check_struct_return(
                &r.func,
                &types.states,
                "a reset returns the states after the switch",
                errors,
            );
        }
        let unknown = || {
            format!(
                "unknown guard `{}`: `#[reset(name)]` names a `#[guard]` function (guards: {})",
                r.guard, index.guard_names
            )
        };
        match index.guard(&r.guard, unknown, errors) {
            Some(g) if resets[g].is_some() => errors.push(syn::Error::new(
                r.guard.span(),
                format!("guard `{}` already has a reset: a switch applies one reset, so merge them into one `#[reset]` function", r.guard),
            )),
            Some(g) => resets[g] = Some((k, sig)),
            None => {}
        }
    }
    resets
}
