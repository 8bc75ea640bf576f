//! `#[mode(index2)]`: a Hessenberg index-2 mode (Serban & Recuero 2019, §3.3, Eq. 15),
//! `y' = f(t, y, z, p)`, `0 = k(t, y, p)` with `k_y f_z` nonsingular, whose algebraic variables
//! are defined by the hidden constraint `k_y f + k_t = 0`.
//!
//! What can be checked from the signatures is checked here: an index-2 mode is a DAE mode (the
//! model has `#[algebraic]` variables; its return type, `(X, [f64; NZ])`, is checked with every
//! mode's in [`super::modes`]). Not supported yet, each with its own error: an index-2 mode that
//! reads the memory, a terminal guard (`-> stop`) leaving one, and a switching surface with one
//! on either side (checked in [`super::surfaces`]).
//!
//! What needs the equations' symbolic dependence (the constraints do not read `z`, and `k_y f_z`
//! is structurally nonsingular) is checked after lowering, in `crate::lower` (`index2`).

use super::signature::{Role, Signature};
use crate::model::Model;

/// Reports the mistakes of every index-2 mode of `model` that its signature shows
/// (`mode_signatures` in declaration order).
pub fn check(model: &Model, mode_signatures: &[Signature], errors: &mut Vec<syn::Error>) {
    for (mode, sig) in model.modes.iter().zip(mode_signatures) {
        let Some(index2) = mode.index2 else {
            continue;
        };
        let name = &mode.func.sig.ident;
        if model.algebraic.is_empty() {
            errors.push(syn::Error::new(
                index2,
                format!("index-2 mode `{name}` is a DAE mode, but this model has no `#[algebraic]` variables: declare the algebraic variables `z` in an `#[algebraic]` struct and return `(X, [f64; NZ])`, the derivatives `f(t, y, z, p)` and the constraints `0 = k(t, y, p)`; or remove `index2` for an ODE mode"),
            ));
        }
        if let Some(memory) = sig.param(Role::Memory) {
            errors.push(syn::Error::new(
                memory.span(),
                format!("index-2 mode `{name}` reads `Memory` (its parameter `{memory}`): index-2 modes with memory are not supported yet; remove this parameter, or remove `index2` to make the mode index 1"),
            ));
        }
    }
    for guard in model.guards.iter().filter(|g| g.is_terminal()) {
        let from = model.modes.iter().find(|m| m.func.sig.ident == guard.from);
        if from.is_some_and(|m| m.index2.is_some()) {
            errors.push(syn::Error::new(
                guard.from.span(),
                format!("guard `{}` ends the solve in index-2 mode `{}`: terminal guards (`-> stop`) leaving an index-2 mode are not supported yet; switch to a mode without `index2` and end the solve from there, or stop at a fixed final time", guard.func.sig.ident, guard.from),
            ));
        }
    }
}
