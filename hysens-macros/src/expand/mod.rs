//! Expansion: the module as the user wrote it (our attributes removed), plus the generated
//! items, in two parts:
//!
//! - the *shell* ([`shell`]), which needs only the variable structs: `Memory`, `NAMES`,
//!   `to_array` and `from_array` on each variable struct, the unit struct `Model` with its sizes,
//!   names and entry points ([`entry_points`]), and its `ModelSizes` implementation;
//! - the *kernels* ([`implementation`]): `Model`'s `HybridModel` and `AdjointProducts`
//!   implementations with every kernel of `crate::kernels`, its tables ([`tables`]) and its
//!   named outputs.
//!
//! A model with errors still gets its shell when its variable structs are well-formed, with
//! [`stub`] kernels in place of the real ones and its functions' bodies left out, as `thiserror`
//! and `serde` emit a fallback implementation next to their errors: code that uses the model
//! then compiles, and the only errors reported are the model's own.
//!
//! Generated methods name their parameters hygienically and prefix the ones a kernel does not
//! read with `_`, so the expansion is warning-free; indices into fixed-size arrays are literals,
//! so no kernel can panic. Every path to the runtime starts with the facade's path
//! (`crate = path`, see `crate::args`) and names an item the runtime re-exports at its root.

mod dispatch;
mod entry_points;
mod implementation;
mod shell;
mod signatures;
mod stub;
mod tables;

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use syn::Item;

use crate::args::Options;
use crate::lower::Lowered;
use crate::model::Model;
use crate::validate::{Checked, Variables};

/// The whole expansion of a model that checked.
pub fn expand(checked: &Checked<'_>, lowered: &mut Lowered, options: &Options) -> TokenStream {
    let model = checked.model;
    let target = Target::new(options, &checked.variables);
    let shell = shell::shell(model, &checked.variables, &target);
    let kernels = implementation::kernels(checked, lowered, &target);
    let diff = diff_placeholder(model);
    module(model, module_items(model), quote!(#shell #kernels #diff))
}

/// For a model whose functions call `diff(e, v)` (the symbolic partial derivative, taken into
/// the kernels by the parser) and define no `diff` of their own: a function of that name, so
/// that the functions, kept in the module as written, type-check. It is never called: the
/// kernels are generated from the symbolic derivative.
fn diff_placeholder(model: &Model) -> TokenStream {
    let items = module_items(model);
    let defines = items
        .iter()
        .any(|item| matches!(item, Item::Fn(f) if f.sig.ident == "diff"));
    if defines || !calls_diff(quote!(#(#items)*)) {
        return TokenStream::new();
    }
    quote! {
        /// `diff(e, v)` in this model's functions is the partial derivative of `e` with respect
        /// to the variable `v`, which `#[hybrid_model]` takes symbolically into the kernels.
        /// This function only lets the functions, kept as written, type-check; its value is not
        /// the derivative, and nothing calls it.
        #[allow(dead_code)]
        fn diff(_expression: f64, _variable: f64) -> f64 {
            f64::NAN
        }
    }
}

/// Whether `tokens` hold a call `diff(..)`.
fn calls_diff(tokens: TokenStream) -> bool {
    let mut previous_is_diff = false;
    for token in tokens {
        match token {
            proc_macro2::TokenTree::Group(group) => {
                let is_call =
                    previous_is_diff && group.delimiter() == proc_macro2::Delimiter::Parenthesis;
                if is_call || calls_diff(group.stream()) {
                    return true;
                }
                previous_is_diff = false;
            }
            proc_macro2::TokenTree::Ident(ident) => previous_is_diff = ident == "diff",
            _ => previous_is_diff = false,
        }
    }
    false
}

/// The expansion of a model with errors (reported separately): the module with its
/// functions' bodies left out, the shell when `variables` are well-formed (with stub kernels),
/// and otherwise whatever can be generated soundly.
pub fn fallback(model: &Model, variables: Option<Variables<'_>>, options: &Options) -> TokenStream {
    let items = stub::module_items(model);
    let generated = match variables {
        Some(variables) => {
            let target = Target::new(options, &variables);
            let shell = shell::shell(model, &variables, &target);
            let kernels = stub::kernels(model, &variables, &target);
            quote!(#shell #kernels)
        }
        None => stub::without_variables(model, &options.runtime()),
    };
    module(model, items, generated)
}

/// The user's items, as parsed (our attributes stripped).
fn module_items(model: &Model) -> Vec<Item> {
    model
        .module
        .content
        .as_ref()
        .map(|(_, items)| items.clone())
        .unwrap_or_default()
}

/// `mod name { items generated }` with the module's own attributes and visibility.
fn module(model: &Model, items: Vec<Item>, generated: TokenStream) -> TokenStream {
    let module = &model.module;
    let attrs = &module.attrs;
    let vis = &module.vis;
    let name = &module.ident;
    quote! {
        #(#attrs)*
        #vis mod #name {
            #(#items)*
            #generated
        }
    }
}

/// The runtime the generated code is written against, and the model's sizes in it.
pub struct Target {
    /// The runtime's path, `<facade>::runtime`.
    pub rt: TokenStream,
    /// Number of differential states `NY`.
    pub ny: usize,
    /// Number of algebraic variables `NZ`.
    pub nz: usize,
    /// Number of parameters and inputs `NP`.
    pub np: usize,
    /// The model's `HybridModel::Store`: `<runtime>::Inline`, `::Heap` or `::Sparse`.
    pub store: TokenStream,
}

impl Target {
    fn new(options: &Options, variables: &Variables<'_>) -> Self {
        Target {
            rt: options.runtime(),
            ny: variables.ny(),
            nz: variables.nz(),
            np: variables.np(),
            store: options.store(),
        }
    }

    /// `NY, NZ, NP` as literals.
    pub fn sizes(&self) -> (Literal, Literal, Literal) {
        (
            Literal::usize_unsuffixed(self.ny),
            Literal::usize_unsuffixed(self.nz),
            Literal::usize_unsuffixed(self.np),
        )
    }

    /// `&rt::Point<'_, NY, NZ, NP>`, the evaluation point every kernel takes.
    pub fn point(&self) -> TokenStream {
        let rt = &self.rt;
        let (ny, nz, np) = self.sizes();
        quote!(&#rt::Point<'_, #ny, #nz, #np>)
    }
}
