// The report's ranking of the back ends (bench/report/report_parts.h, rank_backends,
// rankings) on made-up figures: the order, the ratios to the first, the tie
// mark from paired repetitions, and which rows are ranked.
#include <gtest/gtest.h>

#include "bench/report/report_parts.h"
#include "test/engine/made_up_rows.h"

namespace quelkit::report {
namespace {

TEST(ReportRanking, OrdersByMedianAndMarksWhatTheRunCannotTellApart) {
  // Round by round: b is faster than a in rounds 1 and 2 of 5, but slower
  // at the median; c is 2x a in every round; the references are not ranked.
  const Row r = heap_row("d", 1000000,
                         {cell("c", CellKind::Backend, {200, 200, 200, 200, 200}),
                          cell("b", CellKind::Backend, {90, 95, 120, 120, 120}),
                          cell("a", CellKind::Backend, {100, 100, 100, 100, 100}),
                          cell("reference", CellKind::Reference, {50, 50, 50, 50, 50}),
                          cell("floor", CellKind::Floor, {40, 40, 40, 40, 40})});
  const Ranking k = rank_backends(r);
  ASSERT_EQ(k.order.size(), 3u);
  EXPECT_EQ(k.order[0].runner, "a");
  EXPECT_EQ(k.order[1].runner, "b");
  EXPECT_EQ(k.order[2].runner, "c");
  EXPECT_DOUBLE_EQ(k.order[1].ratio, 1.2);
  EXPECT_DOUBLE_EQ(k.order[2].ratio, 2.0);
  EXPECT_FALSE(k.order[0].tied);
  // b / a by round: 0.9 0.95 1.2 1.2 1.2: the first quartile is 0.95, at or
  // below 1: this run does not tell b from a, though b's median is higher.
  EXPECT_TRUE(k.order[1].tied);
  // c / b by round: at least 1.67 in every round: told apart.
  EXPECT_FALSE(k.order[2].tied);
  // No cell read a tuple (as (a), which reads no relation): no per-tuple figure.
  EXPECT_FALSE(k.scans);
  Row scanned = r;
  scanned.cells[0].scanned = 1000000;
  EXPECT_TRUE(rank_backends(scanned).scans);
}

TEST(ReportRanking, RanksTable1AtTheTargetSizesAndEachKeyedStructureAtItsLargest) {
  Measured m;
  auto two = [] {
    return std::vector<Cell>{cell("x", CellKind::Backend, {2, 2, 2}), cell("y", CellKind::Backend, {1, 1, 1})};
  };
  m.rows.push_back(heap_row("b", 100000, two()));    // below 1M: not ranked
  m.rows.push_back(heap_row("b", 1000000, two()));   // ranked
  m.rows.push_back(heap_row("b", 10000000, two()));  // ranked
  for (uint64_t n : {3360, 100000}) {
    Row r = heap_row("f", n, two());
    r.structure = harness::Structure::Hash;
    m.rows.push_back(r);  // only 100000, the hash relation's largest, is ranked
  }
  Row lone = heap_row("c", 1000000, {cell("x", CellKind::Backend, {1})});  // one back end: nothing to rank
  m.rows.push_back(lone);
  const std::vector<Ranking> v = rankings(m);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].size, 1000000u);
  EXPECT_EQ(v[1].size, 10000000u);
  EXPECT_EQ(v[2].size, 100000u);
  EXPECT_EQ(v[2].structure, harness::Structure::Hash);
  for (const Ranking& k : v) EXPECT_EQ(k.order[0].runner, "y");
}

}  // namespace
}  // namespace quelkit::report
