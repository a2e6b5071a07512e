//! Class descriptors ([`Class`]) and the class table ([`ClassTable`]) that loads
//! them at run time and owns them for the life of the process.
//!
//! A descriptor lives outside the heap, in the table's fixed arena of slots, and
//! is never moved, changed or freed once loaded: an object's header word is the
//! address of its class's descriptor, so the collector (through
//! [`crate::layout::JvmModel`]) can read the object's layout from it at any time,
//! on any thread. The table itself is leaked ([`ClassTable::new`] returns a
//! `&'static`), so a class pointer stays valid as long as the process.
//!
//! Loading takes the table's loader lock (a mutex over the name map and the next
//! free slot); the collector never takes it. Its read path,
//! [`ClassTable::resolve`], which turns a header word back into a descriptor, is
//! lock-free: an arithmetic range check on the arena and one acquire load of the
//! slot's `OnceLock` state. A header word that is not the address of a loaded
//! descriptor resolves to `None` (never to a forged `&Class`).
//!
//! Layout of an instance: word 0 the header, then the reference fields in their
//! declared order, then the primitive fields in theirs (one word each). Layout of
//! an array: word 0 the header, word 1 the length, then the elements (one word
//! each). See [`Shape`].

use crate::classfile::{self, ClassBody, FieldKind, ParseError, ParseErrorKind, PrimKind};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

/// Words before an array's first element: the header and the length.
pub const ARRAY_HEADER_WORDS: usize = 2;

/// The longest array accepted, in elements (so that sizes never overflow).
pub const MAX_ARRAY_LEN: usize = 1 << 40;

/// How a class's objects are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Named fields: `refs` reference words at indices `1..=refs`, then the
    /// primitive words, `words` in all (header included).
    Instance {
        /// Reference fields.
        refs: usize,
        /// Object size in words, header included.
        words: usize,
    },
    /// An array of references: elements at `2..2 + len`.
    RefArray,
    /// An array of primitives of this kind: elements at `2..2 + len`.
    PrimArray(PrimKind),
}

/// One field of an instance class, with the word index it was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Its name.
    pub name: String,
    /// What it holds.
    pub kind: FieldKind,
    /// Its word index in the object (the header is word 0).
    pub slot: usize,
}

/// A loaded class: immutable, at a fixed address for the life of the process.
#[derive(Debug)]
pub struct Class {
    name: String,
    shape: Shape,
    fields: Vec<Field>,
}

impl Class {
    fn from_def(def: classfile::ClassDef) -> Class {
        match def.body {
            ClassBody::Array(FieldKind::Ref) => Class {
                name: def.name,
                shape: Shape::RefArray,
                fields: Vec::new(),
            },
            ClassBody::Array(FieldKind::Prim(p)) => Class {
                name: def.name,
                shape: Shape::PrimArray(p),
                fields: Vec::new(),
            },
            ClassBody::Instance(defs) => {
                // References first (in declared order), then primitives.
                let refs = defs.iter().filter(|f| f.kind == FieldKind::Ref).count();
                let (mut next_ref, mut next_prim) = (1, 1 + refs);
                let fields = defs
                    .into_iter()
                    .map(|f| {
                        let next = if f.kind == FieldKind::Ref {
                            &mut next_ref
                        } else {
                            &mut next_prim
                        };
                        *next += 1;
                        Field {
                            name: f.name,
                            kind: f.kind,
                            slot: *next - 1,
                        }
                    })
                    .collect();
                Class {
                    name: def.name,
                    shape: Shape::Instance {
                        refs,
                        words: next_prim,
                    },
                    fields,
                }
            }
        }
    }

