//! Reading the annotated module: which item plays which role, decoded from its attribute.
//!
//! This stage only sorts items and decodes attribute arguments; it reports malformed
//! attributes (a guard without a target, an unknown direction, an attribute on the wrong kind of
//! item) and leaves every cross-reference to `validate`. It does not stop at the first
//! malformed attribute: the items that decode make a partial model that `validate` still
//! checks, so one compilation reports the mistakes of both stages.

use syn::parse::ParseStream;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Item, ItemFn, ItemMod, Token};

use crate::model::{
    Cost, CostKind, Direction, Guard, Initial, Mode, Model, Reset, Surface, Unparsed,
    VariableStruct,
};

/// The attributes this macro owns inside the module.
const STRUCT_ATTRIBUTES: [&str; 4] = ["states", "algebraic", "params", "inputs"];
const FN_ATTRIBUTES: [&str; 6] = [
    "mode",
    "guard",
    "reset",
    "cost",
    "output",
    "switching_surface",
];
/// Attributes reserved for model classes of the papers that are not built yet.
const RESERVED_ATTRIBUTES: [(&str, &str); 2] = [
    (
        "constraint",
        "constraints of mechanical modes (Corner, Sandu & Sandu)",
    ),
    (
        "mass_matrix",
        "second-order mechanical modes with a mass matrix (Corner, Sandu & Sandu)",
    ),
];

/// Sorts the items of `module` by role, reporting every malformed attribute in `errors`.
///
/// An item whose attribute does not decode is left out of its role (and recorded in
/// `Model::unparsed`), so that the rest of the model can still be checked. Every attribute of
/// ours, well-formed or not, is stripped from the module. `None` when there is no model to
/// read: the module is not inline.
pub fn parse_model(mut module: ItemMod, errors: &mut Vec<syn::Error>) -> Option<Model> {
    let header = ItemMod {
        content: None,
        ..module.clone()
    };
    let Some((_, items)) = module.content.as_mut() else {
        errors.push(syn::Error::new_spanned(
            &header,
            "`#[hybrid_model]` needs an inline module: write the model's items in `mod name { ... }`",
        ));
        return None;
    };
    let mut model = Model {
        module: header,
        states: Vec::new(),
        algebraic: Vec::new(),
        params: Vec::new(),
        inputs: Vec::new(),
        constants: Vec::new(),
        helpers: Vec::new(),
        modes: Vec::new(),
        guards: Vec::new(),
        resets: Vec::new(),
        surfaces: Vec::new(),
        costs: Vec::new(),
        outputs: Vec::new(),
        unparsed: Vec::new(),
    };
    for item in items.iter_mut() {
        let ours = attributes_mut(item)
            .map(take_our_attributes)
            .unwrap_or_default();
        if let Err(e) = sort_item(item, ours.clone(), &mut model) {
            errors.push(e);
            if let Item::Fn(f) = item {
                model.unparsed.extend(ours.iter().map(|attribute| Unparsed {
                    name: f.sig.ident.clone(),
                    attribute: attr_name(attribute),
                }));
            }
        }
    }
    model.module = module;
    Some(model)
}

/// The attributes of the kinds of item that can carry ours.
fn attributes_mut(item: &mut Item) -> Option<&mut Vec<Attribute>> {
    match item {
        Item::Struct(s) => Some(&mut s.attrs),
        Item::Fn(f) => Some(&mut f.attrs),
        Item::Const(c) => Some(&mut c.attrs),
        Item::Enum(e) => Some(&mut e.attrs),
        Item::Impl(i) => Some(&mut i.attrs),
        Item::Mod(m) => Some(&mut m.attrs),
        Item::Static(s) => Some(&mut s.attrs),
        Item::Type(t) => Some(&mut t.attrs),
        Item::Use(u) => Some(&mut u.attrs),
        _ => None,
    }
}

/// Removes and returns the attributes of ours (reserved ones included) on an item.
fn take_our_attributes(attrs: &mut Vec<Attribute>) -> Vec<Attribute> {
    let mut ours = Vec::new();
    attrs.retain(|a| {
        let mine = is_our_attribute(a) || reserved_attribute(a).is_some();
        if mine {
            ours.push(a.clone());
        }
        !mine
    });
    ours
}

