//! `Capabilities::probe()`: what this host's kernel can do for a moving collector.
//!
//! Every capability is *probed* (a real call on a scratch mapping or descriptor),
//! never guessed from the kernel version. Probed once and cached.

use crate::geometry::Geometry;
use std::fmt;
use std::sync::OnceLock;

/// userfaultfd feature bits (`UFFD_FEATURE_*`, linux/userfaultfd.h) by name.
pub const UFFD_FEATURES: [(&str, u64); 17] = [
    ("PAGEFAULT_FLAG_WP", 1 << 0),
    ("EVENT_FORK", 1 << 1),
    ("EVENT_REMAP", 1 << 2),
    ("EVENT_REMOVE", 1 << 3),
    ("MISSING_HUGETLBFS", 1 << 4),
    ("MISSING_SHMEM", 1 << 5),
    ("EVENT_UNMAP", 1 << 6),
    ("SIGBUS", 1 << 7),
    ("THREAD_ID", 1 << 8),
    ("MINOR_HUGETLBFS", 1 << 9),
    ("MINOR_SHMEM", 1 << 10),
    ("EXACT_ADDRESS", 1 << 11),
    ("WP_HUGETLBFS_SHMEM", 1 << 12),
    ("WP_UNPOPULATED", 1 << 13),
    ("POISON", 1 << 14),
    ("WP_ASYNC", 1 << 15),
    ("MOVE", 1 << 16),
];

/// The system-wide transparent-huge-page mode (`/sys/kernel/mm/transparent_hugepage/enabled`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ThpMode {
    /// Every anonymous mapping may get huge pages.
    Always,
    /// Only ranges advised with `MADV_HUGEPAGE`.
    Madvise,
    /// Never.
    Never,
    /// The sysfs file is missing or unreadable.
    Unknown,
}

/// How userfaultfd was opened, if at all.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Userfaultfd {
    /// `"syscall"`, `"/dev/userfaultfd"`, or `None` if it could not be opened.
    pub opened_via: Option<&'static str>,
    /// Why it could not be opened (errors from both routes), when it could not.
    pub error: Option<String>,
    /// Feature bits the kernel reported in the `UFFDIO_API` handshake.
    pub features: u64,
}

impl Userfaultfd {
    /// Whether a descriptor could be opened and the API handshake succeeded.
    pub fn available(&self) -> bool {
        self.opened_via.is_some()
    }

    /// Whether the kernel reported `feature` (a name from [`UFFD_FEATURES`]).
    pub fn has(&self, feature: &str) -> bool {
        UFFD_FEATURES
            .iter()
            .any(|&(n, bit)| n == feature && self.features & bit != 0)
    }

    /// Names of the reported features.
    pub fn feature_names(&self) -> Vec<&'static str> {
        UFFD_FEATURES
            .iter()
            .filter(|(_, b)| self.features & b != 0)
            .map(|(n, _)| *n)
            .collect()
    }
}

/// What the running host offers. Obtain with [`Capabilities::probe`].
#[derive(Clone, Debug, serde::Serialize)]
#[non_exhaustive]
pub struct Capabilities {
    /// `uname -s -r`, e.g. `"Linux 6.18.0"`.
    pub kernel: String,
    /// Page-table geometry (arch shim).
    #[serde(serialize_with = "ser_geometry")]
    pub geometry: Geometry,
    /// System THP mode.
    pub thp: ThpMode,
    /// Whether `mremap(MAYMOVE|FIXED)` moved a probe page.
    pub mremap: bool,
    /// Whether `mremap(...|MREMAP_DONTUNMAP)` moved a probe page and kept the source mapped.
    pub mremap_dontunmap: bool,
    /// Whether `MADV_POPULATE_WRITE` is accepted.
    pub populate_write: bool,
    /// userfaultfd availability and features.
    pub userfaultfd: Userfaultfd,
}

fn ser_geometry<S: serde::Serializer>(g: &Geometry, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut st = s.serialize_struct("Geometry", 4)?;
    st.serialize_field("arch", g.arch.name())?;
    st.serialize_field("page", &g.page)?;
    st.serialize_field("pmd", &g.pmd)?;
    st.serialize_field("pud", &g.pud)?;
    st.end()
}

impl Capabilities {
    /// The host's capabilities, probed on first call and cached for the process.
    pub fn probe() -> &'static Capabilities {
        static CAPS: OnceLock<Capabilities> = OnceLock::new();
        CAPS.get_or_init(Capabilities::probe_uncached)
    }

    /// Probes again, without the cache.
    pub fn probe_uncached() -> Capabilities {
        Capabilities {
            kernel: kernel_release(),
            geometry: Geometry::host(),
            thp: thp_mode(),
            mremap: probe_mremap(false),
            mremap_dontunmap: probe_mremap(true),
            populate_write: probe_populate(),
            userfaultfd: probe_userfaultfd(),
        }
    }
}

impl fmt::Display for Capabilities {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let yn = |b: bool| if b { "yes" } else { "no" };
        writeln!(f, "kernel            {}", self.kernel)?;
        writeln!(f, "geometry          {}", self.geometry)?;
        let thp = match self.thp {
            ThpMode::Always => "always",
            ThpMode::Madvise => "madvise",
            ThpMode::Never => "never",
            ThpMode::Unknown => "unknown",
        };
        writeln!(f, "THP mode          {thp}")?;
        writeln!(f, "mremap            {}", yn(self.mremap))?;
        writeln!(f, "MREMAP_DONTUNMAP  {}", yn(self.mremap_dontunmap))?;
        writeln!(f, "POPULATE_WRITE    {}", yn(self.populate_write))?;
        let u = &self.userfaultfd;
        match (u.opened_via, &u.error) {
            (Some(via), _) => writeln!(
                f,
                "userfaultfd       yes (via {via}): {}",
                u.feature_names().join(" ")
            ),
            (None, Some(e)) => writeln!(f, "userfaultfd       no: {e}"),
            (None, None) => writeln!(f, "userfaultfd       no"),
        }
    }
}

