//! The collector's entry points for one object model: [`Dispatch`], a table of
//! function pointers, each an instantiation for one decoder [`Kind`]
//! (`decode.rs`) of a loop that sizes objects and finds their references. A heap
//! built with [`Heap::new`](crate::Heap::new) holds the built-in decoder's table;
//! one built with [`Heap::with_model`](crate::Heap::with_model)`::<M>` holds the
//! table for `M`, instantiated there. The model is chosen once per marking
//! phase, page or run of pages (one indirect call), never per object; inside,
//! every call into the decoder is static.

use super::bitmap::Bitmap;
use super::fill::{self, FillCtx};
use super::heap_inner::HeapInner;
use super::mark::OldRegionCards;
use super::verify::VerifyReport;
use crate::decode::Kind;
use crate::fatal::AbortOnUnwind;
use crate::safepoint::Stopped;
use crate::space::moving::MovingSpace;
use std::sync::Arc;

/// Where a run of black pages knows its covering object from (a page index and
/// an old address: [`FillCtx::fill_pages_to`]'s `cover`).
pub(crate) type Cover = Option<(usize, usize)>;

/// Page filling's entry points ([`FillCtx`]): each produces one page or a run.
#[derive(Clone, Copy)]
pub(crate) struct FillFns {
    /// [`FillCtx::fill_pages_to`].
    pub pages_to: fn(&FillCtx<'_>, usize, usize, usize, &mut Cover),
    /// [`FillCtx::fill_black_in_place`].
    pub black_in_place: fn(&FillCtx<'_>, usize, &mut Cover),
    /// [`FillCtx::fill_dense`].
    pub dense: fn(&FillCtx<'_>, usize),
}

impl FillFns {
    /// The entry points for decoder kind `K`.
    pub fn of<K: Kind>() -> FillFns {
        FillFns {
            pages_to: fill::pages_to::<K>,
            black_in_place: fill::black_in_place::<K>,
            dense: fill::dense::<K>,
        }
    }
}

/// The one-pause cycle's marking, with the world stopped (`full.rs`): from
/// `roots`, the moving space's `[base, top)` marked into `(mark, live)`,
/// resurrection and weak clearing included.
pub(crate) type FullMark = fn(&HeapInner, &Stopped<'_>, &[usize], (&Bitmap, &Bitmap), usize, usize);

/// A concurrent cycle's marking rounds and mark-end pauses (`concurrent.rs`):
/// marks `[base, boundary)` into `(mark, live)`, with the old region below
/// `old_end` in a young cycle, its stable part read by its cards where they are
/// given ([`OldRegionCards`]); returns the number of rounds.
pub(crate) type ConcurrentMark = fn(
    &Arc<HeapInner>,
    &AbortOnUnwind,
    (&Bitmap, &Bitmap),
    usize,
    Option<usize>,
    Option<OldRegionCards<'_>>,
) -> u32;

/// The heap verifier's walk (`verify.rs`), the world stopped, the space locked.
pub(crate) type VerifyWalk =
    fn(&HeapInner, &MovingSpace, &Stopped<'_>) -> Result<VerifyReport, String>;

/// A heap's collector entry points, instantiated for its object model.
#[derive(Clone, Copy)]
pub(crate) struct Dispatch {
    /// The one-pause cycle's marking.
    pub full_mark: FullMark,
    /// A concurrent cycle's marking.
    pub concurrent_mark: ConcurrentMark,
    /// Page filling.
    pub fill: FillFns,
    /// The verifier's walk.
    pub verify_walk: VerifyWalk,
}

impl Dispatch {
    /// The entry points for decoder kind `K`.
    pub fn of<K: Kind>() -> Dispatch {
        Dispatch {
            full_mark: super::full::mark_phase::<K>,
            concurrent_mark: super::concurrent::mark_phase::<K>,
            fill: FillFns::of::<K>(),
            verify_walk: super::verify::walk::<K>,
        }
    }
}
