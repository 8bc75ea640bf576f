//! The arguments of `#[mode(..)]`: none, `initial` (always the first mode, or the fallback of
//! other modes' `initial_if` rules) or `initial_if(guard, positive|negative)` (the first mode
//! when that guard has that sign at `t0`); the reserved mode kinds (`index2`, …, see
//! [`super::reserved`]) are rejected with their own message.
//!
//! The arguments are decoded one by one (`crate::comma_list`), so that every malformed or
//! reserved argument is reported at its own span, in any position, in one compilation:
//! `#[mode(initial, index2)]` says that `index2` is reserved, as `#[mode(index2)]` does. A mode
//! with any such error is left out of the model, since what the user meant it to be is unknown.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Ident, Meta, Token};

use super::reserved;
use crate::comma_list::{self, Argument};
use crate::model::Initial;

/// What `#[mode(..)]` may say, for the error messages.
const ALLOWED: &str =
    "write `#[mode]`, `#[mode(initial)]` or `#[mode(initial_if(guard, positive))]`";

/// How the mode of `attr` (a `#[mode]` attribute) can be the first mode; every malformed or
/// reserved argument is in the error.
pub fn initial(attr: &Attribute) -> syn::Result<Initial> {
    let list = match &attr.meta {
        Meta::Path(_) => return Ok(Initial::No),
        Meta::List(list) => list,
        Meta::NameValue(_) => return Err(syn::Error::new_spanned(attr, ALLOWED)),
    };
    let mut errors: Option<syn::Error> = None;
    let mut report = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    let mut chosen: Option<Initial> = None;
    for argument in comma_list::split(list.tokens.clone()) {
        match decode(&argument) {
            Ok(initial) => match &chosen {
                Some(first) => report(argument.error(format!(
                    "this mode is already marked `{}`: a mode takes one of `initial` and `initial_if(guard, sign)`; keep one",
                    spelling(first)
                ))),
                None => chosen = Some(initial),
            },
            Err(e) => report(e),
        }
    }
    match errors {
        Some(errors) => Err(errors),
        None => Ok(chosen.unwrap_or(Initial::No)),
    }
}

/// One argument: `initial` or `initial_if(guard, sign)`.
fn decode(argument: &Argument) -> syn::Result<Initial> {
    let Some((TokenTree::Ident(key), rest)) = argument.tokens.split_first() else {
        return Err(argument.error(format!("expected a mode argument: {ALLOWED}")));
    };
    if let Some(reserved) = reserved::mode_kind(key) {
        return Err(reserved);
    }
    match key.to_string().as_str() {
        "initial" if rest.is_empty() => Ok(Initial::Fixed(key.span())),
        "initial" => Err(syn::Error::new_spanned(
            rest.iter().cloned().collect::<TokenStream>(),
            "`initial` takes no arguments: write `#[mode(initial)]`, or `#[mode(initial_if(guard, positive))]` to choose the first mode by the sign of a guard",
        )),
        "initial_if" => initial_if(key, rest),
        _ => Err(syn::Error::new(
            key.span(),
            format!("unknown mode argument `{key}`: {ALLOWED}"),
        )),
    }
}

/// `initial_if(guard, positive)` or `initial_if(guard, negative)`, given the tokens after
/// `initial_if`.
fn initial_if(key: &Ident, rest: &[TokenTree]) -> syn::Result<Initial> {
    let rule = |input: ParseStream| -> syn::Result<(Ident, Ident)> {
        let guard: Ident = input.parse()?;
        input.parse::<Token![,]>()?;
        let sign: Ident = input.parse()?;
        Ok((guard, sign))
    };
    let (guard, sign) = match rest {
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::Parenthesis => {
            rule.parse2(g.stream()).ok()
        }
        _ => None,
    }
    .ok_or_else(|| {
        syn::Error::new(
            key.span(),
            "write `#[mode(initial_if(guard, positive))]` or `#[mode(initial_if(guard, negative))]`: this mode is the first when the guard has that sign at t0",
        )
    })?;
    let positive = match sign.to_string().as_str() {
        "positive" => true,
        "negative" => false,
        _ => {
            return Err(syn::Error::new(
                sign.span(),
                "expected `positive` or `negative`: the sign of the guard at t0 for which this mode is the first",
            ))
        }
    };
    Ok(Initial::If { guard, positive })
}

/// How `initial` was written, for an error message.
fn spelling(initial: &Initial) -> &'static str {
    match initial {
        Initial::If { .. } => "initial_if(..)",
        _ => "initial",
    }
}

#[cfg(test)]
mod tests {
    use syn::Attribute;

    use crate::model::Initial;

    /// The messages of every error `attr` gives.
    fn errors(attr: Attribute) -> Vec<String> {
        match super::initial(&attr) {
            Ok(_) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn reserved_kinds_are_reported_in_every_position() {
        for attr in [
            syn::parse_quote!(#[mode(index2)]),
            syn::parse_quote!(#[mode(initial, index2)]),
            syn::parse_quote!(#[mode(index2, initial)]),
            syn::parse_quote!(#[mode(initial_if(g, positive), index2)]),
            syn::parse_quote!(#[mode(index2(3))]),
        ] {
            let errors = errors(attr);
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert!(
                errors[0].starts_with("Hessenberg index-2 modes"),
                "{errors:?}"
            );
        }
    }

    #[test]
    fn every_bad_argument_is_reported() {
        let errors = errors(syn::parse_quote!(#[mode(mechanical, intial, sliding)]));
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].contains("mechanical modes"));
        assert!(errors[1].starts_with("unknown mode argument `intial`"));
        assert!(errors[2].contains("`#[mode(sliding)]` is reserved"));
    }

    #[test]
    fn a_mode_is_initial_once() {
        let twice = errors(syn::parse_quote!(#[mode(initial, initial_if(g, negative))]));
        assert_eq!(twice.len(), 1, "{twice:?}");
        assert!(twice[0].starts_with("this mode is already marked `initial`"));
    }

    #[test]
    fn well_formed_arguments_decode() {
        let decode = |attr: Attribute| super::initial(&attr).unwrap();
        assert!(matches!(decode(syn::parse_quote!(#[mode])), Initial::No));
        assert!(matches!(
            decode(syn::parse_quote!(#[mode(initial,)])),
            Initial::Fixed(_)
        ));
        assert!(matches!(
            decode(syn::parse_quote!(#[mode(initial_if(g, negative))])),
            Initial::If {
                positive: false,
                ..
            }
        ));
    }
}
