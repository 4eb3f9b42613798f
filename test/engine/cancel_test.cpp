// Cancel (Ctrl-C in the monitor, SIGINT in a script): every back end checks
// the cancel flag at page boundaries, its generated code included, so a
// statement that would run for hours stops within moments of the request,
// with the error "cancelled", and is rolled back like any failed statement.
// The request comes from another thread here, as a signal handler's would
// (storage/budget.h); the pty tests drive the real Ctrl-C.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "storage/budget.h"
#include "support.h"

namespace quelkit::test {
namespace {

class Cancel : public ::testing::TestWithParam<std::string> {};

// Runs `text` with a cancel requested `after` into it; returns its result
// and how long the statement ran.
RunResult run_cancelled(Kit& k, const std::string& text, std::chrono::milliseconds after, double* seconds) {
  harness::clear_cancel();
  std::thread ctrl_c([after] {
    std::this_thread::sleep_for(after);
    harness::request_cancel();
  });
  const auto t0 = std::chrono::steady_clock::now();
  RunResult r = k.run(text);
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ctrl_c.join();
  harness::clear_cancel();
  return r;
}

TEST_P(Cancel, ALongStatementStopsAtAPageBoundaryAndChangesNothing) {
  Kit k(GetParam());
  k.add_parts(3000);  // 107 pages; three variables: 2.7e10 combinations, hours
  ASSERT_TRUE(k.run("range of a is parts\nrange of b is parts\nrange of c is parts").ok);
  const std::string before = k.run("retrieve (a.pnum, a.qoh)").out;
  for (const char* text : {"retrieve (a.pnum, b.pnum, c.pnum) where a.qoh + b.qoh + c.qoh < 0",
                           "replace a (qoh = a.qoh + 1) where a.qoh + b.qoh + c.qoh >= 0 and b.pnum > c.pnum",
                           "retrieve (x = a.pnum / (b.pnum - b.pnum + 1)) where c.qoh >= 0"}) {
    SCOPED_TRACE(text);
    double seconds = 0;
    RunResult r = run_cancelled(k, text, std::chrono::milliseconds(300), &seconds);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.err.find("error: cancelled"), std::string::npos) << r.err.substr(0, 300);
    // Noticed at the next page boundary: far sooner than the statement's
    // hours. Generous, for a loaded machine and the sanitizer build.
    EXPECT_LT(seconds, 30.0);
  }
  // Rolled back like any failed statement; the session goes on.
  EXPECT_EQ(k.run("retrieve (a.pnum, a.qoh)").out, before);
  auto r = k.run("retrieve (a.pnum) where a.pnum < 3");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "pnum\n1\n2\n");
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Cancel, ::testing::ValuesIn(all_backend_modes()), backend_test_name);

}  // namespace
}  // namespace quelkit::test
