#!/usr/bin/env python3
"""Plots of a `quelkit paper --out DIR` run (reads DIR/paper.json).

  python3 bench/plot.py DIR

writes next to the report, as PNG and SVG:
  per_tuple.{png,svg}   ns per tuple against relation size per back end, one
                        panel per query, log-log: warm statement time, prepare
                        excluded, so these lines need not cross
  one_off.{png,svg}     one-off cost per tuple, (prepare + statement) / tuples,
                        against relation size for every back end, heap queries:
                        where a compiling back end's line crosses the
                        interpreter's is its break-even (the report's
                        break-even rows can be read off it). Prepare is the
                        first-in-process one for (d), where the report measured
                        it, and the warm-process one elsewhere (the title says)
  compile.{png,svg}     compile (cold prepare) time per back end and --jit-opt level,
                        on a log axis (stencils take microseconds, gccjit tens of ms)
Needs Debian's python3-matplotlib (`./kit paper --plots` installs it).
"""

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


def run_dir(doc, wants):
    """The one argument of a plot script: the directory a quelkit run wrote
    `wants` into (its --out DIR). Anything else is a usage error, said with
    the script's usage text (exit 2), not a Python traceback."""
    name = os.path.basename(sys.argv[0])
    if len(sys.argv) != 2:
        print(doc, file=sys.stderr)
        sys.exit(2)
    out_dir = sys.argv[1]
    if not os.path.isdir(out_dir):
        why = "is not a directory" if os.path.exists(out_dir) else "does not exist"
    elif not os.path.isfile(os.path.join(out_dir, wants)):
        why = f"holds no {wants}"
    else:
        return out_dir
    print(f"{name}: {out_dir} {why}: give the directory the run wrote {wants} into (its --out DIR)\n\n{doc}",
          file=sys.stderr)
    sys.exit(2)


def save(fig, out_dir, name):
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out_dir, f"{name}.{ext}"), dpi=120, bbox_inches="tight")
    plt.close(fig)


REFERENCES = ("reference", "sqlite", "scan (walk only)", "floor (stream)")


def plot_per_tuple(data, out_dir):
    results = [r for r in data["results"] if r.get("sink", "rows") == "rows"]
    # One panel per query and storage structure (the keyed queries run on
    # ISAM and on hash); reports written before "structure" existed are ISAM.
    def structure(r):
        return r.get("structure", "isam" if r["keyed"] else "heap")

    order = {"heap": 0, "isam": 1, "hash": 2}  # the paper's ISAM before hash
    queries = sorted({(r["query"], structure(r)) for r in results}, key=lambda k: (k[0], order.get(k[1], 3)))
    cols = 3
    rows = (len(queries) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.8 * rows), squeeze=False, constrained_layout=True)
    for ax, (q, st) in zip([a for row in axes for a in row], queries):
        mine = [r for r in results if r["query"] == q and structure(r) == st]
        backends = list(dict.fromkeys(r["backend"] for r in mine))
        for b in backends:
            pts = sorted((r["tuples"], r["per_tuple_ns"]) for r in mine if r["backend"] == b)
            xs, ys = zip(*pts)
            style = "--" if b in REFERENCES else "-"
            ax.plot(xs, ys, style, marker="o", markersize=3, label=b)
        ax.set_title(f"({q})" + (" heap" if st == "heap" else f" wide, {st.upper()}"))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("tuples in the relation")
        ax.set_ylabel("ns per tuple (statement / tuples)")
        ax.grid(True, which="both", alpha=0.3)
    for ax in [a for row in axes for a in row][len(queries):]:
        ax.axis("off")
    # One legend for all panels: the union of their lines (not every query has
    # a reference loop).
    seen = {}
    for ax in [a for row in axes for a in row]:
        for h, l in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(l, h)
    fig.legend(list(seen.values()), list(seen.keys()), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(len(seen), 5))
    fig.suptitle("quelkit paper: ns per tuple against relation size\n" + data.get("machine", ""), fontsize=9)
    save(fig, out_dir, "per_tuple")


def plot_one_off(data, out_dir):
    first = data.get("first_prepare_ns", {})
    results = [r for r in data["results"]
               if r.get("sink", "rows") == "rows" and r["structure"] == "heap" and r["backend"] not in REFERENCES]
    queries = sorted({r["query"] for r in results})
    if not queries:
        return
    fig, axes = plt.subplots(1, len(queries), figsize=(5 * len(queries), 4), squeeze=False, constrained_layout=True)
    for ax, q in zip(axes[0], queries):
        mine = [r for r in results if r["query"] == q]
        use_first = q == "d" and bool(first)
        for b in dict.fromkeys(r["backend"] for r in mine):
            prep = first.get(b) if use_first else None
            pts = sorted((r["tuples"], ((prep if prep is not None else r["prepare_ns"]) + r["statement_ns"]) / r["tuples"])
                         for r in mine if r["backend"] == b)
            xs, ys = zip(*pts)
            ax.plot(xs, ys, "-", marker="o", markersize=3, label=b)
        ax.set_title(f"({q}) heap, prepare " + ("first-in-process" if use_first else "warm-process"))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("tuples in the relation")
        ax.set_ylabel("ns per tuple, (prepare + statement) / tuples")
        ax.grid(True, which="both", alpha=0.3)
    h, l = axes[0][0].get_legend_handles_labels()
    fig.legend(h, l, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(len(l), 5))
    fig.suptitle("quelkit paper: one-off cost per tuple (crossings are break-evens)\n" + data.get("machine", ""), fontsize=9)
    save(fig, out_dir, "one_off")


def plot_compile(data, out_dir):
    levels = data.get("compile_levels", [])
    if not levels:
        return
    keys = list(dict.fromkeys((l["backend"], l["query"]) for l in levels))
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(keys)), 4))
    width = 0.2
    for lv in range(4):
        xs, ys, lo, hi = [], [], [], []
        for i, (b, q) in enumerate(keys):
            for l in levels:
                if l["backend"] == b and l["query"] == q and l["level"] == lv:
                    xs.append(i + (lv - 1.5) * width)
                    ys.append(l["prepare_ns"] / 1e6)
                    lo.append((l["prepare_ns"] - l["min_ns"]) / 1e6)
                    hi.append((l["max_ns"] - l["prepare_ns"]) / 1e6)
        ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=f"--jit-opt {lv}")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([f"{b}\n({q})" for b, q in keys], fontsize=8)
    # Log scale: stencils stitch in microseconds, gccjit compiles in tens of
    # milliseconds; on a linear axis the stencil bars do not show.
    ax.set_yscale("log")
    ax.set_ylabel("compile time, ms (median, min-max; log)")
    ax.legend()
    ax.grid(True, axis="y", alpha=0.3)
    save(fig, out_dir, "compile")


def main():
    out_dir = run_dir(__doc__, "paper.json")
    with open(os.path.join(out_dir, "paper.json")) as f:
        data = json.load(f)
    plot_per_tuple(data, out_dir)
    plot_one_off(data, out_dir)
    plot_compile(data, out_dir)
    print(f"plots: {out_dir}/per_tuple, one_off and compile (.png .svg)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
