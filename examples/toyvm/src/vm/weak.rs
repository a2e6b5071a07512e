//! Weak pairs (`weak-cons`), ephemeron pairs (`ephemeron-cons`), values that weak references hold strongly, and the
//! bookkeeping that keeps weak hashtables exact: the canary, the registry of weak
//! tables, and their sweeps.
//!
//! A weak table's entry whose key a collection cleared must stop counting at once
//! (`hashtable-size`, `hashtable-keys`), and must be unlinked so that it stops
//! keeping its value alive. The collector clears weak fields only inside a pause,
//! which the VM does not see directly; so the VM keeps a *canary*: an unreachable
//! object with a cleaner in the reaper queue. A collection that clears a weak key
//! also reports the canary dead (the same pause decides both), unless the canary
//! was made while that collection was marking; but then the sweep that followed
//! the canary's making read every key through the weak-read barrier, which keeps
//! those keys alive through that collection. So: while the canary is alive, no key
//! of a swept table has been cleared, and once it is reported dead, the next
//! weak-table operation (or `(gc)`) makes a new canary and sweeps every weak table
//! (found through the registry, a chain of weak pairs). Cost: one sweep of all
//! weak tables per collection that some weak-table operation follows.

use super::{Vm, BWP};
use crate::error::VmError;
use crate::shared::{lock, TableState};
use crate::types::WeakPairDesc;
use flipgc_core::{Gc, Value};

/// The reaper token of the canary (a guardian's token is its index).
pub const CANARY: u64 = u64::MAX;

impl Vm {
    /// Whether `v` is compared by value under `eq?` (numbers, characters, symbols,
    /// booleans, `()`, the unspecified value, `#!bwp`): such a value never
    /// becomes inaccessible, as fixnums and characters in Chez Scheme, so weak
    /// pairs and weak tables hold it strongly and guardians never return it.
    /// Every immediate (symbols among them, and `()`, null) is one; of the
    /// heap objects, boxed integers, floats and `#!bwp`.
    pub fn by_value(&self, v: Value<'_>) -> bool {
        let Some(g) = v.as_ref() else { return true };
        let ty = self.m.type_of(g);
        let t = &self.t;
        ty == t.int || ty == t.float || ty == t.rt.bwp
    }

    /// The fields of `g` if it is a weak pair or an ephemeron pair.
    #[inline]
    pub fn weak_pair_desc(&self, g: Gc<'_>) -> Option<WeakPairDesc> {
        let ty = self.m.type_of(g);
        let rt = &self.t.rt;
        if ty == rt.weak_pair {
            Some(rt.wp)
        } else if ty == rt.eph_pair {
            Some(rt.ep)
        } else {
            None
        }
    }

