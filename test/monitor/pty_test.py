#!/usr/bin/env python3
"""The terminal monitor as a user at a terminal meets it, driven through a
pseudo-terminal (the standard library's pty): Ctrl-C cancels a running
statement (its result being printed too) and leaves every relation intact, clears the line at an idle
prompt, Ctrl-D quits on a fresh line (the first with a buffer not run
says so); the INGRES commands (\\g anywhere on a
line, \\p, \\r, \\e, \\i, \\q); history in $HOME/.quelkit_history; an
interactive session exits 0 after \\q whatever failed before; a cancelled
gccjit compile leaves no /tmp/libgccjit-* directory, nor does SIGTERM or SIGHUP
in a compile (they still end quelkit). Without a terminal,
Ctrl-C (SIGINT) cancels a script (statements piped in are one), which exits 130, a copy waiting on a FIFO
included; a copy into a FIFO whose reader leaves is an I/O error, not SIGPIPE. `difftest --corpus` names
the file it runs at a terminal, and in a log says nothing but its summary.

Run by ctest, one test per case:  pty_test.py QUELKIT_BINARY [unittest names]
"""
import os
import pty
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
import unittest

BIN = None
# A gccjit compile's files: its child's directory (TMPDIR/quelkit-gccjit-*,
# jit/gccjit/jit.cpp), libgccjit's own inside it (or in TMPDIR itself).
GCCJIT_DIRS = ("quelkit-gccjit-", "libgccjit-")
PROMPT = b"* "


def inherit_blocked_sigint():
    """Blocks SIGINT in a child about to exec quelkit. A blocked signal
    survives exec, and some CI runners start programs so; quelkit must unblock
    it itself, or Ctrl-C would never arrive. Every case runs under it."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def wait_for_sigint_handler(pid, timeout=60):
    """Waits until process `pid` catches SIGINT (bit 2 of SigCgt in
    /proc/PID/status): quelkit installs its handler once its relations are
    made, and a SIGINT before that would end it, not cancel a statement."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("SigCgt:") and int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)):
                    return
        time.sleep(0.05)
    raise AssertionError("quelkit never installed its SIGINT handler")


