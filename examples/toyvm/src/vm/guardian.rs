//! Guardians (`make-guardian`, as in Chez Scheme): a guardian is a procedure
//! object holding the index of a [`flipgc_core::FinalizerQueue`] kept in
//! `Shared::guardians`. `(g obj)` registers `obj` for finalization in that queue;
//! `(g)` returns one registered object that a collection found inaccessible (the
//! collector keeps it alive for that), or `#f`.
//!
//! The queue lives as long as its guardian object: the guardian is registered with
//! a cleaner in the reaper queue, and when a collection finds the guardian dead,
//! the next `make-guardian`, weak-table operation or `(gc)` drops its queue, so
//! the objects registered with it are collected normally (Chez's rule), including
//! those it found inaccessible but nobody asked for. Objects compared by value
//! (numbers, characters, symbols, booleans...) are never inaccessible: registering
//! one does nothing. One limit: an object that a guardian holds as inaccessible is
//! a root until asked for, so if it references its own guardian, neither dies.

use super::Vm;
use crate::error::VmError;
use crate::shared::lock;

impl Vm {
    /// Pushes a new guardian.
    pub fn make_guardian(&mut self) -> Result<(), VmError> {
        {
            // Free the queues of dead guardians first.
            let mut st = lock(&self.shared.tables);
            self.reap(&mut st);
        }
        self.m.push_fixed(self.t.rt.guardian_alloc)?;
        let q = self.shared.heap.finalizer_queue();
        let index = {
            let mut g = lock(&self.shared.guardians);
            match g.free.pop() {
                Some(i) => {
                    g.queues[i] = Some(q);
                    i
                }
                None => {
                    g.queues.push(Some(q));
                    g.queues.len() - 1
                }
            }
        };
        let obj = self.obj(self.top()).expect("fresh");
        self.m.set_word(obj, self.t.rt.guardian_index, index as u64);
        self.m
            .register_cleaner(obj, index as u64, &self.shared.reaper);
        Ok(())
    }

    /// Calls the guardian at stack entry `fpos` with the `argc` arguments above
    /// it; pushes the result.
    pub(crate) fn call_guardian(&mut self, fpos: usize, argc: usize) -> Result<(), VmError> {
        let g = self.obj(fpos).expect("guardian");
        let index = self.m.get_word(g, self.t.rt.guardian_index) as usize;
        let queue = lock(&self.shared.guardians)
            .queues
            .get(index)
            .cloned()
            .flatten()
            .expect("a live guardian's queue is kept");
        match argc {
            0 => match self.m.poll_finalized(&queue) {
                Some(h) => {
                    let v = self.m.get(&h);
                    self.m.push(Some(v));
                }
                None => self.push_bool(false),
            },
            1 => {
                if let Some(obj) = self.obj(fpos + 1).filter(|&o| !self.by_value(o.into())) {
                    self.m.register_finalizer(obj, &queue);
                }
                self.push_unspec();
            }
            _ => {
                return Err(VmError::runtime(format!(
                    "guardian: expected 0 or 1 arguments, got {argc}"
                )))
            }
        }
        Ok(())
    }
}
