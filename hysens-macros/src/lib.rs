//! # hysens-macros
//!
//! The `#[hybrid_model]` attribute macro. A model is a module of ordinary Rust; the macro reads
//! it, checks it, differentiates every expression symbolically (with `hysens-symbolic`) and adds
//! the kernels the runtime needs. The pipeline, one stage per module, in the style of
//! `thiserror`'s implementation:
//!
//! 0. `args`: the attribute's own arguments (`crate = path`);
//! 1. `parse`: sort the module's items by their attributes into a `model::Model`;
//! 2. `validate`: resolve every name and signature, report every problem at its span;
//! 3. `lower`: turn each function into expressions over the runtime's arrays;
//! 4. `kernels`: differentiate and emit each runtime method's body;
//! 5. `expand`: assemble the module with `Model` and its `HybridModel` implementation.
//!
//! A switching surface (`#[switching_surface]`) adds a sliding mode and four guards to the
//! model; `filippov` says which, in what order and how the mode entered at their events is
//! chosen, and each stage treats them next to the user's modes and guards. A terminal guard
//! (`#[guard(from -> stop, ..)]`) switches to a stopped mode appended after them (one per mode
//! such a guard leaves, `model::Model::stopped_modes`), which the runtime ends the solve in.
//!
//! Every mistake of a module is reported in one compilation, each at its span: an argument or
//! an attribute that does not decode leaves the rest to be checked, a name that does not
//! resolve leaves the functions' bodies to be read, and only what an error makes meaningless
//! is skipped (the body of a function whose signature is wrong), so that no error is reported
//! twice.
//!
//! On any error the macro emits the errors *and* the module with stand-ins for what it would
//! have generated (`expand::fallback`), as `thiserror` and `serde` do, so that code using the
//! model does not add errors of its own. See the `hysens` crate for the model language.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod args;
mod comma_list;
mod expand;
mod filippov;
mod kernels;
mod lower;
mod model;
mod parse;
mod pipeline;
mod validate;

use proc_macro::TokenStream;

