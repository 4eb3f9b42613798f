#!/usr/bin/env python3
"""The plot scripts of bench/plots/ on run directories whose file is empty, not
JSON or CSV, or not shaped as the report writes it.

  bad_files_test.py SOURCE_DIR

Each case is a directory holding one such paper.json, sweep.csv or
wisconsin.json: the script must exit 1 with one line on stderr naming the file
and no traceback (they used to raise JSONDecodeError, KeyError, TypeError or
matplotlib's "Number of rows must be a positive integer"). A small well-formed
file of each is plotted too, and plot.py gives each series one colour in every
panel (by position, a panel without a reference loop drew its scan in the
reference's colour). Without python3-matplotlib each says so in one line.
Needs no quelkit run; without matplotlib this exits 77
(skipped).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from plotting_python import plotting_python  # beside this file

RESULT = {"query": "b", "tuples": 10, "keyed": False, "structure": "heap", "backend": "interp:switch",
          "per_tuple_ns": 5.0, "prepare_ns": 100.0, "statement_ns": 50.0, "sink": "rows"}
FIG24 = {"figure": "2.4", "input": 100, "structure": "heap", "backend": "interp:switch", "rows": 10,
         "tuples": 100, "per_tuple_ns": 3.0}
SWEEP_HEADER = "tuples,family,backend,selection,percent,ns_per_tuple\n"

# (script, file, its text, what the line must say); exit 1 expected.
BAD = [
    ("plot.py", "paper.json", "", "is not JSON"),
    ("plot.py", "paper.json", '{"results": [', "is not JSON"),
    ("plot.py", "paper.json", "[]", "is not a JSON object"),
    ("plot.py", "paper.json", '{"machine": "x"}', 'has no "results" list'),
    ("plot.py", "paper.json", '{"results": []}', "holds no results"),
    ("plot.py", "paper.json", json.dumps({"results": [{"query": "b"}]}), '"backend" is missing'),
    ("plot.py", "paper.json", json.dumps({"results": [dict(RESULT, tuples="10")]}), '"tuples" is \'10\''),
    ("plot.py", "paper.json", json.dumps({"results": [dict(RESULT, per_tuple_ns="5")]}), '"per_tuple_ns" is \'5\''),
    ("plot.py", "paper.json", json.dumps({"results": [dict(RESULT, sink="count")]}), "no --sink rows results"),
    ("plot.py", "paper.json", json.dumps({"results": [RESULT], "compile_levels": [{"backend": "x"}]}),
     "compile_levels[0]"),
    ("plot_sweep.py", "sweep.csv", "", "holds no points"),
    ("plot_sweep.py", "sweep.csv", SWEEP_HEADER, "holds no points"),
    ("plot_sweep.py", "sweep.csv", "a,b\n1,2\n", "lacks the columns"),
    ("plot_sweep.py", "sweep.csv", SWEEP_HEADER + "100,single,interp,branch,x,3\n", "line 2"),
    ("plot_wisconsin.py", "wisconsin.json", "", "is not JSON"),
    ("plot_wisconsin.py", "wisconsin.json", "[1]", "is not a JSON object"),
    ("plot_wisconsin.py", "wisconsin.json", '{"results": []}', "holds no Figure 2.4 statements"),
    ("plot_wisconsin.py", "wisconsin.json", json.dumps({"results": [{"figure": "2.4", "input": 5}]}),
     '"structure" is missing'),
]

# The panels of (f): no reference loop, so the scan is the first reference there.
GOOD_PAPER = {"machine": "test", "results": [
    dict(RESULT, backend=b, query=q, tuples=n, keyed=q == "f", structure="isam" if q == "f" else "heap",
         per_tuple_ns=ns * (2 if n == 10 else 1))
    for q, backends in (("b", ("interp:switch", "reference", "scan (walk only)", "floor (stream)")),
                        ("f", ("interp:switch", "scan (walk only)", "floor (stream)")))
    for ns, b in enumerate(backends, start=1) for n in (10, 100)] + [
    # (a) reads no relation: no per-tuple figure, and no panel for it.
    dict(RESULT, query="a", tuples=n, per_tuple_ns=None) for n in (10, 100)]}
GOOD = [
    ("plot.py", "paper.json", json.dumps(GOOD_PAPER), "per_tuple.png"),
    ("plot_sweep.py", "sweep.csv", SWEEP_HEADER + "100,single,interp,branch,0,3\n100,single,interp,branch,50,4\n",
     "sweep_single_100.png"),
    ("plot_wisconsin.py", "wisconsin.json", json.dumps({"results": [FIG24]}), "wisconsin_fig2_4_100.png"),
]


def run(py, src, script, directory):
    return subprocess.run([py, os.path.join(src, "bench", "plots", script), directory], capture_output=True, text=True,
                          timeout=120)


def check_colours(py, src):
    """per_tuple's panels: a series has one colour in all of them."""
    code = """if True:
        import json, sys
        sys.path.insert(0, sys.argv[1])
        import plot
        data, figs = json.load(open(sys.argv[2])), []
        plot.save = lambda fig, out_dir, name: figs.append(fig)
        plot.plot_per_tuple(data, None, plot.colours(data["results"]))
        seen, wrong = {}, []
        for ax in figs[0].axes:
            for line in ax.get_lines():
                c = seen.setdefault(line.get_label(), line.get_color())
                if c != line.get_color():
                    wrong.append(f"{line.get_label()} in {ax.get_title()}")
        print(", ".join(wrong) if wrong else f"one colour each: {len(seen)} series")
        """
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(GOOD_PAPER, f)
    try:
        p = subprocess.run([py, "-c", code, os.path.join(src, "bench", "plots"), f.name], capture_output=True, text=True,
                           timeout=120)
    finally:
        os.unlink(f.name)
    if p.returncode != 0 or p.stdout.strip() != "one colour each: 4 series":
        return [f"plot.py per_tuple: a series in more than one colour: {p.stdout.strip()}\n{p.stderr[-2000:]}"]
    return []


