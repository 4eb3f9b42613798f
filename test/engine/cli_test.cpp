// The quelkit command as a user runs it: exit statuses (0 ok, 1 a statement
// failed, 2 bad usage), the terminal monitor's commands, --stats=json fields,
// and `gen parts` output byte-identical to the independent oracle's CSV.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <vector>
#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "test/engine/shell.h"

namespace quelkit::test {
namespace {

TEST(Cli, ExitStatuses) {
  EXPECT_EQ(sh(kBin + " -e 'retrieve (a = 1)'").status, 0);
  EXPECT_EQ(sh(kBin + " -e 'retrieve (a = 1 / 0)'").status, 1);
  EXPECT_EQ(sh(kBin + " -e 'retrieve (a = '").status, 1);
  EXPECT_EQ(sh(kBin + " --no-such-option").status, 2);
  EXPECT_EQ(sh(kBin + " -b nosuch -e 'retrieve (a = 1)'").status, 2);
  EXPECT_EQ(sh(kBin + " -b interp:nosuch -e 'retrieve (a = 1)'").status, 2);
  EXPECT_EQ(sh(kBin + " --parts abc").status, 2);
  EXPECT_EQ(sh(kBin + " --dump=nosuch -e 'retrieve (a = 1)'").status, 2);
  EXPECT_EQ(sh(kBin + " --selection sometimes -e 'retrieve (a = 1)'").status, 2);
  Out missing = sh(kBin + " /nonexistent/script.quel");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.text.find("cannot open"), std::string::npos);
}

// Errors and results come in text order: a runtime error, then the rows of
// the statement after it, then the syntax error that stops the text (a
// statement cut short by the next one's keyword: nothing from there runs),
// in a script as in the monitor.
TEST(Cli, ErrorsComeInTextOrder) {
  for (const std::string& in :
       {std::string(" -e 'retrieve (b = 1/0)\nretrieve (c = 3)\nretrieve (a = 1) where\nretrieve (d = 4)'"),
        std::string(" --format csv")}) {
    // The second: the monitor, reading the lines piped to it.
    Out o = sh(in.starts_with(" -e")
                   ? kBin + in
                   : "printf 'retrieve (b = 1/0)\\nretrieve (c = 3)\\nretrieve (a = 1) where\\nretrieve (d = 4)\\n"
                     "\\\\g\\n' | " + kBin + in);
    EXPECT_EQ(o.status, 1) << o.text;
    const size_t first = o.text.find(":1:16: error: division by zero");
    const size_t third = o.text.find(":4:1: error: expected an expression but found 'retrieve'");
    ASSERT_NE(first, std::string::npos) << o.text;
    ASSERT_NE(third, std::string::npos) << o.text;
    EXPECT_LT(first, o.text.find("c")) << o.text;
    EXPECT_LT(o.text.find("3"), third) << o.text;
    EXPECT_EQ(o.text.find("d\n4"), std::string::npos) << o.text;
  }
}

// Under --format csv standard output holds CSV alone: help's text, like
// print's title, goes with the messages; a blank line sets two results apart.
TEST(Cli, CsvOutputHoldsCsvAloneWithHelp) {
  Out o = sh("(" + kBin + " --parts 3 --format csv -e 'help\nhelp parts print parts retrieve (x = 1)' 2>/dev/null)");
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.text, "pnum,pname,color,weight,qoh\n1,piston,yellow,55,374\n2,gasket,red,77,374\n3,valve,brown,61,483\n\nx\n1\n");
  o = sh("(" + kBin + " --parts 3 --format csv -e 'help parts' 2>&1 >/dev/null)");
  EXPECT_NE(o.text.find("Relation:            parts"), std::string::npos) << o.text;
}

TEST(Cli, ErrorsQuoteTheLineWithACaret) {
  Out o = sh(kBin + " -e 'retrieve (a = 1)\nretrieve (b = 1 +)'");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.text.find("<-e 1>:2:18: error:"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("  retrieve (b = 1 +)\n                   ^"), std::string::npos) << o.text;
}

TEST(Cli, MonitorRunsBufferOnGoAndResets) {
  Out o = sh("printf 'retrieve (a = 1)\\n\\\\p\\n\\\\g\\nretrieve (b = 2)\\n\\\\r\\nretrieve (c = 3)\\n\\\\g\\n\\\\q\\n' | " + kBin +
             " --format csv");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("retrieve (a = 1)\na\n1\n"), std::string::npos) << o.text;  // \p then \g
  EXPECT_EQ(o.text.find("b\n2"), std::string::npos) << o.text;                      // \r dropped it
  EXPECT_NE(o.text.find("c\n3\n"), std::string::npos) << o.text;
}

