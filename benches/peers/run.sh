#!/usr/bin/env bash
# JVM peers for flipgc's pause comparison: runs flipgc's pausebench and then GCBench
# and BinaryTrees on the JVM under each available collector and heap size, with the
# same parameters, and prints one row per run in pausebench's table format, so one
# command gives the comparison. See README.md in this directory.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=common.sh
source "$HERE/common.sh"

usage() {
    cat <<'USAGE'
usage: benches/peers/run.sh [options]

  --heaps LIST            heap sizes, -Xms = -Xmx (default 1g,4g; env PEERS_HEAPS)
  --workloads LIST        gcbench,binarytrees (default both; env PEERS_WORKLOADS)
  --collectors LIST       parallel,g1,z,shenandoah (default all; env PEERS_COLLECTORS)
  --gcbench-args "ARGS"   GCBench arguments: stretch longLived arraySize minDepth
                          maxDepth rounds (default "22 18 500000 4 20 2", the
                          parameters pausebench uses; env PEERS_GCBENCH_ARGS)
  --binarytrees-args "ARGS"
                          BinaryTrees arguments: depth [--threads N]
                          (default "21"; env PEERS_BINARYTREES_ARGS)
  --flipgc MODES          pausebench modes to run first, same workloads, heaps and
                          parameters (default auto,copy; env PEERS_FLIPGC)
  --no-flipgc             JVM rows only
  --no-pretouch           drop -XX:+AlwaysPreTouch (env PEERS_PRETOUCH=0)
  --java-opts "OPTS"      extra JVM options appended to every run (env PEERS_JAVA_OPTS)
  --settle SECONDS        before each run, wait at most this long for the guest to
                          finish reporting freed memory to the host, as pausebench
                          does (default 30, 0 = off; env PEERS_SETTLE)
  --json FILE             also write {"runs": [...]} with pausebench's key names
  --keep-logs DIR         write per-run logs under DIR (default: a temp dir, removed)
  -h, --help              this text

Environment: JAVA, JAVAC pick the binaries (default: java, javac on PATH).
USAGE
}

JAVA="${JAVA:-java}"
JAVAC="${JAVAC:-javac}"
HEAPS="${PEERS_HEAPS:-1g,4g}"
WORKLOADS="${PEERS_WORKLOADS:-gcbench,binarytrees}"
COLLECTORS="${PEERS_COLLECTORS:-parallel,g1,z,shenandoah}"
GCBENCH_ARGS="${PEERS_GCBENCH_ARGS:-22 18 500000 4 20 2}"
FLIPGC_MODES="${PEERS_FLIPGC-auto,copy}"
BINARYTREES_ARGS="${PEERS_BINARYTREES_ARGS:-21}"
PRETOUCH="${PEERS_PRETOUCH:-1}"
EXTRA_OPTS="${PEERS_JAVA_OPTS:-}"
SETTLE="${PEERS_SETTLE:-30}"
JSON_OUT=""
KEEP_LOGS=""

while [[ $# -gt 0 ]]; do
    case "$1" in
        --settle) SETTLE="$2"; shift 2 ;;
        --settle=*) SETTLE="${1#*=}"; shift ;;
        --heaps) HEAPS="$2"; shift 2 ;;
        --heaps=*) HEAPS="${1#*=}"; shift ;;
        --workloads) WORKLOADS="$2"; shift 2 ;;
        --workloads=*) WORKLOADS="${1#*=}"; shift ;;
        --collectors) COLLECTORS="$2"; shift 2 ;;
        --collectors=*) COLLECTORS="${1#*=}"; shift ;;
        --gcbench-args) GCBENCH_ARGS="$2"; shift 2 ;;
        --gcbench-args=*) GCBENCH_ARGS="${1#*=}"; shift ;;
        --binarytrees-args) BINARYTREES_ARGS="$2"; shift 2 ;;
        --binarytrees-args=*) BINARYTREES_ARGS="${1#*=}"; shift ;;
        --flipgc) FLIPGC_MODES="$2"; shift 2 ;;
        --flipgc=*) FLIPGC_MODES="${1#*=}"; shift ;;
        --no-flipgc) FLIPGC_MODES=""; shift ;;
        --no-pretouch) PRETOUCH=0; shift ;;
        --java-opts) EXTRA_OPTS="$2"; shift 2 ;;
        --java-opts=*) EXTRA_OPTS="${1#*=}"; shift ;;
        --json) JSON_OUT="$2"; shift 2 ;;
        --json=*) JSON_OUT="${1#*=}"; shift ;;
        --keep-logs) KEEP_LOGS="$2"; shift 2 ;;
        --keep-logs=*) KEEP_LOGS="${1#*=}"; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "run.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
if ! [[ $SETTLE =~ ^[0-9]+$ ]] || (( SETTLE > 600 )); then
    echo "run.sh: --settle needs whole seconds from 0 to 600, got '$SETTLE'" >&2
    exit 2
fi

# flipgc's own rows first (pausebench, same workloads, heaps and parameters).
if [[ -n "$FLIPGC_MODES" ]] && ! command -v cargo >/dev/null 2>&1; then
    echo "note: cargo not found; no flipgc rows (run pausebench yourself)"
    FLIPGC_MODES=""
