#!/usr/bin/env bash
# Heap-size sweep: for each workload, find the smallest heap at which JVM Parallel
# completes (the reference minimum), and likewise flipgc's `auto` mode and each
# other JVM collector, by bisection to 5 %; then run flipgc and every collector at
# fixed multiples of the reference minimum and print wall time, max and p99 pause,
# allocation stalls and peak RSS per run, with a JSON file and an SVG plot. The
# JVM runs and their log parsing are run.sh's (common.sh, peers.py). See README.md
# in this directory ("Heap-size sweep").
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=common.sh
source "$HERE/common.sh"

usage() {
    cat <<'USAGE'
usage: benches/peers/sweep.sh [options]

  --workloads LIST        gcbench,binarytrees (default both)
  --collectors LIST       JVM collectors: parallel,g1,z,shenandoah (default all).
                          Parallel's minimum is always found: it is the reference.
  --factors LIST          heap sizes as multiples of Parallel's minimum
                          (default 1.25,1.5,2,3,6)
  --repeats N             runs of each (workload, factor, system) (default 1);
                          the plot shows the median
  --gcbench-args "ARGS"   as run.sh (default "22 18 500000 4 20 2")
  --binarytrees-args "ARGS"
                          as run.sh (default "21")
  --no-flipgc             JVM collectors only
  --reference LIST        skip Parallel's bisection: workload=SIZE pairs, e.g.
                          gcbench=300m,binarytrees=200m (from an earlier sweep)
  --no-minima             find only the reference minimum, not flipgc's and the
                          other collectors' (saves most of the bisection time)
  --bisect-from SIZE      lower starting bound of the reference bisection
                          (default 16m); its upper one is --bisect-to
  --bisect-to SIZE        (default 1g); both are widened if they do not bracket
  --precision PCT         stop when the bracket is within PCT % (default 5)
  --timeout SECONDS       a run that takes longer counts as failed (default 300)
  --settle SECONDS        wait for free page reporting before each factor run, as
                          run.sh and pausebench do (default 30; bisection runs: 0)
  --no-pretouch           as run.sh, for both flipgc and the JVM
  --java-opts "OPTS"      extra JVM options for every run
  --json FILE             write {"reference", "minimum": [...], "runs": [...]}
  --svg FILE              plot wall time and max pause against the heap factor
  --keep-logs DIR         keep every run's logs under DIR
  -h, --help              this text

Environment: JAVA, JAVAC pick the binaries; CARGO_TARGET_DIR is honoured.
USAGE
}

JAVA="${JAVA:-java}"
JAVAC="${JAVAC:-javac}"
WORKLOADS="gcbench,binarytrees"
COLLECTORS="parallel,g1,z,shenandoah"
FACTORS="1.25,1.5,2,3,6"
REPEATS=1
GCBENCH_ARGS="22 18 500000 4 20 2"
BINARYTREES_ARGS="21"
FLIPGC=1
REFERENCE=""
MINIMA=1
BISECT_FROM=16m
BISECT_TO=1g
PRECISION=5
RUN_TIMEOUT=300
FACTOR_SETTLE=30
PRETOUCH=1
EXTRA_OPTS=""
JSON_OUT=""
SVG_OUT=""
KEEP_LOGS=""

need() { [[ $# -ge 2 ]] || { echo "sweep.sh: $1 needs a value" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
    arg="$1"
    case "$arg" in
        --*=*) set -- "${arg%%=*}" "${arg#*=}" "${@:2}"; continue ;;
    esac
    case "$arg" in
        --workloads) need "$@"; WORKLOADS="$2"; shift 2 ;;
        --collectors) need "$@"; COLLECTORS="$2"; shift 2 ;;
        --factors) need "$@"; FACTORS="$2"; shift 2 ;;
        --repeats) need "$@"; REPEATS="$2"; shift 2 ;;
        --gcbench-args) need "$@"; GCBENCH_ARGS="$2"; shift 2 ;;
        --binarytrees-args) need "$@"; BINARYTREES_ARGS="$2"; shift 2 ;;
        --no-flipgc) FLIPGC=0; shift ;;
        --reference) need "$@"; REFERENCE="$2"; shift 2 ;;
        --no-minima) MINIMA=0; shift ;;
        --bisect-from) need "$@"; BISECT_FROM="$2"; shift 2 ;;
        --bisect-to) need "$@"; BISECT_TO="$2"; shift 2 ;;
        --precision) need "$@"; PRECISION="$2"; shift 2 ;;
        --timeout) need "$@"; RUN_TIMEOUT="$2"; shift 2 ;;
        --settle) need "$@"; FACTOR_SETTLE="$2"; shift 2 ;;
        --no-pretouch) PRETOUCH=0; shift ;;
        --java-opts) need "$@"; EXTRA_OPTS="$2"; shift 2 ;;
        --json) need "$@"; JSON_OUT="$2"; shift 2 ;;
        --svg) need "$@"; SVG_OUT="$2"; shift 2 ;;
        --keep-logs) need "$@"; KEEP_LOGS="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "sweep.sh: unknown argument: $arg" >&2; usage >&2; exit 2 ;;
    esac
