//! First-class, re-entrant continuations by stack copying. `(%call/cc f)`
//! (special-cased in the interpreter's call path, as `apply` is) captures the
//! continuation of its call into a heap object of type `scm-continuation` and
//! then calls `(f k)` as a tail call, in the same interpreter loop. The object
//! holds the value-stack entries and the saved frames above the innermost
//! continuation barrier: the stack entries in its reference tail (traced and
//! moved by the collector like any object's references), each frame as three
//! fixnums (prototype, pc, frame pointer: immediates, never traced). Calling
//! the object with one value copies them back (the stack below the barrier and
//! the frames below it are the same, by the barrier check), puts the value
//! where `%call/cc`'s result goes, and resumes the newest restored frame.
//! Capture and re-entry cost time and space linear in the stack depth above
//! the barrier (a segmented stack, copying lazily, would make them constant).
//!
//! A barrier is a host-level entry into the interpreter ([`Vm::call`]): a
//! spawned thread's thunk, or a call from the embedding host. Each gets a fresh
//! id; the top-level forms of one [`crate::Session`] share one id (their common
//! base is the stack's fixed slots), so a continuation captured in one
//! top-level form can be called from a later one, and then goes on with the
//! form after the calling one, as Guile does when it runs a file. A
//! continuation can be called only while the barrier it was captured under is
//! the innermost one: calling it anywhere else is a runtime error, never a
//! jump into host frames that no longer exist.
//!
//! `dynamic-wind` and the wind list are the prelude's (`prelude-r7rs.scm`):
//! the list is in the stack slot [`WINDS`], and the Scheme procedure that wraps
//! each continuation runs the `after` and `before` thunks before calling the
//! raw object made here.

use super::{Frame, Vm, WINDS};
use crate::error::VmError;
use flipgc_core::Value;
use std::sync::atomic::{AtomicU64, Ordering};

/// The pid [`Vm::reinstate`] returns to say "resume the newest frame": no
/// prototype has this index (the prototype list would need 4 billion entries).
pub(crate) const RESUME: u32 = u32::MAX - 1;

/// The next barrier id. Only uniqueness matters: `fetch_add` is one atomic
/// read-modify-write, so no two barriers (of any thread) get the same id under
/// any ordering, and no other memory is published through it (Relaxed).
static NEXT_BARRIER: AtomicU64 = AtomicU64::new(1);

/// A fresh barrier id.
pub(crate) fn fresh_barrier() -> u64 {
    NEXT_BARRIER.fetch_add(1, Ordering::Relaxed)
}

/// An active host-level entry into the interpreter (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Barrier {
    /// Its id.
    pub id: u64,
    /// The stack index of the procedure it called (where its result goes):
    /// entries below belong to the host.
    pub base: usize,
    /// The index of its sentinel frame in the frame vector.
    pub frame: usize,
}

/// A frame field as a fixnum (all three are `u32`, well inside the range).
fn word(x: u32) -> Value<'static> {
    Value::fixnum(i64::from(x)).expect("a u32 is a fixnum")
}

impl Vm {
    /// `(%call/cc f)` at `fpos`: captures the continuation of this call and
    /// rewrites the stack into the call `(f k)`; returns its argument count.
    pub(crate) fn capture(&mut self, fpos: usize, argc: usize) -> Result<usize, VmError> {
        if argc != 1 {
            return Err(VmError::runtime(format!(
                "call/cc: expected 1 argument, got {argc}"
            )));
        }
        let b = *self
            .barriers
            .last()
            .expect("the interpreter runs under a barrier");
        let nstack = fpos - b.base;
        let nframes = self.frames.len() - b.frame - 1;
        let c = self.t.cont;
        self.m.alloc_push(c.ty, nstack + 3 * nframes)?;
        let k = self.obj(self.top()).expect("fresh");
        self.m.set_word(k, c.barrier, b.id);
        self.m.set_word(k, c.base, b.base as u64);
        self.m.set_word(k, c.frame, b.frame as u64);
        self.m.set_word(k, c.nstack, nstack as u64);
        for i in 0..nstack {
            self.m
                .write_tail_value(k, i, self.m.stack_get_value(b.base + i));
        }
        for (j, f) in self.frames[b.frame + 1..].iter().enumerate() {
            let at = nstack + 3 * j;
            self.m.write_tail_value(k, at, word(f.proto));
            self.m.write_tail_value(k, at + 1, word(f.pc));
            self.m.write_tail_value(k, at + 2, word(f.fp));
        }
        // `f k` where `%call/cc f` was.
        self.m.stack_copy(fpos + 1, fpos);
        let top = self.top();
        self.m.stack_copy(top, fpos + 1);
        self.m.stack_truncate(fpos + 2);
        Ok(1)
    }

    /// Calls the continuation at `fpos` with the `argc` values above it (one):
    /// restores its stack entries and frames, with the value on top. Returns
    /// [`RESUME`]: the caller resumes the newest frame.
    pub(crate) fn reinstate(&mut self, fpos: usize, argc: usize) -> Result<u32, VmError> {
        if argc != 1 {
            return Err(VmError::runtime(format!(
                "continuation: expected 1 argument, got {argc}"
            )));
        }
        let c = self.t.cont;
        let m = &self.m;
        let k = m.stack_get_value(fpos).as_ref().expect("a continuation");
        let id = m.get_word(k, c.barrier);
        let base = m.get_word(k, c.base) as usize;
        let frame = m.get_word(k, c.frame) as usize;
        let b = *self
            .barriers
            .last()
            .expect("the interpreter runs under a barrier");
        if b.id != id || b.base != base || b.frame != frame {
            return Err(VmError::runtime(
                "continuation called across a continuation barrier: it was \
                 captured under another entry into the interpreter (a spawned \
                 thread's thunk, or a call from the host) that has returned or \
                 is not the innermost one",
            ));
        }
        let nstack = m.get_word(k, c.nstack) as usize;
        let ntail = m.tail_len(k);
        let v = m.stack_get_value(fpos + 1);
        // No allocation or safepoint until the copy is done, so `k` and `v`
        // stay valid while the stack entries that held them are overwritten.
        m.stack_truncate(base);
        for i in 0..nstack {
            m.push_value(m.read_tail_value(k, i));
        }
        m.push_value(v);
        let frames = &mut self.frames;
        frames.truncate(b.frame + 1);
        let field = |at: usize| m.read_tail_value(k, at).as_fixnum().expect("frame word") as u32;
        for at in (nstack..ntail).step_by(3) {
            frames.push(Frame {
                proto: field(at),
                pc: field(at + 1),
                fp: field(at + 2),
            });
        }
        Ok(RESUME)
    }

    /// The wind list (`dynamic-wind`'s active entries, innermost first).
    pub(crate) fn winds(&self) -> Value<'_> {
        self.m.stack_get_value(WINDS)
    }

    /// Sets the wind list to the value at stack entry `i`.
    pub(crate) fn set_winds(&mut self, i: usize) {
        self.m.stack_copy(i, WINDS);
    }
}