TEST(Cli, MonitorErrorsNameTheFileAnIncludedStatementCameFrom) {
  // \i reads a file into the buffer: an error in it gives the file and its
  // line, and an error in a line typed after it the buffer's own.
  char dir[] = "/tmp/quelkit-include-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string f = std::string(dir) + "/inc.quel";
  std::ofstream(f) << "range of p is parts\nretrieve (p.pnum)\n  where p.pnum = \"x\"\n";
  Out o = sh("printf 'retrieve (x = 1)\\n\\\\i " + f + "\\nretrieve (y = 1 +)\\n\\\\g\\nretrieve (z = 2 +)\\n\\\\g\\n' | " +
             kBin + " --parts 5 --format csv");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find(f + ":3:16: error: cannot compare"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("<monitor:1>:5:18: error: expected an expression"), std::string::npos) << o.text;
  // Piped in, that syntax error stops the input: the second buffer does not run.
  EXPECT_NE(o.text.find("nothing after line 4 runs"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("<monitor:2>"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("x\n1\n"), std::string::npos) << o.text;  // the line before the file ran
  std::filesystem::remove_all(dir);
}

TEST(Cli, ScriptsWrittenForTheMonitorRunAsScripts) {
  // INGRES scripts end statements with \g and may end with \q: a script
  // file runs them the same way the monitor does.
  char dir[] = "/tmp/quelkit-go-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string f = std::string(dir) + "/go.quel";
  std::ofstream(f) << "retrieve (a = 1)\n\\g\nretrieve (b = 2) \\g\n\\p\nretrieve (c = 3)\n\\q\nretrieve (d = 4)\n";
  Out o = sh(kBin + " --format csv " + f);
  EXPECT_EQ(o.status, 1) << o.text;  // \p is not for scripts, and stops the text
  EXPECT_NE(o.text.find("a\n1\n"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("b\n2\n"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("c\n3\n"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("d\n4\n"), std::string::npos) << o.text;  // after \q
  EXPECT_NE(o.text.find(f + ":4:1: error: monitor command '\\p' works only in the terminal monitor"), std::string::npos)
      << o.text;
  // A \q right after a refused command or a failed statement still ends the
  // script (the error's recovery once skipped it with the text, and the
  // statements after it ran); a second refused command is reported too.
  // Piped in (`-` or no script), the statements before a \q run as they do
  // in the file: the monitor's \q dropped the buffer there, silently, exit 0.
  std::ofstream(f) << "retrieve (b = 2)\n\\q\nretrieve (never = 1)\n";
  for (const std::string& how : {std::string(" -"), std::string(), " " + f}) {
    o = sh("cat " + f + " | " + kBin + " --format csv" + how);
    EXPECT_EQ(o.status, 0) << how << o.text;
    EXPECT_EQ(o.text, "b\n2\n") << how;
  }
  std::ofstream(f) << "retrieve (a = 1)\n\\p\n\\r\n\\q\nretrieve (after_quit = 1)\n";
  o = sh(kBin + " --format csv " + f);
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find(f + ":3:1: error: monitor command '\\r'"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("after_quit"), std::string::npos) << o.text;
  o = sh(kBin + " --format csv -e 'retrieve (a = ) \\q retrieve (b = 2)'");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_EQ(o.text.find("b\n2\n"), std::string::npos) << o.text;
  std::filesystem::remove_all(dir);
}

// A comment left open on one line holds the lines after it, but a line that
// starts with a command is the monitor's: \p shows the buffer, \r clears it
// and \q quits (every command was comment text, and Ctrl-D the only way
// out). A string left open on its line is no string, so \g after it runs
// the buffer and says so at once.
TEST(Cli, TheMonitorHearsCommandsAfterAnOpenCommentOrString) {
  Out o = sh("printf 'retrieve (c = 1) /* open\\n\\\\p\\n\\\\r\\nretrieve (d = 2)\\n\\\\g\\n\\\\q\\n"
             "retrieve (e = 3)\\n\\\\g\\n' | " + kBin + " --format csv");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("retrieve (c = 1) /* open\nd\n2\n"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("e\n3"), std::string::npos) << o.text;
  o = sh("printf 'retrieve (s = \"abc \\\\g\\nretrieve (t = 1) \\\\g\\n' | " + kBin + " --format csv");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("<monitor:1>:1:15: error: newline in string literal"), std::string::npos) << o.text;
  // Piped in, that lexical error stops the input there (the \g ran the buffer at once, on line 1).
  EXPECT_NE(o.text.find("nothing after line 1 runs"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("t\n1\n"), std::string::npos) << o.text;
}

TEST(Cli, BackslashIReadsAFileAsIfTyped) {
  // As INGRES switched its input to the file: a \g in the file runs the
  // buffer then and there (the typed line before \i with it), \p prints it,
  // what follows the file's last \g waits in the buffer, and \q quits.
  char dir[] = "/tmp/quelkit-include-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string f = std::string(dir) + "/go.quel", q = std::string(dir) + "/quit.quel",
                    self = std::string(dir) + "/self.quel";
  std::ofstream(f) << "retrieve (a = 1)\n\\g\nretrieve (b = 2 / 0)\n\\g\nretrieve (c = 3)\n\\p\n";
  std::ofstream(q) << "retrieve (q = 1)\n\\g\n\\q\nretrieve (never = 1)\n\\g\n";
  std::ofstream(self) << "append to t (a = 1)\n\\i " << self << "\n";
  Out o = sh("printf 'retrieve (t = 0)\\n\\\\i " + f + "\\n\\\\r\\nretrieve (z = 9)\\n\\\\g\\n' | " + kBin +
             " --format csv");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("t\n0\n\na\n1\n"), std::string::npos) << o.text;  // ran at the file's \g, before \r
  EXPECT_NE(o.text.find(f + ":3:17: error: division by zero"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("retrieve (c = 3)\n"), std::string::npos) << o.text;  // the file's \p
  EXPECT_EQ(o.text.find("c\n3\n"), std::string::npos) << o.text;             // the typed \r dropped it
  EXPECT_NE(o.text.find("z\n9\n"), std::string::npos) << o.text;
  o = sh("printf '\\\\i " + q + "\\nretrieve (after = 1)\\n\\\\g\\n' | " + kBin + " --format csv");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("q\n1\n"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("never"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("after"), std::string::npos) << o.text;
  // A file that includes itself is refused at its \i, before a line of it
  // runs again: its append runs once, not once per level of a 16-deep loop.
  o = sh("printf 'create t (a = i2) \\\\g \\\\i " + self + "\\n\\\\g range of x is t retrieve (n = count(x.a))\\n"
         "retrieve (after = 1)\\n\\\\g\\n' | " + kBin + " --format csv");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("self.quel: error: " + self + " is being read already"), std::string::npos) << o.text;
  // The monitor's own error names the file and line of the \i it refused.
  EXPECT_NE(o.text.find("quelkit: " + self + ":2: \\i " + self + ": error:"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("n\n1\n"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("after\n1\n"), std::string::npos) << o.text;
  // Through another file (a includes b includes a), by another name of it.
  const std::string a = std::string(dir) + "/a.quel", b = std::string(dir) + "/b.quel";
  std::ofstream(a) << "retrieve (in_a = 1)\n\\g\n\\i " << b << "\n";
  std::ofstream(b) << "retrieve (in_b = 1)\n\\g\n\\i " << dir << "/./a.quel\n";
  o = sh("printf '\\\\i " + a + "\\n' | " + kBin + " --format csv");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("a.quel is being read already"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("in_a\n1\n\nin_b\n1\n\nin_a"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("in_a\n1\n\nin_b\n1\n"), std::string::npos) << o.text;
  // Sixteen distinct files nest; the seventeenth is refused.
  for (int i = 0; i < 17; ++i)
    std::ofstream(std::string(dir) + "/d" + std::to_string(i) + ".quel")
        << "retrieve (d" << i << " = 1)\n\\g\n\\i " << dir << "/d" << i + 1 << ".quel\n";
  o = sh("printf '\\\\i " + std::string(dir) + "/d0.quel\\n' | " + kBin + " --format csv");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("d15\n1\n"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("d16\n1\n"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("d16.quel: error: files included 16 deep, the most there may be"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("d15.quel:3: \\i " + std::string(dir) + "/d16.quel: error: files included"),
            std::string::npos)
      << o.text;
  std::filesystem::remove_all(dir);
}

// \? lists the monitor's commands, and the text before it stays in the buffer.
TEST(Cli, BackslashQuestionMarkListsTheMonitorCommands) {
  Out o = sh("printf 'retrieve (y = 1)\\n\\\\?\\n\\\\g\\n' | " + kBin + " --format csv");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("monitor commands: \\g go, \\p print"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("y\n1\n"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("error"), std::string::npos) << o.text;
}

// Text after a command on its line keeps its columns: an error in it gives
// the column in the line as typed or as the file has it, and the quoted
// line shows blanks where the command and what it ran stood.
TEST(Cli, TextAfterAMonitorCommandKeepsItsColumns) {
  char dir[] = "/tmp/quelkit-columns-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string f = std::string(dir) + "/after.quel";
  std::ofstream(f) << "retrieve (a = 1)\n\\g retrieve (b = 2 +)\n\\g\n";
  // (Two inputs: piped in, the first syntax error stops the rest.)
  Out o = sh("printf 'retrieve (t = 0) \\\\g retrieve (u = 1 +)\\n\\\\g\\n' | " + kBin + " --format csv");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("t\n0\n"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("<monitor:2>:1:38: error: expected an expression but found ')'\n"
                        "                      retrieve (u = 1 +)\n"
                        "                                       ^"),
            std::string::npos)
      << o.text;
  o = sh("printf '\\\\i " + f + "\\n' | " + kBin + " --format csv");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find(f + ":2:21: error: expected an expression"), std::string::npos) << o.text;
  std::filesystem::remove_all(dir);
}

// A random run says how to run the same queries again, and its rerun line
// does: the same counts (a --seconds run once said only how many ran).
// --no-sqlite leaves SQLite out of --aggregates too (it was still compared).
TEST(Cli, DifftestSaysHowToRerunItAndLeavesSqliteOut) {
  Out o = sh(kBin + " difftest --seed 11 --seconds 1 -b threaded --selection nobranch --no-sqlite --aggregates 5");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("SQLite compared: 0\n"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("aggregates: 5 statements; raised a runtime error: "), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("; SQLite left out (--no-sqlite); mismatches: 0"), std::string::npos) << o.text;
  const size_t at = o.text.find("  rerun: quelkit difftest --seed 11 --count ");
  ASSERT_NE(at, std::string::npos) << o.text;
  const std::string rerun = o.text.substr(at + 9, o.text.find('\n', at) - at - 9);  // after "  rerun: "
  EXPECT_NE(rerun.find(" -b threaded --selection nobranch --aggregates 5 --no-sqlite"), std::string::npos) << rerun;
  Out again = sh(kBin + rerun.substr(std::string("quelkit").size()));
  ASSERT_EQ(again.status, 0) << again.text;
  auto counts = [](const std::string& text) {  // the summary less its first line (which has the time)
    const size_t from = text.find("\n  raised");
    return text.substr(from, text.find("  rerun:") - from);
  };
  EXPECT_EQ(counts(again.text), counts(o.text));
  // The summary ends with it, the aggregates' line before it.
  EXPECT_LT(o.text.find("aggregates: 5 statements"), at) << o.text;
  // Where every mode evaluates tuple at a time it gives no --selection,
  // which would do nothing there and is refused: the line still runs.
  o = sh(kBin + " difftest --seed 11 --count 5 -b interp --no-sqlite");
  ASSERT_EQ(o.status, 0) << o.text;
  const size_t at2 = o.text.find("  rerun: ");
  ASSERT_NE(at2, std::string::npos) << o.text;
  const std::string rerun2 = o.text.substr(at2 + 9, o.text.find('\n', at2) - at2 - 9);
  EXPECT_EQ(rerun2.find("--selection"), std::string::npos) << rerun2;
  EXPECT_EQ(sh(kBin + rerun2.substr(std::string("quelkit").size())).status, 0) << rerun2;
}

// The options that shape a back end's code, as the session takes them, so
// that code under --jit-checks or another batch size can be difftested: the
// rerun line gives them again, and an option no selected back end reads is
// refused, as in every command.
TEST(Cli, DifftestTakesTheCodeShapingOptionsAndRerunsWithThem) {
  Out o = sh(kBin + " difftest --seed 5 --count 20 -b vector:inplace,llvm:fused --vector-batch 7 --jit-checks "
                    "--jit-opt 2 --no-sqlite");
  ASSERT_EQ(o.status, 0) << o.text;
  const size_t at = o.text.find("  rerun: ");
  ASSERT_NE(at, std::string::npos) << o.text;
  const std::string rerun = o.text.substr(at + 9, o.text.find('\n', at) - at - 9);
  EXPECT_NE(rerun.find(" --jit-opt 2 --jit-checks --vector-batch 7"), std::string::npos) << rerun;
  Out corpus = sh(kBin + " difftest --corpus " + std::string(QUELKIT_SOURCE_DIR) +
                  "/test/queries/evaluation_order.quel -b interp,vector --vector-batch 1");
  EXPECT_EQ(corpus.status, 0) << corpus.text;
  EXPECT_NE(corpus.text.find("all pass"), std::string::npos) << corpus.text;
  for (const char* refused : {" --vector-batch 7 -b interp", " --jit-checks -b vector"}) {
    Out r = sh(kBin + " difftest --count 1" + refused);
    EXPECT_EQ(r.status, 2) << refused << ": " << r.text;
  }
}

// difftest --rewrite fills `?` placeholders with what ran, and the file it
// writes passes as it stands: rows filled in above an error move the error's
// statement down, and its expected line with it (it kept the line of the
// file before the rewrite, so the rewritten file failed its own expectation).
TEST(Cli, DifftestRewriteWritesAFileThatPasses) {
  char dir[] = "/tmp/quelkit-rewrite-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string f = std::string(dir) + "/new.quel";
  std::ofstream(f) << "create t (a = i2)\nappend to t (a = 1)\nappend to t (a = 2)\nrange of t is t\n"
                      "retrieve (t.a) sort by a\n/*= ? */\nretrieve (x = 1 / (t.a - 1))\n/*= ? */\n";
  Out o = sh(kBin + " difftest --corpus " + f + " -b interp --rewrite");
  EXPECT_EQ(o.status, 0) << o.text;
  // What it replaced is counted, not listed as failures.
  EXPECT_NE(o.text.find("new.quel: 2 expectations rewritten"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("2 cases on interp:switch: 2 expectations rewritten\n"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("but got"), std::string::npos) << o.text;
  std::ifstream in(f);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("retrieve (t.a) sort by a\n/*= rows\na\n1\n2\n*/\n"), std::string::npos) << text;
  EXPECT_NE(text.find("/*= error 11:17: division by zero (relation t, tuple 1) */"), std::string::npos) << text;
  o = sh(kBin + " difftest --corpus " + f + " -b all");
  EXPECT_EQ(o.status, 0) << o.text;
  // -b all names the modes it ran: every built back end's (interp and threaded at least).
  EXPECT_NE(o.text.find("2 cases on interp:switch interp:goto threaded:goto threaded:call"), std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find(": all pass; plan reuse: "), std::string::npos) << o.text;
  // A statement failing where no expectation follows it is not mended by a
  // rewrite: the file stays as it was, and the run fails.
  const std::string g = std::string(dir) + "/bad.quel";
  const std::string bad = "retrieve (y = 1)\n/*= ? */\nretrieve (x = 1 / 0)\n";
  std::ofstream(g) << bad;
  o = sh(kBin + " difftest --corpus " + g + " -b interp --rewrite");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("bad.quel:3: statement without an expectation failed"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("bad.quel: not rewritten: 1 failure that no expectation mends"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("0 expectations rewritten; 1 file left as it was, with 1 failure"), std::string::npos)
      << o.text;
  std::ifstream again(g);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>()), bad);
  // Without --rewrite, the failure outside the cases is counted apart from them.
  o = sh(kBin + " difftest --corpus " + g + " -b interp");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("1 case on interp:switch: 2 failures (1 outside the cases, in statements no expectation follows); "
                        "1 of 1 case failed; plan reuse: "),
            std::string::npos)
      << o.text;
  std::filesystem::remove_all(dir);
}

TEST(Cli, StatsJsonHasEveryField) {
  Out o = sh(kBin + " --parts 210 --format none --stats=json --repeat 3 -e 'range of p is parts "
                    "retrieve (p.pnum) where p.qoh < log(9.5) * p.weight'");
  ASSERT_EQ(o.status, 0) << o.text;
  for (const char* f : {"\"stmt\":", "\"line\":", "\"backend\":\"interp\"", "\"mode\":\"switch\"", "\"jit_opt\":",
                        "\"access_path\":", "\"rows_scanned\":210", "\"rows_qualified\":44", "\"rows_out\":44",
                        "\"prepares\":1", "\"cache_hits\":0", "\"prepare_ns\":", "\"irgen_ns\":", "\"opt_ns\":",
                        "\"codegen_ns\":", "\"run_ns\":", "\"run_ns_min\":", "\"run_ns_max\":",
                        "\"repeat\":3", "\"checksum\":\"629a105994fe2a1e\"", "\"error\":null",
                        "\"settings\":\"\",", "\"page_bytes\":1024,", "\"parse_ns\":", "\"bind_ns\":",
                        "\"plan_ns\":", "\"lookup_ns\":", "\"result_ns\":", "\"total_ns\":"})
    EXPECT_NE(o.text.find(f), std::string::npos) << f << "\n" << o.text;
  // The text form gives the fixed costs after verify's time.
  Out t = sh(kBin + " --parts 210 --format none --stats -e 'range of p is parts retrieve (p.pnum) where p.qoh < 10'");
  ASSERT_EQ(t.status, 0) << t.text;
  EXPECT_NE(t.text.find(" us; parse "), std::string::npos) << t.text;
  for (const char* f : {", bind ", ", plan ", ", lookup ", ", result ", ", total "})
    EXPECT_NE(t.text.find(f), std::string::npos) << f << "\n" << t.text;
}

// What shaped a back end's code is named beside it, so a figure says what to
// give to reproduce it: the JIT options, vector's batch (its default too);
// and a JIT's phases after its prepare time.
TEST(Cli, StatsNameTheSettingsInForce) {
  const std::string q = " -e 'range of p is parts retrieve (p.pnum) where p.qoh < 10'";
  Out o = sh(kBin + " --parts 210 --page-size 8192 --format none --stats=json -b threaded,vector --vector-batch 64" + q);
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("\"backend\":\"threaded\",\"mode\":\"goto\",\"jit_opt\":1,\"jit_lookup_opt\":0,\"settings\":\"\",\"page_bytes\":8192,"),
            std::string::npos) << o.text;
  EXPECT_NE(o.text.find("\"settings\":\"batch 64\""), std::string::npos) << o.text;
  o = sh(kBin + " --parts 210 --format none --stats -b vector" + q);
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find(") vector:inplace [batch 128]: p:heap full scan"), std::string::npos) << o.text;
  if (sh(kBin + " -b llvm -e 'create t (a = i4)'").status != 0) return;  // llvm is not built
  o = sh(kBin + " --parts 210 --format none --stats -b llvm:fused,adaptive --jit-opt 2 --jit-checks" + q);
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find(") llvm:fused [-O2, lookups -O0, generic CPU, checks]: "), std::string::npos) << o.text;
  EXPECT_NE(o.text.find(") adaptive:tiered [llvm tier -O2, generic CPU, checks]: "), std::string::npos) << o.text;
  EXPECT_NE(o.text.find(" us (irgen "), std::string::npos) << o.text;
}

// A keyed lookup run once in its statement is compiled at --jit-lookup-opt
// (0 by default), every other plan at --jit-opt, and the dumps say which:
// `same` puts lookups back at --jit-opt's level. An inner lookup of a tuple
// substitution runs once per substituted tuple and keeps --jit-opt's.
TEST(Cli, KeyedLookupsCompileAtTheLookupLevel) {
  if (sh(kBin + " -b llvm -e 'create t (a = i4)'").status != 0) return;  // llvm is not built
  const std::string setup =
      " -e 'create e (name = c10, salary = i4) append to e (name = \"a\", salary = 1) "
      "append to e (name = \"b\", salary = 2) modify e to hash on name range of x is e range of y is e' ";
  const std::string lookup = "-e 'replace x (salary = 5) where x.name = \"a\"' ";
  const std::string scan = "-e 'retrieve (x.name) where x.salary > 1' ";
  const std::string join = "-e 'retrieve (x.salary) where x.name = y.name and y.salary = 2' ";
  for (const char* backend : {"llvm:fused", "gccjit:fused"}) {
    const bool llvm = std::string(backend).rfind("llvm", 0) == 0;
    const std::string form = llvm ? "llvm" : "gimple";
    auto after = [&](const std::string& plan, const std::string& level) {
      return " " + plan + (llvm ? ", after --jit-opt " : ", GIMPLE after --jit-opt ") + level;
    };
    Out o = sh(kBin + " --no-reformat -b " + backend + " --dump " + form + setup + lookup + scan + join);
    if (o.status != 0 && std::string(backend) == "gccjit:fused") continue;  // gccjit is not built
    ASSERT_EQ(o.status, 0) << o.text;
    EXPECT_NE(o.text.find(after("q7", "0 (a keyed lookup)")), std::string::npos) << o.text;
    EXPECT_NE(o.text.find(after("q8", "1\n")), std::string::npos) << o.text;
    EXPECT_EQ(o.text.find(after("q9_s1", "0")), std::string::npos) << o.text;
    EXPECT_NE(o.text.find(after("q9_s1", "1\n")), std::string::npos) << o.text;
    o = sh(kBin + " -b " + backend + " --jit-lookup-opt same --dump " + form + setup + lookup);
    ASSERT_EQ(o.status, 0) << o.text;
    EXPECT_NE(o.text.find(after("q7", "1\n")), std::string::npos) << o.text;
    EXPECT_EQ(o.text.find("(a keyed lookup)"), std::string::npos) << o.text;
  }
  Out o = sh(kBin + " -b llvm:fused --jit-lookup-opt 4 -e 'create t (a = i4)'");
  EXPECT_EQ(o.status, 2) << o.text;
}

// --repeat repeats a retrieve only (an update applied K times would change
// the data K times); `repeat` and the text's run count say how many runs the
// figures are over, 1 for an append and for a statement that failed.
TEST(Cli, StatsRepeatCountsTheRunsMade) {
  Out o = sh(kBin + " --parts 210 --format none --stats=json --repeat 3 -e 'range of p is parts "
                    "append to parts (pnum = 9999) retrieve (p.pnum) retrieve (x = 1 / (p.pnum - p.pnum))'");
  ASSERT_EQ(o.status, 1) << o.text;
  std::vector<std::string> lines;
  for (size_t at = 0, nl; (nl = o.text.find('\n', at)) != std::string::npos; at = nl + 1)
    if (o.text.compare(at, 8, "{\"stmt\":") == 0) lines.push_back(o.text.substr(at, nl - at));
  ASSERT_EQ(lines.size(), 4u) << o.text;  // range's too (it runs once, on no back end)
  EXPECT_NE(lines[0].find("\"statement\":\"range\",\"backend\":null,"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("\"repeat\":1,"), std::string::npos) << lines[1];  // append
  EXPECT_NE(lines[2].find("\"repeat\":3,"), std::string::npos) << lines[2];  // retrieve
  EXPECT_NE(lines[3].find("\"repeat\":1,"), std::string::npos) << lines[3];  // failed at its first tuple
  Out t = sh(kBin + " --parts 210 --format none --stats --repeat 3 -e 'range of p is parts "
                    "append to parts (pnum = 9999) retrieve (p.pnum)'");
  ASSERT_EQ(t.status, 0) << t.text;
  EXPECT_NE(t.text.find(", 1 run); verify"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find(", 3 runs); verify"), std::string::npos) << t.text;
}

TEST(Cli, GenCsvIsByteIdenticalToTheOracle) {
  if (sh("python3 --version").status != 0) GTEST_SKIP() << "python3 not installed";
  const std::string oracle = std::string(QUELKIT_SOURCE_DIR) + "/test/oracle/oracle.py";
  for (const char* args : {"--rows 0", "--rows 0 --wide", "--rows 1", "--rows 210", "--rows 3360", "--rows 3360 --wide", "--rows 40000"}) {
    SCOPED_TRACE(args);
    Out ours = sh(kBin + " gen parts " + args);
    Out theirs = sh("python3 " + oracle + " csv " + args);
    ASSERT_EQ(ours.status, 0);
    ASSERT_EQ(theirs.status, 0);
    EXPECT_EQ(ours.text, theirs.text);
  }
}

// A file `gen --csv` cannot finish says why, as `copy into` does (it said
// "writing FILE failed").
TEST(Cli, GenSaysWhyItCannotWriteItsFile) {
  Out o = sh(kBin + " gen parts --rows 5000 --csv /dev/full");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_EQ(o.text, "quelkit: error: cannot write /dev/full: No space left on device\n");
}

// `gen parts` writes the file `copy into` writes of the same relation, the
// wide one with its filler column (which `--wide` once left out), and `copy
// from` reads it back to the same tuples.
TEST(Cli, GenCsvIsWhatCopyIntoWrites) {
  char dir[] = "/tmp/quelkit-gen-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string d = dir;
  const std::string cols = "pnum=i2, pname=c20, color=c8, weight=i2, qoh=i2";
  for (bool wide : {false, true}) {
    SCOPED_TRACE(wide ? "wide" : "narrow");
    const std::string fmt = cols + (wide ? ", filler=c166" : "");
    const std::string spec = wide ? ":wide" : "";
    ASSERT_EQ(sh(kBin + " gen parts --rows 300" + (wide ? " --wide" : "") + " --csv " + d + "/gen.csv").status, 0);
    Out into = sh(kBin + " --parts 300" + spec + " -e 'copy parts (" + fmt + ") into \"" + d + "/copy.csv\"'");
    ASSERT_EQ(into.status, 0) << into.text;
    EXPECT_EQ(sh("cmp " + d + "/gen.csv " + d + "/copy.csv").status, 0);
    EXPECT_EQ(sh("head -1 " + d + "/gen.csv").text,
              wide ? "pnum,pname,color,weight,qoh,filler\n" : "pnum,pname,color,weight,qoh\n");
    const std::string sum = "range of p is parts retrieve (n = count(p.pnum), s = sum(p.qoh), w = sum(p.weight))";
    Out back = sh(kBin + " --parts 0" + spec + " --format csv -e 'copy parts (" + fmt + ") from \"" + d +
                  "/gen.csv\" " + sum + "'");
    Out orig = sh(kBin + " --parts 300" + spec + " --format csv -e '" + sum + "'");
    ASSERT_EQ(back.status, 0) << back.text;
    EXPECT_NE(back.text.find(orig.text), std::string::npos) << back.text << "\n" << orig.text;
  }
  std::filesystem::remove_all(d);
}

// A `copy into` whose write fails part way (here past the file-size limit,
// ulimit -f, which once ended the process with SIGXFSZ and no word) is the
// statement's I/O error, and the file it would have replaced is as it was,
// its mode too: the rows go to a temporary beside it, renamed over it only
// when whole, and removed when not. The session goes on to the next statement.
TEST(Cli, ACopyIntoThatCannotFinishKeepsTheFileItWouldReplace) {
  char dir[] = "/tmp/quelkit-keep-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string d = dir, keep = d + "/keep.csv";
  std::ofstream(keep) << "ORIGINAL\n";
  ASSERT_EQ(::chmod(keep.c_str(), 0640), 0);
  const std::string copy = "copy parts (pnum = i2, pname = c20, color = c8, weight = i2, qoh = i2) into \"keep.csv\"";
  auto files = [&] {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(d)) names.push_back(e.path().filename().string());
    return names;
  };
  auto mode = [&] {
    struct stat st {};
    return ::stat(keep.c_str(), &st) == 0 ? int(st.st_mode & 07777) : -1;
  };
  Out o = sh("cd " + d + " && ulimit -f 20 && " + kBin + " --parts 3360 --format csv -e '" + copy +
             "' -e 'range of p is parts retrieve (n = count(p.pnum))'");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("<-e 1>:1:77: error: cannot write keep.csv: File too large"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("n\n3360\n"), std::string::npos) << o.text;  // the next statement ran
  std::ifstream in(keep);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "ORIGINAL\n");
  EXPECT_EQ(files(), std::vector<std::string>{"keep.csv"});  // no temporary left
  EXPECT_EQ(mode(), 0640);
  // Without the limit the file is replaced whole, keeping its mode.
  o = sh("cd " + d + " && " + kBin + " --parts 3360 -e '" + copy + "'");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_EQ(sh("wc -l < " + keep).text, "3361\n");
  EXPECT_EQ(files(), std::vector<std::string>{"keep.csv"});
  EXPECT_EQ(mode(), 0640);
  std::filesystem::remove_all(d);
}

// Where no temporary can replace the file (a file with other names, a
// directory that refuses one), the copy writes in place, and a write that
// cannot finish still leaves the file as it was: the space is reserved before
// a byte of it changes. A file the user may not write is refused, though a
// rename could have replaced it, and one of another owner keeps its owner.
// The second half runs as `nobody`, so only where the test runs as root.
TEST(Cli, ACopyIntoAFileItCannotReplaceKeepsItAndItsOwner) {
  char dir[] = "/tmp/quelkit-inplace-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string d = dir;
  auto text = [&](const std::string& name) {  // its first bytes: enough to tell
    std::ifstream in(d + "/" + name);
    return std::string(std::istreambuf_iterator<char>(in), {}).substr(0, 40);
  };
  const std::string copy = "copy parts (pnum = i2, pname = c20, color = c8, weight = i2, qoh = i2) into ";
  std::ofstream(d + "/linked.csv") << "ORIGINAL\n";
  ASSERT_EQ(::link((d + "/linked.csv").c_str(), (d + "/other.csv").c_str()), 0);
  Out o = sh("cd " + d + " && ulimit -f 20 && " + kBin + " --parts 3360 -e '" + copy + "\"linked.csv\"'");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("error: cannot write linked.csv: File too large"), std::string::npos) << o.text;
  EXPECT_EQ(text("linked.csv"), "ORIGINAL\n");
  EXPECT_EQ(text("other.csv"), "ORIGINAL\n");
  o = sh("cd " + d + " && " + kBin + " --parts 3 -e '" + copy + "\"linked.csv\"'");  // whole: both names
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_EQ(text("other.csv").substr(0, 5), "pnum,");

  const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  if (::geteuid() != 0 || sh(as_nobody + "true").status != 0) {
    std::filesystem::remove_all(d);
    GTEST_SKIP() << "the rest runs a copy as another user (setpriv), which needs root";
  }
  ASSERT_EQ(::chmod(d.c_str(), 0777), 0);
  std::ofstream(d + "/readonly.csv") << "ORIGINAL\n";
  ASSERT_EQ(::chmod((d + "/readonly.csv").c_str(), 0444), 0);
  std::ofstream(d + "/shared.csv") << "ORIGINAL\n";
  ASSERT_EQ(::chmod((d + "/shared.csv").c_str(), 0666), 0);
  ASSERT_EQ(::mkdir((d + "/closed").c_str(), 0755), 0);
  std::ofstream(d + "/closed/f.csv") << "ORIGINAL\n";
  ASSERT_EQ(::chmod((d + "/closed/f.csv").c_str(), 0666), 0);
  o = sh("cd " + d + " && " + as_nobody + kBin + " --parts 3 -e '" + copy + "\"readonly.csv\"'");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("error: cannot open readonly.csv: Permission denied"), std::string::npos) << o.text;
  EXPECT_EQ(text("readonly.csv"), "ORIGINAL\n");
  o = sh("cd " + d + " && " + as_nobody + kBin + " --parts 3 -e '" + copy + "\"shared.csv\"'");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_EQ(text("shared.csv").substr(0, 5), "pnum,");
  struct stat st {};
  ASSERT_EQ(::stat((d + "/shared.csv").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u) << "the owner was not kept";
  o = sh("cd " + d + " && ulimit -f 20 && " + as_nobody + kBin + " --parts 3360 -e '" + copy + "\"closed/f.csv\"'");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("error: cannot write closed/f.csv: File too large"), std::string::npos) << o.text;
  EXPECT_EQ(text("closed/f.csv"), "ORIGINAL\n");
  std::filesystem::remove_all(d);
}

// libgccjit runs GCC in this process, and a fatal error of GCC's (its
// output past ulimit -f, no assembler on PATH) once ended the process, the
// session and the other back ends' answers with it ("compilation
// terminated.", exit 1; SIGXFSZ, 153). gccjit checks first and fails the
// statement, said as an answer missing, not as back ends disagreeing; the
// session goes on.
TEST(Cli, GccjitThatCannotRunItsToolchainFailsTheStatementAlone) {
  if (sh(kBin + " -b gccjit -e 'create t (a = i4)'").status != 0) GTEST_SKIP() << "gccjit is not built";
  const std::string stmts =
      " --parts 100 -b interp,gccjit -e 'range of p is parts retrieve (p.pnum) where p.qoh < 10'"
      " -e 'help parts'";
  for (const std::string& env : {std::string("ulimit -f 100; "), std::string("PATH=/nonexistent ")}) {
    SCOPED_TRACE(env);
    Out o = sh("bash -c \"" + env + kBin + stmts + "\"");
    EXPECT_EQ(o.status, 1) << o.text;
    EXPECT_NE(o.text.find("<-e 1>:1:21: error: gccjit could not compile the statement (q2): "), std::string::npos)
        << o.text;
    EXPECT_NE(o.text.find("(gccjit:fused could not run the statement; interp:switch did: an answer missing, not one "
                          "differing)"),
              std::string::npos)
        << o.text;
    EXPECT_EQ(o.text.find("disagree"), std::string::npos) << o.text;
    EXPECT_NE(o.text.find("Tuples:              100"), std::string::npos) << o.text;  // the next statement ran
    // Where the one that ran failed as well, its error is its answer, said
    // first; still not a disagreement (it was "different errors").
    Out d = sh("bash -c \"" + env + kBin + " --parts 100 -b interp,gccjit -e 'range of p is parts retrieve (x = p.pnum / 0)'\"");
    EXPECT_EQ(d.status, 1) << d.text;
    EXPECT_EQ(d.text.find("disagree"), std::string::npos) << d.text;
    const size_t div = d.text.find("<-e 1>:1:42: error: division by zero"), cc = d.text.find("gccjit could not compile");
    ASSERT_NE(div, std::string::npos) << d.text;
    ASSERT_NE(cc, std::string::npos) << d.text;
    EXPECT_LT(div, cc) << d.text;
    // A corpus case says so once, naming who ran, and fails: the answer
    // missing is no pass, and no second failure besides it.
    char dir[] = "/tmp/quelkit-missing-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string file = std::string(dir) + "/div.quel";
    std::ofstream(file) << "retrieve (x = 1 / 0)\n/*= error 1:17: division by zero */\n";
    Out c = sh("bash -c \"" + env + kBin + " difftest --corpus " + file + " -b interp,gccjit\"");
    EXPECT_EQ(c.status, 1) << c.text;
    EXPECT_NE(c.text.find(file + ":2: gccjit:fused could not run the statement; interp:switch did: an answer missing, "
                                 "not one differing: 1:1: gccjit could not compile"),
              std::string::npos)
        << c.text;
    EXPECT_NE(c.text.find("1 failure; 1 of 1 case failed"), std::string::npos) << c.text;
    std::filesystem::remove_all(dir);
  }
}

// The stencil back end's code arena reserves a GiB of address space (no
// memory); under an address-space limit (ulimit -v) that once aborted the
// program before its first statement ("internal error: stencil arena:
// reserving address space"). It reserves less where it must now. Not under
// AddressSanitizer, whose shadow memory no such limit admits.
TEST(Cli, StencilRunsUnderAnAddressSpaceLimit) {
#ifdef QUELKIT_SANITIZED
  GTEST_SKIP() << "AddressSanitizer needs more address space than the limit";
#endif
  if (sh(kBin + " -b stencil -e 'create t (a = i4)'").status != 0) GTEST_SKIP() << "stencil is not built";
  Out o = sh("bash -c \"ulimit -v 900000; " + kBin +
             " --parts 1000 -b stencil,interp -e 'range of p is parts retrieve (n = p.pnum) where p.pnum > 998'\"");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("| 999|\n|1000|"), std::string::npos) << o.text;
}

// Under an address-space limit the default budget is half the room the limit
// leaves, so a result too big for it is the budget's error, naming what would
// not fit (it was "internal limit: std::bad_alloc"), and the session goes on.
TEST(Cli, AnAddressSpaceLimitBoundsTheDefaultBudget) {
#ifdef QUELKIT_SANITIZED
  GTEST_SKIP() << "AddressSanitizer needs more address space than the limit";
#endif
  Out o = sh("bash -c \"ulimit -v 900000; " + kBin +
             " --parts 12000 --format csv -e 'range of a is parts range of b is parts' "
             "-e 'retrieve (a.pnum, b.pnum, b.qoh) where a.qoh >= 0' -e 'retrieve (after = 1)'\"");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("memory budget exceeded: the result would need more than"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("after\n1\n"), std::string::npos) << o.text;
}

// A statement the memory budget stops part way through its inserts loses
// nothing and adds nothing (the append once kept the 456 tuples whose pages
// fitted; a replace that moves keys erased before it inserted). Budgets found
// by trying: each fits the relation and the statement's result, not its pages.
TEST(Cli, AnUpdateTheBudgetRefusesChangesNothing) {
  struct Case {
    const char *parts, *budget, *stmt;
  };
  const Case cases[] = {
      {"1000", "110K", "append to parts (p.all)"},
      {"1000:isam", "130K", "append to parts (p.all)"},
      {"1000:isam", "110K", "replace p (pnum = p.pnum + 3000) where p.pnum > 100"},
  };
  const std::string sum = " -e 'retrieve (n = count(p.pnum), s = sum(p.pnum), q = sum(p.qoh))'";
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.parts) + " " + c.budget + " " + c.stmt);
    const std::string parts = std::string(" --format csv --parts ") + c.parts + " -e 'range of p is parts'";
    Out before = sh(kBin + parts + sum);
    ASSERT_EQ(before.status, 0) << before.text;
    Out o = sh(kBin + " --memory-budget " + c.budget + parts + " -e '" + c.stmt + "'" + sum);
    EXPECT_EQ(o.status, 1) << o.text;
    EXPECT_NE(o.text.find("relation parts would need more than"), std::string::npos) << o.text;
    EXPECT_EQ(o.text.substr(o.text.size() - std::min(o.text.size(), before.text.size())), before.text) << o.text;
  }
}

