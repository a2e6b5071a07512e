#!/usr/bin/env python3
"""Records, table, JSON and SVG for benches/peers/sweep.sh (standard library only).

The JVM logs are parsed by peers.py (imported); pausebench's JSON gives flipgc's.

Sub-commands:
  flipgc-row JSONL PAUSEBENCH_JSON --workload W --system S --phase P --factor F
      --heap-mib N --exit-code N --secs T [--repeat N]
                              one pausebench run: append its record, print its row
  jvm-row JSONL --workload W --system S --phase P --factor F --heap-mib N
      --exit-code N --secs T --stdout F --safepoint-log F --gc-log F --time-file F
      [--repeat N]            one JVM run (parsed by peers.py): the same
  header                      print the table header
  ok JSONL                    exit 0 if the last record completed, 1 if not
  json JSONL OUT              write {"minimum": [...], "runs": [...]} to OUT
  svg JSONL OUT               plot wall time and max pause against heap factor
  selftest                    check the record building and the plot on samples
"""

import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402  (the JVM log parsers, shared with run.sh)

SEP = "  "
COLUMNS = [
    # (name, align, width)
    ("workload", "<", 11),
    ("system", "<", 14),
    ("factor", ">", 6),
    ("heap MiB", ">", 8),
    ("wall s", ">", 7),
    ("max us", ">", 8),
    ("p99 us", ">", 8),
    ("stalls", ">", 6),
    ("stall max us", ">", 12),
    ("RSS MiB", ">", 7),
    ("result", "<", 6),
]


def fmt_line(cells):
    out = []
    for (name, align, width), cell in zip(COLUMNS, cells):
        w = max(width, len(name))
        out.append(cell.ljust(w) if align == "<" else cell.rjust(w))
    return SEP.join(out).rstrip()


def header():
    return fmt_line([c[0] for c in COLUMNS])


def base(a):
    return {
        "workload": a["workload"],
        "system": a["system"],
        "phase": a["phase"],  # "bisect" or "factor"
        "factor": float(a["factor"]) if a.get("factor") not in (None, "", "-") else None,
        "heap_bytes": int(a["heap_mib"]) << 20,
        "repeat": int(a.get("repeat") or 0),
        "exit_code": int(a["exit_code"]),
        "secs": float(a["secs"]),
    }


def flipgc_record(a, doc):
    """A record from pausebench's JSON document (None if the run wrote none)."""
    rec = base(a)
    run = doc["runs"][0] if doc and doc.get("runs") else None
    ok = rec["exit_code"] == 0 and run is not None
    s = run["summary"] if run else {}
    rec.update({
        "ok": ok,
        "wall_ns": run["wall_ns"] if ok else None,
        "max_pause_ns": s.get("max_pause_ns") if ok else None,
        "p99_pause_ns": s.get("p99_pause_ns") if ok else None,
        # flipgc's allocation stalls: slow paths that waited for a collection
        "stalls": s.get("alloc_stalls") if ok else None,
        "stall_max_ns": s.get("alloc_stall_max_ns") if ok else None,
        "peak_rss_bytes": s.get("peak_rss_bytes") if ok else None,
    })
    return rec


def jvm_record(a):
    """A record from one JVM run's logs, parsed by peers.build_record."""
    rec = base(a)
    heap = "%dm" % int(a["heap_mib"])
    jr = peers.build_record({
        "workload": a["workload"], "heap": heap, "mode": a["system"],
        "stdout": a["stdout"], "safepoint_log": a["safepoint_log"],
        "gc_log": a.get("gc_log"), "time_file": a.get("time_file"),
        "exit_code": a["exit_code"],
    })
    s = jr["summary"]
    ok = rec["exit_code"] == 0 and jr["wall_ns"] is not None
    rec.update({
        "ok": ok,
        "wall_ns": jr["wall_ns"] if ok else None,
        "max_pause_ns": s["max_pause_ns"] if ok else None,
        "p99_pause_ns": s["p99_pause_ns"] if ok else None,
        # only ZGC logs allocation stalls; None (printed "-") for the others
        "stalls": s["astall_count"] if ok else None,
        "stall_max_ns": s["astall_max_ns"] if ok else None,
        "peak_rss_bytes": s["peak_rss_bytes"] if ok else None,
    })
    return rec


def dash(v, f):
    return "-" if v is None else f(v)


