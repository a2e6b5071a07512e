//! The bytecode: [`Op`] and compiled function prototypes ([`Proto`]), held in host
//! memory (runtime data lives in the heap; constants are indices into the heap's
//! constant table).

/// One instruction. Slots are relative to the frame (`fp + 1 + slot`); free
/// variable `i` is element `1 + i` of the running closure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// Push constant-table entry `k`.
    Const(u32),
    /// Push an integer.
    Int(i64),
    /// Push `#t` or `#f`.
    Bool(bool),
    /// Push the empty list.
    Nil,
    /// Push the unspecified value.
    Unspec,
    /// Push local `slot`.
    Local(u32),
    /// Push the contents of the cell in local `slot`.
    LocalCell(u32),
    /// Pop into local `slot`.
    SetLocal(u32),
    /// Pop into the cell in local `slot`.
    SetLocalCell(u32),
    /// Wrap local `slot`'s value in a fresh cell.
    BoxLocal(u32),
    /// Push free variable `i`.
    Free(u32),
    /// Push the contents of the cell in free variable `i`.
    FreeCell(u32),
    /// Pop into the cell in free variable `i`.
    SetFreeCell(u32),
    /// Push the global whose cell is constant `k` (error if unbound).
    Global(u32),
    /// Pop into the bound global whose cell is constant `k` (error if unbound).
    SetGlobal(u32),
    /// Pop into the global whose cell is constant `k`, binding it.
    DefGlobal(u32),
    /// Drop the top of the stack.
    Pop,
    /// Jump to `pc`.
    Jump(u32),
    /// Pop; jump to `pc` if it was `#f`.
    JumpIfFalse(u32),
    /// If the top is `#f`, jump to `pc` keeping it; else pop it.
    JumpIfFalseKeep(u32),
    /// If the top is true, jump to `pc` keeping it; else pop it.
    JumpIfTrueKeep(u32),
    /// Make a closure of prototype `pid` capturing the top `nfree` values.
    Closure(u32, u32),
    /// Call the procedure below the top `argc` arguments.
    Call(u32),
    /// Call in tail position (replaces the current frame).
    TailCall(u32),
    /// Return the top of the stack.
    Return,
    /// Run builtin `id` on the top `argc` values, replacing them with its result.
    Prim(u16, u16),
    /// Run builtin `id` (one of `crate::builtins::fixnum_fast`) on the top value
    /// and the integer `i`, replacing the top with its result: `Int(i)` then
    /// `Prim(id, 2)` in one instruction (`(+ x 1)`, `(= n 0)`).
    PrimInt(u16, i64),
    /// `Local(slot)` then `PrimInt(id, i)` in one instruction (`(+ n 1)` with
    /// `n` an unboxed local of the running function).
    LocalPrimInt(u32, u16, i64),
    /// `(+ a b)` on the top two values, replacing them with the sum: two
    /// fixnums or two floats inline, anything else through builtin `id` (the
    /// builtin `+`, for its errors, boxed results and mixed operands). The
    /// instructions below down to [`Op::VectorSet`] are the same: one builtin
    /// (`id`, called when the inline case does not apply) with its common case
    /// in the interpreter loop.
    Add(u16),
    /// `(- a b)`.
    Sub(u16),
    /// `(* a b)`.
    Mul(u16),
    /// `(= a b)`.
    NumEq(u16),
    /// `(< a b)`.
    Lt(u16),
    /// `(> a b)`.
    Gt(u16),
    /// `(<= a b)`.
    Le(u16),
    /// `(>= a b)`.
    Ge(u16),
    /// `(car p)` of a (strong) pair.
    Car(u16),
    /// `(cdr p)` of a (strong) pair.
    Cdr(u16),
    /// `(cons a d)`.
    Cons(u16),
    /// `(null? x)`.
    NullP(u16),
    /// `(pair? x)`: true at once for a strong pair.
    PairP(u16),
    /// `(not x)`.
    Not(u16),
    /// `(eq? a b)` or `(eqv? a b)` (one builtin): `Vm::eqv` inline, without
    /// the builtin's call.
    Eq(u16),
    /// `(vector-ref v k)` with a fixnum index in range.
    VectorRef(u16),
    /// `(vector-set! v k x)` with a fixnum index in range.
    VectorSet(u16),
    /// Push the running closure (the frame's slot 0): a reference, from inside
    /// a `letrec`-bound procedure (a named `let` loop), to the variable the
    /// procedure is bound to, when the variable is never assigned otherwise.
    SelfRef,
    /// `Local(a)` then `Local(b)` in one instruction.
    Local2(u32, u32),
    /// `LocalPrimInt(slot, id, i)` (`id` a comparison) then `JumpIfFalse(t)`
    /// in one instruction, without pushing the truth value:
    /// `(if (< n 2) ...)` with `n` an unboxed local.
    JumpUnlessLocalInt(u32, u16, i32, u32),
    /// `Lt(id)` then `JumpIfFalse(t)`; the instructions below down to
    /// [`Op::JumpUnlessEq`] are the same for their comparison.
    JumpUnlessLt(u16, u32),
    /// `Gt(id)` then `JumpIfFalse(t)`.
    JumpUnlessGt(u16, u32),
    /// `Le(id)` then `JumpIfFalse(t)`.
    JumpUnlessLe(u16, u32),
    /// `Ge(id)` then `JumpIfFalse(t)`.
    JumpUnlessGe(u16, u32),
    /// `NumEq(id)` then `JumpIfFalse(t)`.
    JumpUnlessNumEq(u16, u32),
    /// `Eq(id)` then `JumpIfFalse(t)`.
    JumpUnlessEq(u16, u32),
    /// `NullP` then `JumpIfFalse(t)`.
    JumpUnlessNull(u32),
    /// `PairP(id)` then `JumpIfFalse(t)`.
    JumpUnlessPair(u16, u32),
    /// `Not` then `JumpIfFalse(t)`: pop, and jump if the value is true
    /// (`(if (not e) ...)`).
    JumpIfTrue(u32),
    /// `Local(slot)` then `Return`: return a local's value.
    ReturnLocal(u32),
    /// `SelfRef`, the arguments, then `TailCall(argc)`, without the push of
    /// the closure: a tail call of the running closure itself (a named `let`
    /// loop's next iteration) with as many arguments, `argc`, as it has
    /// parameters (no rest parameter). The arguments replace the frame's, its
    /// other locals are cleared up to its `nslots` (the second field) local
    /// slots, and the code runs again from its start.
    TailSelf(u32, u32),
    /// `Lt(id)`, `Not` then `JumpIfFalse(t)`: pop the two operands and jump
    /// if the comparison is true, without pushing a truth value (`(if (not (<
    /// a b)) ...)`). The instructions below down to [`Op::JumpIfNumEq`] are
    /// the same for their comparison.
    JumpIfLt(u16, u32),
    /// `Gt(id)`, `Not` then `JumpIfFalse(t)`.
    JumpIfGt(u16, u32),
    /// `Le(id)`, `Not` then `JumpIfFalse(t)`.
    JumpIfLe(u16, u32),
    /// `Ge(id)`, `Not` then `JumpIfFalse(t)`.
    JumpIfGe(u16, u32),
    /// `NumEq(id)`, `Not` then `JumpIfFalse(t)`.
    JumpIfNumEq(u16, u32),
    /// `Local2(a, b)` then the instruction of builtin `id` (one of
    /// `crate::builtins::fixnum_fast`: `+`, `-`, `=`, `<`, `>`, `<=`, `>=`)
    /// in one instruction: `(+ i sum)` with both operands unboxed locals.
    LocalArith(u32, u32, u16),
    /// `LocalArith(a, b, id)` (`id` a comparison) then `JumpIfFalse(t)`,
    /// without pushing the truth value (`(if (< a b) ...)`). The fields are
    /// `a`, `id`, `b`, `t`, laid out as [`Op::JumpUnlessLocalInt`]'s: a field
    /// at a new place in the instruction costs the dispatch of every one a
    /// register.
    JumpUnlessLocals(u32, u16, u32, u32),
    /// `LocalArith(a, b, id)`, `Not` then `JumpIfFalse(t)`: jumps if the
    /// comparison is true (`(if (not (< a b)) ...)`).
    JumpIfLocals(u32, u16, u32, u32),
    /// `Local(a)`, `Const(k)` then `Eq(id)`: whether local `a` is `eqv?` to
    /// constant `k` (a `case` clause's test of its key against one of its
    /// datums, `(eq? x 'sym)`). The fields are `a`, `id`, `k`.
    LocalEqConst(u32, u16, u32),
    /// `LocalEqConst(a, id, k)` then `JumpIfFalse(t)`. The fields are laid
    /// out as [`Op::JumpUnlessLocalInt`]'s.
    JumpUnlessLocalEqConst(u32, u16, u32, u32),
    /// `Local(a)` then `Car(id)`: the `car` of local `a`.
    LocalCar(u32, u16),
    /// `Local(a)` then `Cdr(id)`: the `cdr` of local `a`.
    LocalCdr(u32, u16),
    /// `Free(i)` then the instruction of builtin `id` (one of
    /// `crate::builtins::fixnum_fast`): the top value and free variable `i`
    /// (`(< x n)`, `(+ x c)` with `n`, `c` captured and never assigned).
    FreeArith(u32, u16),
    /// `FreeArith(i, id)` (`id` a comparison) then `JumpIfFalse(t)`. The
    /// fields are `i`, `id`, `t`.
    JumpUnlessFreeArith(u32, u16, u32),
    /// `Int(k)` then `VectorRef(id)`: `(vector-ref v k)` with a constant
    /// index (a record's field). The fields are `k`, `id`.
    VectorRefInt(u32, u16),
    /// `Local2(a, b)` then `Mul(id)`: `(* a b)` with both operands unboxed
    /// locals.
    LocalMul(u32, u32, u16),
    /// `Local(a)` then `SetLocal(b)`: local `a` copied into local `b`
    /// (`(let ((b a)) ...)`, a `case`'s key).
    MoveLocal(u32, u32),
    /// `Local(a)` then `NullP(id)`.
    LocalNullP(u32, u16),
    /// `LocalNullP(a, _)` then `JumpIfFalse(t)`: jump unless local `a` is
    /// the empty list. The fields are `a`, `t`.
    JumpUnlessLocalNull(u32, u32),
    /// `VectorSet(id)` then `Pop`: `(vector-set! v k x)` for its effect.
    VectorSetPop(u16),
    /// `SetLocal(a)` then `SetLocal(b)`: the top into local `a`, the value
    /// below it into local `b`.
    SetLocal2(u32, u32),
    /// `Local(a)` then `Call(argc)`: a call whose last argument is a local.
    CallLocal(u32, u32),
    /// `Local2(a, b)` then `Call(argc)`: a call whose last two arguments are
    /// locals. The fields are `a`, `b`, `argc`.
    CallLocal2(u32, u32, u32),
    /// Push the symbol whose interned id is `id`: a quoted symbol, an
    /// immediate (`crate::vm::value`), without a constant-table read.
    Sym(u32),
    /// `Local(a)`, `Sym(id)` then `Eq(_)`: whether local `a` is the symbol
    /// `id` (`(eq? x 'sym)`, a `case` clause's test of its key against a
    /// symbol): a compare of one word, as `eqv?` of an immediate is.
    LocalEqSym(u32, u32),
    /// `LocalEqSym(a, id)` then `JumpIfFalse(t)`. The fields are `a`, `id`,
    /// `t`.
    JumpUnlessLocalEqSym(u32, u32, u32),
}

