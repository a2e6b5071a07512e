//! The type registry: for each type, its object size and where its references are.
//!
//! Three kinds: fixed-size objects with reference fields at given field indices, a
//! variable-length array of references, a variable-length array of bytes. The
//! registry is built before the heap and immutable afterwards (shared by `Arc`).

use super::header::{Header, MAX_LEN};
use crate::error::GcError;
use crate::mem::WORD;

/// A registered type's index (never 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub(crate) u32);

impl TypeId {
    /// The raw index.
    pub fn index(self) -> u32 {
        self.0
    }
}

/// The filler type: unused heap space (retired allocation-buffer tails), length in
/// payload words. Registered first in every registry; never referenced.
pub const FILLER: TypeId = TypeId(1);

/// The shape of a type's objects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeKind {
    /// `fields` payload words; those listed in `refs` (sorted, unique) are references.
    Fixed {
        /// Payload words.
        fields: u32,
        /// Field indices holding references.
        refs: Box<[u32]>,
    },
    /// An array of `len` references.
    RefArray,
    /// An array of `len` bytes (padded to whole words).
    ByteArray,
}

/// A registered type.
#[derive(Clone, Debug)]
pub struct TypeInfo {
    /// Name, for errors and the verifier.
    pub name: String,
    /// Shape.
    pub kind: TypeKind,
}

/// All types a heap knows. Type 1 is [`FILLER`].
#[derive(Clone, Debug)]
pub struct TypeRegistry {
    types: Vec<TypeInfo>, // index 0 is a placeholder, never a valid type
}

impl Default for TypeRegistry {
    fn default() -> Self {
        Self::new()
    }
}

/// The most payload words a fixed-size type may have.
pub const MAX_FIXED_FIELDS: u32 = 1 << 16;

impl TypeRegistry {
    /// A registry holding only the filler type.
    pub fn new() -> TypeRegistry {
        let placeholder = TypeInfo {
            name: "<invalid>".into(),
            kind: TypeKind::ByteArray,
        };
        let filler = TypeInfo {
            name: "<filler>".into(),
            kind: TypeKind::ByteArray,
        };
        TypeRegistry {
            types: vec![placeholder, filler],
        }
    }

    fn add(&mut self, name: &str, kind: TypeKind) -> Result<TypeId, GcError> {
        let id = u32::try_from(self.types.len())
            .ok()
            .filter(|i| *i < (1 << 24));
        let id = id.ok_or_else(|| GcError::Type(format!("too many types registering {name:?}")))?;
        self.types.push(TypeInfo {
            name: name.to_string(),
            kind,
        });
        Ok(TypeId(id))
    }

    /// Registers a fixed-size type of `fields` payload words, of which the fields at
    /// the indices in `refs` hold references.
    pub fn fixed(&mut self, name: &str, fields: u32, refs: &[u32]) -> Result<TypeId, GcError> {
        if fields > MAX_FIXED_FIELDS {
            return Err(GcError::Type(format!(
                "{name:?}: {fields} fields exceeds {MAX_FIXED_FIELDS}"
            )));
        }
        let mut sorted = refs.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != refs.len() {
            return Err(GcError::Type(format!(
                "{name:?}: duplicate reference field in {refs:?}"
            )));
        }
        if let Some(bad) = sorted.iter().find(|&&r| r >= fields) {
            return Err(GcError::Type(format!(
                "{name:?}: reference field {bad} is not below {fields}"
            )));
        }
        self.add(
            name,
            TypeKind::Fixed {
                fields,
                refs: sorted.into(),
            },
        )
    }

    /// Registers a variable-length array of references.
    pub fn ref_array(&mut self, name: &str) -> Result<TypeId, GcError> {
        self.add(name, TypeKind::RefArray)
    }

    /// Registers a variable-length array of bytes.
    pub fn byte_array(&mut self, name: &str) -> Result<TypeId, GcError> {
        self.add(name, TypeKind::ByteArray)
    }

    /// The type `id`, if registered (the placeholder index 0 is not).
    pub fn get(&self, id: TypeId) -> Option<&TypeInfo> {
        if id.0 == 0 {
            None
        } else {
            self.types.get(id.0 as usize)
        }
    }

    /// Number of registered types, filler included.
    pub fn len(&self) -> usize {
        self.types.len() - 1
    }

