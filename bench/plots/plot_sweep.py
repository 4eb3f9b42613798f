#!/usr/bin/env python3
"""Plots of a `quelkit sweep --out DIR` run (reads DIR/sweep.csv).

  python3 bench/plots/plot_sweep.py DIR

writes next to it, as PNG and SVG, sweep_<family>_<tuples>.{png,svg}: ns per
tuple against selectivity, one panel per back end, one line per selection
(branch, nobranch, auto; one, "tuple at a time", for a back end without a
page kernel, whose selection column is empty). Where branch's curve rises above nobranch's in the
middle, mispredicted branches cost more than writing every row; auto should
follow the lower of the two. A sweep.csv without points, or not shaped as
`quelkit sweep` writes it, is said in one line (exit 1). Needs Debian's
python3-matplotlib.
"""

import csv
import os
from collections import defaultdict

# bench/plots/plot.py: matplotlib, imported once (its absence said in one line); the argument checked; a bad file said
from plot import fail, plt, run_dir

COLUMNS = ("tuples", "family", "backend", "selection", "percent", "ns_per_tuple")

# "": a back end without a page kernel, one curve (it evaluates tuple at a time whatever the selection)
STYLE = {"branch": "-o", "nobranch": "-s", "auto": "--^", "": "-x"}
LABEL = {"": "tuple at a time"}


def main():
    out_dir = run_dir(__doc__, "sweep.csv")
    path = os.path.join(out_dir, "sweep.csv")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            header = reader.fieldnames or []
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        fail(path, f"cannot be read as CSV ({e})")
    if not rows:
        fail(path, "holds no points")
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        fail(path, f"lacks the column{'s' if len(missing) > 1 else ''} {', '.join(missing)} (its header: "
                   f"{','.join(str(h) for h in header)})")
    curves = defaultdict(lambda: defaultdict(list))  # (tuples, family) -> (backend, selection) -> points
    for line, r in enumerate(rows, start=2):  # line 1 is the header
        try:
            point = (float(r["percent"]), float(r["ns_per_tuple"]))
            tuples = int(r["tuples"])
        except (TypeError, ValueError):
            fail(path, f"line {line}: tuples, percent and ns_per_tuple must be numbers, not "
                       f"{r['tuples']!r}, {r['percent']!r}, {r['ns_per_tuple']!r}")
        curves[(tuples, r["family"])][(r["backend"], r["selection"])].append(point)
    for (tuples, family), lines in sorted(curves.items()):
        backends = sorted({b for b, _ in lines})
        cols = min(3, len(backends))
        nrows = (len(backends) + cols - 1) // cols
        # constrained layout: each panel's title clear of the axis label above it
        fig, axes = plt.subplots(nrows, cols, figsize=(5 * cols, 3.6 * nrows), squeeze=False, layout="constrained")
        for ax, b in zip(axes.flat, backends):
            for sel in STYLE:
                pts = sorted(lines.get((b, sel), []))
                if pts:
                    ax.plot([p for p, _ in pts], [v for _, v in pts], STYLE[sel], label=LABEL.get(sel, sel),
                            markersize=4)
            ax.set_title(b)
            # The conjunctions' point is s.pct's selectivity; s.half = 0
            # keeps half of it (sweep.csv's rows: what ran).
            ax.set_xlabel("selectivity (%)" if family == "single"
                          else "s.pct < K: K (%); the conjunction selects about K/2")
            ax.set_ylabel("ns per tuple")
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
        for ax in list(axes.flat)[len(backends):]:
            ax.axis("off")
        fig.suptitle(f"{family}, {tuples:,} tuples")
        name = f"sweep_{family}_{tuples}"
        for ext in ("png", "svg"):
            fig.savefig(os.path.join(out_dir, f"{name}.{ext}"), dpi=120, bbox_inches="tight")
        plt.close(fig)
        print(f"wrote {os.path.join(out_dir, name)}.png and .svg")


if __name__ == "__main__":
    main()