impl Op {
    /// The conditional jump to `t` that does `self` (a test) then
    /// [`Op::JumpIfFalse`], if there is one.
    pub fn fused_with_jump(self, t: u32) -> Option<Op> {
        Some(match self {
            Op::LocalPrimInt(s, id, i) if crate::builtins::fixnum_compare(id) => {
                Op::JumpUnlessLocalInt(s, id, i32::try_from(i).ok()?, t)
            }
            Op::Lt(id) => Op::JumpUnlessLt(id, t),
            Op::Gt(id) => Op::JumpUnlessGt(id, t),
            Op::Le(id) => Op::JumpUnlessLe(id, t),
            Op::Ge(id) => Op::JumpUnlessGe(id, t),
            Op::NumEq(id) => Op::JumpUnlessNumEq(id, t),
            Op::Eq(id) => Op::JumpUnlessEq(id, t),
            Op::NullP(_) => Op::JumpUnlessNull(t),
            Op::PairP(id) => Op::JumpUnlessPair(id, t),
            Op::Not(_) => Op::JumpIfTrue(t),
            Op::LocalEqConst(a, id, k) => Op::JumpUnlessLocalEqConst(a, id, k, t),
            Op::LocalEqSym(a, id) => Op::JumpUnlessLocalEqSym(a, id, t),
            Op::LocalNullP(a, _) => Op::JumpUnlessLocalNull(a, t),
            Op::FreeArith(i, id) if crate::builtins::fixnum_compare(id) => {
                Op::JumpUnlessFreeArith(i, id, t)
            }
            Op::LocalArith(a, b, id) if crate::builtins::fixnum_compare(id) => {
                Op::JumpUnlessLocals(a, id, b, t)
            }
            _ => return None,
        })
    }

