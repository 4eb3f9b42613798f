// --selection (engine/selection.h): every back end with a page kernel runs
// the selection it is asked for and says so in --stats; auto probes the first
// pages and chooses by selectivity; nobranch computes speculatively nothing
// that can raise, so a guarded division never fails. (That both selections
// give the same rows and errors as every other back end is the corpus's and
// difftest's business: test/difftest.)
#include <gtest/gtest.h>

#include <algorithm>

#include "support.h"

namespace quelkit::test {
namespace {

using harness::Selection;

class Selections : public ::testing::TestWithParam<std::string> {};

TEST_P(Selections, WhatRanIsWhatWasAsked) {
  for (Selection sel : {Selection::Branch, Selection::NoBranch}) {
    Kit k(GetParam());
    k.set_selection(sel);
    k.add_parts(210);
    auto r = k.run(std::string("range of p is parts\n") + kPaperQueries[3]);
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(k.last_report().stats.selection, has_kernel(GetParam()) ? harness::selection_name(sel) : "");
    EXPECT_EQ(k.last_report().stats.rows_out, 44u);
  }
}

// A statement's aggregates run first, as queries of their own on its back
// end: their scans are part of what --stats reports the statement ran, the
// selection of each kernel once, theirs first (an aggregate-only retrieve
// used to report no selection though its scan ran a page kernel).
TEST_P(Selections, AnAggregatesScanIsReportedWithTheStatements) {
  Kit k(GetParam());
  k.set_selection(Selection::NoBranch);
  k.add_parts(210);
  ASSERT_TRUE(k.run("range of p is parts").ok);
  auto r = k.run("retrieve (n = count(p.pnum where p.qoh < 100))");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.last_report().stats.selection, has_kernel(GetParam()) ? "nobranch" : "");
  r = k.run("retrieve (p.pnum, n = count(p.pnum where p.qoh < 100)) where p.weight > 10");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.last_report().stats.selection, has_kernel(GetParam()) ? "nobranch" : "");
  EXPECT_EQ(harness::join_selections("auto:branch", "auto:nobranch; auto:branch"), "auto:branch; auto:nobranch");
  EXPECT_EQ(harness::join_selections("", "nobranch"), "nobranch");
  EXPECT_EQ(harness::join_selections("branch", ""), "branch");
}

TEST_P(Selections, AutoChoosesBySelectivityOverTheFirstPages) {
  if (!has_kernel(GetParam())) GTEST_SKIP() << GetParam() << " has no page kernel";
  Kit k(GetParam());
  k.add_parts(3360);
  auto chosen = [&](const std::string& qual) {
    auto r = k.run("range of p is parts\nretrieve (p.pnum) where " + qual);
    EXPECT_TRUE(r.ok) << r.err;
    return k.last_report().stats.selection;
  };
  EXPECT_EQ(chosen("p.qoh < log(9.5) * p.weight"), "auto:nobranch");  // 760 of 3360 qualify
  EXPECT_EQ(chosen("p.qoh < 0"), "auto:branch");                      // none
  EXPECT_EQ(chosen("p.qoh >= 0"), "auto:branch");                     // all
  EXPECT_EQ(chosen("p.weight > 15"), "auto:nobranch");                // 2878 of 3360
}

// Where every tuple qualifies there is nothing to select on (the two
// variants are one loop): auto runs branch and probes nothing, run after
// run. The relation is long enough for the timed probe, which, timing two
// copies of one loop, used to keep either at random (the sweep's llvm:fused
// at 0% split its choices 77/79).
TEST_P(Selections, AutoWithoutAQualificationRunsBranch) {
  if (!has_kernel(GetParam())) GTEST_SKIP() << GetParam() << " has no page kernel";
  Kit k(GetParam());
  k.add_parts(140000);  // 5,000 pages: a scan long enough to be timed
  ASSERT_TRUE(k.run("range of p is parts").ok);
  for (const char* q : {"retrieve (p.pnum)", "retrieve (p.pnum) where 1 = 1"})
    for (int i = 0; i < 5; ++i) {
      SCOPED_TRACE(std::string(q) + ", run " + std::to_string(i));
      auto r = k.run(q);
      ASSERT_TRUE(r.ok) << r.err;
      EXPECT_EQ(k.last_report().stats.selection, "auto:branch");
      EXPECT_EQ(k.last_report().stats.rows_out, 140000u);
    }
}

