//! Which sensitivities a solve computes: any subset of the parameters and of the initial
//! states, chosen by name per solve.
//!
//! A sensitivity direction is a column `∂(·)/∂θ_j` with `θ_j` a parameter `p_i` or an initial
//! differential state `y0_i`. For a parameter the forward sensitivity equations have the source
//! `f_p e_i` and start from zero; for an initial state they have no source and start from the
//! unit vector `e_i` (the variational equation). Both kinds run through the same exact discrete
//! chain (steps, event times, resets), so one solve computes any mix of them.

use crate::error::SolveError;

/// Which parameters to take sensitivities with respect to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Params<'a> {
    /// None.
    #[default]
    None,
    /// Every parameter (inputs included), in the model's order.
    All,
    /// These, by name (the field names of the `#[params]` and `#[inputs]` structs).
    Only(&'a [&'a str]),
}

/// Which initial differential states to take sensitivities with respect to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InitialStates<'a> {
    /// None.
    #[default]
    None,
    /// Every differential state, in the model's order.
    All,
    /// These, by name (the field names of the `#[states]` struct).
    Only(&'a [&'a str]),
}

/// A variable a sensitivity is taken with respect to (the direction `θ_j`), by its index in
/// the model's arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variable {
    /// The parameter `p_i`.
    Param(usize),
    /// The initial differential state `y0_i`.
    InitialState(usize),
}

/// A direction named by the caller, for looking results up: `"g"` converts to
/// `Wrt::Param("g")`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wrt<'a> {
    /// A parameter (or input), by name.
    Param(&'a str),
    /// An initial differential state, by name.
    InitialState(&'a str),
}

impl<'a> From<&'a str> for Wrt<'a> {
    fn from(name: &'a str) -> Self {
        Wrt::Param(name)
    }
}

/// Whether the model's variable name `full` is what the caller calls `given`: the same string,
/// or the same field name (the macro names variables `y.h`, `p.g`, `u.k`; callers write `h`,
/// `g`, `k`).
pub(crate) fn names_match(full: &str, given: &str) -> bool {
    full == given
        || full
            .split_once('.')
            .is_some_and(|(_, field)| field == given)
}

/// The index of `given` among `names`.
pub(crate) fn index_of(names: &[&str], given: &str) -> Option<usize> {
    names.iter().position(|full| names_match(full, given))
}

/// The chosen directions as masks over the parameters and the initial states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Selection<const NY: usize, const NP: usize> {
    /// `params[i]`: the sensitivity with respect to `p_i` is wanted.
    pub params: [bool; NP],
    /// `states[i]`: the sensitivity with respect to `y0_i` is wanted.
    pub states: [bool; NY],
}

impl<const NY: usize, const NP: usize> Selection<NY, NP> {
    /// Resolves the caller's choice against the model's names; an unknown name is an
    /// [`SolveError::InvalidArgument`] at `t0`.
    pub fn resolve(
        params: Params<'_>,
        states: InitialStates<'_>,
        parameter_names: &[&str; NP],
        state_names: &[&str; NY],
        t0: f64,
    ) -> Result<Self, SolveError> {
        let unknown = |what| SolveError::InvalidArgument {
            t: t0,
            mode: 0,
            what,
        };
        let params = match params {
            Params::None => [false; NP],
            Params::All => [true; NP],
            Params::Only(names) => mask(parameter_names, names).ok_or(unknown(
                "Params::Only names a parameter the model does not have",
            ))?,
        };
        let states = match states {
            InitialStates::None => [false; NY],
            InitialStates::All => [true; NY],
            InitialStates::Only(names) => mask(state_names, names).ok_or(unknown(
                "InitialStates::Only names a state the model does not have",
            ))?,
        };
        Ok(Selection { params, states })
    }

    /// Whether any direction is chosen.
    pub fn any(&self) -> bool {
        self.params.contains(&true) || self.states.contains(&true)
    }

    /// Whether an initial state is chosen (then the solve needs the extended directions).
    #[cfg(feature = "std")]
    pub fn any_state(&self) -> bool {
        self.states.contains(&true)
    }

    /// The chosen directions in order: parameters first, then initial states, each in the
    /// model's order.
    #[cfg(any(feature = "std", test))]
    pub fn directions(&self) -> impl Iterator<Item = Variable> + '_ {
        let params = (0..NP).filter(|&i| self.params[i]).map(Variable::Param);
        let states = (0..NY)
            .filter(|&i| self.states[i])
            .map(Variable::InitialState);
        params.chain(states)
    }
}

/// `mask[i]` is whether `names[i]` is among `chosen`; `None` if a chosen name is unknown.
fn mask<const K: usize>(names: &[&str; K], chosen: &[&str]) -> Option<[bool; K]> {
    let mut mask = [false; K];
    for given in chosen {
        mask[index_of(names, given)?] = true;
    }
    Some(mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_with_or_without_the_macro_prefix() {
        let s = Selection::<2, 3>::resolve(
            Params::Only(&["e", "p.g"]),
            InitialStates::Only(&["v"]),
            &["p.g", "p.e", "u.k"],
            &["y.h", "y.v"],
            0.0,
        )
        .unwrap();
        assert_eq!(s.params, [true, true, false]);
        assert_eq!(s.states, [false, true]);
        let order: std::vec::Vec<_> = s.directions().collect();
        assert_eq!(
            order,
            [
                Variable::Param(0),
                Variable::Param(1),
                Variable::InitialState(1)
            ]
        );
        let unknown = Selection::<2, 3>::resolve(
            Params::Only(&["gravity"]),
            InitialStates::None,
            &["p.g", "p.e", "u.k"],
            &["y.h", "y.v"],
            0.0,
        );
        assert!(matches!(unknown, Err(SolveError::InvalidArgument { .. })));
    }
}
