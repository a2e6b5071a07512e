//! Integration tests for `Capabilities::probe`.

use flipgc_heap::{Capabilities, Geometry, ThpMode, Userfaultfd, UFFD_FEATURES};

#[test]
fn probe_is_internally_consistent() {
    let caps = Capabilities::probe();
    let u = &caps.userfaultfd;

    // feature_names() lists exactly the features has() reports, in table order.
    let names = u.feature_names();
    let by_has: Vec<&str> = UFFD_FEATURES
        .iter()
        .map(|&(n, _)| n)
        .filter(|n| u.has(n))
        .collect();
    assert_eq!(names, by_has);
    let bits: u64 = UFFD_FEATURES
        .iter()
        .filter(|(n, _)| names.contains(n))
        .map(|&(_, b)| b)
        .sum();
    let known: u64 = UFFD_FEATURES.iter().map(|&(_, b)| b).sum();
    assert_eq!(bits, u.features & known, "{u:?}");
    assert!(!u.has("NOT_A_FEATURE"));

    // Availability and error are exclusive; no features without a descriptor.
    assert_eq!(u.available(), u.opened_via.is_some());
    assert_eq!(u.available(), u.error.is_none(), "{u:?}");
    if !u.available() {
        assert_eq!(u.features, 0, "{u:?}");
    }
    if let Some(via) = u.opened_via {
        assert!(matches!(via, "syscall" | "/dev/userfaultfd"), "{via}");
    }

    // DONTUNMAP implies plain mremap; the geometry is the host's.
    assert!(!caps.mremap_dontunmap || caps.mremap, "{caps}");
    assert_eq!(caps.geometry, Geometry::host());

    // THP mode agrees with sysfs.
    let sysfs = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled");
    let want = match sysfs.as_deref().ok().and_then(|t| {
        t.split_whitespace()
            .find(|w| w.starts_with('[') && w.ends_with(']'))
    }) {
        Some("[always]") => ThpMode::Always,
        Some("[madvise]") => ThpMode::Madvise,
        Some("[never]") => ThpMode::Never,
        _ => ThpMode::Unknown,
    };
    assert_eq!(caps.thp, want);

    // The uncached probe sees the same host.
    let again = Capabilities::probe_uncached();
    assert_eq!(again.kernel, caps.kernel);
    assert_eq!(
        (again.mremap, again.mremap_dontunmap, again.populate_write),
        (caps.mremap, caps.mremap_dontunmap, caps.populate_write)
    );
    assert_eq!(again.userfaultfd, caps.userfaultfd);

    // The report and JSON name what was probed.
    let text = caps.to_string();
    for name in u.feature_names() {
        assert!(text.contains(name), "{text}");
    }
    let json = serde_json::to_value(caps).unwrap();
    assert_eq!(json["mremap_dontunmap"], caps.mremap_dontunmap);
    assert_eq!(json["userfaultfd"]["features"], u.features);
    assert_eq!(json["geometry"]["arch"], caps.geometry.arch.name());
}

#[test]
fn userfaultfd_helpers_follow_bits() {
    let all: u64 = UFFD_FEATURES.iter().map(|&(_, b)| b).sum();
    let u = Userfaultfd {
        opened_via: Some("syscall"),
        error: None,
        features: all,
    };
    assert_eq!(u.feature_names().len(), UFFD_FEATURES.len());
    // Bits are distinct single bits.
    assert_eq!(all.count_ones() as usize, UFFD_FEATURES.len());
    let none = Userfaultfd {
        features: 0,
        ..u.clone()
    };
    assert!(none.feature_names().is_empty());
    assert!(UFFD_FEATURES.iter().all(|(n, _)| u.has(n) && !none.has(n)));
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "host-specific: run with --ignored on the project's Linux 6.18 machine"]
fn this_host_has_uffd_move_and_dontunmap() {
    let caps = Capabilities::probe();
    eprintln!("{caps}");
    assert!(caps.mremap, "{caps}");
    assert!(caps.mremap_dontunmap, "{caps}");
    assert!(caps.populate_write, "{caps}");
    let u = &caps.userfaultfd;
    assert!(u.available(), "{caps}");
    assert!(u.has("MOVE"), "{caps}");
    assert!(u.has("SIGBUS"), "{caps}");
}
