//! The attribute's own arguments: `#[hybrid_model]`, `#[hybrid_model(crate = path)]`,
//! `#[hybrid_model(store = heap)]`, or both.
//!
//! `store = heap` keeps the model's `NY × NY` matrices (Jacobian, reset Jacobians, LU factors)
//! on the heap (`hysens::runtime::Heap`, feature `std`) instead of in the solve's frames
//! (`store = inline`, the default): for models of hundreds of states or more, which then solve
//! on an ordinary thread's stack. `store = sparse` keeps them as `heap` does and factorizes
//! the stage matrices with a sparse LU (`hysens::runtime::Sparse`, feature `sparse` of
//! `hysens`): for large models with sparse Jacobians.
//!
//! `crate = path` names the `hysens` facade for crates that depend on it under another name
//! (`hysens = { package = "hysens", ... }` renamed, or a re-export such as
//! `pub use hysens as hs;`). Every path the expansion writes to the runtime starts with it. The
//! path is written inside the model's module, so it must resolve from there: an extern crate
//! name (`hy`), an absolute path (`::hy`) or a `crate::…` path.

use proc_macro2::{TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::parse::{ParseStream, Parser};
use syn::{Path, Token};

/// What the attribute's arguments configure.
pub struct Options {
    /// The path of the `hysens` facade, `::hysens` unless `crate = path` says otherwise.
    pub facade: Path,
    /// `store = …`: where the model's `NY × NY` matrices are kept.
    pub store: Store,
}

/// The choices of `store = …`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    /// `inline` (the default): in the solve's frames, no heap.
    Inline,
    /// `heap`: on the heap, dense LU.
    Heap,
    /// `sparse`: on the heap, sparse LU of the stage matrices.
    Sparse,
}

