# Shared by benches/peers/run.sh and benches/peers/sweep.sh (sourced, not run): the
# collector flags, the workload classes, compiling the Java programs, the wait for
# free page reporting, one JVM run with its logs, and pausebench's --params for the
# same GCBench and BinaryTrees arguments. See README.md in this directory.
#
# The caller sets HERE (this directory), JAVA, JAVAC, SETTLE (seconds), PRETOUCH
# (1 or 0), EXTRA_OPTS (a string) and HAVE_TIME (1 if /usr/bin/time exists), and
# optionally TIMEOUT (seconds; empty = none).

CLASSES="$HERE/build/classes"

# The JVM option that selects collector $1.
collector_flag() {
    case "$1" in
        parallel) echo "-XX:+UseParallelGC" ;;
        g1) echo "-XX:+UseG1GC" ;;
        z) echo "-XX:+UseZGC" ;;
        shenandoah) echo "-XX:+UseShenandoahGC" ;;
        *) return 1 ;;
    esac
}

# The main class of workload $1.
workload_class() {
    case "$1" in
        gcbench) echo "GCBench" ;;
        binarytrees) echo "BinaryTrees" ;;
        *) return 1 ;;
    esac
}

# Compiles the Java programs into $CLASSES (benches/peers/build, git-ignored).
compile_classes() {
    mkdir -p "$CLASSES"
    "$JAVAC" -nowarn -d "$CLASSES" "$HERE/HiccupMeter.java" "$HERE/GCBench.java" "$HERE/BinaryTrees.java"
}

# Wait (at most $SETTLE s) until the guest's count of memory reported free to the
# host has stayed the same for 3 s, longer than the kernel's 2 s delay before a
# report: the run before's heap is reported after it exits, and the host's work on
# it would show as steal in this run (docs/pausebench.md). Same rule as pausebench.
settle() {
    local f=/sys/module/page_reporting/parameters/reported_kib
    [[ -r $f && $SETTLE -gt 0 ]] || return 0
    local last cur quiet=0 ticks=0
    last="$(cat "$f")"
    while (( quiet < 12 && ticks < SETTLE * 4 )); do
        sleep 0.25
        ticks=$((ticks + 1))
        cur="$(cat "$f")"
        if [[ $cur == "$last" ]]; then quiet=$((quiet + 1)); else quiet=0; last=$cur; fi
    done
}

# run_jvm WORKLOAD HEAP COLLECTOR ARGS LOGDIR TAG: one JVM run of WORKLOAD (gcbench or
# binarytrees) with ARGS (a string) in a fixed heap of HEAP (-Xms = -Xmx, a size
# java accepts, e.g. 512m) under COLLECTOR. Writes LOGDIR/TAG.{stdout,safepoint.log,
# gc.log,time}, sets JVM_RC to java's exit status (124 if $TIMEOUT ran out) and
# JVM_ARGS to the JVM options used (for peers.py row --jvm-args).
run_jvm() {
    local w="$1" h="$2" c="$3" args_str="$4" dir="$5" tag="$6"
    local class flag wargs=() extra=() cmd
    class="$(workload_class "$w")"
    flag="$(collector_flag "$c")"
    read -r -a wargs <<< "$args_str"
    read -r -a extra <<< "${EXTRA_OPTS:-}"
    local sp_log="$dir/$tag.safepoint.log" gc_log="$dir/$tag.gc.log"
    local out="$dir/$tag.stdout" tfile="$dir/$tag.time"
    rm -f "$sp_log" "$gc_log" "$tfile"
    local jvm=(-Xms"$h" -Xmx"$h" "$flag")
    [[ "$PRETOUCH" == 1 ]] && jvm+=(-XX:+AlwaysPreTouch)
    jvm+=("-Xlog:safepoint:file=$sp_log:uptime,tags" "-Xlog:gc:file=$gc_log:uptime,tags"
          ${extra[@]+"${extra[@]}"})
    cmd=("$JAVA" "${jvm[@]}" -cp "$CLASSES" "$class" ${wargs[@]+"${wargs[@]}"})
    if [[ -n "${TIMEOUT:-}" ]]; then
        cmd=(timeout -k 5 "$TIMEOUT" "${cmd[@]}")
    fi
    if [[ $HAVE_TIME == 1 ]]; then
        cmd=(/usr/bin/time -f %M -o "$tfile" "${cmd[@]}")
    fi
    settle
    JVM_RC=0
    "${cmd[@]}" > "$out" 2>&1 || JVM_RC=$?
    JVM_ARGS="${jvm[*]}"
}

# flipgc_params GCBENCH_ARGS BINARYTREES_ARGS: pausebench's --params value for the
# same program arguments (GCBench: 6 numbers; BinaryTrees: depth [--threads N]);
# sets FLIPGC_PARAMS and FLIPGC_THREADS. Returns 2 with a message on bad input.
flipgc_params() {
    local g=() b=()
    read -r -a g <<< "$1"
    read -r -a b <<< "$2"
    if [[ ${#g[@]} -ne 6 ]]; then
        echo "--gcbench-args needs 6 numbers, got '$1'" >&2
        return 2
    fi
    FLIPGC_PARAMS="gcbench.stretch=${g[0]},gcbench.long-lived=${g[1]},gcbench.array-size=${g[2]}"
    FLIPGC_PARAMS+=",gcbench.min-depth=${g[3]},gcbench.max-depth=${g[4]},gcbench.rounds=${g[5]}"
    FLIPGC_PARAMS+=",binarytrees.depth=${b[0]}"
    FLIPGC_THREADS=1
    if [[ ${#b[@]} -ge 3 && "${b[1]}" == --threads ]]; then FLIPGC_THREADS="${b[2]}"; fi
}
