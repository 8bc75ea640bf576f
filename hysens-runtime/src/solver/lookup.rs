//! Looking results up by name (feature `std`): an unknown name, a direction the solve did not
//! compute, or an event or sample index past the end is a [`LookupError`] that says what was
//! asked and what there is — never a silent `None` for a typo. Only the builder's owned results
//! look up by name, after the solve: the error owns its strings, the solve path never sees it.

use std::fmt;
use std::string::String;
use std::vec::Vec;

use super::selection::{index_of, Wrt};
use crate::dense::DenseError;

/// Why a result could not be looked up.
///
/// A name the model does not have, a direction the solve did not compute, a dense output it did
/// not keep:
///
/// ```
/// # use hysens::prelude::*;
/// # #[hybrid_model]
/// # pub mod ball {
/// #     #[states]
/// #     pub struct X { pub h: f64, pub v: f64 }
/// #     #[params]
/// #     pub struct P { pub g: f64, pub e: f64 }
/// #     #[mode(initial)]
/// #     fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
/// #     #[guard(flight -> flight, falling)]
/// #     fn impact(x: &X) -> f64 { x.h }
/// #     #[reset(impact)]
/// #     fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.v } }
/// #     #[cost(terminal)]
/// #     fn height(x: &X) -> f64 { x.h }
/// # }
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let (x0, p) = (ball::X { h: 1.0, v: 0.0 }, ball::P { g: 9.81, e: 0.8 });
/// let solution = ball::Model
///     .solver()
///     .sensitivities_to(Params::Only(&["g"]), InitialStates::None)
///     .solve(0.0, 1.0, &x0, &p)?;
/// let typo = solution.sensitivity("h", "gravity").unwrap_err();
/// assert_eq!(typo.to_string(), "unknown parameter `gravity`; the model's: g, e");
/// let not_chosen = solution.sensitivity("h", "e").unwrap_err();
/// assert!(matches!(not_chosen, LookupError::NotChosen { .. }), "{not_chosen}");
/// let no_dense = solution.at(0.5).unwrap_err();
/// assert!(matches!(no_dense, LookupError::Dense(_)), "{no_dense}");
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum LookupError {
    /// No variable of this kind has the name; `known` lists the model's.
    UnknownName {
        /// What the name was looked up as: "parameter", "state", "state or algebraic variable",
        /// "cost".
        kind: &'static str,
        /// The name given.
        name: String,
        /// The model's names of that kind.
        known: Vec<&'static str>,
    },
    /// The name is the model's, but the solve did not compute sensitivities in this direction
    /// (choose it with `sensitivities_to`).
    NotChosen {
        /// The direction asked for.
        wrt: String,
    },
    /// An event or sample index past the end.
    OutOfRange {
        /// "event" or "sample".
        what: &'static str,
        /// The index given.
        index: usize,
        /// How many there are.
        len: usize,
    },
    /// The dense output has no value at the time asked for: it was not requested, or the
    /// time is outside the solve.
    Dense(DenseError),
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LookupError::UnknownName { kind, name, known } => {
                let known: Vec<&str> = known.iter().map(|n| short(n)).collect();
                write!(f, "unknown {kind} `{name}`; the model's: {}", list(&known))
            }
            LookupError::NotChosen { wrt } => write!(
                f,
                "no sensitivities with respect to {wrt}: the solve did not compute them; choose it with `sensitivities_to(..)`"
            ),
            LookupError::OutOfRange { what, index, len } => {
                write!(f, "no {what} {index}: the solution has {len}")
            }
            LookupError::Dense(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for LookupError {}

/// A model's name as the caller writes it: the field (`y.h` → `h`).
fn short(name: &str) -> &str {
    name.split_once('.').map_or(name, |(_, field)| field)
}

/// `a, b, c`, or `none`.
fn list(names: &[&str]) -> String {
    match names.is_empty() {
        true => "none".into(),
        false => names.join(", "),
    }
}

/// The index of `name` among the model's `names` of `kind`, or the error listing them.
pub(crate) fn find(
    kind: &'static str,
    names: &[&'static str],
    name: &str,
) -> Result<usize, LookupError> {
    index_of(names, name).ok_or_else(|| LookupError::UnknownName {
        kind,
        name: name.into(),
        known: names.to_vec(),
    })
}

/// How a direction reads in an error: `parameter `g``, `initial state `h``.
pub(crate) fn describe(wrt: Wrt<'_>) -> String {
    match wrt {
        Wrt::Param(name) => std::format!("parameter `{name}`"),
        Wrt::InitialState(name) => std::format!("initial state `{name}`"),
    }
}

/// Item `index` of `items` (`what`: "event", "sample"), or the error naming how many there are.
pub(crate) fn item<'a, T>(
    what: &'static str,
    items: &'a [T],
    index: usize,
) -> Result<&'a T, LookupError> {
    items.get(index).ok_or(LookupError::OutOfRange {
        what,
        index,
        len: items.len(),
    })
}
