//! binary-trees (the benchmarks-game program) through this VM's layout: the same
//! program, parameters ([`Params`]) and asserted checks as
//! `flipgc_stress::binarytrees`, so the two embeddings compare directly. See that
//! module for what the program does.
//!
//! Its class is in `classes/binarytrees.txt`, loaded at run time by [`load`]: a
//! node of two references (a header and two words, 24 bytes, as the built-in
//! version's).

use crate::object::Jvm;
use crate::tree::{count_nodes, make_tree, Node};
use flipgc_core::{Heap, Mutator};
use flipgc_stress::binarytrees::{expected_check, MIN_DEPTH};
use flipgc_stress::StressError;
use std::time::Instant;

pub use flipgc_stress::binarytrees::{DepthLine, Params, Summary};

/// The class description binary-trees loads.
pub const CLASSES: &str = include_str!("../classes/binarytrees.txt");

/// binary-trees' class, resolved.
#[derive(Clone, Copy, Debug)]
pub struct Types {
    /// The tree node.
    pub node: Node,
}

/// Loads binary-trees' class into `jvm` and resolves its fields.
pub fn load(jvm: &Jvm) -> Result<Types, String> {
    jvm.load(CLASSES)
        .map_err(|e| format!("binarytrees.txt: {e}"))?;
    Ok(Types {
        node: Node::of(jvm.class("binarytrees.Node")?, false)?,
    })
}

/// Runs binary-trees on `heap` (built for the VM `types` were loaded into),
/// asserting every check against `expected_check`.
pub fn run(heap: &Heap, types: &Types, params: &Params) -> Result<Summary, StressError> {
    params.validate()?;
    let start = Instant::now();
    let max = params.max_depth();
    let mut m = heap.bind_mutator()?;
    let node = types.node.bind(&m)?;
    let base = m.stack_len();

    make_tree(&mut m, &node, max + 1)?;
    let stretch = (max + 1, count_nodes(&mut m, &node, base));
    m.stack_truncate(base);
    expect("stretch tree", stretch.1, expected_check(1, max + 1))?;

    make_tree(&mut m, &node, max)?; // long-lived, at `base`
    let depths: Vec<u32> = (MIN_DEPTH..=max).step_by(2).collect();
    let checks: Vec<u64> = if params.threads == 1 {
        let mut checks = vec![0; depths.len()];
        share(&mut m, *types, params, &depths, 0, &mut checks)?;
        checks
    } else {
        // The main thread only waits: count it as stopped so collections need not.
        m.blocking(|| workers(heap, *types, params, &depths))?
    };
    let mut lines = Vec::new();
    for (&depth, check) in depths.iter().zip(checks) {
        let iterations = params.iterations(depth);
        expect(
            &format!("{iterations} trees of depth {depth}"),
            check,
            expected_check(iterations, depth),
        )?;
        lines.push(DepthLine {
            iterations,
            depth,
            check,
        });
    }
    let long_lived = (max, count_nodes(&mut m, &node, base));
    expect("long lived tree", long_lived.1, expected_check(1, max))?;
    m.stack_truncate(base);
    Ok(Summary {
        params: params.clone(),
        stretch,
        lines,
        long_lived,
        elapsed_ns: start.elapsed().as_nanos() as u64,
    })
}

fn expect(what: &str, got: u64, want: u64) -> Result<(), StressError> {
    if got == want {
        Ok(())
    } else {
        Err(StressError::Check(format!(
            "{what}: check {got}, expected {want}"
        )))
    }
}

/// Runs `params.threads` workers and sums their checks per depth.
fn workers(
    heap: &Heap,
    t: Types,
    params: &Params,
    depths: &[u32],
) -> Result<Vec<u64>, StressError> {
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..params.threads)
            .map(|worker| {
                s.spawn(move || {
                    let mut m = heap.bind_mutator()?;
                    let mut checks = vec![0; depths.len()];
                    share(&mut m, t, params, depths, worker, &mut checks)?;
                    Ok::<_, StressError>(checks)
                })
            })
            .collect();
        let mut total = vec![0; depths.len()];
        for h in handles {
            let checks = h.join().map_err(StressError::from_panic)??;
            for (t, c) in total.iter_mut().zip(checks) {
                *t += c;
            }
        }
        Ok(total)
    })
}

/// Worker `worker`'s share of every depth: iterations `worker`, `worker + threads`, ...
fn share(
    m: &mut Mutator,
    t: Types,
    params: &Params,
    depths: &[u32],
    worker: usize,
    checks: &mut [u64],
) -> Result<(), StressError> {
    let node = t.node.bind(m)?;
    let at = m.stack_len();
    for (&depth, check) in depths.iter().zip(checks.iter_mut()) {
        let mine = (params.iterations(depth) as usize)
            .saturating_sub(worker)
            .div_ceil(params.threads);
        for _ in 0..mine {
            make_tree(m, &node, depth)?;
            *check += count_nodes(m, &node, at);
            m.stack_truncate(at);
        }
    }
    Ok(())
}
