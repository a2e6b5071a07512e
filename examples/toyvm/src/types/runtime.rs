//! The heap types of the runtime features: weak pairs, ephemeron pairs, the
//! broken-weak-pointer object `#!bwp`, hashtables and their entries (strong,
//! weak-keyed and ephemeron), and guardians ([`RtTypes`], part of
//! [`super::VmTypes`]).
//!
//! Ephemeron pairs and ephemeron entries are the collector's ephemerons
//! (`TypeRegistry::ephemeron_with`): field 0 the key (the car), field 1 the value
//! (the cdr, or the entry's value), held only while the key is reachable other
//! than through them; both read as null once the key was found unreachable. They
//! have the layout of weak pairs and weak entries, so one [`WeakPairDesc`] or
//! [`EntryDesc`] serves each kind.
//!
//! Weak references are weak fields of the collector (`TypeRegistry::fixed_weak`):
//! they read as null once their referent was found unreachable. A value compared
//! by value under `eq?` (a number, character, symbol, boolean, `()`, ...) cannot
//! become inaccessible in the Scheme sense, so weak pairs and weak entries hold
//! such a value in a strong field instead, and a word says which field is in use.

use flipgc_core::{FixedType, GcError, RefField, TypeId, TypeRegistry, WordField};

/// The fields of a hashtable entry type (strong, or with a weak key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryDesc {
    /// The type.
    pub ty: TypeId,
    /// Its allocation descriptor.
    pub alloc: FixedType,
    /// The key (a weak field in weak entries).
    pub key: RefField,
    /// The value (strong).
    pub value: RefField,
    /// The next entry of the bucket's chain.
    pub next: RefField,
    /// The key's hash, bit 0 clear; in weak entries bit 0 is set when the key is
    /// held by the weak `key` field (else by `key_strong`).
    pub hash: WordField,
    /// Weak entries: the strong field holding a key compared by value.
    pub key_strong: Option<RefField>,
}

/// The fields of a weak pair or an ephemeron pair (the same layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeakPairDesc {
    /// The weak car (an ephemeron pair's key).
    pub car_weak: RefField,
    /// The cdr (an ephemeron pair's value).
    pub cdr: RefField,
    /// The strong car (for values compared by value).
    pub car_strong: RefField,
    /// 1 when the car is held weakly.
    pub weak: WordField,
}

/// Types and descriptors of weak pairs, ephemeron pairs, `#!bwp`, hashtables and guardians.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtTypes {
    /// A weak pair: car weak (field 0) or strong (field 2), cdr (field 1), and a
    /// word (field 3): 1 when the car is in the weak field.
    pub weak_pair: TypeId,
    /// Weak pairs' allocation descriptor.
    pub weak_pair_alloc: FixedType,
    /// A weak pair's weak car.
    pub wp_car_weak: RefField,
    /// A weak pair's cdr.
    pub wp_cdr: RefField,
    /// A weak pair's strong car (for values compared by value).
    pub wp_car_strong: RefField,
    /// A weak pair's word: 1 when the car is held weakly.
    pub wp_weak: WordField,
    /// A weak pair's fields.
    pub wp: WeakPairDesc,
    /// An ephemeron pair: the layout of a weak pair, an ephemeron whose key is
    /// the weak car and whose value is the cdr.
    pub eph_pair: TypeId,
    /// Ephemeron pairs' allocation descriptor.
    pub eph_pair_alloc: FixedType,
    /// An ephemeron pair's fields.
    pub ep: WeakPairDesc,
    /// The broken-weak-pointer object (one unused word).
    pub bwp: TypeId,
    /// Its allocation descriptor.
    pub bwp_alloc: FixedType,
    /// A hashtable: bucket vector (field 0), entry count (word 1), kind (word 2).
    pub hashtable: TypeId,
    /// Its allocation descriptor.
    pub hashtable_alloc: FixedType,
    /// A hashtable's bucket vector.
    pub ht_buckets: RefField,
    /// A hashtable's entry count.
    pub ht_count: WordField,
    /// A hashtable's kind (`crate::vm::hashtable::Kind`).
    pub ht_kind: WordField,
    /// Entries of strong tables: key, value, next, hash.
    pub entry: EntryDesc,
    /// Entries of weak tables: key (weak), value, next, hash and flag, key (strong).
    pub weak_entry: EntryDesc,
    /// Entries of ephemeron tables: as weak entries, an ephemeron whose value is
    /// held only while its (weak) key is reachable.
    pub eph_entry: EntryDesc,
    /// A guardian: the index of its finalizer queue (one word).
    pub guardian: TypeId,
    /// Its allocation descriptor.
    pub guardian_alloc: FixedType,
    /// A guardian's queue index.
    pub guardian_index: WordField,
}

/// Registers the runtime-feature types.
pub fn register(types: &mut TypeRegistry) -> Result<RtTypes, GcError> {
    let weak_pair = types.fixed_weak("scm-weak-pair", 4, &[1, 2], &[0])?;
    let bwp = types.fixed("scm-bwp", 1, &[])?;
    let hashtable = types.fixed("scm-hashtable", 3, &[0])?;
    let entry = types.fixed("scm-entry", 4, &[0, 1, 2])?;
    let weak_entry = types.fixed_weak("scm-weak-entry", 5, &[1, 2, 4], &[0])?;
    let guardian = types.fixed("scm-guardian", 1, &[])?;
    let eph_pair = types.ephemeron_with("scm-ephemeron-pair", 4, &[2])?;
    let eph_entry = types.ephemeron_with("scm-ephemeron-entry", 5, &[2, 4])?;
    let pair_desc = |ty| -> Result<WeakPairDesc, GcError> {
        Ok(WeakPairDesc {
            car_weak: types.ref_field(ty, 0)?,
            cdr: types.ref_field(ty, 1)?,
            car_strong: types.ref_field(ty, 2)?,
            weak: types.word_field(ty, 3)?,
        })
    };
    let (wp, ep) = (pair_desc(weak_pair)?, pair_desc(eph_pair)?);
    let entry_desc = |ty, key_strong| -> Result<EntryDesc, GcError> {
        Ok(EntryDesc {
            ty,
            alloc: types.fixed_type(ty)?,
            key: types.ref_field(ty, 0)?,
            value: types.ref_field(ty, 1)?,
            next: types.ref_field(ty, 2)?,
            hash: types.word_field(ty, 3)?,
            key_strong: if key_strong {
                Some(types.ref_field(ty, 4)?)
            } else {
                None
            },
        })
    };
    Ok(RtTypes {
        weak_pair,
        weak_pair_alloc: types.fixed_type(weak_pair)?,
        wp_car_weak: types.ref_field(weak_pair, 0)?,
        wp_cdr: types.ref_field(weak_pair, 1)?,
        wp_car_strong: types.ref_field(weak_pair, 2)?,
        wp_weak: types.word_field(weak_pair, 3)?,
        wp,
        eph_pair,
        eph_pair_alloc: types.fixed_type(eph_pair)?,
        ep,
        bwp,
        bwp_alloc: types.fixed_type(bwp)?,
        hashtable,
        hashtable_alloc: types.fixed_type(hashtable)?,
        ht_buckets: types.ref_field(hashtable, 0)?,
        ht_count: types.word_field(hashtable, 1)?,
        ht_kind: types.word_field(hashtable, 2)?,
        entry: entry_desc(entry, false)?,
        weak_entry: entry_desc(weak_entry, true)?,
        eph_entry: entry_desc(eph_entry, true)?,
        guardian,
        guardian_alloc: types.fixed_type(guardian)?,
        guardian_index: types.word_field(guardian, 0)?,
    })
}