impl Options {
    /// The path of the runtime in generated code: `<facade>::runtime`.
    pub fn runtime(&self) -> TokenStream {
        let facade = &self.facade;
        quote!(#facade::runtime)
    }

    /// The model's `HybridModel::Store` in generated code: `<runtime>::Inline`,
    /// `<runtime>::Heap` or `<runtime>::Sparse`.
    pub fn store(&self) -> TokenStream {
        let rt = self.runtime();
        match self.store {
            Store::Inline => quote!(#rt::Inline),
            Store::Heap => quote!(#rt::Heap),
            Store::Sparse => quote!(#rt::Sparse),
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            facade: syn::parse_quote!(::hysens),
            store: Store::Inline,
        }
    }
}

/// Decodes `args`. Each argument is decoded on its own (`crate::comma_list`): a malformed one
/// is reported in `errors` at its span and the others still apply, the default standing in for
/// a malformed `crate = path`, so that the rest of the model is still checked.
pub fn parse_options(args: TokenStream, errors: &mut Vec<syn::Error>) -> Options {
    let mut options = Options::default();
    let (mut facade_seen, mut store_seen) = (false, false);
    for argument in crate::comma_list::split(args) {
        match argument.tokens.first() {
            Some(TokenTree::Ident(key)) if key == "crate" => {
                let path = facade_path.parse2(argument.to_token_stream());
                match path {
                    Ok(_) if facade_seen => errors.push(syn::Error::new(
                        key.span(),
                        "`crate = ...` is given twice: keep one",
                    )),
                    Ok(path) => options.facade = path,
                    Err(e) => errors.push(e),
                }
                facade_seen = true;
            }
            Some(TokenTree::Ident(key)) if key == "store" => {
                match store_choice.parse2(argument.to_token_stream()) {
                    Ok(_) if store_seen => errors.push(syn::Error::new(
                        key.span(),
                        "`store = ...` is given twice: keep one",
                    )),
                    Ok(store) => options.store = store,
                    Err(e) => errors.push(e),
                }
                store_seen = true;
            }
            Some(unknown) => errors.push(syn::Error::new(
                unknown.span(),
                format!(
                    "unknown argument `{unknown}`: `#[hybrid_model]` takes `crate = path`, the path of the `hysens` crate when it is not `::hysens`, and `store = inline | heap | sparse`, where the model's `NY × NY` matrices are kept"
                ),
            )),
            None => errors.push(argument.error(
                "expected an argument before this `,`: `#[hybrid_model]` takes `crate = path` and `store = inline | heap | sparse`",
            )),
        }
    }
    options
}

/// `store = inline | heap | sparse`, the whole of one argument.
fn store_choice(input: ParseStream) -> syn::Result<Store> {
    let key: syn::Ident = input.parse()?;
    let expected = "write `store = inline` (the model's `NY × NY` matrices in the solve's frames, the default), `store = heap` (on the heap) or `store = sparse` (on the heap, stage matrices factorized by a sparse LU; feature `sparse` of hysens)";
    input
        .parse::<Token![=]>()
        .map_err(|_| syn::Error::new(key.span(), expected))?;
    let choice: syn::Ident = input
        .parse()
        .map_err(|e| syn::Error::new(e.span(), expected))?;
    if !input.is_empty() {
        return Err(input.error(expected));
    }
    match choice.to_string().as_str() {
        "inline" => Ok(Store::Inline),
        "heap" => Ok(Store::Heap),
        "sparse" => Ok(Store::Sparse),
        _ => Err(syn::Error::new(choice.span(), expected)),
    }
}

/// `crate = path`, the whole of one argument.
fn facade_path(input: ParseStream) -> syn::Result<Path> {
    let key: Token![crate] = input.parse()?;
    let eq = input
        .parse::<Token![=]>()
        .map_err(|_| syn::Error::new(key.span, "write `crate = path`, e.g. `crate = ::hysens`"))?;
    let path = input.call(Path::parse_mod_style).map_err(|e| {
        let span = if input.is_empty() { eq.span } else { e.span() };
        syn::Error::new(
            span,
            "expected the path of the `hysens` crate after `crate =`, e.g. `crate = ::hysens`",
        )
    })?;
    if !input.is_empty() {
        return Err(input.error(
            "unexpected tokens after the path: write `crate = path`, e.g. `crate = ::hysens`",
        ));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use quote::{quote, ToTokens};

    fn facade(args: proc_macro2::TokenStream) -> (String, Vec<String>) {
        let mut errors = Vec::new();
        let options = super::parse_options(args, &mut errors);
        (
            options.facade.to_token_stream().to_string(),
            errors.iter().map(ToString::to_string).collect(),
        )
    }

    #[test]
    fn no_arguments_name_the_hysens_crate() {
        assert_eq!(facade(quote!()), (":: hysens".to_owned(), vec![]));
    }

    #[test]
    fn crate_argument_renames_the_facade() {
        assert_eq!(facade(quote!(crate = hy)), ("hy".to_owned(), vec![]));
        assert_eq!(
            facade(quote!(crate = crate::deps::hs,)),
            ("crate :: deps :: hs".to_owned(), vec![])
        );
    }

    #[test]
    fn other_arguments_are_errors() {
        for args in [
            quote!(stiff),
            quote!(krate = hy),
            quote!(crate),
            quote!(crate = ),
            quote!(crate = a, crate = b),
            quote!(crate = a b),
            quote!(crate = a,, ),
        ] {
            let (path, errors) = facade(args.clone());
            assert_eq!(errors.len(), 1, "{args}: {errors:?}");
            assert!(!path.is_empty());
        }
    }

    #[test]
    fn store_argument_chooses_the_storage() {
        use super::Store;
        for (args, store) in [
            (quote!(), Store::Inline),
            (quote!(store = heap), Store::Heap),
            (quote!(store = inline), Store::Inline),
            (quote!(store = sparse), Store::Sparse),
            (quote!(crate = hy, store = heap), Store::Heap),
        ] {
            let mut errors = Vec::new();
            let options = super::parse_options(args.clone(), &mut errors);
            assert!(errors.is_empty(), "{args}: {errors:?}");
            assert_eq!(options.store, store, "{args}");
        }
        for args in [
            quote!(store),
            quote!(store = ),
            quote!(store = stack),
            quote!(store = heap heap),
            quote!(store = heap, store = inline),
        ] {
            let mut errors = Vec::new();
            super::parse_options(args.clone(), &mut errors);
            assert_eq!(errors.len(), 1, "{args}: {errors:?}");
        }
    }

    #[test]
    fn a_bad_argument_does_not_hide_the_others() {
        let (path, errors) = facade(quote!(stiff, crate = hy, fast));
        assert_eq!(path, "hy");
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].starts_with("unknown argument `stiff`"));
        assert!(errors[1].starts_with("unknown argument `fast`"));
    }
}
