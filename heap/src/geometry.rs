//! The arch shim: page-table geometry for every supported architecture and granule.
//!
//! Owns [`Arch`], [`Level`] and [`Geometry`]. Everything here is a pure function of
//! `(arch, page size)` and is unit-tested for every combination on any host; only
//! [`Geometry::host`] reads the running machine (page size from `sysconf`, arch from `cfg`).
//!
//! A page-table page holds `page / 8` entries (8-byte descriptors on x86_64 and arm64),
//! so one PMD entry maps `page * page / 8` bytes and one PUD entry `pmd * page / 8`.

use crate::error::HeapError;
use std::fmt;

/// The CPU architecture whose page-table layout applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Arch {
    /// x86_64 with 4 KiB pages: PMD 2 MiB, PUD 1 GiB.
    X86_64,
    /// arm64 with a 4 KiB, 16 KiB or 64 KiB translation granule.
    Aarch64,
    /// Any other host: pages only, the kernel is assumed to move nothing larger.
    Generic,
}

impl Arch {
    /// The architecture this crate was compiled for.
    pub const fn host() -> Arch {
        if cfg!(target_arch = "x86_64") {
            Arch::X86_64
        } else if cfg!(target_arch = "aarch64") {
            Arch::Aarch64
        } else {
            Arch::Generic
        }
    }

    /// Lower-case name, as used in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64",
            Arch::Aarch64 => "aarch64",
            Arch::Generic => "generic",
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A page-table level at which the kernel can move memory: one entry of it maps
/// a page (`Pte`), a PMD block (`Pmd`) or a PUD block (`Pud`). Ordered `Pte < Pmd < Pud`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Page-table entry level: one base page per entry.
    Pte,
    /// Page-middle-directory level (2 MiB with 4 KiB pages).
    Pmd,
    /// Page-upper-directory level (1 GiB with 4 KiB pages).
    Pud,
}

impl Level {
    /// All levels, lowest first.
    pub const ALL: [Level; 3] = [Level::Pte, Level::Pmd, Level::Pud];

    /// Lower-case name (`"pte"`, `"pmd"`, `"pud"`), as used in reports and JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Pte => "pte",
            Level::Pmd => "pmd",
            Level::Pud => "pud",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Bytes mapped by one entry at each level. `pmd`/`pud` are `None` where the
/// architecture (or our knowledge of it) offers no such move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Geometry {
    /// The architecture this geometry describes.
    pub arch: Arch,
    /// Base page size in bytes.
    pub page: usize,
    /// Bytes mapped by one PMD entry, if the kernel can move at that level.
    pub pmd: Option<usize>,
    /// Bytes mapped by one PUD entry, if the kernel can move at that level.
    pub pud: Option<usize>,
}

impl Geometry {
    /// The geometry of `arch` with base pages of `page` bytes.
    ///
    /// x86_64 accepts only 4 KiB pages; aarch64 accepts 4, 16 and 64 KiB granules;
    /// `Generic` accepts any power-of-two page of at least 1 KiB and has no PMD/PUD level.
    pub fn for_arch(arch: Arch, page: usize) -> Result<Geometry, HeapError> {
        let bad = |why: &str| HeapError::Invalid {
            what: "page size",
            detail: format!("{page} bytes on {arch}: {why}"),
        };
        let levels = |page: usize| -> Result<(usize, usize), HeapError> {
            let entries = page / 8;
            let pmd = page
                .checked_mul(entries)
                .ok_or_else(|| bad("PMD size overflows"))?;
            let pud = pmd
                .checked_mul(entries)
                .ok_or_else(|| bad("PUD size overflows"))?;
            Ok((pmd, pud))
        };
        match arch {
            Arch::X86_64 if page == 4096 => {
                let (pmd, pud) = levels(page)?;
                Ok(Geometry {
                    arch,
                    page,
                    pmd: Some(pmd),
                    pud: Some(pud),
                })
            }
            Arch::X86_64 => Err(bad("x86_64 uses 4096-byte pages")),
            Arch::Aarch64 if matches!(page, 4096 | 16384 | 65536) => {
                let (pmd, pud) = levels(page)?;
                Ok(Geometry {
                    arch,
                    page,
                    pmd: Some(pmd),
                    pud: Some(pud),
                })
            }
            Arch::Aarch64 => Err(bad("arm64 granules are 4, 16 or 64 KiB")),
            Arch::Generic if page.is_power_of_two() && page >= 1024 => Ok(Geometry {
                arch,
                page,
                pmd: None,
                pud: None,
            }),
            Arch::Generic => Err(bad("a page must be a power of two of at least 1 KiB")),
        }
    }

    /// The running host's geometry: page size from `sysconf(_SC_PAGESIZE)`, arch
    /// from the compile target. An unexpected page size yields the `Generic` geometry.
    pub fn host() -> Geometry {
        let page = crate::sys::page_size();
        Geometry::for_arch(Arch::host(), page).unwrap_or(Geometry {
            arch: Arch::Generic,
            page,
            pmd: None,
            pud: None,
        })
    }

    /// Bytes mapped by one entry at `level`, or `None` if this geometry has no such level.
    pub const fn size(&self, level: Level) -> Option<usize> {
        match level {
            Level::Pte => Some(self.page),
            Level::Pmd => self.pmd,
            Level::Pud => self.pud,
        }
    }

