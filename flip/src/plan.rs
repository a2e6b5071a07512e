//! The level planner: which parts of a flip the kernel can move at which
//! page-table level.
//!
//! The kernel moves an entry at level L only when the source and destination
//! addresses of that entry are both L-aligned and the entry is covered whole. Both
//! addresses advance together, so that is possible anywhere only if they are
//! *mutually* aligned (`src ≡ dst mod L`). The plan is a tiling of `[0, len)` into
//! parts in address order: the **body** is the run at the highest level possible;
//! the **head** before it and the **tail** after it are planned the same way with
//! the levels below. For example a mutually PUD-aligned flip that starts and ends
//! mid-PMD is `pte, pmd, PUD, pmd, pte`.
//!
//! The plan is a floor, not a promise: Linux 6.x may still move a mutually aligned
//! PTE head as a whole PMD when its neighbourhood is empty, and may fall back to a
//! lower level if page tables are in the way at the destination.

use crate::error::FlipError;
use flipgc_heap::{Geometry, Level};

/// One part of a plan: `len` bytes at `offset` from the start of both ranges,
/// moved at `level`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// Offset from `src` (and from `dst`).
    pub offset: usize,
    /// Length in bytes, a whole number of `level` entries.
    pub len: usize,
    /// The level both addresses allow for this part.
    pub level: Level,
}

/// The plan for moving `len` bytes from `src` to `dst`. See the module docs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlipPlan {
    /// Source address.
    pub src: usize,
    /// Destination address.
    pub dst: usize,
    /// Bytes to move.
    pub len: usize,
    /// The parts, in address order, tiling `[0, len)`.
    pub parts: Vec<Part>,
}

impl FlipPlan {
    /// The highest level used by any part: the body's level.
    pub fn body_level(&self) -> Level {
        self.parts
            .iter()
            .map(|p| p.level)
            .max()
            .unwrap_or(Level::Pte)
    }

    /// Index of the body: the first part at [`FlipPlan::body_level`]. Parts before
    /// it are the head, parts after it the tail.
    pub fn body_index(&self) -> usize {
        let top = self.body_level();
        self.parts.iter().position(|p| p.level == top).unwrap_or(0)
    }

    /// Bytes planned at `level`.
    pub fn bytes_at(&self, level: Level) -> usize {
        self.parts
            .iter()
            .filter(|p| p.level == level)
            .map(|p| p.len)
            .sum()
    }
}

/// Plans moving `len` bytes from `src` to `dst` under `geometry`.
///
/// Refuses a zero length, addresses or length that are not page-aligned, ranges
/// that overflow the address space, and overlapping ranges.
pub fn plan(
    src: usize,
    dst: usize,
    len: usize,
    geometry: &Geometry,
) -> Result<FlipPlan, FlipError> {
    let page = geometry.page;
    if len == 0 {
        return Err(FlipError::ZeroLength);
    }
    for (what, value) in [
        ("source address", src),
        ("destination address", dst),
        ("length", len),
    ] {
        if value % page != 0 {
            return Err(FlipError::Unaligned { what, value, page });
        }
    }
    for (what, addr) in [("source", src), ("destination", dst)] {
        if addr.checked_add(len).is_none() {
            return Err(FlipError::Overflow { what, addr, len });
        }
    }
    if src < dst + len && dst < src + len {
        return Err(FlipError::Overlap { src, dst, len });
    }
    let mut parts = Vec::new();
    tile(src, dst, 0, len, Level::Pud, geometry, &mut parts);
    Ok(FlipPlan {
        src,
        dst,
        len,
        parts,
    })
}

/// Appends the parts for `[off, off+len)`, using levels up to `max`.
fn tile(
    src: usize,
    dst: usize,
    off: usize,
    len: usize,
    max: Level,
    g: &Geometry,
    out: &mut Vec<Part>,
) {
    if len == 0 {
        return;
    }
    for level in Level::ALL.into_iter().rev().filter(|l| *l <= max) {
        let Some(size) = g.size(level) else { continue };
        if level == Level::Pte {
            out.push(Part {
                offset: off,
                len,
                level,
            });
            return;
        }
        if (src + off) % size != (dst + off) % size {
            continue;
        }
        // First and last entry boundaries inside the range, as absolute addresses.
        let first = (src + off).checked_next_multiple_of(size);
        let last = (src + off + len) / size * size;
        if let Some(first) = first.filter(|&f| f < last) {
            let (start, end) = (first - src, last - src);
            let below = lower(level);
            tile(src, dst, off, start - off, below, g, out);
            out.push(Part {
                offset: start,
                len: end - start,
                level,
            });
            tile(src, dst, end, off + len - end, below, g, out);
            return;
        }
    }
}

