//! `#[mode]` functions: at least one, each returning the state derivatives `X` (an ODE mode)
//! or `(X, [f64; NZ])` with one algebraic equation per algebraic variable (an index-1 DAE
//! mode).

use syn::spanned::Spanned;
use syn::{ItemFn, ReturnType, Type};

use super::signature::{is_f64, names_type, signature, Signature, TypeNames};
use crate::model::Model;

/// The signature of every mode, in declaration order; problems go to `errors`.
pub fn check(
    model: &Model,
    types: Option<&TypeNames>,
    nz: usize,
    errors: &mut Vec<syn::Error>,
) -> Vec<Signature> {
    if model.modes.is_empty() && !model.has_unparsed("mode") {
        errors.push(syn::Error::new(
            model.module.ident.span(),
            "a hybrid model needs at least one mode: add a `#[mode(initial)]` function returning the state derivatives",
        ));
    }
    model
        .modes
        .iter()
        .map(|m| {
            let returns =
                types.is_some_and(|types| check_return(&m.func, &types.states, nz, errors));
            let mut sig = signature(&m.func, types, false, errors);
            sig.sound &= returns;
            sig
        })
        .collect()
}

/// Whether a mode returns `X` (ODE) or `(X, [f64; NZ])` (DAE: the derivatives and the
/// algebraic residuals); if not, the errors are in `errors`.
fn check_return(func: &ItemFn, states: &str, nz: usize, errors: &mut Vec<syn::Error>) -> bool {
    let reported = errors.len();
    let ReturnType::Type(_, ty) = &func.sig.output else {
        errors.push(syn::Error::new(
            func.sig.ident.span(),
            format!("a mode returns the state derivatives as `{states}`, or `({states}, [f64; N])` with its algebraic equations"),
        ));
        return false;
    };
    match (&**ty, nz) {
        (ty, 0) if names_type(ty, states) => {}
        (ty, _) if names_type(ty, states) => errors.push(syn::Error::new_spanned(
            ty,
            format!("this model has {nz} algebraic variable(s), so every mode returns `({states}, [f64; {nz}])`: the derivatives and {nz} algebraic equation(s)"),
        )),
        (Type::Tuple(_), 0) => errors.push(syn::Error::new_spanned(
            ty,
            format!("this model has no `#[algebraic]` variables, so a mode returns the derivatives `{states}` only: return `{states} {{ .. }}`, or declare the algebraic variables in an `#[algebraic]` struct"),
        )),
        (Type::Tuple(t), _) if t.elems.len() == 2 => {
            if !names_type(&t.elems[0], states) {
                errors.push(syn::Error::new_spanned(
                    &t.elems[0],
                    format!("the first element is the state derivatives, `{states}`"),
                ));
            }
            check_algebraic_equations(&t.elems[1], nz, errors);
        }
        _ => errors.push(syn::Error::new_spanned(
            ty,
            format!("a mode returns the state derivatives as `{states}`, or `({states}, [f64; N])` with its algebraic equations"),
        )),
    }
    errors.len() == reported
}

/// The second element of a DAE mode's result: `[f64; NZ]`.
fn check_algebraic_equations(ty: &Type, nz: usize, errors: &mut Vec<syn::Error>) {
    match ty {
        Type::Array(a) if is_f64(&a.elem) => match array_length(&a.len) {
            Some(n) if n == nz => {}
            Some(n) => errors.push(syn::Error::new(
                a.len.span(),
                format!("{n} algebraic equation(s) for {nz} algebraic variable(s): an index-1 mode has one equation per algebraic variable"),
            )),
            None => errors.push(syn::Error::new(
                a.len.span(),
                "write the number of algebraic equations as a literal",
            )),
        },
        other => errors.push(syn::Error::new_spanned(
            other,
            format!("the algebraic equations are `[f64; {nz}]`"),
        )),
    }
}

fn array_length(expr: &syn::Expr) -> Option<usize> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        _ => None,
    }
}
