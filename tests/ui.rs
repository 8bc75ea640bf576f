//! Compile tests of `#[hybrid_model]`.
//!
//! - `tests/ui/*.rs`: every wrong model must fail with an error at the offending span that says
//!   what is wrong and what to write instead, and with nothing else: the cases that use the
//!   model after its error prove that a model with errors adds no follow-on errors. The
//!   expected diagnostics are the `.stderr` files next to each case.
//! - `tests/ui/pass/*.rs`: models that must compile and run (`crate = path`).
//!
//! Regenerate the expectations after a deliberate change with
//! `TRYBUILD=overwrite cargo test -p hysens --test suite ui::` and read every one before committing.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}
