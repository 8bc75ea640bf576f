//! Compile-fail tests of `#[hybrid_model]`: every wrong model in `tests/ui/` must fail with an
//! error at the offending span that says what is wrong and what to write instead. The expected
//! diagnostics are the `.stderr` files next to each case; regenerate them after a deliberate
//! change with `TRYBUILD=overwrite cargo test --test ui` and read every one before committing.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
