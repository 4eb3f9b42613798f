#!/usr/bin/env python3
"""Adaptive against the best fixed back end, as issue 18 (docs/DESIGN.md,
"adaptive") measures it: statement time = prepare_ns + run_ns (wall clock,
preparation included; a background compile runs beside the scan and only a
wait for it is in run_ns), --no-plan-cache, in one warm process per back end
and size: the statement runs reps+1 times and the first is dropped; the
median of the rest counts. "Best fixed" is the best of interp:switch,
threaded:goto, stencil:fused and llvm:fused at --jit-opt 0 and at its default,
all under the same --selection. The target: adaptive within 10% of best fixed
or 5 us where that is larger, and never slower than threaded:goto by more.

  bench/plots/adaptive_table.py [--bin build/bin/quelkit] [--reps 5] [--rounds 3] [--queries bcdefghi]
                          [--quick] [--timeout 60] [--interleave]
"""
import argparse
import math
import json
import statistics
import subprocess
import sys

QUERIES = {
    "b": "retrieve (p.pnum)",
    "c": 'retrieve (p.pname, p.pnum) where p.pnum > 3 or p.pname = "processor" or p.color = "black"',
    "d": "retrieve (p.pnum) where p.qoh < log(9.5) * p.weight",
    "e": "retrieve (p.qoh) where p.pnum < 2500",
    "f": "retrieve (p.qoh, q.qoh) where p.pnum = q.pnum",
    "g": 'retrieve (p.qoh, q.qoh) where p.pnum = q.pnum and p.color = "black"',
    "h": "retrieve (p.qoh) where p.pnum = q.pnum and p.pnum < 2500",
    "i": 'retrieve (p.qoh, q.qoh) where p.pnum = q.pnum and p.color = "black" and p.qoh < log(9.5) * p.weight '
         'and q.qoh < log(9.5) * p.weight',
}
FIXED = [("interp:switch", []), ("threaded:goto", []), ("stencil:fused", []),
         ("llvm:fused", ["--jit-opt", "0"]), ("llvm:fused", [])]


def lanes_ns(binary, labels, extra, parts, query, reps, selection, timeout):
    """Median statement time of each back end in `labels` (name:mode, or a
    name alone for its default mode), all in one process: with several, `-b
    a,b,c` runs every statement on each in turn, so a phase of the machine
    running slower falls on all of them alike. The first statement is dropped.
    {} when the process runs past `timeout`."""
    text = "range of p is parts\nrange of q is parts\n" + "\n".join([query] * (reps + 1))
    cmd = [binary, "--parts", parts, "--no-plan-cache", "--format", "none", "--stats=json",
           "--selection", selection, "-b", ",".join(labels)] + extra + ["-e", text]
    try:
        # `timeout` is per back end: the lanes of one process share it.
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=timeout * len(labels)).stdout
    except subprocess.TimeoutExpired:
        return {}
    times = {}
    for j in map(json.loads, out.splitlines()):
        if j.get("stmt", 0) > 2:
            times.setdefault(j["backend"] + ":" + j["mode"], []).append(j["prepare_ns"] + j["run_ns"])
    if len(times) != len(labels) or any(len(v) != reps + 1 for v in times.values()):
        sys.exit("expected %d statements on each of %s, got %s: %s" %
                 (reps + 1, ",".join(labels), {k: len(v) for k, v in times.items()}, " ".join(cmd[:8])))
    return {k: statistics.median(v[1:]) for k, v in times.items()}


def statement_ns(binary, backend, extra, parts, query, reps, selection, timeout):
    t = lanes_ns(binary, [backend], extra, parts, query, reps, selection, timeout)
    return next(iter(t.values())) if t else float("inf")


