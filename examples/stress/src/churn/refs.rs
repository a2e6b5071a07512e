//! churn's runtime-feature operations: weak handles, finalizers, cleaners and
//! identity hashes on the random graph, checked against the model.
//!
//! Between checks, a weak handle read back must give the object it was made for or
//! nothing (never another object), and an object's identity hash never changes.
//! Every `refs_check`-th cycle a thread asks for a collection ([`Mutator::collect`]:
//! its snapshot is taken after the call, and its graph is its own) and then checks
//! exactly, from the model:
//! - objects registered for finalization and unreachable from the slots come back,
//!   each once, and no other; each that no other such object references does come
//!   back (one that another references may wait: a resurrected object in its queue
//!   keeps what it references alive until polled). Then half of them are put back
//!   in a slot, so the model's full check covers their graphs, and half dropped;
//! - "live" after that collection means reachable from the slots or from those
//!   resurrected objects; a weak handle is set iff its object is live;
//! - the tokens of cleaners whose objects are not live are queued, and no others.

use super::{describe, Churn};
use crate::StressError;
use flipgc_core::Mutator;
use model::{BLOB, NODE};

use super::model;

/// Most registrations of each kind a thread keeps at a time.
const MAX_REGISTERED: usize = 2000;

impl Churn {
    /// One runtime-feature operation on slot `s`'s object (chosen at random).
    pub(super) fn refs_op(&mut self, m: &mut Mutator, s: usize) -> Result<(), StressError> {
        let Some(i) = self.model.roots[s] else {
            return Ok(());
        };
        let o = m.stack_get(self.base + s).expect("model says non-null");
        match self.rng.below(5) {
            0 if self.weak.len() < MAX_REGISTERED => {
                self.weak.push(m.weak(o));
                self.weak_desc
                    .push(describe(m, self.t, o).map_err(StressError::Check)?);
                self.model.weak.push(Some(i));
            }
            1 if self.model.finalizable.len() < MAX_REGISTERED => {
                let kind = self.model.objs[i].kind;
                // Nodes and blobs only: their ids tell returned objects apart.
                if (kind == NODE || kind == BLOB) && !self.model.finalizable.contains(&i) {
                    m.register_finalizer(o, &self.queue);
                    self.model.finalizable.push(i);
                }
            }
            2 if self.model.cleaners.len() < MAX_REGISTERED => {
                self.next_token += 1;
                m.register_cleaner(o, self.next_token, &self.queue);
                self.model.cleaners.push((Some(i), self.next_token));
            }
            3 => {
                let h = m.identity_hash(o);
                match self.model.objs[i].hash {
                    Some(want) if want != h => {
                        return Err(self.fail(format!(
                            "slot {s}: identity hash {h:x} changed from {want:x}"
                        )))
                    }
                    _ => self.model.objs[i].hash = Some(h),
                }
            }
            _ if !self.weak.is_empty() => {
                let j = self.rng.below(self.weak.len());
                if let Some(o) = m.get_weak(&self.weak[j]) {
                    let got = describe(m, self.t, o).map_err(StressError::Check)?;
                    if got != self.weak_desc[j] {
                        return Err(self.fail(format!(
                            "weak handle {j} gives {got:?}, made for {:?}",
                            self.weak_desc[j]
                        )));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The exact check after a collection (see the module docs).
    pub(super) fn refs_check(&mut self, m: &mut Mutator) -> Result<(), StressError> {
        m.collect();
        let roots: Vec<usize> = self.model.roots.iter().flatten().copied().collect();
        let from_roots = self.model.reachable_from(roots.iter().copied());
        let dead_final: Vec<usize> = (self.model.finalizable.iter().copied())
            .filter(|&i| !from_roots[i])
            .collect();
        let live = self
            .model
            .reachable_from(roots.iter().copied().chain(dead_final.iter().copied()));

        // Finalizers: each object returned is a registered one unreachable from the
        // slots, each once; and every such object that no other such object
        // references is returned. (One that another references may have been kept
        // alive by it: a resurrected object waits in its queue, a root, until
        // polled, so what it references is finalized only after it is dropped.)
        let mut got = Vec::new();
        let mut returned = Vec::new();
        while let Some(h) = m.poll_finalized(&self.queue) {
            let (_, id, _) = describe(m, self.t, m.get(&h)).map_err(StressError::Check)?;
            let Some(&i) = dead_final.iter().find(|&&i| self.model.objs[i].id == id) else {
                return Err(self.fail(format!(
                    "finalized object {id:x} is not a registered, unreachable one"
                )));
            };
            if got.contains(&i) {
                return Err(self.fail(format!("object {id:x} finalized twice")));
            }
            got.push(i);
            returned.push((i, h));
        }
        for &f in &dead_final {
            let others = dead_final.iter().copied().filter(|&g| g != f);
            let kept_by_other = others
                .flat_map(|g| self.model.objs[g].refs.iter().flatten().copied())
                .collect::<Vec<_>>();
            if !got.contains(&f) && !self.model.reachable_from(kept_by_other)[f] {
                return Err(self.fail(format!(
                    "object {:x}, registered and unreachable, was not finalized",
                    self.model.objs[f].id
                )));
            }
        }
        self.model
            .finalizable
            .retain(|i| from_roots[*i] || !got.contains(i));
        self.counts[0] += got.len() as u64;
        // In model order, not poll order: which cycle finalized an object (so its
        // place in the queue) depends on collection timing, which must not steer
        // the seeded choices (young cycles finalize old objects only in full ones).
        returned.sort_unstable_by_key(|&(i, _)| i);
        for (i, h) in returned {
            if self.rng.chance(50) {
                let s = self.slot();
                m.stack_set(self.base + s, Some(m.get(&h)));
                self.model.roots[s] = Some(i);
            }
        }

        // Weak handles: set iff the object is live.
        let mut keep = Vec::with_capacity(self.weak.len());
        for j in 0..self.weak.len() {
            let expect = self.model.weak[j].is_some_and(|i| live[i]);
            let got = m.get_weak(&self.weak[j]);
            if got.is_some() != expect {
                return Err(self.fail(format!(
                    "weak handle {j} to {:?} is {} after a collection, its object {}",
                    self.weak_desc[j],
                    if got.is_some() { "set" } else { "cleared" },
                    if expect { "live" } else { "dead" }
                )));
            }
            if let Some(o) = got {
                let d = describe(m, self.t, o).map_err(StressError::Check)?;
                if d != self.weak_desc[j] {
                    return Err(self.fail(format!("weak handle {j} gives {d:?}")));
                }
            }
            keep.push(expect);
        }
        self.counts[1] += keep.iter().filter(|k| !**k).count() as u64;
        let mut k = keep.iter();
        self.weak.retain(|_| *k.next().expect("one per handle"));
        let mut k = keep.iter();
        self.weak_desc
            .retain(|_| *k.next().expect("one per handle"));
        self.model.weak.retain(|w| w.is_some_and(|i| live[i]));

        // Cleaners: the tokens of objects not live.
        let is_dead = |c: &(Option<usize>, u64)| !c.0.is_some_and(|i| live[i]);
        let mut want: Vec<u64> = self
            .model
            .cleaners
            .iter()
            .filter(|c| is_dead(c))
            .map(|c| c.1)
            .collect();
        let mut got = Vec::new();
        while let Some(t) = self.queue.poll_token() {
            got.push(t);
        }
        want.sort_unstable();
        got.sort_unstable();
        if want != got {
            return Err(self.fail(format!("cleaner tokens {got:?}, expected {want:?}")));
        }
        self.model.cleaners.retain(|c| !is_dead(c));
        self.counts[2] += got.len() as u64;
        Ok(())
    }

    fn fail(&self, what: String) -> StressError {
        StressError::Check(format!("thread {}: {what}", self.tid - 1))
    }
}
