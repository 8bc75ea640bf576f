//! The whole macro as a function on `proc_macro2` tokens: arguments → parse → validate → lower
//! → expand. Kept apart from the `#[proc_macro_attribute]` entry point so that tests and
//! benchmarks can run it outside a compiler.
//!
//! Every stage reports all the problems it finds and the next stage still runs when it has
//! something sound to work on, so one compilation shows as many mistakes as possible: a model
//! that `validate` rejects still has the bodies of its soundly declared functions read by
//! `lower` for their own mistakes. A model with any error expands to the errors plus
//! `expand::fallback`.

use proc_macro2::TokenStream;

/// A model that did not expand.
pub struct Failure {
    /// Every problem found, each at its span.
    pub errors: Vec<syn::Error>,
    /// What to emit next to the errors: the module and stand-ins for the generated items, so
    /// that code using the model reports no errors of its own.
    pub fallback: TokenStream,
}

impl Failure {
    /// The errors as `compile_error!`s, followed by the fallback.
    pub fn into_tokens(self) -> TokenStream {
        let mut tokens: TokenStream = self
            .errors
            .iter()
            .map(syn::Error::to_compile_error)
            .collect();
        tokens.extend(self.fallback);
        tokens
    }
}

/// Expands `module` (with the attribute's `args`), or returns every error found and the
/// fallback expansion.
pub fn run(args: TokenStream, module: syn::ItemMod) -> Result<TokenStream, Failure> {
    let mut errors = Vec::new();
    let options = crate::args::parse_options(args, &mut errors);
    let Some(model) = crate::parse::parse_model(module, &mut errors) else {
        let fallback = TokenStream::new();
        return Err(Failure { errors, fallback });
    };
    let failure = |errors, variables| Failure {
        fallback: crate::expand::fallback(&model, variables, &options),
        errors,
    };
    let checked = match crate::validate::check(&model) {
        Ok(checked) => checked,
        Err(rejected) => {
            errors.extend(rejected.errors);
            if let Some(partial) = &rejected.checked {
                errors.extend(crate::lower::body_errors(partial));
            }
            return Err(failure(errors, rejected.variables));
        }
    };
    match crate::lower::lower(&checked) {
        Ok(mut lowered) if errors.is_empty() => {
            Ok(crate::expand::expand(&checked, &mut lowered, &options))
        }
        Ok(_) => Err(failure(errors, Some(checked.variables))),
        Err(lower_errors) => {
            errors.extend(lower_errors);
            Err(failure(errors, Some(checked.variables)))
        }
    }
}
