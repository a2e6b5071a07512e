#!/usr/bin/env python3
"""Where a process's resident memory goes: runs a command, samples its
/proc/PID/smaps every INTERVAL ms, and at the sample with the largest total RSS
prints each mapping's resident size, largest first, grouped by the 1 GiB-aligned
region it starts in (flipgc's heap, from-space, scratch and large-object spans are
reservations of whole GiBs; side tables and thread stacks are smaller mappings).
Also prints VmHWM (the kernel's peak, which a 50 ms sampler can miss by a little).

usage: scripts/rss_sample.py [--interval MS] [--min-mib N] [--json FILE] -- CMD ARGS...

Standard library only. Linux only (reads /proc).
"""

import json
import subprocess
import sys
import time

GIB = 1 << 30


def read_smaps(pid):
    """[(start, end, perms, name, {field: kB})] of /proc/PID/smaps, or None."""
    try:
        with open("/proc/%d/smaps" % pid) as f:
            text = f.read()
    except OSError:
        return None
    maps = []
    cur = None
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if "-" in parts[0] and ":" not in parts[0]:
            lo, hi = parts[0].split("-")
            name = parts[5] if len(parts) > 5 else ""
            cur = (int(lo, 16), int(hi, 16), parts[1], name, {})
            maps.append(cur)
        elif cur is not None and parts[0].endswith(":") and len(parts) >= 2 and parts[1].isdigit():
            cur[4][parts[0][:-1]] = int(parts[1])
    return maps


def status_kib(pid):
    """{VmHWM, VmRSS, RssAnon, ...} of /proc/PID/status, in KiB."""
    out = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k.startswith(("Vm", "Rss")) and v.strip().endswith("kB"):
                    out[k] = int(v.split()[0])
    except OSError:
        pass
    return out


def main(argv):
    interval, min_mib, json_out = 50, 1, None
    while argv and argv[0] != "--":
        k = argv.pop(0)
        if not argv:
            raise SystemExit("rss_sample.py: %s needs a value" % k)
        v = argv.pop(0)
        if k == "--interval":
            interval = int(v)
        elif k == "--min-mib":
            min_mib = int(v)
        elif k == "--json":
            json_out = v
        else:
            raise SystemExit("rss_sample.py: unknown option %s" % k)
    if not argv or len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd = argv[1:]
    proc = subprocess.Popen(cmd)
    best, best_t, best_total, hwm, series = None, 0.0, -1, None, []
    t0 = time.monotonic()
    while proc.poll() is None:
        maps = read_smaps(proc.pid)
        st = status_kib(proc.pid)
        hwm = st.get("VmHWM", hwm)
        if maps:
            total = sum(m[4].get("Rss", 0) for m in maps)
            t = time.monotonic() - t0
            # (s, smaps' Rss summed, the kernel's VmRSS counter), KiB
            vm = st.get("VmRSS")
            regions = {}
            for m in maps:
                if m[4].get("Rss", 0):
                    g = "%#x" % (m[0] // GIB * GIB)
                    regions[g] = regions.get(g, 0) + m[4]["Rss"]
            series.append((round(t, 3), total, vm, regions))
            # smaps is read mapping by mapping, not atomically: a read during a
            # flip's mremap can count moved pages twice (seen: 1.8 GiB summed at
            # a 1.1 GiB VmRSS). Only samples that agree with the kernel's counter
            # within 2 % are candidates for the breakdown.
            if vm is not None and abs(total - vm) * 50 <= vm and total > best_total:
                best, best_t, best_total = maps, t, total
        time.sleep(interval / 1000)
    rc = proc.wait()
    vm_peak = max((x[2] or 0 for x in series), default=0)
    print("# exit %d; samples %d; peak sampled RSS %d MiB at %.2f s (smaps, consistent samples); largest VmRSS %d MiB; "
          "last VmHWM %s MiB" % (rc, len(series), best_total >> 10, best_t, vm_peak >> 10,
                                 "-" if hwm is None else hwm >> 10))
    if best is None:
        return 1
    groups = {}
    for lo, hi, perms, name, f in best:
        rss = f.get("Rss", 0)
        groups.setdefault(lo // GIB, []).append((rss, lo, hi, perms, name, f))
    rows = []
    for g, ms in sorted(groups.items(), key=lambda kv: -sum(m[0] for m in kv[1])):
        tot = sum(m[0] for m in ms)
        if tot >> 10 < min_mib:
            continue
        print("region %#x (GiB #%d): %d MiB resident in %d mappings" % (g * GIB, g, tot >> 10, len(ms)))
        for rss, lo, hi, perms, name, f in sorted(ms, reverse=True):
            if rss >> 10 < min_mib:
                continue
            print("  %#014x-%#014x %9.1f MiB mapped %9.1f MiB rss  %s %s AnonHuge=%d MiB" % (
                lo, hi, (hi - lo) / (1 << 20), rss / 1024, perms, name,
                f.get("AnonHugePages", 0) >> 10))
            rows.append({"start": lo, "end": hi, "perms": perms, "name": name, "rss_kib": rss})
    small = sum(m[0] for ms in groups.values() for m in ms if m[0] >> 10 < min_mib)
    print("mappings under %d MiB each: %.1f MiB together" % (min_mib, small / 1024))
    if json_out:
        with open(json_out, "w") as f:
            json.dump({"exit": rc, "peak_kib": best_total, "peak_s": best_t, "vmhwm_kib": hwm,
                       "series": series, "mappings": rows,
                       "series_format": "[s, smaps Rss KiB, VmRSS KiB, {1 GiB region: Rss KiB}]"}, f)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