// Several back ends hold two results at a time for a replace or a delete too:
// each later one's updated tuples are let go once compared with the first's.
// 1300K fits two back ends' 20,000 updated tuples (about 1,200K), not five
// (about 1,800K, which each back end's tuples once held to the end needed).
TEST(Cli, UpdatesOfSeveralBackEndsHoldTwoResultsAtATime) {
  for (const char* stmt : {"replace p (qoh = p.qoh + 1)", "delete p"}) {
    SCOPED_TRACE(stmt);
    Out o = sh(kBin + " -b interp:switch,interp:goto,threaded:goto,threaded:call,vector:inplace --memory-budget 1300K" +
               " --format csv --parts 20000 -e 'range of p is parts' -e '" + stmt +
               "' -e 'retrieve (n = count(p.pnum), q = sum(p.qoh))'");
    EXPECT_EQ(o.status, 0) << o.text;
    EXPECT_EQ(o.text.find("error"), std::string::npos) << o.text;
    EXPECT_NE(o.text.find("20000 rows"), std::string::npos) << o.text;
  }
}

// Several back ends: the later ones run while the first's result is held to
// compare; the budget refusing one of them is the statement's error, said as
// such, not a disagreement of the back ends.
TEST(Cli, BudgetOfSeveralBackEndsIsNoDisagreement) {
  Out o = sh(kBin + " -b interp:switch,interp:goto --memory-budget 2M --parts 20000 -e 'range of p is parts' "
                    "-e 'append to parts (p.all)'");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_EQ(o.text.find("disagree"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("memory budget exceeded"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("interp:goto ran while interp:switch's result was held"), std::string::npos) << o.text;
}

// Where the memory budget stops a retrieve is the same on every back end:
// each asks for a page's room as it goes, vector's batches of several pages
// too (they ran the pages that end a chunk one at a time; asking for a whole
// batch's room stopped vector up to a batch earlier, 28,600 tuples for 28,756).
TEST(Cli, TheBudgetStopsARetrieveAtTheSameTupleOnEveryBackEnd) {
  Out o = sh(kBin + " --parts 50000 --memory-budget 3M --format none --stats=json -b all -e 'range of p is parts' "
                    "-e 'retrieve (p.all) where p.pnum > 100'");
  EXPECT_EQ(o.status, 1) << o.text;
  std::map<std::string, int> counts;  // "scanned,qualified" -> back ends
  for (size_t at = 0, nl; (nl = o.text.find('\n', at)) != std::string::npos; at = nl + 1) {
    if (o.text.compare(at, 8, "{\"stmt\":") != 0) continue;
    auto j = nlohmann::json::parse(o.text.substr(at, nl - at));
    if (j["error"].is_null()) continue;  // the range statement
    EXPECT_NE(j["error"].get<std::string>().find("memory budget exceeded"), std::string::npos) << j.dump();
    ++counts[std::to_string(j["rows_scanned"].get<uint64_t>()) + "," + std::to_string(j["rows_qualified"].get<uint64_t>())];
  }
  ASSERT_EQ(counts.size(), 1u) << o.text;
  EXPECT_EQ(counts.begin()->second, 15) << o.text;
  EXPECT_NE(counts.begin()->first, "0,0") << o.text;  // it stopped part way, not at the start
}

TEST(Cli, SeveralBackEndsAgree) {
  Out o = sh(kBin + " --parts 3360:isam:wide -b all --format none -e 'range of p is parts range of q is parts "
                    "retrieve (p.qoh, q.qoh) where p.pnum = q.pnum and p.color = \"black\"'");
  EXPECT_EQ(o.status, 0) << o.text;
}

// The paper report end to end, in miniature: heap, ISAM and hash tables, every
// back end, SQLite and the reference loop agreeing on each row count and
// checksum, and those equal to the independent oracle's (test/oracle/expected.json).
TEST(Cli, PaperReportCoversHeapIsamAndHashAndAgreesWithTheOracle) {
  char dir[] = "/tmp/quelkit-paper-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  Out o = sh(kBin + " paper --sizes 210 --keyed-sizes 3360 --queries cef --reps 1 --min-time 0.001 "
                    "--count-sizes= --children 1 -b interp,threaded --out " + dir);
  ASSERT_EQ(o.status, 0) << o.text;
  for (const char* title : {"Table 1: queries (a)-(d)", "(e) as a full scan", "ISAM on pnum", "hash on pnum", "break-even"})
    EXPECT_NE(o.text.find(title), std::string::npos) << title << "\n" << o.text;
  std::ifstream csv(std::string(dir) + "/paper.csv");
  std::string line;
  std::getline(csv, line);
  ASSERT_EQ(line.rfind("query,tuples,keyed,structure,backend,rows,checksum,", 0), 0u) << line;
  // query,tuples,structure -> (rows, checksum) from oracle.py
  const std::map<std::string, std::pair<std::string, std::string>> oracle = {
      {"c,210,heap", {"207", "71f34e4399a9287b"}}, {"e,210,heap", {"210", "334de02cca2d9bbf"}},
      {"e,3360,isam", {"2499", "2dbebd5c014f9395"}}, {"e,3360,hash", {"2499", "2dbebd5c014f9395"}},
      {"f,3360,isam", {"3360", "bb81d368a836fa89"}}, {"f,3360,hash", {"3360", "bb81d368a836fa89"}}};
  std::map<std::string, std::set<std::string>> backends_seen;
  while (std::getline(csv, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    ASSERT_GE(f.size(), 7u) << line;
    if (f[4] == "scan (walk only)" || f[4] == "floor (stream)") continue;  // no result: the floors
    const std::string key = f[0] + "," + f[1] + "," + f[3];
    auto it = oracle.find(key);
    ASSERT_NE(it, oracle.end()) << line;
    EXPECT_EQ(f[5], it->second.first) << line;
    EXPECT_EQ(f[6], it->second.second) << line;
    backends_seen[key].insert(f[4]);
  }
  EXPECT_EQ(backends_seen.size(), oracle.size());
  for (const auto& [key, seen] : backends_seen) {
    for (const char* b : {"interp:switch", "threaded:goto", "sqlite"}) {
      EXPECT_TRUE(seen.count(b)) << key << " " << b;
    }
    if (key[0] != 'f') {
      EXPECT_TRUE(seen.count("reference")) << key;  // (f) has no hand-written loop
    }
  }
  // The CSV carries the JSON's figures exactly (it had six significant
  // digits: prepare_ns 6.2375e+06), reps and spread included.
  std::ifstream csv2(std::string(dir) + "/paper.csv"), js(std::string(dir) + "/paper.json");
  const nlohmann::json doc = nlohmann::json::parse(js);
  // The file names the code that measured it, as --version does.
  EXPECT_EQ(sh(kBin + " --version").text,
            "quelkit " + doc["version"].get<std::string>() + " (" + doc["commit"].get<std::string>() + ")\n");
  std::getline(csv2, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string x; std::getline(hs, x, ',');) header.push_back(x);
  for (const char* h : {"reps", "spread"}) EXPECT_NE(std::find(header.begin(), header.end(), h), header.end()) << h;
  size_t i = 0;
  for (; std::getline(csv2, line); ++i) {
    ASSERT_LT(i, doc["results"].size());
    const nlohmann::json& r = doc["results"][i];
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    f.resize(header.size());
    for (size_t k = 0; k < header.size(); ++k) {
      const std::string& h = header[k];
      if (h == "statement_ns" || h == "min_ns" || h == "max_ns" || h == "per_tuple_ns" || h == "prepare_ns" ||
          h == "spread" || h == "reps") {
        EXPECT_EQ(std::stod(f[k]), r[h].get<double>()) << h << ": " << line;
      }
    }
  }
  EXPECT_EQ(i, doc["results"].size());
  std::filesystem::remove_all(dir);
}

TEST(Cli, PaperSizesPlusAddsToTheDefaults) {
  Out o = sh(kBin + " paper --sizes +7 --queries a --reps 1 "
                    "--min-time 0.001 -b interp --no-sqlite");
  ASSERT_EQ(o.status, 0) << o.text;
  // (a)'s block lists every size: the defaults with 7 in order.
  EXPECT_NE(o.text.find("1 tuples |         7 tuples |       210 tuples |      3360 tuples |    100000 tuples |"
                        "   1000000 tuples"),
            std::string::npos)
      << o.text;
  EXPECT_EQ(sh(kBin + " paper --keyed-structures btree").status, 2);
  EXPECT_EQ(sh(kBin + " paper --sizes 12x").status, 2);
}

// The aggregates section alone (no Table 1 size): each of its six statements
// on every back end asked for, SQLite and each back end's count scan, the
// answers agreeing (a disagreement exits 1), in the text and in paper.json.
TEST(Cli, PaperAggregatesSectionRunsEveryStatementOnEveryBackEndAndSqlite) {
  char dir[] = "/tmp/quelkit-paper-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  Out o = sh(kBin + " paper --sizes= --keyed-sizes= --count-sizes= --aggregate-sizes 3360 --reps 1 --min-time 0.001 "
                    "--children 0 -b interp,threaded --out " + dir);
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("Aggregates: each statement run whole"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("[pnum100] retrieve unique (b = p.pnum / 100"), std::string::npos) << o.text;
  std::ifstream js(std::string(dir) + "/paper.json");
  const nlohmann::json doc = nlohmann::json::parse(js);
  // statement -> rows every cell with an answer gives; and the cells seen
  const std::map<std::string, uint64_t> rows = {{"count", 1},  {"sum", 1},           {"minmax", 1},
                                                {"colour", 8}, {"pname_colour", 159}, {"pnum100", 34}};
  std::map<std::string, std::set<std::string>> seen;
  std::map<std::string, std::set<uint64_t>> count_rows;  // the count scans' qualifying tuples
  for (const auto& c : doc["aggregates"]) {
    const std::string id = c["statement"], kind = c["kind"], backend = c["backend"];
    ASSERT_TRUE(rows.count(id)) << id;
    seen[id].insert(backend);
    if (kind == "backend" || kind == "sqlite") {
      EXPECT_EQ(c["rows"].get<uint64_t>(), rows.at(id)) << id << " " << backend;
    }
    if (kind == "count_scan") count_rows[id].insert(c["rows"].get<uint64_t>());
    EXPECT_GT(c["statement_ns"].get<double>(), 0) << id << " " << backend;
  }
  EXPECT_EQ(seen.size(), rows.size());
  for (const auto& [id, b] : seen)
    for (const char* want : {"interp:switch", "threaded:goto", "sqlite", "interp:switch count (b)",
                             "threaded:goto count (b)", "scan (walk only)", "floor (stream)"}) {
      std::string w = want;
      if (id == "sum" && w.ends_with("(b)")) w.replace(w.size() - 3, 3, "(d)");  // the sum's bound is (d)'s scan
      EXPECT_TRUE(b.count(w)) << id << " lacks " << w;
    }
  // Every back end's count scan qualifies the same tuples: all of them for (b).
  for (const auto& [id, n] : count_rows) {
    EXPECT_EQ(n.size(), 1u) << id;
    if (id != "sum") {
      EXPECT_EQ(*n.begin(), 3360u) << id;
    }
  }
  EXPECT_EQ(doc["settings"]["aggregate_sizes"], nlohmann::json::array({3360}));
  std::filesystem::remove_all(dir);
}

// The targets' sizes (1M tuples and more) take --target-reps repetitions, the
// smaller ones --reps; a cell whose repetitions outlast --target-budget takes
// as many as fit, but at least --reps. paper.json says how many each figure had.
TEST(Cli, PaperTakesMoreRepetitionsWhereTheTargetsAreChecked) {
  char dir[] = "/tmp/quelkit-paper-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  auto reps_by_size = [&](const std::string& budget) {
    Out o = sh(kBin + " paper --sizes 210,1000000 --queries b --count-sizes= "
                      "--reps 2 --target-reps 4 --min-time 0.001 --children 0 -b threaded:goto --no-sqlite" + budget +
               " --out " + dir);
    EXPECT_EQ(o.status, 0) << o.text;
    std::ifstream js(std::string(dir) + "/paper.json");
    const nlohmann::json doc = nlohmann::json::parse(js, nullptr, false);
    std::map<uint64_t, std::set<int>> by_size;
    if (!doc.is_object()) return by_size;
    EXPECT_EQ(doc["reps"], 2);
    EXPECT_EQ(doc["target_reps"], 4);
    for (const auto& r : doc["results"]) by_size[r["tuples"].get<uint64_t>()].insert(r["reps"].get<int>());
    return by_size;
  };
  // Every cell (threaded:goto, the reference, scan and floor) alike.
  const std::map<uint64_t, std::set<int>> plenty = {{210, {2}}, {1000000, {4}}};
  EXPECT_EQ(reps_by_size(""), plenty);
  // A budget no repetition fits in: --reps at 1M as well.
  const std::map<uint64_t, std::set<int>> cut = {{210, {2}}, {1000000, {2}}};
  EXPECT_EQ(reps_by_size(" --target-budget 0.000001"), cut);
  std::filesystem::remove_all(dir);
}

