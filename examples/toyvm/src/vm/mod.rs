//! [`Vm`]: one thread's interpreter. Its value stack is the mutator's root stack,
//! so every live value is a precise root; no [`flipgc_core::Gc`] is held across an
//! allocation. This file owns the VM's state, the fixed bottom slots (constant
//! table, `#!bwp`, the wind list) and value construction/inspection helpers;
//! the value representation (immediates) is in [`value`], continuations in
//! `cont.rs`.

mod cont;
mod fast;
mod guardian;
pub mod hashtable;
mod link;
mod poll;
pub mod print;
mod run;
mod threads;
pub mod value;
pub mod weak;

pub use poll::POLL_STEPS;
pub use threads::{join, spawn};

use crate::bytecode::Proto;
use crate::error::{ErrorKind, VmError};
use crate::shared::{lock, Shared};
use crate::types::VmTypes;
use flipgc_core::{FixedType, Gc, Mutator, Value, WordField};
use std::rc::Rc;
use std::sync::Arc;
use value::UNBOUND;
pub use value::{
    as_char, as_symbol, bool_value, char_value, kind, symbol_value, Kind, FALSE, TRUE, UNSPEC,
};

/// Stack slot of the constant table.
pub const CONSTS: usize = 0;
/// Stack slot of the broken-weak-pointer object `#!bwp`.
pub const BWP: usize = 1;
/// Stack slot of the wind list: the active `dynamic-wind` entries of this
/// thread, innermost first, each `(before . after)`.
pub const WINDS: usize = 2;
/// First stack slot above the fixed ones.
pub const FIXED_SLOTS: usize = 3;
/// Most nested (non-tail) calls before "stack overflow".
pub const MAX_FRAMES: usize = 200_000;
/// Most values on the value stack (128 MiB) before "stack overflow": deep
/// recursion through procedures with many parameters or locals would otherwise
/// take all the host's memory before reaching [`MAX_FRAMES`].
pub const MAX_STACK: usize = 1 << 24;
/// Calls a thread takes from the shared step budget at a time.
const FUEL_CHUNK: u64 = 1024;
/// Initial constant-table capacity.
const CONSTS_INITIAL: usize = 256;

/// A caller's saved state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    pub proto: u32,
    pub pc: u32,
    pub fp: u32,
}

/// What [`Vm::list_shape`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListShape {
    /// A proper list of this many elements.
    Proper(usize),
    /// Pairs ending in something other than `()` (or not a pair at all).
    Improper,
    /// Pairs whose cdrs come back round.
    Circular,
}

/// A number read from the stack.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
}

/// One thread's interpreter.
pub struct Vm {
    /// The thread's mutator (its root stack is the VM's value stack).
    pub m: Mutator,
    /// Object types.
    pub t: VmTypes,
    /// Program-wide state.
    pub shared: Arc<Shared>,
    /// This thread's copy of the prototypes compiled so far (the shared list
    /// only grows). Not the shared `Arc`s: the interpreter holds the running
    /// prototype across calls and returns, and an atomic count per call costs.
    protos: Vec<Rc<Proto>>,
    /// Saved callers.
    frames: Vec<Frame>,
    /// The active host-level entries into the interpreter, innermost last
    /// (continuation barriers: `cont.rs`).
    barriers: Vec<cont::Barrier>,
    /// The barrier id that [`Vm::call_toplevel`] uses for every top-level form.
    toplevel: u64,
    /// Buffered output.
    pub out: String,
    /// Handles on the global cells this thread has read, by constant index
    /// ([`Vm::reach_global_cell`]): a global read then reads no constant-table
    /// element (a by-index read, with a lookup of the table's shape). A cell
    /// stays at its index for good (the table only grows, by copying), so a
    /// handle, made once, stays right; it keeps only a live cell alive.
    global_cells: Vec<Option<flipgc_core::Handle>>,
    /// Capacity of the constant table in slot [`CONSTS`] (cached: reading it from
    /// the heap on every global access costs a checked field access).
    consts_len: usize,
    /// Calls this thread may still make before taking more from the shared step
    /// budget ([`Vm::refuel`]).
    pub(crate) fuel: u64,
    /// This thread's index among the spawned threads (`None` on the main thread).
    pub(crate) thread: Option<usize>,
    /// The last few strings whose ASCII-ness `string-ref`/`string-set!`
    /// computed, each with whether it is all ASCII (then character `k` is byte
    /// `k`), and the entry to replace next. Handles, so an entry follows its
    /// string when the collector moves it (and keeps it alive until replaced).
    /// See `builtins/string.rs`.
    pub(crate) ascii: (Vec<(flipgc_core::Handle, bool)>, usize),
    /// The error-object kind of the runtime error being returned, if it is not
    /// the VM's own (a file or read error: `builtins/exceptions.rs`); taken
    /// when the error is raised to a handler.
    pub(crate) condition_kind: Option<u64>,
}

