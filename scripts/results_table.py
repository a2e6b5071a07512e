#!/usr/bin/env python3
"""The README's results table, from one run of scripts/results.sh: flipgc's
pausebench JSON and the JVM peers' JSON (benches/peers/run.sh --json), same key
names. Prints a Markdown table, or with --readme FILE replaces the lines between
<!-- results:start --> and <!-- results:end --> in FILE with it."""
import json
import sys

ORDER = ["auto", "jvm-parallel", "jvm-g1", "jvm-z", "jvm-shenandoah"]
NAMES = {
    "auto": "flipgc",
    "jvm-parallel": "Parallel",
    "jvm-g1": "G1",
    "jvm-z": "ZGC",
    "jvm-shenandoah": "Shenandoah",
}


def ms(ns):
    return "-" if ns is None else ("%.2f" % (ns / 1e6))


def table(runs, date):
    rows = []
    key = lambda r: (r["workload"], r["heap_bytes"], ORDER.index(r["mode"]) if r["mode"] in ORDER else 99)
    for r in sorted(runs, key=key):
        if r["mode"] not in NAMES:
            continue
        s = r["summary"]
        wall = "-" if r.get("wall_ns") is None else "%.2f" % (r["wall_ns"] / 1e9)
        rss = "-" if s.get("peak_rss_bytes") is None else "%.0f" % (s["peak_rss_bytes"] / (1 << 20))
        rows.append(
            "| %s | %d GiB | %s | %s | %s | %s | %s |"
            % (
                r["workload"],
                r["heap_bytes"] >> 30,
                NAMES[r["mode"]],
                ms(s.get("max_pause_ns")),
                ms(s.get("p99_pause_ns")),
                wall,
                rss,
            )
        )
    head = [
        "Measured %s on this project's 2-core VM by `scripts/results.sh` (one run of each;" % date,
        "JVM: OpenJDK 17, `-Xms = -Xmx`, pre-touched; pauses are the JVM's safepoints).",
        "",
        "| program | heap | collector | max pause ms | p99 pause ms | wall s | peak RSS MiB |",
        "|---|---|---|---|---|---|---|",
    ]
    return "\n".join(head + rows) + "\n"


def main(argv):
    readme = None
    if argv and argv[0] == "--readme":
        readme, argv = argv[1], argv[2:]
    date, files = argv[0], argv[1:]
    runs = []
    for f in files:
        with open(f) as fh:
            runs += json.load(fh)["runs"]
    text = table(runs, date)
    if readme is None:
        sys.stdout.write(text)
        return
    with open(readme) as fh:
        lines = fh.read().split("\n")
    start = lines.index("<!-- results:start -->")
    end = lines.index("<!-- results:end -->")
    lines[start + 1 : end] = text.rstrip("\n").split("\n")
    with open(readme, "w") as fh:
        fh.write("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