class Terminal:
    """quelkit on the slave side of a pseudo-terminal; we type on the master."""

    def __init__(self, args, home, env=None):
        environ = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TERM": "dumb", "LC_ALL": "C.UTF-8"}
        environ.update(env or {})
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            try:
                inherit_blocked_sigint()
                os.execve(BIN, [BIN] + args, environ)
            finally:
                os._exit(127)
        self.out = b""
        self.status = None

    def read_until(self, what, timeout=60, start=0):
        """Reads until `what` (bytes, or a compiled regex) appears after `start`; returns where it ends."""
        deadline = time.time() + timeout
        while True:
            m = what.search(self.out, start) if hasattr(what, "search") else None
            if m:
                return m.end()
            if not hasattr(what, "search"):
                i = self.out.find(what, start)
                if i >= 0:
                    return i + len(what)
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError("timed out waiting for %r; the terminal shows:\n%s" % (what, self.text()))
            r, _, _ = select.select([self.fd], [], [], min(left, 0.5))
            if r:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise AssertionError("quelkit ended while waiting for %r:\n%s" % (what, self.text()))
                self.out += chunk

    def prompt(self, start=0):
        return self.read_until(PROMPT, start=start)

    def type(self, text):
        """Types all of `text`. A pty takes only a few KB at a time, so a long
        line is written in pieces, reading the echo meanwhile, or both sides
        would wait on full buffers."""
        data = text.encode() if isinstance(text, str) else text
        while data:
            _, w, _ = select.select([], [self.fd], [], 0.5)
            if w:
                data = data[os.write(self.fd, data[:1024]):]
            r, _, _ = select.select([self.fd], [], [], 0)
            if r:
                try:
                    self.out += os.read(self.fd, 65536)
                except OSError:
                    pass

    def wait(self, timeout=60, kill=True):
        """quelkit's exit status; past the timeout it is killed and the test
        fails, or with kill=False TimeoutError is raised and it runs on."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                r, _, _ = select.select([self.fd], [], [], 0.2)
                if r:
                    chunk = os.read(self.fd, 65536)
                    self.out += chunk
            except OSError:
                pass
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(st)
                self.drain()
                return self.status
        if not kill:
            raise TimeoutError
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        raise AssertionError("quelkit did not exit:\n" + self.text())

    def drain(self):
        """Reads what the exited process wrote after the last read: it can
        write its last bytes and exit between a read and the waitpid that
        sees it gone. Once the slave side is closed and empty, a read fails
        (EIO) or returns nothing."""
        while True:
            try:
                r, _, _ = select.select([self.fd], [], [], 0.2)
                if not r:
                    return
                chunk = os.read(self.fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.out += chunk

    def text(self):
        return self.out.decode("utf-8", "replace")

    def close(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
        os.close(self.fd)


class MonitorTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="quelkit-pty-")
        self.home = self.dir.name
        self.terms = []

    def tearDown(self):
        for t in self.terms:
            t.close()
        self.dir.cleanup()

    def start(self, *args, env=None):
        t = Terminal(list(args), self.home, env)
        self.terms.append(t)
        t.prompt()
        # libedit switches the terminal's modes around its first prompt; a
        # key typed in that instant can be dropped by the switch (seen on a
        # loaded machine), as it could be for a person typing that fast.
        time.sleep(0.3)
        return t

    def test_ctrl_c_cancels_the_running_statement(self):
        t = self.start("--parts", "3000")
        at = len(t.out)
        t.type("range of a is parts\nrange of b is parts\nrange of c is parts\n")
        t.type("retrieve (a.pnum, b.pnum, c.pnum) where a.qoh + b.qoh + c.qoh < 0\n\\g\n")
        t.read_until(b"\\g\r\n", start=at)  # the monitor has read the \g line and runs the buffer
        time.sleep(1.0)  # 2.7e10 combinations: it is running, nowhere near done
        sent = time.time()
        t.type(b"\x03")
        end = t.read_until(re.compile(rb"<monitor:1>:4:1: error: cancelled\r?\n"), start=at)
        self.assertLess(time.time() - sent, 10, "the statement took too long to notice Ctrl-C")
        t.prompt(start=end)
        # Every relation is intact and the session goes on.
        at = len(t.out)
        t.type("help parts\n\\g\n")
        t.read_until(b"Tuples:              3000", start=at)
        # One prompt after the error: the Ctrl-C was the statement's, not also
        # the next prompt's (it once printed "^C" and a second prompt).
        self.assertNotIn(b"^C", t.out[end:], t.text())
        at = len(t.out)
        t.type("range of p is parts\nretrieve (p.pnum) where p.pnum > 2995 \\g\n")
        t.read_until(b"(5 rows)", start=at)
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0)

    def test_ctrl_c_inside_a_transaction_undoes_it(self):
        # The transaction spans the monitor's buffers; a Ctrl-C that cancels
        # a statement inside it undoes the statements before it too, and
        # what follows is skipped until its end.
        t = self.start("--parts", "3000")
        at = len(t.out)
        t.type("begin\nappend to parts (pnum = 9999, pname = \"new\")\n\\g\n")
        t.read_until(b"(1 row appended to parts)", start=at)
        t.prompt(start=at)
        at = len(t.out)
        t.type("range of a is parts\nrange of b is parts\nrange of c is parts\n")
        t.type("retrieve (a.pnum, b.pnum, c.pnum) where a.qoh + b.qoh + c.qoh < 0\n\\g\n")
        t.read_until(b"\\g\r\n", start=at)
        time.sleep(1.0)  # running, nowhere near done
        t.type(b"\x03")
        end = t.read_until(re.compile(rb"<monitor:2>:4:1: error: cancelled\r?\n"), start=at)
        end = t.read_until(re.compile(rb"is aborted: 4 statements undone; nothing runs until its end or abort\)"),
                           start=at)
        t.prompt(start=end)
        at = len(t.out)
        t.type("delete parts where parts.pnum = 1\n\\g\n")
        t.read_until(b"delete skipped", start=at)
        t.prompt(start=at)
        at = len(t.out)
        t.type("end\n\\g\n")
        t.prompt(start=at)
        # The append was undone and the skipped delete never ran.
        at = len(t.out)
        t.type("help parts\n\\g\n")
        t.read_until(b"Tuples:              3000", start=at)
        at = len(t.out)
        t.type("range of p is parts\nretrieve (p.pnum) where p.pnum = 9999 or p.pnum = 1 \\g\n")
        t.read_until(b"(1 row)", start=at)
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0)

    def test_ctrl_c_cancels_a_result_being_printed(self):
        # The scan is over in a moment; a million rows then take a long
        # time to reach a terminal, and Ctrl-C stops them too.
        t = self.start("--parts", "1000000")
        at = len(t.out)
        t.type("range of p is parts\nretrieve (p.pnum, p.pname) \\g\n")
        t.read_until(re.compile(rb"\|\s*5000\|"), start=at, timeout=120)  # printing, far from done
        sent = time.time()
        t.type(b"\x03")
        end = t.read_until(re.compile(rb"<monitor:1>:2:1: error: cancelled\r?\n"), start=at, timeout=120)
        self.assertLess(time.time() - sent, 30, "printing took too long to notice Ctrl-C")
        end = t.prompt(start=end)
        self.assertNotIn(b"(1000000 rows)", t.out, "the whole result was printed")
        at = len(t.out)
        t.type("retrieve (p.pnum) where p.pnum > 999998 \\g\n")
        t.read_until(b"(2 rows)", start=at)
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0)

    def test_ctrl_c_at_the_prompt_clears_the_line(self):
        t = self.start()
        t.type("retrieve (x = 1)")
        time.sleep(0.3)
        at = len(t.out)
        t.type(b"\x03")
        t.read_until(b"^C", start=at)
        t.prompt(start=at)
        at = len(t.out)
        t.type("retrieve (y = 2)\n\\g\n")
        end = t.read_until(b"(1 row)", start=at)
        shown = t.out[at:end]
        self.assertIn(b"|y|", shown)
        self.assertNotIn(b"|x|", shown)
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0)

    def test_ctrl_d_quits_on_a_fresh_line(self):
        t = self.start()
        at = len(t.out)
        t.type(b"\x04")
        try:
            status = t.wait(timeout=10, kill=False)
        except TimeoutError:  # the key was lost to a mode switch (see start): press it again
            t.type(b"\x04")
            status = t.wait()
        self.assertEqual(status, 0)
        self.assertTrue(t.out[at:].endswith(b"\n"), t.text())

    def test_ctrl_d_with_a_buffer_not_run_says_so_first(self):
        # A Ctrl-D quits without running the buffer (it may be half a
        # delete), but the first one with text waiting says so and stays.
        # Each key waits a moment after its prompt: libedit switches the
        # terminal's modes around a prompt, and a key in that instant can be
        # dropped (see start).
        t = self.start()
        at = len(t.out)
        t.type("retrieve (y = 2)\n")
        at = t.prompt(start=at)
        time.sleep(0.3)
        t.type(b"\x04")
        at = t.read_until(b"Ctrl-D again quits", start=at)
        at = t.prompt(start=at)
        time.sleep(0.3)
        t.type("\\g\n")
        at = t.read_until(b"(1 row)", start=at)
        at = t.prompt(start=at)
        time.sleep(0.3)
        t.type("retrieve (z = 3)\n")
        at = t.prompt(start=at)
        time.sleep(0.3)
        t.type(b"\x04")
        at = t.read_until(b"Ctrl-D again quits", start=at)
        t.prompt(start=at)
        time.sleep(0.3)
        t.type(b"\x04")
        self.assertEqual(t.wait(), 0)
        self.assertNotIn(b"|z|", t.out)

    def test_go_anywhere_on_a_line_print_and_reset(self):
        t = self.start()
        at = len(t.out)
        t.type("retrieve (x = 1) \\g\n")
        t.read_until(b"(1 row)", start=at)
        at = len(t.out)
        t.type('retrieve (s = "a \\\\g b")\n\\p\n')
        t.read_until(b'retrieve (s = "a \\\\g b")\r\n', start=at + 30)  # \p echoes the buffer, \g in a string is text
        t.type("\\r\n\\p\n\\g\nretrieve (z = 3)\n\\g\n")
        end = t.read_until(b"(1 row)", start=at)
        self.assertNotIn(b"|s", t.out[at:end])  # \r dropped it
        self.assertIn(b"|z|", t.out[at:end])
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0)

    def test_quit_exits_zero_after_a_failed_statement(self):
        t = self.start()
        at = len(t.out)
        t.type("retrieve (x = 1 / 0) \\g\n")
        t.read_until(b"error: division by zero", start=at)
        t.prompt(start=at)
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0)

    def test_history_is_kept_in_home(self):
        t = self.start()
        at = len(t.out)
        t.type("retrieve (h = 7) \\g\n")
        t.read_until(b"(1 row)", start=at)
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0)
        with open(os.path.join(self.home, ".quelkit_history"), encoding="utf-8", errors="replace") as f:
            # libedit's history file escapes blanks and backslashes (vis(3)).
            text = f.read().replace("\\040", " ").replace("\\134", "\\")
            self.assertIn("retrieve (h = 7)", text)
        # A new session finds it: the last line is the \q, so Ctrl-P (previous
        # line) twice and Enter run the retrieve again.
        t2 = self.start()
        at = len(t2.out)
        t2.type(b"\x10\x10\r")
        t2.read_until(b"|h|", start=at)
        t2.type("\\q\n")
        self.assertEqual(t2.wait(), 0)

    def test_edit_the_buffer_in_editor(self):
        editor = os.path.join(self.home, "editor.sh")
        with open(editor, "w") as f:
            f.write('#!/bin/sh\ngrep -q "retrieve (before = 1)" "$1" || exit 3\n'
                    'echo "retrieve (edited = 5)" > "$1"\n')
        os.chmod(editor, 0o755)
        t = self.start(env={"EDITOR": editor})
        at = len(t.out)
        t.type("retrieve (before = 1)\n\\e\n\\g\n")
        end = t.read_until(b"(1 row)", start=at)
        self.assertIn(b"|edited|", t.out[at:end])
        self.assertNotIn(b"|before|", t.out[at:end])
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0)

    def test_include_a_file(self):
        path = os.path.join(self.home, "inc.quel")
        with open(path, "wb") as f:
            f.write(b"\xef\xbb\xbfretrieve (inc = 3)\n")  # a byte-order mark is not text
        t = self.start()
        at = len(t.out)
        t.type("\\i %s\n\\g\n" % path)
        end = t.read_until(b"(1 row)", start=at)
        self.assertIn(b"|inc|", t.out[at:end])
        at = len(t.out)
        t.type("\\i %s\n" % self.home)  # a directory
        t.read_until(b"error: is a directory", start=at)
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0)

    def test_ctrl_c_in_an_included_file_stops_reading_it(self):
        # \i reads the file as if typed: its \g runs at once; Ctrl-C cancels
        # that statement and the rest of the file (and the file including it) is not read.
        inner = os.path.join(self.home, "inner.quel")
        outer = os.path.join(self.home, "outer.quel")
        with open(inner, "w") as f:
            f.write("range of a is parts\nrange of b is parts\nrange of c is parts\n"
                    "retrieve (a.pnum, b.pnum, c.pnum) where a.qoh + b.qoh + c.qoh < 0\n\\g\n"
                    "retrieve (inner_after = 1)\n\\g\n")
        with open(outer, "w") as f:
            f.write("\\i %s\nretrieve (outer_after = 1)\n\\g\n" % inner)
        t = self.start("--parts", "3000")
        at = len(t.out)
        t.type("\\i %s\n" % outer)
        t.read_until(b"outer.quel\r\n", start=at)  # the monitor has read the line and runs the file
        time.sleep(1.0)  # 2.7e10 combinations: it is running, nowhere near done
        t.type(b"\x03")
        end = t.read_until(re.compile(rb"inner.quel:4:1: error: cancelled\r?\n"), start=at)
        end = t.read_until(b"inner.quel: cancelled; not read after line 5", start=end)
        end = t.read_until(b"outer.quel: cancelled; not read after line 1", start=end)
        t.prompt(start=end)
        time.sleep(0.3)  # libedit's mode switch at the prompt (see start)
        self.assertNotIn(b"_after", t.out[at:])  # neither file ran on
        at = len(t.out)
        t.type("retrieve (typed = 2) \\g\n")
        t.read_until(b"(1 row)", start=at)
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0)

    def test_cancelled_gccjit_compile_leaves_no_temporary_files(self):
        # (Without the gccjit back end, __main__ skips this case with 77.)
        tmp = os.path.join(self.home, "tmp")
        os.mkdir(tmp)
        t = self.start("--parts", "3000", "-b", "gccjit", "--jit-opt", "3", env={"TMPDIR": tmp})
        # A long expression keeps GCC busy for a while; then a join that runs for hours.
        # One term a line: a terminal in canonical mode (typed ahead while the
        # monitor is busy) cuts a line at 4,095 bytes.
        expr = " +\n".join("(a.qoh * %d - b.weight / %d)" % (i, i + 1) for i in range(1, 400))
        at = len(t.out)
        t.type("range of a is parts\nrange of b is parts\nrange of c is parts\n")
        t.type("retrieve (x = %s, c.pnum) where a.qoh + b.qoh + c.qoh < 0\n\\g\n" % expr)
        t.read_until(b"\\g\r\n", start=at)  # the monitor has the whole buffer and runs it
        # Ctrl-C while GCC is compiling: its temporary directory exists then.
        deadline = time.monotonic() + 60
        while not [n for n in os.listdir(tmp) if n.startswith(GCCJIT_DIRS)]:
            self.assertLess(time.monotonic(), deadline, "no libgccjit- directory appeared in TMPDIR")
            time.sleep(0.01)
        t.type(b"\x03")
        end = t.read_until(re.compile(rb"error: cancelled\r?\n"), start=at, timeout=120)
        t.prompt(start=end)
        at = len(t.out)
        t.type("help parts\n\\g\n")
        t.read_until(b"Tuples:              3000", start=at)
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0)
        self.assertEqual([n for n in os.listdir(tmp) if n.startswith(GCCJIT_DIRS)], [])

    def test_a_signal_that_ends_quelkit_leaves_no_gccjit_directories(self):
        # SIGTERM or SIGHUP while GCC compiles: the compile's directory
        # (TMPDIR/libgccjit-XXXXXX) exists then. The signal still ends
        # quelkit, with its own status, but once the compile is over and the
        # directory removed. (It once ended it at once, leaving the directory.)
        expr = " +\n".join("(a.qoh * %d - b.weight / %d)" % (i, i + 1) for i in range(1, 400))
        for sig in (signal.SIGTERM, signal.SIGHUP):
            with self.subTest(signal=sig.name):
                tmp = tempfile.mkdtemp(prefix="tmp-", dir=self.home)
                p = subprocess.Popen([BIN, "--parts", "3000", "-b", "gccjit", "--jit-opt", "3"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=dict(os.environ, TMPDIR=tmp))
                try:
                    p.stdin.write(("range of a is parts\nrange of b is parts\n"
                                   "retrieve (x = %s) where a.pnum = 1 and b.pnum = 2\n\\g\n" % expr).encode())
                    p.stdin.flush()  # and it stays open: the monitor waits for more
                    deadline = time.monotonic() + 60
                    while not [n for n in os.listdir(tmp) if n.startswith(GCCJIT_DIRS)]:
                        self.assertIsNone(p.poll(), "quelkit ended before compiling")
                        self.assertLess(time.monotonic(), deadline, "no libgccjit- directory appeared in TMPDIR")
                        time.sleep(0.005)
                    p.send_signal(sig)
                    status = p.wait(timeout=60)
                finally:
                    if p.poll() is None:
                        p.kill()
                        p.wait()
                self.assertEqual(status, -sig, p.stderr.read())
                self.assertEqual([n for n in os.listdir(tmp) if n.startswith(GCCJIT_DIRS)], [])

    def test_ctrl_c_ends_a_repeated_statement(self):
        # --repeat 100000000 of a quick retrieve: each run is short, the
        # statement hours long; Ctrl-C ends it (before, it ran on after two).
        t = self.start("--parts", "3360", "--repeat", "100000000")
        at = len(t.out)
        t.type("range of p is parts\nretrieve (p.pnum) where p.qoh < 0\n\\g\n")
        t.read_until(b"\\g\r\n", start=at)
        time.sleep(1.0)
        sent = time.time()
        t.type(b"\x03")
        end = t.read_until(re.compile(rb"<monitor:1>:2:1: error: cancelled\r?\n"), start=at)
        print("Ctrl-C under --repeat at a terminal: cancelled after %.3f s" % (time.time() - sent))
        self.assertLess(time.time() - sent, 20, "the statement took too long to notice Ctrl-C")
        t.prompt(start=end)
        at = len(t.out)
        t.type("help parts\n\\g\n")  # not a retrieve: --repeat does not apply
        t.read_until(re.compile(rb"Tuples: +3360"), start=at)

    def test_include_dev_zero_is_a_line_too_long(self):
        # No line end in it: the line past 16 MiB is an error at its start,
        # the buffer's text before it not run, and the monitor goes on.
        t = self.start()
        at = len(t.out)
        t.type("retrieve (kept = 1)\n\\i /dev/zero\n")
        end = t.read_until(b"/dev/zero:1:1: error: a line longer than 16 MiB", start=at)
        t.prompt(start=end)
        at = len(t.out)
        t.type("retrieve (after = 7)\n\\g\n")
        end = t.read_until(b"(1 row)", start=at)
        self.assertNotIn(b"kept", t.out[at:end])
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0, t.text())

    def test_sigint_cancels_a_script_which_exits_130(self):
        script = os.path.join(self.home, "long.quel")
        with open(script, "w") as f:
            f.write("range of a is parts\nrange of b is parts\nrange of c is parts\n"
                    "retrieve (a.pnum) where a.qoh + b.qoh + c.qoh < 0\n"
                    "retrieve (never = 1)\n")
        p = subprocess.Popen([BIN, "--parts", "3000", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=inherit_blocked_sigint)
        try:
            wait_for_sigint_handler(p.pid)
            time.sleep(1.0)  # the three-variable retrieve is running
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=50)
        finally:
            if p.poll() is None:  # it failed to stop: end it, or it runs for hours
                p.kill()
                p.wait()
        self.assertEqual(p.returncode, 130, err)
        self.assertIn(b"long.quel:4:1: error: cancelled", err)
        self.assertNotIn(b"never", out)
        # The same statements piped to the monitor are a script as well.
        p = subprocess.Popen([BIN, "--parts", "3000"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, preexec_fn=inherit_blocked_sigint)
        try:
            with open(script) as f:
                p.stdin.write(f.read().replace("retrieve (never", "\\g\nretrieve (never").encode() + b"\\g\n")
            p.stdin.close()
            p.stdin = None  # all of it written: communicate() only reads
            wait_for_sigint_handler(p.pid)
            time.sleep(1.0)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=50)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(p.returncode, 130, err)
        self.assertIn(b"<monitor:1>:4:1: error: cancelled", err)
        self.assertNotIn(b"never", out)

    def test_difftest_corpus_names_the_file_running_at_a_terminal(self):
        corpus = os.path.join(self.home, "corpus")
        os.mkdir(corpus)
        for name, value in (("first", 1), ("second", 2)):
            with open(os.path.join(corpus, name + ".quel"), "w") as f:
                f.write("retrieve (a = %d)\n/*= rows\na\n%d\n*/\n" % (value, value))
        t = Terminal(["difftest", "--corpus", corpus, "-b", "interp"], self.home)
        self.terms.append(t)
        self.assertEqual(t.wait(), 0, t.text())
        text = t.text()
        self.assertIn("corpus: file 1 of 2: " + os.path.join(corpus, "first.quel"), text)
        self.assertIn("corpus: file 2 of 2: " + os.path.join(corpus, "second.quel"), text)
        self.assertIn("corpus: 2 files, 2 cases on interp:switch: all pass; plan reuse: 0 cases after a literal twin, "
                      "0 rerun with the plan cache off", text)
        # Each line is blanked once its file has run: the summary starts on
        # a line of its own, after the blanks.
        self.assertRegex(text, r"\r +\rcorpus: 2 files")
        # In a log (no terminal), only the summary.
        p = subprocess.run([BIN, "difftest", "--corpus", corpus, "-b", "interp"], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")
        self.assertEqual(p.stdout, "corpus: 2 files, 2 cases on interp:switch: all pass; plan reuse: 0 cases after a "
                         "literal twin, 0 rerun with the plan cache off; statement cache: 2 cases run from their "
                         "text after a text twin, 2 of them found its entry\n")

    def run_until_sigint(self, args, after):
        """quelkit ARGS without a terminal, SIGINT `after` seconds into its
        statements; its (status, stdout, stderr)."""
        p = subprocess.Popen([BIN] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=inherit_blocked_sigint)
        try:
            wait_for_sigint_handler(p.pid)
            time.sleep(after)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=20)
        finally:
            if p.poll() is None:  # Ctrl-C did not end the wait: fail, not hang
                p.kill()
                p.wait()
        return p.returncode, out, err

    def test_sigint_cancels_a_copy_waiting_on_a_fifo(self):
        # A FIFO with no one at the other end: open and read wait (a writer
        # that has written a record and stays is the same read). Ctrl-C ends
        # the wait as "cancelled"; the copy adds nothing.
        fifo = os.path.join(self.home, "fifo")
        os.mkfifo(fifo)
        status, out, err = self.run_until_sigint(
            ["-e", 'create t (s = c10, a = i4) copy t (s = c10, a = i4) from "%s"' % fifo], 0.5)
        self.assertEqual(status, 130, err)
        self.assertIn(b"1:28: error: cancelled", err)
        w = os.open(fifo, os.O_RDWR)  # a writer that writes one record and stays
        try:
            os.write(w, b"s,a\nx,1\n")
            status, out, err = self.run_until_sigint(
                ["--format", "csv", "-e", 'create t (s = c10, a = i4) copy t (s = c10, a = i4) from "%s"\n'
                 'retrieve (n = count(t.a))' % fifo], 0.5)
        finally:
            os.close(w)
        self.assertEqual(status, 130, err)
        self.assertIn(b"1:28: error: cancelled", err)
        self.assertNotIn(b"copied", err)
        self.assertEqual(out, b"")  # a script stops at a cancelled statement
        status, out, err = self.run_until_sigint(["--parts", "5", "-e", 'copy parts (pnum = i4) into "%s"' % fifo], 0.5)
        self.assertEqual(status, 130, err)
        self.assertIn(b"1:1: error: cancelled", err)

    def test_copy_into_a_fifo_whose_reader_leaves_is_an_io_error(self):
        # No SIGPIPE: the statement fails, the script goes on.
        fifo = os.path.join(self.home, "fifo")
        os.mkfifo(fifo)
        p = subprocess.Popen([BIN, "--parts", "100000", "--format", "csv", "-e",
                              'copy parts (pnum = i4, pname = c20) into "%s"\nretrieve (after = 1)' % fifo],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        with open(fifo, "rb") as r:
            r.read(100)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 1, err)
        self.assertIn(b"cannot write %s: Broken pipe" % fifo.encode(), err)
        self.assertIn(b"after\n1\n", out)


if __name__ == "__main__":
    BIN = os.path.abspath(sys.argv[1])
    try:  # A machine without pseudo-terminals cannot run these: skip (ctest's SKIP_RETURN_CODE), don't fail.
        for fd in os.openpty():
            os.close(fd)
    except OSError as e:
        print("no pseudo-terminal here (%s): skipped" % e)
        sys.exit(77)
    # The gccjit case needs the gccjit back end; a build without it says so
    # by name (any other usage error must fail the case, not skip it).
    if any("gccjit" in a for a in sys.argv[2:]):
        probe = subprocess.run([BIN, "-b", "gccjit", "-e", "retrieve (a = 1)"], capture_output=True)
        if b"unknown back end 'gccjit'" in probe.stderr:
            print("gccjit back end not built: skipped")
            sys.exit(77)
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=2)