fi
if [[ -n "$FLIPGC_MODES" ]]; then
    flipgc_params "$GCBENCH_ARGS" "$BINARYTREES_ARGS" || exit 2
    params="$FLIPGC_PARAMS"
    threads="$FLIPGC_THREADS"
    pretouch=()
    [[ $PRETOUCH == 1 ]] || pretouch=(--no-pretouch)
    echo "# flipgc (pausebench --modes $FLIPGC_MODES)"
    (cd "$HERE/../.." && cargo run --quiet --release -p flipgc-bench --bin pausebench -- \
        --workload "$WORKLOADS" --heap "$HEAPS" --modes "$FLIPGC_MODES" \
        --threads "$threads" --params "$params" --settle "$SETTLE" ${pretouch[@]+"${pretouch[@]}"}) | sed '/^pauses by kind/,$d'
    echo
fi

# The comparison is optional: no JVM is not an error.
if ! command -v "$JAVA" >/dev/null 2>&1; then
    echo "run.sh: '$JAVA' not found on PATH; skipping the JVM comparison (install a JDK 17+ to run it)."
    exit 0
fi
if ! command -v "$JAVAC" >/dev/null 2>&1; then
    echo "run.sh: '$JAVA' found but '$JAVAC' is not (a JRE without the compiler?); skipping the JVM comparison."
    exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "run.sh: python3 is needed to parse the JVM logs" >&2
    exit 2
fi

HAVE_TIME=0
if [[ -x /usr/bin/time ]]; then
    HAVE_TIME=1
else
    echo "note: /usr/bin/time not found; rss_mib will be '-'" >&2
fi

compile_classes

if [[ -n "$KEEP_LOGS" ]]; then
    LOGDIR="$KEEP_LOGS"
    mkdir -p "$LOGDIR"
else
    LOGDIR="$(mktemp -d "${TMPDIR:-/tmp}/flipgc-peers.XXXXXX")"
    trap 'rm -rf "$LOGDIR"' EXIT
fi
RUNS_JSONL="$LOGDIR/runs.jsonl"
: > "$RUNS_JSONL"

IFS=, read -r -a heap_list <<< "$HEAPS"
IFS=, read -r -a workload_list <<< "$WORKLOADS"
IFS=, read -r -a collector_list <<< "$COLLECTORS"

# Keep the collectors this JVM has; say which ones it lacks.
available=()
for c in "${collector_list[@]}"; do
    if ! flag="$(collector_flag "$c")"; then
        echo "run.sh: unknown collector '$c' (parallel, g1, z, shenandoah)" >&2
        exit 2
    fi
    if "$JAVA" "$flag" -version >/dev/null 2>&1; then
        available+=("$c")
    else
        echo "note: this JVM lacks $flag; skipping jvm-$c"
    fi
done
for w in "${workload_list[@]}"; do
    workload_class "$w" >/dev/null || { echo "run.sh: unknown workload '$w' (gcbench, binarytrees)" >&2; exit 2; }
done
if [[ ${#available[@]} -eq 0 ]]; then
    echo "run.sh: none of the requested collectors is available; nothing to run."
    exit 0
fi

echo "# JVM peers: $("$JAVA" -version 2>&1 | sed -n 2p)"
echo "# workloads: $WORKLOADS; heaps: $HEAPS; collectors: ${available[*]}; pretouch: $([[ $PRETOUCH == 1 ]] && echo on || echo off)"
echo "# gcbench args: $GCBENCH_ARGS; binarytrees args: $BINARYTREES_ARGS"
python3 "$HERE/peers.py" header

failures=0
for w in "${workload_list[@]}"; do
    if [[ "$w" == gcbench ]]; then args_str="$GCBENCH_ARGS"; else args_str="$BINARYTREES_ARGS"; fi
    for h in "${heap_list[@]}"; do
        for c in "${available[@]}"; do
            tag="$w-$h-$c"
            run_jvm "$w" "$h" "$c" "$args_str" "$LOGDIR" "$tag"
            rc=$JVM_RC
            if [[ $rc -ne 0 ]]; then
                failures=$((failures + 1))
                echo "# $tag exited with status $rc; last lines of its output:" >&2
                tail -n 5 "$LOGDIR/$tag.stdout" | sed 's/^/#   /' >&2
            fi
            python3 "$HERE/peers.py" row "$RUNS_JSONL" \
                --workload "$w" --heap "$h" --mode "jvm-$c" \
                --stdout "$LOGDIR/$tag.stdout" --safepoint-log "$LOGDIR/$tag.safepoint.log" \
                --gc-log "$LOGDIR/$tag.gc.log" --time-file "$LOGDIR/$tag.time" \
                --exit-code "$rc" --jvm-args "$JVM_ARGS"
        done
    done
done

if [[ -n "$JSON_OUT" ]]; then
    python3 "$HERE/peers.py" json "$RUNS_JSONL" "$JSON_OUT"
    echo "# wrote $JSON_OUT"
fi
if [[ -n "$KEEP_LOGS" ]]; then
    echo "# per-run logs in $LOGDIR"
fi
if [[ $failures -gt 0 ]]; then
    echo "# $failures run(s) failed"
    exit 1
fi
