//! The arguments of `#[guard(..)]`, `#[reset(..)]`, `#[cost(..)]`, `#[switching_surface(..)]`
//! and of the attributes that take none (`#[states]`, `#[output]`, …). `#[mode(..)]` has its
//! own file, [`super::mode`].
//!
//! Each decoder returns `Err` when the arguments do not say where the item belongs (a guard
//! without its target mode, a cost of unknown kind): the item is then left out of the model.
//! A mistake in an argument that does not place the item (a guard's direction, tokens after a
//! surface's two modes, arguments to an attribute that takes none) is pushed to `errors`
//! instead, with a stand-in in its place: the item stays in the model, so that the names its
//! attribute gives and its function are still checked in the same compilation. The model does
//! not expand either way, so the stand-in never reaches generated code.

use syn::parse::{Parse, ParseStream, Parser};
use syn::{Attribute, Ident, Meta, Token};

use super::attr_name;
use crate::model::{CostKind, Direction};

/// `#[guard(from -> to, direction)]`. A missing or unknown direction is reported in `errors`
/// and `either` stands in for it.
pub fn guard(
    attr: &Attribute,
    errors: &mut Vec<syn::Error>,
) -> syn::Result<(Ident, Ident, Direction)> {
    if matches!(attr.meta, Meta::Path(_)) {
        return Err(syn::Error::new_spanned(
            attr,
            "a guard needs a source and a target mode: write `#[guard(from -> to, direction)]`",
        ));
    }
    let (from, to, direction) = attr.parse_args_with(|input: ParseStream| {
        let from: Ident = input.parse()?;
        if !input.peek(Token![->]) {
            return Err(syn::Error::new(
                from.span(),
                "a guard needs a target mode: write `#[guard(from -> to, direction)]`",
            ));
        }
        input.parse::<Token![->]>()?;
        let to: Ident = input.parse()?;
        let direction = if input.is_empty() {
            Err(syn::Error::new(
                to.span(),
                "a guard needs a crossing direction: `rising`, `falling` or `either`",
            ))
        } else {
            direction(input)
        };
        // What `direction` did not read is part of its error: leave nothing for `parse_args`.
        let _ = input.parse::<proc_macro2::TokenStream>();
        Ok((from, to, direction))
    })?;
    let direction = direction.unwrap_or_else(|e| {
        errors.push(e);
        Direction::Either
    });
    Ok((from, to, direction))
}

/// `, direction` at the end of a guard's arguments.
fn direction(input: ParseStream) -> syn::Result<Direction> {
    input.parse::<Token![,]>()?;
    let dir: Ident = input.parse()?;
    let direction = match dir.to_string().as_str() {
        "rising" => Direction::Rising,
        "falling" => Direction::Falling,
        "either" => Direction::Either,
        _ => {
            return Err(syn::Error::new(
                dir.span(),
                "unknown direction: expected `rising`, `falling` or `either`",
            ))
        }
    };
    if !input.is_empty() {
        return Err(input.error("unexpected tokens after the direction"));
    }
    Ok(direction)
}

/// `#[reset(guard)]`.
pub fn reset(attr: &Attribute) -> syn::Result<Ident> {
    attr.parse_args::<Ident>().map_err(|_| {
        syn::Error::new_spanned(
            attr,
            "write `#[reset(guard_name)]`: the guard whose switch this reset applies",
        )
    })
}

/// `#[switching_surface(negative, positive)]`: the modes on the sides `g < 0` and `g > 0`.
/// Tokens after the two modes are reported in `errors`.
pub fn surface(attr: &Attribute, errors: &mut Vec<syn::Error>) -> syn::Result<(Ident, Ident)> {
    let expected = "write `#[switching_surface(negative, positive)]`: the mode that holds where the function is negative, then the one where it is positive";
    if matches!(attr.meta, Meta::Path(_)) {
        return Err(syn::Error::new_spanned(attr, expected));
    }
    let modes = |input: ParseStream| {
        let negative: Ident = input.parse()?;
        input.parse::<Token![,]>()?;
        let positive: Ident = input.parse()?;
        let _ = input.parse::<Option<Token![,]>>()?;
        if !input.is_empty() {
            errors.push(input.error("unexpected tokens after the two modes: a switching surface names the mode on its negative side and the one on its positive side, nothing else (it is watched in both directions)"));
            let _ = input.parse::<proc_macro2::TokenStream>();
        }
        Ok((negative, positive))
    };
    modes
        .parse2(attr.meta.require_list()?.tokens.clone())
        .map_err(|_| syn::Error::new_spanned(attr, expected))
}

/// `integral`, `terminal` or `sampled`, and for an integral cost the modes it is limited to,
/// `#[cost(integral, modes(a, b))]` (`None`: every mode). `modes(..)` on another kind is
/// reported in `errors` and dropped.
pub fn cost(
    attr: &Attribute,
    errors: &mut Vec<syn::Error>,
) -> syn::Result<(CostKind, Option<Vec<Ident>>)> {
    let expected = "expected `#[cost(integral)]`, `#[cost(integral, modes(a, b))]`, `#[cost(terminal)]` or `#[cost(sampled)]`";
    let (kind, modes) = attr
        .parse_args_with(|input: ParseStream| {
            let kind: Ident = input.parse()?;
            if input.is_empty() {
                return Ok((kind, None));
            }
            input.parse::<Token![,]>()?;
            let key: Ident = input.parse()?;
            if key != "modes" {
                return Err(syn::Error::new(key.span(), expected));
            }
            let list;
            syn::parenthesized!(list in input);
            let names = list.parse_terminated(<Ident as Parse>::parse, Token![,])?;
            Ok((kind, Some((key, names.into_iter().collect::<Vec<_>>()))))
        })
        .map_err(|e| syn::Error::new(e.span(), expected))?;
    let kind = match kind.to_string().as_str() {
        "integral" => CostKind::Integral,
        "terminal" => CostKind::Terminal,
        "sampled" => CostKind::Sampled,
        _ => return Err(syn::Error::new(kind.span(), expected)),
    };
    match modes {
        Some((key, _)) if kind != CostKind::Integral => {
            errors.push(syn::Error::new(
                key.span(),
                "only an integral cost can be limited to some modes: a terminal or sampled cost is read at one time, in whatever mode the solve is in",
            ));
            Ok((kind, None))
        }
        Some((key, names)) if names.is_empty() => {
            errors.push(syn::Error::new(
                key.span(),
                "`modes()` names no mode: list the modes the integrand applies in, or leave `modes(..)` out for every mode",
            ));
            Ok((kind, None))
        }
        other => Ok((kind, other.map(|(_, names)| names))),
    }
}

/// An attribute that takes no arguments (`#[states]`, `#[output]`, …): arguments are reported
/// in `errors`.
pub fn none(attr: &Attribute, errors: &mut Vec<syn::Error>) {
    if !matches!(attr.meta, Meta::Path(_)) {
        errors.push(syn::Error::new_spanned(
            attr,
            format!("`#[{}]` takes no arguments", attr_name(attr)),
        ));
    }
}
