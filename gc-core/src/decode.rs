//! The collector's object decoders, statically dispatched: the [`Decode`] trait
//! (an object's size and reference fields, from its word 0 and address), its two
//! implementations, [`Builtin`] (the descriptor registry alone) and
//! [`ModelDecoder`] (a concrete VM [`ObjectModel`] `M`, fillers decoded the
//! built-in way), and [`Kind`], which names one of them without a lifetime so
//! that the collector's hot loops can be instantiated once per model and stored
//! as plain function pointers (`collect/dispatch.rs`). The heap keeps its model
//! erased ([`Decoder`]: the registry and a `&dyn ObjectModel`); a phase, page or
//! work packet [`Kind::narrow`]s it once into its concrete decoder, and within
//! the loop every call into `M::scan` or `M::object_words` is a static one.

use crate::model::{is_filler, ObjectModel, ObjectRef};
use crate::object::{FixedScan, Header, TypeRegistry};
use std::any::TypeId;
use std::marker::PhantomData;

/// What the collector asks of an object: its size and its reference fields.
/// `Copy` and cheap (a pointer or two); one implementation per object model, so
/// that code generic over it has no per-object branch on the model.
pub(crate) trait Decode: Copy + Send + Sync {
    /// Size in words of the object at `addr` whose word 0 is `w0`; `None` if the
    /// built-in header names no registered type.
    fn object_words(&self, addr: usize, w0: u64) -> Option<usize>;

    /// Calls `f` with each reference field index (payload index: word `1 + f`)
    /// of the object at `addr` whose word 0 is `w0`, weak ones included, in
    /// increasing order.
    fn for_each_ref_field(&self, addr: usize, w0: u64, f: impl FnMut(usize));

    /// As [`Decode::for_each_ref_field`], strong fields only (a VM object's weak
    /// slots are its model's [`ObjectModel::weak_slots`]).
    fn for_each_strong_ref_field(&self, addr: usize, w0: u64, f: impl FnMut(usize));

    /// Whether word 0 `w0` is a filler's (the built-in `FILLER` type; on a model
    /// heap, bit 0 set).
    fn is_filler(&self, w0: u64) -> bool;

    /// If objects whose word 0 is `w0` are ephemerons, the word indices of
    /// their key and value slots (words 1 and 2 of a built-in ephemeron; a VM
    /// model's [`ObjectModel::ephemeron_slots`]).
    fn ephemeron(&self, w0: u64) -> Option<(usize, usize)>;

    /// The weak fields of the object as a mask of payload indices (bit `f` for
    /// word `1 + f`; for a VM object its model's [`ObjectModel::weak_slots`]
    /// shifted down by one).
    fn weak_mask(&self, w0: u64) -> u64;

    /// [`TypeRegistry::fixed_scan`] for built-in objects; `None` for VM objects.
    fn fixed_scan(&self, w0: u64) -> Option<FixedScan>;

    /// [`TypeRegistry::fixed_ref_mask`] for built-in objects; `None` for VM
    /// objects.
    fn fixed_ref_mask(&self, w0: u64) -> Option<u64>;

    /// The key under which a walk caches the shape of a run of objects: the type
    /// index of a built-in header, the whole word 0 on a model heap.
    fn shape_key(&self, w0: u64) -> u64;

    /// Whether objects whose word 0 is `w0` all have one size, so that a walk may
    /// reuse the last object's shape for the next one with the same word 0:
    /// always on the built-in model (a header fixes the size); on a model heap
    /// only for fillers (a class pointer may not: arrays).
    fn shape_cacheable(&self, w0: u64) -> bool;
}

/// The built-in descriptor model's decoder: the [`TypeRegistry`] and one-word
/// [`Header`]s, nothing else (no model to branch on).
#[derive(Clone, Copy)]
pub(crate) struct Builtin<'a> {
    pub types: &'a TypeRegistry,
}

