//! The plan: where every live object goes. Runs after marking, concurrently with
//! the mutators in a concurrent cycle (the headers of marked objects never change,
//! and the mark bitmaps are final), inside the pause in a full one.
//!
//! It builds the prefix sums of live words per chunk ([`Forwarding`]: a live
//! object's new address is a pure function of the live-words bitmap), and, per
//! to-space page, the from-space object covering the page's first word
//! (`page_first`), so every page can later be produced on its own.

use super::bitmap::Bitmap;
use super::forward::Forwarding;
use super::CollectorState;
use crate::mem::{self, WORD};
use crate::object::{Header, TypeRegistry};

/// A finished plan of the marked region `[base, base + 8 * top_word)`.
pub struct Plan {
    /// Prefix sums of live words.
    pub fwd: Forwarding,
    /// Live words (the compacted size).
    pub live_words: usize,
    /// Live objects in the moving space.
    pub live_objects: usize,
    /// Word index of the end of the marked region.
    pub top_word: usize,
}

/// Plans the marked region `[base, end)` from `st`'s bitmaps, leaving the per-page
/// plan in `st.page_first`.
pub fn build(
    types: &TypeRegistry,
    st: &mut CollectorState,
    base: usize,
    end: usize,
    page_words: usize,
) -> Plan {
    let top_word = (end - base) / WORD;
    let fwd = Forwarding::build(&st.live, top_word.div_ceil(64));
    let live_words = fwd.total_live_words();
    let mut page_first = std::mem::take(&mut st.page_first);
    let live_objects = plan_pages(
        &st.mark,
        types,
        base,
        top_word,
        page_words,
        live_words,
        &mut page_first,
    );
    st.page_first = page_first;
    Plan {
        fwd,
        live_words,
        live_objects,
        top_word,
    }
}

/// Builds `page_first`: for each to-space page (`page_words` words), the from-space
/// word index of the object covering its first word and the offset into it.
/// Returns the number of live objects in the moving space.
fn plan_pages(
    mark: &Bitmap,
    types: &TypeRegistry,
    base: usize,
    top_word: usize,
    page_words: usize,
    live_words: usize,
    out: &mut Vec<(usize, usize)>,
) -> usize {
    out.clear();
    out.resize(live_words.div_ceil(page_words), (0, 0));
    let mut new: usize = 0; // to-space word index of the current object
    let mut objects = 0;
    mark.for_each_set(0, top_word, |w| {
        // SAFETY: marked objects are below the top, their headers mapped (the plan
        // runs before the flip, on the heap itself).
        let h = Header(unsafe { mem::load(base + w * WORD) });
        let size = types
            .object_words(h)
            .expect("marked object has a valid header");
        // Pages whose first word falls in [new, new + size).
        let mut p = new.div_ceil(page_words);
        while p * page_words < new + size {
            out[p] = (w, p * page_words - new);
            p += 1;
        }
        new += size;
        objects += 1;
    });
    debug_assert_eq!(new, live_words);
    objects
}
