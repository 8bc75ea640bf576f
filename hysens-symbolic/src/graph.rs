//! The expression DAG: nodes, their ids, and the hash-consing store that owns them.
//!
//! Every node lives in one [`Graph`]. Nodes are immutable and *hash-consed*: asking for a node
//! that already exists returns the existing id, so structurally equal subexpressions are one node
//! and equality of expressions is equality of ids. Children are always created before their
//! parents, so ids are a topological order — evaluation and emission walk ids upwards.
//!
//! Nodes are only created through the simplifying constructors in [`crate::build`]; this module
//! is the storage underneath them.

use std::collections::HashMap;
use std::rc::Rc;

use crate::function::{Func1, Func2};

/// The id of an expression node in a [`Graph`]. Cheap to copy; meaningless in another graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub(crate) u32);

/// The id of a named variable in a [`Graph`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub(crate) u32);

impl ExprId {
    /// The position of the node in its graph (ids are dense, starting at 0).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl VarId {
    /// The position of the variable in its graph (ids are dense, starting at 0).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One node of the DAG.
///
/// Constants are stored by their bit pattern so that nodes can be hashed; `-0.0` is stored as
/// `0.0`. Commutative operations keep their operands in a canonical order (see
/// [`crate::build`]), so `a * b` and `b * a` are the same node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// A finite `f64` constant, as `f64::to_bits`.
    Const(u64),
    /// A named variable.
    Var(VarId),
    /// `a + b`
    Add(ExprId, ExprId),
    /// `a - b`
    Sub(ExprId, ExprId),
    /// `a * b`
    Mul(ExprId, ExprId),
    /// `a / b`
    Div(ExprId, ExprId),
    /// `-a`
    Neg(ExprId),
    /// `a.powi(n)`
    Powi(ExprId, i32),
    /// `a.powf(b)`
    Powf(ExprId, ExprId),
    /// `f(a)`
    Call1(Func1, ExprId),
    /// `a.f(b)`
    Call2(Func2, ExprId, ExprId),
}

impl Node {
    /// The node's operands, in order.
    pub fn children(&self) -> impl Iterator<Item = ExprId> {
        let (a, b) = match *self {
            Node::Const(_) | Node::Var(_) => (None, None),
            Node::Neg(a) | Node::Powi(a, _) | Node::Call1(_, a) => (Some(a), None),
            Node::Add(a, b)
            | Node::Sub(a, b)
            | Node::Mul(a, b)
            | Node::Div(a, b)
            | Node::Powf(a, b)
            | Node::Call2(_, a, b) => (Some(a), Some(b)),
        };
        a.into_iter().chain(b)
    }
}

