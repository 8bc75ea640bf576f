//! Reading the annotated module: which item plays which role, decoded from its attribute.
//!
//! This stage only sorts items and decodes attribute arguments; it reports malformed
//! attributes (a guard without a target, an unknown direction, an attribute on the wrong kind of
//! item) and leaves every cross-reference to `validate`. It does not stop at the first
//! malformed attribute, nor at the first mistake in one attribute: the items that decode make a
//! partial model that `validate` still checks, so one compilation reports the mistakes of both
//! stages.
//!
//! Here the sorting by role; the decoding of each attribute's arguments is in [`arguments`]
//! and, for `#[mode(..)]`, [`mode`]; the reserved names are in [`reserved`].

mod arguments;
mod mode;
mod reserved;

use syn::spanned::Spanned;
use syn::{Attribute, Ident, Item, ItemFn, ItemMod};

use crate::model::{Cost, Guard, Mode, Model, Reset, Surface, Unparsed, VariableStruct};

/// The attributes this macro owns inside the module.
const STRUCT_ATTRIBUTES: [&str; 4] = ["states", "algebraic", "params", "inputs"];
const FN_ATTRIBUTES: [&str; 8] = [
    "mode",
    "initial_state",
    "algebraic_guess",
    "guard",
    "reset",
    "cost",
    "output",
    "switching_surface",
];

/// Sorts the items of `module` by role, reporting every malformed attribute in `errors`.
///
/// An item whose attribute does not say where it belongs is left out of its role (and recorded
/// in `Model::unparsed`), so that the rest of the model can still be checked; an item whose
/// attribute places it but has another mistake keeps its role (see [`arguments`]). Every attribute of
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
        initial_states: Vec::new(),
        algebraic_guesses: Vec::new(),
        unparsed: Vec::new(),
    };
    for item in items.iter_mut() {
        let ours = attributes_mut(item)
            .map(take_our_attributes)
            .unwrap_or_default();
        if let Err(e) = sort_item(item, ours.clone(), &mut model, errors) {
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
        let mine = is_our_attribute(a) || reserved::attribute(a).is_some();
        if mine {
            ours.push(a.clone());
        }
        !mine
    });
    ours
}

/// Records `item` in `model` by its role, given the attributes of ours taken from it. `Err`
/// when it has no role; mistakes that leave it its role go to `errors`.
fn sort_item(
    item: &mut Item,
    ours: Vec<Attribute>,
    model: &mut Model,
    errors: &mut Vec<syn::Error>,
) -> syn::Result<()> {
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
            arguments::none(&attr, errors);
        }
        (Item::Fn(f), Some(attr)) if is_function_attribute(&attr) => {
            allow_dead_code(&mut f.attrs);
            sort_function(f.clone(), &attr, model, errors)?;
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

/// Records a model function by its attribute `attr`; see [`sort_item`].
fn sort_function(
    func: ItemFn,
    attr: &Attribute,
    model: &mut Model,
    errors: &mut Vec<syn::Error>,
) -> syn::Result<()> {
    match attr_name(attr).as_str() {
        "mode" => {
            let arguments = mode::arguments(attr)?;
            model.modes.push(Mode {
                initial: arguments.initial,
                index2: arguments.index2,
                func,
            });
        }
        "guard" => {
            let (from, to, direction) = arguments::guard(attr, errors)?;
            model.guards.push(Guard {
                func,
                from,
                to,
                direction,
            });
        }
        "reset" => model.resets.push(Reset {
            guard: arguments::reset(attr)?,
            func,
        }),
        "cost" => {
            let (kind, modes) = arguments::cost(attr, errors)?;
            model.costs.push(Cost { func, kind, modes });
        }
        "initial_state" => {
            arguments::none(attr, errors);
            model.initial_states.push(func);
        }
        "algebraic_guess" => {
            arguments::none(attr, errors);
            model.algebraic_guesses.push(func);
        }
        "switching_surface" => {
            let (negative, positive) = arguments::surface(attr, errors)?;
            model.surfaces.push(Surface {
                func,
                negative,
                positive,
            });
        }
        _ => {
            arguments::none(attr, errors);
            model.outputs.push(func);
        }
    }
    Ok(())
}

/// The one attribute of ours on an item; two of ours, or reserved ones (each reported), is an
/// error.
fn one_role(mut ours: Vec<Attribute>) -> syn::Result<Option<Attribute>> {
    let reserved = ours
        .iter()
        .filter_map(reserved::attribute)
        .reduce(|mut all, e| {
            all.combine(e);
            all
        });
    if let Some(reserved) = reserved {
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

/// The attribute's name (`mode`, `guard`, …); empty for a path of several segments.
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

/// Model functions are kept as ordinary Rust functions, callable by the user; the generated
/// kernels do not call them, so they are marked used-or-not.
fn allow_dead_code(attrs: &mut Vec<Attribute>) {
    attrs.push(syn::parse_quote!(#[allow(dead_code)]));
}
