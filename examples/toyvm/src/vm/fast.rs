//! The interpreter's inline cases of common builtins (the instructions from
//! `Op::Add` to `Op::VectorSet`, and `Op::VectorSetPop`): arithmetic and comparison of two fixnums or
//! two floats, pair access and construction, the type tests `null?` and
//! `pair?`, `not`, `eq?`, `vector-ref` and `vector-set!`. Each works on the
//! top of the root stack as `Op::Prim` would, and hands anything outside its
//! common case to the builtin itself ([`Vm::prim_slow`]), so results and error
//! messages are the builtin's. No `Gc` is held across an allocation: floats are
//! read into `f64`s before the result is boxed.

use super::{bool_value, Vm, CONSTS, TRUE, UNSPEC};
use crate::builtins::{ADD, BUILTINS, NUM_EQ, NUM_GE, NUM_GT, NUM_LE, NUM_LT, SUB};
use crate::error::VmError;
use flipgc_core::Value;

/// A two-operand numeric instruction's operation.
#[derive(Clone, Copy)]
pub(super) enum Arith {
    Add,
    Sub,
    Mul,
    Eq,
    Lt,
    Gt,
    Le,
    Ge,
}

impl Arith {
    /// The operation of builtin `id`, one of `crate::builtins::fixnum_fast`
    /// (`+`, `-`, `=`, `<`, `>`, `<=`, `>=`).
    pub(super) fn of_fixnum_fast(id: u16) -> Arith {
        match id {
            ADD => Arith::Add,
            SUB => Arith::Sub,
            NUM_EQ => Arith::Eq,
            NUM_LT => Arith::Lt,
            NUM_GT => Arith::Gt,
            NUM_LE => Arith::Le,
            NUM_GE => Arith::Ge,
            _ => unreachable!("builtin {id} has no fixnum fast path"),
        }
    }
}

impl Vm {
    /// Runs builtin `id` on the top `argc` values, replacing them with its result
    /// (`Op::Prim`).
    #[inline(never)]
    pub(super) fn prim_slow(&mut self, id: u16, argc: usize) -> Result<(), VmError> {
        let base = self.m.stack_len() - argc;
        (BUILTINS[id as usize].f)(self, base, argc)?;
        let top = self.top();
        if top != base {
            self.m.stack_copy(top, base);
            self.m.stack_truncate(base + 1);
        }
        Ok(())
    }

    /// The float in `v`, if it is one.
    #[inline(always)]
    fn float_of(&self, v: Value<'_>) -> Option<f64> {
        let g = v.as_ref()?;
        if self.m.type_of(g) != self.t.float {
            return None;
        }
        Some(f64::from_bits(self.m.get_word(g, self.t.float_bits)))
    }

    /// `op` on the top two values (builtin `id` outside the two-fixnum and
    /// two-float cases).
    #[inline(always)]
    pub(super) fn arith2(&mut self, op: Arith, id: u16) -> Result<(), VmError> {
        let top = self.top();
        let (a, b) = (self.val(top - 1), self.val(top));
        if let (Some(x), Some(y)) = (a.as_fixnum(), b.as_fixnum()) {
            // Two 63-bit values: the sum and difference fit 64 bits; a result
            // outside the fixnum range is boxed by the builtin.
            let r = match op {
                Arith::Add => Value::fixnum(x + y),
                Arith::Sub => Value::fixnum(x - y),
                Arith::Mul => x.checked_mul(y).and_then(Value::fixnum),
                cmp => Some(bool_value(Self::compare(cmp, x, y))),
            };
            if let Some(r) = r {
                self.m.stack_set_value(top - 1, r);
                self.m.stack_truncate(top);
                return Ok(());
            }
        } else if let (Some(x), Some(y)) = (self.float_of(a), self.float_of(b)) {
            let r = match op {
                Arith::Add => x + y,
                Arith::Sub => x - y,
                Arith::Mul => x * y,
                cmp => {
                    let t = Self::compare(cmp, x, y);
                    self.m.stack_set_value(top - 1, bool_value(t));
                    self.m.stack_truncate(top);
                    return Ok(());
                }
            };
            // The operands are read: drop them before the allocation.
            self.m.stack_truncate(top - 1);
            return self.push_float(r);
        }
        self.prim_slow(id, 2)
    }