    /// The conditional jump to `t` that does `self` (a numeric comparison),
    /// `Op::Not`, then [`Op::JumpIfFalse`], if there is one. (Not the
    /// converse comparison's jump: `(not (< x y))` differs from `(>= x y)`
    /// when either is a NaN.)
    pub fn negated_with_jump(self, t: u32) -> Option<Op> {
        Some(match self {
            Op::Lt(id) => Op::JumpIfLt(id, t),
            Op::Gt(id) => Op::JumpIfGt(id, t),
            Op::Le(id) => Op::JumpIfLe(id, t),
            Op::Ge(id) => Op::JumpIfGe(id, t),
            Op::NumEq(id) => Op::JumpIfNumEq(id, t),
            Op::LocalArith(a, b, id) if crate::builtins::fixnum_compare(id) => {
                Op::JumpIfLocals(a, id, b, t)
            }
            _ => return None,
        })
    }

    /// This jump with its target changed to `t`.
    pub fn retarget(self, t: u32) -> Op {
        match self {
            Op::Jump(_) => Op::Jump(t),
            Op::JumpIfFalse(_) => Op::JumpIfFalse(t),
            Op::JumpIfFalseKeep(_) => Op::JumpIfFalseKeep(t),
            Op::JumpIfTrueKeep(_) => Op::JumpIfTrueKeep(t),
            Op::JumpUnlessLocalInt(s, id, i, _) => Op::JumpUnlessLocalInt(s, id, i, t),
            Op::JumpUnlessLt(id, _) => Op::JumpUnlessLt(id, t),
            Op::JumpUnlessGt(id, _) => Op::JumpUnlessGt(id, t),
            Op::JumpUnlessLe(id, _) => Op::JumpUnlessLe(id, t),
            Op::JumpUnlessGe(id, _) => Op::JumpUnlessGe(id, t),
            Op::JumpUnlessNumEq(id, _) => Op::JumpUnlessNumEq(id, t),
            Op::JumpUnlessEq(id, _) => Op::JumpUnlessEq(id, t),
            Op::JumpUnlessNull(_) => Op::JumpUnlessNull(t),
            Op::JumpUnlessPair(id, _) => Op::JumpUnlessPair(id, t),
            Op::JumpIfTrue(_) => Op::JumpIfTrue(t),
            Op::JumpIfLt(id, _) => Op::JumpIfLt(id, t),
            Op::JumpIfGt(id, _) => Op::JumpIfGt(id, t),
            Op::JumpIfLe(id, _) => Op::JumpIfLe(id, t),
            Op::JumpIfGe(id, _) => Op::JumpIfGe(id, t),
            Op::JumpIfNumEq(id, _) => Op::JumpIfNumEq(id, t),
            Op::JumpUnlessLocals(a, id, b, _) => Op::JumpUnlessLocals(a, id, b, t),
            Op::JumpIfLocals(a, id, b, _) => Op::JumpIfLocals(a, id, b, t),
            Op::JumpUnlessLocalEqConst(a, id, k, _) => Op::JumpUnlessLocalEqConst(a, id, k, t),
            Op::JumpUnlessLocalNull(a, _) => Op::JumpUnlessLocalNull(a, t),
            Op::JumpUnlessLocalEqSym(a, id, _) => Op::JumpUnlessLocalEqSym(a, id, t),
            Op::JumpUnlessFreeArith(i, id, _) => Op::JumpUnlessFreeArith(i, id, t),
            other => unreachable!("retargeting {other:?}"),
        }
    }

