//! The shape of a generated kernel method: its parameters (each named hygienically, `_`-prefixed
//! when unread) and the dispatch of its body over the mode, guard or output index.

use proc_macro2::{Ident, Literal, TokenStream, TokenTree};
use quote::quote;

use crate::kernels::{hygienic, Arms};

/// `fn name(&self, params…) [-> ret] { body }`, each parameter named hygienically and prefixed
/// with `_` when `body` does not read it (so the expansion is warning-free). Without
/// `receiver`, an associated function of the model type, `fn name(params…)` (the outputs).
pub fn method(
    name: &str,
    receiver: bool,
    params: &[(&str, TokenStream)],
    ret: Option<TokenStream>,
    body: &TokenStream,
) -> TokenStream {
    let name = Ident::new(name, proc_macro2::Span::call_site());
    let params = params.iter().map(|(param, ty)| {
        let ident = if reads(body, param) {
            hygienic(param)
        } else {
            hygienic(&format!("_{param}"))
        };
        quote!(#ident: #ty)
    });
    let receiver = receiver.then(|| quote!(&self,));
    let ret = ret.map(|ty| quote!(-> #ty));
    quote!(fn #name(#receiver #(#params),*) #ret { #body })
}

/// Dispatch over statement kernels: `match selector { 0 => { … } … _ => {} }`, an `if` for a
/// single case, nothing when every case is empty.
pub fn statements(selector: &Ident, arms: &Arms) -> TokenStream {
    if arms.iter().all(TokenStream::is_empty) {
        return TokenStream::new();
    }
    if let [only] = arms.as_slice() {
        return quote!(if #selector == 0 { #only });
    }
    let cases = arms.iter().enumerate().map(|(i, body)| {
        let i = Literal::usize_unsuffixed(i);
        quote!(#i => { #body })
    });
    quote!(match #selector { #(#cases)* _ => {} })
}

/// Dispatch over value kernels, `0.0` for an index out of range (or when there is no case).
pub fn value(selector: &Ident, arms: &Arms) -> TokenStream {
    match arms.as_slice() {
        [] => quote!(0.0),
        [only] => quote!(if #selector == 0 { #only } else { 0.0 }),
        _ => {
            let cases = arms.iter().enumerate().map(|(i, body)| {
                let i = Literal::usize_unsuffixed(i);
                quote!(#i => { #body })
            });
            quote!(match #selector { #(#cases)* _ => 0.0 })
        }
    }
}

/// Whether `tokens` contain the identifier `name` (the generated bodies name their parameters
/// with [`hygienic`], so this is exact).
fn reads(tokens: &TokenStream, name: &str) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == name,
        TokenTree::Group(g) => reads(&g.stream(), name),
        _ => false,
    })
}

/// Dispatch over some cases only: `match selector { i => { … } … _ => fallback }`.
pub fn some_cases(
    selector: &Ident,
    arms: &[(usize, TokenStream)],
    fallback: TokenStream,
) -> TokenStream {
    let cases = arms.iter().map(|(i, body)| {
        let i = Literal::usize_unsuffixed(*i);
        quote!(#i => { #body })
    });
    quote!(match #selector { #(#cases)* _ => #fallback })
}
