//! The shell of a model: everything generated from the variable structs and the functions'
//! names alone, identical whether the model checked or not.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::entry_points::entry_points;
use super::Target;
use crate::kernels::hygienic;
use crate::model::{Model, VariableStruct};
use crate::validate::Variables;

/// `Memory`, the array conversions, `Parameters` (for a model with inputs), `Model` with its
/// inherent sizes, names and entry points, and its `ModelSizes`, `RelaxedSizes` and `ModelTypes`
/// implementations.
pub fn shell(model: &Model, variables: &Variables<'_>, target: &Target) -> TokenStream {
    let memory = memory_struct(
        &variables.states.item.ident,
        variables.algebraic.map(|a| &a.item.ident),
    );
    let conversions = variables.all().map(|s| array_conversions(s, &target.rt));
    let parameters = parameters_struct(variables, &target.rt);
    let types = model_types(variables, target);
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
    let nr = Literal::usize_unsuffixed(target.np + target.nz);
    let nrs = Literal::usize_unsuffixed(target.np + target.nz + target.ny);
    quote! {
        #memory
        #(#conversions)*
        #parameters
        #model_struct
        #inherent
        impl #rt::ModelSizes<#n, #ns> for Model {}
        impl #rt::RelaxedSizes<#nr, #nrs> for Model {}
        #types
    }
}

/// The type of the runtime's parameter vector `p` for the builder: the `#[params]` struct, the
/// `#[inputs]` struct, `Parameters` when the model has both (`p` holds the parameters, then the
/// inputs), or the runtime's `NoParams` when it has neither.
pub fn parameters_type(variables: &Variables<'_>, rt: &TokenStream) -> TokenStream {
    match (variables.params, variables.inputs) {
        (Some(_), Some(_)) => quote!(Parameters),
        (Some(s), None) | (None, Some(s)) => {
            let ty = &s.item.ident;
            quote!(#ty)
        }
        (None, None) => quote!(#rt::NoParams),
    }
}

/// `impl ModelTypes for Model`: the builder takes the model's own state, algebraic and
/// parameter types, so that arguments of the same size cannot be swapped (issue #19).
fn model_types(variables: &Variables<'_>, target: &Target) -> TokenStream {
    let rt = &target.rt;
    let (ny, nz, np) = target.sizes();
    let states = &variables.states.item.ident;
    let algebraic = match variables.algebraic {
        Some(a) => {
            let ty = &a.item.ident;
            quote!(#ty)
        }
        None => quote!([f64; 0]),
    };
    let params = parameters_type(variables, rt);
    quote! {
        impl #rt::ModelTypes<#ny, #nz, #np> for Model {
            type State = #states;
            type Algebraic = #algebraic;
            type Params = #params;
        }
    }
}

/// For a model with both `#[params]` and `#[inputs]`: `pub struct Parameters { params, inputs }`,
/// what the builder takes as `p` (the runtime's vector holds both, parameters first), with its
/// array conversions.
fn parameters_struct(variables: &Variables<'_>, rt: &TokenStream) -> Option<TokenStream> {
    let (params, inputs) = (variables.params?, variables.inputs?);
    let (p_ty, u_ty) = (&params.item.ident, &inputs.item.ident);
    let (p_fields, u_fields) = (params.field_names(), inputs.field_names());
    let n = Literal::usize_unsuffixed(p_fields.len() + u_fields.len());
    let p_indices = (0..p_fields.len()).map(Literal::usize_unsuffixed);
    let u_indices =
        (p_fields.len()..p_fields.len() + u_fields.len()).map(Literal::usize_unsuffixed);
    let values = hygienic("values");
    let doc = format!(
        "The parameters and the inputs of the model together, as the runtime's parameter vector `p` holds them (the fields of `{p_ty}`, then those of `{u_ty}`): what the builder's `solve` and `gradient` take as parameters (`Model::parameters(&p, &u)` makes it)."
    );
    Some(quote! {
        #[doc = #doc]
        pub struct Parameters {
            /// The parameters.
            pub params: #p_ty,
            /// The inputs.
            pub inputs: #u_ty,
        }

        impl Parameters {
            /// The parameters, then the inputs, as an array.
            pub fn to_array(&self) -> [f64; #n] {
                [#(self.params.#p_fields,)* #(self.inputs.#u_fields),*]
            }

            /// The struct from an array of the parameters, then the inputs.
            pub fn from_array(#values: [f64; #n]) -> Self {
                Parameters {
                    params: #p_ty { #(#p_fields: #values[#p_indices]),* },
                    inputs: #u_ty { #(#u_fields: #values[#u_indices]),* },
                }
            }
        }

        impl #rt::Fields<#n> for Parameters {
            fn to_array(&self) -> [f64; #n] {
                Parameters::to_array(self)
            }
            fn from_array(#values: [f64; #n]) -> Self {
                Parameters::from_array(#values)
            }
        }
    })
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
    let (rt, store) = (&target.rt, &target.store);
    let n = Literal::usize_unsuffixed(target.ny + target.nz);
    let describe_doc = "`error` with this model's names: modes and guards by the names of their functions, a switching surface's guards with the surface's name (`SolveError`'s own `Display` prints their indices). For the errors of the no-heap solves; the builder's `SolveFailure` prints this way already.";
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
            /// sizes and storage. Run them on a thread with this much stack to spare (plus the
            /// caller's frames); `solver()`'s `solve` and `gradient` grow the stack themselves.
            pub const STACK_ESTIMATE: usize =
                #rt::stack_estimate_in::<#store, 6, #ny, #nz, #np, #n>();
            /// Names of the named outputs, in index order (`HybridModel::OUTPUT_NAMES`).
            pub const OUTPUT_NAMES: &'static [&'static str] = &[#(#output_names),*];
            #mode_name
            #guard_name
            #[doc = #describe_doc]
            pub fn describe(error: &#rt::SolveError) -> #rt::Described<'static> {
                error.describe(
                    <Self as #rt::HybridModel<#ny, #nz, #np>>::MODES,
                    <Self as #rt::HybridModel<#ny, #nz, #np>>::GUARDS,
                )
            }
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
