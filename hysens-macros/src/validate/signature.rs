//! What a model function's parameters and return type mean. A parameter's role is decided by
//! its type alone (`&X` is the states, `&Memory` the memory, `t: f64` the time), so the user
//! names parameters as they like and lists only the ones the function reads.
//!
//! A [`Signature`] also records whether every parameter and the return type were understood
//! (`sound`): only then can `lower` read the function's body without every use of a rejected
//! parameter, or a body of the wrong shape, showing up again as a follow-on error. Mistakes
//! elsewhere in the model (an unknown name in an attribute) leave a signature sound, so the
//! body's own mistakes are still reported with them.

use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, Pat, ReturnType, Type};

use super::variables::Variables;

/// What a function parameter stands for, decided by its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `&X`, the `#[states]` struct.
    States,
    /// `&Z`, the `#[algebraic]` struct.
    Algebraic,
    /// `&P`, the `#[params]` struct.
    Params,
    /// `&U`, the `#[inputs]` struct.
    Inputs,
    /// `&Memory`: the state at the last mode entry.
    Memory,
    /// `t: f64`.
    Time,
    /// The datum `d: f64` of a sampled cost.
    Datum,
}

/// A function's parameters with their roles, and whether they and its return type are sound.
#[derive(Clone)]
pub struct Signature {
    /// The parameters that have a role, in order.
    pub params: Vec<(Ident, Role)>,
    /// Whether every parameter got a role and the return type is the one the function's kind
    /// needs (no error was reported for either): the body can then be lowered.
    pub sound: bool,
}

impl Signature {
    /// The parameter with `role`, if any.
    pub fn param(&self, role: Role) -> Option<&Ident> {
        self.params
            .iter()
            .find_map(|(id, r)| (*r == role).then_some(id))
    }
}

/// The type names that give parameters their roles.
pub struct TypeNames {
    /// The `#[states]` struct's name.
    pub states: String,
    algebraic: Option<String>,
    params: Option<String>,
    inputs: Option<String>,
}

impl TypeNames {
    /// The names of `variables`' structs.
    pub fn of(variables: &Variables<'_>) -> Self {
        let name = |s: &crate::model::VariableStruct| s.item.ident.to_string();
        TypeNames {
            states: name(variables.states),
            algebraic: variables.algebraic.map(name),
            params: variables.params.map(name),
            inputs: variables.inputs.map(name),
        }
    }

    /// The `#[algebraic]` struct's name, if the model has one.
    pub fn algebraic(&self) -> Option<&str> {
        self.algebraic.as_deref()
    }

    /// The role of a parameter of type `&name`.
    fn role_of_reference(&self, name: &str) -> Option<Role> {
        let is = |ty: &Option<String>| ty.as_deref() == Some(name);
        if name == self.states {
            Some(Role::States)
        } else if is(&self.algebraic) {
            Some(Role::Algebraic)
        } else if is(&self.params) {
            Some(Role::Params)
        } else if is(&self.inputs) {
            Some(Role::Inputs)
        } else if name == "Memory" {
            Some(Role::Memory)
        } else {
            None
        }
    }

    /// The parameter types a model function may take, for an error message.
    fn allowed(&self) -> String {
        let mut allowed = vec![format!("&{}", self.states)];
        allowed.extend(self.algebraic.iter().map(|t| format!("&{t}")));
        allowed.extend(self.params.iter().map(|t| format!("&{t}")));
        allowed.extend(self.inputs.iter().map(|t| format!("&{t}")));
        allowed.push("&Memory".into());
        allowed.push("t: f64".into());
        allowed.join(", ")
    }
}

