//! The compiler's view of the runtime ([`Linker`] for [`Vm`]): literal data is
//! built in the heap and stored in the shared constant table, global variables
//! are cells in that table; prototypes go to the shared list, and closures
//! name them by index.

use super::{Vm, CONSTS};
use crate::bytecode::Proto;
use crate::compile::Linker;
use crate::error::VmError;
use crate::reader::{Datum, DatumKind};
use crate::shared::lock;
use std::rc::Rc;
use std::sync::Arc;

impl Vm {
    /// Pushes the heap value of literal `d` (recursion bounded by the reader's
    /// nesting limit).
    pub(crate) fn build_datum(&mut self, d: &Datum) -> Result<(), VmError> {
        match &d.kind {
            DatumKind::Int(i) => self.push_int(*i),
            DatumKind::Float(f) => self.push_float(*f),
            DatumKind::Bool(b) => {
                self.push_bool(*b);
                Ok(())
            }
            DatumKind::Char(c) => {
                self.push_char(*c);
                Ok(())
            }
            DatumKind::Str(s) => self.push_str(s),
            DatumKind::Bytevector(b) => self.push_bytes(b),
            DatumKind::Sym(s) => self.push_symbol(s),
            DatumKind::List(items, tail) => {
                match tail {
                    Some(t) => self.build_datum(t)?,
                    None => self.m.push(None),
                }
                for item in items.iter().rev() {
                    self.build_datum(item)?;
                    let top = self.top();
                    self.push_pair(top, top - 1)?;
                    self.collapse(2);
                }
                Ok(())
            }
            DatumKind::Vector(items) => {
                self.m.alloc_push(self.t.vector, items.len())?;
                let v = self.top();
                for (i, item) in items.iter().enumerate() {
                    self.build_datum(item)?;
                    let vec = self.obj(v).expect("vector");
                    self.m.write_value(vec, i, self.val(v + 1));
                    self.m.stack_truncate(v + 1);
                }
                Ok(())
            }
        }
    }

    /// Appends the top of the stack to the constant table (growing it if full);
    /// pops it and returns its index.
    fn add_constant(&mut self) -> Result<u32, VmError> {
        let len = lock(&self.shared.consts).len;
        let cap = self.m.len(self.obj(CONSTS).expect("constant table"));
        if len == cap {
            self.m.alloc_push(self.t.vector, cap * 2)?;
            let new = self.obj(self.top()).expect("fresh");
            let old = self.obj(CONSTS).expect("constant table");
            for i in 0..len {
                self.m.write_value(new, i, self.m.read_value(old, i));
            }
            let mut c = lock(&self.shared.consts);
            self.m.set_global(c.table.as_ref().expect("table"), new);
            c.len = len;
            drop(c);
            self.m.stack_set(CONSTS, Some(new));
            self.m.pop_value();
            self.consts_len = cap * 2;
        }
        let table = self.obj(CONSTS).expect("constant table");
        self.m.write_value(table, len, self.val(self.top()));
        self.m.pop_value();
        lock(&self.shared.consts).len = len + 1;
        Ok(len as u32)
    }

    /// The prototype `pid` (extending the local copy if needed).
    #[inline]
    pub(crate) fn proto(&mut self, pid: usize) -> &Rc<Proto> {
        if pid >= self.protos.len() {
            self.copy_new_protos();
        }
        &self.protos[pid]
    }

