//! Binary trees on the mutator's root stack, shared by GCBench and binary-trees:
//! bottom-up construction, top-down population, and node counting. A node is a
//! fixed type with its two child references in fields 0 and 1 ([`Node`] holds its
//! descriptors, checked once when registered), and optionally two word fields for
//! labels.
//!
//! Everything works on root-stack slots, not handles: a `Gc` dies at every
//! allocation, while stack slots are roots the collector updates, and pushing and
//! popping them costs a few instructions.

use flipgc_core::{FixedType, GcError, Mutator, RefField, TypeId, TypeRegistry, WordField};

/// A tree node type's descriptors.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// The node type, for allocation.
    pub ty: FixedType,
    /// Field 0.
    pub left: RefField,
    /// Field 1.
    pub right: RefField,
    /// Fields 2 and 3 (a serial number and the remaining depth), if the type has them.
    pub labels: Option<(WordField, WordField)>,
}

impl Node {
    /// The descriptors of `id`, a node type registered in `r` (children in fields 0
    /// and 1; with `labels`, word fields 2 and 3).
    pub fn of(r: &TypeRegistry, id: TypeId, labels: bool) -> Result<Node, GcError> {
        Ok(Node {
            ty: r.fixed_type(id)?,
            left: r.ref_field(id, 0)?,
            right: r.ref_field(id, 1)?,
            labels: if labels {
                Some((r.word_field(id, 2)?, r.word_field(id, 3)?))
            } else {
                None
            },
        })
    }
}

/// Nodes in a complete binary tree of depth `depth` (a single node has depth 0).
pub fn tree_size(depth: u32) -> u64 {
    (1u64 << (depth + 1)) - 1
}

/// Builds a tree of `depth` bottom-up (children before parents) and pushes its root.
/// Each parent is made from its two children on the stack, as `new Node(left,
/// right)` ([`Mutator::push_fixed_from_stack`]).
pub fn make_tree(m: &mut Mutator, node: &Node, depth: u32) -> Result<(), GcError> {
    if depth == 0 {
        return m.push_fixed(node.ty);
    }
    make_subtrees(m, node, depth)
}

/// [`make_tree`] for `depth >= 1`. The leaves' parents make their leaves
/// themselves, instead of a call each that only allocates: as a JIT inlines a
/// small recursive callee one level into its caller, so half the calls and their
/// frames go.
fn make_subtrees(m: &mut Mutator, node: &Node, depth: u32) -> Result<(), GcError> {
    if depth == 1 {
        // `new Node(new Node(), new Node())`: the leaves never touch the stack.
        return m.push_fixed_with_new::<2>(node.ty, node.ty);
    }
    make_subtrees(m, node, depth - 1)?;
    make_subtrees(m, node, depth - 1)?;
    // Stack: [.., left, right] -> [.., parent(left, right)].
    m.push_fixed_from_stack(node.ty, 2)
}

/// Gives the node at stack slot `at` two new children and populates them to
/// `depth - 1`, top-down (parents before children); leaves the stack as it was.
/// With `labels`, each new node gets a serial number (the counter, incremented) in
/// word field 2 and its remaining depth in word field 3 (the node type must have
/// them).
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
    // `parent.left = new Node(); parent.right = new Node()`, the children pushed.
    m.push_fixed_n_into::<2>(node.ty, at, [node.left, node.right])?;
    let left = m.stack_len() - 2;
    if let Some(next) = labels {
        let (serial, remaining) = node.labels.expect("a labelled node type");
        for child in [left, left + 1].into_iter().filter_map(|i| m.stack_get(i)) {
            m.set_word(child, serial, *next);
            m.set_word(child, remaining, u64::from(depth - 1));
            *next += 1;
        }
    }
    // The children's own calls only when they have children: a call that would
    // return at once is not made (as a JIT inlines the callee's first test). The
    // last level's parents make their leaves themselves, without a call each
    // (half of all the calls), as `make_subtrees` does.
    if depth == 2 && labels.is_none() {
        // The leaves need no root slot: they hang off their parent, which has one.
        for child in [left, left + 1] {
            m.alloc_fixed_n_into::<2>(node.ty, child, [node.left, node.right])?;
        }
    } else if depth > 1 {
        populate(m, node, depth - 1, left, labels)?;
        populate(m, node, depth - 1, left + 1, labels)?;
    }
    m.stack_truncate(left);
    Ok(())
}

