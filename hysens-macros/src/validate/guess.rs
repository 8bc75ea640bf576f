//! The `#[algebraic_guess]` function: at most one, in a model with algebraic variables; it
//! returns the algebraic struct, the first mode's guess `z0` from the initial state (after
//! `#[initial_state]`), the parameters and inputs, and `t0`. It cannot read the algebraic
//! variables (it gives them) nor the memory (no mode has been entered yet).
//!
//! A guess is not differentiated: Newton's method makes it consistent, and the consistent `z0`
//! and its sensitivities follow from `g = 0`. But the first mode's memory `z*` *is* the guess
//! (as with a caller's `z0`), with zero sensitivity; so a guess that reads the parameters, the
//! inputs or `t0` in a model whose modes read `Memory` is refused: its `z*` would depend on
//! them without the solve knowing.

use super::signature::{check_struct_return, signature, Role, Signature, TypeNames};
use crate::model::Model;
use syn::ItemFn;

/// The signature of the model's `#[algebraic_guess]` function, if it has one; every such
/// function is checked (a second one is an error of its own). `modes`: the modes' signatures.
pub fn check(
    model: &Model,
    types: Option<&TypeNames>,
    modes: &[Signature],
    errors: &mut Vec<syn::Error>,
) -> Option<Signature> {
    for extra in model.algebraic_guesses.iter().skip(1) {
        errors.push(syn::Error::new(
            extra.sig.ident.span(),
            "a second `#[algebraic_guess]` function: the first mode has one guess, so merge them into one function",
        ));
    }
    let signatures: Vec<Signature> = model
        .algebraic_guesses
        .iter()
        .filter_map(|func| check_one(func, types?, modes, errors))
        .collect();
    signatures.into_iter().next()
}

/// The signature of one `#[algebraic_guess]` function (module docs); `None` in a model without
/// algebraic variables.
fn check_one(
    func: &ItemFn,
    types: &TypeNames,
    modes: &[Signature],
    errors: &mut Vec<syn::Error>,
) -> Option<Signature> {
    let mut sig = signature(func, Some(types), false, errors);
    let Some(algebraic) = types.algebraic() else {
        errors.push(syn::Error::new(
            func.sig.ident.span(),
            "`#[algebraic_guess]` in a model without algebraic variables: there is nothing to guess; remove it, or declare the `#[algebraic]` struct",
        ));
        return None;
    };
    sig.sound &= check_struct_return(
        func,
        algebraic,
        "an algebraic guess returns the algebraic variables of the first mode",
        errors,
    );
    let unreadable = [
        (
            Role::Algebraic,
            "the algebraic guess cannot read the algebraic variables: it gives them; remove this parameter",
        ),
        (
            Role::Memory,
            "the algebraic guess cannot read `Memory`: no mode has been entered when it is evaluated; remove this parameter",
        ),
    ];
    for (role, message) in unreadable {
        if let Some(id) = sig.param(role) {
            errors.push(syn::Error::new(id.span(), message));
            sig.sound = false;
        }
    }
    let memory_read = modes.iter().any(|m| m.param(Role::Memory).is_some());
    let varying = [Role::Params, Role::Inputs, Role::Time];
    if let (true, Some(id)) = (memory_read, varying.iter().find_map(|&r| sig.param(r))) {
        errors.push(syn::Error::new(
            id.span(),
            "the algebraic guess cannot read the parameters, inputs or `t` in a model whose modes read `Memory`: the first mode's memory `z*` is the guess, and its dependence on them would not be differentiated; guess from the states alone",
        ));
        sig.sound = false;
    }
    Some(sig)
}
