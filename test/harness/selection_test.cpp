// Auto selection's rule (harness/selection.h), fed made-up figures: the
// selectivity band, the timed probe on large relations, and its verdicts.
// Whether the kernels then run what was chosen is test/engine/selection_test.cpp's.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "harness/selection.h"

namespace quelkit::test {
namespace {

using harness::AutoProbe;
using harness::Selection;

TEST(AutoSelection, NamesRoundTrip) {
  for (Selection s : {Selection::Auto, Selection::Branch, Selection::NoBranch}) {
    Selection back;
    ASSERT_TRUE(harness::parse_selection(harness::selection_name(s), &back));
    EXPECT_EQ(back, s);
  }
  Selection x;
  EXPECT_FALSE(harness::parse_selection("sometimes", &x));
}

TEST(AutoSelection, MiddleSelectivityChoosesNobranchAfterTheFirstPages) {
  AutoProbe p(10000);
  EXPECT_EQ(p.next(), Selection::Branch);  // probing with branch
  p.ran(Selection::Branch, 60, 30, 0, 2);
  EXPECT_TRUE(p.deciding());  // 60 tuples: not enough yet
  p.ran(Selection::Branch, 60, 30, 0, 2);
  p.ran(Selection::Branch, 60, 31, 0, 2);
  EXPECT_FALSE(p.deciding());
  EXPECT_EQ(p.chosen(), Selection::NoBranch);
  EXPECT_EQ(p.next(), Selection::NoBranch);
}

TEST(AutoSelection, ExtremeSelectivityOnASmallRelationKeepsBranch) {
  AutoProbe p(harness::kAutoTimedPages - 1);
  p.ran(Selection::Branch, 200, 0, 0, 7);
  EXPECT_FALSE(p.deciding());
  EXPECT_EQ(p.chosen(), Selection::Branch);
  // Eight pages decide even with few tuples on them.
  AutoProbe q(100);
  for (int i = 0; i < 8; ++i) q.ran(Selection::Branch, 5, 5, 0, 1);
  EXPECT_FALSE(q.deciding());
  EXPECT_EQ(q.chosen(), Selection::Branch);
}

// On a large relation an extreme selectivity is timed: calls alternate, and
// nobranch is kept only when clearly faster.
TEST(AutoSelection, ExtremeSelectivityOnALargeRelationIsTimed) {
  for (auto [branch_ns, nobranch_ns, want] : {std::tuple{4000, 2000, Selection::NoBranch},
                                              std::tuple{2000, 1900, Selection::Branch},
                                              std::tuple{2000, 3000, Selection::Branch}}) {
    AutoProbe p(100000);
    p.ran(Selection::Branch, 200, 1, 0, 7);
    ASSERT_TRUE(p.timing());
    int calls = 0;
    while (p.deciding()) {
      Selection s = p.next();
      p.ran(s, 100, 0, s == Selection::Branch ? branch_ns : nobranch_ns, 4);
      ASSERT_LE(++calls, int(harness::kAutoTimedCalls));
    }
    EXPECT_EQ(calls, 2 * int(harness::kAutoTimedTuples / 100 + 1)) << "each variant timed over enough tuples";
    EXPECT_EQ(p.chosen(), want) << branch_ns << " vs " << nobranch_ns;
  }
}

// The timed pages begin a seeded number of pages into the scan, within the
// first 1/kAutoTimedDelayShare of it, so repetitions of a statement time
// different pages (the same ones each time are learnt by the branch
// predictor). Until then the scan runs what the plan chose last (`wait`).
TEST(AutoSelection, TimedPagesBeginWhereTheSeedSays) {
  const uint32_t pages = 64000, most = pages / harness::kAutoTimedDelayShare;
  std::set<uint32_t> starts;
  for (uint64_t seed : {0ull, 1ull, 17ull, 999ull, 123456789ull}) {
    const Selection wait = seed % 2 ? Selection::NoBranch : Selection::Branch;
    AutoProbe p(pages, seed, wait);
    p.ran(Selection::Branch, 200, 0, 0, 3);
    uint32_t waited = 0;
    while (!p.timing()) {
      ASSERT_TRUE(p.deciding());
      ASSERT_EQ(p.next(), wait);
      p.ran(wait, 70, 0, 0, 1);
      ++waited;
    }
    EXPECT_EQ(waited, seed % (most + 1)) << seed;
    EXPECT_LE(waited, most);
    starts.insert(waited);
  }
  EXPECT_EQ(starts.size(), 5u);
  // A relation too small to be timed neither waits nor times.
  AutoProbe q(harness::kAutoTimedPages - 1, 12345);
  q.ran(Selection::Branch, 200, 0, 0, 7);
  EXPECT_FALSE(q.deciding());
}

// A variant's first call enters code just generated (cold, sealed by an
// mprotect): microseconds once. Nobranch twice as fast wins all the same.
TEST(AutoSelection, AVariantsColdFirstCallDoesNotDecide) {
  AutoProbe p(100000);
  p.ran(Selection::Branch, 200, 0, 0, 7);
  ASSERT_TRUE(p.timing());
  bool first_nobranch = true;
  while (p.deciding()) {
    Selection s = p.next();
    uint64_t ns = s == Selection::Branch ? 4000 : 2000;
    if (s == Selection::NoBranch && first_nobranch) {
      ns = 200000;  // 2,000 ns a tuple: the first entry into fresh code
      first_nobranch = false;
    }
    p.ran(s, 100, 0, ns, 4);
  }
  EXPECT_EQ(p.chosen(), Selection::NoBranch);
}

}  // namespace
}  // namespace quelkit::test
