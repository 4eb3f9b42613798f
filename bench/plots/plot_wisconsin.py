#!/usr/bin/env python3
"""The selectivity series (the POSTGRES study's Figure 2.4) of a `quelkit
wisconsin --out DIR` run (reads DIR/wisconsin.json).

  python3 bench/plots/plot_wisconsin.py DIR

writes next to it, as PNG and SVG, wisconsin_fig2_4_<tuples>.{png,svg}: ns per
tuple of tenk1 against selectivity, one panel per structure (heap: no key;
isam, hash: keyed on unique2), one line per back end and SQLite. Without a key
every tuple is read whatever the selectivity, so the cost per tuple grows only
with the rows stored; with one, only the qualifying range is read. A
wisconsin.json without Figure 2.4 statements, or not shaped as `quelkit
wisconsin` writes it, is said in one line (exit 1). Needs Debian's
python3-matplotlib.
"""

import os
from collections import defaultdict

# bench/plots/plot.py: matplotlib (its absence said in one line); its argument; PNG and SVG, 120 dpi; the file
# read and checked, a bad one said in one line
from plot import NUMBER, TEXT, check_fields, fail, load_json, plt, records, run_dir, save


def main():
    out_dir = run_dir(__doc__, "wisconsin.json")
    path = os.path.join(out_dir, "wisconsin.json")
    doc = load_json(path)
    series = defaultdict(lambda: defaultdict(list))  # tuples -> (structure, backend) -> points
    for i, r in enumerate(records(doc, path, "results", {"figure": TEXT})):
        if r["figure"] != "2.4" or not r.get("input"):
            continue
        # The fields the figure reads, checked on its statements only.
        check_fields(r, path, f"results[{i}]", {"structure": TEXT, "backend": TEXT, "rows": NUMBER,
                                                "tuples": NUMBER, "per_tuple_ns": NUMBER})
        if r["tuples"] <= 0 or r["tuples"] != int(r["tuples"]):
            fail(path, f"has a results[{i}] over {r['tuples']!r} tuples, not a whole number above 0")
        pct = 100.0 * r["rows"] / r["tuples"]
        series[int(r["tuples"])][(r["structure"], r["backend"])].append((pct, r["per_tuple_ns"]))
    if not series:
        fail(path, "holds no Figure 2.4 statements")
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
