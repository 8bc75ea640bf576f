//! What names mean while parsing: variables, constants and helper functions.
//!
//! A [`Scope`] maps names to expressions — a state `x.v`, a parameter `p.g`, a module constant,
//! a memory variable — and names to [`Function`]s, the model's helper functions, which the parser
//! inlines at each call. `let` bindings inside an expression are handled by the parser on top of
//! the scope and never leak into it.

use std::collections::HashMap;

use syn::spanned::Spanned;

use crate::error::{Error, ErrorKind};
use crate::graph::{ExprId, Graph};

/// Names visible to the parser.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    names: HashMap<String, ExprId>,
    functions: HashMap<String, Function>,
}

/// A helper function `fn name(a: f64, s: &S) -> f64 { … }` to inline at each call.
///
/// Its body sees its parameters and the names of the [`Scope`] it is called from, except that
/// locals of the caller (its `let` bindings) are not visible: like a Rust function, it sees
/// only module-level names.
#[derive(Clone, Debug)]
pub struct Function {
    /// The parameters, in order.
    pub params: Vec<Param>,
    /// The body.
    pub body: syn::Block,
}

/// A parameter of a helper [`Function`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The parameter's name in the body.
    pub name: String,
    /// How the argument is passed.
    pub kind: ParamKind,
}

/// How a helper's argument is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// An `f64` value: the argument is any expression.
    Value,
    /// A struct passed by name (`s: &S`): the argument must be a name (or field path) of the
    /// caller, and `s.field` in the body means `argument.field`.
    Alias,
}

impl Scope {
    /// An empty scope.
    pub fn new() -> Self {
        Self::default()
    }

    /// A scope in which each of `names` is the graph variable of that name.
    pub fn with_variables(graph: &mut Graph, names: &[&str]) -> Self {
        let mut scope = Scope::new();
        for name in names {
            let v = graph.var(name);
            scope.bind(*name, v);
        }
        scope
    }

    /// Makes `name` stand for `value` (a variable, a constant, or any expression). A dotted
    /// name such as `"x.v"` is what the field access `x.v` looks up.
    pub fn bind(&mut self, name: impl Into<String>, value: ExprId) {
        self.names.insert(name.into(), value);
    }

    /// What `name` stands for, if anything.
    pub fn lookup(&self, name: &str) -> Option<ExprId> {
        self.names.get(name).copied()
    }

    /// Defines a helper function that calls to `name(...)` inline.
    pub fn define_function(&mut self, name: impl Into<String>, function: Function) {
        self.functions.insert(name.into(), function);
    }

    /// The helper function `name`, if defined.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.get(name)
    }
}

impl Function {
    /// The helper function of an item `fn name(a: f64, …) -> f64 { … }` with `f64` parameters
    /// only. Any other signature (generics, non-`f64` or pattern parameters, a missing return
    /// type) is an error at its span; helpers with struct parameters are built with their
    /// [`Param`]s directly, by a caller that knows which types are structs.
    pub fn from_item_fn(item: &syn::ItemFn) -> Result<Function, Error> {
        let name = item.sig.ident.to_string();
        let bad = |span| Error::new(span, ErrorKind::UnsupportedSignature(name.clone()));
        if !item.sig.generics.params.is_empty() {
            return Err(bad(item.sig.generics.span()));
        }
        match &item.sig.output {
            syn::ReturnType::Type(_, ty) if is_f64(ty) => {}
            other => return Err(bad(other.span())),
        }
        let mut params = Vec::new();
        for input in &item.sig.inputs {
            match input {
                syn::FnArg::Typed(pt) if is_f64(&pt.ty) => match &*pt.pat {
                    syn::Pat::Ident(id) if id.by_ref.is_none() && id.subpat.is_none() => {
                        params.push(Param {
                            name: id.ident.to_string(),
                            kind: ParamKind::Value,
                        });
                    }
                    pat => return Err(bad(pat.span())),
                },
                other => return Err(bad(other.span())),
            }
        }
        Ok(Function {
            params,
            body: (*item.block).clone(),
        })
    }
}

/// Whether a type is written `f64`.
pub(crate) fn is_f64(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("f64"))
}
