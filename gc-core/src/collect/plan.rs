//! The plan: where every live object goes. Runs after marking, concurrently with
//! the mutators in a concurrent cycle (the headers of marked objects never change,
//! and the mark bitmaps are final), inside the pause in a full one.
//!
//! It builds the prefix sums of live words per chunk ([`Forwarding`]: a live
//! object's new address is a pure function of the live-words bitmap), and, per
//! to-space page, the from-space object covering the page's first word
//! (`page_first`), so every page can later be produced on its own. Both come from
//! the bitmaps alone, a step per chunk and per page: no object header is read.

use super::bitmap::Bitmap;
use super::forward::Forwarding;
use super::CollectorState;
use crate::mem::WORD;

/// The dense prefix of a plan: its first `pages` to-space pages hold only live words
/// at the start of the marked region, so every object there keeps its address
/// (its new address, the live words below it, is its old one). Concurrent
/// compaction forwards such a page's references in from-space, in place, and
/// moves the page into to-space instead of copying it (`compaction.rs`).
#[derive(Default)]
pub struct Dense {
    /// Pages of the prefix.
    pub pages: usize,
    /// For each page of the prefix and the one after it (if compacted), the header
    /// of the object covering its first word (`page_first`), read before the flip:
    /// that object may start on an earlier page, which is gone from from-space
    /// once moved. Only its type and length are used (a header's `HASHED` flag may
    /// be set later).
    pub heads: Vec<u64>,
    /// One bit per page of the prefix: set in a young cycle for a page of the
    /// stable old region none of whose cards the last sweep found dirty
    /// (`old_cards.rs`); if none is dirty in the table either when the page is
    /// produced, its references all point into the prefix or at large objects,
    /// and it is installed without forwarding ([`OldCards::clean_pages`]).
    ///
    /// [`OldCards::clean_pages`]: super::old_cards::OldCards::clean_pages
    pub clean: Vec<u64>,
}

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
    /// The dense prefix (empty unless asked for).
    pub dense: Dense,
}

/// Plans the marked region `[base, end)` from `st`'s bitmaps, leaving the per-page
/// plan in `st.page_first`; with `dense`, finds the dense prefix (for a concurrent
/// compaction). Its marked objects' headers must be mapped at their addresses.
pub fn build(
    st: &mut CollectorState,
    base: usize,
    end: usize,
    page_words: usize,
    dense: bool,
) -> Plan {
    let top_word = (end - base) / WORD;
    let (fwd, live_objects) = Forwarding::build_counting(
        &st.live,
        Some(&st.mark),
        top_word.div_ceil(64),
        std::mem::take(&mut st.live_before),
    );
    let live_words = fwd.total_live_words();
    let mut page_first = std::mem::take(&mut st.page_first);
    plan_pages(&st.mark, &st.live, &fwd, page_words, &mut page_first);
    let dense = if dense {
        dense_prefix(&st.live, top_word, page_words, &page_first, base)
    } else {
        Dense::default()
    };
    st.page_first = page_first;
    Plan {
        fwd,
        live_words,
        live_objects,
        top_word,
        dense,
    }
}

/// The dense prefix: whole pages from the base on with every word live (the live
/// words' bitmap, a chunk at a time), and the heads of its pages and the next.
fn dense_prefix(
    live: &Bitmap,
    top_word: usize,
    page_words: usize,
    page_first: &[(usize, usize)],
    base: usize,
) -> Dense {
    let chunks = top_word / 64;
    let full = (0..chunks)
        .take_while(|&c| live.chunk(c) == u64::MAX)
        .count();
    let first_dead = if full < chunks {
        full * 64 + live.chunk(full).trailing_ones() as usize
    } else {
        (chunks * 64..top_word)
            .find(|&w| !live.get(w))
            .unwrap_or(top_word)
    };
    let pages = (first_dead / page_words).min(page_first.len());
    let heads = page_first[..(pages + 1).min(page_first.len())]
        .iter()
        // SAFETY: a marked object's header (the caller's contract: mapped at its
        // address); read-only here.
        .map(|&(obj, _)| unsafe { crate::mem::load(base + obj * WORD) })
        .collect();
    Dense {
        pages,
        heads,
        clean: Vec::new(),
    }
}

