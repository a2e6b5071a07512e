//! Helpers shared by the integration tests.

use flipgc_core::{FlipMode, HeapConfig, InjectPoint};

/// The collection paths a runtime feature must work on, each `base()` with one
/// change: concurrent (as is), one-pause, in-pause compaction, copying flip, and
/// one named injected fallback per entry of `injected`.
pub fn collection_paths(
    base: impl Fn() -> HeapConfig,
    injected: &[(&'static str, InjectPoint)],
) -> Vec<(&'static str, HeapConfig)> {
    let with = |f: &dyn Fn(&mut HeapConfig)| {
        let mut c = base();
        f(&mut c);
        c
    };
    let mut paths = vec![
        ("concurrent", base()),
        ("one-pause", with(&|c| c.concurrent_marking = false)),
        (
            "in-pause compaction",
            with(&|c| c.concurrent_compaction = false),
        ),
        ("copying flip", with(&|c| c.flip = FlipMode::Copy)),
    ];
    for &(name, point) in injected {
        paths.push((name, with(&|c| c.inject = Some(point))));
    }
    paths
}
