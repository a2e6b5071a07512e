//! The VM's side of its objects: [`Jvm`] (a class table and the heap built for it),
//! allocation of instances and arrays in the VM's layout, field access by name
//! resolved once to a slot ([`RefField`], [`PrimField`]), and array element access.
//!
//! Everything goes through flipgc's slot accessors: a field handle bound to a
//! heap ([`RefField::bind`], [`PrimField::bind`], [`instance_type`]) is a
//! checked-once descriptor (`Mutator::get_slot` and kin: one header compare per
//! access, which also checks the class), and the unbound handles and the array
//! accessors use `Mutator::read_slot` and kin, which check every index against
//! the object model. A wrong slot is a panic, never a forged reference. On top of that, in debug builds, a field handle checks
//! that the object is of the handle's class (the header compare costs a slot read;
//! release builds rely on the collector's slot checks alone, which keep memory
//! safety but not the VM's typing).

use crate::class::{Class, ClassTable, LoadError, ARRAY_HEADER_WORDS, MAX_ARRAY_LEN};
use crate::classfile::FieldKind;
use crate::layout::JvmModel;
use flipgc_core::{Gc, GcError, Heap, HeapConfig, ModelType, Mutator, SlotRef, SlotWord, Value};

/// Classes a [`Jvm`]'s table holds (programs load a handful; churn loads some
/// per thread as it runs).
pub const CLASS_CAPACITY: usize = 4096;

/// One VM: its class table. `Copy`; the table lives as long as the process.
#[derive(Clone, Copy, Debug)]
pub struct Jvm {
    table: &'static ClassTable,
}

impl Default for Jvm {
    fn default() -> Self {
        Jvm::new()
    }
}

impl Jvm {
    /// A VM with an empty class table of [`CLASS_CAPACITY`] classes.
    pub fn new() -> Jvm {
        Jvm {
            table: ClassTable::new(CLASS_CAPACITY),
        }
    }

    /// A VM and a heap laid out by it (`Heap::with_model` with its [`JvmModel`]).
    pub fn with_heap(config: HeapConfig) -> Result<(Heap, Jvm), GcError> {
        let jvm = Jvm::new();
        let heap = Heap::with_model(config, jvm.model())?;
        Ok((heap, jvm))
    }

    /// The object model for heaps holding this VM's objects.
    pub fn model(&self) -> JvmModel {
        JvmModel::new(self.table)
    }

    /// The class table.
    pub fn classes(&self) -> &'static ClassTable {
        self.table
    }

    /// Loads the classes `text` describes (see [`crate::classfile`]); safe while
    /// mutators run.
    pub fn load(&self, text: &str) -> Result<Vec<&'static Class>, LoadError> {
        self.table.load(text)
    }

    /// The loaded class `name`, or an error naming it.
    pub fn class(&self, name: &str) -> Result<&'static Class, String> {
        self.table
            .class(name)
            .ok_or_else(|| format!("no class {name:?} is loaded"))
    }

    /// The class of `obj`, an object of this VM. Panics if its header names no
    /// class of this VM (an object allocated by other code on the same heap).
    pub fn class_of(&self, m: &Mutator, obj: Gc<'_>) -> &'static Class {
        let h = m.read_slot_word(obj, 0);
        match self.table.resolve(h) {
            Some(c) => c,
            None => panic!("{obj:?} has header {h:#x}, which is no class of this VM"),
        }
    }
}

/// Allocates an instance of `class` (all fields null or zero) and pushes it on the
/// root stack. A GC point. Panics if `class` is an array class. (It asks the
/// model for the class's layout on every call; a loop allocating one class
/// should make its [`instance_type`] once and use `Mutator::push_object_of`.)
#[inline]
pub fn push_new(m: &mut Mutator, class: &'static Class) -> Result<(), GcError> {
    if class.is_array() {
        panic!("push_new: {} is an array class", class.name());
    }
    let t = m.model_type(class.header())?;
    m.push_object_of(t)
}

/// The checked-once allocation descriptor of `class`'s instances on `m`'s heap
/// (`Mutator::model_type`): `Mutator::push_object_of` then allocates one with no
/// model call. Errors for an array class or a class with more than 63 reference
/// fields (no fixed layout), or a heap not laid out by this VM's model.
pub fn instance_type(m: &Mutator, class: &'static Class) -> Result<ModelType, GcError> {
    m.model_type(class.header())
}

/// Allocates an array of `class` with `len` null or zero elements and pushes it on
/// the root stack. A GC point. Panics if `class` is not an array class or `len`
/// exceeds [`MAX_ARRAY_LEN`].
pub fn push_array(m: &mut Mutator, class: &'static Class, len: usize) -> Result<(), GcError> {
    assert!(
        class.is_array(),
        "push_array: {} is not an array class",
        class.name()
    );
    assert!(
        len <= MAX_ARRAY_LEN,
        "push_array: length {len} exceeds {MAX_ARRAY_LEN}"
    );
    m.push_object(ARRAY_HEADER_WORDS + len, &[class.header(), len as u64])
}

