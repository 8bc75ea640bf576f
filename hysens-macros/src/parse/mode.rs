//! The arguments of `#[mode(..)]`: none, `initial` (always the first mode, or the fallback of
//! other modes' `initial_if` rules) or `initial_if(guard, positive|negative)` (the first mode
//! when that guard has that sign at `t0`), and the mode kind `index2` (a Hessenberg index-2
//! mode, Serban & Recuero 2019 §3.3), in any order; the reserved mode kinds (`mechanical`,
//! `sliding`, see [`super::reserved`]) are rejected with their own message.
//!
//! The arguments are decoded one by one (`crate::comma_list`), so that every malformed or
//! reserved argument is reported at its own span, in any position, in one compilation:
//! `#[mode(initial, mechanical)]` says that `mechanical` is reserved, as `#[mode(mechanical)]`
//! does. A mode with any such error is left out of the model, since what the user meant it to
//! be is unknown.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Ident, Meta, Token};

use super::reserved;
use crate::comma_list::{self, Argument};
use crate::model::Initial;

/// What `#[mode(..)]` may say, for the error messages.
const ALLOWED: &str =
    "write `#[mode]`, `#[mode(initial)]` or `#[mode(initial_if(guard, positive))]`, with `index2` for a Hessenberg index-2 mode";

/// What the arguments of a `#[mode(..)]` say.
pub struct ModeArguments {
    /// Whether and how the mode can be the first mode.
    pub initial: Initial,
    /// The span of `index2`, if the mode is a Hessenberg index-2 mode.
    pub index2: Option<Span>,
}

/// One decoded argument.
enum Decoded {
    /// `initial` or `initial_if(..)`.
    Initial(Initial),
    /// `index2`, at its span.
    Index2(Span),
}

/// The arguments of `attr` (a `#[mode]` attribute); every malformed or reserved argument is in
/// the error.
pub fn arguments(attr: &Attribute) -> syn::Result<ModeArguments> {
    let list = match &attr.meta {
        Meta::Path(_) => {
            return Ok(ModeArguments {
                initial: Initial::No,
                index2: None,
            })
        }
        Meta::List(list) => list,
        Meta::NameValue(_) => return Err(syn::Error::new_spanned(attr, ALLOWED)),
    };
    let mut errors: Option<syn::Error> = None;
    let mut report = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    let mut chosen: Option<Initial> = None;
    let mut index2: Option<Span> = None;
    for argument in comma_list::split(list.tokens.clone()) {
        match decode(&argument) {
            Ok(Decoded::Initial(initial)) => match &chosen {
                Some(first) => report(argument.error(format!(
                    "this mode is already marked `{}`: a mode takes one of `initial` and `initial_if(guard, sign)`; keep one",
                    spelling(first)
                ))),
                None => chosen = Some(initial),
            },
            Ok(Decoded::Index2(span)) => match index2 {
                Some(_) => report(argument.error(
                    "this mode is already marked `index2`: write it once",
                )),
                None => index2 = Some(span),
            },
            Err(e) => report(e),
        }
    }
    match errors {
        Some(errors) => Err(errors),
        None => Ok(ModeArguments {
            initial: chosen.unwrap_or(Initial::No),
            index2,
        }),
    }
}

/// One argument: `initial`, `initial_if(guard, sign)` or `index2`.
fn decode(argument: &Argument) -> syn::Result<Decoded> {
    let Some((TokenTree::Ident(key), rest)) = argument.tokens.split_first() else {
        return Err(argument.error(format!("expected a mode argument: {ALLOWED}")));
    };
    if let Some(reserved) = reserved::mode_kind(key) {
        return Err(reserved);
    }
    match key.to_string().as_str() {
        "index2" if rest.is_empty() => Ok(Decoded::Index2(key.span())),
        "index2" => Err(syn::Error::new_spanned(
            rest.iter().cloned().collect::<TokenStream>(),
            "`index2` takes no arguments: write `#[mode(index2)]` (with `initial` or `initial_if(..)` if the mode can be the first)",
        )),
        "initial" if rest.is_empty() => Ok(Decoded::Initial(Initial::Fixed(key.span()))),
        "initial" => Err(syn::Error::new_spanned(
            rest.iter().cloned().collect::<TokenStream>(),
            "`initial` takes no arguments: write `#[mode(initial)]`, or `#[mode(initial_if(guard, positive))]` to choose the first mode by the sign of a guard",
        )),
        "initial_if" => initial_if(key, rest).map(Decoded::Initial),
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
        match super::arguments(&attr) {
            Ok(_) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn reserved_kinds_are_reported_in_every_position() {
        for attr in [
            syn::parse_quote!(#[mode(mechanical)]),
            syn::parse_quote!(#[mode(initial, mechanical)]),
            syn::parse_quote!(#[mode(mechanical, initial)]),
            syn::parse_quote!(#[mode(initial_if(g, positive), mechanical)]),
            syn::parse_quote!(#[mode(index2, mechanical(3))]),
        ] {
            let errors = errors(attr);
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert!(
                errors[0].starts_with("second-order mechanical modes"),
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
    fn index2_is_written_once_and_without_arguments() {
        let twice = errors(syn::parse_quote!(#[mode(index2, initial, index2)]));
        assert_eq!(twice.len(), 1, "{twice:?}");
        assert!(twice[0].starts_with("this mode is already marked `index2`"));
        let with_arguments = errors(syn::parse_quote!(#[mode(index2(3))]));
        assert_eq!(with_arguments.len(), 1, "{with_arguments:?}");
        assert!(with_arguments[0].starts_with("`index2` takes no arguments"));
    }

    #[test]
    fn well_formed_arguments_decode() {
        let decode = |attr: Attribute| super::arguments(&attr).unwrap();
        let plain = decode(syn::parse_quote!(#[mode]));
        assert!(matches!(plain.initial, Initial::No) && plain.index2.is_none());
        assert!(matches!(
            decode(syn::parse_quote!(#[mode(initial,)])).initial,
            Initial::Fixed(_)
        ));
        assert!(matches!(
            decode(syn::parse_quote!(#[mode(initial_if(g, negative))])).initial,
            Initial::If {
                positive: false,
                ..
            }
        ));
        for attr in [
            syn::parse_quote!(#[mode(index2)]),
            syn::parse_quote!(#[mode(index2, initial)]),
            syn::parse_quote!(#[mode(initial, index2)]),
            syn::parse_quote!(#[mode(initial_if(g, positive), index2)]),
            syn::parse_quote!(#[mode(index2, initial_if(g, positive))]),
        ] {
            let decoded = decode(attr);
            assert!(decoded.index2.is_some());
        }
        let initial_index2 = decode(syn::parse_quote!(#[mode(index2, initial)]));
        assert!(matches!(initial_index2.initial, Initial::Fixed(_)));
        let initial_if_index2 = decode(syn::parse_quote!(#[mode(index2, initial_if(g, positive))]));
        assert!(matches!(
            initial_if_index2.initial,
            Initial::If { positive: true, .. }
        ));
    }
}