// The selectivity sweep in miniature: every family at 0, 50 and 100% on
// three back ends under the three selections, the checks printed, the CSV
// written with what auto chose and what each other lane ran (its own
// selection, though a back end's lanes share one runner: vector lowers the
// other selection only for a runner made under auto); bad options are usage
// errors.
TEST(Cli, SweepCoversEveryFamilySelectionAndPoint) {
  char dir[] = "/tmp/quelkit-sweep-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  // A compiled kernel beside the interpreted ones where the kit has LLVM.
  const std::string compiled =
      sh(kBin + " -b llvm -e 'retrieve (a = 1)'").status == 0 ? "llvm:fused" : "threaded:call";
  // A size or point named twice runs once.
  Out o = sh(kBin + " sweep --sizes 3000,3000 --reps 1 --min-time 0.0001 --points 0,50,100,50 -b threaded:goto," + compiled +
             ",vector:inplace --out " + dir);
  ASSERT_EQ(o.status, 0) << o.text;
  const std::vector<std::string> said = {"single:", "pct_first:", "half_first:", compiled + "/nobranch",
                                         "threaded:goto/auto", "nobranch/branch at 0% (<= 1.3) =",
                                         "auto/better, worst point ("};
  for (const std::string& what : said)
    EXPECT_NE(o.text.find(what), std::string::npos) << what << "\n" << o.text;
  std::ifstream csv(std::string(dir) + "/sweep.csv");
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "tuples,family,percent,backend,selection,ns_per_tuple,ran,spread,rows,reps");
  int rows = 0, auto_rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 10u) << line;
    // The qualifying rows: what the point's selectivity came to on 3000 tuples.
    if (f[1] == "single" && f[2] == "0") {
      EXPECT_EQ(f[8], "0") << line;
    }
    if (f[1] == "single" && f[2] == "100") {
      EXPECT_EQ(f[8], "3000") << line;
    }
    if (f[4] == "auto") {
      ++auto_rows;
      EXPECT_EQ(f[6].rfind("auto:", 0), 0u) << "auto says what it chose: " << line;
    } else {
      EXPECT_EQ(f[6], f[4]) << "a lane runs the selection it names: " << line;
    }
  }
  EXPECT_EQ(rows, 3 * 3 * 3 * 3);  // families x points x back ends x selections
  EXPECT_EQ(auto_rows, 3 * 3 * 3);
  // sweep.json: the settings that made the run, the points and every check
  // with its verdict, as many as the report counted.
  std::ifstream js(std::string(dir) + "/sweep.json");
  const std::string json((std::istreambuf_iterator<char>(js)), std::istreambuf_iterator<char>());
  for (const char* key : {"\"tool\": \"quelkit sweep\"", "\"machine\":", "\"min_time_s\": 0.0001", "\"selections\":",
                          "\"points\":", "\"checks\":", "\"version\": \"0.1.0\"", "\"commit\": \""})
    EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json.substr(0, 400);
  size_t checks = 0;
  for (size_t at = json.find("\"met\":"); at != std::string::npos; at = json.find("\"met\":", at + 1)) ++checks;
  EXPECT_NE(o.text.find(" of the selection axis's " + std::to_string(checks) + " checks"), std::string::npos)
      << checks << "\n" << o.text;
  std::filesystem::remove_all(dir);
  // A repetition of no time is no measurement; +N adds to the default sizes (paper's way).
  EXPECT_EQ(sh(kBin + " sweep --min-time 0").status, 2);
  EXPECT_EQ(sh(kBin + " sweep --sizes +0").status, 2);
  EXPECT_EQ(sh(kBin + " sweep --points 101").status, 2);
  EXPECT_EQ(sh(kBin + " sweep --selections sometimes").status, 2);
  EXPECT_EQ(sh(kBin + " sweep --reps 0").status, 2);
  EXPECT_EQ(sh(kBin + " sweep -b nosuch").status, 2);
  // The JIT code the lanes' runners were made for, as --jit-opt and --jit-cpu ask.
  o = sh(kBin + " sweep --sizes 3000 --reps 1 --min-time 0.0001 --points 50 -b " + compiled + " --selections branch "
                "--jit-opt 0 --jit-cpu native");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("JIT code: --jit-opt 0, this machine's CPU"), std::string::npos) << o.text;
  EXPECT_EQ(sh(kBin + " sweep --jit-opt 4").status, 2);
  EXPECT_EQ(sh(kBin + " sweep --jit-cpu fast").status, 2);
}

}  // namespace
}  // namespace quelkit::test