/// Records `item` in `model` by its role, given the attributes of ours taken from it.
fn sort_item(item: &mut Item, ours: Vec<Attribute>, model: &mut Model) -> syn::Result<()> {
    let attr = one_role(ours)?;
    match (item, attr) {
        (Item::Struct(s), Some(attr)) if is_struct_attribute(&attr) => {
            let decl = VariableStruct {
                item: s.clone(),
                attribute: attr.path().span(),
            };
            let list = match attr_name(&attr).as_str() {
                "states" => &mut model.states,
                "algebraic" => &mut model.algebraic,
                "params" => &mut model.params,
                _ => &mut model.inputs,
            };
            list.push(decl);
            require_no_arguments(&attr)?;
        }
        (Item::Fn(f), Some(attr)) if is_function_attribute(&attr) => {
            allow_dead_code(&mut f.attrs);
            sort_function(f.clone(), &attr, model)?;
        }
        (Item::Fn(f), None) => {
            allow_dead_code(&mut f.attrs);
            model.helpers.push(f.clone());
        }
        (Item::Const(c), None) => model.constants.push(c.clone()),
        (item, Some(attr)) => return Err(misplaced(item, &attr)),
        (_, None) => {}
    }
    Ok(())
}

/// Records a model function by its attribute `attr`.
fn sort_function(func: ItemFn, attr: &Attribute, model: &mut Model) -> syn::Result<()> {
    match attr_name(attr).as_str() {
        "mode" => model.modes.push(Mode {
            initial: parse_mode_arguments(attr)?,
            func,
        }),
        "guard" => {
            let (from, to, direction) = attr
                .parse_args_with(parse_guard_arguments)
                .map_err(|e| guard_error(attr, e))?;
            model.guards.push(Guard {
                func,
                from,
                to,
                direction,
            });
        }
        "reset" => model.resets.push(Reset {
            guard: attr.parse_args::<Ident>().map_err(|_| {
                syn::Error::new_spanned(
                    attr,
                    "write `#[reset(guard_name)]`: the guard whose switch this reset applies",
                )
            })?,
            func,
        }),
        "cost" => model.costs.push(Cost {
            kind: parse_cost_kind(attr)?,
            func,
        }),
        "switching_surface" => {
            let (negative, positive) = parse_surface_arguments(attr)?;
            model.surfaces.push(Surface {
                func,
                negative,
                positive,
            });
        }
        _ => {
            require_no_arguments(attr)?;
            model.outputs.push(func);
        }
    }
    Ok(())
}

/// The one attribute of ours on an item; two of ours, or a reserved one, is an error.
fn one_role(mut ours: Vec<Attribute>) -> syn::Result<Option<Attribute>> {
    if let Some(reserved) = ours.iter().find_map(reserved_attribute) {
        return Err(reserved);
    }
    match ours.len() {
        0 => Ok(None),
        1 => Ok(ours.pop()),
        _ => Err(syn::Error::new_spanned(
            &ours[1],
            format!(
                "an item has one role, not `#[{}]` and `#[{}]` together: split it into two functions",
                attr_name(&ours[0]),
                attr_name(&ours[1])
            ),
        )),
    }
}

/// An attribute of ours on an item of the wrong kind.
fn misplaced(item: &Item, attr: &Attribute) -> syn::Error {
    let name = attr_name(attr);
    let wanted = if is_struct_attribute(attr) {
        "a struct of `f64` fields"
    } else {
        "a function"
    };
    let message = match item {
        Item::Struct(_) | Item::Fn(_) | Item::Const(_) => {
            format!("`#[{name}]` belongs on {wanted}")
        }
        _ => format!("`#[{name}]` does not belong on this kind of item"),
    };
    syn::Error::new_spanned(attr, message)
}

fn reserved_attribute(attr: &Attribute) -> Option<syn::Error> {
    let name = attr_name(attr);
    RESERVED_ATTRIBUTES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, what)| {
            syn::Error::new_spanned(
                attr,
                format!("`#[{name}]` is reserved for {what}, which hysens does not support yet"),
            )
        })
}

fn attr_name(attr: &Attribute) -> String {
    attr.path()
        .get_ident()
        .map(Ident::to_string)
        .unwrap_or_default()
}

fn is_our_attribute(attr: &Attribute) -> bool {
    let name = attr_name(attr);
    STRUCT_ATTRIBUTES.contains(&name.as_str()) || FN_ATTRIBUTES.contains(&name.as_str())
}

fn is_struct_attribute(attr: &Attribute) -> bool {
    STRUCT_ATTRIBUTES.contains(&attr_name(attr).as_str())
}

fn is_function_attribute(attr: &Attribute) -> bool {
    FN_ATTRIBUTES.contains(&attr_name(attr).as_str())
}

fn require_no_arguments(attr: &Attribute) -> syn::Result<()> {
    match &attr.meta {
        syn::Meta::Path(_) => Ok(()),
        _ => Err(syn::Error::new_spanned(
            attr,
            format!("`#[{}]` takes no arguments", attr_name(attr)),
        )),
    }
}

