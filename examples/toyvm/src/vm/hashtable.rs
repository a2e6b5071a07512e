//! Hashtables in the heap (`make-eq-hashtable` and the R6RS / Chez operations): a
//! record holding a bucket vector (a power of two long) of entry chains, the entry
//! count and the kind. A key compared by value under `eqv?` (number, character,
//! symbol, boolean...) hashes by value (an immediate by its payload, never by an
//! identity hash: it has none); any other key by its identity hash
//! ([`flipgc_core::Mutator::identity_hash`], stable across moves), never by its
//! address. Each entry keeps its key's hash, so growing the table (doubling the
//! buckets once the entries outnumber them) re-links entries without hashing.
//! `eq?` is `eqv?` in this VM, so eq and eqv tables behave alike.
//!
//! Weak tables hold their keys in weak entries, ephemeron tables in ephemeron
//! entries (the value held only while the key is reachable other than through
//! the entry, so a value that refers to its own key does not keep the entry);
//! entries whose key a collection cleared are unlinked by the sweeps of `vm/weak.rs` before any operation sees
//! the table. Every operation reads and changes a table with the table lock held
//! (`Shared::tables`) and no GC point inside: what it must allocate (an entry, a
//! bucket vector, a result vector) it allocates before, lock released, and it
//! looks again afterwards.

use super::value::{kind, Kind};
use super::Vm;
use crate::error::VmError;
use crate::shared::{lock, TableState};
use crate::types::EntryDesc;
use flipgc_core::{Gc, Value};

/// The kind bit of weak tables (ephemeron tables have it too: their entries'
/// keys are weak, and the sweeps of `vm/weak.rs` unlink the broken ones).
pub const WEAK: u64 = 2;
/// The kind bit of ephemeron tables (with [`WEAK`]): entries are ephemerons,
/// whose value is held only while the key is reachable other than through it.
pub const EPHEMERON: u64 = 4;
/// Kinds: eq, eqv, weak eq, weak eqv, (unused), (unused), ephemeron eq,
/// ephemeron eqv.
pub const KIND_NAMES: [&str; 8] = [
    "eq",
    "eqv",
    "weak eq",
    "weak eqv",
    "eq",
    "eqv",
    "ephemeron eq",
    "ephemeron eqv",
];
/// Buckets of a new table.
const MIN_BUCKETS: usize = 8;
/// The most buckets a table grows to (then its chains grow instead).
const MAX_BUCKETS: usize = 1 << 30;

/// Where a key is, or would go.
struct Lookup<'a> {
    /// Its bucket.
    bucket: usize,
    /// The entry before it in the chain.
    prev: Option<Gc<'a>>,
    /// The entry, if the key is there.
    entry: Option<Gc<'a>>,
    /// The key's hash.
    hash: u64,
}

/// What `hashtable-keys` and `hashtable-values` collect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The keys.
    Keys,
    /// The values.
    Values,
}

/// The hash words of `#f`, `#t`, the unspecified value and `#!bwp`: the type
/// indexes they had when all four were heap objects (one per type), kept so that
/// every table hashes as before (and `hashtable-keys` lists keys in the same
/// order).
const SPECIAL_HASH: [u64; 4] = [14, 15, 16, 19];

