//! GCBench (Boehm, Ellis and Kovac) through this VM's layout: the same program,
//! parameters ([`Params`]) and self-checks as `flipgc_stress::gcbench`, so the two
//! embeddings compare directly. See that module for what the program does.
//!
//! Its classes are in `classes/gcbench.txt`, loaded at run time by [`load`]: a
//! node (`ref left, ref right, long i, long j`: a header and four words, 40 bytes,
//! as the built-in version's) and an array of doubles (a header, a length word and
//! one word per element).

use crate::object::{array_len, prim_elem, push_array, set_prim_elem, Jvm};
use crate::tree::{count_nodes, make_tree, populate, tree_size, walk, BoundNode, Node};
use flipgc_core::{Heap, Mutator};
use flipgc_stress::StressError;
use std::time::{Duration, Instant};

use flipgc_stress::gcbench::{array_element, run_threads, ThreadResult};
pub use flipgc_stress::gcbench::{DepthTime, Params, Summary};

/// The class description GCBench loads.
pub const CLASSES: &str = include_str!("../classes/gcbench.txt");

/// GCBench's classes, resolved.
#[derive(Clone, Copy, Debug)]
pub struct Types {
    /// The tree node, with its labels.
    pub node: Node,
    /// The array of doubles.
    pub doubles: &'static crate::class::Class,
}

/// Loads GCBench's classes into `jvm` and resolves their fields.
pub fn load(jvm: &Jvm) -> Result<Types, String> {
    jvm.load(CLASSES).map_err(|e| format!("gcbench.txt: {e}"))?;
    Ok(Types {
        node: Node::of(jvm.class("gcbench.Node")?, true)?,
        doubles: jvm.class("gcbench.Doubles")?,
    })
}

/// Runs GCBench on `heap` (built for the VM `types` were loaded into),
/// `params.threads` mutators, each running the whole program (the threads and
/// the summary are `flipgc_stress::gcbench::run_threads`', shared with the
/// built-in embedding).
pub fn run(heap: &Heap, types: &Types, params: &Params) -> Result<Summary, StressError> {
    run_threads(params, || run_thread(heap, *types, params))
}

/// Root-stack slots of one thread's long-lived data.
const TREE: usize = 0;
const ARRAY: usize = 1;
/// Elements of the long-lived array written or read between two safepoints (64 KiB).
const ARRAY_CHUNK: usize = 8192;

fn array_chunks(n: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    (0..n)
        .step_by(ARRAY_CHUNK)
        .map(move |first| first..(first + ARRAY_CHUNK).min(n))
}

/// Makes the long-lived tree (labelled) and array in root-stack slots [`TREE`] and
/// [`ARRAY`] (the stack must be empty).
fn build_long_lived(
    m: &mut Mutator,
    t: &Types,
    node: &BoundNode,
    p: &Params,
) -> Result<(), StressError> {
    m.push_object_of(node.ty)?;
    let root = m.stack_get(TREE).expect("just allocated");
    let (_, remaining) = node.labels.expect("gcbench nodes are labelled");
    m.set_slot_word(root, remaining, u64::from(p.long_lived));
    populate(m, node, p.long_lived, TREE, &mut Some(1))?;
    push_array(m, t.doubles, p.array_size)?;
    for range in array_chunks(p.array_size) {
        m.safepoint();
        let array = m.stack_get(ARRAY).expect("just allocated");
        for i in range {
            set_prim_elem(m, array, i, array_element(i, p.array_size).to_bits());
        }
    }
    Ok(())
}

