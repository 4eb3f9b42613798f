// The reformat step of decomposition (engine/reformat.cpp): when it projects
// and hashes a variable, what --stats and --dump=decomp say, that
// --no-reformat keeps the substitution-only plans, that answers and errors
// are the same either way on every back end, and that the temporary leaves
// the memory budget when the statement ends.
#include <gtest/gtest.h>

#include "engine/backend.h"
#include "storage/budget.h"
#include "support.h"

namespace quelkit::test {
namespace {

const char* kJoin = "range of p is parts range of q is parts retrieve (p.qoh, q.qoh) where p.pnum = q.pnum";

void no_reformat(Kit& k) {
  k.set_options([](harness::SessionOptions& o) { o.runner.reformat = false; });
}

TEST(Reformat, NoReformatKeepsTheSubstitutionOnlyPlans) {
  // The plan of main before the step: p substituted, q scanned per tuple.
  Kit k("interp");
  no_reformat(k);
  k.add_parts(210);
  ASSERT_TRUE(k.run(kJoin).ok);
  const auto& st = k.last_report().stats;
  EXPECT_EQ(st.access_path, "p:substituted; q:heap full scan");
  EXPECT_EQ(st.prepares, 210u);
  EXPECT_EQ(st.rows_scanned, 210u + 210u * 210u);
}

TEST(Reformat, AHeapJoinIsHashedOnItsJoiningDomainAndSaysSo) {
  Kit k("interp");
  k.add_parts(210);
  ASSERT_TRUE(k.run(kJoin).ok);
  const auto& st = k.last_report().stats;
  // 210 x 210 tuples as it is; reformatting reads 210, writes 2 x 2 x 210,
  // then 210 lookups of a 42-tuple bucket (a quarter of a page of the
  // projection's 4-byte tuples, the fillfactor's floor), plus 12.
  EXPECT_EQ(st.access_path,
            "q:heap full scan -> reformat to hash on pnum (substitution 44100 > reformat 9882 tuples); "
            "p:substituted; q:hash key =");
  // The projection's plan, then one per substituted tuple.
  EXPECT_EQ(st.prepares, 211u);
  EXPECT_LT(st.rows_scanned, 210u + 210u * 210u);
}

void dump_decomp(Kit& k) {
  k.set_options([](harness::SessionOptions& o) { o.dumps.insert("decomp"); });
}

// A statement over PARTS 210 (p and q) under --dump=decomp: its outcome,
// access path, and what it printed.
struct Dumped {
  bool ok = false;
  std::string err, path, printed;
};
Dumped run_dumped(const std::string& where_and_targets) {
  Kit k("interp", harness::OutFormat::None);
  dump_decomp(k);
  k.add_parts(210);
  auto r = k.run("range of p is parts range of q is parts retrieve " + where_and_targets);
  return {r.ok, r.err, k.last_report().stats.access_path, r.out + r.err};
}

TEST(Reformat, TooFewSubstitutionsLeaveTheRelationAsItIs) {
  // A decision not taken leaves today's access path; the dump says why.
  Dumped d = run_dumped("(p.qoh, q.qoh) where p.pnum = q.pnum and q.pnum < 7");
  ASSERT_TRUE(d.ok) << d.err;
  EXPECT_EQ(d.path, "q:heap full scan -> temp; q:substituted; p:heap full scan");
  EXPECT_NE(d.printed.find("-- decomp q3 (interp:switch): p:no reformat on pnum (substitution 1260 <= "
                           "reformat 1314 tuples)\n"),
            std::string::npos)
      << d.printed;
}

TEST(Reformat, AQueryThatMayRaiseIsNotReformatted) {
  // A lookup would evaluate the division on fewer tuples, and the temporary
  // numbers its tuples anew: the error must stay substitution's.
  Dumped d = run_dumped("(x = p.qoh / (q.qoh - q.qoh)) where p.pnum = q.pnum");
  EXPECT_FALSE(d.ok);
  EXPECT_NE(d.err.find("division by zero"), std::string::npos) << d.err;
  EXPECT_EQ(d.path, "p:substituted; q:heap full scan");
  EXPECT_NE(d.printed.find("q:no reformat on pnum (the query may raise)"), std::string::npos) << d.printed;
}

TEST(Reformat, DumpDecompPrintsEachDecisionOnce) {
  Kit k("interp", harness::OutFormat::None);
  dump_decomp(k);
  k.add_parts(210);
  auto r = k.run(kJoin);
  ASSERT_TRUE(r.ok) << r.err;
  const std::string line =
      "-- decomp q3 (interp:switch): q:heap full scan -> reformat to hash on pnum (substitution 44100 > reformat "
      "9882 tuples)\n";
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find(line), std::string::npos) << all;
  EXPECT_EQ(all.find(line), all.rfind(line)) << all;
}

TEST(Reformat, TheTemporaryLeavesTheBudgetWithTheStatement) {
  Kit k("interp");
  k.add_parts(3360, true);
  const uint64_t before = harness::memory_budget().used();
  ASSERT_TRUE(k.run(kJoin).ok);
  EXPECT_NE(k.last_report().stats.access_path.find("reformat to hash"), std::string::npos);
  EXPECT_EQ(harness::memory_budget().used(), before);
}

TEST(Reformat, TheTemporaryIsChargedToTheBudget) {
  // q's projection (pnum, pname: 3360 tuples) does not fit in 40 KiB more,
  // the result (3360 qoh values, a 16 KiB chunk) does: the statement fails
  // as any over its budget, and gives its memory back.
  const char* text = "range of p is parts range of q is parts retrieve (p.qoh) where p.pnum = q.pnum and p.pname = q.pname";
  Kit k("interp"), off("interp");
  no_reformat(off);
  k.add_parts(3360, true);
  off.add_parts(3360, true);
  harness::MemoryBudget& budget = harness::memory_budget();
  const uint64_t limit = budget.limit(), before = budget.used();
  budget.set_limit(before + 40 * 1024);
  auto r = k.run(text);
  auto o = off.run(text);
  budget.set_limit(limit);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("memory budget exceeded"), std::string::npos) << r.err;
  EXPECT_EQ(budget.used(), before);
  EXPECT_TRUE(o.ok) << o.err;
}