fn resolve_field(class: &'static Class, name: &str, want: &str) -> Result<usize, String> {
    let f = class
        .field(name)
        .ok_or_else(|| format!("class {} has no field {name:?}", class.name()))?;
    let is_ref = f.kind == FieldKind::Ref;
    if is_ref != (want == "ref") {
        return Err(format!(
            "field {}.{name} is {}, not {want}",
            class.name(),
            f.kind.name()
        ));
    }
    Ok(f.slot)
}

#[inline(always)]
fn debug_check_class(m: &Mutator, obj: Gc<'_>, class: &'static Class) {
    if cfg!(debug_assertions) {
        let h = m.read_slot_word(obj, 0);
        assert!(
            h == class.header(),
            "{obj:?} is not a {} (header {h:#x})",
            class.name()
        );
    }
}

/// A reference field of a class, resolved once to its slot.
#[derive(Clone, Copy, Debug)]
pub struct RefField {
    class: &'static Class,
    slot: usize,
}

impl RefField {
    /// Field `name` of `class`, which must be a reference field.
    pub fn of(class: &'static Class, name: &str) -> Result<RefField, String> {
        Ok(RefField {
            class,
            slot: resolve_field(class, name, "ref")?,
        })
    }

    /// Its word index.
    pub fn slot(self) -> usize {
        self.slot
    }

    /// The field as a checked-once descriptor of `m`'s heap
    /// (`Mutator::model_ref_slot`), for `Mutator::get_slot`/`set_slot`: one
    /// header compare per access, which also checks the object's class.
    pub fn bind(self, m: &Mutator) -> Result<SlotRef, GcError> {
        m.model_ref_slot(self.class.header(), self.slot)
    }

    /// What the field of `obj` refers to (`None` for null).
    #[inline]
    pub fn get<'m>(self, m: &'m Mutator, obj: Gc<'m>) -> Option<Gc<'m>> {
        debug_check_class(m, obj, self.class);
        m.read_slot(obj, self.slot).as_ref()
    }

    /// Sets the field of `obj` (with the write barrier).
    #[inline]
    pub fn set(self, m: &Mutator, obj: Gc<'_>, v: Option<Gc<'_>>) {
        debug_check_class(m, obj, self.class);
        m.write_slot(obj, self.slot, Value::from(v));
    }
}

/// A primitive field of a class, resolved once to its slot.
#[derive(Clone, Copy, Debug)]
pub struct PrimField {
    class: &'static Class,
    slot: usize,
}

impl PrimField {
    /// Field `name` of `class`, which must be a primitive field.
    pub fn of(class: &'static Class, name: &str) -> Result<PrimField, String> {
        Ok(PrimField {
            class,
            slot: resolve_field(class, name, "a primitive")?,
        })
    }

    /// Its word index.
    pub fn slot(self) -> usize {
        self.slot
    }

    /// The field as a checked-once descriptor of `m`'s heap
    /// (`Mutator::model_word_slot`), for `Mutator::get_slot_word`/`set_slot_word`.
    pub fn bind(self, m: &Mutator) -> Result<SlotWord, GcError> {
        m.model_word_slot(self.class.header(), self.slot)
    }

    /// The field's word in `obj`.
    #[inline]
    pub fn get(self, m: &Mutator, obj: Gc<'_>) -> u64 {
        debug_check_class(m, obj, self.class);
        m.read_slot_word(obj, self.slot)
    }

    /// Sets the field's word in `obj`.
    #[inline]
    pub fn set(self, m: &Mutator, obj: Gc<'_>, w: u64) {
        debug_check_class(m, obj, self.class);
        m.write_slot_word(obj, self.slot, w);
    }
}

/// The length of array `obj`. (On an instance, word 1 is a field: a reference
/// field panics, a primitive one is read as a length.)
#[inline]
pub fn array_len(m: &Mutator, obj: Gc<'_>) -> usize {
    m.read_slot_word(obj, 1) as usize
}

fn element(m: &Mutator, obj: Gc<'_>, i: usize) -> usize {
    let len = array_len(m, obj);
    assert!(
        i < len,
        "index {i} out of bounds for an array of length {len}"
    );
    ARRAY_HEADER_WORDS + i
}

/// Element `i` of reference array `obj`. Panics if `i` is out of bounds or `obj`
/// is not a reference array.
#[inline]
pub fn ref_elem<'m>(m: &'m Mutator, obj: Gc<'m>, i: usize) -> Option<Gc<'m>> {
    m.read_slot(obj, element(m, obj, i)).as_ref()
}

/// Sets element `i` of reference array `obj` (with the write barrier).
#[inline]
pub fn set_ref_elem(m: &Mutator, obj: Gc<'_>, i: usize, v: Option<Gc<'_>>) {
    m.write_slot(obj, element(m, obj, i), Value::from(v));
}

/// Element `i` of primitive array `obj`. Panics if `i` is out of bounds or `obj`
/// is not a primitive array.
#[inline]
pub fn prim_elem(m: &Mutator, obj: Gc<'_>, i: usize) -> u64 {
    m.read_slot_word(obj, element(m, obj, i))
}

/// Sets element `i` of primitive array `obj`.
#[inline]
pub fn set_prim_elem(m: &Mutator, obj: Gc<'_>, i: usize, w: u64) {
    m.write_slot_word(obj, element(m, obj, i), w);
}