def interleaved_round(a, q, parts):
    """One round of --interleave: the back ends at the default LLVM level in one
    process; llvm:fused at --jit-opt 0 in a second beside threaded:goto, scaled
    by the ratio of the two processes' threaded:goto (the anchor both ran)."""
    # A substituted query's executions share one prepared plan in a statement
    # (--no-plan-cache drops it when the statement ends), so llvm:fused
    # compiles (f)-(i)'s inner plan once a statement, as every back end prepares it.
    main_labels = ["interp:switch", "threaded:goto", "stencil:fused", "adaptive:tiered", "llvm:fused"]
    t = lanes_ns(a.bin, main_labels, [], parts, QUERIES[q], a.reps, a.selection, a.timeout)
    res = {("adaptive" if k.startswith("adaptive") else k): v for k, v in t.items()}
    o0 = lanes_ns(a.bin, ["threaded:goto", "llvm:fused"], ["--jit-opt", "0"], parts, QUERIES[q], a.reps,
                  a.selection, a.timeout)
    if "llvm:fused" in o0 and o0.get("threaded:goto") and res.get("threaded:goto"):
        res["llvm:fused:O0"] = o0["llvm:fused"] * res["threaded:goto"] / o0["threaded:goto"]
    for name in [b + (":O0" if extra else "") for b, extra in FIXED] + ["adaptive"]:
        res.setdefault(name, float("inf"))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/bin/quelkit")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3, help="processes per back end and size, interleaved")
    ap.add_argument("--queries", default="bcdefghi", help="the paper's queries to run, of b-i")
    ap.add_argument("--selection", default="auto")
    ap.add_argument("--quick", action="store_true", help="sizes up to 100,000 only")
    ap.add_argument("--interleave", action="store_true",
                    help="run the back ends in one process, statement by statement (-b a,b,c), and llvm:fused -O0 "
                         "in a second scaled by their common threaded:goto; on a machine whose speed drifts between "
                         "processes the per-process figures mis-rank cells")
    ap.add_argument("--timeout", type=float, default=60,
                    help="seconds a back end's process may take at one size; past it the back end counts as infinitely slow")
    a = ap.parse_args()
    if not a.queries or any(q not in QUERIES for q in a.queries) or a.rounds < 1 or a.reps < 1:
        ap.error("--queries takes letters of b-i; --rounds and --reps at least 1")
    plan = [(q, str(n)) for q in "bcd" if q in a.queries for n in (1, 210, 3360, 100000, 1000000, 10000000)
            if not (a.quick and n > 100000)]
    plan += [(q, "%d:isam:wide" % n) for q in "efghi" if q in a.queries for n in (3360, 100000)]
    print("| query | tuples | best fixed | best ns | adaptive ns | adaptive/best | threaded ns | target met |")
    print("|---|---:|---|---:|---:|---:|---:|---|")
    met_all = True
    for q, parts in plan:
        runs = [(b + (":O0" if extra else ""), b, extra) for b, extra in FIXED] + [("adaptive", "adaptive", [])]
        rounds = {name: [] for name, _, _ in runs}
        for _ in range(a.rounds):
            if a.interleave:
                r = interleaved_round(a, q, parts)
                for name in rounds:
                    rounds[name].append(r[name])
                continue
            for name, backend, extra in runs:
                rounds[name].append(statement_ns(a.bin, backend, extra, parts, QUERIES[q], a.reps, a.selection,
                                                 a.timeout))
        fixed = {name: statistics.median(rounds[name]) for name, _, _ in runs if name != "adaptive"}
        best_name = min(fixed, key=fixed.get)
        best = fixed[best_name]
        ada = statistics.median(rounds["adaptive"])
        thr = fixed["threaded:goto"]
        margin = lambda ref: max(0.10 * ref, 5000.0)
        measured = math.isfinite(best) and math.isfinite(ada)
        ok = measured and ada <= best + margin(best) and ada <= thr + margin(thr)
        met_all = met_all and ok
        print("| (%s) | %s | %s | %.0f | %.0f | %.2f | %.0f | %s |" %
              (q, parts, best_name, best, ada, ada / best if measured else float("nan"), thr,
               "yes" if ok else "NO" if measured else "not measured (timed out)"), flush=True)
    print("\nall met" if met_all else "\nnot all met")
    return 0 if met_all else 1


if __name__ == "__main__":
    sys.exit(main())
