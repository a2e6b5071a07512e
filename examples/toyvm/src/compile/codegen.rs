//! Code generation: a resolved [`Program`] to bytecode, one [`Proto`] per function,
//! with calls in tail position compiled as [`Op::TailCall`].

use super::analyze::{Expr, FnId, Program, VarId};
use super::{selfref, Linker};
use crate::bytecode::{Op, Proto};
use crate::error::VmError;
use crate::reader::DatumKind;

/// Generates every function of `program`; returns the prototype index of function 0.
pub fn generate(program: &Program, linker: &mut dyn Linker) -> Result<u32, VmError> {
    let self_bound = selfref::self_bound(program);
    gen_fn(program, &self_bound, 0, linker)
}

fn gen_fn(
    p: &Program,
    self_bound: &[Option<FnId>],
    f: FnId,
    linker: &mut dyn Linker,
) -> Result<u32, VmError> {
    let func = &p.funcs[f];
    let mut g = Gen {
        p,
        self_bound,
        f,
        code: Vec::new(),
        target: usize::MAX,
        linker,
    };
    for &v in &func.params {
        if p.vars[v].boxed() {
            g.code.push(Op::BoxLocal(p.vars[v].slot));
        }
    }
    g.expr(&func.body, true)?;
    g.ret();
    let nparams = func.params.len() as u32;
    let proto = Proto {
        name: func.name.clone(),
        nreq: if func.rest { nparams - 1 } else { nparams },
        rest: func.rest,
        nslots: func.nslots,
        code: g.code,
    };
    linker.code(proto)
}

struct Gen<'a> {
    p: &'a Program,
    /// [`selfref::self_bound`] of `p`.
    self_bound: &'a [Option<FnId>],
    f: FnId,
    code: Vec<Op>,
    /// The last jump target (an instruction index): the instruction there
    /// may not be merged into the one before it.
    target: usize,
    linker: &'a mut dyn Linker,
}

