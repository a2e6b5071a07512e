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
    /// Make a closure of code constant `code` capturing the top `nfree` values.
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
