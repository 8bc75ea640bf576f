//! # hysens-macros
//!
//! Home of the `#[hybrid_model]` attribute macro: parse (syn → model AST) → validate (errors with
//! spans) → lower (AST → `hysens-symbolic` expressions) → kernels (which derivatives) → expand
//! (quote). The model language is being built; this crate currently exports nothing.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