/// Model functions are kept as ordinary Rust functions, callable by the user; the generated
/// kernels do not call them, so they are marked used-or-not.
fn allow_dead_code(attrs: &mut Vec<Attribute>) {
    attrs.push(syn::parse_quote!(#[allow(dead_code)]));
}

/// `#[mode]`, `#[mode(initial)]`, `#[mode(initial_if(guard, positive|negative))]`.
fn parse_mode_arguments(attr: &Attribute) -> syn::Result<Initial> {
    if matches!(attr.meta, syn::Meta::Path(_)) {
        return Ok(Initial::No);
    }
    attr.parse_args_with(|input: ParseStream| {
        let key: Ident = input.parse()?;
        match key.to_string().as_str() {
            "initial" => Ok(Initial::Fixed(key.span())),
            "initial_if" => {
                let rule = || -> syn::Result<(Ident, Ident)> {
                    let content;
                    syn::parenthesized!(content in input);
                    let guard: Ident = content.parse()?;
                    content.parse::<Token![,]>()?;
                    let sign: Ident = content.parse()?;
                    if content.is_empty() {
                        Ok((guard, sign))
                    } else {
                        Err(content.error("unexpected tokens"))
                    }
                };
                let (guard, sign) = rule().map_err(|_| {
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
            "index2" => Err(syn::Error::new(
                key.span(),
                "Hessenberg index-2 modes (Serban & Recuero §3.3) are reserved and not supported yet",
            )),
            "mechanical" => Err(syn::Error::new(
                key.span(),
                "second-order mechanical modes (Corner, Sandu & Sandu) are reserved and not supported yet",
            )),
            "sliding" => Err(syn::Error::new(
                key.span(),
                "`#[mode(sliding)]` is reserved: a sliding mode is generated from its switching surface; declare the surface with `#[switching_surface(negative, positive)] fn name(x: &X) -> f64`",
            )),
            _ => Err(syn::Error::new(
                key.span(),
                "expected `#[mode]`, `#[mode(initial)]` or `#[mode(initial_if(guard, positive))]`",
            )),
        }
    })
}

/// `from -> to, direction`.
fn parse_guard_arguments(input: ParseStream) -> syn::Result<(Ident, Ident, Direction)> {
    let from: Ident = input.parse()?;
    if !input.peek(Token![->]) {
        return Err(syn::Error::new(
            from.span(),
            "a guard needs a target mode: write `#[guard(from -> to, direction)]`",
        ));
    }
    input.parse::<Token![->]>()?;
    let to: Ident = input.parse()?;
    if input.is_empty() {
        return Err(syn::Error::new(
            to.span(),
            "a guard needs a crossing direction: `rising`, `falling` or `either`",
        ));
    }
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
    Ok((from, to, direction))
}

/// An empty `#[guard]` gets the same message as a missing target.
fn guard_error(attr: &Attribute, e: syn::Error) -> syn::Error {
    if matches!(attr.meta, syn::Meta::Path(_)) {
        syn::Error::new_spanned(
            attr,
            "a guard needs a source and a target mode: write `#[guard(from -> to, direction)]`",
        )
    } else {
        e
    }
}

/// `negative, positive`: the modes on the sides `g < 0` and `g > 0` of a switching surface.
fn parse_surface_arguments(attr: &Attribute) -> syn::Result<(Ident, Ident)> {
    let expected = "write `#[switching_surface(negative, positive)]`: the mode that holds where the function is negative, then the one where it is positive";
    let modes = |input: ParseStream| -> syn::Result<(Ident, Ident)> {
        let negative: Ident = input.parse()?;
        input.parse::<Token![,]>()?;
        let positive: Ident = input.parse()?;
        let _ = input.parse::<Option<Token![,]>>()?;
        if input.is_empty() {
            Ok((negative, positive))
        } else {
            Err(input.error("unexpected tokens after the two modes: a switching surface names the mode on its negative side and the one on its positive side, nothing else (it is watched in both directions)"))
        }
    };
    if matches!(attr.meta, syn::Meta::Path(_)) {
        return Err(syn::Error::new_spanned(attr, expected));
    }
    attr.parse_args_with(modes).map_err(|e| {
        if e.to_string().starts_with("unexpected tokens") {
            e
        } else {
            syn::Error::new_spanned(attr, expected)
        }
    })
}

/// `integral`, `terminal` or `sampled`.
fn parse_cost_kind(attr: &Attribute) -> syn::Result<CostKind> {
    let expected = "expected `#[cost(integral)]`, `#[cost(terminal)]` or `#[cost(sampled)]`";
    let kind: Ident = attr
        .parse_args()
        .map_err(|_| syn::Error::new_spanned(attr, expected))?;
    match kind.to_string().as_str() {
        "integral" => Ok(CostKind::Integral),
        "terminal" => Ok(CostKind::Terminal),
        "sampled" => Ok(CostKind::Sampled),
        _ => Err(syn::Error::new(kind.span(), expected)),
    }
}
