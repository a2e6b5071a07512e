//! # flipgc-jvmlike: a class-based VM that owns its object header
//!
//! A second embedder of flipgc, next to the toy Scheme VM: a small VM in the style
//! of a JVM, whose objects' header word is its own. Word 0 of every object is a
//! pointer to the object's class descriptor, which lives outside the heap for
//! the life of the process; the collector learns each object's size and
//! reference slots from the VM's [`layout::JvmModel`] (flipgc's `ObjectModel`),
//! which reads that header and the descriptor it points to.
//!
//! Modules:
//! - [`classfile`]: the text format classes are described in, and its parser.
//! - [`class`]: class descriptors and the class table that loads them at run time.
//! - [`layout`]: the object model the collector calls.
//! - [`object`]: the VM's side: a [`object::Jvm`] (heap plus classes), allocation,
//!   field access by name resolved once to a slot, array access.
//! - [`tree`]: binary trees on the root stack in this layout.
//! - [`gcbench`], [`binarytrees`]: the same programs and parameters as
//!   `flipgc-stress`'s, through this VM's layout.
//! - [`churn`]: random graph mutation, classes loaded while it runs, checked
//!   against a host-side model.
//!
//! The classes the programs use are text files under `classes/`, loaded when a
//! program starts.

pub mod binarytrees;
pub mod churn;
pub mod class;
pub mod classfile;
pub mod gcbench;
pub mod layout;
pub mod object;
pub mod tree;