namespace quelkit::test {
namespace {

// A UTF-8 byte-order mark at the start of a script (a file, or standard
// input) is not text: without this the first statement was a lexical error.
// An error in a line of multibyte text reports its column in characters.
TEST(Cli, ScriptsMayBeginWithAByteOrderMark) {
  char dir[] = "/tmp/quelkit-bom-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string f = std::string(dir) + "/bom.quel";
  std::ofstream(f, std::ios::binary) << "\xef\xbb\xbfretrieve (a = 1)\n";
  Out o = sh(kBin + " --format csv " + f);
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_EQ(o.text, "a\n1\n");
  o = sh(kBin + " --format csv - < " + f);
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_EQ(o.text, "a\n1\n");
  o = sh(kBin + " --format csv < " + f);
  EXPECT_EQ(o.text, "a\n1\n");
  std::ofstream(f, std::ios::binary) << "\xef\xbb\xbfretrieve (s = \"日本語\", x = 1 +)\n";
  o = sh(kBin + " " + f);
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("bom.quel:1:29: error:"), std::string::npos) << o.text;
  // The caret under the ')': 28 characters before it, 31 terminal columns (日本語 are wide).
  EXPECT_NE(o.text.find("\n  retrieve (s = \"日本語\", x = 1 +)\n" + std::string(2 + 31, ' ') + "^"), std::string::npos)
      << o.text;
  std::filesystem::remove_all(dir);
}

// copy reads its file a record at a time with a limit: /dev/zero, which
// never ends and has no line break, is an I/O error at once, and the
// session goes on.
TEST(Cli, CopyFromDevZeroIsAnErrorNotAnEndlessRead) {
  Out o = sh("timeout 20 " + kBin + " --format csv -e 'create s (a = i4)' "
             "-e 'copy s (a = i4) from \"/dev/zero\"' -e 'append to s (a = 7) retrieve (s.a)'");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("error: /dev/zero:1: record longer than 1 MiB"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("a\n7\n"), std::string::npos) << o.text;
}

}  // namespace
}  // namespace quelkit::test

