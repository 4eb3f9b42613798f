#!/usr/bin/env python3
"""quelkit_bench's counters and output formats, and quelkit_stencil_numbers'
arguments, on short runs.

  bench_test.py QUELKIT_BENCH [QUELKIT_STENCIL_NUMBERS]

(a), which reads no relation, is registered once per back end, at 0 tuples.
quelkit_bench runs one benchmark of each family (paper/ first, then
reference/, sqlite/ and prepare/) at a minimum time of 0.01 s, writing JSON to
stdout and CSV to a file: Google Benchmark 1.7.1's CSV reporter aborts when a
later run has a counter the first did not, so every family must carry the
same ones. In the JSON, ns_per_tuple is nanoseconds (it was seconds, an
inverted rate): Time / tuples for paper/, reference/ and sqlite/; prepare/'s
Time is its prepare, prepare_ns. quelkit_stencil_numbers (a build with the
stencil back end) answers --help and refuses an unknown argument (exit 2)
without measuring anything. The JSON's context carries the kit's settings.
"""

import csv
import io
import json
import subprocess
import sys
import tempfile

FILTER = ("^(paper/a/interp:switch/0/|paper/b/interp:switch/210/|reference/c/210/|sqlite/c/210/|prepare/c/interp:switch($|/))")
COUNTERS = ("rows", "ns_per_tuple", "prepare_ns", "prepares", "cache_hits")


def near(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-9)


def check_names(bench):
    """(a) reads no relation: one paper/ and one sqlite/ benchmark per back end
    at the 0 tuples it reads, not six copies of one figure, the largest over a
    10M-tuple relation built for nothing; (b) keeps every size."""
    p = subprocess.run([bench, "--benchmark_list_tests=true"], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"quelkit_bench --benchmark_list_tests: exit {p.returncode}:\n{p.stderr[-2000:]}")
    names = p.stdout.split()
    # A name's size: paper/<query>/<backend:mode>/<tuples>/..., sqlite/<query>/<tuples>/...
    a = {n.split("/min_time")[0] for n in names if n.startswith(("paper/a/", "sqlite/a/"))}
    wrong = [n for n in a if n.split("/")[3 if n.startswith("paper/") else 2] != "0"]
    if wrong or "paper/a/interp:switch/0" not in a or "sqlite/a/0" not in a:
        sys.exit(f"(a) is registered at sizes it does not read: {sorted(wrong)[:6]} (of {len(a)})")
    b = {n.split("/")[3] for n in names if n.startswith("paper/b/interp:switch/")}
    if b != {"1", "210", "3360", "100000", "1000000", "10000000"}:
        sys.exit(f"paper/b/interp:switch sizes: {sorted(b)}")


