#!/usr/bin/env python3
"""The plot scripts of bench/plots/ on small runs of the reports they plot.

  plots_test.py QUELKIT SOURCE_DIR

Runs `quelkit sweep`, `quelkit paper` and `quelkit wisconsin --quick` at small
sizes into a temporary directory, then bench/plots/plot_sweep.py, bench/plots/plot.py and
bench/plots/plot_wisconsin.py on their output, and checks that every figure the
scripts promise is written, as a PNG (its signature) and an SVG (an <svg>
element). The plots run with Debian's python3, for which ./kit installs
python3-matplotlib; without matplotlib this exits 77 (skipped). The figures
are only as good as the run's numbers: this checks that the scripts read what
the reports write, not what the plots show.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from plotting_python import plotting_python  # beside this file

PNG = b"\x89PNG\r\n\x1a\n"


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p.stdout + p.stderr


def expect_figure(path_without_ext):
    for ext, check in ((".png", lambda b: b.startswith(PNG)), (".svg", lambda b: b"<svg" in b[:2000])):
        path = path_without_ext + ext
        if not os.path.isfile(path):
            sys.exit(f"missing: {path}")
        with open(path, "rb") as f:
            data = f.read()
        if len(data) < 1000 or not check(data):
            sys.exit(f"not a {ext[1:]} figure: {path} ({len(data)} bytes)")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    quelkit, src = sys.argv[1], sys.argv[2]
    py = plotting_python()
    if not py:
        print("skipped: no python3 with matplotlib (./kit installs python3-matplotlib)")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="quelkit-plots-")
    try:
        sweep, paper, wis = (os.path.join(tmp, d) for d in ("sweep", "paper", "wisconsin"))
        # Two back ends (an interpreter and a kernel), two families' worth of
        # points: the script draws a panel per back end and a line per selection.
        run([quelkit, "sweep", "--sizes", "20000", "-b", "interp,vector", "--points", "0,50,100", "--reps", "5",
             "--budget", "0.05", "--min-time", "0.001", "--out", sweep])
        out = run([py, os.path.join(src, "bench/plots/plot_sweep.py"), sweep])
        for family in ("single", "pct_first", "half_first"):
            expect_figure(os.path.join(sweep, f"sweep_{family}_20000"))
        # Three back ends, a JIT among them where the build has one (its
        # compile-by-level figure): every back end took most of this test's
        # time, and drew no other figure.
        # The aggregates section at a small size too: its default is 1M and 10M.
        args = ["--sizes", "1000,10000", "--keyed-sizes", "3360", "--count-sizes", "10000",
                "--aggregate-sizes", "1000", "--reps", "3",
                "--target-reps", "3", "--min-time", "0.001", "--out", paper]
        p = subprocess.run([quelkit, "paper", "-b", "interp,vector,llvm:fused"] + args, capture_output=True,
                           text=True, timeout=300)
        if p.returncode == 2:  # no llvm back end in this build
            run([quelkit, "paper", "-b", "interp,vector"] + args)
        elif p.returncode != 0:
            sys.exit(f"failed ({p.returncode}): quelkit paper\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
        out = run([py, os.path.join(src, "bench/plots/plot.py"), paper])
        with open(os.path.join(paper, "paper.json")) as f:
            compiled = bool(json.load(f).get("compile_levels"))  # none in a build without JITs
        for name in ("per_tuple", "one_off") + (("compile",) if compiled else ()):
            expect_figure(os.path.join(paper, name))
        run([quelkit, "wisconsin", "--quick", "--out", wis])
        out = run([py, os.path.join(src, "bench/plots/plot_wisconsin.py"), wis])
        figures = [f for f in os.listdir(wis) if f.startswith("wisconsin_fig2_4_") and f.endswith(".png")]
        if not figures:
            sys.exit(f"plot_wisconsin.py wrote no figure:\n{out}")
        for f in figures:
            expect_figure(os.path.join(wis, f[:-4]))
        # A file, or a directory without the run's output, given instead of
        # the run's directory: the usage and exit 2, not a traceback.
        for script in ("plot.py", "plot_sweep.py", "plot_wisconsin.py"):
            for wrong, says in ((os.path.join(wis, "wisconsin.json"), "is not a directory"), (tmp, "holds no ")):
                p = subprocess.run([py, os.path.join(src, "bench", "plots", script), wrong], capture_output=True, text=True,
                                   timeout=300)
                if p.returncode != 2 or says not in p.stderr or "Traceback" in p.stderr:
                    sys.exit(f"{script} {wrong}: exit {p.returncode}, expected 2 saying '{says}':\n{p.stderr[-2000:]}")
        print("plots: sweep, paper and wisconsin figures written")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
