//! Ephemeron types (Hayes, OOPSLA 1997; JavaScript's `WeakMap` entries, Chez
//! Scheme's ephemeron pairs): a fixed-size object whose field 0, the *key*, is
//! weak, and whose field 1, the *value*, is held only while the key is reachable
//! from outside the ephemeron. Fields from 2 on are strong references (those
//! listed) or words, as in any fixed-size type.
//!
//! In the registry an ephemeron is a fixed-size shape with fields 0 and 1 in its
//! weak mask and the `ephemeron` flag: allocation, field access (both fields
//! through the weak-reference barrier), compaction and the verifier treat it as a
//! fixed object with two weak fields; only marking's fixpoint and the clearing at
//! the end of marking (`collect/ephemeron.rs`) read the flag. A key that is no
//! reference (null or an immediate) never dies, so the value of an ephemeron with
//! such a key is held as a strong field would be.

use super::types::{fixed_kind, TypeKind, TypeRegistry};
use super::TypeId;
use crate::error::GcError;

/// The key field of every ephemeron type.
pub const EPHEMERON_KEY: u32 = 0;

/// The value field of every ephemeron type.
pub const EPHEMERON_VALUE: u32 = 1;

/// The kind of ephemeron type `name` with `fields` payload words and strong
/// reference fields `refs` (each at least 2): the checks of
/// [`TypeRegistry::ephemeron_with`], the builders' and the run-time ones alike.
pub(crate) fn ephemeron_kind(name: &str, fields: u32, refs: &[u32]) -> Result<TypeKind, GcError> {
    if fields < 2 {
        return Err(GcError::type_error(format!(
            "{name:?}: an ephemeron needs at least 2 fields (key and value), not {fields}"
        )));
    }
    if let Some(bad) = refs.iter().find(|&&r| r < 2) {
        return Err(GcError::type_error(format!(
            "{name:?}: field {bad} is an ephemeron's key or value, not a strong reference"
        )));
    }
    match fixed_kind(name, fields, refs, &[EPHEMERON_KEY, EPHEMERON_VALUE])? {
        TypeKind::Fixed { fields, refs, .. } => Ok(TypeKind::Ephemeron { fields, refs }),
        other => unreachable!("fixed_kind made {other:?}"),
    }
}

impl TypeRegistry {
    /// Registers an ephemeron type of two fields: key (field 0) and value (field 1).
    /// Marking traces the value only once it found the key reachable other than
    /// through the ephemeron; when the key is found unreachable, both fields read
    /// as null. Both are reference fields read through the weak-reference barrier.
    ///
    /// ```
    /// # use flipgc_core::{Heap, HeapConfig, TypeRegistry};
    /// let mut types = TypeRegistry::new();
    /// let eph = types.ephemeron("entry")?;
    /// let node = types.fixed("node", 1, &[0])?; // refers to its key
    /// let heap = Heap::new(HeapConfig::new(8 << 20), types)?;
    /// let mut m = heap.bind_mutator()?;
    /// let e = m.alloc(eph, 0)?;
    /// {
    ///     let key = m.alloc(node, 0)?;
    ///     let value = m.alloc(node, 0)?;
    ///     m.write_ref(m.get(&value), 0, Some(m.get(&key)));
    ///     m.write_ref(m.get(&e), 0, Some(m.get(&key)));
    ///     m.write_ref(m.get(&e), 1, Some(m.get(&value)));
    ///     m.collect();
    ///     assert!(m.read_ref(m.get(&e), 1).is_some()); // the key is rooted
    /// } // key and value unrooted: the value refers to the key, which is not enough
    /// m.collect();
    /// assert_eq!(m.read_ref(m.get(&e), 0), None);
    /// assert_eq!(m.read_ref(m.get(&e), 1), None);
    /// # Ok::<(), flipgc_core::GcError>(())
    /// ```
    pub fn ephemeron(&mut self, name: &str) -> Result<TypeId, GcError> {
        self.ephemeron_with(name, 2, &[])
    }

    /// As [`TypeRegistry::ephemeron`], with `fields` payload words: field 0 the
    /// key, field 1 the value, the fields in `refs` (2 and above) strong
    /// references and the rest words. Errors for fewer than 2 fields, and as
    /// [`TypeRegistry::fixed`] for bad `refs`.
    pub fn ephemeron_with(
        &mut self,
        name: &str,
        fields: u32,
        refs: &[u32],
    ) -> Result<TypeId, GcError> {
        let kind = ephemeron_kind(name, fields, refs)?;
        self.add(name, kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ephemeron_types_have_weak_key_and_value() {
        let mut r = TypeRegistry::new();
        let e = r.ephemeron_with("entry", 4, &[2]).unwrap();
        let (h, words) = r.layout(e, 0).unwrap();
        assert_eq!(words, 5);
        assert!(r.is_ephemeron(h));
        assert_eq!(r.weak_mask(h), 0b11);
        let mut strong = vec![];
        r.for_each_strong_ref_field(h, |f| strong.push(f));
        assert_eq!(strong, vec![2]);
        assert!(r.ref_field(e, 1).unwrap().is_weak());
        assert!(r.word_field(e, 3).is_ok());
        let plain = r.fixed_weak("weak", 2, &[1], &[0]).unwrap();
        assert!(!r.is_ephemeron(r.layout(plain, 0).unwrap().0));
    }

    #[test]
    fn bad_ephemeron_types_are_refused() {
        let mut r = TypeRegistry::new();
        assert!(r.ephemeron_with("short", 1, &[]).is_err());
        assert!(r.ephemeron_with("value strong", 3, &[1]).is_err());
        assert!(r.ephemeron_with("oob", 3, &[3]).is_err());
    }
}
