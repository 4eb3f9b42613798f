// --sink count, the measurement of the qualification alone: on every back end
// (each fused kernel's count variant, the tuple-at-a-time loop, substitution
// and detachment) it counts the rows the rows sink returns for the paper's
// PARTS queries, and, since targets are not evaluated, it raises no error a
// target would raise.
#include <gtest/gtest.h>

#include "support.h"

namespace quelkit::test {
namespace {

class CountSink : public ::testing::TestWithParam<std::string> {};


// The paper's queries, of which none has `unique` or `sort by` to change a count.
TEST_P(CountSink, CountsWhatTheRowsSinkReturns) {
  for (harness::Structure st : {harness::Structure::Heap, harness::Structure::Isam}) {
    Kit rows(GetParam(), harness::OutFormat::None), count(GetParam(), harness::OutFormat::None);
    count.set_count_sink();
    rows.add_parts(3360, false, st);
    count.add_parts(3360, false, st);
    for (const char* q : kPaperQueries) {
      const std::string text = std::string("range of p is parts\nrange of q is parts\n") + q;
      auto a = rows.run(text);
      auto b = count.run(text);
      ASSERT_TRUE(a.ok) << q << "\n" << a.err;
      ASSERT_TRUE(b.ok) << q << "\n" << b.err;
      EXPECT_EQ(count.last_report().stats.rows_out, rows.last_report().stats.rows_out) << q;
      EXPECT_EQ(count.last_report().stats.rows_scanned, rows.last_report().stats.rows_scanned) << q;
      EXPECT_EQ(count.last_report().stats.checksum, 0u) << q;
    }
  }
}

TEST_P(CountSink, RaisesNoErrorOfATarget) {
  Kit rows(GetParam()), count(GetParam());
  count.set_count_sink();
  rows.add_parts(210);
  count.add_parts(210);
  const char* q = "range of p is parts\nretrieve (x = p.pnum / (p.pnum - 5)) where p.qoh > 0";
  auto a = rows.run(q);
  EXPECT_FALSE(a.ok);
  EXPECT_NE(a.err.find("division by zero"), std::string::npos) << a.err;
  auto b = count.run(q);
  EXPECT_TRUE(b.ok) << b.err;
  // An error of the qualification is still raised: it is what count measures.
  b = count.run("range of p is parts\nretrieve (p.pnum) where p.pnum / (p.pnum - 5) > 0");
  EXPECT_FALSE(b.ok);
  EXPECT_NE(b.err.find("division by zero"), std::string::npos) << b.err;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, CountSink, ::testing::ValuesIn(all_backend_modes()), backend_test_name);

}  // namespace
}  // namespace quelkit::test