    /// The levels this geometry has, lowest first.
    pub fn levels(&self) -> impl Iterator<Item = Level> + '_ {
        Level::ALL.into_iter().filter(|l| self.size(*l).is_some())
    }

    /// The alignment a space of `len` bytes should be reserved at: PUD if
    /// `len >= pud`, else PMD (the page size on a geometry without those levels).
    pub fn best_alignment(&self, len: usize) -> usize {
        self.size(self.best_level(len)).unwrap_or(self.page)
    }

    /// The level matching [`Geometry::best_alignment`].
    pub fn best_level(&self, len: usize) -> Level {
        match (self.pmd, self.pud) {
            (_, Some(pud)) if len >= pud => Level::Pud,
            (Some(_), _) => Level::Pmd,
            _ => Level::Pte,
        }
    }

    /// The highest level `addr` is aligned to, or `None` if it is not even page-aligned.
    pub fn level_of(&self, addr: usize) -> Option<Level> {
        Level::ALL
            .into_iter()
            .rev()
            .find(|l| self.size(*l).is_some_and(|s| addr % s == 0))
    }
}

impl fmt::Display for Geometry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sz = |v: Option<usize>| v.map_or_else(|| "-".to_string(), crate::fmt_bytes);
        write!(
            f,
            "{} page {} / PMD {} / PUD {}",
            self.arch,
            crate::fmt_bytes(self.page),
            sz(self.pmd),
            sz(self.pud)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: usize = 1024;
    const M: usize = 1024 * K;
    const G: usize = 1024 * M;

    #[test]
    fn every_arch_and_granule() {
        let cases: [(Arch, usize, Option<usize>, Option<usize>); 5] = [
            (Arch::X86_64, 4 * K, Some(2 * M), Some(G)),
            (Arch::Aarch64, 4 * K, Some(2 * M), Some(G)),
            (Arch::Aarch64, 16 * K, Some(32 * M), Some(64 * G)),
            (Arch::Aarch64, 64 * K, Some(512 * M), Some(4096 * G)),
            (Arch::Generic, 8 * K, None, None),
        ];
        for (arch, page, pmd, pud) in cases {
            let g = Geometry::for_arch(arch, page).unwrap();
            assert_eq!((g.page, g.pmd, g.pud), (page, pmd, pud), "{arch} {page}");
        }
    }

    #[test]
    fn bad_page_sizes_are_refused() {
        for (arch, page) in [
            (Arch::X86_64, 16 * K),
            (Arch::X86_64, 0),
            (Arch::Aarch64, 8 * K),
            (Arch::Aarch64, 32 * K),
            (Arch::Generic, 3000),
            (Arch::Generic, 512),
        ] {
            let err = Geometry::for_arch(arch, page).unwrap_err();
            assert!(err.to_string().contains("page size"), "{err}");
        }
    }

    #[test]
    fn best_alignment_per_granule() {
        let x86 = Geometry::for_arch(Arch::X86_64, 4 * K).unwrap();
        assert_eq!(x86.best_alignment(G - 4 * K), 2 * M);
        assert_eq!(x86.best_alignment(G), G);
        assert_eq!(x86.best_alignment(8 * G), G);
        assert_eq!(x86.best_alignment(1), 2 * M);
        assert_eq!(x86.best_level(G), Level::Pud);

        let a16 = Geometry::for_arch(Arch::Aarch64, 16 * K).unwrap();
        assert_eq!(a16.best_alignment(63 * G), 32 * M);
        assert_eq!(a16.best_alignment(64 * G), 64 * G);

        let a64 = Geometry::for_arch(Arch::Aarch64, 64 * K).unwrap();
        assert_eq!(a64.best_alignment(G), 512 * M);
        assert_eq!(a64.best_level(4096 * G), Level::Pud);

        let gen = Geometry::for_arch(Arch::Generic, 4 * K).unwrap();
        assert_eq!(gen.best_alignment(64 * G), 4 * K);
        assert_eq!(gen.best_level(64 * G), Level::Pte);
    }

    #[test]
    fn level_of_addresses() {
        let x86 = Geometry::for_arch(Arch::X86_64, 4 * K).unwrap();
        assert_eq!(x86.level_of(0), Some(Level::Pud));
        assert_eq!(x86.level_of(3 * G), Some(Level::Pud));
        assert_eq!(x86.level_of(G + 2 * M), Some(Level::Pmd));
        assert_eq!(x86.level_of(G + 4 * K), Some(Level::Pte));
        assert_eq!(x86.level_of(G + 8), None);

        let a16 = Geometry::for_arch(Arch::Aarch64, 16 * K).unwrap();
        assert_eq!(a16.level_of(G), Some(Level::Pmd)); // 1 GiB = 32 x 32 MiB
        assert_eq!(a16.level_of(16 * K), Some(Level::Pte));
        assert_eq!(a16.level_of(4 * K), None);

        let gen = Geometry::for_arch(Arch::Generic, 4 * K).unwrap();
        assert_eq!(gen.level_of(G), Some(Level::Pte));
        assert_eq!(gen.levels().collect::<Vec<_>>(), vec![Level::Pte]);
    }

    #[test]
    fn host_geometry_matches_sysconf() {
        let g = Geometry::host();
        assert_eq!(g.page, crate::sys::page_size());
        assert!(g.page.is_power_of_two());
        if cfg!(target_arch = "x86_64") {
            assert_eq!(g.pmd, Some(2 * M));
        }
    }
}
