// The sweep's agreement check (cli/sweep.h): every lane's answer at a point is
// checked against the first lane's before anything is timed, so a sweep never
// sets the curve of a back end that returns other rows beside the rest. The
// mutant back end (mutant_backend.h) computes `<=` for the sweep's `pct < K`
// (i4 < i4, ops.def LT_I4), which differs exactly on the tuples whose pct is
// K (pct is in hundredths of a percent, 0..9999: harness/sweep_data.h); the same sweep over two correct back ends must pass, so the check is
// seen to fail for the mutant and not for whatever else.
#include <gtest/gtest.h>

#include <string>

#include "cli/sweep.h"
#include "measure/backends.h"
#include "mutant_backend.h"

#ifndef QUELKIT_MUTANT
#define QUELKIT_MUTANT LT_I4
#endif

namespace quelkit::test {
namespace {

const ir::Op kBroken = ir::Op::QUELKIT_MUTANT;

// A sweep small enough for a unit test: 200,000 tuples (about 20 of them with
// pct = 5000, the point 50%), one point, one repetition.
SweepOptions small_sweep(const std::string& backends) {
  SweepOptions o;
  o.sizes = "200000";
  o.points = "50";
  o.selections = "branch";
  o.backends = backends;
  o.reps = 1;
  o.min_time = 0;
  return o;
}

struct Outcome {
  int rc;
  std::string out, err;
};

Outcome sweep(const std::string& backends) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  Outcome r;
  r.rc = run_sweep(small_sweep(backends));
  r.out = testing::internal::GetCapturedStdout();
  r.err = testing::internal::GetCapturedStderr();
  return r;
}

TEST(SweepAgreement, LanesThatAgreeAreMeasured) {
  register_all_backends();
  const Outcome r = sweep("threaded:goto,interp:switch");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("200000 tuples, single: retrieve (s.v) where s.pct < K"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("interp:switch/branch"), std::string::npos) << r.out;
}

TEST(SweepAgreement, ALaneThatAnswersOtherRowsEndsTheSweep) {
  if (kBroken != ir::Op::LT_I4) GTEST_SKIP() << "the sweep's queries use LT_I4, not " << ir::op_name(kBroken);
  register_all_backends();
  const std::string m = register_mutant(kBroken);
  const Outcome r = sweep("threaded:goto," + m);
  EXPECT_EQ(r.rc, 1) << r.out;
  // The first family, at its one point: the mutant's rows, then the first lane's.
  const std::string said = m + "/branch disagrees with threaded:goto/branch at 50%: ";
  EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("  50%"), std::string::npos) << "a point was timed after the lanes disagreed:\n" << r.out;
}

}  // namespace
}  // namespace quelkit::test
