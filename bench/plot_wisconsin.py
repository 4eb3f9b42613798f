#!/usr/bin/env python3
"""The selectivity series (the POSTGRES study's Figure 2.4) of a `quelkit
wisconsin --out DIR` run (reads DIR/wisconsin.json).

  python3 bench/plot_wisconsin.py DIR

writes next to it, as PNG and SVG, wisconsin_fig2_4_<tuples>.{png,svg}: ns per
tuple of tenk1 against selectivity, one panel per structure (heap: no key;
isam, hash: keyed on unique2), one line per back end and SQLite. Without a key
every tuple is read whatever the selectivity, so the cost per tuple grows only
with the rows stored; with one, only the qualifying range is read. Needs
Debian's python3-matplotlib.
"""

import json
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

from plot import run_dir, save  # noqa: E402  (bench/plot.py: its argument; PNG and SVG, 120 dpi)


def main():
    out_dir = run_dir(__doc__, "wisconsin.json")
    doc = json.load(open(os.path.join(out_dir, "wisconsin.json")))
    series = defaultdict(lambda: defaultdict(list))  # tuples -> (structure, backend) -> points
    for r in doc["results"]:
        if r["figure"] != "2.4" or not r["input"]:
            continue
        pct = 100.0 * r["rows"] / r["tuples"]
        series[r["tuples"]][(r["structure"], r["backend"])].append((pct, r["per_tuple_ns"]))
    if not series:
        sys.exit("wisconsin.json holds no Figure 2.4 statements")
    for tuples, lines in sorted(series.items()):
        structures = [s for s in ("heap", "isam", "hash") if any(k[0] == s for k in lines)]
        # One colour per back end, the same in every panel: a dozen lines
        # outrun the default cycle of ten.
        palette = plt.get_cmap("tab20").colors
        colour = {b: palette[i % len(palette)] for i, b in enumerate(sorted({b for _, b in lines}))}
        fig, axes = plt.subplots(1, len(structures), figsize=(5.5 * len(structures), 4), squeeze=False)
        for ax, st in zip(axes.flat, structures):
            for (s, backend), pts in sorted(lines.items()):
                if s != st:
                    continue
                pts.sort()
                style = "--" if backend == "sqlite" else "-o"
                ax.plot([p for p, _ in pts], [v for _, v in pts], style, label=backend, markersize=3,
                        color=colour[backend])
            ax.set_title(st if st == "heap" else f"{st} on unique2")
            ax.set_xlabel("selectivity (%)")
            ax.set_ylabel("ns per tuple of tenk1")
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        fig.suptitle(f"Figure 2.4, retrieve into: tenk1 of {tuples:,} tuples")
        name = f"wisconsin_fig2_4_{tuples}"
        save(fig, out_dir, name)
        print(f"wrote {os.path.join(out_dir, name)}.png and .svg")


if __name__ == "__main__":
    main()
