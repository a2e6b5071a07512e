//! The spaces: the moving space (heap and from-space spans, bump allocation,
//! thread-local allocation buffers) and the non-moving large-object space.
//!
//! Layer: spaces (docs/architecture.md, "Layers").

pub mod los;
mod los_marks;
pub mod moving;
pub mod tlab;
