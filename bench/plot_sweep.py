#!/usr/bin/env python3
"""Plots of a `quelkit sweep --out DIR` run (reads DIR/sweep.csv).

  python3 bench/plot_sweep.py DIR

writes next to it, as PNG and SVG, sweep_<family>_<tuples>.{png,svg}: ns per
tuple against selectivity, one panel per back end, one line per selection
(branch, nobranch, auto). Where branch's curve rises above nobranch's in the
middle, mispredicted branches cost more than writing every row; auto should
follow the lower of the two. Needs Debian's python3-matplotlib.
"""

import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

from plot import run_dir  # noqa: E402  (bench/plot.py: the script's argument, checked)

STYLE = {"branch": "-o", "nobranch": "-s", "auto": "--^"}


def main():
    out_dir = run_dir(__doc__, "sweep.csv")
    rows = list(csv.DictReader(open(os.path.join(out_dir, "sweep.csv"))))
    if not rows:
        sys.exit("sweep.csv holds no points")
    curves = defaultdict(lambda: defaultdict(list))  # (tuples, family) -> (backend, selection) -> points
    for r in rows:
        curves[(r["tuples"], r["family"])][(r["backend"], r["selection"])].append(
            (float(r["percent"]), float(r["ns_per_tuple"])))
    for (tuples, family), lines in sorted(curves.items()):
        backends = sorted({b for b, _ in lines})
        cols = min(3, len(backends))
        nrows = (len(backends) + cols - 1) // cols
        # constrained layout: each panel's title clear of the axis label above it
        fig, axes = plt.subplots(nrows, cols, figsize=(5 * cols, 3.6 * nrows), squeeze=False, layout="constrained")
        for ax, b in zip(axes.flat, backends):
            for sel in ("branch", "nobranch", "auto"):
                pts = sorted(lines.get((b, sel), []))
                if pts:
                    ax.plot([p for p, _ in pts], [v for _, v in pts], STYLE[sel], label=sel, markersize=4)
            ax.set_title(b)
            ax.set_xlabel("selectivity (%)")
            ax.set_ylabel("ns per tuple")
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
        for ax in list(axes.flat)[len(backends):]:
            ax.axis("off")
        fig.suptitle(f"{family}, {int(tuples):,} tuples")
        name = f"sweep_{family}_{tuples}"
        for ext in ("png", "svg"):
            fig.savefig(os.path.join(out_dir, f"{name}.{ext}"), dpi=120, bbox_inches="tight")
        plt.close(fig)
        print(f"wrote {os.path.join(out_dir, name)}.png and .svg")


if __name__ == "__main__":
    main()
