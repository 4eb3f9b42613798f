// The report's break-even (bench/report/report_parts.h): where a back end's one-off
// cost, prepare + statement time, crosses below another's over the heap
// sizes measured, on made-up figures.
#include <gtest/gtest.h>

#include "bench/report/report_parts.h"

namespace quelkit::report {
namespace {

// A heap row of query (d) at `size` tuples: each back end's warm prepare and
// statement time in ns.
Row row(uint64_t size, std::vector<std::tuple<std::string, double, double>> cells) {
  Row r;
  r.query = "d";
  r.size = size;
  for (const auto& [name, prepare, run] : cells) {
    Cell c;
    c.runner = name;
    c.prepare_ns = prepare;
    c.m.median_ns = run;
    r.cells.push_back(c);
  }
  return r;
}

TEST(BreakEven, InterpolatesTheCrossingOfTheOneOffCosts) {
  Measured m;
  // jit: 10,000 ns to prepare, 1 ns a tuple; interp: nothing to prepare, 11 ns
  // a tuple. One-off costs cross at 1,000 tuples, between the 210 and the
  // 3,360 measured (linear in between, as the costs are). At 100,000 tuples
  // both are bound by memory, 8 and 11 ns: the per-tuple difference there
  // would put the break-even at 3,333, which no measured cost says.
  for (uint64_t n : {1, 210, 3360})
    m.rows.push_back(row(n, {{"interp", 0, 11.0 * double(n)}, {"jit", 10000, 1.0 * double(n)}}));
  m.rows.push_back(row(100000, {{"interp", 0, 11.0 * 100000}, {"jit", 10000, 8.0 * 100000}}));
  BreakEven b = break_even(m, "d", "jit", "interp", false);
  EXPECT_EQ(b.kind, BreakEven::At);
  EXPECT_NEAR(b.tuples, 1000, 1e-6);
  EXPECT_EQ(break_even_text(b), "1000 tuples");
  // The other way round: interp is cheaper already at the smallest size.
  EXPECT_EQ(break_even(m, "d", "interp", "jit", false).kind, BreakEven::AtMost);
  EXPECT_EQ(break_even_text(break_even(m, "d", "interp", "jit", false)), "<= 1 tuples");
}

TEST(BreakEven, NeverWithinTheSizesAndUnknownWithoutFigures) {
  Measured m;
  // A back end no faster per tuple: its prepare is never repaid.
  for (uint64_t n : {1, 210, 3360})
    m.rows.push_back(row(n, {{"interp", 0, 5.0 * double(n)}, {"slow", 2000, 6.0 * double(n)}}));
  BreakEven b = break_even(m, "d", "slow", "interp", false);
  EXPECT_EQ(b.kind, BreakEven::Never);
  EXPECT_EQ(break_even_text(b), "> 3360 tuples");
  // First-in-process prepare not measured for it: unknown, not a guess.
  EXPECT_EQ(break_even(m, "d", "slow", "interp", true).kind, BreakEven::Unknown);
  m.first_prepare_ns["slow"] = 2000;
  m.first_prepare_ns["interp"] = 0;
  EXPECT_EQ(break_even(m, "d", "slow", "interp", true).kind, BreakEven::Never);
  // Another query's rows do not count.
  EXPECT_EQ(break_even(m, "c", "slow", "interp", false).kind, BreakEven::Unknown);
}

// The order in which back ends pay back, for the conclusions' "soonest":
// cheaper already at the smallest size, then the earlier crossing, then not
// within the sizes, and an unknown break-even last.
TEST(BreakEven, SoonerOrdersByPayback) {
  const BreakEven at_most{BreakEven::AtMost, 1}, at_200{BreakEven::At, 200}, at_5000{BreakEven::At, 5000},
      never{BreakEven::Never, 10000000}, unknown{};
  const std::vector<BreakEven> in_order{at_most, at_200, at_5000, never, unknown};
  for (size_t i = 0; i < in_order.size(); ++i)
    for (size_t j = 0; j < in_order.size(); ++j)
      EXPECT_EQ(sooner(in_order[i], in_order[j]), i < j) << i << " vs " << j;
}

}  // namespace
}  // namespace quelkit::report
