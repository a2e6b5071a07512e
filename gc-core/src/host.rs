//! What the host lets a heap do, decided and said once, at construction: the mode
//! the heap runs in ([`HostMode`]: compaction concurrent or inside the flip pause,
//! who fills the pages mutators fault on, how and at which page-table level a flip
//! moves the heap), each host feature that is missing with why and how to get it
//! ([`Missing`]), and the embedder's demands ([`Requirement`], through
//! [`HeapConfig::require`](crate::HeapConfig::require)), which turn a fallback
//! into an `Err` instead.
//!
//! `Heap::new` logs the mode as a `gc,init` line of the GC log and as a `tracing`
//! event (info), and each missing feature as another `gc,init` line and a
//! `tracing` warning; [`Heap::host_mode`](crate::Heap::host_mode) returns it.

use crate::config::{FaultMode, FlipMode, HeapConfig};
use flipgc_heap::{Capabilities, Geometry, Level, ThpMode};

/// How a heap runs on this host ([`Heap::host_mode`](crate::Heap::host_mode)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HostMode {
    /// Whether collections compact concurrently, through userfaultfd, after a short
    /// flip pause; `false`: inside the flip pause (pauses then grow with the live
    /// heap).
    pub concurrent_compaction: bool,
    /// Who fills a page a mutator touches during concurrent compaction.
    pub fault_mode: FaultMode,
    /// How a flip moves the heap: `"mremap+dontunmap"`, `"mremap"` or `"copy"`.
    pub flip_strategy: &'static str,
    /// The highest page-table level a flip can move the whole heap at (its
    /// reservation's alignment, and the from-space's); `None` for copying flips.
    pub flip_level: Option<Level>,
    /// Host features the heap does without, each with what it costs and how to get
    /// it. Empty on a host that has everything.
    pub missing: Vec<Missing>,
}

/// A host feature a heap does without.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Missing {
    /// The feature: `"userfaultfd"`, `"userfaultfd SIGBUS"`, `"mremap"`,
    /// `"MREMAP_DONTUNMAP"`, `"PUD alignment"` or `"transparent huge pages"`.
    pub feature: &'static str,
    /// Why it is missing (the error the probe met, or what was found).
    pub why: String,
    /// What the heap does instead, and what that costs.
    pub effect: &'static str,
    /// How to get it.
    pub remedy: &'static str,
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}; {}; to get it: {}",
            self.feature, self.why, self.effect, self.remedy
        )
    }
}

impl std::fmt::Display for HostMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let compaction = if !self.concurrent_compaction {
            "in-pause"
        } else if self.fault_mode == FaultMode::Sigbus {
            "concurrent(sigbus)"
        } else {
            "concurrent(server)"
        };
        let level = self.flip_level.map_or("copy", Level::name);
        write!(
            f,
            "mode compaction={compaction} flip={} level={level} missing={}",
            self.flip_strategy,
            self.missing.len()
        )
    }
}

/// What an embedder can demand of the host ([`HeapConfig::require`](crate::HeapConfig::require)):
/// `Heap::new` then returns [`GcErrorKind::Unsupported`](crate::GcErrorKind::Unsupported)
/// instead of falling back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Requirement {
    /// Collections must compact concurrently (userfaultfd), not inside the pause.
    ConcurrentCompaction,
    /// Flips must move the heap with `mremap` at this page-table level or higher.
    MinFlipLevel(Level),
}