impl Vm {
    /// Binds a mutator on the calling thread and sets up the fixed slots.
    pub fn new(shared: Arc<Shared>) -> Result<Vm, VmError> {
        let m = shared.heap.bind_mutator()?;
        let t = shared.types;
        let mut vm = Vm {
            m,
            t,
            shared,
            protos: Vec::new(),
            frames: Vec::new(),
            barriers: Vec::new(),
            toplevel: cont::fresh_barrier(),
            out: String::new(),
            global_cells: Vec::new(),
            consts_len: 0,
            fuel: 0,
            thread: None,
            ascii: (Vec::new(), 0),
            condition_kind: None,
        };
        vm.init()?;
        Ok(vm)
    }

    fn init(&mut self) -> Result<(), VmError> {
        // The constant table: the shared one, or a new one for the first VM.
        let existing = lock(&self.shared.consts).table.is_some();
        if existing {
            self.refresh_consts();
        } else {
            self.m.alloc_push(self.t.vector, CONSTS_INITIAL)?;
            let g = self.m.global(self.obj(CONSTS).expect("table"));
            lock(&self.shared.consts).table = Some(g);
            self.consts_len = CONSTS_INITIAL;
        }
        self.m.push_fixed(self.t.rt.bwp_alloc)?;
        self.m.push(None);
        debug_assert_eq!(self.m.stack_len(), FIXED_SLOTS);
        Ok(())
    }

    /// Re-reads the shared constant table into slot [`CONSTS`] (pushing it if the
    /// slot does not exist yet).
    pub(crate) fn refresh_consts(&mut self) {
        let c = lock(&self.shared.consts);
        let g = self.m.get_global(c.table.as_ref().expect("constant table"));
        let len = self.m.len(g);
        if self.m.stack_len() > CONSTS {
            self.m.stack_set(CONSTS, Some(g));
        } else {
            self.m.push(Some(g));
        }
        self.consts_len = len;
    }

    /// Takes more calls from the shared step budget (all of them if it is
    /// unlimited); a [`ErrorKind::StepLimit`] error once it is spent.
    #[cold]
    pub(crate) fn refuel(&mut self) -> Result<(), VmError> {
        let mut fuel = lock(&self.shared.fuel);
        let Some(limit) = fuel.limit else {
            self.fuel = u64::MAX;
            return Ok(());
        };
        let take = fuel.left.min(FUEL_CHUNK);
        if take == 0 {
            return Err(VmError::new(
                ErrorKind::StepLimit,
                format!("more than {limit} procedure calls"),
            ));
        }
        fuel.left -= take;
        self.fuel = take;
        Ok(())
    }