impl Decode for Builtin<'_> {
    #[inline(always)]
    fn object_words(&self, _addr: usize, w0: u64) -> Option<usize> {
        self.types.object_words(Header(w0))
    }

    #[inline(always)]
    fn for_each_ref_field(&self, _addr: usize, w0: u64, f: impl FnMut(usize)) {
        self.types.for_each_ref_field(Header(w0), f)
    }

    #[inline(always)]
    fn for_each_strong_ref_field(&self, _addr: usize, w0: u64, f: impl FnMut(usize)) {
        self.types.for_each_strong_ref_field(Header(w0), f)
    }

    #[inline(always)]
    fn is_filler(&self, w0: u64) -> bool {
        Header(w0).type_id() == crate::object::FILLER
    }

    #[inline(always)]
    fn ephemeron(&self, w0: u64) -> Option<(usize, usize)> {
        // Payload fields 0 (key) and 1 (value).
        self.types.is_ephemeron(Header(w0)).then_some((1, 2))
    }

    #[inline(always)]
    fn weak_mask(&self, w0: u64) -> u64 {
        self.types.weak_mask(Header(w0))
    }

    #[inline(always)]
    fn fixed_scan(&self, w0: u64) -> Option<FixedScan> {
        self.types.fixed_scan(Header(w0))
    }

    #[inline(always)]
    fn fixed_ref_mask(&self, w0: u64) -> Option<u64> {
        self.types.fixed_ref_mask(Header(w0))
    }

    #[inline(always)]
    fn shape_key(&self, w0: u64) -> u64 {
        u64::from(Header(w0).type_id().0)
    }

    #[inline(always)]
    fn shape_cacheable(&self, _w0: u64) -> bool {
        true
    }
}

/// A VM model's decoder: `M` for VM objects, the registry for fillers (word 0
/// bit 0 set: the collector's own, never passed to the model). The only branch
/// per object is that filler check; calls into `M` are static.
pub(crate) struct ModelDecoder<'a, M> {
    pub types: &'a TypeRegistry,
    pub model: &'a M,
}

// Derived `Clone`/`Copy` would ask `M: Copy`; the decoder only holds references.
impl<M> Clone for ModelDecoder<'_, M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M> Copy for ModelDecoder<'_, M> {}

impl<M: ObjectModel> Decode for ModelDecoder<'_, M> {
    #[inline(always)]
    fn object_words(&self, addr: usize, w0: u64) -> Option<usize> {
        if is_filler(w0) {
            self.types.object_words(Header(w0))
        } else {
            Some(self.model.object_words(ObjectRef::new(addr)))
        }
    }

    #[inline(always)]
    fn for_each_ref_field(&self, addr: usize, w0: u64, mut f: impl FnMut(usize)) {
        if !is_filler(w0) {
            // A filler has no reference fields.
            self.model.scan(ObjectRef::new(addr), &mut |i| f(i - 1));
        }
    }

    #[inline(always)]
    fn for_each_strong_ref_field(&self, addr: usize, w0: u64, mut f: impl FnMut(usize)) {
        if is_filler(w0) {
            return;
        }
        let weak = self.model.weak_slots(w0);
        if weak == 0 {
            self.model.scan(ObjectRef::new(addr), &mut |i| f(i - 1));
        } else {
            self.model.scan(ObjectRef::new(addr), &mut |i| {
                if i >= 64 || weak >> i & 1 == 0 {
                    f(i - 1)
                }
            });
        }
    }

    #[inline(always)]
    fn is_filler(&self, w0: u64) -> bool {
        is_filler(w0)
    }

    #[inline(always)]
    fn ephemeron(&self, w0: u64) -> Option<(usize, usize)> {
        if is_filler(w0) {
            None
        } else {
            self.model.ephemeron_slots(w0)
        }
    }

    #[inline(always)]
    fn weak_mask(&self, w0: u64) -> u64 {
        if is_filler(w0) {
            0
        } else {
            // Word 0 is the header, never a slot: payload index `i - 1`.
            self.model.weak_slots(w0) >> 1
        }
    }

    #[inline(always)]
    fn fixed_scan(&self, _w0: u64) -> Option<FixedScan> {
        None
    }

    #[inline(always)]
    fn fixed_ref_mask(&self, w0: u64) -> Option<u64> {
        // A filler: the registry's answer, as on a built-in heap.
        if is_filler(w0) {
            self.types.fixed_ref_mask(Header(w0))
        } else {
            None
        }
    }

    #[inline(always)]
    fn shape_key(&self, w0: u64) -> u64 {
        w0
    }

    #[inline(always)]
    fn shape_cacheable(&self, w0: u64) -> bool {
        is_filler(w0)
    }
}

