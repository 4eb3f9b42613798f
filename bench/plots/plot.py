#!/usr/bin/env python3
"""Plots of a `quelkit paper --out DIR` run (reads DIR/paper.json).

  python3 bench/plots/plot.py DIR

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
Each series (back end, reference loop, SQLite, scan, floor) has one colour in
every panel and figure. A paper.json that is not JSON or not shaped as
`quelkit paper` writes it is said in one line (exit 1); a wrong argument is a
usage error (exit 2). Needs Debian's python3-matplotlib (`./kit paper --plots`
installs it).
"""

import json
import os
import sys

try:
    import matplotlib
except ImportError:  # one line, not a traceback (plot_sweep.py and plot_wisconsin.py import it from here)
    sys.exit(f"{os.path.basename(sys.argv[0])}: needs Debian's python3-matplotlib "
             "(apt-get install python3-matplotlib; ./kit paper --plots installs it)")

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


def fail(path, why):
    """A run's file the script cannot plot: one line saying which file and
    what is wrong with it (exit 1), not a Python traceback."""
    print(f"{os.path.basename(sys.argv[0])}: {path} {why}", file=sys.stderr)
    sys.exit(1)


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        fail(path, f"is not JSON ({e.msg} at line {e.lineno}, column {e.colno})")
    except (OSError, UnicodeDecodeError) as e:
        fail(path, f"cannot be read ({e})")


NUMBER = "a number"
NUMBER_OR_NULL = "a number or null"
TEXT = "a string"


def records(doc, path, key, fields, required=True):
    """doc[key], checked to be a list of objects each holding `fields`
    ({name: NUMBER or TEXT}) of those types; fails naming the first one that
    does not. A key that is absent is [] unless required."""
    if not isinstance(doc, dict):
        fail(path, f"is not a JSON object with \"{key}\" (it holds a {type(doc).__name__})")
    if key not in doc and not required:
        return []
    rows = doc.get(key)
    if not isinstance(rows, list):
        fail(path, f"has no \"{key}\" list")
    for i, r in enumerate(rows):
        check_fields(r, path, f"{key}[{i}]", fields)
    return rows


def check_fields(r, path, where, fields):
    """r, the object at `where` in the file, holds `fields` of their types."""
    if not isinstance(r, dict):
        fail(path, f"has a {where} that is not an object")
    for name, kind in fields.items():
        v = r.get(name)
        number = isinstance(v, (int, float)) and not isinstance(v, bool)
        ok = isinstance(v, str) if kind is TEXT else number or (kind is NUMBER_OR_NULL and name in r and v is None)
        if not ok:
            fail(path, f"has a {where} whose \"{name}\" is {'missing' if v is None else repr(v)}, not {kind}")


def save(fig, out_dir, name):
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out_dir, f"{name}.{ext}"), dpi=120, bbox_inches="tight")
    plt.close(fig)


REFERENCES = ("reference", "sqlite", "scan (walk only)", "floor (stream)")


def colours(results):
    """One colour per series name, the same in every panel and figure. Taken
    by position in each panel, a panel without a reference loop ((e)-(i))
    drew its scan in the colour the legend gives the reference. tab20: the
    back ends and references outnumber the default cycle's ten; its strong
    colours first, then their pale pairs, so that a small run's are apart."""
    tab20 = plt.get_cmap("tab20").colors
    palette = tab20[0::2] + tab20[1::2]
    return {b: palette[i % len(palette)] for i, b in enumerate(dict.fromkeys(r["backend"] for r in results))}


def structure(r):
    # Reports written before "structure" existed ran the keyed queries on ISAM.
    return r.get("structure", "isam" if r.get("keyed") else "heap")


def plot_per_tuple(data, out_dir, colour):
    # A query that reads no relation ((a)) has no per-tuple figure (null): no panel.
    results = [r for r in data["results"] if r.get("sink", "rows") == "rows" and r["per_tuple_ns"] is not None]
    # One panel per query and storage structure (the keyed queries run on
    # ISAM and on hash).
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
            ax.plot(xs, ys, style, marker="o", markersize=3, label=b, color=colour[b])
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
    fig.suptitle("quelkit paper: ns per tuple against relation size\n" + str(data.get("machine", "")), fontsize=9)
    save(fig, out_dir, "per_tuple")


def plot_one_off(data, out_dir, colour):
    first = data.get("first_prepare_ns") or {}
    results = [r for r in data["results"]
               if r.get("sink", "rows") == "rows" and structure(r) == "heap" and r["backend"] not in REFERENCES
               and r["per_tuple_ns"] is not None]
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
            ax.plot(xs, ys, "-", marker="o", markersize=3, label=b, color=colour[b])
        ax.set_title(f"({q}) heap, prepare " + ("first-in-process" if use_first else "warm-process"))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("tuples in the relation")
        ax.set_ylabel("ns per tuple, (prepare + statement) / tuples")
        ax.grid(True, which="both", alpha=0.3)
    h, l = axes[0][0].get_legend_handles_labels()
    fig.legend(h, l, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(len(l), 5))
    fig.suptitle("quelkit paper: one-off cost per tuple (crossings are break-evens)\n" + str(data.get("machine", "")),
                 fontsize=9)
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
    path = os.path.join(out_dir, "paper.json")
    data = load_json(path)
    # What the plots read, checked before any is drawn: each result's fields
    # (one_off's prepare and statement times too), the compile levels' and
    # the first-in-process prepares' when present.
    results = records(data, path, "results", {"query": TEXT, "backend": TEXT, "tuples": NUMBER,
                                              "per_tuple_ns": NUMBER_OR_NULL, "prepare_ns": NUMBER,
                                              "statement_ns": NUMBER})
    if not results:
        fail(path, "holds no results")
    if not any(r.get("sink", "rows") == "rows" for r in results):
        fail(path, "holds no --sink rows results to plot (the per-tuple figures are drawn from those)")
    for i, r in enumerate(results):
        if r["tuples"] <= 0:
            fail(path, f"has a results[{i}] over {r['tuples']} tuples: ns per tuple is undefined")
        for name in ("structure", "sink"):
            if name in r and not isinstance(r[name], str):
                fail(path, f"has a results[{i}] whose \"{name}\" is {r[name]!r}, not {TEXT}")
    records(data, path, "compile_levels", {"backend": TEXT, "query": TEXT, "level": NUMBER, "prepare_ns": NUMBER,
                                           "min_ns": NUMBER, "max_ns": NUMBER}, required=False)
    first = data.get("first_prepare_ns") or {}
    if not isinstance(first, dict) or not all(isinstance(v, (int, float)) for v in first.values()):
        fail(path, "has a \"first_prepare_ns\" that is not an object of back end: nanoseconds")
    colour = colours(results)
    try:
        plot_per_tuple(data, out_dir, colour)
        plot_one_off(data, out_dir, colour)
        plot_compile(data, out_dir)
    except ValueError as e:  # values matplotlib refuses (say, a min_ns above its median): still one line
        fail(path, f"holds values that cannot be plotted ({e})")
    print(f"plots: {out_dir}/per_tuple, one_off and compile (.png .svg)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
