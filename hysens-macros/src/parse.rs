//! Reading the annotated module: which item plays which role, decoded from its attribute.
//!
//! This stage only sorts items and decodes attribute arguments; it reports malformed
//! attributes (a guard without a target, an unknown direction, an attribute on the wrong kind of
//! item) and leaves every cross-reference to `validate`.

use proc_macro2::TokenStream;
use syn::parse::ParseStream;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Item, ItemMod, Token};

use crate::model::{Cost, CostKind, Direction, Guard, Initial, Mode, Model, Reset, VariableStruct};

/// The attributes this macro owns inside the module.
const STRUCT_ATTRIBUTES: [&str; 4] = ["states", "algebraic", "params", "inputs"];
const FN_ATTRIBUTES: [&str; 5] = ["mode", "guard", "reset", "cost", "output"];
/// Attributes reserved for model classes of the papers that are not built yet.
const RESERVED_ATTRIBUTES: [(&str, &str); 3] = [
    (
        "switching_surface",
        "Filippov switching surfaces with sliding modes (Pytlak & Suski)",
    ),
    (
        "constraint",
        "constraints of mechanical modes (Corner, Sandu & Sandu)",
    ),
    (
        "mass_matrix",
        "second-order mechanical modes with a mass matrix (Corner, Sandu & Sandu)",
    ),
];

/// Sorts the items of `module` by role. `args` are the attribute's own arguments (none allowed).
pub fn parse_model(args: TokenStream, mut module: ItemMod) -> Result<Model, Vec<syn::Error>> {
    let mut errors = Vec::new();
    if !args.is_empty() {
        errors.push(syn::Error::new_spanned(
            &args,
            "`#[hybrid_model]` takes no arguments",
        ));
    }
    let header = ItemMod {
        content: None,
        ..module.clone()
    };
    let Some((_, items)) = module.content.as_mut() else {
        errors.push(syn::Error::new_spanned(
            &header,
            "`#[hybrid_model]` needs an inline module: write the model's items in `mod name { ... }`",
        ));
        return Err(errors);
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
        costs: Vec::new(),
        outputs: Vec::new(),
    };
    for item in items.iter_mut() {
        if let Err(e) = sort_item(item, &mut model) {
            errors.push(e);
        }
    }
    model.module = module;
    if errors.is_empty() {
        Ok(model)
    } else {
        Err(errors)
    }
}

/// Records `item` in `model` by its role and strips our attribute from it.
fn sort_item(item: &mut Item, model: &mut Model) -> syn::Result<()> {
    let attrs = match item {
        Item::Struct(s) => &mut s.attrs,
        Item::Fn(f) => &mut f.attrs,
        Item::Const(c) => &mut c.attrs,
        _ => return reject_our_attributes(item),
    };
    let ours = take_our_attribute(attrs)?;
    match (item, ours) {
        (Item::Struct(s), Some(attr)) if is_struct_attribute(&attr) => {
            require_no_arguments(&attr)?;
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
        }
        (Item::Fn(f), Some(attr)) if !is_struct_attribute(&attr) => {
            allow_dead_code(&mut f.attrs);
            let func = f.clone();
            match attr_name(&attr).as_str() {
                "mode" => model.modes.push(Mode {
                    initial: parse_mode_arguments(&attr)?,
                    func,
                }),
                "guard" => {
                    let (from, to, direction) = attr.parse_args_with(parse_guard_arguments)
                        .map_err(|e| guard_error(&attr, e))?;
                    model.guards.push(Guard {
                        func,
                        from,
                        to,
                        direction,
                    });
                }
                "reset" => model.resets.push(Reset {
                    guard: attr.parse_args::<Ident>().map_err(|_| {
                        syn::Error::new_spanned(&attr, "write `#[reset(guard_name)]`: the guard whose switch this reset applies")
                    })?,
                    func,
                }),
                "cost" => model.costs.push(Cost {
                    kind: parse_cost_kind(&attr)?,
                    func,
                }),
                _ => {
                    require_no_arguments(&attr)?;
                    model.outputs.push(func);
                }
            }
        }
        (Item::Fn(f), None) => {
            allow_dead_code(&mut f.attrs);
            model.helpers.push(f.clone());
        }
        (Item::Const(c), None) => model.constants.push(c.clone()),
        (_, Some(attr)) => {
            let name = attr_name(&attr);
            let wanted = if is_struct_attribute(&attr) {
                "a struct of `f64` fields"
            } else {
                "a function"
            };
            return Err(syn::Error::new_spanned(
                &attr,
                format!("`#[{name}]` belongs on {wanted}"),
            ));
        }
        (_, None) => {}
    }
    Ok(())
}

/// Removes and returns the one attribute of ours on an item; two of ours, or a reserved one,
/// is an error.
fn take_our_attribute(attrs: &mut Vec<Attribute>) -> syn::Result<Option<Attribute>> {
    if let Some(reserved) = attrs.iter().find_map(reserved_attribute) {
        return Err(reserved);
    }
    let mut ours: Vec<Attribute> = Vec::new();
    attrs.retain(|a| {
        let mine = is_our_attribute(a);
        if mine {
            ours.push(a.clone());
        }
        !mine
    });
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

fn reject_our_attributes(item: &Item) -> syn::Result<()> {
    let attrs: &[Attribute] = match item {
        Item::Enum(e) => &e.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Mod(m) => &m.attrs,
        Item::Static(s) => &s.attrs,
        Item::Type(t) => &t.attrs,
        Item::Use(u) => &u.attrs,
        _ => &[],
    };
    match attrs.iter().find(|a| is_our_attribute(a)) {
        Some(a) => Err(syn::Error::new_spanned(
            a,
            format!("`#[{}]` does not belong on this kind of item", attr_name(a)),
        )),
        None => Ok(()),
    }
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
                "sliding modes on Filippov surfaces (Pytlak & Suski) are reserved and not supported yet",
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