/// SplitMix64's finalizer: spreads `x` over 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Vm {
    /// The kind of table `t` (see [`KIND_NAMES`]).
    pub fn table_kind(&self, t: Gc<'_>) -> u64 {
        self.m.get_word(t, self.t.rt.ht_kind)
    }

    fn entry_desc(&self, t: Gc<'_>) -> EntryDesc {
        let kind = self.table_kind(t);
        if kind & EPHEMERON != 0 {
            self.t.rt.eph_entry
        } else if kind & WEAK != 0 {
            self.t.rt.weak_entry
        } else {
            self.t.rt.entry
        }
    }

    /// The hash of `key` (bit 0 clear), and whether it is compared by value.
    pub fn key_hash(&self, key: Value<'_>) -> (u64, bool) {
        let t = &self.t;
        let (tag, word): (u64, u64) = match kind(key) {
            Kind::Nil => return (mix(0x006e_696c) & !1, true),
            // As a boxed integer hashed: its value.
            Kind::Fixnum(i) => (1, i as u64),
            Kind::Char(c) => (3, u64::from(c)),
            Kind::Bool(false) => (5, SPECIAL_HASH[0]),
            Kind::Bool(true) => (5, SPECIAL_HASH[1]),
            Kind::Unspec => (5, SPECIAL_HASH[2]),
            Kind::Symbol(id) => (2, id),
            Kind::Obj(g) => {
                let ty = self.m.type_of(g);
                if ty == t.int {
                    (1, self.m.get_word(g, t.int_value))
                } else if ty == t.float {
                    (4, self.m.get_word(g, t.float_bits))
                } else if ty == t.rt.bwp {
                    (5, SPECIAL_HASH[3])
                } else {
                    return (self.m.identity_hash(g) & !1, false);
                }
            }
        };
        (
            mix(word ^ tag.wrapping_mul(0x9e37_79b9_7f4a_7c15)) & !1,
            true,
        )
    }

    /// The key of entry `e`: `None` if it was weak and a collection cleared it.
    fn entry_key<'a>(&'a self, d: &EntryDesc, e: Gc<'a>) -> Option<Value<'a>> {
        match d.key_strong {
            Some(strong) if self.m.get_word(e, d.hash) & 1 == 0 => {
                Some(self.m.get_value(e, strong))
            }
            // The weak field holds only heap objects: null there means cleared.
            Some(_) => Some(self.m.get_value(e, d.key)).filter(|k| !k.is_null()),
            None => Some(self.m.get_value(e, d.key)),
        }
    }

    /// Whether weak entry `e`'s key was cleared (reads the key: see `vm/weak.rs`).
    pub(crate) fn entry_broken(&self, d: &EntryDesc, e: Gc<'_>) -> bool {
        self.entry_key(d, e).is_none()
    }

    fn buckets<'a>(&'a self, t: Gc<'a>) -> Gc<'a> {
        self.m
            .get_ref(t, self.t.rt.ht_buckets)
            .expect("bucket vector")
    }

    /// The number of entries of table `t`.
    pub fn table_count(&self, t: Gc<'_>) -> usize {
        self.m.get_word(t, self.t.rt.ht_count) as usize
    }

    fn set_count(&self, t: Gc<'_>, n: usize) {
        self.m.set_word(t, self.t.rt.ht_count, n as u64);
    }

    /// Finds `key` in table `t`.
    fn find<'a>(&'a self, t: Gc<'a>, key: Value<'a>) -> Lookup<'a> {
        let (hash, _) = self.key_hash(key);
        let d = self.entry_desc(t);
        let b = self.buckets(t);
        let bucket = (hash as usize) & (self.m.len(b) - 1);
        let (mut prev, mut cur) = (None, self.m.read_ref(b, bucket));
        while let Some(e) = cur {
            if self.m.get_word(e, d.hash) & !1 == hash {
                if let Some(k) = self.entry_key(&d, e) {
                    if self.eqv(k, key) {
                        break;
                    }
                }
            }
            prev = Some(e);
            cur = self.m.get_ref(e, d.next);
        }
        Lookup {
            bucket,
            prev,
            entry: cur,
            hash,
        }
    }

    /// Runs `f` on the table at stack entry `ti` with the table lock held (a weak
    /// table made current first: see `vm/weak.rs`). The table must have been
    /// type-checked.
    fn with_table<R>(
        &mut self,
        ti: usize,
        f: impl FnOnce(&Vm, Gc<'_>, &mut TableState) -> R,
    ) -> Result<R, VmError> {
        let weak = self.table_kind(self.obj(ti).expect("table")) & WEAK != 0;
        if weak {
            self.weak_sync()?;
        }
        let mut st = lock(&self.shared.tables);
        if weak {
            self.freshen(&mut st);
        }
        let t = self.obj(ti).expect("table");
        Ok(f(self, t, &mut st))
    }

    /// Pushes a new table of `kind` with room for about `size` entries.
    pub fn make_table(&mut self, kind: u64, size: usize) -> Result<(), VmError> {
        let buckets = size
            .clamp(MIN_BUCKETS, 1 << 20)
            .next_power_of_two()
            .min(MAX_BUCKETS);
        self.m.push_fixed(self.t.rt.hashtable_alloc)?;
        let ti = self.top();
        self.m.alloc_push(self.t.vector, buckets)?;
        let t = self.obj(ti).expect("fresh");
        self.m.set_ref(t, self.t.rt.ht_buckets, self.obj(ti + 1));
        self.m.set_word(t, self.t.rt.ht_kind, kind);
        self.m.stack_truncate(ti + 1);
        if kind & WEAK != 0 {
            self.register_weak_table(ti)?;
        }
        Ok(())
    }

    /// Pushes the value of key `ki` in table `ti`, or stack entry `default`.
    pub fn table_ref(&mut self, ti: usize, ki: usize, default: usize) -> Result<(), VmError> {
        self.with_table(ti, |vm, t, _| {
            let v = match vm.find(t, vm.val(ki)).entry {
                Some(e) => vm.m.get_value(e, vm.entry_desc(t).value),
                None => vm.val(default),
            };
            vm.m.push_value(v);
        })
    }

    /// Whether table `ti` has key `ki`.
    pub fn table_contains(&mut self, ti: usize, ki: usize) -> Result<bool, VmError> {
        self.with_table(ti, |vm, t, _| vm.find(t, vm.val(ki)).entry.is_some())
    }

    /// The number of entries of table `ti`.
    pub fn table_size(&mut self, ti: usize) -> Result<usize, VmError> {
        self.with_table(ti, |vm, t, _| vm.table_count(t))
    }

    /// Sets key `ki` of table `ti` to value `vi`.
    pub fn table_set(&mut self, ti: usize, ki: usize, vi: usize) -> Result<(), VmError> {
        let set = |vm: &Vm, t: Gc<'_>, e: Gc<'_>| {
            vm.m.set_value(e, vm.entry_desc(t).value, vm.val(vi));
        };
        let found = self.with_table(ti, |vm, t, _| match vm.find(t, vm.val(ki)).entry {
            Some(e) => {
                set(vm, t, e);
                true
            }
            None => false,
        })?;
        if found {
            return Ok(());
        }
        let d = self.entry_desc(self.obj(ti).expect("table"));
        self.m.push_fixed(d.alloc)?;
        let ei = self.top();
        let grow = self.with_table(ti, |vm, t, _| {
            let key = vm.val(ki);
            let l = vm.find(t, key);
            if let Some(e) = l.entry {
                // Added by another thread meanwhile.
                set(vm, t, e);
                return false;
            }
            let e = vm.obj(ei).expect("fresh");
            let b = vm.buckets(t);
            match d.key_strong {
                Some(strong) if vm.by_value(key) => {
                    vm.m.set_value(e, strong, key);
                    vm.m.set_word(e, d.hash, l.hash);
                }
                Some(_) => {
                    vm.m.set_value(e, d.key, key);
                    vm.m.set_word(e, d.hash, l.hash | 1);
                }
                None => {
                    vm.m.set_value(e, d.key, key);
                    vm.m.set_word(e, d.hash, l.hash);
                }
            }
            vm.m.set_value(e, d.value, vm.val(vi));
            vm.m.set_ref(e, d.next, vm.m.read_ref(b, l.bucket));
            vm.m.write_ref(b, l.bucket, Some(e));
            let n = vm.table_count(t) + 1;
            vm.set_count(t, n);
            n > vm.m.len(b)
        })?;
        self.m.stack_truncate(ei);
        if grow {
            self.grow_table(ti)?;
        }
        Ok(())
    }

    /// Doubles the buckets of table `ti` if its entries outnumber them.
    fn grow_table(&mut self, ti: usize) -> Result<(), VmError> {
        let len = self.with_table(ti, |vm, t, _| {
            let len = vm.m.len(vm.buckets(t));
            (vm.table_count(t) > len && len < MAX_BUCKETS).then_some(len)
        })?;
        let Some(len) = len else { return Ok(()) };
        self.m.alloc_push(self.t.vector, len * 2)?;
        let vi = self.top();
        self.with_table(ti, |vm, t, _| {
            if vm.m.len(vm.buckets(t)) == len {
                vm.rehash(t, vm.obj(vi).expect("fresh"));
            }
        })?;
        self.m.stack_truncate(vi);
        Ok(())
    }

    /// Moves every entry of table `t` into the empty bucket vector `new`.
    fn rehash(&self, t: Gc<'_>, new: Gc<'_>) {
        let d = self.entry_desc(t);
        let old = self.buckets(t);
        let mask = self.m.len(new) - 1;
        for i in 0..self.m.len(old) {
            let mut cur = self.m.read_ref(old, i);
            while let Some(e) = cur {
                cur = self.m.get_ref(e, d.next);
                // Bit 0 is the weak-key flag, not part of the hash.
                let j = (self.m.get_word(e, d.hash) & !1) as usize & mask;
                self.m.set_ref(e, d.next, self.m.read_ref(new, j));
                self.m.write_ref(new, j, Some(e));
            }
        }
        self.m.set_ref(t, self.t.rt.ht_buckets, Some(new));
    }

    /// Removes key `ki` from table `ti` (nothing if absent).
    pub fn table_delete(&mut self, ti: usize, ki: usize) -> Result<(), VmError> {
        self.with_table(ti, |vm, t, _| {
            let l = vm.find(t, vm.val(ki));
            if let Some(e) = l.entry {
                vm.unlink(t, l.bucket, l.prev, e);
            }
        })
    }

    /// Unlinks entry `e` (after `prev`, in `bucket`) from table `t`.
    pub(crate) fn unlink(&self, t: Gc<'_>, bucket: usize, prev: Option<Gc<'_>>, e: Gc<'_>) {
        let d = self.entry_desc(t);
        let next = self.m.get_ref(e, d.next);
        match prev {
            Some(p) => self.m.set_ref(p, d.next, next),
            None => self.m.write_ref(self.buckets(t), bucket, next),
        }
        self.set_count(t, self.table_count(t).saturating_sub(1));
    }

    /// Unlinks the entries of weak (or ephemeron) table `t` whose key was cleared.
    pub(crate) fn sweep_table(&self, t: Gc<'_>) {
        let d = self.entry_desc(t);
        let b = self.buckets(t);
        for i in 0..self.m.len(b) {
            let (mut prev, mut cur) = (None, self.m.read_ref(b, i));
            while let Some(e) = cur {
                cur = self.m.get_ref(e, d.next);
                if self.entry_broken(&d, e) {
                    self.unlink(t, i, prev, e);
                } else {
                    prev = Some(e);
                }
            }
        }
    }

    /// Empties table `ti`.
    pub fn table_clear(&mut self, ti: usize) -> Result<(), VmError> {
        self.m.alloc_push(self.t.vector, MIN_BUCKETS)?;
        let vi = self.top();
        self.with_table(ti, |vm, t, _| {
            vm.m.set_ref(t, vm.t.rt.ht_buckets, vm.obj(vi));
            vm.set_count(t, 0);
        })?;
        self.m.stack_truncate(vi);
        Ok(())
    }

    /// Pushes a vector of the keys (or values) of table `ti`, in no set order.
    pub fn table_contents(&mut self, ti: usize, part: Part) -> Result<(), VmError> {
        loop {
            let n = self.table_size(ti)?;
            self.m.alloc_push(self.t.vector, n)?;
            let vi = self.top();
            let filled = self.with_table(ti, |vm, t, _| {
                if vm.table_count(t) != n {
                    return false; // changed by a collection or another thread
                }
                let (d, b, out) = (vm.entry_desc(t), vm.buckets(t), vm.obj(vi).expect("fresh"));
                let mut k = 0;
                for i in 0..vm.m.len(b) {
                    let mut cur = vm.m.read_ref(b, i);
                    while let Some(e) = cur {
                        let v = match part {
                            Part::Keys => vm.entry_key(&d, e).unwrap_or(Value::NULL),
                            Part::Values => vm.m.get_value(e, d.value),
                        };
                        if k < n {
                            vm.m.write_value(out, k, v);
                        }
                        k += 1;
                        cur = vm.m.get_ref(e, d.next);
                    }
                }
                k == n
            })?;
            if filled {
                return Ok(());
            }
            self.m.stack_truncate(vi);
        }
    }
}