fn run_thread(heap: &Heap, t: Types, p: &Params) -> Result<ThreadResult, StressError> {
    let mut m = heap.bind_mutator()?;
    let node = t.node.bind(&m)?;
    make_tree(&mut m, &node, p.stretch)?;
    let at = m.stack_len() - 1;
    check_tree(&mut m, &node, at, p.stretch, "stretch tree")?;
    m.stack_truncate(0);

    build_long_lived(&mut m, &t, &node, p)?;

    let mut times = vec![(Duration::ZERO, Duration::ZERO); p.depths().count()];
    let mut array_sum = 0.0;
    for round in 0..p.rounds {
        for (slot, depth) in times.iter_mut().zip(p.depths()) {
            let n = p.iterations(depth);
            let started = Instant::now();
            for i in 0..n {
                m.push_object_of(node.ty)?;
                let at = m.stack_len() - 1;
                populate(&mut m, &node, depth, at, &mut None)?;
                if i + 1 == n {
                    check_tree(&mut m, &node, at, depth, "top-down tree")?;
                }
                m.stack_truncate(at);
            }
            let top_down = started.elapsed();
            let started = Instant::now();
            for i in 0..n {
                make_tree(&mut m, &node, depth)?;
                let at = m.stack_len() - 1;
                if i + 1 == n {
                    check_tree(&mut m, &node, at, depth, "bottom-up tree")?;
                }
                m.stack_truncate(at);
            }
            slot.0 += top_down;
            slot.1 += started.elapsed();
        }
        check_long_lived(&mut m, &node, p)
            .map_err(|e| StressError::Check(format!("after round {}: {e}", round + 1)))?;
        array_sum = check_array(&mut m, p)?;
    }
    Ok(ThreadResult { array_sum, times })
}

fn check_tree(
    m: &mut Mutator,
    node: &BoundNode,
    at: usize,
    depth: u32,
    what: &str,
) -> Result<(), StressError> {
    let n = count_nodes(m, node, at);
    if n == tree_size(depth) {
        Ok(())
    } else {
        Err(StressError::Check(format!(
            "{what} of depth {depth} has {n} nodes, expected {}",
            tree_size(depth)
        )))
    }
}

/// The long-lived tree: complete to its depth, every node's depth label one less
/// than its parent's, and the serial labels exactly `0..n`.
fn check_long_lived(m: &mut Mutator, node: &BoundNode, p: &Params) -> Result<u32, String> {
    let (serial, remaining) = node.labels.expect("gcbench nodes are labelled");
    let n = tree_size(p.long_lived);
    let mut seen = vec![false; n as usize];
    let walked = walk(m, node, TREE, p.long_lived, |m, o, depth, children| {
        let (id, label) = (m.get_slot_word(o, serial), m.get_slot_word(o, remaining));
        if label != u64::from(depth) {
            return Err(format!(
                "long-lived node {id} labelled depth {label}, found at {depth}"
            ));
        }
        match seen.get_mut(id as usize) {
            Some(s) if !*s => *s = true,
            _ => return Err(format!("long-lived node id {id} repeated or out of range")),
        }
        match (children, depth) {
            ([false, false], 0) => Ok(0),
            ([true, true], d) if d > 0 => Ok(d - 1),
            _ => Err(format!(
                "long-lived node {id} at depth {depth} has wrong children"
            )),
        }
    })?;
    if walked.nodes == n {
        Ok(walked.stops)
    } else {
        Err(format!(
            "long-lived tree has {} nodes, expected {n}",
            walked.nodes
        ))
    }
}

/// Checks the long-lived array's length and every element; returns their sum.
fn check_array(m: &mut Mutator, p: &Params) -> Result<f64, StressError> {
    let mut sum = 0.0;
    {
        let array = m.stack_get(ARRAY).expect("the array is rooted");
        let len = array_len(m, array);
        if len != p.array_size {
            return Err(StressError::Check(format!(
                "the array has length {len}, expected {}",
                p.array_size
            )));
        }
    }
    for range in array_chunks(p.array_size) {
        m.safepoint();
        let array = m.stack_get(ARRAY).expect("the array is rooted");
        for i in range {
            let v = f64::from_bits(prim_elem(m, array, i));
            let want = array_element(i, p.array_size);
            if v.to_bits() != want.to_bits() {
                return Err(StressError::Check(format!(
                    "array[{i}] is {v}, expected {want}"
                )));
            }
            if v.is_finite() {
                sum += v;
            }
        }
    }
    Ok(sum)
}
