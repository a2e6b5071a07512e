//! Types registered while the heap runs (class loading): [`Heap::register_fixed`]
//! and its siblings ([`Heap::register_tailed`] among them), and the checked-once descriptors of any type of the heap.
//!
//! They add to the heap's own [`TypeRegistry`] (`object/types.rs`), which grows
//! without disturbing its readers: a registration takes the registry's mutex,
//! writes the new type's entries where they will stay, and publishes its index
//! with a release store; the collector and the mutators read shapes with no lock
//! (the memory-ordering argument is in `object/types.rs`'s module docs). A
//! registration is not a GC point and does not wait for a collection.

use crate::error::GcError;
use crate::heap::Heap;
use crate::object::{
    ephemeron_kind, fixed_kind, tailed_kind, FixedType, RefField, Tail, TypeId, TypeKind, WordField,
};

impl Heap {
    /// Registers a fixed-size type of `fields` payload words, of which the fields
    /// at the indices in `refs` hold references, while the heap runs: from any
    /// thread, with or without a mutator, while other threads allocate, access
    /// fields and collect. Its objects can be allocated as soon as this returns,
    /// by any thread that learns the returned id. Refused as
    /// [`TypeRegistry::fixed`](crate::TypeRegistry::fixed) refuses (a
    /// [`GcErrorKind::Type`](crate::GcErrorKind::Type) error), when the type table
    /// is full ([`TypeRegistry::with_max_types`](crate::TypeRegistry::with_max_types),
    /// at most [`MAX_TYPES`](crate::object::MAX_TYPES)), and while a clone of the
    /// heap's registry lives (it shares the registry's identity).
    ///
    /// ```
    /// # use flipgc_core::{Heap, HeapConfig, TypeRegistry};
    /// let heap = Heap::new(HeapConfig::new(8 << 20), TypeRegistry::new())?;
    /// let mut m = heap.bind_mutator()?;
    /// let point = heap.register_fixed("point", 3, &[2])?; // x, y, next
    /// let x = heap.word_field(point, 0)?;
    /// let p = m.alloc_fixed(heap.fixed_type(point)?)?;
    /// m.set_word(m.get(&p), x, 7);
    /// m.collect();
    /// assert_eq!(m.get_word(m.get(&p), x), 7);
    /// assert_eq!(heap.types().get(point).unwrap().name, "point");
    /// # Ok::<(), flipgc_core::GcError>(())
    /// ```
    pub fn register_fixed(&self, name: &str, fields: u32, refs: &[u32]) -> Result<TypeId, GcError> {
        self.register_fixed_weak(name, fields, refs, &[])
    }

    /// As [`Heap::register_fixed`], with the fields in `weak` holding weak
    /// references, as [`TypeRegistry::fixed_weak`](crate::TypeRegistry::fixed_weak)
    /// has them (below 64, not in `refs`).
    pub fn register_fixed_weak(
        &self,
        name: &str,
        fields: u32,
        refs: &[u32],
        weak: &[u32],
    ) -> Result<TypeId, GcError> {
        let kind = fixed_kind(name, fields, refs, weak)?;
        self.refuse_on_model(name)?;
        self.inner.types.register(name, kind)
    }

    /// As [`Heap::register_fixed`], for an ephemeron type of two fields, key and
    /// value, as [`TypeRegistry::ephemeron`](crate::TypeRegistry::ephemeron) has
    /// it.
    pub fn register_ephemeron(&self, name: &str) -> Result<TypeId, GcError> {
        self.register_ephemeron_with(name, 2, &[])
    }

    /// As [`Heap::register_fixed`], for an ephemeron type with extra fields, as
    /// [`TypeRegistry::ephemeron_with`](crate::TypeRegistry::ephemeron_with) has
    /// it.
    pub fn register_ephemeron_with(
        &self,
        name: &str,
        fields: u32,
        refs: &[u32],
    ) -> Result<TypeId, GcError> {
        self.refuse_on_model(name)?;
        let kind = ephemeron_kind(name, fields, refs)?;
        self.inner.types.register(name, kind)
    }

    /// As [`Heap::register_fixed`], for a tailed type: a fixed part of `fields`
    /// payload words (the fields in `refs` references) followed by a tail of
    /// references or words, its length given at allocation, as
    /// [`TypeRegistry::tailed`](crate::TypeRegistry::tailed) has it.
    pub fn register_tailed(
        &self,
        name: &str,
        fields: u32,
        refs: &[u32],
        tail: Tail,
    ) -> Result<TypeId, GcError> {
        self.refuse_on_model(name)?;
        let kind = tailed_kind(name, fields, refs, tail)?;
        self.inner.types.register(name, kind)
    }

    /// As [`Heap::register_fixed`], for a variable-length array of references.
    pub fn register_ref_array(&self, name: &str) -> Result<TypeId, GcError> {
        self.refuse_on_model(name)?;
        self.inner.types.register(name, TypeKind::RefArray)
    }

    /// As [`Heap::register_fixed`], for a variable-length array of bytes.
    pub fn register_byte_array(&self, name: &str) -> Result<TypeId, GcError> {
        self.refuse_on_model(name)?;
        self.inner.types.register(name, TypeKind::ByteArray)
    }

    /// Registration is refused on a heap with a VM object model
    /// ([`Heap::with_model`]): its objects are the VM's.
    fn refuse_on_model(&self, name: &str) -> Result<(), GcError> {
        if self.inner.model.is_some() {
            return Err(GcError::type_error(format!(
                "type {name:?}: a heap with a VM object model registers no built-in types"
            )));
        }
        Ok(())
    }

    /// The allocation descriptor of fixed-size type `id`, whenever it was
    /// registered: [`TypeRegistry::fixed_type`](crate::TypeRegistry::fixed_type)
    /// on the heap's registry.
    pub fn fixed_type(&self, id: TypeId) -> Result<FixedType, GcError> {
        self.inner.types.fixed_type(id)
    }

    /// The descriptor of reference field `field` of fixed-size type `id` (or of a
    /// tailed type's fixed part):
    /// [`TypeRegistry::ref_field`](crate::TypeRegistry::ref_field) on the heap's
    /// registry.
    pub fn ref_field(&self, id: TypeId, field: u32) -> Result<RefField, GcError> {
        self.inner.types.ref_field(id, field)
    }

    /// The descriptor of word field `field` of fixed-size type `id` (or of a
    /// tailed type's fixed part):
    /// [`TypeRegistry::word_field`](crate::TypeRegistry::word_field) on the heap's
    /// registry.
    pub fn word_field(&self, id: TypeId, field: u32) -> Result<WordField, GcError> {
        self.inner.types.word_field(id, field)
    }
}