    /// Sets the output buffer aside for the shared writer.
    pub fn flush(&mut self) {
        if self.out.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.out);
        let shared = Arc::clone(&self.shared);
        self.m.blocking(move || {
            let mut w = lock(&shared.out);
            let _ = w.write_all(text.as_bytes());
            let _ = w.flush();
            let open = !text.ends_with('\n');
            shared
                .line_open
                .store(open, std::sync::atomic::Ordering::Relaxed);
        });
    }

    // ---- stack helpers ----

    /// Index of the top of the stack.
    #[inline]
    pub fn top(&self) -> usize {
        self.m.stack_len() - 1
    }

    /// Replaces the `n` values below the top with the top.
    #[inline]
    pub fn collapse(&mut self, n: usize) {
        let top = self.top();
        if n > 0 {
            self.m.stack_copy(top, top - n);
            self.m.stack_truncate(top - n + 1);
        }
    }

    /// Pushes a copy of stack entry `i`.
    #[inline]
    pub fn dup(&mut self, i: usize) {
        self.m.stack_dup(i);
    }

    /// Whether stack entry `i` is true (anything but `#f`).
    #[inline]
    pub fn truthy(&self, i: usize) -> bool {
        self.val(i) != FALSE
    }

    // ---- constructors (each pushes the new value) ----

    /// Pushes `#t` or `#f`.
    #[inline]
    pub fn push_bool(&mut self, b: bool) {
        self.m.push_value(bool_value(b));
    }

    /// Pushes the unspecified value.
    #[inline]
    pub fn push_unspec(&mut self) {
        self.m.push_value(UNSPEC);
    }

    fn alloc_int(&mut self, i: i64) -> Result<(), VmError> {
        self.push_word(self.t.alloc.int, self.t.int_value, i as u64)
    }

    /// Pushes an integer: a fixnum, or (outside the 63-bit fixnum range) a boxed
    /// `scm-int`, which only that allocates.
    #[inline]
    pub fn push_int(&mut self, i: i64) -> Result<(), VmError> {
        match Value::fixnum(i) {
            Some(v) => {
                self.m.push_value(v);
                Ok(())
            }
            None => self.alloc_int(i),
        }
    }

    /// Pushes a new object of the fixed-size type `ty` holding `w` in its word
    /// field `f` (a field of `ty`).
    #[inline]
    pub fn push_word(&mut self, ty: FixedType, f: WordField, w: u64) -> Result<(), VmError> {
        self.m.push_fixed(ty)?;
        let g = self.obj(self.top()).expect("fresh");
        self.m.set_word(g, f, w);
        Ok(())
    }

    /// Pushes a float.
    pub fn push_float(&mut self, f: f64) -> Result<(), VmError> {
        self.push_word(self.t.alloc.float, self.t.float_bits, f.to_bits())
    }

    /// Pushes a number.
    pub fn push_num(&mut self, n: Num) -> Result<(), VmError> {
        match n {
            Num::Int(i) => self.push_int(i),
            Num::Float(f) => self.push_float(f),
        }
    }

    /// Pushes a character.
    #[inline]
    pub fn push_char(&mut self, c: char) {
        self.m.push_value(char_value(c));
    }

    /// Pushes a string.
    pub fn push_str(&mut self, s: &str) -> Result<(), VmError> {
        self.m.alloc_push(self.t.string, s.len())?;
        let g = self.obj(self.top()).expect("fresh");
        self.m.write_bytes(g, 0, s.as_bytes());
        Ok(())
    }

    /// Pushes the symbol named `name`.
    pub fn push_symbol(&mut self, name: &str) -> Result<(), VmError> {
        let id = self.shared.intern(name);
        self.m.push_value(symbol_value(id));
        Ok(())
    }

    /// Pushes `(car . cdr)` of stack entries `car` and `cdr` (copies of both,
    /// consumed by the pair's constructor: its fields 0 and 1).
    #[inline]
    pub fn push_pair(&mut self, car: usize, cdr: usize) -> Result<(), VmError> {
        self.m.stack_dup(car);
        self.m.stack_dup(cdr);
        if let Err(e) = self.m.push_fixed_from_stack(self.t.alloc.pair, 2) {
            self.m.stack_truncate(self.m.stack_len() - 2);
            return Err(e.into());
        }
        Ok(())
    }

    /// Pushes a list of stack entries `from..to`.
    pub fn push_list(&mut self, from: usize, to: usize) -> Result<(), VmError> {
        self.m.push(None);
        for i in (from..to).rev() {
            let tail = self.top();
            self.push_pair(i, tail)?;
            self.collapse(1);
        }
        Ok(())
    }

    /// Pushes the cars of the pairs of the list at stack entry `i` up to its
    /// first non-pair (all of them, for a proper list); returns how many. Polls
    /// for a safepoint every [`POLL_STEPS`] pairs (`poll.rs`), the cursor rooted.
    pub fn push_list_elements(&mut self, i: usize) -> usize {
        let mut n = 0;
        let mut cur = self.val(i);
        while let Some((car, cdr)) = cur.as_ref().and_then(|p| self.pair_parts(p)) {
            self.m.push_value(car);
            n += 1;
            cur = cdr;
            if n % POLL_STEPS == 0 && self.m.safepoint_requested() {
                self.m.push_value(cur);
                self.m.safepoint();
                let at = self.top();
                cur = self.val(at);
                self.m.stack_truncate(at);
            }
        }
        n
    }

    // ---- inspection ----

    /// The number at stack entry `i`, or a type error naming `who`.
    #[inline]
    pub fn num(&self, i: usize, who: &str) -> Result<Num, VmError> {
        let v = self.val(i);
        if let Some(n) = v.as_fixnum() {
            return Ok(Num::Int(n));
        }
        if let Some(g) = v.as_ref() {
            let ty = self.m.type_of(g);
            if ty == self.t.int {
                return Ok(Num::Int(self.m.get_word(g, self.t.int_value) as i64));
            }
            if ty == self.t.float {
                return Ok(Num::Float(f64::from_bits(
                    self.m.get_word(g, self.t.float_bits),
                )));
            }
        }
        Err(self.type_error(who, "a number", i))
    }

    /// The integer at stack entry `i`, or a type error naming `who`.
    #[inline]
    pub fn int(&self, i: usize, who: &str) -> Result<i64, VmError> {
        let v = self.val(i);
        if let Some(n) = v.as_fixnum() {
            return Ok(n);
        }
        match v.as_ref() {
            Some(g) if self.m.type_of(g) == self.t.int => {
                Ok(self.m.get_word(g, self.t.int_value) as i64)
            }
            _ => Err(self.type_error(who, "an integer", i)),
        }
    }

    /// A non-negative index at stack entry `i`.
    pub fn index(&self, i: usize, who: &str) -> Result<usize, VmError> {
        let n = self.int(i, who)?;
        usize::try_from(n).map_err(|_| VmError::runtime(format!("{who}: index {n} is negative")))
    }

    /// Whether stack entry `i` is a heap object of type `ty` (never true of an
    /// immediate).
    #[inline]
    pub fn is(&self, i: usize, ty: flipgc_core::TypeId) -> bool {
        self.obj(i).is_some_and(|g| self.m.type_of(g) == ty)
    }

    /// Stack entry `i` if it has type `ty`, else a type error ("`who`: expected
    /// `what`, ...").
    #[inline]
    pub fn expect(
        &self,
        i: usize,
        ty: flipgc_core::TypeId,
        what: &str,
        who: &str,
    ) -> Result<Gc<'_>, VmError> {
        match self.obj(i) {
            Some(g) if self.m.type_of(g) == ty => Ok(g),
            _ => Err(self.type_error(who, what, i)),
        }
    }

    /// The string at stack entry `i`.
    pub fn string(&self, i: usize, who: &str) -> Result<String, VmError> {
        let g = self.expect(i, self.t.string, "a string", who)?;
        Ok(self.read_string(g))
    }

    /// The contents of string object `g`.
    pub fn read_string(&self, g: Gc<'_>) -> String {
        let mut buf = vec![0; self.m.len(g)];
        self.m.read_bytes(g, 0, &mut buf);
        String::from_utf8(buf)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// "`who`: expected `what`, got `<value>`".
    #[cold]
    #[inline(never)]
    pub fn type_error(&self, who: &str, what: &str, i: usize) -> VmError {
        let got = self.repr(self.val(i), true);
        VmError::runtime(format!("{who}: expected {what}, got {got}"))
    }

    /// The shape of the list at stack entry `i`: proper (with its length),
    /// improper (ending in something other than `()`), or circular (found with
    /// Floyd's two cursors, so in time linear in the list's length and without
    /// allocating). Polls for a safepoint every [`POLL_STEPS`] pairs, both
    /// cursors rooted (`poll.rs`).
    pub fn list_shape(&mut self, i: usize) -> ListShape {
        let (mut slow, mut fast) = (self.val(i), self.val(i));
        let mut n = 0;
        loop {
            for _ in 0..2 {
                if fast.is_null() {
                    return ListShape::Proper(n);
                }
                match fast.as_ref() {
                    Some(p) if self.m.type_of(p) == self.t.pair => {
                        fast = self.m.get_value(p, self.t.cdr)
                    }
                    Some(p) => match self.pair_cdr(p) {
                        Some(cdr) => fast = cdr,
                        None => return ListShape::Improper,
                    },
                    // An immediate ends an improper list.
                    None => return ListShape::Improper,
                }
                n += 1;
            }
            // `slow` is half as far along: a pair `fast` has already passed (and
            // an object's type never changes).
            slow = slow
                .as_ref()
                .and_then(|p| self.pair_cdr(p))
                .unwrap_or(Value::NULL);
            if fast.as_ref().is_some() && fast == slow {
                return ListShape::Circular;
            }
            // `n` is even here.
            if n % POLL_STEPS == 0 && self.m.safepoint_requested() {
                let at = self.m.stack_len();
                self.m.push_value(slow);
                self.m.push_value(fast);
                self.m.safepoint();
                (slow, fast) = (self.val(at), self.val(at + 1));
                self.m.stack_truncate(at);
            }
        }
    }

    /// The length of the proper list at stack entry `i`, or a type error naming
    /// `who` (for an improper or circular list).
    pub fn proper_list(&mut self, i: usize, who: &str) -> Result<usize, VmError> {
        match self.list_shape(i) {
            ListShape::Proper(n) => Ok(n),
            _ => Err(self.type_error(who, "a proper list", i)),
        }
    }

    /// Whether stack entry `i` is a procedure (a closure, a builtin, a guardian
    /// or a continuation).
    pub fn is_procedure(&self, i: usize) -> bool {
        self.is(i, self.t.closure)
            || self.is(i, self.t.prim)
            || self.is(i, self.t.rt.guardian)
            || self.is(i, self.t.cont.ty)
    }

    /// The written (or displayed) form of `v`, with long output truncated.
    pub fn repr(&self, v: Value<'_>, write: bool) -> String {
        let mut s = String::new();
        // Stop early: only the first 200 bytes are kept.
        let _ = self.print_with(v, write, print::Labels::Cycles, &mut s, 200);
        if s.len() > 200 {
            let mut cut = 200;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
            s.push_str("...");
        }
        s
    }

    /// Resets the stacks after an error (down to `stack` entries and `frames`
    /// frames). Back at the top level (no frames left), the wind list is
    /// emptied too: the `after` thunks of the `dynamic-wind`s the error left
    /// do not run.
    pub fn unwind(&mut self, stack: usize, frames: usize) {
        self.m.stack_truncate(stack.max(FIXED_SLOTS));
        self.frames.truncate(frames);
        if frames == 0 {
            self.m.stack_set(WINDS, None);
        }
    }

    /// The stack depth and frame count, for [`Vm::unwind`].
    pub fn mark(&self) -> (usize, usize) {
        (self.m.stack_len(), self.frames.len())
    }
}

/// A stack-overflow error.
pub(crate) fn too_deep() -> VmError {
    VmError::new(
        ErrorKind::StackOverflow,
        format!("recursion deeper than {MAX_FRAMES} calls"),
    )
}

/// A stack-overflow error for a value stack past [`MAX_STACK`].
pub(crate) fn stack_full() -> VmError {
    VmError::new(
        ErrorKind::StackOverflow,
        format!("more than {MAX_STACK} values on the stack"),
    )
}

impl Vm {
    /// Pushes a closure without free variables of prototype `pid`.
    pub fn push_closure(&mut self, pid: u32) -> Result<(), VmError> {
        self.m.alloc_push(self.t.closure, 0)?;
        let clo = self.obj(self.top()).expect("fresh");
        self.m.set_word(clo, self.t.closure_proto, u64::from(pid));
        Ok(())
    }

    /// The written form of stack entry `i` (an error message if it cannot print).
    pub fn repr_full(&self, i: usize) -> String {
        let mut s = String::new();
        match self.print(self.val(i), true, &mut s) {
            Ok(()) => s,
            Err(e) => e.to_string(),
        }
    }
}
