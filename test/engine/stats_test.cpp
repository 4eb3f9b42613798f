// --stats describes what a statement did, the same way on every back end:
// `retrieve unique` counts and checksums the rows left after duplicates go;
// a failed statement reports the counts at its failing tuple (a page kernel's
// tuples before it included), no rows out, and the access paths it ran.
#include <gtest/gtest.h>

#include "support.h"

namespace quelkit::test {
namespace {

// The text form's times: microseconds to the nanosecond, a run of seconds
// too (ns / 1000.0 through ostream's 6 digits printed 4.34297e+06).
TEST(StatsText, TimesAreMicrosecondsToTheNanosecondNeverInAnExponent) {
  EXPECT_EQ(harness::stats_us_text(0), "0.000");
  EXPECT_EQ(harness::stats_us_text(7), "0.007");
  EXPECT_EQ(harness::stats_us_text(134972000), "134972.000");
  EXPECT_EQ(harness::stats_us_text(4342970123), "4342970.123");
  EXPECT_EQ(harness::stats_us_text(86400000000050ull), "86400000000.050");
}

class Stats : public ::testing::TestWithParam<std::string> {};

TEST_P(Stats, UniqueCountsAndChecksumsTheRowsLeft) {
  Kit k(GetParam());
  k.add_parts(210);
  auto r = k.run("range of p is parts\nretrieve unique (p.color)");
  ASSERT_TRUE(r.ok) << r.err;
  const harness::ExecStats unique = k.last_report().stats;
  EXPECT_EQ(unique.rows_qualified, 210u);
  EXPECT_EQ(unique.rows_out, 8u);  // seven colours and black
  // The same eight rows, once each, from a relation that holds nothing else.
  r = k.run(R"(create c (color = c8)
    append to c (color = "black")
    append to c (color = "blue")
    append to c (color = "brown")
    append to c (color = "gray")
    append to c (color = "green")
    append to c (color = "red")
    append to c (color = "white")
    append to c (color = "yellow")
    range of c is c
    retrieve (c.color))");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.last_report().stats.rows_out, 8u);
  EXPECT_EQ(unique.checksum, k.last_report().stats.checksum);
  // --format none keeps no rows, and still reports the rows left.
  Kit none(GetParam(), harness::OutFormat::None);
  none.add_parts(210);
  ASSERT_TRUE(none.run("range of p is parts\nretrieve unique (p.color)").ok);
  EXPECT_EQ(none.last_report().stats.rows_out, 8u);
  EXPECT_EQ(none.last_report().stats.checksum, unique.checksum);
}

struct Failing {
  const char* text;
  uint64_t scanned, qualified;
};

TEST_P(Stats, FailedStatementCountsAtTheFailingTuple) {
  Kit k(GetParam());
  k.add_parts(210);  // 28 tuples on a page: tuple 40 is on the second
  ASSERT_TRUE(k.run("range of p is parts").ok);
  for (const Failing& f : {
           Failing{"retrieve (x = p.pnum / (p.pnum - 5))", 5, 4},           // in the target list
           Failing{"retrieve (p.pnum) where 10 / (p.pnum - 7) < 0", 7, 6},  // in the qualification
           Failing{"retrieve (x = p.pnum / (p.pnum - 40))", 40, 39},         // on the second page
           Failing{"retrieve (p.pnum) where p.pnum > 35 and 10 / (p.pnum - 40) < 0", 40, 4},
       }) {
    SCOPED_TRACE(f.text);
    auto r = k.run(f.text);
    EXPECT_FALSE(r.ok);
    const harness::StmtReport& rep = k.last_report();
    EXPECT_FALSE(rep.error.empty());
    EXPECT_EQ(rep.stats.rows_scanned, f.scanned);
    EXPECT_EQ(rep.stats.rows_qualified, f.qualified);
    EXPECT_EQ(rep.stats.rows_out, 0u);
    EXPECT_EQ(rep.stats.checksum, 0u);
    EXPECT_EQ(rep.stats.access_path, "p:heap full scan");
  }
}

// The same counts where the failing tuple lies after the auto probe's pages
// (a heap of 715 pages: the probe runs its first 8, too few tuples to be
// timed), in the scan's steady loop (engine/scan.cpp), the row buffer
// handed over several times before it.
TEST_P(Stats, FailureAfterTheProbeDecidedCountsAtTheFailingTuple) {
  Kit k(GetParam());
  k.add_parts(20000);  // 28 tuples on a page
  ASSERT_TRUE(k.run("range of p is parts").ok);
  for (const Failing& f : {
           Failing{"retrieve (x = p.pnum / (p.pnum - 19000))", 19000, 18999},
           Failing{"retrieve (p.pnum) where p.pnum > 35 and 10 / (p.pnum - 19000) < 0", 19000, 10},
       }) {
    SCOPED_TRACE(f.text);
    auto r = k.run(f.text);
    EXPECT_FALSE(r.ok);
    const harness::StmtReport& rep = k.last_report();
    EXPECT_EQ(rep.stats.rows_scanned, f.scanned);
    EXPECT_EQ(rep.stats.rows_qualified, f.qualified);
    EXPECT_EQ(rep.stats.rows_out, 0u);
    // The page of the failing tuple is the last walked, on every back end
    // (vector's batches of many pages included).
    EXPECT_EQ(rep.stats.pages_walked, (f.scanned + 27) / 28);
  }
}

// The same through an ISAM key range, whose pages the steady loop walks
// as well (each_page's order: the range's primary pages and their chains).
TEST_P(Stats, FailureInAKeyRangeCountsAtTheFailingTuple) {
  Kit k(GetParam());
  k.add_parts(20000);
  ASSERT_TRUE(k.run("range of p is parts\nmodify parts to isam on pnum").ok);
  auto r = k.run("retrieve (x = p.pnum / (p.pnum - 19000)) where p.pnum < 19500");
  EXPECT_FALSE(r.ok);
  const harness::StmtReport& rep = k.last_report();
  EXPECT_EQ(rep.stats.access_path, "p:isam key range");
  EXPECT_EQ(rep.stats.rows_scanned, 19000u);
  EXPECT_EQ(rep.stats.rows_qualified, 18999u);
  EXPECT_EQ(rep.stats.rows_out, 0u);
  // And the range's rows when nothing fails: the tuples below the bound.
  auto ok = k.run("retrieve (x = p.pnum / (p.pnum + 1)) where p.pnum < 19500");
  EXPECT_TRUE(ok.ok);
  EXPECT_EQ(k.last_report().stats.rows_out, 19499u);
}

TEST_P(Stats, FailedJoinReportsItsAccessPaths) {
  Kit k(GetParam());
  k.add_parts(210);
  auto r = k.run("range of p is parts\nrange of q is parts\n"
                 "retrieve (p.pnum) where p.qoh < 100 and p.pnum = q.pnum and 1 / (q.pnum - p.pnum) > 0");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(k.last_report().stats.access_path, "p:heap full scan -> temp; p:substituted; q:heap full scan");
}

// An aggregate's queries are the statement's work: each counted once, its
// failing one included, and listed in access_path before the statement's own.
TEST_P(Stats, AggregatesCountTheirScansOnceAndListThem) {
  Kit k(GetParam());
  k.add_parts(210);
  ASSERT_TRUE(k.run("range of p is parts").ok);
  for (const Failing& f : {
           Failing{"retrieve (x = sum(p.qoh / (p.pnum - 30)))", 30, 29},                  // in the scan
           Failing{"retrieve (x = count(p.qoh / (p.pnum - 30) by p.color))", 240, 239},  // groups, then values
           Failing{"retrieve (x = count(p.pnum where p.qoh / (p.pnum - 30) > 0))", 30, 0},
       }) {
    SCOPED_TRACE(f.text);
    EXPECT_FALSE(k.run(f.text).ok);
    const harness::StmtReport& rep = k.last_report();
    EXPECT_EQ(rep.stats.rows_scanned, f.scanned);
    EXPECT_EQ(rep.stats.rows_qualified, f.qualified);
  }
  EXPECT_EQ(k.last_report().stats.access_path, "p:heap full scan");
  // The accumulation's own failure (the i4 sum overflows) still lists the scan that fed it.
  EXPECT_FALSE(k.run("retrieve (x = sum(p.qoh * 100000))").ok);
  EXPECT_EQ(k.last_report().stats.rows_scanned, 210u);
  EXPECT_EQ(k.last_report().stats.access_path, "p:heap full scan");
  ASSERT_TRUE(k.run("retrieve (x = sum(p.qoh))").ok);
  EXPECT_EQ(k.last_report().stats.rows_scanned, 210u);
  EXPECT_EQ(k.last_report().stats.access_path, "p:heap full scan; no relation");
  EXPECT_EQ(k.last_report().stats.rows_qualified, 210u);  // the scan's; the statement left with a value adds none
}

// A query with no variable is evaluated once, on no tuple: none scanned, none
// qualified, one row out (or none). It counted one qualified tuple, so an
// aggregate over 210 tuples said 210 scanned, 211 qualified.
TEST_P(Stats, AQueryWithNoVariableScansAndQualifiesNoTuple) {
  Kit k(GetParam());
  k.add_parts(210);
  struct Case {
    const char* text;
    uint64_t scanned, qualified, out;
  };
  for (const Case& c : {Case{"retrieve (x = 1)", 0, 0, 1}, Case{"retrieve (x = 1) where 1 = 2", 0, 0, 0},
                        Case{"range of p is parts retrieve (n = count(p.pnum))", 210, 210, 1},
                        Case{"retrieve (n = count(p.pnum where p.pnum < 11))", 210, 10, 1},
                        Case{"append to parts (pnum = 9999)", 0, 0, 1}}) {
    SCOPED_TRACE(c.text);
    ASSERT_TRUE(k.run(c.text).ok);
    const harness::ExecStats& st = k.last_report().stats;
    EXPECT_EQ(st.rows_scanned, c.scanned);
    EXPECT_EQ(st.rows_qualified, c.qualified);
    EXPECT_EQ(st.rows_out, c.out);
  }
}

// A statement's fixed costs are its own and fit its whole time: parse, bind,
// prepare, run (plan-making and the cache lookups inside it), verification
// and the result's handling are apart in time, so their sum is at most
// total_ns. A later statement of the same shape finds its plan: a lookup
// on every back end that reuses plans, no prepare; its text finds its
// parse and binding in the statement cache.
TEST_P(Stats, FixedCostsAreTheStatementsOwnAndFitItsTotal) {
  Kit k(GetParam());
  k.add_parts(210);
  ASSERT_TRUE(k.run("range of p is parts").ok);
  for (const char* text : {"retrieve (a = 1)", "retrieve (a = 2)", "retrieve (p.pnum) where p.qoh < 10",
                           "replace p (qoh = 5) where p.pnum = 7", "replace p (qoh = 6) where p.pnum = 8"}) {
    SCOPED_TRACE(text);
    ASSERT_TRUE(k.run(text).ok);
    const harness::ExecStats& st = k.last_report().stats;
    EXPECT_GT(st.parse_ns, 0u);
    // The second text of a shape reuses the first's parse and binding
    // (the statement cache): its parse_ns is the literal scan and patch.
    const bool second = std::string(text) == "retrieve (a = 2)" || std::string(text).find("qoh = 6") != std::string::npos;
    EXPECT_EQ(st.statement_cache, second ? harness::StatementCacheUse::Plan : harness::StatementCacheUse::Miss);
    if (second) EXPECT_EQ(st.bind_ns, 0u);  // and its plan_ns the cached plan's naming
    else EXPECT_GT(st.bind_ns, 0u);
    EXPECT_GT(st.plan_ns, 0u);
    EXPECT_GT(st.lookup_ns, 0u);
    EXPECT_GT(st.result_ns, 0u);
    EXPECT_LE(st.plan_ns + st.lookup_ns, st.run_ns);
    EXPECT_LE(st.parse_ns + st.bind_ns + st.prepare_ns + st.run_ns + st.verify_ns + st.result_ns, st.total_ns);
  }
  // The second of each shape prepared nothing where plans are reused.
  ASSERT_TRUE(k.run("replace p (qoh = 7) where p.pnum = 9").ok);
  const harness::ExecStats& again = k.last_report().stats;
  if (k.session().runners().front()->reuses()) {
    EXPECT_EQ(again.prepares, 0u);
    EXPECT_EQ(again.cache_hits, 1u);
  }
}

// With the phases' stopwatch off (quelkit short's timed runs), a statement
// reads no clock but around a prepare: every other phase is 0, and its
// counts and rows are what they are with it on.
TEST_P(Stats, PhaseTimingOffReadsEveryPhaseAsZeroAndCountsTheSame) {
  Kit k(GetParam());
  k.add_parts(210);
  ASSERT_TRUE(k.run("range of p is parts").ok);
  const char* text = "retrieve (p.pnum) where p.qoh < 10";
  ASSERT_TRUE(k.run(text).ok);
  const harness::ExecStats on = k.last_report().stats;
  EXPECT_GT(on.run_ns, 0u);
  k.session().set_phase_timing(false);
  ASSERT_TRUE(k.run(text).ok);
  const harness::ExecStats off = k.last_report().stats;
  for (uint64_t harness::ExecStats::*f : {&harness::ExecStats::parse_ns, &harness::ExecStats::bind_ns,
                                          &harness::ExecStats::plan_ns, &harness::ExecStats::lookup_ns,
                                          &harness::ExecStats::run_ns,
                                          &harness::ExecStats::result_ns, &harness::ExecStats::total_ns})
    EXPECT_EQ(off.*f, 0u);
  EXPECT_EQ(off.rows_scanned, on.rows_scanned);
  EXPECT_EQ(off.rows_out, on.rows_out);
  EXPECT_EQ(off.checksum, on.checksum);
  k.session().set_phase_timing(true);
  ASSERT_TRUE(k.run(text).ok);
  EXPECT_GT(k.last_report().stats.run_ns, 0u);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Stats, ::testing::ValuesIn(all_backend_modes()),
                         backend_test_name);

}  // namespace
}  // namespace quelkit::test