/// Decides the mode from the probed capabilities, the configuration and the
/// reservations' addresses (`heap_base`, `from_base`, `len` bytes each), given
/// whether userfaultfd could be opened for this heap (`concurrent`, and the error
/// otherwise) and the fault mode resolved for it. Pure: tested with made-up
/// capabilities.
pub(crate) fn decide(
    caps: &Capabilities,
    config: &HeapConfig,
    (heap_base, from_base, len): (usize, usize, usize),
    concurrent: bool,
    fault_mode: FaultMode,
) -> HostMode {
    let mut missing = Vec::new();
    let wants_concurrent = config.concurrent_compaction && config.flip != FlipMode::Copy;
    if wants_concurrent && !concurrent {
        let why = caps
            .userfaultfd
            .error
            .clone()
            .unwrap_or_else(|| "it could not be opened for this heap".into());
        missing.push(Missing {
            feature: "userfaultfd",
            remedy: userfaultfd_remedy(&why),
            why,
            effect: "collections compact inside the flip pause, so pauses grow with the \
                     live heap",
        });
    }
    if concurrent && fault_mode == FaultMode::Server && config.fault_mode == FaultMode::Auto {
        let why = if caps.userfaultfd.has("SIGBUS") {
            "the SIGBUS handler could not be installed or the heap table is full".to_string()
        } else {
            "this kernel's userfaultfd lacks UFFD_FEATURE_SIGBUS".to_string()
        };
        missing.push(Missing {
            feature: "userfaultfd SIGBUS",
            why,
            effect: "a fault-serving thread fills the pages mutators touch during \
                     compaction (a wake-up more per fault stall)",
            remedy: "Linux 4.14 or newer, and no other SIGBUS handler installed before \
                     the heap (flipgc chains to one installed after it)",
        });
    }
    let (flip_strategy, flip_level) = if config.flip == FlipMode::Copy {
        ("copy", None)
    } else if !caps.mremap {
        missing.push(Missing {
            feature: "mremap",
            why: "mremap(MREMAP_MAYMOVE|MREMAP_FIXED) did not move a probe page".into(),
            effect: "flips copy the heap inside the pause",
            remedy: "Linux",
        });
        ("copy", None)
    } else {
        if !caps.mremap_dontunmap {
            missing.push(Missing {
                feature: "MREMAP_DONTUNMAP",
                why: "mremap refused MREMAP_DONTUNMAP on a probe page".into(),
                effect: "each flip maps the emptied heap again (one more system call in \
                         the flip pause)",
                remedy: "Linux 5.13 or newer",
            });
        }
        let mut level = whole_heap_level(&caps.geometry, heap_base, from_base, len);
        if let FlipMode::Level(forced) = config.flip {
            level = level.map(|l| l.min(forced));
        }
        if let (Some(pud), Some(got)) = (caps.geometry.size(Level::Pud), level) {
            if len >= pud && got < Level::Pud {
                missing.push(Missing {
                    feature: "PUD alignment",
                    why: format!(
                        "the heap's reservations are {}-aligned",
                        got.name().to_uppercase()
                    ),
                    effect: "flips move the heap one level lower (more page-table entries \
                             to move and flush in the pause)",
                    remedy: "create the heap early, before the address space fragments",
                });
            }
        }
        (
            if caps.mremap_dontunmap {
                "mremap+dontunmap"
            } else {
                "mremap"
            },
            level,
        )
    };
    if config.thp && caps.thp == ThpMode::Never {
        missing.push(Missing {
            feature: "transparent huge pages",
            why: "/sys/kernel/mm/transparent_hugepage/enabled is 'never'".into(),
            effect: "the heap is backed by base pages (more page faults and TLB misses)",
            remedy: "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled",
        });
    }
    HostMode {
        concurrent_compaction: concurrent && config.concurrent_marking,
        fault_mode,
        flip_strategy,
        flip_level,
        missing,
    }
}

/// The highest level both reservations are aligned to, no higher than a span of
/// `len` bytes can use.
fn whole_heap_level(g: &Geometry, heap_base: usize, from_base: usize, len: usize) -> Option<Level> {
    let aligned = g.level_of(heap_base)?.min(g.level_of(from_base)?);
    g.levels()
        .filter(|l| *l <= aligned && g.size(*l).is_some_and(|s| s <= len))
        .max()
}

/// How to get userfaultfd, from the probe's error.
fn userfaultfd_remedy(why: &str) -> &'static str {
    if why.contains("not Linux") {
        "Linux"
    } else if why.contains("Function not implemented") {
        "a kernel built with CONFIG_USERFAULTFD"
    } else {
        "set vm.unprivileged_userfaultfd=1, or run with CAP_SYS_PTRACE, or give the \
         process read-write access to /dev/userfaultfd (Linux 6.1+); in a container, \
         also allow the userfaultfd system call in its seccomp profile"
    }
}