/// The roles of `func`'s parameters, sound when each has one; the caller adds whether the
/// return type is right. `datum_allowed` admits one extra `f64` (a sampled cost's datum).
/// Without `types` (the model has no `#[states]` struct, already reported) no role can be
/// decided: the result is empty, not sound, and nothing is reported.
pub fn signature(
    func: &ItemFn,
    types: Option<&TypeNames>,
    datum_allowed: bool,
    errors: &mut Vec<syn::Error>,
) -> Signature {
    let Some(types) = types else {
        return Signature {
            params: Vec::new(),
            sound: false,
        };
    };
    let reported = errors.len();
    let mut params: Vec<(Ident, Role)> = Vec::new();
    for input in &func.sig.inputs {
        let FnArg::Typed(pt) = input else {
            errors.push(syn::Error::new(
                input.span(),
                "model functions take no `self`",
            ));
            continue;
        };
        let Pat::Ident(pat) = &*pt.pat else {
            errors.push(syn::Error::new(
                pt.pat.span(),
                "write a plain parameter name here",
            ));
            continue;
        };
        let name = pat.ident.clone();
        let used = |role| params.iter().any(|(_, r)| *r == role);
        let role = if is_f64(&pt.ty) {
            let bare = name.to_string();
            if (bare == "t" || bare == "_t") && !used(Role::Time) {
                Some(Role::Time)
            } else if datum_allowed && !used(Role::Datum) {
                Some(Role::Datum)
            } else {
                errors.push(syn::Error::new_spanned(
                    pt,
                    "an `f64` parameter of a model function is the time and must be named `t`",
                ));
                None
            }
        } else {
            let role = referenced_type(&pt.ty).and_then(|ty| types.role_of_reference(&ty));
            if role.is_none() {
                errors.push(syn::Error::new_spanned(
                    &pt.ty,
                    format!(
                        "unexpected parameter type: a model function takes {}",
                        types.allowed()
                    ),
                ));
            }
            role
        };
        if let Some(role) = role {
            if used(role) {
                errors.push(syn::Error::new_spanned(
                    pt,
                    "this parameter repeats a role another parameter already has: remove it",
                ));
            }
            params.push((name, role));
        }
    }
    Signature {
        params,
        sound: errors.len() == reported,
    }
}

/// `&Name` → `"Name"`.
fn referenced_type(ty: &Type) -> Option<String> {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => type_ident(&r.elem).map(Ident::to_string),
        _ => None,
    }
}

/// `Name` or `Name<..>` → `Name`.
fn type_ident(ty: &Type) -> Option<&Ident> {
    match ty {
        Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            Some(&p.path.segments[0].ident)
        }
        _ => None,
    }
}

/// Whether `ty` is the type `name` (a one-segment path).
pub fn names_type(ty: &Type, name: &str) -> bool {
    type_ident(ty).is_some_and(|i| i == name)
}

/// Whether `ty` is `f64`.
pub fn is_f64(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("f64"))
}

/// Whether `func` (`what`: "a guard", "a cost", …) returns `f64`; if not, the error is in
/// `errors`.
pub fn check_scalar_return(func: &ItemFn, what: &str, errors: &mut Vec<syn::Error>) -> bool {
    match &func.sig.output {
        ReturnType::Type(_, ty) if is_f64(ty) => true,
        other => {
            errors.push(return_error(
                func,
                other,
                format!("{what} returns one `f64`: write `-> f64`"),
            ));
            false
        }
    }
}

/// Whether `func` returns the struct `name` (`what` says why); if not, the error is in
/// `errors`.
pub fn check_struct_return(
    func: &ItemFn,
    name: &str,
    what: &str,
    errors: &mut Vec<syn::Error>,
) -> bool {
    match &func.sig.output {
        ReturnType::Type(_, ty) if names_type(ty, name) => true,
        other => {
            errors.push(return_error(
                func,
                other,
                format!("{what}: its return type is `{name}`"),
            ));
            false
        }
    }
}

/// An error at the return type, or at the function's name when it has none.
fn return_error(func: &ItemFn, output: &ReturnType, message: String) -> syn::Error {
    match output {
        ReturnType::Type(_, ty) => syn::Error::new_spanned(ty, message),
        ReturnType::Default => syn::Error::new(func.sig.ident.span(), message),
    }
}
