//! Where a benchmark puts its two spans so each [`Mode`] flips at the intended
//! page-table level. Owns [`Mode`], [`Backing`], [`Placement`] (pure address
//! arithmetic, unit-tested against the planner) and [`Pair`] (the two live spans).
//!
//! Both spans live in their own reservation of `len + align` bytes, aligned to
//! `align` (one PUD where the geometry has one), so the destination can sit at
//! any offset below `align` that the mode needs.

use flipgc_flip::StrategyChoice;
use flipgc_heap::{Geometry, HeapError, Level, Reservation, Span, Thp};

/// What a run measures: a move at one page-table level, or a forced copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Mode {
    /// Page-aligned and mutually misaligned at PMD level: the kernel moves PTEs.
    Pte,
    /// Both PMD-aligned but mutually PUD-misaligned: the kernel moves PMD entries.
    Pmd,
    /// Both PUD-aligned: the kernel moves PUD entries.
    Pud,
    /// Placed like `pud`, but the engine is forced to copy ([`StrategyChoice::Copy`]).
    Copy,
}

impl Mode {
    /// Every mode, in the default run order.
    pub const ALL: [Mode; 4] = [Mode::Pte, Mode::Pmd, Mode::Pud, Mode::Copy];

    /// `"pte"`, `"pmd"`, `"pud"` or `"copy"`, as printed and written to JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Mode::Pte => "pte",
            Mode::Pmd => "pmd",
            Mode::Pud => "pud",
            Mode::Copy => "copy",
        }
    }

    /// The level the placement is meant to give the plan's body (`None` for copy,
    /// whose placement is `pud`'s but whose bytes are copied).
    pub const fn intended_level(self) -> Option<Level> {
        match self {
            Mode::Pte => Some(Level::Pte),
            Mode::Pmd => Some(Level::Pmd),
            Mode::Pud => Some(Level::Pud),
            Mode::Copy => None,
        }
    }

    /// The engine strategy for this mode. Move modes ask for `mremap` explicitly,
    /// so a host that cannot move reports a fallback instead of copying silently.
    pub const fn strategy(self) -> StrategyChoice {
        match self {
            Mode::Copy => StrategyChoice::Copy,
            _ => StrategyChoice::Mremap,
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which pages back the spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backing {
    /// Base pages only: `MADV_NOHUGEPAGE`, even if the system THP mode is `always`.
    FourK,
    /// Transparent huge pages: `MADV_HUGEPAGE`.
    Thp,
}

impl Backing {
    /// `"4k"` or `"thp"`, as printed and written to JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Backing::FourK => "4k",
            Backing::Thp => "thp",
        }
    }

    /// The THP advice applied to both spans before they are populated.
    pub const fn thp(self) -> Thp {
        match self {
            Backing::FourK => Thp::NoHuge,
            Backing::Thp => Thp::Huge,
        }
    }
}

impl std::fmt::Display for Backing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a mode's spans go: each in its own reservation of `reservation_len`
/// bytes aligned to `align`, at `src_offset` and `dst_offset` from the bases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Alignment of both reservations: the PUD size, else the PMD size, else a page.
    pub align: usize,
    /// Length of each reservation: the flip length plus `align`.
    pub reservation_len: usize,
    /// Offset of the source span in its reservation (always 0).
    pub src_offset: usize,
    /// Offset of the destination span in its reservation.
    pub dst_offset: usize,
}

/// The placement of a `len`-byte flip in `mode` under `geometry`, or why the
/// mode cannot run on this geometry (it lacks the level) or with this length.
pub fn placement(mode: Mode, len: usize, geometry: &Geometry) -> Result<Placement, String> {
    let page = geometry.page;
    if len == 0 || len % page != 0 {
        return Err(format!(
            "length {len} is not a non-zero multiple of the {page}-byte page"
        ));
    }
    let align = geometry.pud.or(geometry.pmd).unwrap_or(page);
    let dst_offset = match mode {
        Mode::Pud => geometry
            .pud
            .map(|_| 0)
            .ok_or_else(|| format!("the {} geometry has no PUD level", geometry.arch))?,
        // One PMD past a PUD boundary: PMD-aligned, mutually PUD-misaligned.
        Mode::Pmd => geometry
            .pmd
            .ok_or_else(|| format!("the {} geometry has no PMD level", geometry.arch))?,
        // One page past a PMD boundary: mutually misaligned at PMD level, so the
        // kernel cannot move (or realign to) whole PMDs anywhere in the range.
        Mode::Pte => page,
        Mode::Copy => 0,
    };
    let reservation_len = len
        .checked_add(align)
        .ok_or_else(|| format!("length {len} plus alignment {align} overflows"))?;
    Ok(Placement {
        align,
        reservation_len,
        src_offset: 0,
        dst_offset,
    })
}

/// The two live spans of a run, committed where [`placement`] says, with the
/// backing's THP advice applied and nothing populated yet. Dropping the pair
/// frees the spans' memory and, with their last handles, both reservations.
#[derive(Debug)]
pub struct Pair {
    /// The source span (offset 0 of the first reservation).
    pub src: Span,
    /// The destination span (the mode's offset in the second reservation).
    pub dst: Span,
}

