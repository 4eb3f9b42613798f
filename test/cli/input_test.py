#!/usr/bin/env python3
"""The quelkit command against input without bound and signals, as a real
process meets them: a script, an \\i file and standard input with a line past
16 MiB (/dev/zero, which has no line ends, and a generated file one byte over)
end with a positioned error, exit 1, nothing run from that line on, in
bounded memory; SIGINT ends `--repeat 100000000` and a long sort with exit
130; a reader that closes standard output ends quelkit with exit 1, not
SIGPIPE. The SIGINT cases print how long quelkit took to exit after the
signal (their bound, 20 s, is a watchdog for a busy machine, not the goal).

Run by ctest, one test per case:  input_test.py QUELKIT_BINARY [unittest names]
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

# The monitor's tests' helpers for a process that must catch SIGINT.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "monitor"))
from pty_test import inherit_blocked_sigint, wait_for_sigint_handler  # noqa: E402

BIN = None
LIMIT = 16 << 20  # frontend/source.h, kMaxLineBytes
WATCHDOG = 60  # seconds: against a hang, never a speed bound
TOO_LONG = "a line longer than 16 MiB, the most a line may hold: it and the rest were not read"


def run(args, stdin=None, input_bytes=None):
    """quelkit ARGS to its end: (status, stdout, stderr). Killed past the
    watchdog, which fails the test."""
    p = subprocess.Popen([BIN] + args, stdin=stdin if input_bytes is None else subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(input_bytes, timeout=WATCHDOG)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError("quelkit %s did not end within %d s" % (" ".join(args), WATCHDOG))
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def peak_rss_kib(args, stdin_path=None):
    """Runs quelkit ARGS (standard input from stdin_path) in a child of its own
    and returns (status, stderr, its peak resident KiB, seconds)."""
    with tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:
            try:
                if stdin_path:
                    fd = os.open(stdin_path, os.O_RDONLY)
                    os.dup2(fd, 0)
                os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
                os.dup2(err.fileno(), 2)
                os.execv(BIN, [BIN] + args)
            finally:
                os._exit(127)
        deadline = time.monotonic() + WATCHDOG
        while True:
            got, status, usage = os.wait4(pid, os.WNOHANG)
            if got:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.wait4(pid, 0)
                raise AssertionError("quelkit %s did not end within %d s" % (" ".join(args), WATCHDOG))
            time.sleep(0.02)
        seconds = time.monotonic() - t0
        err.seek(0)
        return os.waitstatus_to_exitcode(status), err.read().decode("utf-8", "replace"), usage.ru_maxrss, seconds


def sigint_after(args, after):
    """quelkit ARGS, SIGINT `after` seconds into its statements: (status,
    stdout, stderr, seconds from the signal to its exit)."""
    p = subprocess.Popen([BIN] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=inherit_blocked_sigint)
    try:
        wait_for_sigint_handler(p.pid)
        time.sleep(after)
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=20)  # generous, for a loaded machine
        latency = time.monotonic() - sent
    finally:
        if p.poll() is None:  # the signal did not end it: fail, not run on for hours
            p.kill()
            p.wait()
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), latency


class InputTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="quelkit-input-")

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def check_dev_zero(self, args, stdin_path, where):
        status, err, rss, seconds = peak_rss_kib(args, stdin_path)
        print("quelkit %s%s: exit %d in %.2f s, peak RSS %.1f MiB" %
              (" ".join(args), " < " + stdin_path if stdin_path else "", status, seconds, rss / 1024))
        self.assertEqual(status, 1, err)
        self.assertIn(where + ": error: " + TOO_LONG, err)
        self.assertLess(rss, 100 * 1024, "resident memory past 100 MiB")
        # The echo under the error is the line's start, a screen's width.
        self.assertLess(len(err), 2000, err[:2000])

    def test_dev_zero_as_a_script_file(self):
        self.check_dev_zero(["/dev/zero"], None, "/dev/zero:1:1")

    def test_dev_zero_on_standard_input(self):
        self.check_dev_zero(["-"], "/dev/zero", "<monitor:1>:1:1")
        self.check_dev_zero([], "/dev/zero", "<monitor:1>:1:1")  # the monitor, piped

    def test_dev_zero_included(self):
        script = self.path("include.quel")
        with open(script, "w") as f:
            f.write("retrieve (before = 1)\n\\g\n\\i /dev/zero\nretrieve (after = 2)\n\\g\n")
        self.check_dev_zero([], script, "/dev/zero:1:1")
        with open(script) as f:
            status, out, err = run([], stdin=f)
        self.assertIn("before", out)
        self.assertNotIn("after", out)

    def long_script(self, n):
        """A script whose line 4 is n bytes: a statement, then blanks."""
        head = "retrieve (y = 2) where 1 = 1"
        return ("range of p is parts\nretrieve (p.pnum) where p.pnum < 3\nretrieve (x = 1)\n" + head +
                " " * (n - len(head)) + "\nretrieve (z = 3)\n")

    def test_a_line_one_byte_over_the_limit(self):
        # As a script file, piped in, and included: the statements wholly
        # before line 4 run, but for the one it may continue (line 3); the
        # error is at line 4's start; nothing after runs.
        script = self.path("over.quel")
        with open(script, "w") as f:
            f.write(self.long_script(LIMIT + 1))
        included = self.path("includes.quel")
        with open(included, "w") as f:
            f.write("\\i %s\n" % script)
        for args, stdin, where, stmt in (([script], None, script + ":4:1", script + ":3:1"),
                                         (["-"], script, "<monitor:1>:4:1", "<monitor:1>:3:1"),
                                         ([], included, script + ":4:1", script + ":3:1")):
            with self.subTest(args=args, stdin=stdin):
                with open(stdin or os.devnull) as f:
                    status, out, err = run(["--parts", "10", "--format", "csv"] + args, stdin=f)
                self.assertEqual(status, 1, err)
                self.assertIn(where + ": error: " + TOO_LONG + "; nor was the statement at " + stmt +
                              " run, which it may continue", err)
                self.assertEqual(out.split(), ["pnum", "1", "2"], out)
                self.assertLess(len(err), 2000, err[:2000])

    def test_a_line_at_the_limit_runs(self):
        script = self.path("at.quel")
        with open(script, "w") as f:
            f.write(self.long_script(LIMIT))
        status, out, err = run(["--parts", "10", "--format", "csv", script])
        self.assertEqual(status, 0, err)
        self.assertEqual(out.split(), ["pnum", "1", "2", "x", "1", "y", "2", "z", "3"], out)

    def test_sigint_ends_repeat(self):
        latencies = []
        for _ in range(3):
            status, out, err, latency = sigint_after(
                ["--parts", "3360", "--repeat", "100000000", "-e",
                 "range of p is parts\nretrieve (p.pnum) where p.qoh < 0\nretrieve (never = 1)"], 1.0)
            self.assertEqual(status, 130, err)
            self.assertIn("<-e 1>:2:1: error: cancelled", err)
            self.assertNotIn("never", out)
            latencies.append(latency)
        print("--repeat 100000000: exit after SIGINT in " + ", ".join("%.3f s" % l for l in latencies))

    def test_sigint_ends_a_sort(self):
        # 6,000 x 6,000 = 36 million rows into the unique sort: far more than
        # the 8 s before the signal on an idle machine (the 9 million of a
        # 3,000-tuple PARTS ended before it on a fast idle one, exit 0).
        # A budget of its own: the default is a share of the memory the
        # machine has free, which other processes' use may bring under the
        # sort's 1-2 GB (then a budget error, not a cancel).
        status, out, err, latency = sigint_after(
            ["--parts", "6000", "--format", "none", "--memory-budget", "4GiB", "-e",
             "range of a is parts\nrange of b is parts\nretrieve unique (a.pname, b.pnum) sort by pname:d, pnum"],
            8.0)
        print("sort of 36 million rows: exit after SIGINT in %.3f s" % latency)
        self.assertEqual(status, 130, err)
        self.assertIn("<-e 1>:3:1: error: cancelled", err)

    def test_a_reader_that_closes_standard_output(self):
        p = subprocess.Popen([BIN, "--parts", "100000", "-e", "range of p is parts\nretrieve (p.pnum, p.pname)"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.stdout.read(10)
        p.stdout.close()  # as `| head -c 10` does
        try:
            err = p.stderr.read()
            status = p.wait(timeout=WATCHDOG)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(status, 1, err)  # not -13 (SIGPIPE; 141 in a shell)
        self.assertIn(b"quelkit: error: writing standard output", err)


if __name__ == "__main__":
    BIN = os.path.abspath(sys.argv[1])
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=2)