fn kernel_release() -> String {
    match nix::sys::utsname::uname() {
        Ok(u) => format!(
            "{} {}",
            u.sysname().to_string_lossy(),
            u.release().to_string_lossy()
        ),
        Err(_) => "unknown".into(),
    }
}

/// Parses the bracketed word of a sysfs THP file (`always [madvise] never`).
pub(crate) fn parse_thp_mode(text: &str) -> ThpMode {
    let chosen = text
        .split_whitespace()
        .find(|w| w.starts_with('[') && w.ends_with(']'));
    match chosen {
        Some("[always]") => ThpMode::Always,
        Some("[madvise]") => ThpMode::Madvise,
        Some("[never]") => ThpMode::Never,
        _ => ThpMode::Unknown,
    }
}

fn thp_mode() -> ThpMode {
    std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .map(|t| parse_thp_mode(&t))
        .unwrap_or(ThpMode::Unknown)
}

/// Moves one written page between two scratch pages of the kernel's choosing and
/// checks where the byte went. The pages belong to no reservation, so the hole a
/// plain move leaves at the source is nobody's.
fn probe_mremap(dontunmap: bool) -> bool {
    #[cfg(target_os = "linux")]
    {
        let page = crate::sys::page_size();
        let (Ok(mut src), Ok(dst)) = (
            memmap2::MmapMut::map_anon(page),
            memmap2::MmapMut::map_anon(page),
        ) else {
            return false;
        };
        src[7] = 0x5a;
        let (src_p, dst_p) = (src.as_mut_ptr(), dst.as_ptr());
        // SAFETY: both pages are ours alone, distinct, and not borrowed during the call.
        let moved =
            unsafe { crate::sys::mremap_fixed(src_p as usize, dst_p as usize, page, dontunmap) }
                .is_ok();
        // Volatile reads: the kernel changed these bytes behind the mappings' backs.
        // SAFETY: `dst` is mapped (moved into, or untouched on failure).
        let arrived = moved && unsafe { dst_p.add(7).read_volatile() } == 0x5a;
        // SAFETY: with DONTUNMAP or after a failure the source page is still mapped.
        let emptied = !dontunmap || !moved || unsafe { src_p.add(7).read_volatile() } == 0;
        if moved && !dontunmap {
            // The kernel unmapped the source page: it is no longer ours to unmap.
            std::mem::forget(src);
        }
        arrived && emptied
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = dontunmap;
        false
    }
}

/// `MADV_POPULATE_WRITE` on a scratch page of the kernel's choosing.
fn probe_populate() -> bool {
    #[cfg(target_os = "linux")]
    {
        memmap2::MmapMut::map_anon(crate::sys::page_size())
            .is_ok_and(|m| m.advise(memmap2::Advice::PopulateWrite).is_ok())
    }
    #[cfg(not(target_os = "linux"))]
    false
}

#[cfg(target_os = "linux")]
fn probe_userfaultfd() -> Userfaultfd {
    use nix::fcntl::OFlag;
    let (fd, via) = match crate::uffd::open_fd(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK) {
        Ok(x) => x,
        Err(errors) => {
            return Userfaultfd {
                opened_via: None,
                error: Some(errors.join("; ")),
                features: 0,
            }
        }
    };
    match crate::uffd::handshake(&fd, 0) {
        Ok(features) => Userfaultfd {
            opened_via: Some(via),
            error: None,
            features,
        },
        Err(e) => Userfaultfd {
            opened_via: None,
            error: Some(format!("UFFDIO_API: {}", std::io::Error::from(e))),
            features: 0,
        },
    }
}

#[cfg(not(target_os = "linux"))]
fn probe_userfaultfd() -> Userfaultfd {
    Userfaultfd {
        opened_via: None,
        error: Some("not Linux".into()),
        features: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thp_mode_parsing() {
        assert_eq!(parse_thp_mode("always [madvise] never\n"), ThpMode::Madvise);
        assert_eq!(parse_thp_mode("[always] madvise never"), ThpMode::Always);
        assert_eq!(parse_thp_mode("always madvise [never]"), ThpMode::Never);
        assert_eq!(parse_thp_mode("garbage"), ThpMode::Unknown);
    }

    #[test]
    fn feature_names_follow_bits() {
        let u = Userfaultfd {
            opened_via: Some("syscall"),
            error: None,
            features: (1 << 7) | (1 << 16),
        };
        assert_eq!(u.feature_names(), vec!["SIGBUS", "MOVE"]);
        assert!(u.has("MOVE") && !u.has("POISON") && !u.has("NOPE"));
    }

    #[test]
    fn probe_is_cached_and_printable() {
        let a = Capabilities::probe();
        assert!(std::ptr::eq(a, Capabilities::probe()));
        let text = a.to_string();
        assert!(
            text.contains("MREMAP_DONTUNMAP") && text.contains("userfaultfd"),
            "{text}"
        );
        let json = serde_json::to_value(a).unwrap();
        assert_eq!(json["geometry"]["page"], a.geometry.page);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn linux_moves_pages() {
        // mremap has existed since Linux 2.4; DONTUNMAP since 5.7. A failure here means
        // the probe itself is broken, not the kernel.
        let caps = Capabilities::probe();
        assert!(caps.mremap, "{caps}");
        assert!(caps.kernel.starts_with("Linux"), "{}", caps.kernel);
    }
}