    /// Always false: the filler is always registered.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The header for a new object of type `id` with `len` elements (ignored for
    /// fixed types), and its size in words. Errors for unknown types, the filler,
    /// and lengths a header cannot hold.
    pub fn layout(&self, id: TypeId, len: usize) -> Result<(Header, usize), GcError> {
        let info = self.get(id).filter(|_| id != FILLER);
        let info = info.ok_or_else(|| GcError::Type(format!("unknown type index {}", id.0)))?;
        let len64 = len as u64;
        if len64 > MAX_LEN {
            return Err(GcError::Type(format!(
                "{}: length {len} exceeds {MAX_LEN}",
                info.name
            )));
        }
        let header = match info.kind {
            TypeKind::Fixed { .. } => Header::new(id, 0),
            _ => Header::new(id, len64),
        };
        Ok((header, self.words_of(info, header)))
    }

    /// Size in words (header included) of the object with `header`, or `None` if the
    /// header names no registered type.
    pub fn object_words(&self, header: Header) -> Option<usize> {
        self.get(header.type_id())
            .map(|info| self.words_of(info, header))
    }

    fn words_of(&self, info: &TypeInfo, header: Header) -> usize {
        let len = header.len() as usize;
        1 + match info.kind {
            TypeKind::Fixed { fields, .. } => fields as usize,
            TypeKind::RefArray => len,
            TypeKind::ByteArray => len.div_ceil(WORD),
        }
    }

    /// Whether payload field `field` of an object with `header` holds a reference.
    /// `header` must name a registered type.
    #[inline]
    pub fn is_ref_field(&self, header: Header, field: usize) -> bool {
        match &self.types[header.type_id().0 as usize].kind {
            TypeKind::Fixed { refs, .. } => refs.binary_search(&(field as u32)).is_ok(),
            TypeKind::RefArray => field < header.len() as usize,
            TypeKind::ByteArray => false,
        }
    }

    /// Calls `f` with each reference field index of an object with `header`.
    #[inline]
    pub fn for_each_ref_field(&self, header: Header, mut f: impl FnMut(usize)) {
        match &self.types[header.type_id().0 as usize].kind {
            TypeKind::Fixed { refs, .. } => refs.iter().for_each(|&r| f(r as usize)),
            TypeKind::RefArray => (0..header.len() as usize).for_each(f),
            TypeKind::ByteArray => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_and_reference_fields() {
        let mut r = TypeRegistry::new();
        let pair = r.fixed("pair", 2, &[1, 0]).unwrap();
        let node = r.fixed("node", 4, &[0, 1]).unwrap();
        let vec = r.ref_array("vector").unwrap();
        let bytes = r.byte_array("string").unwrap();
        assert_eq!(r.len(), 5);

        let (h, w) = r.layout(pair, 99).unwrap();
        assert_eq!((h.type_id(), h.len(), w), (pair, 0, 3));
        assert!(r.is_ref_field(h, 0) && r.is_ref_field(h, 1));
        let (h, w) = r.layout(node, 0).unwrap();
        assert_eq!(w, 5);
        assert!(!r.is_ref_field(h, 2) && !r.is_ref_field(h, 3));
        let (h, w) = r.layout(vec, 10).unwrap();
        assert_eq!(w, 11);
        assert!(r.is_ref_field(h, 9) && !r.is_ref_field(h, 10));
        let (h, w) = r.layout(bytes, 9).unwrap();
        assert_eq!(w, 3);
        assert!(!r.is_ref_field(h, 0));
        assert_eq!(r.object_words(h), Some(3));
        let mut fields = vec![];
        r.for_each_ref_field(r.layout(vec, 3).unwrap().0, |f| fields.push(f));
        assert_eq!(fields, vec![0, 1, 2]);
    }

    #[test]
    fn bad_types_are_refused() {
        let mut r = TypeRegistry::new();
        assert!(r
            .fixed("dup", 3, &[1, 1])
            .unwrap_err()
            .to_string()
            .contains("duplicate"));
        assert!(r
            .fixed("oob", 3, &[3])
            .unwrap_err()
            .to_string()
            .contains("not below 3"));
        assert!(r.fixed("huge", MAX_FIXED_FIELDS + 1, &[]).is_err());
        assert!(r.layout(TypeId(0), 0).is_err());
        assert!(r.layout(FILLER, 0).is_err());
        assert!(r.layout(TypeId(42), 0).is_err());
        let arr = r.ref_array("a").unwrap();
        assert!(r.layout(arr, usize::MAX).is_err());
        assert_eq!(r.object_words(Header(0)), None);
    }
}
