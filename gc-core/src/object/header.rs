//! The one-word object header: type index, length, and one flag.
//!
//! Layout (little end first): bits 0..24 the type index, bits 24..63 the length
//! (element count of a reference array, byte count of a byte array, payload words
//! of a filler, 0 for fixed-size types), bit 63 the `HASHED` flag (an identity hash
//! was handed out for the object: it has an entry in the heap's hash table). Type
//! index 0 is never registered, so a zero word is never a valid header.

use super::types::TypeId;

/// Bits of the header holding the type index.
const TYPE_BITS: u32 = 24;
/// The flag bit: the object has an identity hash.
pub const HASHED: u64 = 1 << 63;
/// The largest length a header can hold.
pub const MAX_LEN: u64 = (1 << (63 - TYPE_BITS)) - 1;

/// An object header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header(pub u64);

impl Header {
    /// The header of an object of type `ty` with `len` elements/bytes.
    pub fn new(ty: TypeId, len: u64) -> Header {
        debug_assert!(len <= MAX_LEN);
        Header(u64::from(ty.0) | (len << TYPE_BITS))
    }

    /// The type index.
    pub fn type_id(self) -> TypeId {
        TypeId((self.0 & ((1 << TYPE_BITS) - 1)) as u32)
    }

    /// The length field.
    pub fn len(self) -> u64 {
        (self.0 & !HASHED) >> TYPE_BITS
    }

    /// Whether the length field is zero.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Whether the object has an identity hash.
    pub fn hashed(self) -> bool {
        self.0 & HASHED != 0
    }

    /// The header without its flag (what a descriptor compares against).
    pub fn unflagged(self) -> u64 {
        self.0 & !HASHED
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips() {
        for (ty, len) in [(1, 0), (2, 5), ((1 << 24) - 1, MAX_LEN), (77, 1 << 30)] {
            let h = Header::new(TypeId(ty), len);
            assert_eq!((h.type_id(), h.len()), (TypeId(ty), len));
            assert_ne!(h.0, 0);
            assert!(!h.hashed());
            let flagged = Header(h.0 | HASHED);
            assert_eq!((flagged.type_id(), flagged.len()), (TypeId(ty), len));
            assert!(flagged.hashed());
            assert_eq!(flagged.unflagged(), h.0);
        }
    }
}
