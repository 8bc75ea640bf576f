//! An attribute's arguments as a comma-separated list, split at the top-level commas before
//! anything is parsed.
//!
//! Decoding the arguments one by one (rather than parsing the whole list with one parser that
//! stops at the first unexpected token) is what lets a malformed argument be reported at its
//! own span while every other argument is still decoded and checked: `#[mode(initial,
//! mechanical)]` reports `mechanical` as reserved instead of "unexpected token" at the comma, and
//! `#[hybrid_model(stiff, crate = hy)]` still takes `crate = hy`.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;

/// One argument of a comma-separated list.
pub struct Argument {
    /// Its tokens; empty for the missing argument of `a,,b` or `(,a)`.
    pub tokens: Vec<TokenTree>,
    /// The comma that ends it, if any: where an empty argument is reported.
    comma: Option<Span>,
    /// The span of the whole list, for an empty argument without a comma.
    list: Span,
}

impl Argument {
    /// An error over the whole argument (or at its comma when it is empty).
    pub fn error(&self, message: impl std::fmt::Display) -> syn::Error {
        if self.tokens.is_empty() {
            syn::Error::new(self.comma.unwrap_or(self.list), message)
        } else {
            let tokens: TokenStream = self.tokens.iter().cloned().collect();
            syn::Error::new_spanned(tokens, message)
        }
    }
}

impl ToTokens for Argument {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(self.tokens.iter().cloned());
    }
}

/// The arguments of `tokens`, split at its top-level commas (commas inside a group belong to
/// the argument holding the group). A trailing comma ends the list without an empty argument
/// after it; an empty list has no arguments.
pub fn split(tokens: TokenStream) -> Vec<Argument> {
    let list = tokens
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span());
    let mut arguments = Vec::new();
    let mut current = Vec::new();
    for token in tokens {
        match token {
            TokenTree::Punct(p) if p.as_char() == ',' => arguments.push(Argument {
                tokens: std::mem::take(&mut current),
                comma: Some(p.span()),
                list,
            }),
            other => current.push(other),
        }
    }
    if !current.is_empty() {
        arguments.push(Argument {
            tokens: current,
            comma: None,
            list,
        });
    }
    arguments
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn pieces(tokens: proc_macro2::TokenStream) -> Vec<String> {
        super::split(tokens)
            .iter()
            .map(|a| quote!(#a).to_string())
            .collect()
    }

    #[test]
    fn splits_at_top_level_commas_only() {
        assert_eq!(
            pieces(quote!(initial, initial_if(g, positive), index2)),
            ["initial", "initial_if (g , positive)", "index2"]
        );
    }

    #[test]
    fn a_trailing_comma_adds_no_argument_but_a_doubled_one_does() {
        assert_eq!(pieces(quote!(a,)), ["a"]);
        assert_eq!(pieces(quote!(a,,b)), ["a", "", "b"]);
        assert!(pieces(quote!()).is_empty());
    }

    #[test]
    fn an_argument_may_span_several_tokens() {
        assert_eq!(pieces(quote!(crate = ::hy, x)), ["crate = :: hy", "x"]);
    }
}