impl Pair {
    /// Reserves, commits and advises the two spans of a `len`-byte run.
    pub fn new(
        mode: Mode,
        backing: Backing,
        len: usize,
        geometry: &Geometry,
    ) -> Result<Pair, HeapError> {
        let p = placement(mode, len, geometry).map_err(|detail| HeapError::Invalid {
            what: "placement",
            detail,
        })?;
        // The spans keep their reservations alive; the handles can go.
        let src_res = Reservation::new(p.reservation_len, p.align)?;
        let dst_res = Reservation::new(p.reservation_len, p.align)?;
        let mut src = src_res.commit(p.src_offset, len)?;
        let mut dst = dst_res.commit(p.dst_offset, len)?;
        src.set_thp(backing.thp())?;
        dst.set_thp(backing.thp())?;
        Ok(Pair { src, dst })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flipgc_flip::plan;
    use flipgc_heap::Arch;

    const K: usize = 1024;
    const M: usize = 1024 * K;
    const G: usize = 1024 * M;

    fn x86() -> Geometry {
        Geometry::for_arch(Arch::X86_64, 4 * K).unwrap()
    }

    /// The plan's parts as `(level, bytes)` for `mode`, with both reservations at
    /// (different) `align`-aligned bases, as `Reservation::new` gives them.
    fn planned(mode: Mode, len: usize, g: &Geometry) -> Vec<(Level, usize)> {
        let p = placement(mode, len, g).unwrap();
        assert!(
            p.dst_offset + len <= p.reservation_len,
            "{mode}: dst overruns"
        );
        assert!(
            p.src_offset + len <= p.reservation_len,
            "{mode}: src overruns"
        );
        let base_a = 1usize << 44;
        let base_b = base_a + p.reservation_len.next_multiple_of(p.align) + 3 * p.align;
        let fp = plan(base_a + p.src_offset, base_b + p.dst_offset, len, g).unwrap();
        fp.parts.iter().map(|x| (x.level, x.len)).collect()
    }

    #[test]
    fn x86_offsets_give_the_intended_level_for_the_whole_range() {
        let g = x86();
        for len in [G, 4 * G] {
            assert_eq!(planned(Mode::Pud, len, &g), vec![(Level::Pud, len)]);
            assert_eq!(planned(Mode::Copy, len, &g), vec![(Level::Pud, len)]);
            assert_eq!(planned(Mode::Pmd, len, &g), vec![(Level::Pmd, len)]);
            assert_eq!(planned(Mode::Pte, len, &g), vec![(Level::Pte, len)]);
        }
        for len in [2 * M, 64 * M, 256 * M] {
            assert_eq!(planned(Mode::Pmd, len, &g), vec![(Level::Pmd, len)]);
            assert_eq!(planned(Mode::Pte, len, &g), vec![(Level::Pte, len)]);
            // Below one PUD the pud placement can only reach PMD level.
            assert_eq!(planned(Mode::Pud, len, &g), vec![(Level::Pmd, len)]);
        }
    }

    #[test]
    fn x86_offsets_and_alignment() {
        let g = x86();
        let at = |m| placement(m, G, &g).unwrap();
        assert_eq!(at(Mode::Pud).dst_offset, 0);
        assert_eq!(at(Mode::Copy).dst_offset, 0);
        assert_eq!(at(Mode::Pmd).dst_offset, 2 * M);
        assert_eq!(at(Mode::Pte).dst_offset, 4 * K);
        assert_eq!(at(Mode::Pte).align, G);
        assert_eq!(at(Mode::Pte).reservation_len, 2 * G);
    }

    #[test]
    fn other_granules_and_missing_levels() {
        let a16 = Geometry::for_arch(Arch::Aarch64, 16 * K).unwrap();
        assert_eq!(planned(Mode::Pmd, G, &a16), vec![(Level::Pmd, G)]);
        assert_eq!(planned(Mode::Pte, G, &a16), vec![(Level::Pte, G)]);
        assert_eq!(placement(Mode::Pmd, G, &a16).unwrap().dst_offset, 32 * M);

        let generic = Geometry::for_arch(Arch::Generic, 4 * K).unwrap();
        let why = placement(Mode::Pud, G, &generic).unwrap_err();
        assert!(why.contains("no PUD level"), "{why}");
        let why = placement(Mode::Pmd, G, &generic).unwrap_err();
        assert!(why.contains("no PMD level"), "{why}");
        assert_eq!(planned(Mode::Pte, G, &generic), vec![(Level::Pte, G)]);
        assert_eq!(planned(Mode::Copy, G, &generic), vec![(Level::Pte, G)]);
    }

    #[test]
    fn bad_lengths_are_refused() {
        assert!(placement(Mode::Pte, 0, &x86()).is_err());
        assert!(placement(Mode::Pte, 4 * K + 1, &x86()).is_err());
        assert!(placement(Mode::Pte, usize::MAX - 4095, &x86()).is_err());
    }

    #[test]
    fn names_and_strategies() {
        let names: Vec<_> = Mode::ALL.iter().map(|m| m.name()).collect();
        assert_eq!(names, ["pte", "pmd", "pud", "copy"]);
        assert_eq!(Mode::Copy.strategy(), StrategyChoice::Copy);
        assert_eq!(Mode::Pte.strategy(), StrategyChoice::Mremap);
        assert_eq!(Backing::FourK.thp(), Thp::NoHuge);
        assert_eq!(Backing::Thp.to_string(), "thp");
    }

    #[test]
    fn pairs_are_placed_as_planned() {
        let g = Geometry::host();
        let len = 4 * g.pmd.unwrap_or(g.page);
        for mode in Mode::ALL {
            let Ok(p) = placement(mode, len, &g) else {
                continue;
            };
            let pair = Pair::new(mode, Backing::FourK, len, &g).unwrap();
            assert_eq!(pair.src.addr() % p.align, 0, "{mode}");
            assert_eq!(pair.dst.addr() % p.align, p.dst_offset, "{mode}");
            assert_eq!(pair.src.thp(), Thp::NoHuge);
        }
    }
}
