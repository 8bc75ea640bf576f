//! Names reserved for model classes of the papers that hysens does not build yet: the
//! attributes `#[constraint]` and `#[mass_matrix]`, and the mode kinds `mechanical` and
//! `sliding` of `#[mode(..)]` (`index2`, reserved before, is a mode kind now: see
//! [`super::mode`]).
//!
//! A reserved name is recognised wherever it is written (alone, next to other attributes, or
//! in any position of `#[mode(..)]`, with or without arguments of its own) and rejected with
//! the message that says what it is reserved for, so that a model written for a later version
//! fails with that message rather than with a parse error, and so that the names stay free for
//! those features.

use syn::{Attribute, Ident};

/// Attributes reserved for model classes of the papers, with what they are for.
const ATTRIBUTES: [(&str, &str); 2] = [
    (
        "constraint",
        "constraints of mechanical modes (Corner, Sandu & Sandu)",
    ),
    (
        "mass_matrix",
        "second-order mechanical modes with a mass matrix (Corner, Sandu & Sandu)",
    ),
];

/// Mode kinds reserved in `#[mode(..)]`, with the message rejecting each.
const MODE_KINDS: [(&str, &str); 2] = [
    (
        "mechanical",
        "second-order mechanical modes (Corner, Sandu & Sandu) are reserved and not supported yet",
    ),
    (
        "sliding",
        "`#[mode(sliding)]` is reserved: a sliding mode is generated from its switching surface; declare the surface with `#[switching_surface(negative, positive)] fn name(x: &X) -> f64`",
    ),
];

/// The error for `attr` when it is a reserved attribute.
pub fn attribute(attr: &Attribute) -> Option<syn::Error> {
    let name = attr.path().get_ident()?.to_string();
    ATTRIBUTES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, what)| {
            syn::Error::new_spanned(
                attr,
                format!("`#[{name}]` is reserved for {what}, which hysens does not support yet"),
            )
        })
}

/// The error for `key`, an argument of `#[mode(..)]`, when it is a reserved mode kind.
pub fn mode_kind(key: &Ident) -> Option<syn::Error> {
    MODE_KINDS
        .iter()
        .find(|(kind, _)| key == kind)
        .map(|(_, message)| syn::Error::new(key.span(), *message))
}
