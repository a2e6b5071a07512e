//! Binary trees on the mutator's root stack, shared by GCBench and binary-trees:
//! bottom-up construction, top-down population, and node counting. Nodes are any
//! fixed type with its two child references in fields 0 and 1.
//!
//! Everything works on root-stack slots, not handles: a `Gc` dies at every
//! allocation, while stack slots are roots the collector updates, and pushing and
//! popping them costs a few instructions.

use flipgc_core::{GcError, Mutator, TypeId};

/// Nodes in a complete binary tree of depth `depth` (a single node has depth 0).
pub fn tree_size(depth: u32) -> u64 {
    (1u64 << (depth + 1)) - 1
}

/// Builds a tree of `depth` bottom-up (children before parents) and pushes its root.
pub fn make_tree(m: &mut Mutator, node: TypeId, depth: u32) -> Result<(), GcError> {
    if depth == 0 {
        return m.alloc_push(node, 0);
    }
    make_tree(m, node, depth - 1)?;
    make_tree(m, node, depth - 1)?;
    m.alloc_push(node, 0)?;
    // Stack: [.., left, right, parent].
    let top = m.stack_len();
    let parent = m.stack_get(top - 1).expect("just allocated");
    m.write_ref(parent, 0, m.stack_get(top - 3));
    m.write_ref(parent, 1, m.stack_get(top - 2));
    m.stack_set(top - 3, Some(parent));
    m.stack_truncate(top - 2);
    Ok(())
}

/// Gives the node at stack slot `at` two new children and populates them to
/// `depth - 1`, top-down (parents before children); leaves the stack as it was.
/// With `labels`, each new node gets a serial number (the counter, incremented) in
/// word field 2 and its remaining depth in word field 3.
pub fn populate(
    m: &mut Mutator,
    node: TypeId,
    depth: u32,
    at: usize,
    labels: &mut Option<u64>,
) -> Result<(), GcError> {
    if depth == 0 {
        return Ok(());
    }
    m.alloc_push(node, 0)?;
    m.alloc_push(node, 0)?;
    let left = m.stack_len() - 2;
    let parent = m.stack_get(at).expect("populating a live node");
    let (l, r) = (m.stack_get(left), m.stack_get(left + 1));
    m.write_ref(parent, 0, l);
    m.write_ref(parent, 1, r);
    if let Some(next) = labels {
        for child in [l, r].into_iter().flatten() {
            m.write_word(child, 2, *next);
            m.write_word(child, 3, u64::from(depth - 1));
            *next += 1;
        }
    }
    populate(m, node, depth - 1, left, labels)?;
    populate(m, node, depth - 1, left + 1, labels)?;
    m.stack_truncate(left);
    Ok(())
}

/// Nodes reachable from the tree rooted at stack slot `at` (0 for an empty slot).
pub fn count_nodes(m: &Mutator, at: usize) -> u64 {
    let mut n = 0;
    let mut todo: Vec<_> = m.stack_get(at).into_iter().collect();
    while let Some(o) = todo.pop() {
        n += 1;
        todo.extend(m.read_ref(o, 0));
        todo.extend(m.read_ref(o, 1));
    }
    n
}