impl Gen<'_> {
    fn here(&self) -> u32 {
        self.code.len() as u32
    }

    fn patch(&mut self, at: usize) {
        let to = self.here();
        self.code[at] = self.code[at].retarget(to);
        self.target = to as usize;
    }

    /// Pushes `Local(slot)`, merged with a `Local` just before it (that no
    /// jump targets this one) into a `Local2`.
    fn local(&mut self, slot: u32) {
        if self.target != self.code.len() {
            if let Some(op @ Op::Local(_)) = self.code.last_mut() {
                let Op::Local(a) = *op else { unreachable!() };
                *op = Op::Local2(a, slot);
                return;
            }
        }
        self.code.push(Op::Local(slot));
    }

    /// Pushes `op`, merged with the instruction before it (that no jump
    /// targets `op`, as in [`Gen::local`]) where one instruction does both:
    /// `Local2` then a two-fixnum operation into `LocalArith` (`*`:
    /// `LocalMul`), `Free` then one into `FreeArith`, `Int` then
    /// `VectorRef` into `VectorRefInt`, `Local` then `car`, `cdr`, `null?` or `SetLocal` into
    /// `LocalCar`, `LocalCdr`, `LocalNullP` or `MoveLocal`, `VectorSet` then `Pop`
    /// into `VectorSetPop`, `SetLocal` then `SetLocal` into `SetLocal2`; and
    /// `Local`, `Const`, `Eq` into `LocalEqConst`.
    fn push_merged(&mut self, op: Op) {
        let n = self.code.len();
        if self.target != n {
            // Three into one: `Local`, `Const`, `Eq` (that no jump targets
            // the `Const` either).
            if let (Op::Eq(id), [.., Op::Local(a), Op::Const(k)]) = (op, &self.code[..]) {
                if self.target != n - 1 {
                    let (a, k) = (*a, *k);
                    self.code.truncate(n - 2);
                    self.code.push(Op::LocalEqConst(a, id, k));
                    return;
                }
            }
            // The same with a quoted symbol: `Local`, `Sym`, `Eq`.
            if let (Op::Eq(_), [.., Op::Local(a), Op::Sym(s)]) = (op, &self.code[..]) {
                if self.target != n - 1 {
                    let (a, s) = (*a, *s);
                    self.code.truncate(n - 2);
                    self.code.push(Op::LocalEqSym(a, s));
                    return;
                }
            }
            // `Local2(a, b)` then `car` or `cdr`: `Local(a)` then the `car`
            // or `cdr` of `b`.
            if let (Op::Car(id) | Op::Cdr(id), Some(&Op::Local2(a, b))) = (op, self.code.last()) {
                self.code[n - 1] = Op::Local(a);
                self.code.push(if matches!(op, Op::Car(_)) {
                    Op::LocalCar(b, id)
                } else {
                    Op::LocalCdr(b, id)
                });
                return;
            }
            if let Some(last) = self.code.last_mut() {
                let merged = match (*last, op) {
                    (Op::Local(a), Op::SetLocal(b)) => Some(Op::MoveLocal(a, b)),
                    (Op::Local(a), Op::NullP(id)) => Some(Op::LocalNullP(a, id)),
                    (Op::Local2(a, b), Op::Mul(id)) => Some(Op::LocalMul(a, b, id)),
                    (Op::Local(a), Op::Car(id)) => Some(Op::LocalCar(a, id)),
                    (Op::Local(a), Op::Cdr(id)) => Some(Op::LocalCdr(a, id)),
                    (Op::Local2(a, b), _) => op.fixnum_fast_id().map(|id| Op::LocalArith(a, b, id)),
                    (Op::Free(i), _) => op.fixnum_fast_id().map(|id| Op::FreeArith(i, id)),
                    (Op::Int(k), Op::VectorRef(id)) => {
                        u32::try_from(k).ok().map(|k| Op::VectorRefInt(k, id))
                    }
                    (Op::VectorSet(id), Op::Pop) => Some(Op::VectorSetPop(id)),
                    (Op::SetLocal(a), Op::SetLocal(b)) => Some(Op::SetLocal2(a, b)),
                    _ => None,
                };
                if let Some(m) = merged {
                    *last = m;
                    return;
                }
            }
        }
        self.code.push(op);
    }

    /// Returns the top value; a plain local read just before (that no jump
    /// targets the end of, as in [`Gen::local`]) is folded into a
    /// `ReturnLocal`.
    fn ret(&mut self) {
        if self.target != self.code.len() {
            if let Some(op @ Op::Local(_)) = self.code.last_mut() {
                let Op::Local(slot) = *op else { unreachable!() };
                *op = Op::ReturnLocal(slot);
                return;
            }
        }
        self.code.push(Op::Return);
    }

    /// `(and e ...)` (`and`) or `(or e ...)`: each value but the last
    /// tested in place, kept as the result when it decides it.
    fn and_or(&mut self, es: &[Expr], and: bool, tail: bool) -> Result<(), VmError> {
        let mut jumps = Vec::new();
        for (i, sub) in es.iter().enumerate() {
            let last = i + 1 == es.len();
            self.expr(sub, tail && last)?;
            if !last {
                jumps.push(self.code.len());
                self.code.push(if and {
                    Op::JumpIfFalseKeep(0)
                } else {
                    Op::JumpIfTrueKeep(0)
                });
            }
        }
        self.patch_all(&jumps);
        Ok(())
    }

    /// `(or e ...)` in tail position: a leading predicate (a comparison,
    /// `null?`, `pair?`, `eq?`, `not`: `#t` or `#f`) is `(if p #t (or
    /// ...))`, its test fused with its jump; the rest as [`Gen::and_or`].
    fn tail_or(&mut self, es: &[Expr]) -> Result<(), VmError> {
        match es {
            [first, rest @ ..] if !rest.is_empty() && is_predicate(first) => {
                let jf = self.test_false(first)?;
                self.code.push(Op::Bool(true));
                self.ret();
                self.patch_all(&jf);
                self.tail_or(rest)
            }
            _ => self.and_or(es, false, true),
        }
    }

    /// Patches every jump at `at` to here.
    fn patch_all(&mut self, at: &[usize]) {
        for &j in at {
            self.patch(j);
        }
    }

    /// Emits the test `c` of a conditional: code that falls through when `c`
    /// is true and jumps when it is false; returns the jumps (to patch to
    /// the false target). A test that is an inlined builtin call is one
    /// instruction with its jump where one exists (`Op::fused_with_jump`,
    /// `Op::negated_with_jump` for `(not (< a b))`); `(and a ...)` is each
    /// test's jumps to the one false target; `(or a ... z)` is each test but
    /// the last jumping past the rest when true, `z`'s jumps the false ones.
    fn test_false(&mut self, c: &Expr) -> Result<Vec<usize>, VmError> {
        match c {
            Expr::And(es) if !es.is_empty() => {
                let mut jf = Vec::new();
                for sub in es {
                    jf.extend(self.test_false(sub)?);
                }
                return Ok(jf);
            }
            Expr::Or(es) if es.len() > 1 => {
                let (last, tests) = es.split_last().expect("two or more");
                let mut jt = Vec::new();
                for sub in tests {
                    jt.push(self.test_true(sub)?);
                }
                let jf = self.test_false(last)?;
                self.patch_all(&jt);
                return Ok(jf);
            }
            _ => {}
        }
        self.expr(c, false)?;
        let n = self.code.len();
        // A test's result goes straight to the jump. Only for an
        // inlined builtin call: its instruction is the condition's
        // last and no jump inside the condition targets past it.
        // `(not (< a b))` (a comparison, then `Not`, that no jump
        // targets) is one jump on the comparison.
        let negated = match (c, &self.code[..]) {
            (Expr::Prim(..), [.., cmp, Op::Not(_)]) if self.target != n - 1 => {
                cmp.negated_with_jump(0)
            }
            _ => None,
        };
        let fused = match (c, self.code.last()) {
            _ if negated.is_some() => None,
            (Expr::Prim(..), Some(op)) => op.fused_with_jump(0),
            _ => None,
        };
        Ok(vec![if let Some(op) = negated {
            self.code.pop();
            *self.code.last_mut().expect("test") = op;
            n - 2
        } else if let Some(op) = fused {
            *self.code.last_mut().expect("test") = op;
            n - 1
        } else {
            self.code.push(Op::JumpIfFalse(0));
            n
        }])
    }

    /// Emits the test `c`, jumping when it is true (popping the value) and
    /// falling through when it is false; returns the jump: a comparison's
    /// jump (`Op::negated_with_jump`, which jumps when the comparison
    /// holds), else `Op::JumpIfTrue`.
    fn test_true(&mut self, c: &Expr) -> Result<usize, VmError> {
        self.expr(c, false)?;
        let n = self.code.len();
        let cmp = match (c, self.code.last()) {
            (Expr::Prim(..), Some(op)) if self.target != n => op.negated_with_jump(0),
            _ => None,
        };
        if let Some(op) = cmp {
            *self.code.last_mut().expect("test") = op;
            return Ok(n - 1);
        }
        self.code.push(Op::JumpIfTrue(0));
        Ok(n)
    }

    fn free_index(&self, v: VarId) -> u32 {
        let free = &self.p.funcs[self.f].free;
        free.iter()
            .position(|x| *x == v)
            .expect("captured variable is free") as u32
    }

    /// Pushes the variable's slot content (the cell itself if boxed).
    fn raw_ref(&mut self, v: VarId) {
        let var = &self.p.vars[v];
        if var.func == self.f {
            self.local(var.slot);
        } else {
            let i = self.free_index(v);
            self.code.push(Op::Free(i));
        }
    }

    fn var_ref(&mut self, v: VarId) {
        let var = &self.p.vars[v];
        if self.self_bound[v] == Some(self.f) {
            self.code.push(Op::SelfRef);
            return;
        }
        match (var.func == self.f, var.boxed()) {
            (true, false) => self.local(var.slot),
            (true, true) => self.code.push(Op::LocalCell(var.slot)),
            (false, false) => {
                let i = self.free_index(v);
                self.code.push(Op::Free(i))
            }
            (false, true) => {
                let i = self.free_index(v);
                self.code.push(Op::FreeCell(i))
            }
        }
    }

    /// Pops into the variable (through its cell if boxed).
    fn var_set(&mut self, v: VarId) {
        let var = &self.p.vars[v];
        match (var.func == self.f, var.boxed()) {
            (true, false) => self.code.push(Op::SetLocal(var.slot)),
            (true, true) => self.code.push(Op::SetLocalCell(var.slot)),
            (false, true) => {
                let i = self.free_index(v);
                self.code.push(Op::SetFreeCell(i))
            }
            (false, false) => unreachable!("assigned free variables are boxed"),
        }
    }

    fn expr(&mut self, e: &Expr, tail: bool) -> Result<(), VmError> {
        match e {
            Expr::Const(d) => {
                // A symbol is an immediate: pushed by the instruction itself.
                if let DatumKind::Sym(name) = &d.kind {
                    if let Ok(id) = u32::try_from(self.linker.symbol(name)) {
                        self.code.push(Op::Sym(id));
                        return Ok(());
                    }
                }
                let k = self.linker.constant(d)?;
                self.code.push(Op::Const(k));
            }
            Expr::Int(i) => self.code.push(Op::Int(*i)),
            Expr::Bool(b) => self.code.push(Op::Bool(*b)),
            Expr::Nil => self.code.push(Op::Nil),
            Expr::Unspec => self.code.push(Op::Unspec),
            Expr::Ref(v) => self.var_ref(*v),
            Expr::Set(v, value) => {
                self.expr(value, false)?;
                self.var_set(*v);
                self.code.push(Op::Unspec);
            }
            Expr::GlobalRef(name) => {
                let k = self.linker.global(name)?;
                self.code.push(Op::Global(k));
            }
            Expr::GlobalSet(name, value) | Expr::GlobalDef(name, value) => {
                self.expr(value, false)?;
                let k = self.linker.global(name)?;
                self.code.push(if matches!(e, Expr::GlobalDef(..)) {
                    Op::DefGlobal(k)
                } else {
                    Op::SetGlobal(k)
                });
                self.code.push(Op::Unspec);
            }
            Expr::If(c, t, f) => {
                let jf = self.test_false(c)?;
                self.expr(t, tail)?;
                if tail {
                    // What follows a tail expression is the function's
                    // `Return`: return here rather than jump to it.
                    self.ret();
                    self.patch_all(&jf);
                    self.expr(f, tail)?;
                    return Ok(());
                }
                let j = self.code.len();
                self.code.push(Op::Jump(0));
                self.patch_all(&jf);
                self.expr(f, tail)?;
                self.patch(j);
            }
            // In tail position, `(and a ... z)` is `(if a (... z) #f)`: each
            // test jumps (fused with its test where it can) to one `#f`
            // return, and none keeps its value on the stack.
            Expr::And(es) if tail && es.len() > 1 => {
                let (last, tests) = es.split_last().expect("two or more");
                let mut jf = Vec::new();
                for sub in tests {
                    jf.extend(self.test_false(sub)?);
                }
                self.expr(last, true)?;
                self.ret();
                self.patch_all(&jf);
                self.code.push(Op::Bool(false));
            }
            // In tail position, `(or p e ...)` with `p` a predicate (a
            // comparison, `null?`, `pair?`, `eq?`, `not`: `#t` or `#f`) is
            // `(if p #t (or e ...))`.
            Expr::Or(es) if tail => self.tail_or(es)?,
            Expr::And(es) => self.and_or(es, true, tail)?,
            Expr::Or(es) => self.and_or(es, false, tail)?,
            Expr::Seq(es) => {
                for (i, sub) in es.iter().enumerate() {
                    let last = i + 1 == es.len();
                    self.expr(sub, tail && last)?;
                    if !last {
                        self.push_merged(Op::Pop);
                    }
                }
            }
            Expr::Lambda(child) => {
                let pid = gen_fn(self.p, self.self_bound, *child, &mut *self.linker)?;
                let free = &self.p.funcs[*child].free;
                for &v in free {
                    self.raw_ref(v);
                }
                self.code.push(Op::Closure(pid, free.len() as u32));
            }
            Expr::Call(f, args) => {
                // A tail call of the running closure (a loop's next
                // iteration) with a matching argument count: no callee pushed.
                let func = &self.p.funcs[self.f];
                if let (true, Expr::Ref(v)) = (tail, &**f) {
                    if self.self_bound[*v] == Some(self.f)
                        && !func.rest
                        && func.params.len() == args.len()
                    {
                        let nslots = func.nslots;
                        for a in args {
                            self.expr(a, false)?;
                        }
                        self.code.push(Op::TailSelf(args.len() as u32, nslots));
                        return Ok(());
                    }
                }
                self.expr(f, false)?;
                for a in args {
                    self.expr(a, false)?;
                }
                let n = args.len() as u32;
                // A non-tail call after a plain read of one or two locals
                // (its last arguments, or its callee and argument), which no
                // jump targets the call after: one instruction.
                if !tail && self.target != self.code.len() {
                    let merged = match self.code.last() {
                        Some(&Op::Local(a)) => Some(Op::CallLocal(a, n)),
                        Some(&Op::Local2(a, b)) => Some(Op::CallLocal2(a, b, n)),
                        _ => None,
                    };
                    if let Some(op) = merged {
                        *self.code.last_mut().expect("an argument") = op;
                        return Ok(());
                    }
                }
                self.code
                    .push(if tail { Op::TailCall(n) } else { Op::Call(n) });
            }
            Expr::Prim(id, args) => {
                if let [a, Expr::Int(i)] = &args[..] {
                    if crate::builtins::fixnum_fast(*id) {
                        self.expr(a, false)?;
                        // A variable read is one instruction, which no jump
                        // targets: fold a plain local's into this one.
                        match (a, self.code.last_mut()) {
                            (Expr::Ref(_), Some(op @ Op::Local(_))) => {
                                let Op::Local(slot) = *op else { unreachable!() };
                                *op = Op::LocalPrimInt(slot, *id, *i);
                            }
                            _ => self.code.push(Op::PrimInt(*id, *i)),
                        }
                        return Ok(());
                    }
                }
                let name = crate::builtins::BUILTINS[*id as usize].name;
                if let Some(op) = Op::for_builtin(name, *id, args.len()) {
                    for a in args {
                        self.expr(a, false)?;
                    }
                    self.push_merged(op);
                    return Ok(());
                }
                // `(+ a b c)` as `(+ (+ a b) c)` (and `*`, `-`): the same
                // result, overflow and type errors, left to right, provided the
                // arguments after the first two have no effects and cannot fail.
                let simple = |e: &Expr| matches!(e, Expr::Ref(_) | Expr::Int(_) | Expr::Const(_));
                if let (Some(op), true) = (
                    Op::for_builtin(name, *id, 2).filter(|_| matches!(name, "+" | "-" | "*")),
                    args.len() > 2 && args[2..].iter().all(simple),
                ) {
                    for (i, a) in args.iter().enumerate() {
                        self.expr(a, false)?;
                        if i > 0 {
                            self.code.push(op);
                        }
                    }
                    return Ok(());
                }
                for a in args {
                    self.expr(a, false)?;
                }
                self.code.push(Op::Prim(*id, args.len() as u16));
            }
            Expr::Let(bindings, body) => {
                for (_, init) in bindings {
                    self.expr(init, false)?;
                }
                for (v, _) in bindings.iter().rev() {
                    let slot = self.p.vars[*v].slot;
                    self.push_merged(Op::SetLocal(slot));
                }
                for (v, _) in bindings {
                    if self.p.vars[*v].boxed() {
                        self.code.push(Op::BoxLocal(self.p.vars[*v].slot));
                    }
                }
                self.expr(body, tail)?;
            }
            Expr::Letrec(bindings, body) => {
                for (v, _) in bindings {
                    let slot = self.p.vars[*v].slot;
                    self.code.push(Op::Unspec);
                    self.code.push(Op::SetLocal(slot));
                    if self.p.vars[*v].boxed() {
                        self.code.push(Op::BoxLocal(slot));
                    }
                }
                for (v, init) in bindings {
                    self.expr(init, false)?;
                    self.var_set(*v);
                }
                self.expr(body, tail)?;
            }
        }
        Ok(())
    }
}

/// Whether `e` is a call of an inlined builtin that returns `#t` or `#f`
/// (a numeric comparison, `null?`, `pair?`, `eq?`, `eqv?`, `not`).
fn is_predicate(e: &Expr) -> bool {
    let Expr::Prim(id, _) = e else { return false };
    matches!(
        crate::builtins::BUILTINS[*id as usize].name,
        "=" | "<" | ">" | "<=" | ">=" | "null?" | "pair?" | "eq?" | "eqv?" | "not"
    )
}