/// Builds `page_first`: for each to-space page (`page_words` words), the from-space
/// word index of the object covering its first word and the offset into it.
///
/// Page `p` starts at live word `n = p * page_words`. That word lies in the object
/// whose header is the last mark bit at or below it: an object's words are live
/// and contiguous from its header on, so no other header lies between. (Walking
/// every marked object instead, and reading its header for its size, took about
/// 26 ms a cycle for binary-trees' 4 M live objects at 1 GiB, inside the time from
/// mark-start to flip, when every allocation is black and will be compacted.)
fn plan_pages(
    mark: &Bitmap,
    live: &Bitmap,
    fwd: &Forwarding,
    page_words: usize,
    out: &mut Vec<(usize, usize)>,
) {
    out.clear();
    let pages = fwd.total_live_words().div_ceil(page_words);
    out.reserve(pages);
    let mut chunk = 0;
    for p in 0..pages {
        let n = p * page_words;
        let w = fwd.live_word(live, n, &mut chunk);
        let obj = mark
            .prev_set(w)
            .expect("a live word lies in a marked object, whose header is at or below it");
        out.push((obj, n - fwd.new_index(live, obj)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The plan from the bitmaps matches a walk of every live object (the
        /// model: objects slide down in order; a page's first word is in the object
        /// whose new range holds it).
        #[test]
        fn page_first_matches_an_object_walk(
            objs in proptest::collection::vec((1usize..300, 0usize..200, any::<bool>()), 1..80),
            page_words in prop_oneof![Just(8usize), Just(64), Just(512)],
        ) {
            let words: usize = objs.iter().map(|(s, g, _)| s + g).sum();
            let (mark, live) = (Bitmap::new(words), Bitmap::new(words));
            let mut live_objs = vec![]; // (old word, size)
            let mut at = 0;
            for &(size, gap, alive) in &objs {
                at += gap;
                if alive {
                    mark.set(at);
                    live.set_range(at, size);
                    live_objs.push((at, size));
                }
                at += size;
            }
            let (fwd, objects) =
                Forwarding::build_counting(&live, Some(&mark), words.div_ceil(64), Vec::new());
            let mut expect = vec![];
            let mut new: usize = 0;
            for &(old, size) in &live_objs {
                let mut p = new.div_ceil(page_words);
                while p * page_words < new + size {
                    expect.push((old, p * page_words - new));
                    p += 1;
                }
                new += size;
            }
            let mut got = vec![];
            plan_pages(&mark, &live, &fwd, page_words, &mut got);
            prop_assert_eq!(&got, &expect);
            prop_assert_eq!(objects, live_objs.len());
            // The dense prefix: the pages whose words, and all below, are live words
            // of objects that keep their addresses.
            let first_dead = (0..words).find(|&w| !live.get(w)).unwrap_or(words);
            let dense_pages = (first_dead / page_words).min(got.len());
            let headers: Vec<u64> = (0..words as u64).map(|w| w * 10).collect();
            let d = dense_prefix(&live, words, page_words, &got, headers.as_ptr() as usize);
            prop_assert_eq!(d.pages, dense_pages);
            let heads: Vec<u64> = got.iter().take(dense_pages + 1).map(|&(o, _)| o as u64 * 10).collect();
            prop_assert_eq!(d.heads, heads);
        }
    }

    /// The prefix sums are written into the collector state's buffer, which the
    /// compaction's tables give back at the end: a cycle allocates none (a fresh
    /// 64 MiB one at 4 GiB, faulted in, was most of the plan's time).
    #[test]
    fn the_prefix_sums_reuse_one_buffer_from_cycle_to_cycle() {
        use super::super::fill::FillTables;
        use super::super::release::Tables;
        let words = 64 * 64;
        let mut st = CollectorState::new(words, true);
        assert!(
            st.live_before.capacity() > words / 64,
            "pre-touched to size"
        );
        // A buffer larger than any plan here needs, so a new one would show.
        st.live_before = Vec::with_capacity(100 * words);
        let buffer = (st.live_before.as_ptr(), st.live_before.capacity());
        for cycle in 0..3 {
            st.mark.set(70);
            st.live.set_range(70, 9);
            let plan = build(&mut st, 0, words * WORD, 512, false);
            assert_eq!((plan.live_words, plan.live_objects), (9, 1));
            let tables = FillTables::new(Tables::take(&mut st), plan.fwd, Vec::new(), plan.dense);
            tables.into_tables().hand_back(&mut st, plan.top_word);
            let back = (st.live_before.as_ptr(), st.live_before.capacity());
            assert_eq!(back, buffer, "cycle {cycle}: a new buffer");
        }
    }

    #[test]
    fn prev_set_on_chunk_edges() {
        let bm = Bitmap::new(300);
        for i in [0, 63, 64, 200] {
            bm.set(i);
        }
        assert_eq!(bm.prev_set(0), Some(0));
        assert_eq!(bm.prev_set(62), Some(0));
        assert_eq!(bm.prev_set(63), Some(63));
        assert_eq!(bm.prev_set(199), Some(64));
        assert_eq!(bm.prev_set(299), Some(200));
        let empty = Bitmap::new(100);
        assert_eq!(empty.prev_set(99), None);
    }
}
