//! The shell of a model: everything generated from the variable structs and the functions'
//! names alone, identical whether the model checked or not.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::entry_points::entry_points;
use super::Target;
use crate::kernels::hygienic;
use crate::model::{Model, VariableStruct};
use crate::validate::Variables;

/// `Memory`, the array conversions, `Model` with its inherent sizes, names and entry points,
/// and its `ModelSizes` implementation.
pub fn shell(model: &Model, variables: &Variables<'_>, target: &Target) -> TokenStream {
    let memory = memory_struct(
        &variables.states.item.ident,
        variables.algebraic.map(|a| &a.item.ident),
    );
    let conversions = variables.all().map(|s| array_conversions(s, &target.rt));
    let summary = format!(
        "The hybrid model `{}` for the hysens runtime: {} differential state(s), {} algebraic variable(s), {} parameter(s) and input(s), {} mode(s), {} guard(s).",
        model.module.ident,
        target.ny,
        target.nz,
        target.np,
        model.mode_names().len(),
        model.guard_names().len()
    );
    let model_struct = model_struct(model, &summary);
    let inherent = inherent_items(model, variables, target);
    let rt = &target.rt;
    let n = Literal::usize_unsuffixed(target.ny + target.nz);
    let ns = Literal::usize_unsuffixed(target.np + target.ny);
    quote! {
        #memory
        #(#conversions)*
        #model_struct
        #inherent
        impl #rt::ModelSizes<#n, #ns> for Model {}
    }
}

/// `pub struct Memory { pub y: X, pub z: Z }`, the user-facing type of `&Memory` parameters.
pub fn memory_struct(states: &Ident, algebraic: Option<&Ident>) -> TokenStream {
    let algebraic = algebraic.map(|z| {
        quote! {
            /// The algebraic variables right after the last mode entry, `z*`.
            pub z: #z,
        }
    });
    quote! {
        /// The memory of a hybrid system (Serban & Recuero 2019, §4): the state right after the
        /// last mode entry; the start of a solve counts as an entry.
        pub struct Memory {
            /// The differential states right after the last mode entry, `y*`.
            pub y: #states,
            #algebraic
        }
    }
}

/// `NAMES`, `to_array`, `from_array` for a well-formed variable struct, in field order, and
/// the runtime's `Fields` view of it (what the solving API takes and returns).
pub fn array_conversions(s: &VariableStruct, rt: &TokenStream) -> TokenStream {
    let ty = &s.item.ident;
    let fields = s.field_names();
    let n = Literal::usize_unsuffixed(fields.len());
    let names: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
    let indices = (0..fields.len()).map(Literal::usize_unsuffixed);
    let values = hygienic("values");
    quote! {
        impl #ty {
            /// The field names, in the order of the runtime's arrays.
            pub const NAMES: [&'static str; #n] = [#(#names),*];

            /// The fields as an array, in declaration order.
            pub fn to_array(&self) -> [f64; #n] {
                [#(self.#fields),*]
            }

            /// The struct from an array in declaration order.
            pub fn from_array(#values: [f64; #n]) -> Self {
                #ty { #(#fields: #values[#indices]),* }
            }
        }

        impl #rt::Fields<#n> for #ty {
            fn to_array(&self) -> [f64; #n] {
                #ty::to_array(self)
            }
            fn from_array(#values: [f64; #n]) -> Self {
                #ty::from_array(#values)
            }
        }
    }
}

/// `pub struct Model;` with the module's documentation followed by `summary`.
pub fn model_struct(model: &Model, summary: &str) -> TokenStream {
    let docs = model
        .module
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"));
    quote! {
        #(#docs)*
        #[doc = #summary]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct Model;
    }
}

/// `impl Model`: the sizes, the names of modes, guards and outputs, and the entry points.
fn inherent_items(model: &Model, variables: &Variables<'_>, target: &Target) -> TokenStream {
    let (ny, nz, np) = target.sizes();
    let output_names = model.outputs.iter().map(|o| o.sig.ident.to_string());
    let mode_name = name_lookup("mode_name", "mode", model.mode_names().into_iter());
    let guard_name = name_lookup("guard_name", "guard", model.guard_names().into_iter());
    let entry_points = entry_points(variables, target);
    let rt = &target.rt;
    let n = Literal::usize_unsuffixed(target.ny + target.nz);
    quote! {
        impl Model {
            /// Number of differential states `y`.
            pub const NY: usize = #ny;
            /// Number of algebraic variables `z`.
            pub const NZ: usize = #nz;
            /// Number of parameters and inputs `p`.
            pub const NP: usize = #np;
            /// Bytes of stack the no-heap solves of this model need (`solve`,
            /// `solve_with_sensitivities`, `solve_adjoint`, `solve_with` with a tableau of at
            /// most six stages), with a safety margin: `hysens_runtime::stack_estimate` of its
            /// sizes. Run them on a thread with this much stack to spare (plus the caller's
            /// frames); `solver()`'s `solve` and `gradient` grow the stack themselves.
            pub const STACK_ESTIMATE: usize = #rt::stack_estimate::<6, #ny, #nz, #np, #n>();
            /// Names of the named outputs, in index order.
            pub const OUTPUT_NAMES: &'static [&'static str] = &[#(#output_names),*];
            #mode_name
            #guard_name
            #entry_points
        }
    }
}

/// `pub fn <function>(<what>: usize) -> Option<&'static str>`: the name, as written in the
/// model, of the `what` with that index (the runtime's numbering: declaration order, then what
/// the switching surfaces generate).
fn name_lookup(function: &str, what: &str, names: impl Iterator<Item = String>) -> TokenStream {
    let function = Ident::new(function, proc_macro2::Span::call_site());
    let index = hygienic(what);
    let names: Vec<String> = names.collect();
    let n = Literal::usize_unsuffixed(names.len());
    let doc = format!(
        "The name of {what} number `{what}` as written in the model (its function's name, or for what a switching surface generates, the surface's name with a suffix), in the runtime's numbering (declaration order, then the switching surfaces'); `None` out of range."
    );
    quote! {
        #[doc = #doc]
        pub fn #function(#index: usize) -> ::core::option::Option<&'static str> {
            const NAMES: [&str; #n] = [#(#names),*];
            NAMES.get(#index).copied()
        }
    }
}
