//! The interpreter loop: dispatch over [`Op`], calls (closures, builtins,
//! `apply`), proper tail calls and returns. Frames live in a host vector of saved
//! (prototype, pc, frame pointer) triples; values live on the root stack.

use super::cont::{Barrier, RESUME};
use super::fast::Arith;
use super::{
    bool_value, stack_full, symbol_value, too_deep, Frame, Vm, CONSTS, FALSE, MAX_FRAMES,
    MAX_STACK, UNBOUND,
};
use crate::builtins::{
    fixnum_fast, ADD, APPLY, BUILTINS, CALLCC, NUM_EQ, NUM_GE, NUM_GT, NUM_LE, NUM_LT, SUB,
};
use crate::bytecode::{Op, Proto};
use crate::error::VmError;
use flipgc_core::Value;

/// For each comparison from `=` to `>=` (builtins `NUM_EQ` to `NUM_GE`, in
/// that order), the orderings of its operands that make it true: bit 0 less,
/// bit 1 equal, bit 2 greater ([`Vm::fixnum2`]).
const CMP_TRUE: [u8; 8] = [0b010, 0b001, 0b100, 0b011, 0b110, 0, 0, 0];
const _: () = assert!(
    ADD < NUM_EQ
        && SUB < NUM_EQ
        && NUM_LT == NUM_EQ + 1
        && NUM_GT == NUM_EQ + 2
        && NUM_LE == NUM_EQ + 3
        && NUM_GE == NUM_EQ + 4
);

/// Marks the frame that returns control to [`Vm::call`]'s caller.
const SENTINEL: u32 = u32::MAX;

impl Vm {
    /// Calls the procedure at stack index `top - argc` with the `argc` values above
    /// it as arguments; on success the result replaces all of them. On error the
    /// caller should [`Vm::unwind`]. The call is a continuation barrier
    /// (`cont.rs`): a continuation captured under it can be called only
    /// while it runs, and none captured outside it can be called under it.
    pub fn call(&mut self, argc: usize) -> Result<(), VmError> {
        self.call_under(argc, super::cont::fresh_barrier())
    }

    /// [`Vm::call`] for a top-level form of the session: every such call
    /// shares one barrier, so a continuation captured in one top-level form
    /// can be called from a later one (and then goes on with the form after
    /// the calling one).
    pub(crate) fn call_toplevel(&mut self, argc: usize) -> Result<(), VmError> {
        self.call_under(argc, self.toplevel)
    }

    fn call_under(&mut self, argc: usize, barrier: u64) -> Result<(), VmError> {
        let fpos = self.m.stack_len() - argc - 1;
        if self.frames.len() >= MAX_FRAMES {
            return Err(too_deep());
        }
        self.frames.push(Frame {
            proto: SENTINEL,
            pc: 0,
            fp: 0,
        });
        self.barriers.push(Barrier {
            id: barrier,
            base: fpos,
            frame: self.frames.len() - 1,
        });
        let sentinel = self.frames.len() - 1;
        let mut r = self.call_in_loop(fpos, argc);
        // A runtime error goes to the exception handlers, if any, before
        // anything is unwound (builtins/exceptions.rs): `raise` is called here,
        // in this run and under this barrier, from the stacks as the error left
        // them, above a marker frame. A handler escaping to a continuation
        // captured under this barrier (a `guard`'s) replaces the frames above
        // the sentinel, marker included, and the run then ends at the sentinel
        // as the call would have. `raise` itself never returns (the prelude
        // turns a handler's return into another error), so finding the
        // sentinel still there means it did, which is refused.
        while let Err(e) = r {
            let at = match self.raise_setup(e) {
                Ok(at) => at,
                Err(e) => {
                    r = Err(e);
                    break;
                }
            };
            self.frames.push(Frame {
                proto: SENTINEL,
                pc: 0,
                fp: 0,
            });
            r = self.call_in_loop(at, 1);
            if r.is_ok() && self.frames.len() > sentinel {
                r = Err(VmError::runtime("raise: a handler returned to a raise"));
                break;
            }
        }
        self.barriers.pop();
        r
    }

