//! What a model with errors expands to, besides the errors: the user's module with its
//! functions' bodies left out, and stand-ins for the generated items, so that the code using
//! the model compiles and the model's own errors are the only ones reported.
//!
//! Nothing here ends up in a program: the errors stop the compilation. The stand-ins only have
//! to type-check without warnings, so their bodies are `unreachable!()`.

use std::collections::HashSet;

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use syn::{Item, ReturnType, Type};

use super::shell::{array_conversions, memory_struct, model_struct};
use super::signatures::Signatures;
use super::{tables, Target};
use crate::model::Model;
use crate::validate::{variable_struct_problems, Variables};

/// The body of every stand-in.
fn unreachable() -> TokenStream {
    quote!(::core::unreachable!())
}

/// The stand-ins for `implementation::kernels`: `JACOBIAN_NONZEROS` (all empty), and
/// `HybridModel` and `AdjointProducts` implementations of their required items only (no
/// outputs: the trait's defaults).
pub fn kernels(model: &Model, variables: &Variables<'_>, target: &Target) -> TokenStream {
    let rt = &target.rt;
    let (ny, nz, np) = target.sizes();
    let signatures = Signatures::new(target);
    let store = &target.store;
    let body = unreachable();
    let n_modes = Literal::usize_unsuffixed(model.mode_names().len());
    let names = tables::variable_names(variables);
    let residual = signatures.residual().with_body(&body);
    let jacobian = signatures.jacobian().with_body(&body);
    let parameter_jacobian = signatures.parameter_jacobian().with_body(&body);
    let adjoint = signatures.adjoint_products().with_body(&body);
    quote! {
        impl Model {
            /// Not generated: the model has errors.
            pub const JACOBIAN_NONZEROS: [&'static [(usize, usize)]; #n_modes] = [&[]; #n_modes];
        }

        impl #rt::HybridModel<#ny, #nz, #np> for Model {
            type Store = #store;
            const MODES: &'static [#rt::ModeInfo] = &[];
            #names
            #residual
            #jacobian
            #parameter_jacobian
        }

        impl #rt::AdjointProducts<#ny, #nz, #np> for Model {
            #adjoint
        }
    }
}

/// The user's items with every function's body replaced by `unreachable!()`: the bodies are
/// what the macro reports on, and compiling them too would report the same mistakes again
/// (an unknown variable, an integer literal, a wrong return type) in rustc's words. A function
/// returning `impl Trait` keeps its body, which `unreachable!()` could not stand in for. Of
/// two functions with the same name (an error reported by `validate`), only the first is kept,
/// so that rustc does not report the name twice.
pub fn module_items(model: &Model) -> Vec<Item> {
    let mut function_names = HashSet::new();
    super::module_items(model)
        .into_iter()
        .filter(|item| match item {
            Item::Fn(f) => function_names.insert(f.sig.ident.clone()),
            _ => true,
        })
        .map(|item| match item {
            Item::Fn(mut f) if !returns_impl_trait(&f.sig.output) => {
                let body = unreachable();
                f.block = Box::new(syn::parse_quote!({ #body }));
                let allow_dead_code: syn::Attribute = syn::parse_quote!(#[allow(dead_code)]);
                f.attrs.retain(|a| *a != allow_dead_code);
                f.attrs
                    .push(syn::parse_quote!(#[allow(dead_code, unused_variables)]));
                Item::Fn(f)
            }
            other => other,
        })
        .collect()
}

fn returns_impl_trait(output: &ReturnType) -> bool {
    matches!(output, ReturnType::Type(_, ty) if matches!(**ty, Type::ImplTrait(_)))
}

/// What can be generated when some variable struct is missing or malformed: `Model` itself,
/// `Memory` when the structs it names exist and are not generic, and the array conversions of
/// each well-formed struct.
pub fn without_variables(model: &Model, rt: &TokenStream) -> TokenStream {
    let summary = format!(
        "The hybrid model `{}` (not generated: the model has errors).",
        model.module.ident
    );
    let model_struct = model_struct(model, &summary);
    let non_generic = |s: &&crate::model::VariableStruct| s.item.generics.params.is_empty();
    let states = model.states.first().filter(non_generic);
    let algebraic = model.algebraic.first();
    let memory = match (states, algebraic) {
        (Some(states), None) => Some(memory_struct(&states.item.ident, None)),
        (Some(states), Some(z)) if non_generic(&z) => {
            Some(memory_struct(&states.item.ident, Some(&z.item.ident)))
        }
        _ => None,
    };
    let conversions = [
        &model.states,
        &model.algebraic,
        &model.params,
        &model.inputs,
    ]
    .into_iter()
    .filter_map(|list| list.first())
    .filter(|s| variable_struct_problems(s).is_empty())
    .map(|s| array_conversions(s, rt));
    quote! {
        #model_struct
        #memory
        #(#conversions)*
    }
}
