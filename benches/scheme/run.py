#!/usr/bin/env python3
"""Side-by-side runner: the R7RS benchmark suite on the toy VM, Guile and Chez.

Each program is assembled the way the suite's own `bench` script does it
(system prelude + src/PROGRAM.scm + src/common.scm + system postlude +
src/common-postlude.scm) and fed its input file on stdin, with the iteration
count (the first datum of the input) divided by --divisor (default 10, never
below 1).
Nothing else in a program or its input changes.

For every program it prints the wall time on each installed system, the
toy VM / Guile ratio of wall times and of CPU times (user and system, all
threads: steadier than wall time on a shared machine), and whether the
outputs agree (timing lines, which
differ by nature, are left out of the comparison). It writes every figure to
a JSON file. See README.md for installing the reference systems.
"""

import argparse
import json
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "suite")
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))

# The suite's own list (ALL_BENCHMARKS in suite/bench), in its order.
PROGRAMS = """
browse deriv destruc diviter divrec puzzle triangl tak takl ntakl cpstak ctak
fib fibc fibfp sum sumfp fft mbrot mbrotZ nucleic pi pnpoly ray simplex
ack array1 string sum1 cat tail wc
read1
compiler conform dynamic earley graphs lattice matrix maze mazefun nqueens
paraffins parsing peval primes quicksort scheme slatex chudnovsky
nboyer sboyer gcbench mperm
equal bv2string
""".split()

# Seconds a system may take to compile a program ahead of its run (Guile's
# -O3 compile of the largest programs takes minutes on a loaded machine).
COMPILE_TIMEOUT = 180

# Lines whose text differs between runs and systems by nature.
TIMING = re.compile(r"^(Elapsed time:|\+!CSVLINE!\+)")


def suite_file(*parts):
    with open(os.path.join(SUITE, *parts), encoding="utf-8") as f:
        return f.read()


def own_file(name):
    with open(os.path.join(HERE, "preludes", name), encoding="utf-8") as f:
        return f.read()


