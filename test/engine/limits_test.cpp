// Every back end's size limits (registers, selection vectors, code size,
// nesting) end a statement with one positioned error of one class
// (ErrKind::Limit, "the statement is too large for ..."), never a signal, and
// the session and its relations go on; several back ends report a refusal as
// an answer missing, not as a disagreement. And a gccjit compile, which runs
// in a child process, ends within moments of a Ctrl-C. Tests, not timings:
// the bounds are a watchdog for a loaded machine.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "shell.h"
#include "support.h"

namespace quelkit::test {
namespace {

// `p.pnum = 0 or p.pnum = 1 or ... or p.pnum = n-1`: n distinct constants.
std::string ors(int n) {
  std::string s = "p.pnum = 0";
  s.reserve(size_t(n) * 16);
  for (int i = 1; i < n; ++i) s += " or p.pnum = " + std::to_string(i);
  return s;
}

struct Past {
  const char* what;
  std::string text;
};

// Statements past some back end's limit: the 21,846-term or (vector's
// selection registers), 70,000 distinct constants (threaded's registers too),
// nesting 100,000 deep and a 100,000-term + chain (the parser's depth).
const std::vector<Past>& past_limits() {
  static const std::vector<Past> v = [] {
    std::vector<Past> p;
    p.push_back({"or21846", "retrieve (p.pnum) where " + ors(21846)});
    p.push_back({"or70000", "retrieve (p.pnum) where " + ors(70000)});
    p.push_back({"paren100000", "retrieve (p.pnum) where " + std::string(100000, '(') + "p.pnum = 1" +
                                    std::string(100000, ')')});
    std::string plus = "p.pnum";
    for (int i = 1; i < 100000; ++i) plus += " + p.pnum";
    p.push_back({"plus100000", "retrieve (x = " + plus + ")"});
    return p;
  }();
  return v;
}

class Limits : public ::testing::TestWithParam<std::string> {};

// Each statement past a limit either answers as the interpreter does or is
// the statement's positioned error: the limit error of this back end, or the
// parser's (on every back end alike). The relations and ranges survive.
TEST_P(Limits, PastEachLimitAPositionedErrorOrTheAnswerAndTheSessionGoesOn) {
  Kit want("interp");
  Kit got(GetParam());
  got.set_jit_opt(0);
  for (Kit* k : {&want, &got}) {
    k->add_parts(100);
    ASSERT_TRUE(k->run("range of p is parts").ok);
  }
  for (const Past& s : past_limits()) {
    SCOPED_TRACE(s.what);
    const RunResult w = want.run(s.text, "t.quel"), g = got.run(s.text, "t.quel");
    if (g.ok) {
      EXPECT_EQ(g.out, w.out);
      EXPECT_TRUE(w.ok) << w.err.substr(0, 300);
    } else if (w.ok) {  // refused by this back end alone: its limit error
      EXPECT_EQ(g.err.rfind("t.quel:1:1: error: the statement is too large for ", 0), 0u) << g.err.substr(0, 300);
      EXPECT_NE(g.err.find("\n  retrieve (p.pnum)"), std::string::npos);  // the source line, then the caret
      EXPECT_NE(g.err.find("\n  ^"), std::string::npos) << g.err.substr(0, 300);
    } else {  // the front end's error: the same everywhere
      EXPECT_EQ(g.err, w.err);
    }
    auto after = got.run("retrieve (p.pnum, p.qoh) where p.pnum = 2 or p.pnum = 3");
    ASSERT_TRUE(after.ok) << after.err;
    EXPECT_EQ(after.out, want.run("retrieve (p.pnum, p.qoh) where p.pnum = 2 or p.pnum = 3").out);
  }
  // The nesting is the parser's limit, positioned where it is passed.
  const RunResult deep = want.run(past_limits()[2].text, "t.quel");
  EXPECT_FALSE(deep.ok);
  EXPECT_EQ(deep.err.rfind("t.quel:1:", 0), 0u) << deep.err.substr(0, 300);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Limits, ::testing::ValuesIn(all_backend_modes()), backend_test_name);

// Threaded code and vector refuse the 70,000-term or; vector alone the
// 21,846-term one. With the interpreter beside them the statement fails with
// each refusal said as an answer missing, never "back ends disagree", and a
// statement every back end answers is compared as ever.
TEST(LimitsAcrossBackEnds, ARefusalIsAnAnswerMissingNotADisagreement) {
  Kit k("interp,threaded,vector");
  k.add_parts(100);
  ASSERT_TRUE(k.run("range of p is parts").ok);
  const RunResult r = k.run("retrieve (p.pnum) where " + ors(21846), "t.quel");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err.substr(0, 400);
  EXPECT_EQ(r.err.rfind("t.quel:1:1: error: the statement is too large for the vector back end: it needs more than "
                        "65,535 selection registers\n",
                        0),
            0u)
      << r.err.substr(0, 400);
  EXPECT_NE(r.err.find("(vector:"), std::string::npos);
  EXPECT_NE(r.err.find(" could not run the statement; interp:switch did: an answer missing, not one differing)"),
            std::string::npos)
      << r.err.substr(0, 400);
  const RunResult both = k.run("retrieve (p.pnum) where " + ors(70000), "t.quel");
  EXPECT_FALSE(both.ok);
  EXPECT_EQ(both.err.find("disagree"), std::string::npos) << both.err.substr(0, 400);
  EXPECT_NE(both.err.find("too large for the threaded back end: it needs more than 65,535 registers"),
            std::string::npos)
      << both.err.substr(0, 400);
  const RunResult fine = k.run("retrieve (p.pnum) where p.pnum = 5 or p.pnum = 7");
  ASSERT_TRUE(fine.ok) << fine.err;
  EXPECT_EQ(fine.out, "pnum\n5\n7\n");
}

// Only back ends that refuse it: each refusal once, no note of an answer.
TEST(LimitsAcrossBackEnds, WhereNoBackEndRanEachRefusalIsSaidOnce) {
  Kit k("threaded:goto,threaded:call,vector");
  k.add_parts(10);
  ASSERT_TRUE(k.run("range of p is parts").ok);
  const RunResult r = k.run("retrieve (p.pnum) where " + ors(70000), "t.quel");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err.substr(0, 400);
  EXPECT_EQ(r.err.find("an answer missing"), std::string::npos) << r.err.substr(0, 400);
  size_t threaded = 0;
  for (size_t at = 0; (at = r.err.find("too large for the threaded back end", at)) != std::string::npos; ++at)
    ++threaded;
  EXPECT_EQ(threaded, 1u) << r.err.substr(0, 400);
  EXPECT_NE(r.err.find("too large for the vector back end"), std::string::npos) << r.err.substr(0, 400);
}

// ---- a gccjit or llvm compile cancelled

bool built(const std::string& backend_mode) {
  for (const std::string& m : all_backend_modes())
    if (m == backend_mode) return true;
  return false;
}

// The quelkit command on a script of the 10,000-term or on gccjit (or llvm),
// its compile's files in a directory of the test's own; ends the process
// with `sig` once the compile's child process exists (jit/child.h).
struct Compiling {
  std::filesystem::path dir;
  int status = -1;
  double seconds = -1;  // from the signal to the exit
  std::string err;
  std::string kids;  // the compile's child process, as /proc listed it