/// The heap's decoder with its model erased: the registry, and the VM model (a
/// `&dyn ObjectModel`, with the `TypeId` of its concrete type) on a model heap.
/// What the collector carries around; [`Kind::narrow`] makes the concrete
/// decoder from it once per phase, page or packet. `Copy`; `model` is set
/// before the heap starts and never changes, so reading it needs no ordering.
#[derive(Clone, Copy)]
pub(crate) struct Decoder<'a> {
    pub types: &'a TypeRegistry,
    pub model: Option<(&'a dyn ObjectModel, TypeId)>,
}

impl<'a> Decoder<'a> {
    /// The VM model, if `w0` is the word 0 of a VM object (not a filler) on a
    /// model heap. For the verifier's checks of the model's answers (a
    /// per-object virtual call: debug-time only).
    #[inline]
    pub fn vm_model(&self, w0: u64) -> Option<&'a dyn ObjectModel> {
        match self.model {
            Some((m, _)) if !is_filler(w0) => Some(m),
            _ => None,
        }
    }

    /// As [`Decode::for_each_ref_field`], through one branch on the model and a
    /// virtual call into it: for cold paths (a large object's fields, forwarded
    /// once per cycle). Hot loops narrow the decoder instead ([`Kind::narrow`]).
    pub fn for_each_ref_field(&self, addr: usize, w0: u64, mut f: impl FnMut(usize)) {
        match self.vm_model(w0) {
            Some(m) => m.scan(ObjectRef::new(addr), &mut |i| f(i - 1)),
            None => self.types.for_each_ref_field(Header(w0), f),
        }
    }

    /// Whether the object has any reference field, for cold paths (as
    /// [`Decoder::for_each_ref_field`]: a flip pause's large objects).
    pub fn has_ref_fields(&self, addr: usize, w0: u64) -> bool {
        match self.vm_model(w0) {
            Some(m) => {
                let mut any = false;
                m.scan(ObjectRef::new(addr), &mut |_| any = true);
                any
            }
            None => self.types.has_ref_fields(Header(w0)),
        }
    }
}

/// A decoder type named without its lifetime: what the collector's entry points
/// are instantiated over (`collect/dispatch.rs`), once per model.
pub(crate) trait Kind: 'static {
    /// The concrete decoder.
    type Dec<'a>: Decode;

    /// The concrete decoder of a heap's erased one. Ends the process (through
    /// [`crate::fatal::die`]: this may run in a signal handler) if the heap's
    /// model is not this kind's, a broken invariant of the dispatch table.
    fn narrow(d: Decoder<'_>) -> Self::Dec<'_>;
}

/// The built-in model's [`Kind`].
pub(crate) struct BuiltinKind;

impl Kind for BuiltinKind {
    type Dec<'a> = Builtin<'a>;

    #[inline(always)]
    fn narrow(d: Decoder<'_>) -> Builtin<'_> {
        if d.model.is_some() {
            crate::fatal::die(format_args!(
                "the built-in decoder was chosen for a heap with a VM model"
            ));
        }
        Builtin { types: d.types }
    }
}

/// The [`Kind`] of a heap whose VM model is an `M`.
pub(crate) struct ModelKind<M>(PhantomData<fn() -> M>);

impl<M: ObjectModel> Kind for ModelKind<M> {
    type Dec<'a> = ModelDecoder<'a, M>;

