//! Binary trees on the mutator's root stack in this VM's layout, shared by GCBench
//! and binary-trees: bottom-up construction, top-down population, walks and node
//! counts. The same algorithms as `flipgc_stress::tree`, written against the VM's
//! field handles ([`RefField`], [`PrimField`]) instead of the built-in descriptors.
//!
//! As there, everything works on root-stack slots: a `Gc` dies at every
//! allocation, while stack slots are roots the collector updates.

use crate::class::Class;
use crate::object::{push_new, PrimField, RefField};
use flipgc_core::{Gc, GcError, Mutator};

pub use flipgc_stress::tree::{tree_size, Walked, POLL_EVERY};

/// A tree node class, resolved once: the class and its fields.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// The node class, for allocation.
    pub class: &'static Class,
    /// The `left` reference field.
    pub left: RefField,
    /// The `right` reference field.
    pub right: RefField,
    /// The `i` and `j` primitive fields (a serial number and the remaining depth),
    /// if the class is used with labels.
    pub labels: Option<(PrimField, PrimField)>,
}

impl Node {
    /// The fields of `class`: `left` and `right`, and with `labels` `i` and `j`.
    pub fn of(class: &'static Class, labels: bool) -> Result<Node, String> {
        Ok(Node {
            class,
            left: RefField::of(class, "left")?,
            right: RefField::of(class, "right")?,
            labels: if labels {
                Some((PrimField::of(class, "i")?, PrimField::of(class, "j")?))
            } else {
                None
            },
        })
    }
}

/// Builds a tree of `depth` bottom-up (children before parents) and pushes its
/// root: `new Node()` for the parent, then `parent.left = l; parent.right = r`.
pub fn make_tree(m: &mut Mutator, node: &Node, depth: u32) -> Result<(), GcError> {
    if depth == 0 {
        return push_new(m, node.class);
    }
    make_tree(m, node, depth - 1)?;
    make_tree(m, node, depth - 1)?;
    push_new(m, node.class)?;
    // Stack: [.., left, right, parent] -> [.., parent(left, right)].
    let top = m.stack_len() - 1;
    let parent = m.stack_get(top).expect("just allocated");
    node.left.set(m, parent, m.stack_get(top - 2));
    node.right.set(m, parent, m.stack_get(top - 1));
    m.stack_copy(top, top - 2);
    m.stack_truncate(top - 1);
    Ok(())
}

/// Gives the node at stack slot `at` two new children and populates them to
/// `depth - 1`, top-down (parents before children); leaves the stack as it was.
/// With `labels`, each new node gets a serial number (the counter, incremented) in
/// field `i` and its remaining depth in field `j`.
pub fn populate(
    m: &mut Mutator,
    node: &Node,
    depth: u32,
    at: usize,
    labels: &mut Option<u64>,
) -> Result<(), GcError> {
    if depth == 0 {
        return Ok(());
    }
    push_new(m, node.class)?;
    push_new(m, node.class)?;
    let left = m.stack_len() - 2;
    let parent = m.stack_get(at).expect("a node to populate");
    node.left.set(m, parent, m.stack_get(left));
    node.right.set(m, parent, m.stack_get(left + 1));
    if let Some(next) = labels {
        let (serial, remaining) = node.labels.expect("a labelled node class");
        for child in [left, left + 1].into_iter().filter_map(|i| m.stack_get(i)) {
            serial.set(m, child, *next);
            remaining.set(m, child, u64::from(depth - 1));
            *next += 1;
        }
    }
    if depth > 1 {
        populate(m, node, depth - 1, left, labels)?;
        populate(m, node, depth - 1, left + 1, labels)?;
    }
    m.stack_truncate(left);
    Ok(())
}

/// Walks the tree rooted at stack slot `at` depth-first, right child first,
/// carrying a payload per node (the root's is `root`), as
/// `flipgc_stress::tree::walk`: `visit` sees each node, its payload and which
/// children exist, and returns the children's payload or an error. Every
/// [`POLL_EVERY`] nodes it looks whether a stop is requested, and if so parks its
/// pending nodes on the root stack and stops.
pub fn walk<T: Copy, E>(
    m: &mut Mutator,
    node: &Node,
    at: usize,
    root: T,
    mut visit: impl FnMut(&Mutator, Gc<'_>, T, [bool; 2]) -> Result<T, E>,
) -> Result<Walked, E> {
    let base = m.stack_len();
    m.stack_dup(at);
    let mut payloads = vec![root];
    let mut walked = Walked { nodes: 0, stops: 0 };
    loop {
        {
            let mut todo = Vec::new();
            while m.stack_len() > base {
                let p = payloads.pop().expect("a payload per parked node");
                todo.extend(m.pop().map(|o| (o, p)));
            }
            let mut next = todo.pop();
            while let Some((o, p)) = next {
                walked.nodes += 1;
                let (l, r) = (node.left.get(m, o), node.right.get(m, o));
                let down = visit(m, o, p, [l.is_some(), r.is_some()])?;
                if let Some(l) = l {
                    todo.push((l, down));
                }
                next = match r {
                    Some(r) => Some((r, down)),
                    None => todo.pop(),
                };
                if walked.nodes % POLL_EVERY == 0 && m.safepoint_requested() {
                    todo.extend(next.take());
                    for (g, p) in todo.drain(..) {
                        m.push(Some(g));
                        payloads.push(p);
                    }
                }
            }
        }
        if m.stack_len() == base {
            return Ok(walked);
        }
        m.safepoint();
        walked.stops += 1;
    }
}

/// Nodes reachable from the tree rooted at stack slot `at` (0 for an empty slot),
/// by the same traversal as [`walk`] without payloads (binary-trees' check).
pub fn count_nodes(m: &mut Mutator, node: &Node, at: usize) -> u64 {
    let base = m.stack_len();
    m.stack_dup(at);
    let mut nodes = 0u64;
    loop {
        {
            let mut todo = Vec::with_capacity(64);
            while m.stack_len() > base {
                todo.extend(m.pop());
            }
            let mut next = todo.pop();
            let mut poll = POLL_EVERY;
            while let Some(o) = next {
                nodes += 1;
                let (l, r) = (node.left.get(m, o), node.right.get(m, o));
                next = match (l, r) {
                    (Some(l), Some(r)) => {
                        todo.push(l);
                        Some(r)
                    }
                    (Some(only), None) | (None, Some(only)) => Some(only),
                    (None, None) => todo.pop(),
                };
                poll -= 1;
                if poll == 0 {
                    poll = POLL_EVERY;
                    if m.safepoint_requested() {
                        todo.extend(next.take());
                        for g in todo.drain(..) {
                            m.push(Some(g));
                        }
                    }
                }
            }
        }
        if m.stack_len() == base {
            return nodes;
        }
        m.safepoint();
    }
}