  explicit Compiling(int sig, const char* backend = "gccjit") {
    dir = std::filesystem::temp_directory_path() /
          ("quelkit-limits-" + std::to_string(getpid()) + "-" + backend + "-" + std::to_string(sig));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "tmp");
    std::ofstream(dir / "or.quel") << "range of p is parts\nretrieve (p.pnum) where " << ors(10000) << "\n";
    const pid_t pid = fork();
    if (pid == 0) {
      setenv("TMPDIR", (dir / "tmp").c_str(), 1);
      std::freopen((dir / "err").c_str(), "w", stderr);
      std::freopen("/dev/null", "w", stdout);
      execl(kBin.c_str(), kBin.c_str(), "--parts", "3360", "-b", backend, (dir / "or.quel").c_str(), nullptr);
      _exit(127);
    }
    // The compile is under way once quelkit has a child (it starts none
    // before); the watchdog is for a hang, not a speed bound.
    const std::string children = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children";
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      std::ifstream(children) >> kids;
      if (!kids.empty() || std::chrono::steady_clock::now() - start > std::chrono::seconds(120)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const auto t0 = std::chrono::steady_clock::now();
    kill(pid, sig);
    int st = 0;
    for (;;) {
      if (waitpid(pid, &st, WNOHANG) == pid) break;
      if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(60)) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    status = st;
    std::ifstream f(dir / "err");
    err.assign(std::istreambuf_iterator<char>(f), {});
  }
  bool tmp_empty() const { return std::filesystem::is_empty(dir / "tmp"); }
  bool child_gone() const { return !kids.empty() && !std::filesystem::exists("/proc/" + kids); }
  ~Compiling() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

// Ctrl-C in a compile of the 10,000-term or (seconds of GCC's passes): the
// script ends as cancelled (exit 130) at once, not when GCC is done, and
// leaves no file of the compile behind. The idle machine's latency is in
// docs/DESIGN.md; the bound here is only generous.
TEST(GccjitCancel, CtrlCEndsACompileAndTheScript) {
  if (!built("gccjit:fused")) GTEST_SKIP() << "gccjit is not built";
  Compiling c(SIGINT);
  ASSERT_TRUE(WIFEXITED(c.status)) << c.status;
  EXPECT_EQ(WEXITSTATUS(c.status), 130) << c.err.substr(0, 400);
  EXPECT_NE(c.err.find("error: cancelled"), std::string::npos) << c.err.substr(0, 400);
  EXPECT_LT(c.seconds, 20.0);
  EXPECT_TRUE(c.tmp_empty());
  std::printf("[ latency  ] SIGINT to exit in a gccjit compile: %.3f s\n", c.seconds);
}

// SIGTERM ends the program as SIGTERM does, once the compile is killed and
// its directory removed.
TEST(GccjitCancel, SigtermEndsTheProgramAndLeavesNoFiles) {
  if (!built("gccjit:fused")) GTEST_SKIP() << "gccjit is not built";
  Compiling c(SIGTERM);
  ASSERT_TRUE(WIFSIGNALED(c.status)) << c.status << " " << c.err.substr(0, 400);
  EXPECT_EQ(WTERMSIG(c.status), SIGTERM);
  EXPECT_LT(c.seconds, 20.0);
  EXPECT_TRUE(c.tmp_empty());
}

// LLVM compiles a plan this large in a child process too (Jit::load's
// apart): Ctrl-C ends the compile (a minute of SelectionDAG's) and the
// script at once, and the child is gone.
TEST(LlvmCancel, CtrlCEndsACompileAndTheScript) {
  if (!built("llvm:fused")) GTEST_SKIP() << "llvm is not built";
  Compiling c(SIGINT, "llvm");
  ASSERT_TRUE(WIFEXITED(c.status)) << c.status;
  EXPECT_EQ(WEXITSTATUS(c.status), 130) << c.err.substr(0, 400);
  EXPECT_NE(c.err.find("error: cancelled"), std::string::npos) << c.err.substr(0, 400);
  EXPECT_LT(c.seconds, 20.0);
  EXPECT_TRUE(c.child_gone()) << c.kids;
  std::printf("[ latency  ] SIGINT to exit in an llvm compile: %.3f s\n", c.seconds);
}

TEST(LlvmCancel, SigtermEndsTheProgramAndTheCompile) {
  if (!built("llvm:fused")) GTEST_SKIP() << "llvm is not built";
  Compiling c(SIGTERM, "llvm");
  ASSERT_TRUE(WIFSIGNALED(c.status)) << c.status << " " << c.err.substr(0, 400);
  EXPECT_EQ(WTERMSIG(c.status), SIGTERM);
  EXPECT_LT(c.seconds, 20.0);
  EXPECT_TRUE(c.child_gone()) << c.kids;
}

}  // namespace
}  // namespace quelkit::test