def check_bench(bench):
    with tempfile.NamedTemporaryFile(suffix=".csv") as out:
        p = subprocess.run([bench, f"--benchmark_filter={FILTER}", "--benchmark_min_time=0.01",
                            "--benchmark_format=json", f"--benchmark_out={out.name}", "--benchmark_out_format=csv"],
                           capture_output=True, text=True, timeout=240)
        if p.returncode != 0:
            sys.exit(f"quelkit_bench exit {p.returncode}:\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
        text = out.read().decode()
    # The file opens with the run's context (date, machine), then the table.
    start = text.find("\nname,")
    rows = list(csv.DictReader(io.StringIO(text[start + 1:]))) if start >= 0 else []
    doc = json.loads(p.stdout)
    runs = doc["benchmarks"]
    # The context names what the kit measured with (bench/gbench/context.h), beside
    # the library's host fields: its build type, not the library's, and every
    # back end the binary registers.
    ctx = doc["context"]
    missing = [k for k in ("quelkit_version", "quelkit_commit", "quelkit_build", "quelkit_machine", "quelkit_backends", "quelkit_page_bytes",
                           "quelkit_jit_opt", "quelkit_jit_cpu", "quelkit_selection") if not ctx.get(k)]
    if missing or "interp:switch" not in ctx["quelkit_backends"].split(","):
        sys.exit(f"JSON context lacks the kit's settings {missing}: {ctx}")
    families = {r["name"].split("/")[0] for r in runs}
    if families != {"paper", "reference", "sqlite", "prepare"}:
        sys.exit(f"expected a run of each family, got {sorted(families)}")
    if not rows or any(not r.get(c) for r in rows if r["error_occurred"] != "true" for c in COUNTERS):
        sys.exit(f"CSV: not every run has every counter {COUNTERS}:\n{rows[:3]}")
    for r in runs:
        if r.get("run_type") != "iteration":
            continue
        name, family = r["name"], r["name"].split("/")[0]
        if r.get("error_occurred"):
            sys.exit(f"{name}: {r.get('error_message')}")
        if r["time_unit"] != "ns" or any(c not in r for c in COUNTERS):
            sys.exit(f"{name}: time unit {r['time_unit']}, counters {sorted(r)}")
        if family == "prepare":
            # Time is the cold prepare; so is the counter.
            if not near(r["real_time"], r["prepare_ns"], 1e-6) or r["prepare_ns"] <= 0 or r["prepares"] < 1:
                sys.exit(f"{name}: Time {r['real_time']} ns is not its prepare_ns {r['prepare_ns']}")
            continue
        n = int(name.split("/")[3] if family == "paper" else name.split("/")[2])
        if name.startswith("paper/a/"):
            # (a) reads no relation: no per-tuple figure, no items processed.
            if r["ns_per_tuple"] != 0 or "items_per_second" in r:
                sys.exit(f"{name}: reads no relation, yet ns_per_tuple {r['ns_per_tuple']}, "
                         f"items_per_second {r.get('items_per_second')}")
            continue
        # One clock in every family: items per second is tuples over the
        # same Time (reference/ and sqlite/ gave it over CPU time).
        if not near(r["items_per_second"], 1e9 / r["real_time"] * n, 1e-6):
            sys.exit(f"{name}: items_per_second {r['items_per_second']} is not tuples / Time")
        # Every family's Time is manual: the same readings its counter sums
        # (paper/: run_ns; reference/, sqlite/: each iteration's), so the two
        # agree to rounding on any machine, however busy.
        if not near(r["ns_per_tuple"], r["real_time"] / n, 1e-6):
            sys.exit(f"{name}: ns_per_tuple {r['ns_per_tuple']} is not Time / tuples = {r['real_time'] / n} ns")
        if family != "paper" and (r["prepare_ns"], r["prepares"], r["cache_hits"]) != (0, 0, 0):
            sys.exit(f"{name}: prepares nothing in its timed runs, yet its counters say {r}")


def check_stencil_numbers(exe):
    p = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or "usage: quelkit_stencil_numbers" not in p.stdout or "--tuples" not in p.stdout:
        sys.exit(f"quelkit_stencil_numbers --help: exit {p.returncode}:\n{p.stdout}{p.stderr}")
    for args, says in ((["--bogus"], "unknown argument '--bogus'"), (["--tuples"], "--tuples needs a value"),
                       (["--runs", "0"], "--runs takes a whole number"), (["--prepares", "x"], "not 'x'")):
        p = subprocess.run([exe] + args, capture_output=True, text=True, timeout=60)
        if p.returncode != 2 or says not in p.stderr or p.stdout:
            sys.exit(f"quelkit_stencil_numbers {' '.join(args)}: exit {p.returncode}, expected 2 saying '{says}' "
                     f"before measuring:\n{p.stdout[-1000:]}{p.stderr[-1000:]}")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    check_names(sys.argv[1])
    check_bench(sys.argv[1])
    if len(sys.argv) == 3:
        check_stencil_numbers(sys.argv[2])
    print("quelkit_bench: every family's counters, in JSON and CSV" +
          ("; quelkit_stencil_numbers: --help and usage errors" if len(sys.argv) == 3 else ""))


if __name__ == "__main__":
    main()