    /// Enters the procedure at `fpos` with `argc` arguments and runs it to its
    /// return into the frame below (a sentinel).
    fn call_in_loop(&mut self, fpos: usize, argc: usize) -> Result<(), VmError> {
        match self.enter(fpos, argc) {
            // A continuation is never called here: it could only be one
            // captured under this barrier, which has just begun.
            Ok(Some(RESUME)) => Err(VmError::runtime(
                "internal: a continuation resumed at entry",
            )),
            Ok(Some(pid)) => self.run(pid, fpos),
            Ok(None) => {
                self.frames.pop();
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    #[cold]
    #[inline(never)]
    fn arity_error(&self, name: &str, min: usize, max: Option<usize>, got: usize) -> VmError {
        let (want, n) = match max {
            None => (format!("at least {min}"), min),
            Some(max) if max == min => (min.to_string(), min),
            Some(max) => (format!("{min} to {max}"), 2),
        };
        let s = if n == 1 { "" } else { "s" };
        VmError::runtime(format!("{name}: expected {want} argument{s}, got {got}"))
    }

    /// Sets up a call of the procedure at `fpos` with `argc` arguments above it.
    /// A closure gets its frame (returns its prototype); a builtin runs at once and
    /// leaves its result at `fpos` (returns `None`); a continuation restores its
    /// stack and frames (returns [`RESUME`]: resume the newest frame).
    fn enter(&mut self, fpos: usize, mut argc: usize) -> Result<Option<u32>, VmError> {
        self.spend_fuel()?;
        loop {
            let v = self.val(fpos);
            let Some(g) = v.as_ref() else {
                let shown = self.repr(v, true);
                return Err(VmError::runtime(format!(
                    "attempt to call {shown}, which is not a procedure"
                )));
            };
            let ty = self.m.type_of(g);
            if ty == self.t.closure {
                let pid = self.m.get_word(g, self.t.closure_proto) as u32;
                self.open_frame(fpos, argc, pid)?;
                return Ok(Some(pid));
            }
            if ty == self.t.cont.ty {
                return self.reinstate(fpos, argc).map(Some);
            }
            if ty == self.t.rt.guardian {
                self.call_guardian(fpos, argc)?;
                let top = self.top();
                self.m.stack_copy(top, fpos);
                self.m.stack_truncate(fpos + 1);
                return Ok(None);
            }
            if ty != self.t.prim {
                let shown = self.repr(v, true);
                return Err(VmError::runtime(format!(
                    "attempt to call {shown}, which is not a procedure"
                )));
            }
            let id = self.m.get_word(g, self.t.prim_index) as usize;
            if id == APPLY {
                argc = self.spread_apply(fpos, argc)?;
                continue;
            }
            if id == CALLCC {
                argc = self.capture(fpos, argc)?;
                continue;
            }
            let b = &BUILTINS[id];
            if argc < b.min || b.max.is_some_and(|m| argc > m) {
                return Err(self.arity_error(b.name, b.min, b.max, argc));
            }
            (b.f)(self, fpos + 1, argc)?;
            let top = self.top();
            self.m.stack_copy(top, fpos);
            self.m.stack_truncate(fpos + 1);
            return Ok(None);
        }
    }

    /// The safepoint poll of a call or tail call: one relaxed load of the
    /// collector's request flag, and [`flipgc_core::Mutator::safepoint`] (which
    /// reads it again with acquire ordering and synchronises with the
    /// collection) only when it is set. Relaxed suffices because the flag is
    /// only a hint here: a stale `false` (possible on arm64 as on x86) defers
    /// the stop to a later call, and every loop of a Scheme program is a call.
    #[inline(always)]
    fn poll_safepoint(&mut self) {
        if self.m.safepoint_requested() {
            self.m.safepoint();
        }
    }

    /// The prototype of the closure at stack index `i`, if it holds a closure.
    #[inline(always)]
    fn closure_proto(&self, i: usize) -> Option<u32> {
        let g = self.obj(i)?;
        if self.m.type_of(g) != self.t.closure {
            return None;
        }
        Some(self.m.get_word(g, self.t.closure_proto) as u32)
    }

    /// "unbound variable" for the global whose cell is constant `k`.
    #[cold]
    #[inline(never)]
    fn unbound_error(&self, k: usize) -> VmError {
        let table = self.obj(CONSTS).expect("table");
        let cell = self.m.read_value(table, k).as_ref().expect("global cell");
        let name = self.global_name(cell);
        VmError::runtime(format!("unbound variable: {name}"))
    }

    /// Counts a call against the step budget.
    #[inline(always)]
    fn spend_fuel(&mut self) -> Result<(), VmError> {
        if self.fuel == 0 {
            self.refuel()?;
        }
        self.fuel -= 1;
        Ok(())
    }

    /// Lays out the frame of a call of prototype `pid` (the closure at `fpos`,
    /// `argc` arguments above it): checks the arity, gathers rest arguments,
    /// pushes the other local slots.
    fn open_frame(&mut self, fpos: usize, argc: usize, pid: u32) -> Result<(), VmError> {
        let p = self.proto(pid as usize).clone();
        self.open_frame_of(fpos, argc, &p)
    }

    /// [`Vm::open_frame`] of prototype `p` (the interpreter's calls, which
    /// hold the callee's prototype already: no lookup).
    #[inline(always)]
    fn open_frame_of(&mut self, fpos: usize, argc: usize, p: &Proto) -> Result<(), VmError> {
        let (nreq, rest, nslots) = (p.nreq as usize, p.rest, p.nslots as usize);
        if argc < nreq || (!rest && argc > nreq) {
            return Err(self.arity_error(&p.name, nreq, (!rest).then_some(nreq), argc));
        }
        if fpos + argc + nslots >= MAX_STACK {
            return Err(stack_full());
        }
        if rest {
            let from = fpos + 1 + nreq;
            self.push_list(from, fpos + 1 + argc)?;
            let top = self.top();
            self.m.stack_copy(top, from);
            self.m.stack_truncate(from + 1);
        }
        let have = self.m.stack_len() - fpos - 1;
        for _ in have..nslots {
            self.m.push(None);
        }
        Ok(())
    }

    /// Rewrites `apply f a... list` at `fpos` into `f a... elements...`; returns
    /// the new argument count.
    fn spread_apply(&mut self, fpos: usize, argc: usize) -> Result<usize, VmError> {
        if argc < 2 {
            return Err(self.arity_error("apply", 2, None, argc));
        }
        let len = self.proper_list(fpos + argc, "apply")?;
        if fpos + argc + len >= MAX_STACK {
            return Err(stack_full());
        }
        for i in fpos..fpos + argc {
            self.m.stack_copy(i + 1, i);
        }
        self.m.stack_truncate(fpos + argc);
        // The elements go above the list (which stays rooted while they are
        // pushed: that loop may park), then down over it.
        let at = fpos + argc - 1;
        let n = self.push_list_elements(at);
        for k in 0..n {
            self.m.stack_copy(at + 1 + k, at + k);
        }
        self.m.stack_truncate(at + n);
        Ok(argc - 2 + n)
    }

    /// The fast path of `(+ a b)`, `(- a b)`, `(= a b)`, `(< a b)`, `(> a b)`,
    /// `(<= a b)` and `(>= a b)` (builtin `id`, one of
    /// [`crate::builtins::fixnum_fast`]) on two fixnums: the result, without a
    /// call or an allocation. `None` for a sum or difference outside the fixnum
    /// range: the builtin boxes it.
    /// Without a branch on `id` beyond "arithmetic or comparison": `+` and
    /// `-` are the ids below the comparisons, and a comparison is true of the
    /// orderings of `a` and `b` in its [`CMP_TRUE`] entry.
    #[inline(always)]
    fn fixnum2(id: u16, a: i64, b: i64) -> Option<Value<'static>> {
        debug_assert!(crate::builtins::fixnum_fast(id));
        if id < NUM_EQ {
            // Two 63-bit values: the sum and difference fit 64 bits.
            return Value::fixnum(if id == SUB { a - b } else { a + b });
        }
        // Bit 0: a < b; bit 1: a == b; bit 2: a > b.
        let order = 1u8 << (u8::from(a >= b) + u8::from(a > b));
        let table = CMP_TRUE[usize::from(id - NUM_EQ) & 7];
        Some(bool_value(table & order != 0))
    }

    /// Comparison `id` (one of `=`, `<`, `>`, `<=`, `>=`) of two fixnums,
    /// without a branch on `id` ([`CMP_TRUE`]).
    #[inline(always)]
    fn fixnum_cmp(id: u16, a: i64, b: i64) -> bool {
        debug_assert!(crate::builtins::fixnum_compare(id));
        let order = 1u8 << (u8::from(a >= b) + u8::from(a > b));
        CMP_TRUE[usize::from(id.wrapping_sub(NUM_EQ)) & 7] & order != 0
    }

    /// `Op::PrimInt(id, i)`'s fast path: [`Vm::fixnum2`] of `a` and `i` if both
    /// are fixnums.
    #[inline(always)]
    fn fixnum_int(id: u16, a: Value<'_>, i: i64) -> Option<Value<'static>> {
        let a = a.as_fixnum()?;
        Value::fixnum(i)?;
        Self::fixnum2(id, a, i)
    }

    /// `Op::PrimInt(id, i)` when its fast path does not apply: as `Int(i)` then
    /// `Prim(id, 2)` (the first operand is on top of the stack).
    #[cold]
    fn prim_int_slow(&mut self, id: u16, i: i64) -> Result<(), VmError> {
        self.push_int(i)?;
        self.prim_slow(id, 2)
    }

    /// `Op::Prim(id, 2)` by [`Vm::fixnum2`] if `id` has a fast path and the top
    /// two stack entries are fixnums (their result replaces them: true); else
    /// false, the stack untouched.
    #[inline(always)]
    fn prim_fixnum2(&mut self, id: u16) -> bool {
        if !fixnum_fast(id) {
            return false;
        }
        let top = self.top();
        let (Some(a), Some(b)) = (self.val(top - 1).as_fixnum(), self.val(top).as_fixnum()) else {
            return false;
        };
        let Some(r) = Self::fixnum2(id, a, b) else {
            return false;
        };
        self.m.stack_set_value(top - 1, r);
        self.m.stack_truncate(top);
        true
    }

    /// Runs prototype `pid` in the frame at `fp` until it returns to a sentinel.
    fn run(&mut self, pid: u32, fp: usize) -> Result<(), VmError> {
        let mut pi = pid;
        let mut fp = fp;
        let mut pc = 0usize;
        // SAFETY: `code` and `ops` (here and at every `running_proto` below) are
        // used only within this call, which borrows `self`, so the `Vm` (and
        // its prototypes) outlives them.
        let mut code: &Proto = unsafe { self.running_proto(pi as usize) };
        // The running code, held apart from `code` so a dispatch loads the
        // instruction without first loading the vector from the prototype.
        let mut ops: &[Op] = &code.code;
        loop {
            let op = ops[pc];
            pc += 1;
            match op {
                Op::Const(k) => {
                    let k = k as usize;
                    if k >= self.consts_len {
                        self.refresh_consts();
                    }
                    let table = self.obj(CONSTS).expect("table");
                    self.m.push_value(self.m.read_value(table, k));
                }
                Op::Int(i) => self.push_int(i)?,
                Op::Bool(b) => self.push_bool(b),
                Op::Nil => self.m.push(None),
                Op::Unspec => self.push_unspec(),
                Op::Local(s) => self.dup(fp + 1 + s as usize),
                Op::LocalCell(s) => {
                    let cell = self.obj(fp + 1 + s as usize).expect("cell");
                    self.m.push_value(self.m.get_value(cell, self.t.cell_value));
                }
                Op::SetLocal(s) => {
                    let top = self.top();
                    self.m.stack_copy(top, fp + 1 + s as usize);
                    self.m.stack_truncate(top);
                }
                Op::SetLocalCell(s) => {
                    let top = self.top();
                    let cell = self.obj(fp + 1 + s as usize).expect("cell");
                    self.m.set_value(cell, self.t.cell_value, self.val(top));
                    self.m.stack_truncate(top);
                }
                Op::BoxLocal(s) => {
                    let slot = fp + 1 + s as usize;
                    self.m.push_fixed(self.t.alloc.cell)?;
                    let top = self.top();
                    let cell = self.obj(top).expect("fresh");
                    self.m.set_value(cell, self.t.cell_value, self.val(slot));
                    self.m.stack_set(slot, Some(cell));
                    self.m.stack_truncate(top);
                }
                Op::Free(i) => {
                    let clo = self.obj(fp).expect("closure");
                    self.m.push_value(self.m.read_tail_value(clo, i as usize));
                }
                Op::FreeCell(i) => {
                    let clo = self.obj(fp).expect("closure");
                    let cell = self.m.read_tail_ref(clo, i as usize).expect("cell");
                    self.m.push_value(self.m.get_value(cell, self.t.cell_value));
                }
                Op::SetFreeCell(i) => {
                    let top = self.top();
                    let clo = self.obj(fp).expect("closure");
                    let cell = self.m.read_tail_ref(clo, i as usize).expect("cell");
                    self.m.set_value(cell, self.t.cell_value, self.val(top));
                    self.m.stack_truncate(top);
                }
                Op::Global(k) => {
                    // An unbound global's cell holds `UNBOUND`: one field read
                    // (`global_word`'s bound bit says the same, for the other
                    // readers).
                    let k = k as usize;
                    self.reach_global_cell(k);
                    let cell = self.global_cell(k);
                    let v = self.m.get_value(cell, self.t.global_value);
                    if v == UNBOUND {
                        return Err(self.unbound_error(k));
                    }
                    self.m.push_value(v);
                }
                Op::SetGlobal(k) | Op::DefGlobal(k) => {
                    let k = k as usize;
                    if k >= self.consts_len {
                        self.refresh_consts();
                    }
                    let table = self.obj(CONSTS).expect("table");
                    let cell = self.m.read_value(table, k).as_ref().expect("global cell");
                    let word = self.m.get_word(cell, self.t.global_word);
                    let bound = word & 1 == 1;
                    if !bound && !matches!(op, Op::DefGlobal(_)) {
                        let name = self.global_name(cell);
                        return Err(VmError::runtime(format!("unbound variable: {name}")));
                    }
                    let top = self.top();
                    self.m.set_value(cell, self.t.global_value, self.val(top));
                    if !bound {
                        self.m.set_word(cell, self.t.global_word, word | 1);
                    }
                    self.m.stack_truncate(top);
                }
                Op::Pop => self.m.stack_truncate(self.top()),
                Op::Jump(t) => pc = t as usize,
                Op::JumpIfFalse(t) => {
                    let top = self.top();
                    let jump = !self.truthy(top);
                    self.m.stack_truncate(top);
                    if jump {
                        pc = t as usize;
                    }
                }
                Op::JumpIfFalseKeep(t) | Op::JumpIfTrueKeep(t) => {
                    let top = self.top();
                    if self.truthy(top) == matches!(op, Op::JumpIfTrueKeep(_)) {
                        pc = t as usize;
                    } else {
                        self.m.stack_truncate(top);
                    }
                }
                Op::Closure(pid, nfree) => {
                    let n = nfree as usize;
                    self.m.alloc_push(self.t.closure, n)?;
                    let top = self.top();
                    let clo = self.obj(top).expect("fresh");
                    self.m.set_word(clo, self.t.closure_proto, u64::from(pid));
                    for i in 0..n {
                        self.m.write_tail_value(clo, i, self.val(top - n + i));
                    }
                    self.m.stack_set(top - n, Some(clo));
                    self.m.stack_truncate(top - n + 1);
                }
                Op::Call(_) | Op::CallLocal(..) | Op::CallLocal2(..) => {
                    // The last one or two arguments of a `CallLocal` or
                    // `CallLocal2` are locals, pushed here.
                    let argc = match op {
                        Op::CallLocal(a, argc) => {
                            self.dup(fp + 1 + a as usize);
                            argc
                        }
                        Op::CallLocal2(a, b, argc) => {
                            self.dup(fp + 1 + a as usize);
                            self.dup(fp + 1 + b as usize);
                            argc
                        }
                        Op::Call(argc) => argc,
                        _ => unreachable!(),
                    };
                    self.poll_safepoint();
                    let argc = argc as usize;
                    let fpos = self.m.stack_len() - argc - 1;
                    if self.frames.len() >= MAX_FRAMES {
                        return Err(too_deep());
                    }
                    self.frames.push(Frame {
                        proto: pi,
                        pc: pc as u32,
                        fp: fp as u32,
                    });
                    // A closure's frame, here rather than in `enter`. A call of
                    // the running closure itself (the same object, read from the
                    // stack now) has prototype `pi`, without a read of the
                    // closure.
                    let callee = if self.val(fpos) == self.val(fp) {
                        Some(pi)
                    } else {
                        self.closure_proto(fpos)
                    };
                    if let Some(npi) = callee {
                        self.spend_fuel()?;
                        if npi != pi {
                            pi = npi;
                            // SAFETY: as for the first `running_proto` above.
                            code = unsafe { self.running_proto(pi as usize) };
                            ops = &code.code;
                        }
                        self.open_frame_of(fpos, argc, code)?;
                        fp = fpos;
                        pc = 0;
                        continue;
                    }
                    match self.enter(fpos, argc)? {
                        Some(RESUME) => {
                            let f = self.frames.pop().expect("frame");
                            if f.proto == SENTINEL {
                                return Ok(());
                            }
                            (pi, pc, fp) = (f.proto, f.pc as usize, f.fp as usize);
                            // SAFETY: as for the first `running_proto` above.
                            code = unsafe { self.running_proto(pi as usize) };
                            ops = &code.code;
                        }
                        Some(npi) => {
                            if npi != pi {
                                pi = npi;
                                // SAFETY: as for the first `running_proto` above.
                                code = unsafe { self.running_proto(pi as usize) };
                                ops = &code.code;
                            }
                            fp = fpos;
                            pc = 0;
                        }
                        None => {
                            self.frames.pop();
                        }
                    }
                }
                Op::TailCall(argc) => {
                    self.poll_safepoint();
                    let argc = argc as usize;
                    let fpos = self.m.stack_len() - argc - 1;
                    // A tail call of the running closure itself: as in `Op::Call`.
                    let itself = self.val(fpos) == self.val(fp);
                    for i in 0..=argc {
                        self.m.stack_copy(fpos + i, fp + i);
                    }
                    self.m.stack_truncate(fp + argc + 1);
                    let callee = if itself {
                        Some(pi)
                    } else {
                        self.closure_proto(fp)
                    };
                    if let Some(npi) = callee {
                        self.spend_fuel()?;
                        if npi != pi {
                            pi = npi;
                            // SAFETY: as for the first `running_proto` above.
                            code = unsafe { self.running_proto(pi as usize) };
                            ops = &code.code;
                        }
                        self.open_frame_of(fp, argc, code)?;
                        pc = 0;
                        continue;
                    }
                    // A continuation resumes its newest frame, as a builtin's
                    // result returns to it.
                    if let Some(npi) = self.enter(fp, argc)?.filter(|&p| p != RESUME) {
                        pc = 0;
                        if npi != pi {
                            pi = npi;
                            // SAFETY: as for the first `running_proto` above.
                            code = unsafe { self.running_proto(pi as usize) };
                            ops = &code.code;
                        }
                        continue;
                    }
                    // A builtin in tail position: its result is at `fp`; return it.
                    // (Or a continuation called: its restored frames are on top.)
                    let f = self.frames.pop().expect("frame");
                    if f.proto == SENTINEL {
                        return Ok(());
                    }
                    // Prototypes are only ever appended, so the same index is
                    // the same code: reload only on a change.
                    if f.proto != pi {
                        // SAFETY: as for the first `running_proto` above.
                        code = unsafe { self.running_proto(f.proto as usize) };
                        ops = &code.code;
                    }
                    (pi, pc, fp) = (f.proto, f.pc as usize, f.fp as usize);
                }
                Op::TailSelf(argc, nslots) => {
                    // As `TailCall` of the running closure (`itself`), with
                    // the closure not on the stack and the arity known to fit.
                    self.poll_safepoint();
                    let argc = argc as usize;
                    let from = self.m.stack_len() - argc;
                    for i in 0..argc {
                        self.m.stack_copy(from + i, fp + 1 + i);
                    }
                    self.m.stack_truncate(fp + 1 + argc);
                    for _ in argc..nslots as usize {
                        self.m.push(None);
                    }
                    self.spend_fuel()?;
                    pc = 0;
                }
                Op::Return | Op::ReturnLocal(_) => {
                    let from = match op {
                        Op::ReturnLocal(s) => fp + 1 + s as usize,
                        _ => self.top(),
                    };
                    self.m.stack_copy(from, fp);
                    self.m.stack_truncate(fp + 1);
                    let f = self.frames.pop().expect("frame");
                    if f.proto == SENTINEL {
                        return Ok(());
                    }
                    // Prototypes are only ever appended, so the same index is
                    // the same code: reload only on a change.
                    if f.proto != pi {
                        // SAFETY: as for the first `running_proto` above.
                        code = unsafe { self.running_proto(f.proto as usize) };
                        ops = &code.code;
                    }
                    (pi, pc, fp) = (f.proto, f.pc as usize, f.fp as usize);
                }
                Op::PrimInt(id, i) => {
                    let top = self.top();
                    if let Some(r) = Self::fixnum_int(id, self.val(top), i) {
                        self.m.stack_set_value(top, r);
                        continue;
                    }
                    self.prim_int_slow(id, i)?;
                }
                Op::LocalPrimInt(s, id, i) => {
                    let slot = fp + 1 + s as usize;
                    if let Some(r) = Self::fixnum_int(id, self.val(slot), i) {
                        self.m.push_value(r);
                        continue;
                    }
                    self.dup(slot);
                    self.prim_int_slow(id, i)?;
                }
                Op::Add(id) => self.arith2(Arith::Add, id)?,
                Op::Sub(id) => self.arith2(Arith::Sub, id)?,
                Op::Mul(id) => self.arith2(Arith::Mul, id)?,
                Op::NumEq(id) => self.arith2(Arith::Eq, id)?,
                Op::Lt(id) => self.arith2(Arith::Lt, id)?,
                Op::Gt(id) => self.arith2(Arith::Gt, id)?,
                Op::Le(id) => self.arith2(Arith::Le, id)?,
                Op::Ge(id) => self.arith2(Arith::Ge, id)?,
                Op::Car(id) => self.car_cdr(true, id)?,
                Op::Cdr(id) => self.car_cdr(false, id)?,
                Op::Cons(_) => self.cons_top()?,
                Op::NullP(_) => {
                    let top = self.top();
                    let r = bool_value(self.val(top).is_null());
                    self.m.stack_set_value(top, r);
                }
                Op::PairP(id) => self.pair_p(id)?,
                Op::Not(_) => {
                    let top = self.top();
                    let r = bool_value(!self.truthy(top));
                    self.m.stack_set_value(top, r);
                }
                Op::Eq(_) => self.eq_top(),
                Op::VectorRef(id) => self.vector_ref_top(id)?,
                Op::VectorSet(id) => self.vector_set_top(id)?,
                Op::SelfRef => self.dup(fp),
                Op::Local2(a, b) => {
                    self.dup(fp + 1 + a as usize);
                    self.dup(fp + 1 + b as usize);
                }
                Op::JumpUnlessLocalInt(s, id, i, t) => {
                    let slot = fp + 1 + s as usize;
                    let r = match Self::fixnum_int(id, self.val(slot), i64::from(i)) {
                        Some(r) => r != FALSE,
                        None => {
                            self.dup(slot);
                            self.prim_int_slow(id, i64::from(i))?;
                            self.truthy_pop()
                        }
                    };
                    if !r {
                        pc = t as usize;
                    }
                }
                Op::JumpUnlessLt(id, t) => {
                    if !self.compare2(Arith::Lt, id)? {
                        pc = t as usize;
                    }
                }
                Op::JumpUnlessGt(id, t) => {
                    if !self.compare2(Arith::Gt, id)? {
                        pc = t as usize;
                    }
                }
                Op::JumpUnlessLe(id, t) => {
                    if !self.compare2(Arith::Le, id)? {
                        pc = t as usize;
                    }
                }
                Op::JumpUnlessGe(id, t) => {
                    if !self.compare2(Arith::Ge, id)? {
                        pc = t as usize;
                    }
                }
                Op::JumpUnlessNumEq(id, t) => {
                    if !self.compare2(Arith::Eq, id)? {
                        pc = t as usize;
                    }
                }
                Op::JumpUnlessEq(_, t) => {
                    if !self.eqv_pop() {
                        pc = t as usize;
                    }
                }
                Op::JumpUnlessNull(t) => {
                    let top = self.top();
                    let null = self.val(top).is_null();
                    self.m.stack_truncate(top);
                    if !null {
                        pc = t as usize;
                    }
                }
                Op::JumpIfTrue(t) => {
                    let top = self.top();
                    let jump = self.truthy(top);
                    self.m.stack_truncate(top);
                    if jump {
                        pc = t as usize;
                    }
                }
                Op::JumpIfLt(id, t) => {
                    if self.compare2(Arith::Lt, id)? {
                        pc = t as usize;
                    }
                }
                Op::JumpIfGt(id, t) => {
                    if self.compare2(Arith::Gt, id)? {
                        pc = t as usize;
                    }
                }
                Op::JumpIfLe(id, t) => {
                    if self.compare2(Arith::Le, id)? {
                        pc = t as usize;
                    }
                }
                Op::JumpIfGe(id, t) => {
                    if self.compare2(Arith::Ge, id)? {
                        pc = t as usize;
                    }
                }
                Op::JumpIfNumEq(id, t) => {
                    if self.compare2(Arith::Eq, id)? {
                        pc = t as usize;
                    }
                }
                Op::JumpUnlessPair(id, t) => {
                    self.pair_p(id)?;
                    if !self.truthy_pop() {
                        pc = t as usize;
                    }
                }
                Op::LocalArith(a, b, id) => {
                    let (sa, sb) = (fp + 1 + a as usize, fp + 1 + b as usize);
                    if let (Some(x), Some(y)) = (self.val(sa).as_fixnum(), self.val(sb).as_fixnum())
                    {
                        if let Some(r) = Self::fixnum2(id, x, y) {
                            self.m.push_value(r);
                            continue;
                        }
                    }
                    self.local_arith_slow(sa, sb, Arith::of_fixnum_fast(id), id)?;
                }
                Op::LocalMul(a, b, id) => {
                    let (sa, sb) = (fp + 1 + a as usize, fp + 1 + b as usize);
                    if let (Some(x), Some(y)) = (self.val(sa).as_fixnum(), self.val(sb).as_fixnum())
                    {
                        if let Some(r) = x.checked_mul(y).and_then(Value::fixnum) {
                            self.m.push_value(r);
                            continue;
                        }
                    }
                    self.local_arith_slow(sa, sb, Arith::Mul, id)?;
                }
                Op::FreeArith(i, id) => {
                    let top = self.top();
                    let clo = self.obj(fp).expect("closure");
                    let b = self.m.read_tail_value(clo, i as usize);
                    if let (Some(x), Some(y)) = (self.val(top).as_fixnum(), b.as_fixnum()) {
                        if let Some(r) = Self::fixnum2(id, x, y) {
                            self.m.stack_set_value(top, r);
                            continue;
                        }
                    }
                    self.m.push_value(b);
                    self.arith2(Arith::of_fixnum_fast(id), id)?;
                }
                Op::JumpUnlessFreeArith(i, id, t) => {
                    let top = self.top();
                    let clo = self.obj(fp).expect("closure");
                    let b = self.m.read_tail_value(clo, i as usize);
                    let r = match (self.val(top).as_fixnum(), b.as_fixnum()) {
                        (Some(x), Some(y)) => {
                            self.m.stack_truncate(top);
                            Self::fixnum_cmp(id, x, y)
                        }
                        _ => {
                            self.m.push_value(b);
                            self.compare2(Arith::of_fixnum_fast(id), id)?
                        }
                    };
                    if !r {
                        pc = t as usize;
                    }
                }
                Op::VectorRefInt(k, id) => self.vector_ref_int(k as usize, id)?,
                Op::MoveLocal(a, b) => self.m.stack_copy(fp + 1 + a as usize, fp + 1 + b as usize),
                Op::LocalNullP(a, _) => {
                    let r = self.val(fp + 1 + a as usize).is_null();
                    self.push_bool(r);
                }
                Op::JumpUnlessLocalNull(a, t) => {
                    if !self.val(fp + 1 + a as usize).is_null() {
                        pc = t as usize;
                    }
                }
                Op::JumpUnlessLocals(a, id, b, t) | Op::JumpIfLocals(a, id, b, t) => {
                    let when = matches!(op, Op::JumpIfLocals(..));
                    let (sa, sb) = (fp + 1 + a as usize, fp + 1 + b as usize);
                    let r = match (self.val(sa).as_fixnum(), self.val(sb).as_fixnum()) {
                        (Some(x), Some(y)) => Self::fixnum_cmp(id, x, y),
                        _ => {
                            self.dup(sa);
                            self.dup(sb);
                            self.compare2(Arith::of_fixnum_fast(id), id)?
                        }
                    };
                    if r == when {
                        pc = t as usize;
                    }
                }
                Op::LocalEqConst(a, _, k) => {
                    let r = self.local_eqv_const(fp + 1 + a as usize, k as usize);
                    self.push_bool(r);
                }
                Op::JumpUnlessLocalEqConst(a, _, k, t) => {
                    if !self.local_eqv_const(fp + 1 + a as usize, k as usize) {
                        pc = t as usize;
                    }
                }
                Op::LocalCar(a, id) => self.local_car_cdr(fp + 1 + a as usize, true, id)?,
                Op::LocalCdr(a, id) => self.local_car_cdr(fp + 1 + a as usize, false, id)?,
                Op::VectorSetPop(id) => self.vector_set_pop(id)?,
                Op::Sym(id) => self.m.push_value(symbol_value(u64::from(id))),
                Op::LocalEqSym(a, id) => {
                    let r = self.val(fp + 1 + a as usize) == symbol_value(u64::from(id));
                    self.push_bool(r);
                }
                Op::JumpUnlessLocalEqSym(a, id, t) => {
                    if self.val(fp + 1 + a as usize) != symbol_value(u64::from(id)) {
                        pc = t as usize;
                    }
                }
                Op::SetLocal2(a, b) => {
                    let top = self.top();
                    self.m.stack_copy(top, fp + 1 + a as usize);
                    self.m.stack_copy(top - 1, fp + 1 + b as usize);
                    self.m.stack_truncate(top - 1);
                }
                Op::Prim(id, argc) => {
                    if argc == 2 && self.prim_fixnum2(id) {
                        continue;
                    }
                    let argc = argc as usize;
                    let base = self.m.stack_len() - argc;
                    (BUILTINS[id as usize].f)(self, base, argc)?;
                    let top = self.top();
                    if top != base {
                        self.m.stack_copy(top, base);
                        self.m.stack_truncate(base + 1);
                    }
                }
            }
        }
    }
}
