//! The one-word object header: type index and length.
//!
//! Layout (little end first): bits 0..24 the type index, bits 24..64 the length
//! (element count of a reference array, byte count of a byte array, payload words
//! of a filler, 0 for fixed-size types). Type index 0 is never registered, so a
//! zero word is never a valid header.

use super::types::TypeId;

/// Bits of the header holding the type index.
const TYPE_BITS: u32 = 24;
/// The largest length a header can hold.
pub const MAX_LEN: u64 = (1 << (64 - TYPE_BITS)) - 1;

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
        self.0 >> TYPE_BITS
    }

    /// Whether the length field is zero.
    pub fn is_empty(self) -> bool {
        self.len() == 0
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
        }
    }
}