    #[inline(always)]
    fn narrow(d: Decoder<'_>) -> ModelDecoder<'_, M> {
        match d.model {
            Some((m, ty)) if ty == TypeId::of::<M>() => {
                let m = (m as *const dyn ObjectModel).cast::<M>();
                ModelDecoder {
                    types: d.types,
                    // The `TypeId` was taken when the heap boxed the model.
                    // SAFETY: the model's concrete type is `M` (`Heap::with_model`),
                    // so the `&dyn ObjectModel`'s data pointer points to an `M`,
                    // alive for the borrow's lifetime.
                    model: unsafe { &*m },
                }
            }
            _ => crate::fatal::die(format_args!(
                "a VM model's decoder was chosen for a heap without that model"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    //! The decoders agree with what they stand for: a model decoder asks the
    //! model about VM objects and decodes fillers the built-in way (never
    //! passing one to the model), and narrowing finds the heap's model.
    use super::*;
    use crate::mem::WORD;
    use crate::object::FILLER;

    /// A model whose word 0 is `words << 3` (bit 0 clear) and whose every word
    /// past the header is a reference slot.
    struct Sized3;

    // SAFETY: `object_words >= header_words = 1`; `scan` visits exactly the
    // slots `is_ref_slot` names, in order, all past the header; nothing else
    // is read.
    unsafe impl ObjectModel for Sized3 {
        fn object_words(&self, obj: ObjectRef) -> usize {
            // SAFETY: word 0 is the header, below `header_words`.
            (unsafe { obj.load(0) } >> 3) as usize
        }
        fn scan(&self, obj: ObjectRef, slot: &mut dyn FnMut(usize)) {
            (1..self.object_words(obj)).for_each(slot);
        }
        fn is_ref_slot(&self, obj: ObjectRef, i: usize) -> bool {
            (1..self.object_words(obj)).contains(&i)
        }
        fn header_words(&self, _obj: ObjectRef) -> usize {
            1
        }
    }

    #[test]
    fn a_model_decoder_asks_the_model_but_decodes_fillers_itself() {
        let types = TypeRegistry::new();
        let model = Sized3;
        let dec = ModelDecoder {
            types: &types,
            model: &model,
        };
        // A VM object of 3 words, then a 5-word filler.
        let filler = Header::new(FILLER, (4 * WORD) as u64).0;
        let heap: Vec<u64> = vec![3 << 3, 0, 0, filler, 0, 0, 0, 0];
        let (obj, fill) = (heap.as_ptr() as usize, heap.as_ptr() as usize + 3 * WORD);
        assert!(!dec.is_filler(heap[0]) && dec.is_filler(filler));
        assert_eq!(dec.object_words(obj, heap[0]), Some(3));
        assert_eq!(dec.object_words(fill, filler), Some(5));
        let mut fields = Vec::new();
        dec.for_each_ref_field(obj, heap[0], |f| fields.push(f));
        assert_eq!(fields, [0, 1], "payload indices of words 1 and 2");
        fields.clear();
        dec.for_each_strong_ref_field(fill, filler, |f| fields.push(f));
        assert!(fields.is_empty(), "a filler has no references: {fields:?}");
        assert_eq!(dec.fixed_ref_mask(heap[0]), None);
        assert!(dec.shape_cacheable(filler) && !dec.shape_cacheable(heap[0]));
        // The built-in decoder reads the same filler the same way.
        let builtin = Builtin { types: &types };
        assert_eq!(dec.fixed_ref_mask(filler), builtin.fixed_ref_mask(filler));
        assert!(builtin.is_filler(filler));
        assert_eq!(builtin.object_words(fill, filler), Some(5));
    }

    #[test]
    fn narrowing_finds_the_heaps_model() {
        let types = TypeRegistry::new();
        let model = Sized3;
        let erased = Decoder {
            types: &types,
            model: Some((&model as &dyn ObjectModel, TypeId::of::<Sized3>())),
        };
        let dec = ModelKind::<Sized3>::narrow(erased);
        assert!(std::ptr::eq(dec.model, &model));
        let builtin = BuiltinKind::narrow(Decoder {
            types: &types,
            model: None,
        });
        assert!(std::ptr::eq(builtin.types, &types));
    }
}
