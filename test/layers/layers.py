#!/usr/bin/env python3
"""The kit's layers, checked on its sources: every #include "folder/..." of the
kit's own folders may name only its own folder or a layer below it.

    python3 test/layers/layers.py SOURCE_DIR     fails (exit 1) naming file:line
                                                 of each include that runs up
    python3 test/layers/layers.py --self-test    the check run on a made-up tree
                                                 with upward includes: must fail

The build enforces the same order another way (cmake/include_root.cmake: a
library's headers are reachable only from targets that link it); this check
also catches an include that a link happens to allow, and names the layer.
Tests (test/) are exempt. Folders on one layer (the evaluators; jit/'s code
generators; the reports and the benchmark binaries; profile and difftest) may
not include each other: no back end includes another back end's folder.
A folder with C++ sources that is in no layer fails too: place it here first.
"""
import os
import re
import sys
import tempfile

# Lowest first. A unit is a folder (longest prefix wins: jit/llvm before jit),
# or, for cli/command, the files of cli/ that form the subcommand framework
# the subcommands below the command declare themselves through.
LAYERS = [
    ["runtime"],                        # semantic helpers; the hot-routine table type
    ["frontend"],                       # lexer, parser, binder, typed IR, fold
    ["storage"],                        # pages, relations, catalog, checksum, CSV, budget
    ["engine"],                         # plans, back-end interface, scan, session
    ["interp", "threaded", "vector", "jit"],  # the evaluators; jit/: what the JITs share
    ["jit/llvm", "jit/gccjit", "jit/stencil"],
    ["adaptive"],                       # composes the others by name, through the registry
    ["backends"],                       # the one list of back ends
    ["cli/command"],                    # cli/command.*, cli/code_options.h
    ["bench/workloads"],                # data generators, the Wisconsin scripts
    ["bench/measure"],                  # the paper's queries, reference loops, floor, SQLite
    ["bench/report", "bench/gbench"],   # the reports; the benchmark binaries
    ["profile", "difftest"],
    ["cli"],                            # the quelkit command
]
UNIT_FILES = {"cli/command": {"cli/command.h", "cli/command.cpp", "cli/code_options.h"}}
EXEMPT = {"test", "docs", "cmake"}
SOURCES = (".h", ".cpp", ".re", ".def", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')

RANK = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}
FOLDERS = sorted((u for u in RANK if u not in UNIT_FILES), key=len, reverse=True)


def unit_of(path):
    """The unit a file (or an included path) belongs to, or None."""
    for unit, files in UNIT_FILES.items():
        if path in files:
            return unit
    for f in FOLDERS:
        if path == f or path.startswith(f + "/"):
            return f
    return None


def sources(root):
    for top in sorted(os.listdir(root)):
        d = os.path.join(root, top)
        if top.startswith(".") or top in EXEMPT or not os.path.isdir(d):
            continue
        if os.path.exists(os.path.join(d, "CMakeCache.txt")):
            continue  # a build tree inside the source tree
        for dirpath, dirnames, filenames in os.walk(d):
            dirnames[:] = sorted(n for n in dirnames if not n.startswith(".")
                                 and not os.path.exists(os.path.join(dirpath, n, "CMakeCache.txt")))
            for n in sorted(filenames):
                if n.endswith(SOURCES):
                    yield os.path.relpath(os.path.join(dirpath, n), root)


def check(root):
    """Returns (problems, files checked, includes checked)."""
    problems, files, includes = [], 0, 0
    for rel in sources(root):
        files += 1
        mine = unit_of(rel)
        if mine is None:
            problems.append(f"{rel}:1: its folder is in no layer (test/layers/layers.py LAYERS)")
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for no, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m or "/" not in m.group(1):
                    continue  # a header beside the file, or not one of the kit's folders
                theirs = unit_of(m.group(1))
                if theirs is None or theirs == mine:
                    continue
                includes += 1
                if RANK[theirs] > RANK[mine]:
                    problems.append(f'{rel}:{no}: includes "{m.group(1)}": {theirs} is above {mine}')
                elif RANK[theirs] == RANK[mine]:
                    problems.append(f'{rel}:{no}: includes "{m.group(1)}": {theirs} is beside {mine}'
                                    " on one layer, which may not include each other")
    return problems, files, includes


def self_test():
    """The check must fail on upward and sideways includes, and pass without."""
    with tempfile.TemporaryDirectory() as root:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        write("storage/relation.h", '#include "runtime/runtime.h"\n#include "frontend/schema.h"\n')
        write("engine/plan.h", '#include "storage/relation.h"\n')
        write("cli/main.cpp", '#include "cli/command.h"\n#include "bench/report/report.h"\n')
        write("bench/report/report.h", '#include "cli/command.h"\n')
        write("test/engine/plan_test.cpp", '#include "cli/main.h"\n')
        ok, _, _ = check(root)
        if ok:
            print("self-test: the clean tree failed:", *ok, sep="\n  ")
            return 1
        write("storage/page.h", '#include <cstdint>\n\n#include "engine/plan.h"\n')
        write("interp/interp.cpp", '#include "threaded/threaded.h"\n')
        write("jit/llvm/jit.cpp", '#include "jit/codegen.h"\n#include "jit/gccjit/gccjit.h"\n')
        write("bench/report/sweep.cpp", '#include "cli/main.h"\n')
        write("newfolder/x.cpp", "\n")
        want = ['storage/page.h:3: includes "engine/plan.h": engine is above storage',
                'interp/interp.cpp:1: includes "threaded/threaded.h": threaded is beside interp',
                'jit/llvm/jit.cpp:2: includes "jit/gccjit/gccjit.h": jit/gccjit is beside jit/llvm',
                'bench/report/sweep.cpp:1: includes "cli/main.h": cli is above bench/report',
                "newfolder/x.cpp:1: its folder is in no layer"]
        got, _, _ = check(root)
        missing = [w for w in want if not any(g.startswith(w) for g in got)]
        if missing or len(got) != len(want):
            print("self-test: expected", *want, "got", *got, sep="\n  ")
            return 1
        print(f"self-test: the check reports all {len(want)} bad includes of the made-up tree")
        return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print("usage: layers.py SOURCE_DIR | --self-test", file=sys.stderr)
        return 2
    problems, files, includes = check(argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f"layers: {len(problems)} include(s) against the layer order", file=sys.stderr)
        return 1
    print(f"layers: {files} files, {includes} includes across folders, none runs up: "
          + " < ".join(",".join(layer) for layer in LAYERS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
