//! The `#[initial_state]` function: at most one; it returns the states the solve starts from,
//! `y0 = I(t0, x, p)`, from the states the caller gives, the parameters and inputs, and `t0`.
//! It cannot read the algebraic variables (the first mode's consistent ones are computed from
//! the state it returns) nor the memory (no mode has been entered yet).

use super::signature::{check_struct_return, signature, Role, Signature, TypeNames};
use syn::ItemFn;

use crate::model::Model;

/// The signature of the model's `#[initial_state]` function, if it has one; every such
/// function is checked (a second one is an error of its own).
pub fn check(
    model: &Model,
    types: Option<&TypeNames>,
    errors: &mut Vec<syn::Error>,
) -> Option<Signature> {
    for extra in model.initial_states.iter().skip(1) {
        errors.push(syn::Error::new(
            extra.sig.ident.span(),
            "a second `#[initial_state]` function: the solve starts from one state, so merge them into one function",
        ));
    }
    let signatures: Vec<Signature> = model
        .initial_states
        .iter()
        .map(|func| check_one(func, types, errors))
        .collect();
    signatures.into_iter().next()
}

/// The signature of one `#[initial_state]` function: it returns the states and reads neither
/// the algebraic variables nor the memory.
fn check_one(func: &ItemFn, types: Option<&TypeNames>, errors: &mut Vec<syn::Error>) -> Signature {
    let mut sig = signature(func, types, false, errors);
    if let Some(types) = types {
        sig.sound &= check_struct_return(
            func,
            &types.states,
            "an initial state returns the states the solve starts from",
            errors,
        );
    }
    let unreadable = [
        (
            Role::Algebraic,
            "the initial state cannot read the algebraic variables: the first mode's are computed from the state it returns; remove this parameter",
        ),
        (
            Role::Memory,
            "the initial state cannot read `Memory`: no mode has been entered when it is evaluated; remove this parameter",
        ),
    ];
    for (role, message) in unreadable {
        if let Some(id) = sig.param(role) {
            errors.push(syn::Error::new(id.span(), message));
            sig.sound = false;
        }
    }
    sig
}