/// Turns an annotated module into a hybrid model with compile-time kernels. The language —
/// every attribute, with a compiled example — is the guide of the `hysens` crate, the page
/// `hysens::guide` (`src/guide.rs` of the repository).
///
/// Two optional arguments. `#[hybrid_model(crate = path)]`: the path of the `hysens` crate when
/// the model's crate knows it by another name (after `extern crate hysens as hy;`,
/// `crate = hy`; for a re-export, e.g. `crate = crate::deps::hysens`). The path is used from
/// inside the model's module, so write it as it resolves there; the default is `::hysens`.
/// `#[hybrid_model(store = heap)]`: the model's `NY × NY` matrices on the heap
/// (`hysens::runtime::Heap`, for models of hundreds of states or more) rather than in the
/// solve's frames (`store = inline`, the default); `store = sparse`: on the heap too, with the
/// stage matrices factorized by a sparse LU (`hysens::runtime::Sparse`, feature `sparse` of
/// `hysens`; for large models with sparse Jacobians).
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
        Err(failure) => failure.into_tokens().into(),
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;

    use super::pipeline::{self, Failure};

    /// The expansion of `module`, which must succeed (else a panic with its errors).
    fn expand(module: syn::ItemMod) -> TokenStream {
        pipeline::run(TokenStream::new(), module).unwrap_or_else(|e| {
            let errors: Vec<String> = e.errors.iter().map(|e| e.to_string()).collect();
            panic!("{}", errors.join("\n"))
        })
    }

    /// The failure of `module`, which must have errors (`why`: the panic message otherwise).
    fn expect_failure(module: syn::ItemMod, why: &str) -> Failure {
        let Err(failure) = pipeline::run(TokenStream::new(), module) else {
            panic!("{why}");
        };
        failure
    }

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
                #[output] fn energy(x: &X, p: &P) -> f64 { 0.5 * x.v * x.v + p.g * x.h }
            }
        };
        let tokens = expand(module);
        let text = tokens.to_string();
        println!("{text}");
        // The outputs are associated functions of the model type (no `&self`).
        for generated in [
            "const OUTPUT_NAMES : & 'static [& 'static str] = Model :: OUTPUT_NAMES",
            "fn output (output : usize",
            "fn output_partials (output : usize",
        ] {
            assert!(text.contains(generated), "{generated} is missing");
        }
        syn::parse2::<syn::ItemMod>(tokens).unwrap();
    }

    /// A model with a switching surface expands to a well-formed module with its sliding mode,
    /// its four guards and `event_target` (printed with `--nocapture`).
    #[test]
    fn switching_surface_expansion_parses_as_a_module() {
        let module: syn::ItemMod = syn::parse_quote! {
            pub mod wall {
                #[states] pub struct X { pub x: f64, pub y: f64 }
                #[params] pub struct P { pub c: f64, pub a: f64 }
                #[mode(initial)] fn below(_x: &X) -> X { X { x: 1.0, y: 1.0 } }
                #[mode] fn above(_x: &X, p: &P) -> X { X { x: p.a, y: 1.0 } }
                #[switching_surface(below, above)] fn wall(x: &X, p: &P) -> f64 { x.x - p.c }
            }
        };
        let tokens = expand(module);
        let text = tokens.to_string();
        println!("{text}");
        for generated in [
            "\"wall_sliding\"",
            "\"wall_from_below\"",
            "\"wall_from_above\"",
            "\"wall_exit_to_below\"",
            "\"wall_exit_to_above\"",
            "fn event_target",
        ] {
            assert!(text.contains(generated), "{generated} is missing");
        }
        syn::parse2::<syn::ItemMod>(tokens).unwrap();
    }

    /// A model with an index-2 mode expands to a well-formed module with `hidden_constraint`
    /// and its partials (an arm for the index-2 mode only) and `index2: true` in `MODES`; a
    /// model without one keeps the trait's defaults (printed with `--nocapture`).
    #[test]
    fn index2_expansion_parses_as_a_module() {
        let module: syn::ItemMod = syn::parse_quote! {
            pub mod cart {
                #[states] pub struct X { pub q: f64, pub v: f64 }
                #[algebraic] pub struct Z { pub force: f64 }
                #[params] pub struct P { pub m: f64, pub r: f64 }
                #[mode(index2, initial)]
                fn pushed(t: f64, x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
                    (X { q: x.v, v: z.force / p.m }, [x.v - p.r * t])
                }
                #[mode]
                fn coasting(x: &X, z: &Z) -> (X, [f64; 1]) {
                    (X { q: x.v, v: 0.0 }, [z.force])
                }
                #[guard(pushed -> coasting, rising)] fn fast(x: &X) -> f64 { x.v - 2.0 }
            }
        };
        let tokens = expand(module);
        let text = tokens.to_string();
        println!("{text}");
        for generated in [
            "fn hidden_constraint (& self , mode : usize",
            "fn hidden_constraint_partials (& self , mode : usize",
            "ConditionPartials < 2 , 1 , 2 >",
            "index2 : true",
            "index2 : false",
        ] {
            assert!(text.contains(generated), "{generated} is missing");
        }
        syn::parse2::<syn::ItemMod>(tokens).unwrap();

        let module: syn::ItemMod = syn::parse_quote! {
            pub mod tank {
                #[states] pub struct X { pub h: f64 }
                #[algebraic] pub struct Z { pub q: f64 }
                #[mode(initial)]
                fn draining(x: &X, z: &Z) -> (X, [f64; 1]) { (X { h: -z.q }, [z.q - x.h]) }
            }
        };
        let text = expand(module).to_string();
        assert!(!text.contains("hidden_constraint"));
        assert!(!text.contains("index2 : true"));
    }

    /// A model with errors expands to its errors and a well-formed module with the whole shell
    /// and stub kernels (printed with `--nocapture`).
    #[test]
    fn fallback_parses_as_a_module_with_the_shell() {
        let module: syn::ItemMod = syn::parse_quote! {
            pub mod ball {
                #[states] pub struct X { pub h: f64, pub v: f64 }
                #[algebraic] pub struct Z { pub w: f64 }
                #[params] pub struct P { pub g: f64 }
                #[inputs] pub struct U { pub e: f64 }
                #[mode(initial)] fn flight(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
                    (X { h: x.q, v: -p.g }, [z.w])
                }
                #[guard(flight -> flight, falling)] fn impact(x: &X, m: &Memory) -> f64 { x.h - m.y.h }
                #[reset(impact)] fn bounce(x: &X, u: &U) -> X { X { h: x.h, v: -u.e * x.v } }
                #[output] fn height(x: &X) -> f64 { x.h }
            }
        };
        let failure = expect_failure(module, "`x.q` is an error");
        assert_eq!(failure.errors.len(), 1);
        let fallback = failure.fallback.to_string();
        println!("{fallback}");
        for generated in [
            "pub struct Memory",
            "pub struct Model",
            "fn mode_name",
            "fn solve_with_sensitivities",
            "HybridModel < 2 , 1 , 2 > for Model",
            "AdjointProducts < 2 , 1 , 2 > for Model",
            "ModelSizes < 3 , 4 > for Model",
            "RelaxedSizes < 3 , 5 > for Model",
        ] {
            assert!(fallback.contains(generated), "{generated} is missing");
        }
        syn::parse2::<syn::ItemMod>(failure.fallback).unwrap();
    }

    /// A model that `validate` rejects still has the bodies of its functions read for their
    /// own mistakes, without being assembled: here the surface's modes and the guard's modes
    /// do not exist (the model has none), which the runtime's numbering could not place.
    #[test]
    fn rejected_model_bodies_are_read_without_assembly() {
        let module: syn::ItemMod = syn::parse_quote! {
            mod relay {
                #[states] pub struct X { pub h: f64 }
                #[guard(a -> b, rising)] fn g(x: &X) -> f64 { x.q }
                #[reset(h)] fn r(_x: &X) -> X { X { h: 1 } }
                #[switching_surface(a, b)] fn wall(x: &X) -> f64 { x.h * 2 }
                #[output] fn o(x: &X) -> X { X { h: x.w } }
            }
        };
        let failure = expect_failure(module, "the model has errors");
        let messages: Vec<String> = failure.errors.iter().map(|e| e.to_string()).collect();
        let expected = [
            "a hybrid model needs at least one mode",
            "unknown mode `a`: a guard",
            "unknown mode `b`: a guard",
            "unknown guard `h`",
            "unknown mode `a`: a switching surface",
            "unknown mode `b`: a switching surface",
            "an output returns one `f64`",
            // The bodies: the output's, whose return type is wrong, is not read.
            "unknown variable `x.q`",
            "integer literal `1`",
            "integer literal `2`",
        ];
        assert_eq!(messages.len(), expected.len(), "{messages:#?}");
        for (message, expected) in messages.iter().zip(expected) {
            assert!(message.starts_with(expected), "{message} ≠ {expected}…");
        }
        syn::parse2::<syn::ItemMod>(failure.fallback).unwrap();
    }

    /// Without well-formed variable structs the fallback still has `Model`.
    #[test]
    fn fallback_without_variables_has_the_model_struct() {
        let module: syn::ItemMod = syn::parse_quote! {
            mod ball {
                #[states] pub struct X { pub h: f32 }
                #[mode(initial)] fn flight(x: &X) -> X { X { h: -x.h } }
            }
        };
        let failure = expect_failure(module, "an `f32` field is an error");
        let fallback = failure.fallback.to_string();
        assert!(fallback.contains("pub struct Model"));
        assert!(fallback.contains("pub struct Memory"));
        assert!(!fallback.contains("HybridModel"));
        syn::parse2::<syn::ItemMod>(failure.fallback).unwrap();
    }
}