    /// The car and cdr of `g` if it is a pair, a weak pair or an ephemeron pair
    /// (a weak car whose referent died reads as `#!bwp`, and so does an
    /// ephemeron pair's cdr then).
    #[inline]
    pub fn pair_parts<'a>(&'a self, g: Gc<'a>) -> Option<(Value<'a>, Value<'a>)> {
        if self.m.type_of(g) == self.t.pair {
            return Some((
                self.m.get_value(g, self.t.car),
                self.m.get_value(g, self.t.cdr),
            ));
        }
        let d = self.weak_pair_desc(g)?;
        Some((self.weak_car(g, d), self.weak_cdr(g, d)))
    }

    /// The cdr of `g` if it is a pair, a weak pair or an ephemeron pair.
    #[inline]
    pub fn pair_cdr<'a>(&'a self, g: Gc<'a>) -> Option<Value<'a>> {
        if self.m.type_of(g) == self.t.pair {
            return Some(self.m.get_value(g, self.t.cdr));
        }
        let d = self.weak_pair_desc(g)?;
        Some(self.weak_cdr(g, d))
    }

    /// Whether `g` is a pair, a weak pair or an ephemeron pair.
    #[inline]
    pub fn is_pair_like(&self, g: Gc<'_>) -> bool {
        let ty = self.m.type_of(g);
        let rt = &self.t.rt;
        ty == self.t.pair || ty == rt.weak_pair || ty == rt.eph_pair
    }

    /// The car of weak or ephemeron pair `g` (fields `d`): `#!bwp` once its
    /// referent was found unreachable.
    pub fn weak_car<'a>(&'a self, g: Gc<'a>, d: WeakPairDesc) -> Value<'a> {
        if self.m.get_word(g, d.weak) == 0 {
            return self.m.get_value(g, d.car_strong);
        }
        // The weak field holds only heap objects (what `by_value` rejects), so
        // null there means cleared.
        let v = self.m.get_value(g, d.car_weak);
        if v.is_null() {
            self.val(BWP)
        } else {
            v
        }
    }

    /// The cdr of weak or ephemeron pair `g` (fields `d`): an ephemeron pair's
    /// reads as `#!bwp` once its key was found unreachable (the collector
    /// cleared both fields), as in Chez Scheme.
    pub fn weak_cdr<'a>(&'a self, g: Gc<'a>, d: WeakPairDesc) -> Value<'a> {
        let v = self.m.get_value(g, d.cdr);
        if d == self.t.rt.ep
            && self.m.get_word(g, d.weak) != 0
            && self.m.get_value(g, d.car_weak).is_null()
        {
            self.val(BWP)
        } else {
            v
        }
    }

    /// Sets the car of weak or ephemeron pair `g` (fields `d`): weakly, unless
    /// `v` is compared by value (an ephemeron pair with such a key holds its cdr
    /// strongly: the key never dies).
    pub fn set_weak_car(&self, g: Gc<'_>, d: WeakPairDesc, v: Value<'_>) {
        if self.by_value(v) {
            self.m.set_value(g, d.car_strong, v);
            self.m.set_word(g, d.weak, 0);
            self.m.set_ref(g, d.car_weak, None);
        } else {
            self.m.set_value(g, d.car_weak, v);
            self.m.set_word(g, d.weak, 1);
            self.m.set_ref(g, d.car_strong, None);
        }
    }

    /// Pushes a weak pair of stack entries `car` and `cdr`.
    pub fn push_weak_pair(&mut self, car: usize, cdr: usize) -> Result<(), VmError> {
        self.m.push_fixed(self.t.rt.weak_pair_alloc)?;
        let p = self.obj(self.top()).expect("fresh");
        self.set_weak_car(p, self.t.rt.wp, self.val(car));
        self.m.set_value(p, self.t.rt.wp_cdr, self.val(cdr));
        Ok(())
    }

    /// Pushes an ephemeron pair of stack entries `car` (the key) and `cdr` (the
    /// value).
    pub fn push_ephemeron_pair(&mut self, car: usize, cdr: usize) -> Result<(), VmError> {
        self.m.push_fixed(self.t.rt.eph_pair_alloc)?;
        let p = self.obj(self.top()).expect("fresh");
        let d = self.t.rt.ep;
        // The cdr first: the pair is unreachable until pushed, and both stores
        // are plain field stores (no GC point between them).
        self.m.set_value(p, d.cdr, self.val(cdr));
        self.set_weak_car(p, d, self.val(car));
        Ok(())
    }

    /// Before an operation on a weak table (or after `(gc)`): handles what the
    /// reaper reported, and makes a canary if none is alive. A GC point. Then take
    /// the table lock and call [`Vm::freshen`].
    pub(crate) fn weak_sync(&mut self) -> Result<(), VmError> {
        let need_canary = {
            let mut st = lock(&self.shared.tables);
            self.reap(&mut st);
            st.registry.is_some() && !st.canary
        };
        if need_canary {
            self.m.push_fixed(self.t.alloc.cell)?;
            let mut st = lock(&self.shared.tables);
            if !st.canary {
                let c = self.obj(self.top()).expect("fresh");
                self.m.register_cleaner(c, CANARY, &self.shared.reaper);
                st.canary = true;
                st.stale = true;
            }
            drop(st);
            self.m.pop_value();
        }
        Ok(())
    }

    /// Takes the reaper's tokens, with the table lock held (so that no thread acts
    /// on a canary's death half-handled): a dead canary makes the weak tables
    /// stale, a dead guardian frees its queue (and whatever it still held).
    pub(crate) fn reap(&self, st: &mut TableState) {
        let mut dead = Vec::new();
        while let Some(token) = self.shared.reaper.poll_token() {
            if token == CANARY {
                st.canary = false;
                st.stale = true;
            } else {
                dead.push(token as usize);
            }
        }
        if !dead.is_empty() {
            let mut g = lock(&self.shared.guardians);
            for i in dead {
                g.queues[i] = None;
                g.free.push(i);
            }
        }
    }

    /// With the table lock held, after [`Vm::weak_sync`]: sweeps every weak table
    /// if a collection may have cleared keys since the last sweep.
    pub(crate) fn freshen(&self, st: &mut TableState) {
        if st.stale {
            self.sweep_all(st);
            // Without a live canary (its allocation failed), the next clearing
            // would go unseen: stay stale.
            st.stale = !st.canary;
        }
    }

    /// Sweeps every weak table in the registry, dropping the registry's cells of
    /// dead tables.
    fn sweep_all(&self, st: &mut TableState) {
        st.sweeps += 1;
        let Some(reg) = &st.registry else { return };
        let rt = &self.t.rt;
        let head = self.m.get_global(reg);
        let mut first: Option<Gc<'_>> = None;
        let mut prev: Option<Gc<'_>> = None;
        let mut cur = Some(head);
        while let Some(cell) = cur {
            let next = self.m.get_ref(cell, rt.wp_cdr);
            match self.m.get_ref(cell, rt.wp_car_weak) {
                Some(table) => {
                    self.sweep_table(table);
                    first = first.or(Some(cell));
                    prev = Some(cell);
                }
                None => {
                    if let Some(p) = prev {
                        self.m.set_ref(p, rt.wp_cdr, next);
                    }
                }
            }
            cur = next;
        }
        match first {
            Some(f) if f != head => self.m.set_global(reg, f),
            Some(_) => {}
            None => st.registry = None,
        }
    }

    /// Adds the weak table at stack entry `i` to the registry. A GC point.
    pub(crate) fn register_weak_table(&mut self, i: usize) -> Result<(), VmError> {
        self.m.push_fixed(self.t.rt.weak_pair_alloc)?;
        let top = self.top();
        let cell = self.obj(top).expect("fresh");
        self.set_weak_car(cell, self.t.rt.wp, self.val(i));
        let mut st = lock(&self.shared.tables);
        match &st.registry {
            Some(g) => {
                let head = self.m.get_global(g);
                self.m.set_ref(cell, self.t.rt.wp_cdr, Some(head));
                self.m.set_global(g, cell);
            }
            None => st.registry = Some(self.m.global(cell)),
        }
        drop(st);
        self.m.stack_truncate(top);
        Ok(())
    }
}
