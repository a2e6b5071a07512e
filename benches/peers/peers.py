#!/usr/bin/env python3
"""Parsing and formatting for benches/peers/run.sh (standard library only).

Sub-commands:
  header                      print the table header (and a rule)
  row RUNS_JSONL --workload W --heap H --mode M --stdout F --safepoint-log F
      [--gc-log F] [--time-file F] [--exit-code N] [--jvm-args S]
                              parse one JVM run, append its record to RUNS_JSONL
                              and print its table row
  json RUNS_JSONL OUT         write {"runs": [...]} (pausebench's key names) to OUT
  selftest                    check the parsers on built-in samples
"""

import json
import re
import sys

# ---------------------------------------------------------------------------
# Table layout: every column's name, alignment and width lives here.
# Text columns are left-aligned, numbers right-aligned; a column is never narrower
# than its header. Adjust here to match pausebench.
SEP = "  "
COLUMNS = [
    # (name, align, width): the same names and order as pausebench's runs table
    # (benches/src/pause/table.rs, RUN_HEADER); times in whole microseconds.
    ("workload", "<", 12),
    ("heap", "<", 6),
    ("mode", "<", 15),
    ("wall s", ">", 7),
    ("GCs", ">", 5),
    ("p50", ">", 7),
    ("p99", ">", 7),
    ("max", ">", 7),
    ("ttsp", ">", 7),
    ("top phase (max)", "<", 15),
    ("hic p99", ">", 7),
    ("hic p99.9", ">", 9),
    ("hic max", ">", 7),
    ("alloc p99", ">", 9),
    ("alloc max", ">", 9),
    ("fault p99", ">", 9),
    ("fault max", ">", 9),
    ("RSS MiB", ">", 7),
]
# ---------------------------------------------------------------------------


def fmt_line(cells):
    out = []
    for (name, align, width), cell in zip(COLUMNS, cells):
        w = max(width, len(name))
        out.append(cell.ljust(w) if align == "<" else cell.rjust(w))
    return SEP.join(out).rstrip()


def header():
    names = [c[0] for c in COLUMNS]
    return fmt_line(names)


