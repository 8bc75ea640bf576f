//! The whole macro as a function on `proc_macro2` tokens: parse → validate → lower → expand.
//! Kept apart from the `#[proc_macro_attribute]` entry point so that tests and benchmarks can
//! run it outside a compiler.

/// Expands `module` (with the attribute's `args`), or returns every error found.
pub fn run(
    args: proc_macro2::TokenStream,
    module: syn::ItemMod,
) -> Result<proc_macro2::TokenStream, Vec<syn::Error>> {
    let model = crate::parse::parse_model(args, module)?;
    let checked = crate::validate::check(&model)?;
    let mut lowered = crate::lower::lower(&checked)?;
    Ok(crate::expand::expand(&checked, &mut lowered))
}
