//! Reading emitted code and graphs, for the tests' structural checks.
//!
//! The emitted token streams are flattened into a list of [`Token`]s so that patterns such as
//! `let t3 =`, `.sin(` or `jac[1][2] =` can be matched without parsing Rust; the graph side
//! lists the nodes the code should compute, each once.

use std::collections::HashSet;

use hysens_symbolic::{ExprId, Graph, Node};
use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// One token of flattened emitted code; groups become their delimiters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// An identifier or keyword.
    Ident(String),
    /// A punctuation character (`+`, `=`, `.`, …).
    Punct(char),
    /// A literal, as written.
    Literal(String),
    /// The opening delimiter of a group.
    Open(Delimiter),
    /// The closing delimiter of a group.
    Close(Delimiter),
}

/// The tokens of `tokens`, groups flattened depth-first.
pub fn flatten(tokens: &TokenStream) -> Vec<Token> {
    let mut flat = Vec::new();
    push_flat(tokens.clone(), &mut flat);
    flat
}

fn push_flat(tokens: TokenStream, flat: &mut Vec<Token>) {
    for tree in tokens {
        match tree {
            TokenTree::Ident(i) => flat.push(Token::Ident(i.to_string())),
            TokenTree::Punct(p) => flat.push(Token::Punct(p.as_char())),
            TokenTree::Literal(l) => flat.push(Token::Literal(l.to_string())),
            TokenTree::Group(g) => {
                flat.push(Token::Open(g.delimiter()));
                push_flat(g.stream(), flat);
                flat.push(Token::Close(g.delimiter()));
            }
        }
    }
}

/// The names of the `let` temporaries, in order.
pub fn temporaries(code: &[Token]) -> Vec<String> {
    code.windows(2)
        .filter_map(|w| match w {
            [Token::Ident(kw), Token::Ident(name)] if kw == "let" => Some(name.clone()),
            _ => None,
        })
        .collect()
}

/// How many times the identifier `name` occurs, its definition included.
pub fn ident_count(code: &[Token], name: &str) -> usize {
    code.iter()
        .filter(|t| matches!(t, Token::Ident(i) if i == name))
        .count()
}

/// How many times the punctuation `c` occurs.
pub fn punct_count(code: &[Token], c: char) -> usize {
    code.iter().filter(|&t| *t == Token::Punct(c)).count()
}

/// The names of the methods called (`.sin(` gives `sin`), one entry per call.
pub fn method_calls(code: &[Token]) -> Vec<String> {
    code.windows(3)
        .filter_map(|w| match w {
            [Token::Punct('.'), Token::Ident(name), Token::Open(Delimiter::Parenthesis)] => {
                Some(name.clone())
            }
            _ => None,
        })
        .collect()
}

/// The `(i, j)` of every assignment `jac[i][j] = …`, in order.
pub fn matrix_assignments(code: &[Token]) -> Vec<(usize, usize)> {
    let bracket = Delimiter::Bracket;
    code.windows(8)
        .filter_map(|w| match w {
            [Token::Ident(jac), Token::Open(o1), Token::Literal(i), Token::Close(c1), Token::Open(o2), Token::Literal(j), Token::Close(c2), Token::Punct('=')]
                if jac == "jac" && [o1, c1, o2, c2].iter().all(|&&d| d == bracket) =>
            {
                Some((i.parse().ok()?, j.parse().ok()?))
            }
            _ => None,
        })
        .collect()
}

/// Every distinct node reachable from `roots`.
pub fn reachable_nodes(graph: &Graph, roots: &[ExprId]) -> Vec<Node> {
    let mut seen: HashSet<ExprId> = HashSet::new();
    let mut stack: Vec<ExprId> = roots.to_vec();
    let mut nodes = Vec::new();
    while let Some(id) = stack.pop() {
        if seen.insert(id) {
            let node = graph.node(id);
            stack.extend(node.children());
            nodes.push(node);
        }
    }
    nodes
}

/// The method the emitted code calls for `node`, if it is a call.
pub fn method_name(node: Node) -> Option<&'static str> {
    match node {
        Node::Powi(..) => Some("powi"),
        Node::Powf(..) => Some("powf"),
        Node::Call1(f, _) => Some(f.name()),
        Node::Call2(f, _, _) => Some(f.name()),
        _ => None,
    }
}

/// The length of the longest path from a root down to a leaf: how deeply the expression nests.
pub fn depth(graph: &Graph, root: ExprId) -> usize {
    fn go(graph: &Graph, id: ExprId, memo: &mut std::collections::HashMap<ExprId, usize>) -> usize {
        if let Some(&d) = memo.get(&id) {
            return d;
        }
        let d = 1 + graph
            .node(id)
            .children()
            .map(|c| go(graph, c, memo))
            .max()
            .unwrap_or(0);
        memo.insert(id, d);
        d
    }
    go(graph, root, &mut std::collections::HashMap::new())
}
