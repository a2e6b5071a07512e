#!/usr/bin/env bash
# Regenerates the README's results table and docs/results/pauses.svg from one run:
# pausebench (flipgc, `auto`) and the JVM peers (Parallel, G1, ZGC, Shenandoah) on
# GCBench and binary-trees at 1 and 4 GiB. Writes docs/results/{flipgc,jvm}.json,
# docs/results/pauses.svg and docs/results/table.md, and rewrites the table in
# README.md. Takes about 15 minutes here; run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/results
mkdir -p "$out"
date=$(date -u +%Y-%m-%d)
cargo build --release --locked -p flipgc-bench --bin pausebench
target/release/pausebench --workload gcbench,binarytrees --heap 1g,4g --modes auto \
    --json "$out/flipgc.json" --svg "$out/pauses.svg"
benches/peers/run.sh --no-flipgc --collectors parallel,g1,z,shenandoah \
    --json "$out/jvm.json"
python3 scripts/results_table.py "$date" "$out/flipgc.json" "$out/jvm.json" > "$out/table.md"
python3 scripts/results_table.py --readme README.md "$date" "$out/flipgc.json" "$out/jvm.json"
echo "results: $out/table.md, $out/pauses.svg, README.md"