    /// `op` on stack entries `a` and `b` (locals), its result pushed, when
    /// they are not two fixnums: two floats inline (read from the locals,
    /// without pushing them), anything else as [`Vm::arith2`] on copies.
    #[inline(never)]
    pub(super) fn local_arith_slow(
        &mut self,
        a: usize,
        b: usize,
        op: Arith,
        id: u16,
    ) -> Result<(), VmError> {
        if let (Some(x), Some(y)) = (self.float_of(self.val(a)), self.float_of(self.val(b))) {
            let r = match op {
                Arith::Add => x + y,
                Arith::Sub => x - y,
                Arith::Mul => x * y,
                cmp => {
                    self.push_bool(Self::compare(cmp, x, y));
                    return Ok(());
                }
            };
            return self.push_float(r);
        }
        self.dup(a);
        self.dup(b);
        self.arith2(op, id)
    }

    /// The comparison `op` of the top two values, popped (builtin `id`
    /// outside the two-fixnum and two-float cases): the test of a fused
    /// conditional jump.
    #[inline(always)]
    pub(super) fn compare2(&mut self, op: Arith, id: u16) -> Result<bool, VmError> {
        let top = self.top();
        let (a, b) = (self.val(top - 1), self.val(top));
        let r = if let (Some(x), Some(y)) = (a.as_fixnum(), b.as_fixnum()) {
            Self::compare(op, x, y)
        } else if let (Some(x), Some(y)) = (self.float_of(a), self.float_of(b)) {
            Self::compare(op, x, y)
        } else {
            self.prim_slow(id, 2)?;
            return Ok(self.truthy_pop());
        };
        self.m.stack_truncate(top - 1);
        Ok(r)
    }

    /// Comparison `op` (not an arithmetic one) of `x` and `y`.
    #[inline(always)]
    fn compare<T: PartialOrd>(op: Arith, x: T, y: T) -> bool {
        match op {
            Arith::Eq => x == y,
            Arith::Lt => x < y,
            Arith::Gt => x > y,
            Arith::Le => x <= y,
            _ => x >= y,
        }
    }

    /// Whether the top value is true; pops it.
    #[inline(always)]
    pub(super) fn truthy_pop(&mut self) -> bool {
        let top = self.top();
        let r = self.truthy(top);
        self.m.stack_truncate(top);
        r
    }

    /// `car` (`cdr` if `!car`) of the top value.
    #[inline(always)]
    pub(super) fn car_cdr(&mut self, car: bool, id: u16) -> Result<(), VmError> {
        let top = self.top();
        if let Some(p) = self.obj(top) {
            if self.m.type_of(p) == self.t.pair {
                let f = if car { self.t.car } else { self.t.cdr };
                let v = self.m.get_value(p, f);
                self.m.stack_set_value(top, v);
                return Ok(());
            }
        }
        self.prim_slow(id, 1)
    }

    /// `car` (`cdr` if `!car`) of stack entry `slot`, pushed.
    #[inline(always)]
    pub(super) fn local_car_cdr(&mut self, slot: usize, car: bool, id: u16) -> Result<(), VmError> {
        if let Some(p) = self.obj(slot) {
            if self.m.type_of(p) == self.t.pair {
                let f = if car { self.t.car } else { self.t.cdr };
                let v = self.m.get_value(p, f);
                self.m.push_value(v);
                return Ok(());
            }
        }
        self.dup(slot);
        self.prim_slow(id, 1)
    }

    /// Whether stack entry `slot` is `eqv?` to constant `k`.
    #[inline(always)]
    pub(super) fn local_eqv_const(&mut self, slot: usize, k: usize) -> bool {
        if k >= self.consts_len {
            self.refresh_consts();
        }
        let table = self.obj(CONSTS).expect("table");
        let datum = self.m.read_value(table, k);
        self.eqv(self.val(slot), datum)
    }

