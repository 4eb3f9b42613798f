#!/usr/bin/env python3
"""The terminal monitor's habits that INGRES and psql users bring, through a
pseudo-terminal (pty_test.py's Terminal): after \\g the buffer keeps what ran
until new text is typed, so \\p shows it, \\g runs it again and \\e mends a
failed statement in place; a history file that cannot be written is said
once on standard error, and the session goes on.

Run by ctest, one test per case:  habits_test.py QUELKIT_BINARY [unittest names]
"""
import os
import sys
import time
import unittest

import pty_test


class HabitsTest(pty_test.MonitorTest):
    # Only this file's cases: the base class brings setUp, tearDown and start.
    def step(self, t, text, until, at):
        """Types `text` at a fresh prompt and reads until `until`; returns where it ends."""
        t.type(text)
        end = t.read_until(until, start=at)
        return end

    def test_the_buffer_stays_after_go(self):
        t = self.start("--parts", "5")
        at = len(t.out)
        end = self.step(t, "retrieve (p = parts.pnum) where parts.pnum = 2\n\\g\n", b"(1 row)", at)
        at = t.prompt(start=end)
        time.sleep(0.3)
        # \p shows the statement just run; \g runs it again.
        end = self.step(t, "\\p\n", b"retrieve (p = parts.pnum) where parts.pnum = 2\r\n", at)
        at = t.prompt(start=end)
        time.sleep(0.3)
        end = self.step(t, "\\g\n", b"(1 row)", at)
        at = t.prompt(start=end)
        time.sleep(0.3)
        # New text replaces it: \p shows only the new text, \g runs only that.
        t.type("retrieve (q = 7)\n\\p\n\\g\n")
        end = t.read_until(b"(1 row)", start=at)
        self.assertIn(b"|q|", t.out[at:end])
        self.assertNotIn(b"parts.pnum = 2\r\n", t.out[at:end])
        t.prompt(start=end)
        time.sleep(0.3)
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0)
        # Ctrl-D after a \g quits at once: what ran is not a buffer waiting to run.
        self.assertNotIn(b"the buffer has not run", t.out)

    def test_a_failed_statement_is_mended_in_the_editor(self):
        editor = os.path.join(self.home, "editor.sh")
        with open(editor, "w") as f:  # mends the typo in place: what the buffer held is in the file
            f.write('#!/bin/sh\ngrep -q "retrieve (m = 1 / 0)" "$1" || exit 3\n'
                    'sed -i "s|1 / 0|1 / 1|" "$1"\n')
        os.chmod(editor, 0o755)
        t = self.start(env={"EDITOR": editor})
        at = len(t.out)
        end = self.step(t, "retrieve (m = 1 / 0)\n\\g\n", b"error: division by zero", at)
        at = t.prompt(start=end)
        time.sleep(0.3)
        end = self.step(t, "\\e\n\\g\n", b"(1 row)", at)
        self.assertIn(b"|m|", t.out[at:end])
        self.assertNotIn(b"failed; the buffer is unchanged", t.out[at:end])
        t.prompt(start=end)
        time.sleep(0.3)
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0)

    def history_warning(self, home):
        t = self.start(env={"HOME": home})
        at = len(t.out)
        end = self.step(t, "retrieve (h = 1) \\g\n", b"(1 row)", at)
        at = t.prompt(start=end)
        time.sleep(0.3)
        end = self.step(t, "retrieve (h = 2) \\g\n", b"(1 row)", at)
        t.prompt(start=end)
        time.sleep(0.3)
        t.type("\\q\n")
        self.assertEqual(t.wait(), 0)
        warning = b"warning: cannot save the history in " + home.encode() + b"/.quelkit_history"
        self.assertEqual(t.out.count(warning), 1, t.text())  # once, not at every line

    def test_a_history_that_cannot_be_saved_is_said_once(self):
        self.history_warning(os.path.join(self.home, "no", "such", "home"))

    def test_a_history_file_that_is_a_directory_is_said_once(self):
        os.mkdir(os.path.join(self.home, ".quelkit_history"))
        self.history_warning(self.home)


if __name__ == "__main__":
    pty_test.BIN = os.path.abspath(sys.argv[1])
    try:
        for fd in os.openpty():
            os.close(fd)
    except OSError as e:
        print("no pseudo-terminal here (%s): skipped" % e)
        sys.exit(77)
    # Only this file's cases run: the base class's tests are not collected here.
    for name in [n for n in dir(pty_test.MonitorTest) if n.startswith("test_")]:
        setattr(HabitsTest, name, None)
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=2)
