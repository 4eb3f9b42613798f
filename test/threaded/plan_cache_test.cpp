// Plan reuse through the harness's plan cache: the threaded back end prepares
// a substituted query's inner plan once per shape and binds only new
// parameters per substituted tuple; a modified or destroyed relation's plans
// are dropped; --no-plan-cache prepares afresh in every statement.
#include <algorithm>

#include "threaded_test_util.h"

namespace quelkit::test {
namespace {

std::vector<std::string> sorted_lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  std::sort(v.begin(), v.end());
  return v;
}

constexpr const char* kF = "retrieve (p.qoh, q.qoh) where p.pnum = q.pnum";

class PlanCache : public ::testing::TestWithParam<std::string> {};

// (f) on the paper's keyed setup: p is substituted (3360 tuples), q looked up
// by key; the inner plan is prepared once and hit for every other tuple.
TEST_P(PlanCache, PaperFPreparesItsInnerPlanOnce) {
  Kit k({{"threaded", GetParam()}});
  k.add_parts(3360, true, harness::Structure::Isam);
  auto r = k.run("range of p is parts range of q is parts");
  ASSERT_TRUE(r.ok) << r.err;
  r = k.run(kF);
  ASSERT_TRUE(r.ok) << r.err;
  const auto& st = k.reports().back().stats;
  EXPECT_EQ(st.prepares, 1u);
  EXPECT_EQ(st.cache_hits, 3359u);
  EXPECT_EQ(st.rows_out, 3360u);

  // The same statement again: the plan is still cached, nothing is prepared.
  r = k.run(kF);
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.reports().back().stats.prepares, 0u);
  EXPECT_EQ(k.reports().back().stats.cache_hits, 3360u);
}

// Without the cache no plan outlives its statement, but a statement's
// substituted executions share their one inner plan, as an engine runs a
// parameterised plan: prepared once, executed per outer tuple.
TEST_P(PlanCache, NoPlanCachePreparesOncePerStatement) {
  Kit k({{"threaded", GetParam()}}, {}, /*cache=*/false);
  k.add_parts(210, true, harness::Structure::Isam);
  for (int stmt = 0; stmt < 2; ++stmt) {
    auto r = k.run(std::string("range of p is parts range of q is parts ") + kF);
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(k.reports().back().stats.prepares, 1u) << "statement " << stmt;
    EXPECT_EQ(k.reports().back().stats.cache_hits, 209u) << "statement " << stmt;
  }
}

// Modifying the relation changes its access paths and layout version: cached
// plans over it must not be used again.
TEST_P(PlanCache, ModifyInvalidates) {
  Kit k({{"threaded", GetParam()}});
  k.add_parts(210, true, harness::Structure::Isam);
  ASSERT_TRUE(k.run(std::string("range of p is parts range of q is parts ") + kF).ok);
  std::string rows_before = k.run(kF).out;
  EXPECT_EQ(k.reports().back().stats.prepares, 0u);
  size_t cached = k.session().runners()[0]->cache().size();
  EXPECT_GE(cached, 1u);

  auto r = k.run("modify parts to hash on pnum");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_LT(k.session().runners()[0]->cache().size(), cached);
  r = k.run(kF);
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.reports().back().stats.prepares, 1u);
  EXPECT_EQ(k.reports().back().stats.cache_hits, 209u);

  r = k.run("modify parts to isam on pnum");
  ASSERT_TRUE(r.ok) << r.err;
  r = k.run(kF);
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.reports().back().stats.prepares, 1u);
  EXPECT_EQ(sorted_lines(r.out), sorted_lines(rows_before));  // the same bag of rows
}

// A destroyed relation's plans go; a new relation of the same name and shape
// is prepared for afresh, never served a stale plan.
TEST_P(PlanCache, DestroyInvalidates) {
  Kit k({{"threaded", GetParam()}});
  auto r = k.run(R"(
    create t (k = i2, v = i4)
    append to t (k = 1, v = 10)
    append to t (k = 2, v = 20)
    range of x is t
    retrieve (x.v) where x.k = 2
    retrieve (x.v) where x.k = 2
  )");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.reports().back().stats.prepares, 0u);
  EXPECT_EQ(k.reports().back().stats.cache_hits, 1u);
  EXPECT_NE(r.out.find("v\n20\nv\n20\n"), std::string::npos) << r.out;

  r = k.run(R"(
    destroy t
    create t (k = i2, v = i4)
    append to t (k = 2, v = 99)
    range of x is t
    retrieve (x.v) where x.k = 2
  )");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.reports().back().stats.prepares, 1u);
  EXPECT_EQ(k.reports().back().stats.cache_hits, 0u);
  EXPECT_NE(r.out.find("v\n99\n"), std::string::npos) << r.out;
}

// (g)-(i) detach p's one-variable conjuncts first, then reuse one inner plan.
TEST_P(PlanCache, DetachedQueriesReuseTheirInnerPlan) {
  Kit k({{"threaded", GetParam()}, {"interp", "switch"}});
  k.add_parts(3360, true, harness::Structure::Isam);
  auto r = k.run(
      "range of p is parts range of q is parts\n"
      "retrieve (p.qoh, q.qoh) where p.pnum = q.pnum and p.color = \"black\"\n"
      "    and p.qoh < log(9.5) * p.weight and q.qoh < log(9.5) * p.weight");
  ASSERT_TRUE(r.ok) << r.err;
  const auto& reps = k.reports();
  ASSERT_EQ(reps.size(), 2u);
  const auto& th = reps[reps.size() - 2].stats;  // runners in the order given
  const auto& in = reps[reps.size() - 1].stats;
  EXPECT_EQ(th.rows_out, in.rows_out);
  EXPECT_EQ(th.checksum, in.checksum);
  // detachment plan + the inner plan, once each; the interpreter prepares per tuple
  EXPECT_EQ(th.prepares, 2u);
  EXPECT_GT(in.prepares, th.prepares);
  EXPECT_EQ(th.prepares + th.cache_hits, in.prepares);
}

// Two statements of the same shape at different places in the source share a
// cache key (positions are not part of it), but a prepared plan raises its
// errors at the positions it was prepared with, so the harness keys plans by
// position too (engine/plan.cpp): each statement's error is its own.
TEST_P(PlanCache, ErrorPositionsAreTheStatementsOwn) {
  Kit k(std::vector<std::pair<std::string, std::string>>{{"interp", "switch"}, {"threaded", GetParam()}});
  auto r = k.run("create t (a4 = i4)\nappend to t (a4 = -2147483647 - 1)\nrange of x is t");
  ASSERT_TRUE(r.ok) << r.err;
  r = k.run("retrieve (v = -x.a4)\nretrieve (v =\n   -x.a4)");
  EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("t.quel:3:4: error: integer overflow"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Modes, PlanCache, ::testing::ValuesIn(threaded_modes()));

}  // namespace
}  // namespace quelkit::test