def reduced_input(program, divisor):
    """The program's input with its iteration count (the first line that is
    not a comment) divided by `divisor` (at least 1), and that count."""
    lines = suite_file("inputs", program + ".input").split("\n")
    for i, line in enumerate(lines):
        if line.strip() and not line.lstrip().startswith(";"):
            m = re.match(r"\s*(\d+)(.*)$", line)
            if not m:
                raise SystemExit(f"{program}.input: expected a count, got {line!r}")
            count = max(1, int(m.group(1)) // divisor)
            lines[i] = str(count) + m.group(2)
            return "\n".join(lines), count
    raise SystemExit(f"{program}.input: no count")


def find_chez():
    for name in ("chezscheme", "scheme", "chez"):
        path = shutil.which(name)
        if path:
            return path
    return None


class System:
    """How to assemble and run a program on one system."""

    def __init__(self, name, prelude, postlude, command, compile_cmd=None):
        self.name = name
        self.prelude = prelude
        self.postlude = postlude
        self.command = command  # source path -> argv
        self.compile_cmd = compile_cmd  # (source path) -> (argv, artefact) or None


def systems(args):
    out = []
    toyvm = args.toyvm
    if os.path.exists(toyvm):
        out.append(System("toyvm", own_file("toyvm.scm"), "",
                          lambda src: [toyvm, src]))
    else:
        print(f"toyvm: {toyvm} not found (cargo build --release -p flipgc-toyvm)",
              file=sys.stderr)
    guile = shutil.which("guile")
    if guile and "guile" in args.systems:
        def guile_compile(src):
            # As the suite does (guild compile -O3), ahead of the timed run.
            go = src[:-4] + ".go"
            code = ("(use-modules (system base compile)) "
                    f'(compile-file "{src}" #:output-file "{go}" #:optimization-level 3)')
            return [guile, "-c", code], go

        def guile_run(src):
            go = src[:-4] + ".go"
            if os.path.exists(go):
                return [guile, "-c", f'(load-compiled "{go}")']
            return [guile, "--no-auto-compile", src]

        out.append(System("guile", suite_file("src", "Guile3-prelude.scm"), "",
                          guile_run, guile_compile))
    chez = find_chez()
    if chez and "chez" in args.systems:
        out.append(System("chez", own_file("chez.scm"), "",
                          lambda src: [chez, "--optimize-level", "2", "--script", src]))
    return [s for s in out if s.name in args.systems]


def assemble(system, program):
    body = suite_file("src", program + ".scm")
    if system.name == "chez":
        # Chez has no (scheme base) library of its own: like the suite's
        # petite-chez entry, drop the import line (its names are Chez
        # top-level names, or are defined in preludes/chez.scm).
        body = re.sub(r"(?m)^\(import \(scheme.*$", "", body)
    return "\n".join([system.prelude, body, suite_file("src", "common.scm"),
                      system.postlude, suite_file("src", "common-postlude.scm")])


def comparable(stdout):
    return "\n".join(l for l in stdout.splitlines() if not TIMING.match(l))


def run_one(system, program, text, tmp, timeout):
    src = os.path.join(tmp, f"{program}.{system.name}.scm")
    with open(src, "w", encoding="utf-8") as f:
        f.write(assemble(system, program))
    inp = os.path.join(tmp, f"{program}.input")
    with open(inp, "w", encoding="utf-8") as f:
        f.write(text)
    if system.compile_cmd:
        step = system.compile_cmd(src)
        if step:
            argv, _ = step
            try:
                c = subprocess.run(argv, cwd=SUITE, capture_output=True, text=True,
                                   timeout=max(timeout, COMPILE_TIMEOUT))
            except subprocess.TimeoutExpired:
                return {"ok": False, "seconds": None, "output": "",
                        "error": f"compile: timeout after {max(timeout, COMPILE_TIMEOUT)} s"}
            if c.returncode != 0:
                return {"ok": False, "seconds": None, "output": "",
                        "error": "compile: " + c.stderr.strip()[-300:]}
    # Runs are one at a time, so the children's rusage before and after is
    # this run's CPU time (all its threads, user and system; a run killed at
    # its timeout is reaped first, so it counts too).
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    try:
        with open(inp, encoding="utf-8") as stdin:
            p = subprocess.run(system.command(src), cwd=SUITE, stdin=stdin,
                               capture_output=True, text=True, timeout=timeout,
                               env=dict(os.environ, GC_INITIAL_HEAP_SIZE="100000000"))
    except subprocess.TimeoutExpired:
        return {"ok": False, "seconds": None, "cpu": round(cpu_since(r0), 3),
                "output": "", "error": f"timeout after {timeout} s"}
    seconds = time.monotonic() - t0
    cpu = cpu_since(r0)
    out = comparable(p.stdout)
    error = None
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines()
        error = f"exit {p.returncode}: " + (lines[-1] if lines else "")
    elif "ERROR: returned incorrect result" in p.stdout:
        error = "incorrect result"
    return {"ok": error is None, "seconds": round(seconds, 3), "cpu": round(cpu, 3),
            "output": out, "error": error}


def cpu_since(r0):
    """User and system seconds of the children reaped since `r0`."""
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="*", help="programs (default: the whole suite)")
    ap.add_argument("--systems", default="toyvm,guile,chez",
                    help="comma-separated systems (default: toyvm,guile,chez)")
    ap.add_argument("--toyvm", default=os.path.join(REPO, "target", "release", "toyvm"))
    ap.add_argument("--divisor", type=int, default=10,
                    help="divide every iteration count by this (default 10; "
                         "a count never goes below 1)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run")
    ap.add_argument("--json", default=os.path.join(HERE, "results.json"))
    ap.add_argument("--emit", metavar="DIR",
                    help="run nothing: write each program, assembled for the toy VM "
                         "with its (reduced) input built in, to DIR/PROGRAM.scm, for "
                         "`pausebench --workload toyvm:DIR/PROGRAM.scm`")
    args = ap.parse_args()
    args.systems = args.systems.split(",")
    programs = args.programs or PROGRAMS
    for p in programs:
        if p not in PROGRAMS:
            raise SystemExit(f"unknown program {p!r}; known: {' '.join(PROGRAMS)}")
    if args.emit:
        emit(args.emit, programs, args.divisor)
        return
    syss = systems(args)
    names = [s.name for s in syss]
    print(f"iteration counts divided by {args.divisor}")
    print(f"{'program':12}" + "".join(f"{n + ' s':>10}" for n in names)
          + f"{'toyvm/guile':>13}{'cpu ratio':>11}  output")
    rows = []
    with tempfile.TemporaryDirectory(prefix="r7rs-bench-") as tmp:
        for program in programs:
            text, count = reduced_input(program, args.divisor)
            res = {s.name: run_one(s, program, text, tmp, args.timeout) for s in syss}
            ok = [r for r in res.values() if r["ok"]]
            outputs = {r["output"] for r in ok}
            match = (len(ok) == len(res) and len(outputs) == 1)
            ratio = cpu_ratio = None
            t, g = res.get("toyvm"), res.get("guile")
            if t and g and t["ok"] and g["ok"] and g["seconds"]:
                ratio = t["seconds"] / g["seconds"]
                if g["cpu"]:
                    cpu_ratio = t["cpu"] / g["cpu"]
            cells = "".join(
                f"{res[n]['seconds']:>10.3f}" if res[n]["ok"] else f"{'FAIL':>10}"
                for n in names)
            verdict = "same" if match else (
                "differs" if len(ok) == len(res) else
                "; ".join(f"{n}: {res[n]['error']}" for n in names if not res[n]["ok"]))
            print(f"{program:12}{cells}{(f'{ratio:.2f}' if ratio else '-'):>13}"
                  f"{(f'{cpu_ratio:.2f}' if cpu_ratio else '-'):>11}  {verdict}",
                  flush=True)
            rows.append({"program": program, "count": count, "ratio": ratio,
                         "cpu_ratio": cpu_ratio, "match": match,
                         "systems": {n: {k: v for k, v in r.items() if k != "output"}
                                     for n, r in res.items()}})
            write_json(args.json, names, rows)
    gmean, cpu_gmean = write_json(args.json, names, rows)
    print(f"toy VM / Guile geometric mean over {count_matching(rows)} matching programs: "
          + (f"{gmean:.2f}" if gmean else "-") + " (wall), "
          + (f"{cpu_gmean:.2f}" if cpu_gmean else "-") + " (CPU)")
    print(f"wrote {args.json}")


