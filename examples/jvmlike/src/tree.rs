//! Binary trees on the mutator's root stack in this VM's layout, shared by GCBench
//! and binary-trees: bottom-up construction, top-down population, walks and node
//! counts. The same algorithms as `flipgc_stress::tree`, written against the VM's
//! field handles ([`RefField`], [`PrimField`]) instead of the built-in descriptors.
//!
//! A caller binds the node class to its mutator's heap once ([`Node::bind`]:
//! checked-once descriptors, a [`BoundNode`]) and passes that to every call.
//!
//! As there, everything works on root-stack slots: a `Gc` dies at every
//! allocation, while stack slots are roots the collector updates.

use crate::class::Class;
use crate::object::{instance_type, PrimField, RefField};
use flipgc_core::{Gc, GcError, ModelType, Mutator, SlotRef, SlotWord};

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
    /// `left` and `right` must be the class's first two slots (its first two
    /// reference fields), which the tree constructors fill.
    pub fn of(class: &'static Class, labels: bool) -> Result<Node, String> {
        let (left, right) = (RefField::of(class, "left")?, RefField::of(class, "right")?);
        if (left.slot(), right.slot()) != (1, 2) {
            return Err(format!(
                "class {}: left and right must be its first two reference fields",
                class.name()
            ));
        }
        Ok(Node {
            class,
            left,
            right,
            labels: if labels {
                Some((PrimField::of(class, "i")?, PrimField::of(class, "j")?))
            } else {
                None
            },
        })
    }

    /// The node's class and fields as checked-once descriptors of `m`'s heap.
    /// Errors for a heap not laid out by this VM's model.
    pub fn bind(&self, m: &Mutator) -> Result<BoundNode, GcError> {
        Ok(BoundNode {
            ty: instance_type(m, self.class)?,
            left: self.left.bind(m)?,
            right: self.right.bind(m)?,
            labels: match self.labels {
                Some((i, j)) => Some((i.bind(m)?, j.bind(m)?)),
                None => None,
            },
        })
    }
}

/// A [`Node`] bound to one heap: its allocation descriptor and its fields'
/// slot descriptors.
#[derive(Clone, Copy, Debug)]
pub struct BoundNode {
    /// Allocates a node.
    pub ty: ModelType,
    /// The `left` slot.
    pub left: SlotRef,
    /// The `right` slot.
    pub right: SlotRef,
    /// The `i` and `j` slots, if the node is labelled.
    pub labels: Option<(SlotWord, SlotWord)>,
}

impl BoundNode {
    #[inline(always)]
    fn children<'m>(&self, m: &'m Mutator, o: Gc<'m>) -> (Option<Gc<'m>>, Option<Gc<'m>>) {
        let [l, r] = m.get_slots(o, [self.left, self.right]);
        (l.as_ref(), r.as_ref())
    }
}

/// Builds a tree of `depth` bottom-up (children before parents) and pushes its
/// root: `new Node()` for the parent, then `parent.left = l; parent.right = r`.
pub fn make_tree(m: &mut Mutator, b: &BoundNode, depth: u32) -> Result<(), GcError> {
    if depth == 0 {
        return m.push_object_of(b.ty);
    }
    make_subtrees(m, b, depth)
}

/// [`make_tree`] for `depth >= 1`, with the constructors of the bound class
/// (`left` and `right` are its first two slots, see [`Node::bind`]): the leaves'
/// parents make their leaves themselves, as `flipgc_stress::tree` does.
fn make_subtrees(m: &mut Mutator, b: &BoundNode, depth: u32) -> Result<(), GcError> {
    if depth == 1 {
        // `new Node(new Node(), new Node())`: the leaves never touch the stack.
        return m.push_object_of_with_new::<2>(b.ty, b.ty);
    }
    make_subtrees(m, b, depth - 1)?;
    make_subtrees(m, b, depth - 1)?;
    // Stack: [.., left, right] -> [.., parent(left, right)].
    m.push_object_of_from_stack(b.ty, 2)
}

/// Gives the node at stack slot `at` two new children and populates them to
/// `depth - 1`, top-down (parents before children); leaves the stack as it was.
/// With `labels`, each new node gets a serial number (the counter, incremented) in
/// field `i` and its remaining depth in field `j`.
pub fn populate(
    m: &mut Mutator,
    b: &BoundNode,
    depth: u32,
    at: usize,
    labels: &mut Option<u64>,
) -> Result<(), GcError> {
    if depth == 0 {
        return Ok(());
    }
    m.push_object_of(b.ty)?;
    m.push_object_of(b.ty)?;
    let left = m.stack_len() - 2;
    let parent = m.stack_get(at).expect("a node to populate");
    m.set_slot(parent, b.left, m.stack_get(left).into());
    m.set_slot(parent, b.right, m.stack_get(left + 1).into());
    if let Some(next) = labels {
        let (serial, remaining) = b.labels.expect("a labelled node class");
        for child in [left, left + 1].into_iter().filter_map(|i| m.stack_get(i)) {
            m.set_slot_word(child, serial, *next);
            m.set_slot_word(child, remaining, u64::from(depth - 1));
            *next += 1;
        }
    }
    if depth > 1 {
        populate(m, b, depth - 1, left, labels)?;
        populate(m, b, depth - 1, left + 1, labels)?;
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
    b: &BoundNode,
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
                let (l, r) = b.children(m, o);
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
pub fn count_nodes(m: &mut Mutator, b: &BoundNode, at: usize) -> u64 {
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
                let (l, r) = b.children(m, o);
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
