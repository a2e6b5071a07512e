//! Criterion bench of one flip per mode, 4 KiB backing, ping-ponging like
//! flipbench (the same [`PingPong`] setup and cycle): `pte`, `pmd` and `copy` at
//! 256 MiB, and `pud` at 1 GiB (a PUD entry maps 1 GiB on x86_64, so a smaller
//! flip cannot move at PUD level). Only the forward flip is timed
//! (`FlipReport::elapsed`); the flip back and the pattern check (on the last
//! cycle of each batch) are not. Kept short: 10 flat samples, ~1.5 s per id.

use criterion::{Criterion, SamplingMode, Throughput};
use flipgc_bench::pingpong::PingPong;
use flipgc_bench::placement::{placement, Backing, Mode};
use flipgc_heap::{fmt_bytes, Geometry};
use std::time::Duration;

const MIB: usize = 1 << 20;

fn flip(c: &mut Criterion) {
    let geometry = Geometry::host();
    let mut group = c.benchmark_group("flip");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1200));
    let cases = [
        (Mode::Pte, 256 * MIB),
        (Mode::Pmd, 256 * MIB),
        (Mode::Copy, 256 * MIB),
        (Mode::Pud, 1024 * MIB),
    ];
    for (mode, len) in cases {
        if let Err(why) = placement(mode, len, &geometry) {
            eprintln!("skipping {mode}: {why}");
            continue;
        }
        let mut pp = PingPong::new(mode, Backing::FourK, len, &geometry, 0x5eed ^ len as u64)
            .unwrap_or_else(|e| panic!("{mode} setup: {e}"));
        let id = format!("{mode}/{}", fmt_bytes(len).replace(' ', ""));
        group.throughput(Throughput::Bytes(len as u64));
        group.bench_function(id, |b| {
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                for i in 0..iters {
                    let cycle = pp
                        .cycle(i + 1 == iters)
                        .unwrap_or_else(|e| panic!("{mode}: {e}"));
                    timed += cycle.forward.elapsed;
                }
                timed
            })
        });
        drop(pp); // Free before the next case.
    }
    group.finish();
}

// What `criterion_group!`/`criterion_main!` expand to, written out: the macro's
// generated `pub fn` would be undocumented (the workspace warns on missing_docs).
fn main() {
    let mut c = Criterion::default().configure_from_args();
    flip(&mut c);
    c.final_summary();
}
