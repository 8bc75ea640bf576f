//! Every keyword the model language accepts appears in the guide (`src/guide.rs`, the rustdoc
//! page `hysens::guide`): the attributes, the arguments of `#[mode]`, `#[guard]` and `#[cost]`,
//! the terminal target, and every function of the expression language.
//!
//! The macro's keywords are read from its parser's source (a proc-macro crate exports nothing
//! else): the attribute lists of `parse/mod.rs` and the string patterns its argument parsers
//! match (`"rising" =>`); the functions from `hysens_symbolic::function`. A keyword added to the
//! parser without a word in the guide fails here.
#![deny(missing_docs)]

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use hysens::symbolic::function::{Func1, Func2};

/// The file at `relative` to the facade's root.
fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The string literals of the array after `const NAME` in `source`.
fn const_array(source: &str, name: &str) -> Vec<String> {
    let start = source
        .find(&format!("const {name}"))
        .unwrap_or_else(|| panic!("no `const {name}`"));
    let open = start + source[start..].find("= [").expect("an array") + 3;
    let close = open + source[open..].find(']').expect("its end");
    quoted(&source[open..close])
}

/// The string literals in `text`.
fn quoted(text: &str) -> Vec<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The literals of the match arms `"word" =>` in `source`.
fn match_arms(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|line| {
            let arm = line.trim().strip_prefix('"')?;
            let (word, rest) = arm.split_once('"')?;
            let rest = rest.trim_start();
            (rest.starts_with("=>") || rest.starts_with("if ")).then(|| word.to_string())
        })
        .collect()
}

/// Whether `guide` uses `word` as a word (not only inside a longer identifier).
fn mentions(guide: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    guide.match_indices(word).any(|(at, _)| {
        let before = guide[..at].chars().next_back();
        let after = guide[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

#[test]
fn every_keyword_of_the_language_is_in_the_guide() {
    let guide = read("src/guide.rs");
    let parse = read("hysens-macros/src/parse/mod.rs");
    let mut keywords: BTreeSet<String> = BTreeSet::new();
    keywords.extend(const_array(&parse, "STRUCT_ATTRIBUTES"));
    keywords.extend(const_array(&parse, "FN_ATTRIBUTES"));
    keywords.extend(match_arms(&read("hysens-macros/src/parse/arguments.rs")));
    keywords.extend(match_arms(&read("hysens-macros/src/parse/mode.rs")));
    keywords.extend(quoted(
        read("hysens-macros/src/model.rs")
            .lines()
            .find(|l| l.contains("pub const STOP"))
            .expect("the terminal target"),
    ));
    keywords.extend(Func1::USER_FUNCTIONS.iter().map(|f| f.name().to_string()));
    keywords.extend(Func2::USER_FUNCTIONS.iter().map(|f| f.name().to_string()));
    keywords.extend(["powi", "powf", "diff", "Memory", "t"].map(String::from));
    // The parsers' lists were read: a change in their shape must not empty the check.
    for expected in [
        "states",
        "mode",
        "algebraic_guess",
        "either",
        "initial_if",
        "sampled",
    ] {
        assert!(keywords.contains(expected), "`{expected}` not read");
    }
    let missing: Vec<&String> = keywords.iter().filter(|k| !mentions(&guide, k)).collect();
    assert!(
        missing.is_empty(),
        "keywords of the model language missing from src/guide.rs: {missing:?}"
    );
}