done

die() { echo "sweep.sh: $*" >&2; exit 2; }

# A size (512m, 1g, 300) in whole MiB.
to_mib() {
    local t="${1,,}"
    [[ $t =~ ^([0-9]+)([mg]?)$ ]] || return 1
    local n="${BASH_REMATCH[1]}"
    [[ ${BASH_REMATCH[2]} == g ]] && n=$((n * 1024))
    (( n >= 1 )) || return 1
    echo "$n"
}

[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || die "--repeats needs a whole number from 1, got '$REPEATS'"
[[ $PRECISION =~ ^[1-9][0-9]*$ ]] && (( PRECISION <= 100 )) || die "--precision needs a whole percentage from 1 to 100, got '$PRECISION'"
[[ $RUN_TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "--timeout needs whole seconds from 1, got '$RUN_TIMEOUT'"
[[ $FACTOR_SETTLE =~ ^[0-9]+$ ]] && (( FACTOR_SETTLE <= 600 )) || die "--settle needs whole seconds from 0 to 600, got '$FACTOR_SETTLE'"
FROM_MIB="$(to_mib "$BISECT_FROM")" || die "--bisect-from: bad size '$BISECT_FROM' (e.g. 16m)"
TO_MIB="$(to_mib "$BISECT_TO")" || die "--bisect-to: bad size '$BISECT_TO' (e.g. 1g)"
(( FROM_MIB < TO_MIB )) || die "--bisect-from must be below --bisect-to"
IFS=, read -r -a workload_list <<< "$WORKLOADS"
IFS=, read -r -a collector_list <<< "$COLLECTORS"
IFS=, read -r -a factor_list <<< "$FACTORS"
for w in "${workload_list[@]}"; do
    workload_class "$w" >/dev/null || die "unknown workload '$w' (gcbench, binarytrees)"
done
for c in "${collector_list[@]}"; do
    collector_flag "$c" >/dev/null || die "unknown collector '$c' (parallel, g1, z, shenandoah)"
done
for f in "${factor_list[@]}"; do
    [[ $f =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v f="$f" 'BEGIN { exit !(f > 0) }' || die "bad factor '$f'"
done
declare -A REF_MIB=()
if [[ -n "$REFERENCE" ]]; then
    IFS=, read -r -a pairs <<< "$REFERENCE"
    for p in "${pairs[@]}"; do
        [[ $p == *=* ]] || die "--reference needs workload=SIZE pairs, got '$p'"
        REF_MIB["${p%%=*}"]="$(to_mib "${p#*=}")" || die "--reference: bad size in '$p'"
    done
fi
flipgc_params "$GCBENCH_ARGS" "$BINARYTREES_ARGS" || exit 2

command -v python3 >/dev/null 2>&1 || die "python3 is needed"
command -v "$JAVA" >/dev/null 2>&1 || die "'$JAVA' not found: the sweep's reference is JVM Parallel (install a JDK 17+)"
command -v "$JAVAC" >/dev/null 2>&1 || die "'$JAVAC' not found (a JRE without the compiler?)"
command -v timeout >/dev/null 2>&1 || die "timeout (coreutils) is needed"
HAVE_TIME=0
[[ -x /usr/bin/time ]] && HAVE_TIME=1 || echo "note: /usr/bin/time not found; JVM RSS will be '-'" >&2

# The systems: JVM collectors this JVM has (Parallel always, as the reference),
# then flipgc's auto mode.
available=()
for c in parallel "${collector_list[@]}"; do
    [[ " ${available[*]-} " == *" $c "* ]] && continue
    if "$JAVA" "$(collector_flag "$c")" -version >/dev/null 2>&1; then
        available+=("$c")
    elif [[ $c == parallel ]]; then
        die "this JVM lacks -XX:+UseParallelGC, the reference"
    else
        echo "note: this JVM lacks $(collector_flag "$c"); skipping jvm-$c"
    fi
done
factor_systems=()
for c in "${available[@]}"; do
    [[ ",$COLLECTORS," == *",$c,"* ]] && factor_systems+=("jvm-$c")
done
PAUSEBENCH=""
if [[ $FLIPGC == 1 ]]; then
    command -v cargo >/dev/null 2>&1 || die "cargo not found (or run with --no-flipgc)"
    (cd "$ROOT" && cargo build --quiet --release -p flipgc-bench --bin pausebench)
    PAUSEBENCH="${CARGO_TARGET_DIR:-$ROOT/target}/release/pausebench"
    [[ -x $PAUSEBENCH ]] || die "no pausebench at $PAUSEBENCH after the build"
    factor_systems+=("flipgc-auto")
fi
compile_classes

if [[ -n "$KEEP_LOGS" ]]; then
    LOGDIR="$KEEP_LOGS"
    mkdir -p "$LOGDIR"
else
    LOGDIR="$(mktemp -d "${TMPDIR:-/tmp}/flipgc-sweep.XXXXXX")"
    trap 'rm -rf "$LOGDIR"' EXIT
fi
RUNS_JSONL="$LOGDIR/sweep.jsonl"
: > "$RUNS_JSONL"
TIMEOUT="$RUN_TIMEOUT"

# run_system SYSTEM WORKLOAD HEAP_MIB PHASE FACTOR REPEAT: one run, its record
# appended to $RUNS_JSONL and its row printed; returns 0 if it completed.
run_system() {
    local sys="$1" w="$2" mib="$3" phase="$4" factor="$5" rep="$6"
    local tag="$w-$sys-${mib}m-$phase-$rep" t0 t1 rc secs args_str
    if [[ $w == gcbench ]]; then args_str="$GCBENCH_ARGS"; else args_str="$BINARYTREES_ARGS"; fi
    t0="$(date +%s.%N)"
    if [[ $sys == flipgc-auto ]]; then
        local pt=() json="$LOGDIR/$tag.json"
        [[ $PRETOUCH == 1 ]] || pt=(--no-pretouch)
        rm -f "$json"
        [[ $phase == bisect ]] || SETTLE="$FACTOR_SETTLE" settle
        rc=0
        timeout -k 5 "$TIMEOUT" "$PAUSEBENCH" --workload "$w" --heap "${mib}m" --modes auto \
            --threads "$FLIPGC_THREADS" --params "$FLIPGC_PARAMS" --settle 0 \
            --json "$json" ${pt[@]+"${pt[@]}"} > "$LOGDIR/$tag.stdout" 2>&1 || rc=$?
        [[ $rc -ne 2 ]] || { cat "$LOGDIR/$tag.stdout" >&2; die "pausebench refused its arguments"; }
        t1="$(date +%s.%N)"
        secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
        python3 "$HERE/sweep.py" flipgc-row "$RUNS_JSONL" "$json" --workload "$w" \
            --system "$sys" --phase "$phase" --factor "$factor" --heap-mib "$mib" \
            --exit-code "$rc" --secs "$secs" --repeat "$rep"
    else
        if [[ $phase == bisect ]]; then SETTLE=0; else SETTLE="$FACTOR_SETTLE"; fi
        run_jvm "$w" "${mib}m" "${sys#jvm-}" "$args_str" "$LOGDIR" "$tag"
        t1="$(date +%s.%N)"
        secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
        python3 "$HERE/sweep.py" jvm-row "$RUNS_JSONL" --workload "$w" --system "$sys" \
            --phase "$phase" --factor "$factor" --heap-mib "$mib" --exit-code "$JVM_RC" \
            --secs "$secs" --repeat "$rep" --stdout "$LOGDIR/$tag.stdout" \
            --safepoint-log "$LOGDIR/$tag.safepoint.log" --gc-log "$LOGDIR/$tag.gc.log" \
            --time-file "$LOGDIR/$tag.time"
    fi
    python3 "$HERE/sweep.py" ok "$RUNS_JSONL"
}

MAX_MIB=$((64 * 1024))
# bisect SYSTEM WORKLOAD LO_MIB HI_MIB: the smallest heap (MiB) at which SYSTEM
# completes WORKLOAD, to $PRECISION %: widens [LO, HI] until LO fails and HI
# completes, then halves it geometrically. Sets MIN_MIB (empty if even
# $MAX_MIB MiB failed).
bisect() {
    local sys="$1" w="$2" lo="$3" hi="$4" mid lo_failed=0
    MIN_MIB=""
    until run_system "$sys" "$w" "$hi" bisect - 0; do
        lo="$hi"
        lo_failed=1
        hi=$((hi * 2))
        if (( hi > MAX_MIB )); then
            echo "# $w $sys: failed at every heap up to $lo MiB" >&2
            return 0
        fi
    done
    while (( lo_failed == 0 )); do
        if run_system "$sys" "$w" "$lo" bisect - 0; then
            hi="$lo"
            lo=$((lo / 2))
            (( lo >= 1 )) || { MIN_MIB="$hi"; return 0; }
        else
            lo_failed=1
        fi
    done
    # Invariant: lo failed, hi completed.
    while (( hi * 100 > lo * (100 + PRECISION) && hi - lo > 1 )); do
        mid="$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%d", sqrt(a * b) + 0.5 }')"
        (( mid > lo && mid < hi )) || mid=$(((lo + hi) / 2))
        if run_system "$sys" "$w" "$mid" bisect - 0; then hi="$mid"; else lo="$mid"; fi
    done
    MIN_MIB="$hi"
}

echo "# heap-size sweep: $("$JAVA" -version 2>&1 | sed -n 2p); pretouch: $([[ $PRETOUCH == 1 ]] && echo on || echo off)"
echo "# workloads: $WORKLOADS; factors: $FACTORS; systems: ${factor_systems[*]}; repeats: $REPEATS"
echo "# gcbench args: $GCBENCH_ARGS; binarytrees args: $BINARYTREES_ARGS"
echo "# factor = heap / JVM Parallel's minimum heap; min = a bisection step; times in s and us"
python3 "$HERE/sweep.py" header

for w in "${workload_list[@]}"; do
    if [[ -n "${REF_MIB[$w]:-}" ]]; then
        ref="${REF_MIB[$w]}"
        echo "# $w: reference minimum $ref MiB (given)"
    else
        bisect jvm-parallel "$w" "$FROM_MIB" "$TO_MIB"
        [[ -n $MIN_MIB ]] || { echo "# $w: no reference minimum; skipping it" >&2; continue; }
        ref="$MIN_MIB"
        echo "# $w: jvm-parallel minimum $ref MiB (reference)"
    fi
    if [[ $MINIMA == 1 ]]; then
        for sys in "${factor_systems[@]}"; do
            [[ $sys == jvm-parallel ]] && continue
            bisect "$sys" "$w" $(((ref + 1) / 2)) "$ref"
            echo "# $w: $sys minimum ${MIN_MIB:--} MiB"
        done
    fi
    for f in "${factor_list[@]}"; do
        mib="$(awk -v f="$f" -v r="$ref" 'BEGIN { printf "%d", f * r + 0.5 }')"
        for ((rep = 0; rep < REPEATS; rep++)); do
            for sys in "${factor_systems[@]}"; do
                run_system "$sys" "$w" "$mib" factor "$f" "$rep" || true
            done
        done
    done
done

echo
echo "# minimum heaps (MiB; bracket = largest failed .. smallest completed; bisection time)"
python3 -c '
import sys; sys.path.insert(0, sys.argv[1]); import sweep
for m in sweep.minima(sweep.load(sys.argv[2])):
    lo = "-" if m["max_failed_bytes"] is None else str(m["max_failed_bytes"] >> 20)
    hi = "-" if m["min_heap_bytes"] is None else str(m["min_heap_bytes"] >> 20)
    print("%-12s %-16s %6s .. %-6s %3d steps %7.1f s (%.1f s a step)" % (
        m["workload"], m["system"], lo, hi, m["steps"], m["secs"], m["secs"] / max(1, m["steps"])))
' "$HERE" "$RUNS_JSONL"
if [[ -n "$JSON_OUT" ]]; then
    python3 "$HERE/sweep.py" json "$RUNS_JSONL" "$JSON_OUT"
    echo "# wrote $JSON_OUT"
fi
if [[ -n "$SVG_OUT" ]]; then
    python3 "$HERE/sweep.py" svg "$RUNS_JSONL" "$SVG_OUT"
    echo "# wrote $SVG_OUT"
fi
[[ -z "$KEEP_LOGS" ]] || echo "# per-run logs in $LOGDIR"