    /// `cons` of the top two values.
    #[inline(always)]
    pub(super) fn cons_top(&mut self) -> Result<(), VmError> {
        let top = self.top();
        self.push_pair(top - 1, top)?;
        self.collapse(2);
        Ok(())
    }

    /// `pair?` of the top value.
    #[inline(always)]
    pub(super) fn pair_p(&mut self, id: u16) -> Result<(), VmError> {
        let top = self.top();
        match self.obj(top) {
            Some(p) if self.m.type_of(p) == self.t.pair => {
                self.m.stack_set_value(top, TRUE);
                Ok(())
            }
            Some(_) => self.prim_slow(id, 1),
            None => {
                self.m.stack_set_value(top, bool_value(false));
                Ok(())
            }
        }
    }

    /// `eq?` or `eqv?` (one builtin, `crate::builtins::system::is_eqv`) of
    /// the top two values, replacing them with the result: [`Vm::eqv`]
    /// itself, inline. Symbols are heap objects compared by their ids, so two
    /// different objects are often `eqv?` (a `case` on symbols compares each
    /// key with fresh constants): the builtin's call cost such tests four
    /// times the comparison.
    #[inline(always)]
    pub(super) fn eq_top(&mut self) {
        let r = self.eqv_pop();
        self.push_bool(r);
    }

    /// [`Vm::eqv`] of the top two values, popped: the test of a fused
    /// conditional jump.
    #[inline(always)]
    pub(super) fn eqv_pop(&mut self) -> bool {
        let top = self.top();
        let r = self.eqv(self.val(top - 1), self.val(top));
        self.m.stack_truncate(top - 1);
        r
    }

    /// `vector-ref` (the vector and a fixnum index on top).
    #[inline(always)]
    pub(super) fn vector_ref_top(&mut self, id: u16) -> Result<(), VmError> {
        let top = self.top();
        if let (Some(v), Some(k)) = (self.obj(top - 1), self.val(top).as_fixnum()) {
            if self.m.type_of(v) == self.t.vector && (k as u64) < self.m.len(v) as u64 {
                let x = self.m.read_value(v, k as usize);
                self.m.stack_set_value(top - 1, x);
                self.m.stack_truncate(top);
                return Ok(());
            }
        }
        self.prim_slow(id, 2)
    }

    /// `vector-ref` of the top value at the constant index `k`.
    #[inline(always)]
    pub(super) fn vector_ref_int(&mut self, k: usize, id: u16) -> Result<(), VmError> {
        let top = self.top();
        if let Some(v) = self.obj(top) {
            if self.m.type_of(v) == self.t.vector && k < self.m.len(v) {
                let x = self.m.read_value(v, k);
                self.m.stack_set_value(top, x);
                return Ok(());
            }
        }
        self.push_int(k as i64)?;
        self.prim_slow(id, 2)
    }

    /// `vector-set!` (the vector, a fixnum index and the value on top).
    #[inline(always)]
    pub(super) fn vector_set_top(&mut self, id: u16) -> Result<(), VmError> {
        let top = self.top();
        if let (Some(v), Some(k)) = (self.obj(top - 2), self.val(top - 1).as_fixnum()) {
            if self.m.type_of(v) == self.t.vector && (k as u64) < self.m.len(v) as u64 {
                self.m.write_value(v, k as usize, self.val(top));
                self.m.stack_set_value(top - 2, UNSPEC);
                self.m.stack_truncate(top - 1);
                return Ok(());
            }
        }
        self.prim_slow(id, 3)
    }

    /// `vector-set!` for its effect: as [`Vm::vector_set_top`], then the
    /// result popped.
    #[inline(always)]
    pub(super) fn vector_set_pop(&mut self, id: u16) -> Result<(), VmError> {
        let top = self.top();
        if let (Some(v), Some(k)) = (self.obj(top - 2), self.val(top - 1).as_fixnum()) {
            if self.m.type_of(v) == self.t.vector && (k as u64) < self.m.len(v) as u64 {
                self.m.write_value(v, k as usize, self.val(top));
                self.m.stack_truncate(top - 2);
                return Ok(());
            }
        }
        self.prim_slow(id, 3)?;
        self.m.stack_truncate(self.top());
        Ok(())
    }
}