    /// The prototype `pid` (extending the local copy if needed), not tied to
    /// a borrow of `self`: the interpreter loop holds the running prototype
    /// across calls that take `&mut self`, without a reference count.
    ///
    /// # Safety
    ///
    /// The reference must not be used once this `Vm` is dropped. Until then
    /// it stays valid: the local copy only grows (no entry is removed or
    /// replaced), each entry is an `Rc` whose allocation does not move when
    /// the vector grows, and a `Proto` is never changed once made (no
    /// `Rc::get_mut` or interior mutability).
    #[inline]
    pub(crate) unsafe fn running_proto(&mut self, pid: usize) -> &'static Proto {
        let p: *const Proto = Rc::as_ptr(self.proto(pid));
        // SAFETY: the caller's contract above: the `Rc` in `self.protos`
        // keeps `*p` alive and unchanged while the `Vm` lives.
        unsafe { &*p }
    }

    /// Appends to the local copy the prototypes compiled since it was last
    /// extended (the shared list only grows).
    #[cold]
    fn copy_new_protos(&mut self) {
        let all = self.shared.protos.read().unwrap_or_else(|e| e.into_inner());
        let have = self.protos.len();
        self.protos
            .extend(all[have..].iter().map(|p| Rc::new(Proto::clone(p))));
    }

    /// The name of prototype `pid`.
    pub(crate) fn proto_name(&self, pid: usize) -> String {
        match self.protos.get(pid) {
            Some(p) => p.name.clone(),
            None => {
                let all = self.shared.protos.read().unwrap_or_else(|e| e.into_inner());
                all.get(pid).map_or_else(|| "?".into(), |p| p.name.clone())
            }
        }
    }

    /// Makes sure this thread has a handle on the cell of the global at
    /// constant index `k`, for [`Vm::global_cell`].
    #[inline(always)]
    pub(crate) fn reach_global_cell(&mut self, k: usize) {
        if !matches!(self.global_cells.get(k), Some(Some(_))) {
            self.cache_global_cell(k);
        }
    }

    /// The cell of the global at constant index `k`, through this thread's
    /// handle on it (made by [`Vm::reach_global_cell`]).
    #[inline(always)]
    pub(crate) fn global_cell(&self, k: usize) -> flipgc_core::Gc<'_> {
        let h = self.global_cells[k].as_ref().expect("handle made");
        self.m.get(h)
    }

    /// Makes this thread's handle on the cell of the global at constant index
    /// `k` ([`Vm::reach_global_cell`]).
    #[cold]
    #[inline(never)]
    fn cache_global_cell(&mut self, k: usize) {
        if k >= self.consts_len {
            self.refresh_consts();
        }
        let table = self.obj(CONSTS).expect("table");
        let cell = self.m.read_value(table, k).as_ref().expect("global cell");
        let h = self.m.root(cell);
        if self.global_cells.len() <= k {
            self.global_cells.resize_with(k + 1, || None);
        }
        self.global_cells[k] = Some(h);
    }

    /// The name of the global whose cell is `cell` (for messages).
    pub(crate) fn global_name(&self, cell: flipgc_core::Gc<'_>) -> String {
        let id = self.m.get_word(cell, self.t.global_word) >> 1;
        self.shared.symbol_name(id).to_string()
    }

    /// Defines global `name` as the value on top of the stack (popping it).
    pub fn define_global(&mut self, name: &str) -> Result<(), VmError> {
        let k = self.global(name)? as usize;
        let table = self.obj(CONSTS).expect("table");
        let cell = self.m.read_ref(table, k).expect("cell");
        self.m
            .set_value(cell, self.t.global_value, self.val(self.top()));
        let w = self.m.get_word(cell, self.t.global_word) | 1;
        self.m.set_word(cell, self.t.global_word, w);
        self.m.pop_value();
        Ok(())
    }
}

impl Linker for Vm {
    fn constant(&mut self, d: &Datum) -> Result<u32, VmError> {
        self.build_datum(d)?;
        self.add_constant()
    }

    fn global(&mut self, name: &str) -> Result<u32, VmError> {
        if let Some(k) = lock(&self.shared.consts).globals.get(name) {
            return Ok(*k);
        }
        let id = self.shared.intern(name);
        self.push_word(self.t.alloc.global, self.t.global_word, id << 1)?;
        let cell = self.obj(self.top()).expect("fresh");
        self.m.set_value(cell, self.t.global_value, super::UNBOUND);
        let k = self.add_constant()?;
        lock(&self.shared.consts)
            .globals
            .insert(name.to_string(), k);
        Ok(k)
    }

    fn symbol(&mut self, name: &str) -> u64 {
        self.shared.intern(name)
    }

    fn code(&mut self, proto: Proto) -> Result<u32, VmError> {
        let pid = {
            let mut all = self
                .shared
                .protos
                .write()
                .unwrap_or_else(|e| e.into_inner());
            all.push(Arc::new(proto));
            all.len() - 1
        };
        Ok(pid as u32)
    }
}