/// Nodes between two looks at [`Mutator::safepoint_requested`] in [`walk`].
pub const POLL_EVERY: u64 = 256;

/// What a [`walk`] did: the nodes it visited and the times it stopped for a
/// collection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Walked {
    /// Nodes visited.
    pub nodes: u64,
    /// Safepoints the walk stopped at.
    pub stops: u32,
}

/// Walks the tree rooted at stack slot `at` depth-first, right child first (an
/// empty slot: no nodes),
/// carrying a payload per node: the root's is `root`. `visit` sees each node, its
/// payload, and which of its two children exist; it returns the payload of the
/// node's children (which are visited next), or an error that ends the walk.
///
/// The walk allocates nothing, so it would reach no safepoint by itself: a
/// collection would wait for the whole walk (10-20 ms for a tree of depth 20) to
/// stop this mutator. So it polls, as a JIT's loop back-edge poll does: every
/// 256 nodes ([`POLL_EVERY`]) it looks whether a stop is requested, and if so moves its
/// pending nodes to the root stack (where the collection finds and updates them;
/// their payloads wait in a plain vector), stops, and takes them back.
pub fn walk<T: Copy, E>(
    m: &mut Mutator,
    node: &Node,
    at: usize,
    root: T,
    mut visit: impl FnMut(&Mutator, flipgc_core::Gc<'_>, T, [bool; 2]) -> Result<T, E>,
) -> Result<Walked, E> {
    let base = m.stack_len();
    m.stack_dup(at); // a null slot pops as `None`: nothing to walk
    let mut payloads = vec![root];
    let mut walked = Walked { nodes: 0, stops: 0 };
    loop {
        {
            let mut todo = Vec::new();
            while m.stack_len() > base {
                let p = payloads.pop().expect("a payload per parked node");
                todo.extend(m.pop().map(|o| (o, p)));
            }
            // The right child is visited next, straight away, and the left one waits
            // in `todo`. A tree built bottom-up ([`make_tree`]: left subtree, right
            // subtree, then the parent) lies in memory in post-order, and compaction
            // keeps address order: right-first pre-order is exactly its reverse,
            // so the walk sweeps the tree's memory downwards, one cache line after
            // the next (left-first, it jumped back over every right subtree). The
            // node visited next stays out of `todo`: a store and a reload per node
            // less on the walk's critical path.
            let mut next = todo.pop();
            let reader = m.ref_reader([node.left, node.right]);
            while let Some((o, p)) = next {
                walked.nodes += 1;
                let [l, r] = reader.get(o);
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
/// by a [`walk`] (which reaches safepoints).
///
/// The same traversal as [`walk`] (right child first, polling every
/// [`POLL_EVERY`] nodes), without its payloads and visitor: this is binary-trees'
/// check, half of that benchmark's work, and the loop keeps its state in
/// registers.
pub fn count_nodes(m: &mut Mutator, node: &Node, at: usize) -> u64 {
    let base = m.stack_len();
    m.stack_dup(at); // a null slot pops as `None`: nothing to count
    let fields = [node.left, node.right];
    let mut nodes = 0u64;
    loop {
        {
            let mut todo = Vec::with_capacity(64);
            while m.stack_len() > base {
                todo.extend(m.pop());
            }
            let mut next = todo.pop();
            let mut poll = POLL_EVERY;
            // Checked once for the loop: the bounds and offsets stay in registers.
            let reader = m.ref_reader(fields);
            while let Some(o) = next {
                nodes += 1;
                let [l, r] = reader.get(o);
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
                        // Park the pending nodes on the root stack for the stop.
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