// Every back end: the reformatted plans' rows (in order) and errors are the
// substitution-only plans'.
class ReformatEveryBackend : public ::testing::TestWithParam<std::string> {};

TEST_P(ReformatEveryBackend, AnswersAreTheSubstitutionOnlyPlans) {
  const char* statements[] = {
      kJoin,
      "range of p is parts range of q is parts retrieve (p.pname, q.color) where p.pname = q.pname and q.pnum < 90",
      "range of p is parts range of q is parts retrieve (p.pnum, q.pnum) where p.weight = q.weight and p.pnum < 60",
      "range of p is parts range of q is parts retrieve (n = count(p.pnum where p.pnum = q.pnum and q.qoh > 10))",
      // every attribute of q: its pages copied whole, then hashed
      "range of p is parts range of q is parts retrieve (q.all, w = p.weight) where p.pnum = q.pnum",
  };
  for (const char* text : statements) {
    Kit on(GetParam()), off(GetParam());
    no_reformat(off);
    on.add_parts(210, true);
    off.add_parts(210, true);
    auto a = on.run(text), b = off.run(text);
    ASSERT_TRUE(a.ok) << a.err;
    ASSERT_TRUE(b.ok) << b.err;
    EXPECT_EQ(a.out, b.out) << text;
    EXPECT_NE(on.last_report().stats.access_path.find("reformat to hash"), std::string::npos)
        << text << ": " << on.last_report().stats.access_path;
    EXPECT_EQ(off.last_report().stats.access_path.find("reformat"), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, ReformatEveryBackend, ::testing::ValuesIn(all_backend_modes()),
                         backend_test_name);

}  // namespace
}  // namespace quelkit::test