def row(rec):
    return fmt_line([
        rec["workload"], rec["system"],
        "min" if rec["phase"] == "bisect" else dash(rec["factor"], lambda x: "%.2f" % x),
        str(rec["heap_bytes"] >> 20),
        dash(rec["wall_ns"], lambda x: "%.2f" % (x / 1e9)),
        dash(rec["max_pause_ns"], lambda x: str(x // 1000)),
        dash(rec["p99_pause_ns"], lambda x: str(x // 1000)),
        dash(rec["stalls"], str),
        dash(rec["stall_max_ns"], lambda x: str(x // 1000)),
        dash(rec["peak_rss_bytes"], lambda x: str(x >> 20)),
        "ok" if rec["ok"] else ("timeout" if rec["exit_code"] == 124 else "fail(%d)" % rec["exit_code"]),
    ])


def median(vals):
    v = sorted(x for x in vals if x is not None)
    if not v:
        return None
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def minima(recs):
    """Per (workload, system): the smallest heap that completed in the bisection,
    the largest that failed, the number of steps and their total time."""
    out = {}
    for r in recs:
        if r["phase"] != "bisect":
            continue
        k = (r["workload"], r["system"])
        m = out.setdefault(k, {"workload": k[0], "system": k[1], "min_heap_bytes": None,
                               "max_failed_bytes": None, "steps": 0, "secs": 0.0,
                               "failed": []})
        m["steps"] += 1
        m["secs"] += r["secs"]
        if r["ok"]:
            if m["min_heap_bytes"] is None or r["heap_bytes"] < m["min_heap_bytes"]:
                m["min_heap_bytes"] = r["heap_bytes"]
        else:
            m["failed"].append(r["heap_bytes"])
    for m in out.values():
        # Near the minimum a run may fail at a size where another completed (JIT
        # and collection timing): the bracket's lower end is the largest failure
        # below the smallest completion.
        below = [f for f in m.pop("failed") if m["min_heap_bytes"] is None or f < m["min_heap_bytes"]]
        m["max_failed_bytes"] = max(below) if below else None
    return list(out.values())


def series(recs):
    """{workload: {system: [(factor, median wall s, median max pause ms)]}} over
    the factor runs that completed."""
    groups = {}
    for r in recs:
        if r["phase"] != "factor" or not r["ok"]:
            continue
        groups.setdefault(r["workload"], {}).setdefault(r["system"], {}).setdefault(
            r["factor"], []).append(r)
    out = {}
    for w, systems in groups.items():
        for s, by_f in systems.items():
            pts = []
            for f in sorted(by_f):
                rs = by_f[f]
                pts.append((f, median([x["wall_ns"] for x in rs]) / 1e9,
                            median([x["max_pause_ns"] for x in rs]) / 1e6))
            out.setdefault(w, {})[s] = pts
    return out


COLORS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"]


def nice_max(v):
    if v <= 0:
        return 1.0
    m = 10 ** len(str(int(v))) / 10 if v >= 1 else 1.0
    while m > v * 5:
        m /= 10
    for k in (1, 2, 2.5, 5, 10, 20, 25, 50):
        if m * k >= v:
            return m * k
    return v


def esc(t):
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg(recs):
    """The plot: per workload, one panel of wall time and one of max pause (log
    scale), against the heap factor (log scale), one line per system (median
    over repeats)."""
    data = series(recs)
    workloads = sorted(data)
    systems = sorted({s for w in data.values() for s in w})
    color = {s: COLORS[i % len(COLORS)] for i, s in enumerate(systems)}
    pw, ph, ml, mt, gap = 380, 230, 60, 40, 40
    width = ml + 2 * (pw + ml) + 20
    height = mt + max(1, len(workloads)) * (ph + mt + gap) + 30 + 18 * len(systems)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>']
    all_f = sorted({f for w in data.values() for pts in w.values() for f, _, _ in pts})
    fmin, fmax = (all_f[0], all_f[-1]) if all_f else (1.0, 6.0)
    if fmax <= fmin:
        fmax = fmin + 1

    def fx(f, x0):
        # log scale: the factors are about evenly spaced in log (1.25x .. 6x)
        return x0 + math.log(f / fmin) / math.log(fmax / fmin) * pw

    for wi, w in enumerate(workloads):
        y0 = mt + wi * (ph + mt + gap)
        for pi, (title, idx, log) in enumerate((("wall time (s)", 1, False),
                                                ("max pause (ms, log scale)", 2, True))):
            x0 = ml + pi * (pw + ml)
            vals = [p[idx] for pts in data[w].values() for p in pts]
            out.append('<text x="%d" y="%d" font-size="13">%s: %s</text>' % (x0, y0 - 10, esc(w), title))
            out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>' % (x0, y0, pw, ph))
            if log:
                lo = min(v for v in vals if v > 0) if any(v > 0 for v in vals) else 0.01
                hi = max(vals) if vals else 1.0
                e0, e1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
                if e1 <= e0:
                    e1 = e0 + 1

                def fy(v, e0=e0, e1=e1):
                    v = max(v, 10 ** e0)
                    return y0 + ph - (math.log10(v) - e0) / (e1 - e0) * ph
                ticks = [10 ** e for e in range(e0, e1 + 1)]
            else:
                top = nice_max(max(vals) if vals else 1.0)

                def fy(v, top=top):
                    return y0 + ph - v / top * ph
                ticks = [top * i / 4 for i in range(5)]
            for t in ticks:
                y = fy(t)
                out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>' % (x0, y, x0 + pw, y))
                out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (x0 - 4, y + 4, "%g" % t))
            for f in all_f:
                x = fx(f, x0)
                out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>' % (x, y0, x, y0 + ph))
                out.append('<text x="%.1f" y="%d" text-anchor="middle">%gx</text>' % (x, y0 + ph + 14, f))
            out.append('<text x="%d" y="%d" text-anchor="middle">heap / Parallel\'s minimum (log scale)</text>'
                       % (x0 + pw // 2, y0 + ph + 28))
            for s in systems:
                pts = data[w].get(s, [])
                if not pts:
                    continue
                xy = ["%.1f,%.1f" % (fx(p[0], x0), fy(p[idx])) for p in pts]
                out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (color[s], " ".join(xy)))
                for c in xy:
                    cx, cy = c.split(",")
                    out.append('<circle cx="%s" cy="%s" r="3" fill="%s"/>' % (cx, cy, color[s]))
    ly = mt + max(1, len(workloads)) * (ph + mt + gap)
    for i, s in enumerate(systems):
        y = ly + 18 * i
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>' % (ml, y, ml + 24, y, color[s]))
        out.append('<text x="%d" y="%d">%s</text>' % (ml + 30, y + 4, esc(s)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def load(path):
    return peers.load_jsonl(path)


def selftest():
    import tempfile
    d = tempfile.mkdtemp()
    doc = {"runs": [{"wall_ns": 2_000_000_000, "summary": {
        "max_pause_ns": 140_000, "p99_pause_ns": 90_000, "alloc_stalls": 3,
        "alloc_stall_max_ns": 5_000_000, "peak_rss_bytes": 300 << 20}}]}
    a = {"workload": "gcbench", "system": "flipgc-auto", "phase": "factor", "factor": "1.5",
         "heap_mib": "300", "exit_code": "0", "secs": "2.5"}
    r = flipgc_record(a, doc)
    assert r["ok"] and r["stalls"] == 3 and r["heap_bytes"] == 300 << 20, r
    assert "140" in row(r) and row(r).endswith("ok")
    bad = flipgc_record(dict(a, exit_code="1"), None)
    assert not bad["ok"] and bad["wall_ns"] is None and "fail(1)" in row(bad)
    sp = os.path.join(d, "sp")
    with open(sp, "w") as f:
        f.write('[0.1s][safepoint] Safepoint "ParallelGCFailedAllocation", Reaching safepoint: 5 ns, '
                "Total: 4952010 ns\n")
    out = os.path.join(d, "out")
    with open(out, "w") as f:
        f.write("HICCUP p50_ns=1 p99_ns=2 p999_ns=3 max_ns=4 samples=5\nWALL_NS=3000000000\n")
    tf = os.path.join(d, "t")
    with open(tf, "w") as f:
        f.write("204800\n")
    j = jvm_record({"workload": "gcbench", "system": "jvm-parallel", "phase": "bisect",
                    "factor": "-", "heap_mib": "200", "exit_code": "0", "secs": "3",
                    "stdout": out, "safepoint_log": sp, "gc_log": "", "time_file": tf})
    assert j["ok"] and j["max_pause_ns"] == 4952010 and j["stalls"] is None, j
    assert j["peak_rss_bytes"] == 200 << 20 and " min " in row(j)
    failed = dict(j, ok=False, heap_bytes=190 << 20)
    m = minima([j, failed, r, dict(failed, heap_bytes=210 << 20)])
    assert len(m) == 1 and m[0]["min_heap_bytes"] == 200 << 20 and m[0]["max_failed_bytes"] == 190 << 20
    assert m[0]["steps"] == 3
    r2 = dict(r, factor=3.0, wall_ns=1_000_000_000, max_pause_ns=100_000)
    s = series([r, r2, dict(r, wall_ns=4_000_000_000)])
    assert s["gcbench"]["flipgc-auto"] == [(1.5, 3.0, 0.14), (3.0, 1.0, 0.1)], s
    text = svg([r, r2])
    assert text.startswith("<svg") and "polyline" in text and "flipgc-auto" in text
    assert median([3, 1, 2]) == 2 and median([1, 2]) == 1.5 and median([]) is None
    print("sweep.py selftest ok")


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    cmd = argv[0]
    if cmd == "header":
        print(header())
    elif cmd in ("flipgc-row", "jvm-row"):
        out = argv[1]
        if cmd == "flipgc-row":
            src = argv[2]
            a = peers.parse_opts(argv[3:])
            try:
                with open(src, encoding="utf-8") as f:
                    doc = json.load(f)
            except (OSError, ValueError):
                doc = None
            rec = flipgc_record(a, doc)
        else:
            rec = jvm_record(peers.parse_opts(argv[2:]))
        with open(out, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")
        print(row(rec))
    elif cmd == "ok":
        recs = load(argv[1])
        return 0 if recs and recs[-1]["ok"] else 1
    elif cmd == "json":
        recs = load(argv[1])
        with open(argv[2], "w", encoding="utf-8") as f:
            json.dump({"reference": "jvm-parallel", "minimum": minima(recs), "runs": recs}, f, indent=1)
            f.write("\n")
    elif cmd == "svg":
        with open(argv[2], "w", encoding="utf-8") as f:
            f.write(svg(load(argv[1])))
    elif cmd == "selftest":
        selftest()
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
