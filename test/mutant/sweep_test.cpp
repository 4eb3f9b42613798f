// quelkit sweep (bench/report/sweep.h) over back ends it is not usually given, which
// only a test binary can register. The agreement check: every lane's answer at a point is
// checked against the first lane's before anything is timed, so a sweep never
// sets the curve of a back end that returns other rows beside the rest. The
// mutant back end (mutant_backend.h) computes `<=` for the sweep's `pct < K`
// (i4 < i4, ops.def LT_I4), which differs exactly on the tuples whose pct is
// K (pct is in hundredths of a percent, 0..9999: bench/workloads/sweep_data.h); the same sweep over two correct back ends must pass, so the check is
// seen to fail for the mutant and not for whatever else.
#include <gtest/gtest.h>

#include <string>

#include "bench/report/sweep.h"
#include "backends/backends.h"
#include "mutant_backend.h"

#ifndef QUELKIT_MUTANT
#define QUELKIT_MUTANT LT_I4
#endif

namespace quelkit::test {
namespace {

const ir::Op kBroken = ir::Op::QUELKIT_MUTANT;

// A sweep small enough for a unit test: 200,000 tuples (about 20 of them with
// pct = 5000, the point 50%), one repetition.
SweepOptions small_sweep(const std::string& backends, const std::string& points = "50",
                         const std::string& selections = "branch") {
  SweepOptions o;
  o.sizes = "200000";
  o.points = points;
  o.selections = selections;
  o.backends = backends;
  o.reps = 1;
  o.min_time = 0;
  return o;
}

struct Outcome {
  int rc;
  std::string out, err;
};

Outcome sweep(const SweepOptions& o) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  Outcome r;
  r.rc = run_sweep(o);
  r.out = testing::internal::GetCapturedStdout();
  r.err = testing::internal::GetCapturedStderr();
  return r;
}

TEST(SweepAgreement, LanesThatAgreeAreMeasured) {
  register_all_backends();
  const Outcome r = sweep(small_sweep("threaded:goto,interp:switch"));
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("200000 tuples, single: retrieve (s.v) where s.pct < K"), std::string::npos) << r.out;
  // interp has no page kernel: one lane, named without a selection.
  EXPECT_NE(r.out.find(" interp:switch\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("interp:switch/"), std::string::npos) << r.out;
}

TEST(SweepAgreement, ALaneThatAnswersOtherRowsEndsTheSweep) {
  if (kBroken != ir::Op::LT_I4) GTEST_SKIP() << "the sweep's queries use LT_I4, not " << ir::op_name(kBroken);
  register_all_backends();
  const std::string m = register_mutant(kBroken);
  const Outcome r = sweep(small_sweep("threaded:goto," + m));
  EXPECT_EQ(r.rc, 1) << r.out;
  // The first family, at its one point: the mutant's rows, then the first lane's.
  // (The mutant evaluates tuple at a time: one lane, named without a selection.)
  const std::string said = m + " disagrees with threaded:goto/branch at 50%: ";
  EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("  50%"), std::string::npos) << "a point was timed after the lanes disagreed:\n" << r.out;
}

// A back end without a page kernel, asked for by name, runs every selection
// the same way: the sweep measures it and says so, and checks no selection
// axis for it (the interpreter's lanes at 50% are one loop timed three times,
// which a nobranch-beats-branch check would fail or pass by chance).
TEST(SweepChecks, NoneForABackEndThatEvaluatesTupleAtATime) {
  register_all_backends();
  const Outcome r = sweep(small_sweep("interp:switch,threaded:goto", "0,50,100", "branch,nobranch,auto"));
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("  interp:switch: evaluates tuple at a time (no page kernel): no selection axis to check"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("  interp:switch:  "), std::string::npos) << "a check was made for interp:\n" << r.out;
  // One lane for it, not three timing one loop: its column, then threaded's three.
  EXPECT_NE(r.out.find("pct       interp:switch threaded:goto/branch"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("interp:switch/"), std::string::npos) << r.out;
  // threaded:goto's four checks in each of the three families.
  EXPECT_NE(r.out.find("of the selection axis's 12 checks missed"), std::string::npos) << r.out;
}

// A sweep that cannot check says why for each back end and family (it ended
// "0 of the selection axis's 0 checks missed" and nothing more).
TEST(SweepChecks, NoneSaysWhy) {
  register_all_backends();
  Outcome r = sweep(small_sweep("threaded:goto", "0,50,100", "auto,branch"));
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("  threaded:goto: no check: they compare nobranch with branch (and auto with the better of the "
                       "two), and --selections does not run both"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("of the selection axis's 0 checks missed"), std::string::npos) << r.out;
  r = sweep(small_sweep("threaded:goto", "10", "branch,nobranch"));
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("  threaded:goto: no check at these points (nobranch against branch is checked at 0, 50 and 100%)"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace quelkit::test