    /// The class's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its layout.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Its fields in declared order (empty for arrays).
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The field called `name`, if the class has one.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The header word of this class's objects: the descriptor's address (8-byte
    /// aligned, so bit 0, the collector's filler bit, is clear).
    pub fn header(&'static self) -> u64 {
        std::ptr::from_ref(self) as u64
    }

    /// Whether this is an array class.
    pub fn is_array(&self) -> bool {
        !matches!(self.shape, Shape::Instance { .. })
    }

    /// Size in words of an instance (`None` for an array class).
    pub fn instance_words(&self) -> Option<usize> {
        match self.shape {
            Shape::Instance { words, .. } => Some(words),
            _ => None,
        }
    }
}

/// Why classes could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// The text is not a valid description, or declares a class already loaded.
    Parse(ParseError),
    /// The table's arena is full.
    Full {
        /// The table's capacity, in classes.
        capacity: usize,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Parse(e) => write!(f, "class description, {e}"),
            LoadError::Full { capacity } => {
                write!(f, "the class table is full ({capacity} classes)")
            }
        }
    }
}

impl std::error::Error for LoadError {}

impl From<ParseError> for LoadError {
    fn from(e: ParseError) -> Self {
        LoadError::Parse(e)
    }
}

/// The loader's state, under the loader lock.
struct Loader {
    by_name: HashMap<String, &'static Class>,
    next: usize,
}

/// The classes of one VM: a fixed arena of descriptor slots, filled at run time.
pub struct ClassTable {
    slots: Box<[OnceLock<Class>]>,
    loader: Mutex<Loader>,
}

impl fmt::Debug for ClassTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClassTable")
            .field("capacity", &self.slots.len())
            .finish_non_exhaustive()
    }
}

