#!/usr/bin/env python3
"""Machine-readable output and files written whole (issue 67), read the way a
program downstream reads them: standard output parsed with Python's csv and
json modules over a script of several retrieves, updates, --stats and --dump;
--stats=json with an object for every statement; `gen --csv`, `copy into` and
a report's files under a file-size limit leave the old file (or none), never
a truncated one.

Usage: output_test.py QUELKIT [OutputTest.test_name]
"""
import csv
import io
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import unittest

QUELKIT = None

# Several results, updates between them, a repeated target name, a column
# named stmt, an empty value alone in its row, a comma and a quote to quote.
SCRIPT = """create t (a = i4, s = c8)
append to t (a = 1, s = "x,y")
append to t (a = 2, s = "q\\"r")
range of r is t
retrieve (r.a, r.s) sort by a
replace r (a = r.a + 10) where r.a = 1
retrieve (r.a, b = r.a * 2, a = r.a + 1) sort by b
delete r where r.a = 2
retrieve (e = "")
retrieve (stmt = r.a, r.a)
print t
"""

# What each result holds: its header and rows, in order.
RESULTS = [
    (["a", "s"], [["1", "x,y"], ["2", 'q"r']]),
    (["a", "b", "a"], [["2", "4", "3"], ["11", "22", "12"]]),
    (["e"], [[""]]),
    (["stmt", "a"], [["11", "11"]]),
    (["a", "s"], [["11", "x,y"]]),
]


def run(args, stdin=None, preexec=None, script=None):
    cmd = [QUELKIT] + args + (["-e", script] if script is not None else [])
    return subprocess.run(cmd, input=stdin, capture_output=True, timeout=120, preexec_fn=preexec)


def csv_results(text):
    """The results of a CSV stream: split at the blank line between two."""
    results, rows = [], []
    for row in csv.reader(io.StringIO(text)):
        if row == []:
            results.append(rows)
            rows = []
        else:
            rows.append(row)
    results.append(rows)
    return [(r[0], r[1:]) for r in results]


def read(path):
    with open(path, "rb") as f:
        return f.read()


def json_lines(text):
    return [json.loads(line) for line in text.splitlines()]


def file_limit(nbytes):
    """preexec_fn: a file-size limit of nbytes, SIGXFSZ ignored (as quelkit
    does itself), so a write past it fails with EFBIG."""
    def set_limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))
    return set_limit