TEST_P(Selections, NobranchRaisesNothingABranchWouldNot) {
  Kit k(GetParam());
  k.set_selection(Selection::NoBranch);
  auto r = k.run(R"(create t (a = i4, b = i4)
append to t (a = 0, b = 1)
append to t (a = 2, b = 0)
append to t (a = 0, b = 0)
append to t (a = 5, b = 2147483647)
range of t is t)");
  ASSERT_TRUE(r.ok) << r.err;
  // A target that divides by a zero the qualification excludes.
  r = k.run("retrieve (x = 10 / t.a) where t.a != 0");
  EXPECT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.last_report().stats.rows_out, 2u);
  // Right operands of and / or that divide, behind their guards.
  r = k.run("retrieve (t.b) where t.a != 0 and 10 / t.a > 1");
  EXPECT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.last_report().stats.rows_out, 2u);
  r = k.run("retrieve (t.b) where t.a = 0 or 10 / t.a > 2");
  EXPECT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.last_report().stats.rows_out, 3u);
  // An overflowing target of a tuple that does not qualify.
  r = k.run("retrieve (y = t.b + 1) where t.a < 5");
  EXPECT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.last_report().stats.rows_out, 3u);
  // And what a branch raises, nobranch raises at the same tuple.
  r = k.run("retrieve (x = 10 / t.a) where t.b >= 0");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("division by zero (relation t, tuple 1)"), std::string::npos) << r.err;
}

// A scan too short to be timed alone (70,000 tuples) is timed once its plan's
// earlier scans ran enough tuples (selection.h, AutoMemory), and not again
// until they have doubled. Seen without reading a clock: timing generates
// the variant the band did not choose, which llvm:fused compiles, counted as
// the statement's prepare time.
TEST(AutoMemory, AShortScanIsTimedOnceItsPlanHasRunEnough) {
  register_all_backends();
  if (!harness::find_backend("llvm")) GTEST_SKIP() << "built without LLVM (irgen_ns shows its variants generated)";
  Kit k("llvm:fused");
  k.add_parts(70000);  // 2,500 pages: short (harness::kAutoTimedMinTuples), not too short to time
  ASSERT_TRUE(k.run("range of p is parts").ok);
  std::vector<uint64_t> irgen;
  for (int i = 0; i < 6; ++i) {
    auto r = k.run("retrieve (p.pnum) where p.qoh < 0");
    ASSERT_TRUE(r.ok) << r.err;
    irgen.push_back(k.last_report().stats.irgen_ns);
  }
  EXPECT_GT(irgen[0], 0u) << "the plan's first prepare";
  EXPECT_EQ(irgen[1], 0u) << "140,000 tuples run by its end, none timed: branch only";
  EXPECT_GT(irgen[2], 0u) << "the third scan is timed: nobranch generated";
  for (size_t i = 3; i < irgen.size(); ++i) EXPECT_EQ(irgen[i], 0u) << "scan " << i + 1;
}

// Each mode is named once in its back end's list, which says whether it has a
// page kernel; a bare name means the default mode, an unknown mode has none.
TEST(SelectionReach, EachModeSaysWhetherItHasAPageKernel) {
  register_all_backends();
  for (const auto& b : harness::registered_backends()) {
    ASSERT_FALSE(b.modes.empty()) << b.name;
    EXPECT_EQ(b.mode(""), &b.modes.front()) << b.name;
    for (const auto& m : b.modes) {
      EXPECT_EQ(b.mode(m.name), &m) << b.name << ":" << m.name << " is named twice";
      EXPECT_EQ(harness::has_page_kernel(b.name, m.name), m.page_kernel) << b.name << ":" << m.name;
    }
    EXPECT_FALSE(harness::has_page_kernel(b.name, "nosuch")) << b.name;
  }
  EXPECT_FALSE(harness::has_page_kernel("interp", ""));
  EXPECT_TRUE(harness::has_page_kernel("threaded", ""));
  if (harness::find_backend("llvm")) {  // built with LLVM
    EXPECT_TRUE(harness::has_page_kernel("llvm", ""));
    EXPECT_FALSE(harness::has_page_kernel("llvm", "qual"));
  }
  EXPECT_FALSE(harness::has_page_kernel("nosuch", "fused"));
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Selections, ::testing::ValuesIn(all_backend_modes()), backend_test_name);

}  // namespace
}  // namespace quelkit::test