def us(ns):
    return "-" if ns is None else str(int(ns) // 1000)


def nearest_rank(sorted_vals, per_ten_thousand):
    """Smallest value with at least p of all values at or below it (integer maths)."""
    n = len(sorted_vals)
    if n == 0:
        return None
    rank = max(1, (n * per_ten_thousand + 9999) // 10000)
    return sorted_vals[min(rank, n) - 1]


def heap_label(text):
    """"1g" -> "1 GiB", as pausebench prints heap sizes."""
    n = heap_bytes(text)
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return "%d %s" % (n // size, unit)
    return "%d B" % n


def heap_bytes(text):
    m = re.fullmatch(r"(\d+)([kKmMgGtT]?)", text.strip())
    if not m:
        raise ValueError("bad heap size: %r" % text)
    mult = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2).lower()]
    return int(m.group(1)) * mult


# --- safepoint log ----------------------------------------------------------
# JDK 17 (-Xlog:safepoint, info level), one line per safepoint, e.g.
# [1.234s][safepoint] Safepoint "G1CollectForAllocation", Time since last: 123 ns,
#   Reaching safepoint: 4377 ns, Cleanup: 4827 ns, At safepoint: 2222868 ns, Total: 2232072 ns
# Fields are matched one by one so a reordered or extended line still parses; when
# "Total" is missing it is the sum of the parts that are there.
SAFEPOINT_RE = re.compile(r'Safepoint "([^"]*)"')
UPTIME_RE = re.compile(r"^\[(\d+(?:\.\d+)?)s\]")
FIELD_RES = {
    "reaching": re.compile(r"Reaching safepoint:\s*(\d+)\s*ns"),
    "cleanup": re.compile(r"Cleanup:\s*(\d+)\s*ns"),
    "at": re.compile(r"At safepoint:\s*(\d+)\s*ns"),
    "total": re.compile(r"Total:\s*(\d+)\s*ns"),
}

# VM operations that are garbage-collection work (JDK 17 names). Anything else
# (Cleanup, ICBufferFull, Deoptimize, HandshakeAllThreads, ThreadDump, Exit, ...)
# is a non-GC safepoint: it still counts as a pause, not as a collection.
GC_OP_RE = re.compile(
    r"^(ParallelGC\w*|G1\w*|Z(Mark|Relocate|Verify)\w*|Shenandoah\w*|Serial\w*|GenCollect\w*"
    r"|CollectFor\w*|GC_\w*|\w*GCOperation)$"
)


def is_gc_op(name):
    return bool(GC_OP_RE.match(name))


def parse_safepoints(text):
    pauses = []
    for line in text.splitlines():
        m = SAFEPOINT_RE.search(line)
        if not m:
            continue
        f = {}
        for key, rx in FIELD_RES.items():
            fm = rx.search(line)
            if fm:
                f[key] = int(fm.group(1))
        if "total" not in f:
            parts = [f[k] for k in ("reaching", "cleanup", "at") if k in f]
            if not parts:
                continue
            f["total"] = sum(parts)
        um = UPTIME_RE.search(line)
        op = m.group(1)
        pauses.append({
            "kind": "safepoint",
            "total_ns": f["total"],
            "ttsp_ns": f.get("reaching"),
            "phases": {},
            "flip": None,
            # JVM-only extras
            "operation": op,
            "gc": is_gc_op(op),
            "cleanup_ns": f.get("cleanup"),
            "at_safepoint_ns": f.get("at"),
            "uptime_s": float(um.group(1)) if um else None,
        })
    return pauses


# --- gc log (-Xlog:gc): number of GC cycles, ZGC allocation stalls ----------
# ZGC logs every allocation stall (a Java thread blocked in allocation until a
# concurrent cycle frees memory; no safepoint involved) at gc=info:
#   [2.490s][gc] Allocation Stall (main) 319.496ms
# The other collectors log no such events: their allocation failures are
# stop-the-world collections and so already safepoint pauses.
GC_ID_RE = re.compile(r"\bGC\((\d+)\)")
ZSTALL_RE = re.compile(r"Allocation Stall \(([^)]*)\)\s*([\d.]+)\s*ms")


def parse_gc_log(text):
    ids = set()
    stalls = []
    for line in text.splitlines():
        for m in GC_ID_RE.finditer(line):
            ids.add(int(m.group(1)))
        m = ZSTALL_RE.search(line)
        if m:
            stalls.append(int(round(float(m.group(2)) * 1e6)))
    return len(ids), stalls


# --- workload stdout --------------------------------------------------------
HICCUP_RE = re.compile(r"^HICCUP\s+(.*)$", re.M)
WALL_RE = re.compile(r"^WALL_NS=(\d+)\s*$", re.M)


def parse_stdout(text):
    hic = {}
    m = HICCUP_RE.search(text)
    if m:
        for kv in m.group(1).split():
            k, _, v = kv.partition("=")
            if v.isdigit():
                hic[k] = int(v)
    wm = WALL_RE.search(text)
    return hic, (int(wm.group(1)) if wm else None)


def parse_time_file(text):
    """/usr/bin/time -f %M output: peak RSS in KiB (last integer line)."""
    for line in reversed(text.splitlines()):
        if line.strip().isdigit():
            return int(line.strip())
    return None


def read(path):
    if not path:
        return ""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def build_record(a):
    pauses = parse_safepoints(read(a["safepoint_log"]))
    cycles, zstalls = parse_gc_log(read(a.get("gc_log")))
    hic, wall_ns = parse_stdout(read(a["stdout"]))
    rss_kib = parse_time_file(read(a.get("time_file")))
    totals = sorted(p["total_ns"] for p in pauses)
    ttsps = [p["ttsp_ns"] for p in pauses if p["ttsp_ns"] is not None]
    zstalls.sort()
    # Only ZGC reports allocation stalls; elsewhere the columns stay "-".
    has_astall = a["mode"] == "jvm-z"
    return {
        "workload": a["workload"],
        "heap_bytes": heap_bytes(a["heap"]),
        "mode": a["mode"],
        "wall_ns": wall_ns,
        "pauses": pauses,
        "summary": {
            "collections": sum(1 for p in pauses if p["gc"]),
            "p50_pause_ns": nearest_rank(totals, 5000),
            "p99_pause_ns": nearest_rank(totals, 9900),
            "max_pause_ns": totals[-1] if totals else None,
            "max_ttsp_ns": max(ttsps) if ttsps else None,
            "hiccup_p99_ns": hic.get("p99_ns"),
            "hiccup_max_ns": hic.get("max_ns"),
            "peak_rss_bytes": rss_kib * 1024 if rss_kib is not None else None,
            # JVM-only extras
            "safepoints": len(pauses),
            "gc_cycles": cycles,
            "hiccup_p50_ns": hic.get("p50_ns"),
            "hiccup_p999_ns": hic.get("p999_ns"),
            "hiccup_samples": hic.get("samples"),
            # ZGC allocation stalls (table columns astall_*); None where the
            # collector logs none (all but ZGC)
            "astall_count": len(zstalls) if has_astall else None,
            "astall_p99_ns": (nearest_rank(zstalls, 9900) or 0) if has_astall else None,
            "astall_max_ns": (zstalls[-1] if zstalls else 0) if has_astall else None,
        },
        # JVM-only extras
        "heap": a["heap"],
        "exit_code": int(a.get("exit_code") or 0),
        "jvm_args": a.get("jvm_args", ""),
    }


def row(rec):
    s = rec["summary"]
    failed = rec["exit_code"] != 0 or rec["wall_ns"] is None
    wall = "-" if rec["wall_ns"] is None else "%.2f" % (rec["wall_ns"] / 1e9)
    rss = "-" if s["peak_rss_bytes"] is None else "%.0f" % (s["peak_rss_bytes"] / (1 << 20))
    cells = [
        rec["workload"], heap_label(rec["heap"]), rec["mode"], wall, str(s["collections"]),
        us(s["p50_pause_ns"]), us(s["p99_pause_ns"]), us(s["max_pause_ns"]), us(s["max_ttsp_ns"]),
        "-",
        us(s["hiccup_p99_ns"]), us(s["hiccup_p999_ns"]), us(s["hiccup_max_ns"]),
        us(s["astall_p99_ns"]), us(s["astall_max_ns"]), "-", "-",
        rss,
    ]
    line = fmt_line(cells)
    if failed:
        line += "  FAILED(exit %d)" % rec["exit_code"]
    return line


def parse_opts(argv):
    opts = {}
    i = 0
    while i < len(argv):
        k = argv[i]
        if not k.startswith("--") or i + 1 >= len(argv):
            raise SystemExit("peers.py: bad option list near %r" % k)
        opts[k[2:].replace("-", "_")] = argv[i + 1]
        i += 2
    return opts


def load_jsonl(path):
    runs = []
    for line in read(path).splitlines():
        if line.strip():
            runs.append(json.loads(line))
    return runs


def selftest():
    log = (
        '[0.145s][safepoint] Safepoint "ParallelGCFailedAllocation", Time since last: 115826847 ns, '
        "Reaching safepoint: 5188 ns, Cleanup: 34821 ns, At safepoint: 4912001 ns, Total: 4952010 ns\n"
        '[0.2s][safepoint] Safepoint "Cleanup", Time since last: 1 ns, Reaching safepoint: 10 ns, '
        "At safepoint: 20 ns\n"
        '[0.3s][safepoint] Safepoint "ZMarkStart", Reaching safepoint: 82182 ns, Total: 140549 ns\n'
        "[0.4s][safepoint] Application time: 0.1 seconds\n"
    )
    p = parse_safepoints(log)
    assert [x["total_ns"] for x in p] == [4952010, 30, 140549], p
    assert [x["gc"] for x in p] == [True, False, True], p
    assert p[1]["ttsp_ns"] == 10 and p[0]["uptime_s"] == 0.145
    for op in ["G1CollectForAllocation", "G1Concurrent", "ZMarkEnd", "ZRelocateStart",
               "ShenandoahInitMark", "ParallelGCSystemGC", "CollectForMetadataAllocation"]:
        assert is_gc_op(op), op
    for op in ["Cleanup", "ICBufferFull", "HandshakeAllThreads", "Deoptimize", "Exit", "ZapDead"]:
        assert not is_gc_op(op), op
    v = list(range(1, 101))
    assert nearest_rank(v, 9900) == 99 and nearest_rank(v, 5000) == 50 and nearest_rank(v, 9990) == 100
    assert nearest_rank([7], 9900) == 7 and nearest_rank([], 5000) is None
    assert heap_bytes("1g") == 1 << 30 and heap_bytes("512m") == 512 << 20
    n, st = parse_gc_log("[1s][gc] GC(0) Pause Young 1M->0M\n[2s][gc] GC(1) x\n[2s][gc] GC(1) y\n"
                         "[3s][info][gc] Allocation Stall (main) 12.500ms\n")
    assert n == 2 and st == [12500000], (n, st)
    hic, wall = parse_stdout("x\nHICCUP p50_ns=1 p99_ns=2 p999_ns=3 max_ns=4 samples=5\nWALL_NS=99\n")
    assert hic == {"p50_ns": 1, "p99_ns": 2, "p999_ns": 3, "max_ns": 4, "samples": 5} and wall == 99
    assert header() == fmt_line([c[0] for c in COLUMNS])
    assert heap_label("4g") == "4 GiB" and heap_label("512m") == "512 MiB"
    print("peers.py selftest ok")


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    cmd = argv[0]
    if cmd == "header":
        print(header())
    elif cmd == "row":
        out = argv[1]
        a = parse_opts(argv[2:])
        rec = build_record(a)
        with open(out, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")
        print(row(rec))
    elif cmd == "json":
        runs = load_jsonl(argv[1])
        with open(argv[2], "w", encoding="utf-8") as f:
            json.dump({"runs": runs}, f, indent=1)
            f.write("\n")
    elif cmd == "selftest":
        selftest()
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