class OutputTest(unittest.TestCase):
    def test_csv_stdout_holds_results_alone_a_blank_line_apart(self):
        p = run(["--format", "csv", "--stats", "--dump=ir"], script=SCRIPT)
        err = p.stderr.decode()
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(csv_results(p.stdout.decode()), RESULTS)
        # What is not a result went to standard error: the stats lines, the
        # dump, the messages, print's title.
        for text in ["-- q5 (line 5) interp:switch:", "-- ir q5", "(1 row replaced in t)", "(1 row deleted from t)",
                     "t relation\n"]:
            self.assertIn(text, err)
        # --stats=json beside --format csv: on standard error, JSON Lines there.
        p = run(["--format", "csv", "--stats=json"], script=SCRIPT)
        self.assertEqual(csv_results(p.stdout.decode()), RESULTS)
        objects = [json.loads(line) for line in p.stderr.decode().splitlines() if line.startswith("{")]
        self.assertEqual([o["stmt"] for o in objects], list(range(1, 12)))

    def test_json_stdout_is_one_object_per_row_with_its_statement(self):
        p = run(["--format", "json", "--stats", "--dump=ast"], script=SCRIPT)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        rows = json_lines(p.stdout.decode())
        by_stmt = {}
        for o in rows:
            by_stmt.setdefault(o["stmt"], []).append(o)
        self.assertEqual(sorted(by_stmt), [5, 7, 9, 10, 11])
        self.assertEqual(by_stmt[5], [{"stmt": 5, "a": 1, "s": "x,y"}, {"stmt": 5, "a": 2, "s": 'q"r'}])
        # A repeated name gets a suffix; the keys keep the targets' order.
        self.assertEqual([list(o) for o in by_stmt[7]], [["stmt", "a", "b", "a_2"]] * 2)
        self.assertEqual([(o["a"], o["b"], o["a_2"]) for o in by_stmt[7]], [(2, 4, 3), (11, 22, 12)])
        self.assertEqual(by_stmt[9], [{"stmt": 9, "e": ""}])
        # A column named stmt does not hide the statement number.
        self.assertEqual(by_stmt[10], [{"stmt": 10, "stmt_2": 11, "a": 11}])
        self.assertEqual(by_stmt[11], [{"stmt": 11, "a": 11, "s": "x,y"}])
        self.assertIn("-- ast q5", p.stderr.decode())
        self.assertIn("-- q5 (line 5) interp:switch:", p.stderr.decode())

    def test_json_values_keep_their_types_and_escape_bytes_that_are_not_utf8(self):
        with tempfile.TemporaryDirectory() as d:
            script = os.path.join(d, "bytes.quel")
            with open(script, "wb") as f:
                f.write(b'retrieve (i = 7, f = 0.1, g = float4(0.1), s = "\xc3\xa9\xff\x01")\n')
            p = run(["--format", "json", script])
            self.assertEqual(p.returncode, 0, p.stderr.decode())
            # Well-formed UTF-8 (é) kept, 0xff as \xff, a control byte JSON's own escape.
            self.assertEqual(json_lines(p.stdout.decode()),
                             [{"stmt": 1, "i": 7, "f": 0.1, "g": 0.1, "s": "\u00e9\\xff\x01"}])

    def test_stats_json_has_an_object_for_every_statement(self):
        with tempfile.TemporaryDirectory() as d:
            data = os.path.join(d, "t.csv")
            script = (f'create t (a = i4)\nappend to t (a = 1)\nrange of r is t\ncopy t (a = i4) into "{data}"\n'
                      f'copy t (a = i4) from "{data}"\nmodify t to isam on a\nprint t\nhelp t\nhelp\n'
                      'replace r (a = r.a + 1)\nretrieve (r.a)\ndelete r\ndestroy t\nrange of x is nosuch\n')
            kinds = ["create", "append", "range", "copy", "copy", "modify", "print", "help", "help", "replace",
                     "retrieve", "delete", "destroy", "range"]
            for fmt in ([], ["--format", "none"]):
                p = run(fmt + ["--stats=json"], script=script)
                self.assertEqual(p.returncode, 1, p.stderr.decode())  # the last range names no relation
                objects = json_lines(p.stdout.decode())  # standard output holds JSON alone
                self.assertEqual([o["stmt"] for o in objects], list(range(1, 15)))
                self.assertEqual([o["statement"] for o in objects], kinds)
                self.assertEqual([o["line"] for o in objects], list(range(1, 15)))
                fields = list(objects[1])
                for o in objects:
                    self.assertEqual(list(o), fields)  # one schema for every statement
                    self.assertEqual(o["backend"] is None, o["statement"] not in ("append", "replace", "retrieve",
                                                                                  "delete"), o)
                self.assertEqual([o["rows_out"] for o in objects[3:7]], [1, 1, 0, 2])  # copied, printed
                self.assertIsNone(objects[0]["error"])
                self.assertIn("there is no relation 'nosuch'", objects[13]["error"])
                self.assertEqual(objects[10]["backend"], "interp")
                self.assertEqual(objects[10]["rows_out"], 2)

    def test_gen_csv_past_the_file_size_limit_leaves_the_old_file_or_none(self):
        whole = run(["gen", "parts", "--rows", "3360"]).stdout
        self.assertGreater(len(whole), 65536)
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "parts.csv")
            p = run(["gen", "parts", "--rows", "3360", "--csv", f], preexec=file_limit(32768))
            self.assertEqual(p.returncode, 1)
            self.assertEqual(p.stderr.decode(), f"quelkit: error: cannot write {f}: File too large\n")
            self.assertEqual(os.listdir(d), [])  # no file, and no temporary left
            with open(f, "wb") as old:
                old.write(b"old\n")
            p = run(["gen", "parts", "--rows", "3360", "--csv", f], preexec=file_limit(32768))
            self.assertEqual(p.returncode, 1)
            with open(f, "rb") as kept:
                self.assertEqual(kept.read(), b"old\n")
            self.assertEqual(os.listdir(d), ["parts.csv"])
            # A name no rename can replace (a file with two) is written in
            # place, held until its space is reserved: still the old file.
            other = os.path.join(d, "other.csv")
            os.link(f, other)
            p = run(["gen", "parts", "--rows", "3360", "--csv", f], preexec=file_limit(32768))
            self.assertEqual(p.returncode, 1)
            self.assertEqual(p.stderr.decode(), f"quelkit: error: cannot write {f}: File too large\n")
            for name in (f, other):
                with open(name, "rb") as kept:
                    self.assertEqual(kept.read(), b"old\n")
            self.assertEqual(sorted(os.listdir(d)), ["other.csv", "parts.csv"])
            # Without the limit it is written whole, over the old one (both names).
            p = run(["gen", "parts", "--rows", "3360", "--csv", f])
            self.assertEqual(p.returncode, 0, p.stderr.decode())
            for name in (f, other):
                with open(name, "rb") as new:
                    self.assertEqual(new.read(), whole)

    def test_gen_csv_into_a_fifo_is_streamed(self):
        with tempfile.TemporaryDirectory() as d:
            fifo = os.path.join(d, "fifo")
            os.mkfifo(fifo)
            got = []
            reader = threading.Thread(target=lambda: got.append(read(fifo)))
            reader.start()
            p = run(["gen", "parts", "--rows", "210", "--csv", fifo])
            reader.join(60)
            self.assertEqual(p.returncode, 0, p.stderr.decode())
            self.assertEqual(got, [run(["gen", "parts", "--rows", "210"]).stdout])
            self.assertEqual(sorted(os.listdir(d)), ["fifo"])

    def test_copy_into_past_the_file_size_limit_keeps_the_old_file(self):
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "p.csv")
            with open(f, "wb") as old:
                old.write(b"old\n")
            p = run(["--parts", "3360"], script=f'copy parts (pnum = i4, pname = c20) into "{f}"',
                    preexec=file_limit(16384))
            self.assertEqual(p.returncode, 1)
            self.assertIn(f"error: cannot write {f}: File too large", p.stderr.decode())
            with open(f, "rb") as kept:
                self.assertEqual(kept.read(), b"old\n")
            self.assertEqual(os.listdir(d), ["p.csv"])

    def test_a_report_past_the_file_size_limit_keeps_its_old_files(self):
        with tempfile.TemporaryDirectory() as d:
            sweep = [QUELKIT, "sweep", "--sizes", "2000", "-b", "interp", "--points", "0,100", "--reps", "1",
                     "--budget", "0.01", "--min-time", "0.001", "--out", d]
            p = subprocess.run(sweep, capture_output=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr.decode())
            old = {n: read(os.path.join(d, n)) for n in ("sweep.csv", "sweep.json")}
            limit = min(len(b) for b in old.values()) // 2
            p = subprocess.run(sweep, capture_output=True, timeout=300, preexec_fn=file_limit(limit))
            self.assertEqual(p.returncode, 1)
            self.assertIn("quelkit sweep: error: cannot write " + d, p.stderr.decode())
            self.assertIn(": File too large", p.stderr.decode())
            self.assertEqual({n: read(os.path.join(d, n)) for n in old}, old)
            self.assertEqual(sorted(os.listdir(d)), ["sweep.csv", "sweep.json"])


if __name__ == "__main__":
    QUELKIT = sys.argv.pop(1)
    unittest.main()