def emit(directory, programs, divisor):
    """Writes each program for the toy VM with its input built in: the
    assembled source of `run_one`, with `read` (the only way the harness and
    the programs take their input) redefined, just before the postlude calls
    `(run-benchmark)`, to read a string port over the reduced input when given
    no port. The program and harness are otherwise unchanged."""
    os.makedirs(directory, exist_ok=True)
    toyvm = System("toyvm", own_file("toyvm.scm"), "", lambda src: [])
    for program in programs:
        text, count = reduced_input(program, divisor)
        literal = text.replace("\\", "\\\\").replace('"', '\\"')
        stdin = ("(define read\n  (let ((read read) (stdin (open-input-string \""
                 + literal + "\")))\n    (lambda args (if (null? args) (read stdin)"
                 " (apply read args)))))\n")
        parts = [toyvm.prelude, suite_file("src", program + ".scm"),
                 suite_file("src", "common.scm"), stdin,
                 suite_file("src", "common-postlude.scm")]
        path = os.path.join(directory, program + ".scm")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(parts))
        print(f"{path} (count {count})")


def count_matching(rows):
    return len([r for r in rows if r["ratio"] and r["match"]])


def write_json(path, names, rows):
    """Writes the figures so far (after every program, so that an interrupted
    run keeps what it measured); returns the geometric means of the wall and
    the CPU ratios."""
    ratios = [r["ratio"] for r in rows if r["ratio"] and r["match"]]
    cpu = [r["cpu_ratio"] for r in rows if r["ratio"] and r["match"] and r["cpu_ratio"]]
    gmean, cpu_gmean = geometric_mean(ratios), geometric_mean(cpu)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"systems": names, "programs": rows, "geometric_mean": gmean,
                   "cpu_geometric_mean": cpu_gmean, "matching": len(ratios)}, f, indent=1)
    return gmean, cpu_gmean


def geometric_mean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


if __name__ == "__main__":
    main()
