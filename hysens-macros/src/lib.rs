//! # hysens-macros
//!
//! The `#[hybrid_model]` attribute macro. A model is a module of ordinary Rust; the macro reads
//! it, checks it, differentiates every expression symbolically (with `hysens-symbolic`) and adds
//! the kernels the runtime needs. The pipeline, one stage per module, in the style of
//! `thiserror`'s implementation:
//!
//! 1. `parse`: sort the module's items by their attributes into a `model::Model`;
//! 2. `validate`: resolve every name and signature, report every problem at its span;
//! 3. `lower`: turn each function into expressions over the runtime's arrays;
//! 4. `kernels`: differentiate and emit each runtime method's body;
//! 5. `expand`: assemble the module with `Model` and its `HybridModel` implementation.
//!
//! See the `hysens` crate for the model language.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod expand;
mod kernels;
mod lower;
mod model;
mod parse;
mod pipeline;
mod validate;

use proc_macro::TokenStream;

/// Turns an annotated module into a hybrid model with compile-time kernels; see the `hysens`
/// crate's documentation for the language.
#[proc_macro_attribute]
pub fn hybrid_model(args: TokenStream, input: TokenStream) -> TokenStream {
    let module = match syn::parse::<syn::ItemMod>(input) {
        Ok(module) => module,
        Err(e) => {
            let message =
                "`#[hybrid_model]` goes on a module: `#[hybrid_model] pub mod name { ... }`";
            return syn::Error::new(e.span(), message).to_compile_error().into();
        }
    };
    match pipeline::run(args.into(), module) {
        Ok(tokens) => tokens.into(),
        Err(errors) => errors
            .into_iter()
            .map(|e| e.to_compile_error())
            .collect::<proc_macro2::TokenStream>()
            .into(),
    }
}

#[cfg(test)]
mod tests {
    /// The expansion of a model is a well-formed module (printed with `--nocapture`).
    #[test]
    fn expansion_parses_as_a_module() {
        let module: syn::ItemMod = syn::parse_quote! {
            pub mod ball {
                #[states] pub struct X { pub h: f64, pub v: f64 }
                #[params] pub struct P { pub g: f64, pub e: f64 }
                #[mode(initial)] fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
                #[guard(flight -> flight, falling)] fn impact(x: &X, _p: &P) -> f64 { x.h }
                #[reset(impact)] fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.v } }
                #[cost(terminal)] fn height(x: &X, _p: &P) -> f64 { x.h }
            }
        };
        let tokens =
            super::pipeline::run(proc_macro2::TokenStream::new(), module).unwrap_or_else(|e| {
                panic!(
                    "{}",
                    e.iter()
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                        .join("\n")
                )
            });
        println!("{tokens}");
        syn::parse2::<syn::ItemMod>(tokens).unwrap();
    }
}