/// The first of `required` that `mode` does not meet, as the error's text.
pub(crate) fn unmet(mode: &HostMode, required: &[Requirement]) -> Option<String> {
    let missing = |feature: &str| {
        mode.missing
            .iter()
            .find(|m| m.feature == feature)
            .map_or(String::new(), |m| format!(" ({m})"))
    };
    required.iter().find_map(|r| match *r {
        Requirement::ConcurrentCompaction if !mode.concurrent_compaction => Some(format!(
            "concurrent compaction was required, but collections would compact inside \
             the pause{}",
            missing("userfaultfd")
        )),
        Requirement::MinFlipLevel(want) if mode.flip_level.is_none_or(|l| l < want) => {
            Some(format!(
                "flips at {} level or higher were required, but they would {}{}{}",
                want.name().to_uppercase(),
                match mode.flip_level {
                    Some(l) => format!("move at {} level", l.name().to_uppercase()),
                    None => "copy the heap".to_string(),
                },
                missing("PUD alignment"),
                missing("mremap"),
            ))
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: usize = 1 << 30;

    fn caps() -> Capabilities {
        let mut c = Capabilities::probe().clone();
        c.geometry = Geometry::for_arch(flipgc_heap::Arch::X86_64, 4096).unwrap();
        c.mremap = true;
        c.mremap_dontunmap = true;
        c.thp = ThpMode::Madvise;
        c.userfaultfd.opened_via = Some("syscall");
        c.userfaultfd.error = None;
        c.userfaultfd.features = 1 << 7; // SIGBUS
        c
    }

    #[test]
    fn a_full_host_misses_nothing() {
        let cfg = HeapConfig::new(4 * GIB);
        let m = decide(
            &caps(),
            &cfg,
            (GIB, 8 * GIB, 4 * GIB),
            true,
            FaultMode::Sigbus,
        );
        assert_eq!(m.missing, []);
        assert_eq!(m.flip_level, Some(Level::Pud));
        assert_eq!(
            m.to_string(),
            "mode compaction=concurrent(sigbus) flip=mremap+dontunmap level=pud missing=0"
        );
        assert_eq!(unmet(&m, &[Requirement::ConcurrentCompaction]), None);
        assert_eq!(unmet(&m, &[Requirement::MinFlipLevel(Level::Pud)]), None);
    }

    #[test]
    fn each_missing_feature_says_why_and_how() {
        let mut c = caps();
        c.userfaultfd.opened_via = None;
        c.userfaultfd.features = 0;
        c.userfaultfd.error = Some(
            "syscall: Operation not permitted (os error 1); /dev/userfaultfd: open: \
             Permission denied (os error 13)"
                .into(),
        );
        c.mremap_dontunmap = false;
        c.thp = ThpMode::Never;
        let cfg = HeapConfig::new(4 * GIB);
        // Reservations only PMD-aligned.
        let m = decide(
            &c,
            &cfg,
            (GIB + (2 << 20), 8 * GIB, 4 * GIB),
            false,
            FaultMode::Server,
        );
        let features: Vec<&str> = m.missing.iter().map(|m| m.feature).collect();
        assert_eq!(
            features,
            [
                "userfaultfd",
                "MREMAP_DONTUNMAP",
                "PUD alignment",
                "transparent huge pages"
            ]
        );
        let uffd = m.missing[0].to_string();
        assert!(
            uffd.contains("Operation not permitted")
                && uffd.contains("vm.unprivileged_userfaultfd=1")
                && uffd.contains("inside the flip pause"),
            "{uffd}"
        );
        assert_eq!(m.flip_level, Some(Level::Pmd));
        assert!(!m.concurrent_compaction);
        let e = unmet(&m, &[Requirement::ConcurrentCompaction]).unwrap();
        assert!(e.contains("vm.unprivileged_userfaultfd"), "{e}");
        let e = unmet(&m, &[Requirement::MinFlipLevel(Level::Pud)]).unwrap();
        assert!(e.contains("move at PMD level"), "{e}");
        assert_eq!(unmet(&m, &[Requirement::MinFlipLevel(Level::Pmd)]), None);
    }

    #[test]
    fn chosen_fallbacks_are_not_missing_features() {
        // Copying flips and a forced fault server are the embedder's choice.
        let mut cfg = HeapConfig::new(GIB);
        cfg.flip = FlipMode::Copy;
        let m = decide(&caps(), &cfg, (GIB, 4 * GIB, GIB), false, FaultMode::Server);
        assert_eq!(
            (m.missing.len(), m.flip_strategy, m.flip_level),
            (0, "copy", None)
        );
        assert!(unmet(&m, &[Requirement::MinFlipLevel(Level::Pte)]).is_some());
        let mut cfg = HeapConfig::new(GIB);
        cfg.fault_mode = FaultMode::Server;
        let m = decide(&caps(), &cfg, (GIB, 4 * GIB, GIB), true, FaultMode::Server);
        assert_eq!(m.missing, []);
        // A heap smaller than a PUD block needs no PUD alignment.
        let cfg = HeapConfig::new(256 << 20);
        let m = decide(
            &caps(),
            &cfg,
            (2 << 20, 4 << 20, 256 << 20),
            true,
            FaultMode::Sigbus,
        );
        assert_eq!((m.missing.len(), m.flip_level), (0, Some(Level::Pmd)));
    }
}
