//! Helpers that return the states: `fn dynamics(x: &X, p: &P) -> X { X { .. } }`, called as
//! the value of a mode body (`fn flight(x: &X, p: &P) -> X { dynamics(x, p) }`), as the
//! derivatives of a DAE mode's tuple, or as the value of a reset or of the initial state.
//!
//! Each field of the helper's struct literal becomes a scalar helper of its own, with the
//! helper's parameters and `let`s ([`field_helper_name`]), which the symbolic engine inlines
//! like any helper; a call of the helper where the states are expected reads as the literal of
//! those calls ([`expand_call`]). So the derivatives of a mode written through a helper are
//! differentiated exactly as if they were written out.

use std::collections::HashMap;

use hysens_symbolic::Function;
use syn::spanned::Spanned;
use syn::{Expr, ItemFn, Stmt};

use super::{helper_params, split_body, unparen};

/// The name of the scalar helper that gives field `field` of the states helper `helper`.
pub fn field_helper_name(helper: &str, field: &str) -> String {
    format!("__hysens_{helper}_{field}")
}

/// Whether `item` is a helper returning the states struct `states`.
pub fn returns_states(item: &ItemFn, states: &str) -> bool {
    matches!(&item.sig.output,
        syn::ReturnType::Type(_, ty) if matches!(&**ty, syn::Type::Path(p) if p.path.is_ident(states)))
}

/// The scalar helpers of the states helper `item` (which [`returns_states`]), one per field
/// of `fields`, named by [`field_helper_name`]: its parameters, its `let`s and the field's
/// value. `Err` when its body is not `X { .. }` with every field, or a parameter is not one a
/// helper takes (`f64`, or a reference to a variable struct or `Memory`).
pub fn field_helpers(
    item: &ItemFn,
    states: &str,
    fields: &[String],
    struct_types: &[String],
) -> Result<Vec<(String, Function)>, Vec<syn::Error>> {
    let name = item.sig.ident.to_string();
    let Some(params) = helper_params(item, struct_types) else {
        return Err(vec![syn::Error::new(
            item.sig.inputs.span(),
            format!("helper `{name}` returns the states, so its parameters must be ones a model helper takes: `f64` values and references to the model's structs (`&X`, `&P`, `&Memory`, …)"),
        )]);
    };
    let (lets, value) = split_body(item)?;
    let literal = match unparen(value) {
        Expr::Struct(literal) if literal.path.is_ident(states) && literal.rest.is_none() => {
            literal
        }
        other => {
            return Err(vec![syn::Error::new(
                other.span(),
                format!("helper `{name}` returns the states: end its body with the literal `{states} {{ .. }}` with every field written out"),
            )])
        }
    };
    let mut helpers = Vec::new();
    let mut errors = Vec::new();
    for field in fields {
        let value = literal
            .fields
            .iter()
            .find(|fv| matches!(&fv.member, syn::Member::Named(id) if id == field));
        let Some(value) = value else {
            errors.push(syn::Error::new(
                literal.path.span(),
                format!("state `{field}` is missing from helper `{name}`: a helper that returns the states gives every one"),
            ));
            continue;
        };
        let mut stmts: Vec<Stmt> = lets.to_vec();
        stmts.push(Stmt::Expr(value.expr.clone(), None));
        let body = syn::Block {
            brace_token: item.block.brace_token,
            stmts,
        };
        let function = Function {
            params: params.clone(),
            body,
        };
        helpers.push((field_helper_name(&name, field), function));
    }
    match errors.is_empty() {
        true => Ok(helpers),
        false => Err(errors),
    }
}

/// When `value` is a call of one of the states helpers `helpers`, the value of each field of
/// `fields` as a call of its field helper with the same arguments (`Err` for a helper that did
/// not lower: `helpers` maps it to `false`); `None` when it is not such a call.
pub fn expand_call(
    value: &Expr,
    helpers: &HashMap<String, bool>,
    fields: &[String],
) -> Option<Result<Vec<Expr>, ()>> {
    let Expr::Call(call) = unparen(value) else {
        return None;
    };
    let Expr::Path(path) = &*call.func else {
        return None;
    };
    let helper = path.path.get_ident()?.to_string();
    if !*helpers.get(&helper)? {
        return Some(Err(()));
    }
    let expressions = fields
        .iter()
        .map(|field| {
            let name = syn::Ident::new(&field_helper_name(&helper, field), call.func.span());
            let mut field_call = call.clone();
            field_call.func = Box::new(syn::parse_quote!(#name));
            Expr::Call(field_call)
        })
        .collect();
    Some(Ok(expressions))
}