def check_without_matplotlib(py, src, directory):
    """Each script where python3-matplotlib is missing (a package of that name
    that fails to import stands in for it): one line naming the package, not
    an ImportError's traceback."""
    fake = os.path.join(directory, "no-matplotlib")
    os.makedirs(os.path.join(fake, "matplotlib"))
    with open(os.path.join(fake, "matplotlib", "__init__.py"), "w") as f:
        f.write("raise ImportError('No module named matplotlib')\n")
    env = dict(os.environ, PYTHONPATH=fake)
    failures = []
    for script in ("plot.py", "plot_sweep.py", "plot_wisconsin.py"):
        p = subprocess.run([py, os.path.join(src, "bench", "plots", script), directory], capture_output=True, text=True,
                           timeout=120, env=env)
        lines = p.stderr.strip().splitlines()
        if p.returncode != 1 or len(lines) != 1 or "python3-matplotlib" not in lines[0] or script not in lines[0]:
            failures.append(f"{script} without matplotlib: exit {p.returncode}, expected 1 and one line naming "
                            f"python3-matplotlib:\n{p.stderr[-2000:]}")
    return failures


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    src = sys.argv[1]
    py = plotting_python()
    if not py:
        print("skipped: no python3 with matplotlib (./kit installs python3-matplotlib)")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="quelkit-bad-plots-")
    failures = []
    try:
        for i, (script, name, text, says) in enumerate(BAD + GOOD):
            d = os.path.join(tmp, str(i))
            os.mkdir(d)
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
            p = run(py, src, script, d)
            if (script, name, text, says) in GOOD:
                if p.returncode != 0 or not os.path.isfile(os.path.join(d, says)):
                    failures.append(f"{script} on a good {name}: exit {p.returncode}, no {says}:\n{p.stderr[-2000:]}")
                continue
            lines = p.stderr.strip().splitlines()
            path = os.path.join(d, name)
            if p.returncode != 1 or len(lines) != 1 or says not in lines[0] or path not in lines[0] \
                    or "Traceback" in p.stderr:
                failures.append(f"{script} on {name} holding {text[:60]!r}: exit {p.returncode}, expected 1 and one "
                                f"line naming {path} and saying '{says}':\n{p.stderr[-2000:]}")
        failures += check_colours(py, src)
        failures += check_without_matplotlib(py, src, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        sys.exit("\n\n".join(failures))
    print(f"plots: {len(BAD)} bad files said in one line, {len(GOOD)} good ones plotted")


if __name__ == "__main__":
    main()