/// The owner of all nodes and variable names: an arena with hash-consing.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    nodes: Vec<Node>,
    /// The variables each node depends on, sorted; shared between a unary node and its child.
    dependencies: Vec<Rc<[VarId]>>,
    interned: HashMap<Node, ExprId>,
    var_names: Vec<String>,
    var_nodes: Vec<ExprId>,
    var_by_name: HashMap<String, VarId>,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of nodes created so far.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no node was created yet.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node behind an id.
    pub fn node(&self, id: ExprId) -> Node {
        self.nodes[id.index()]
    }

    /// The variable named `name`, created on first use. The same name always gives the same
    /// node. Names are free-form; the parser uses `"x"` and `"x.v"` (field access).
    pub fn var(&mut self, name: &str) -> ExprId {
        if let Some(&v) = self.var_by_name.get(name) {
            return self.var_nodes[v.index()];
        }
        let v = VarId(self.var_names.len() as u32);
        self.var_names.push(name.to_owned());
        self.var_by_name.insert(name.to_owned(), v);
        let id = self.intern(Node::Var(v));
        self.var_nodes.push(id);
        id
    }

    /// The id of variable `name`, if it was created.
    pub fn var_id(&self, name: &str) -> Option<VarId> {
        self.var_by_name.get(name).copied()
    }

    /// The node of a variable.
    pub fn var_node(&self, var: VarId) -> ExprId {
        self.var_nodes[var.index()]
    }

    /// The name a variable was created with.
    pub fn var_name(&self, var: VarId) -> &str {
        &self.var_names[var.index()]
    }

    /// The number of variables created so far; their ids are `0..var_count()`.
    pub fn var_count(&self) -> usize {
        self.var_names.len()
    }

    /// The value of a constant node, or `None` if the node is not a constant.
    pub fn as_const(&self, id: ExprId) -> Option<f64> {
        match self.node(id) {
            Node::Const(bits) => Some(f64::from_bits(bits)),
            _ => None,
        }
    }

    /// The variable of a variable node, or `None`.
    pub fn as_var(&self, id: ExprId) -> Option<VarId> {
        match self.node(id) {
            Node::Var(v) => Some(v),
            _ => None,
        }
    }

    /// Whether `id` is the constant `value` (compared exactly; `-0.0 == 0.0`).
    pub fn is_const(&self, id: ExprId, value: f64) -> bool {
        self.as_const(id) == Some(value)
    }

    /// Whether `id` is the constant zero: a *structural* zero, as used for sparsity.
    pub fn is_zero(&self, id: ExprId) -> bool {
        self.is_const(id, 0.0)
    }

    /// Whether the node `id` depends on variable `var` (its expression contains it).
    /// Differentiation uses this to skip whole subexpressions whose derivative is zero.
    pub fn depends_on(&self, id: ExprId, var: VarId) -> bool {
        self.dependencies[id.index()].binary_search(&var).is_ok()
    }

    /// The variables node `id` depends on, sorted by id.
    pub fn dependencies(&self, id: ExprId) -> &[VarId] {
        &self.dependencies[id.index()]
    }

    /// The number of distinct nodes reachable from `roots` (each shared node counted once).
    /// This is the size of the code that computes them.
    pub fn count_nodes(&self, roots: &[ExprId]) -> usize {
        self.reachable(roots).iter().filter(|&&r| r).count()
    }

    /// Marks every node reachable from `roots`: `result[id.index()]` is true for each of them.
    /// Linear in the number of nodes, using that children have smaller ids than parents.
    pub fn reachable(&self, roots: &[ExprId]) -> Vec<bool> {
        let top = roots.iter().map(|r| r.index() + 1).max().unwrap_or(0);
        let mut seen = vec![false; top];
        for r in roots {
            seen[r.index()] = true;
        }
        for i in (0..top).rev() {
            if seen[i] {
                for c in self.nodes[i].children() {
                    seen[c.index()] = true;
                }
            }
        }
        seen
    }

    /// Returns the id of `node`, storing it if it is new. Callers guarantee the node is in
    /// canonical form; [`crate::build`] is the only caller outside this module.
    pub(crate) fn intern(&mut self, node: Node) -> ExprId {
        if let Some(&id) = self.interned.get(&node) {
            return id;
        }
        let id = ExprId(self.nodes.len() as u32);
        let dependencies = self.dependencies_of(&node);
        self.nodes.push(node);
        self.dependencies.push(dependencies);
        self.interned.insert(node, id);
        id
    }

    /// The sorted union of the variables of `node`'s operands.
    fn dependencies_of(&self, node: &Node) -> Rc<[VarId]> {
        let of = |id: ExprId| &self.dependencies[id.index()];
        match *node {
            Node::Const(_) => Rc::from([]),
            Node::Var(v) => Rc::from([v]),
            Node::Neg(a) | Node::Powi(a, _) | Node::Call1(_, a) => Rc::clone(of(a)),
            Node::Add(a, b)
            | Node::Sub(a, b)
            | Node::Mul(a, b)
            | Node::Div(a, b)
            | Node::Powf(a, b)
            | Node::Call2(_, a, b) => {
                let (da, db) = (of(a), of(b));
                if db.is_empty() || Rc::ptr_eq(da, db) {
                    return Rc::clone(da);
                }
                if da.is_empty() {
                    return Rc::clone(db);
                }
                let mut union = Vec::with_capacity(da.len() + db.len());
                let (mut i, mut j) = (0, 0);
                while i < da.len() && j < db.len() {
                    match da[i].cmp(&db[j]) {
                        std::cmp::Ordering::Less => {
                            union.push(da[i]);
                            i += 1;
                        }
                        std::cmp::Ordering::Greater => {
                            union.push(db[j]);
                            j += 1;
                        }
                        std::cmp::Ordering::Equal => {
                            union.push(da[i]);
                            i += 1;
                            j += 1;
                        }
                    }
                }
                union.extend_from_slice(&da[i..]);
                union.extend_from_slice(&db[j..]);
                Rc::from(union)
            }
        }
    }
}