    /// The builtin of this instruction if it is one of the two-operand
    /// numeric ones with a fixnum fast path (`crate::builtins::fixnum_fast`).
    pub fn fixnum_fast_id(self) -> Option<u16> {
        match self {
            Op::Add(id)
            | Op::Sub(id)
            | Op::NumEq(id)
            | Op::Lt(id)
            | Op::Gt(id)
            | Op::Le(id)
            | Op::Ge(id) => Some(id),
            _ => None,
        }
    }

    /// The instruction for an inlined call of builtin `id` (named `name`) with
    /// `argc` arguments that has its own instruction, if one does.
    pub fn for_builtin(name: &str, id: u16, argc: usize) -> Option<Op> {
        Some(match (name, argc) {
            ("+", 2) => Op::Add(id),
            ("-", 2) => Op::Sub(id),
            ("*", 2) => Op::Mul(id),
            ("=", 2) => Op::NumEq(id),
            ("<", 2) => Op::Lt(id),
            (">", 2) => Op::Gt(id),
            ("<=", 2) => Op::Le(id),
            (">=", 2) => Op::Ge(id),
            ("car", 1) => Op::Car(id),
            ("cdr", 1) => Op::Cdr(id),
            ("cons", 2) => Op::Cons(id),
            ("null?", 1) => Op::NullP(id),
            ("pair?", 1) => Op::PairP(id),
            ("not", 1) => Op::Not(id),
            ("eq?" | "eqv?", 2) => Op::Eq(id),
            ("vector-ref", 2) => Op::VectorRef(id),
            ("vector-set!", 3) => Op::VectorSet(id),
            _ => return None,
        })
    }
}

// Every instruction is two words (the dispatch loop copies one per step).
const _: () = assert!(std::mem::size_of::<Op>() == 16);

/// A compiled function.
#[derive(Clone, Debug, Default)]
pub struct Proto {
    /// Name for messages (`lambda` if anonymous).
    pub name: String,
    /// Required parameters.
    pub nreq: u32,
    /// Whether extra arguments are collected into a list (the last parameter).
    pub rest: bool,
    /// Local slots (parameters included).
    pub nslots: u32,
    /// The code.
    pub code: Vec<Op>,
}