fn lower(level: Level) -> Level {
    match level {
        Level::Pud => Level::Pmd,
        Level::Pmd | Level::Pte => Level::Pte,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flipgc_heap::Arch;
    use proptest::prelude::*;

    const K: usize = 1024;
    const M: usize = 1024 * K;
    const G: usize = 1024 * M;

    fn x86() -> Geometry {
        Geometry::for_arch(Arch::X86_64, 4 * K).unwrap()
    }

    fn levels(p: &FlipPlan) -> Vec<(Level, usize)> {
        p.parts.iter().map(|p| (p.level, p.len)).collect()
    }

    #[test]
    fn aligned_gigabytes_move_at_pud() {
        let p = plan(4 * G, 8 * G, 2 * G, &x86()).unwrap();
        assert_eq!(levels(&p), vec![(Level::Pud, 2 * G)]);
        assert_eq!(p.body_level(), Level::Pud);
    }

    #[test]
    fn mutually_pmd_aligned_moves_at_pmd() {
        let p = plan(4 * G, 8 * G + 2 * M, G, &x86()).unwrap();
        assert_eq!(levels(&p), vec![(Level::Pmd, G)]);
    }

    #[test]
    fn mutually_misaligned_moves_at_pte() {
        let p = plan(4 * G, 8 * G + 4 * K, G, &x86()).unwrap();
        assert_eq!(levels(&p), vec![(Level::Pte, G)]);
    }

    #[test]
    fn head_body_tail() {
        // Mutually PUD-aligned, starting 4 KiB before a 2 MiB boundary and a PUD,
        // ending 2 MiB + 4 KiB past the last PUD boundary.
        let src = 4 * G - 2 * M - 4 * K;
        let dst = 8 * G - 2 * M - 4 * K;
        let len = 2 * M + 4 * K + G + 2 * M + 4 * K;
        let p = plan(src, dst, len, &x86()).unwrap();
        assert_eq!(
            levels(&p),
            vec![
                (Level::Pte, 4 * K),
                (Level::Pmd, 2 * M),
                (Level::Pud, G),
                (Level::Pmd, 2 * M),
                (Level::Pte, 4 * K),
            ]
        );
        assert_eq!(p.body_index(), 2);
        assert_eq!(p.bytes_at(Level::Pmd), 4 * M);
    }

    #[test]
    fn short_ranges_stay_below_the_entry_size() {
        let p = plan(2 * G, 4 * G, G - 4 * K, &x86()).unwrap();
        assert_eq!(p.body_level(), Level::Pmd);
        assert_eq!(
            levels(&plan(0x20_0000, 0x80_0000, 8 * K, &x86()).unwrap()),
            vec![(Level::Pte, 8 * K)]
        );
    }

    #[test]
    fn ranges_without_a_whole_entry_and_at_the_top_of_memory() {
        // Regression (found by the property test): a mutually aligned range holding no
        // whole PMD underflowed when computing its last boundary.
        let p = plan(3 * M + 4 * K, 9 * M + 4 * K, 8 * K, &x86()).unwrap();
        assert_eq!(levels(&p), vec![(Level::Pte, 8 * K)]);
        // Near the top of the address space, rounding up to the next PUD would overflow.
        let src = usize::MAX - 0x3fff;
        let dst = src % (2 * M);
        let p = plan(src, dst, 8 * K, &x86()).unwrap();
        assert_eq!(levels(&p), vec![(Level::Pte, 8 * K)]);
    }

    #[test]
    fn generic_geometry_only_has_pages() {
        let g = Geometry::for_arch(Arch::Generic, 4 * K).unwrap();
        let p = plan(4 * G, 8 * G, 2 * G, &g).unwrap();
        assert_eq!(levels(&p), vec![(Level::Pte, 2 * G)]);
    }

    #[test]
    fn bad_requests_are_refused() {
        let g = x86();
        assert!(matches!(
            plan(0x1000, 0x9000, 0, &g),
            Err(FlipError::ZeroLength)
        ));
        let e = plan(0x1001, 0x9000, 0x1000, &g).unwrap_err();
        assert!(
            matches!(
                e,
                FlipError::Unaligned {
                    what: "source address",
                    value: 0x1001,
                    ..
                }
            ),
            "{e}"
        );
        let e = plan(0x1000, 0x9008, 0x1000, &g).unwrap_err();
        assert!(
            matches!(
                e,
                FlipError::Unaligned {
                    what: "destination address",
                    ..
                }
            ),
            "{e}"
        );
        let e = plan(0x1000, 0x9000, 0x1800, &g).unwrap_err();
        assert!(
            matches!(e, FlipError::Unaligned { what: "length", .. }),
            "{e}"
        );
        let e = plan(0x1000, 0x2000, 0x2000, &g).unwrap_err();
        assert!(matches!(e, FlipError::Overlap { .. }), "{e}");
        assert!(e.to_string().contains("overlap"));
        assert!(matches!(
            plan(0x3000, 0x1000, 0x3000, &g),
            Err(FlipError::Overlap { .. })
        ));
        let top = usize::MAX - 0xfff;
        let e = plan(top, 0x1000, 0x2000, &g).unwrap_err();
        assert!(
            matches!(e, FlipError::Overflow { what: "source", .. }),
            "{e}"
        );
        let e = plan(0x1000, top, 0x2000, &g).unwrap_err();
        assert!(
            matches!(
                e,
                FlipError::Overflow {
                    what: "destination",
                    ..
                }
            ),
            "{e}"
        );
    }

    /// The naive answer: the highest level with a whole, mutually aligned entry inside.
    fn best_possible(src: usize, dst: usize, len: usize, g: &Geometry) -> Level {
        Level::ALL
            .into_iter()
            .rev()
            .find(|&l| {
                g.size(l).is_some_and(|s| {
                    src % s == dst % s && (src.next_multiple_of(s) + s <= src + len)
                })
            })
            .unwrap_or(Level::Pte)
    }

    fn geometries() -> impl Strategy<Value = Geometry> {
        prop_oneof![
            Just(Geometry::for_arch(Arch::X86_64, 4 * K).unwrap()),
            Just(Geometry::for_arch(Arch::Aarch64, 16 * K).unwrap()),
            Just(Geometry::for_arch(Arch::Aarch64, 64 * K).unwrap()),
            Just(Geometry::for_arch(Arch::Generic, 4 * K).unwrap()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn plans_tile_exactly_at_valid_and_highest_levels(
            g in geometries(),
            // Addresses built from a PUD-ish multiple plus page offsets, so all levels occur.
            src_hi in 0usize..8, src_mid in 0usize..1100, src_lo in 0usize..600,
            gap_hi in 0usize..8, dst_mid in 0usize..1100, dst_lo in 0usize..600,
            len_units in 1usize..3000, unit_sel in 0usize..3, align_sel in 0usize..3,
        ) {
            let page = g.page;
            let pmd = g.pmd.unwrap_or(page);
            let pud = g.pud.unwrap_or(pmd).min(1 << 44);
            let half_pmd = (pmd / 2).max(page);
            let src = src_hi * pud + src_mid * half_pmd + src_lo * page;
            let unit = [page, pmd / 4, pud / 64][unit_sel].max(page);
            let len = len_units * unit;
            let dst_base = (src + len).next_multiple_of(pud) + gap_hi * pud;
            // A third mutually PUD-aligned, a third mutually PMD-aligned, a third random.
            let (dst_mid, dst_lo) = match align_sel {
                0 => (src_mid, src_lo),
                1 => (dst_mid, src_lo),
                _ => (dst_mid, dst_lo),
            };
            let dst = dst_base + dst_mid * half_pmd + dst_lo * page;
            let p = plan(src, dst, len, &g).unwrap();

            // The parts tile [0, len) exactly, in order.
            let mut at = 0;
            for part in &p.parts {
                prop_assert_eq!(part.offset, at);
                prop_assert!(part.len > 0);
                at += part.len;
                // Each part's level holds for both addresses and covers whole entries.
                let s = g.size(part.level).unwrap();
                prop_assert_eq!((src + part.offset) % s, 0);
                prop_assert_eq!((dst + part.offset) % s, 0);
                prop_assert_eq!(part.len % s, 0);
            }
            prop_assert_eq!(at, len);
            // The body uses the highest possible level.
            prop_assert_eq!(p.body_level(), best_possible(src, dst, len, &g));
            // Levels rise to the body and fall after it.
            let b = p.body_index();
            prop_assert!(p.parts[..b].windows(2).all(|w| w[0].level < w[1].level));
            prop_assert!(p.parts[b..].windows(2).all(|w| w[0].level > w[1].level));
        }
    }
}