impl ClassTable {
    /// A table with room for `capacity` classes, leaked: it and every class it
    /// loads live as long as the process.
    pub fn new(capacity: usize) -> &'static ClassTable {
        Box::leak(Box::new(ClassTable {
            slots: (0..capacity).map(|_| OnceLock::new()).collect(),
            loader: Mutex::new(Loader {
                by_name: HashMap::new(),
                next: 0,
            }),
        }))
    }

    /// The most classes this table holds.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    fn loader(&self) -> std::sync::MutexGuard<'_, Loader> {
        // A panic while loading leaves the map consistent (it is changed last),
        // so a poisoned lock is still usable.
        self.loader.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Parses `text` and loads every class it describes, all or none: a parse
    /// error, a name already loaded, or too little room loads nothing. Safe to call
    /// while mutators run and the collector works: the collector never takes the
    /// loader lock.
    pub fn load(&'static self, text: &str) -> Result<Vec<&'static Class>, LoadError> {
        let defs = classfile::parse(text)?;
        let mut l = self.loader();
        if let Some(d) = defs.iter().find(|d| l.by_name.contains_key(&d.name)) {
            return Err(LoadError::Parse(ParseError {
                line: d.line,
                kind: ParseErrorKind::DuplicateClass(d.name.clone()),
            }));
        }
        if l.next + defs.len() > self.slots.len() {
            return Err(LoadError::Full {
                capacity: self.slots.len(),
            });
        }
        let mut out = Vec::with_capacity(defs.len());
        for d in defs {
            let slot = &self.slots[l.next];
            // Publication: `OnceLock::set` stores the descriptor, then marks the
            // slot initialised with release ordering; `resolve`'s `get` is an
            // acquire load of that mark, so a reader that sees the slot set sees the
            // whole descriptor. An object's header is written only after this (by
            // a mutator that got the `&Class` from here), and the collector reads
            // headers only after the heap's own hand-offs, so the chain holds on
            // weakly ordered machines too.
            if slot.set(Class::from_def(d)).is_err() {
                unreachable!("slot {} is claimed under the loader lock", l.next);
            }
            l.next += 1;
            let class: &'static Class = slot.get().expect("just set");
            l.by_name.insert(class.name.clone(), class);
            out.push(class);
        }
        Ok(out)
    }

    /// The loaded class called `name`, if any (takes the loader lock: not for the
    /// collector's path; resolve names once, as [`crate::object`] does).
    pub fn class(&self, name: &str) -> Option<&'static Class> {
        self.loader().by_name.get(name).copied()
    }

    /// How many classes are loaded.
    pub fn len(&self) -> usize {
        self.loader().next
    }

    /// Whether no class is loaded yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The class whose header word is `header`, or `None` if `header` is not the
    /// address of a class loaded in this table. Lock-free, allocation-free and
    /// panic-free: the collector's read path (see the module documentation).
    #[inline]
    pub fn resolve(&'static self, header: u64) -> Option<&'static Class> {
        let base = self.slots.as_ptr() as usize;
        let stride = std::mem::size_of::<OnceLock<Class>>();
        // The slot whose bytes would contain `header` (a wrapped difference is
        // huge, so it fails the bounds check below).
        let i = (header as usize).wrapping_sub(base) / stride;
        let class = self.slots.get(i)?.get()?;
        (std::ptr::from_ref(class) as u64 == header).then_some(class)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_come_first_and_headers_resolve() {
        let t = ClassTable::new(8);
        let cs = t
            .load("class P\n long a\n ref x\n double b\n ref y\nend\narray V of ref\n")
            .unwrap();
        let p = cs[0];
        assert_eq!(p.shape(), Shape::Instance { refs: 2, words: 5 });
        let slots: Vec<(&str, usize)> = p.fields().iter().map(|f| (&*f.name, f.slot)).collect();
        assert_eq!(slots, [("a", 3), ("x", 1), ("b", 4), ("y", 2)]);
        assert_eq!(p.header() & 7, 0);
        assert!(std::ptr::eq(t.resolve(p.header()).unwrap(), p));
        assert!(std::ptr::eq(t.resolve(cs[1].header()).unwrap(), cs[1]));
        assert!(std::ptr::eq(t.class("V").unwrap(), cs[1]));
        // Not a descriptor's address: inside one, an empty slot, far away.
        assert!(t.resolve(p.header() + 8).is_none());
        let empty = cs[1].header() + std::mem::size_of::<OnceLock<Class>>() as u64;
        assert!(t.resolve(empty).is_none());
        assert!(t.resolve(0).is_none());
        assert!(t.resolve(u64::MAX).is_none());
        // Another table's class is not this one's.
        let other = ClassTable::new(1).load("class P\nend\n").unwrap()[0];
        assert!(t.resolve(other.header()).is_none());
    }

    #[test]
    fn loading_is_all_or_nothing() {
        let t = ClassTable::new(3);
        t.load("class A\nend\n").unwrap();
        let e = t.load("class B\nend\nclass A\n ref x\nend\n").unwrap_err();
        assert_eq!(
            e,
            LoadError::Parse(ParseError {
                line: 3,
                kind: ParseErrorKind::DuplicateClass("A".into())
            })
        );
        assert!(t.class("B").is_none(), "nothing of a failed load stays");
        let e = t
            .load("class B\nend\nclass C\nend\nclass D\nend\n")
            .unwrap_err();
        assert_eq!(e, LoadError::Full { capacity: 3 });
        assert_eq!(t.len(), 1);
        t.load("class B\nend\nclass C\nend\n").unwrap();
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn classes_load_while_others_resolve() {
        let t = ClassTable::new(200);
        let first = t.load("class Seed\n ref a\nend\n").unwrap()[0];
        std::thread::scope(|s| {
            for k in 0..4 {
                s.spawn(move || {
                    for j in 0..40 {
                        let c = t.load(&format!("class T{k}.{j}\n long v\nend\n")).unwrap()[0];
                        assert!(std::ptr::eq(t.resolve(c.header()).unwrap(), c));
                    }
                });
            }
            s.spawn(move || {
                for _ in 0..10_000 {
                    assert!(std::ptr::eq(t.resolve(first.header()).unwrap(), first));
                }
            });
        });
        assert_eq!(t.len(), 161);
    }
}