namespace quelkit::test {
namespace {

// What a command wrote on stdout alone (stderr dropped).
Out stdout_of(const std::string& cmd) { return sh("{ " + cmd + " 2>/dev/null; }"); }

// A syntax error stops the text: the statements before it run (the create),
// nothing after it does, every error is still reported with its position,
// the first says the rest was not run, and the script exits 1.
TEST(Cli, SyntaxErrorStopsTheText) {
  const std::string text = "create t (a = i4)\nretrieve (x = )\nappend to t (a = 41)\n"
                           "retrieve (y = 2 +)\nrange of r is t\nretrieve (r.a)";
  Out all = sh(kBin + " --format csv -e '" + text + "'");
  EXPECT_EQ(all.status, 1);
  EXPECT_NE(all.text.find("<-e 1>:2:15: error:"), std::string::npos) << all.text;
  EXPECT_NE(all.text.find("(the text after it was not run)"), std::string::npos) << all.text;
  EXPECT_NE(all.text.find("<-e 1>:4:18: error:"), std::string::npos) << all.text;
  Out out = stdout_of(kBin + " --format csv -e '" + text + "'");
  EXPECT_EQ(out.text, "");
  // The create before the error ran: t exists, and is empty.
  Out after = stdout_of(kBin + " --format csv -e '" + text + "\n' -e 'range of r is t retrieve (n = count(r.a))'");
  EXPECT_EQ(after.text, "n\n0\n") << after.text;
}

// Output discipline: results on stdout, messages on stderr, so --stats=json
// alone makes stdout a JSON Lines stream (one object a statement) and
// --format csv a CSV stream, whatever the statements said.
TEST(Cli, StdoutHoldsResultsAndJsonLinesOnly) {
  const std::string script = " -e 'create t (a = i4)\nappend to t (a = 1)\nappend to t (a = 2)\n"
                             "range of r is t\nreplace r (a = r.a + 10)\ndelete r where r.a > 11\n"
                             "retrieve (r.a)'";
  Out json = stdout_of(kBin + " --stats=json" + script);
  EXPECT_EQ(json.status, 0);
  std::istringstream lines(json.text);
  int objects = 0;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(line.size() > 1 && line.front() == '{' && line.back() == '}') << line;
    ++objects;
  }
  EXPECT_GE(objects, 3) << json.text;  // replace, delete and retrieve at least
  Out csv = stdout_of(kBin + " --format csv" + script);
  EXPECT_EQ(csv.text, "a\n11\n");
  Out both = sh(kBin + " --format csv" + script);
  EXPECT_NE(both.text.find("replaced"), std::string::npos) << both.text;  // the message went to stderr
  // --format none: what its help says, the checksum only (of the rows left).
  Out none = stdout_of(kBin + " --format none" + script);
  EXPECT_EQ(none.text.rfind("checksum ", 0), 0u) << none.text;
  EXPECT_NE(none.text.find(" (1 row)\n"), std::string::npos) << none.text;
  EXPECT_EQ(none.text.find('\n'), none.text.size() - 1) << none.text;  // one line
}

TEST(Cli, PrintUnderFormatNoneGivesTheChecksumOfTheRelation) {
  // `print` follows --format as a retrieve does: under none, the checksum
  // and row count of the whole relation, the same as `retrieve (p.all)`'s.
  Out o = stdout_of(kBin + " --parts 50 --format none -e 'range of p is parts retrieve (p.all) print parts'");
  ASSERT_EQ(o.status, 0) << o.text;
  const size_t first = o.text.find('\n');
  ASSERT_NE(first, std::string::npos) << o.text;
  const std::string retrieved = o.text.substr(0, first + 1);
  EXPECT_EQ(retrieved.rfind("checksum ", 0), 0u) << o.text;
  EXPECT_NE(retrieved.find(" (50 rows)"), std::string::npos) << o.text;
  EXPECT_EQ(o.text, retrieved + "parts relation\n" + retrieved);
}

TEST(Cli, PrintUnderCsvWritesCsvAloneAndACountOfOneIsOneRow) {
  // Standard output under csv is CSV a program can read: print's title is a
  // message. A count is a message under every format, in the singular for 1.
  Out o = stdout_of(kBin + " --format csv -e 'create t (s = c4) append to t (s = \"x,y\") print t'");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_EQ(o.text, "s\n\"x,y\"\n");
  for (const char* f : {"table", "csv", "none"}) {
    Out c = sh(kBin + " --parts 5 --sink count --format " + f + " -e 'range of p is parts retrieve (p.pnum) where p.pnum = 1'");
    ASSERT_EQ(c.status, 0) << c.text;
    EXPECT_EQ(c.text, "(1 row counted)\n") << f;
  }
}

// --sink count with several back ends: their counts are compared, and there
// are no rows to compare (the comparison read rows a count never stores, and
// crashed whenever a row qualified). A count that differs would be reported.
TEST(Cli, CountSinkOfSeveralBackEndsComparesTheirCounts) {
  Out o = sh(kBin + " --parts 30 -b interp:switch,interp:goto,threaded --sink count -e 'range of p is parts "
                    "retrieve (p.pnum) retrieve (p.pnum) where p.pnum < 11'");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("(30 rows counted)\n(10 rows counted)\n"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("disagree"), std::string::npos) << o.text;
}

}  // namespace
}  // namespace quelkit::test
