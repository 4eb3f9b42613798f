// Auto selection's rule (engine/selection.h), fed made-up figures: the
// selectivity band, the timed probe on large relations, and its verdicts.
// Whether the kernels then run what was chosen is test/engine/selection_test.cpp's.
#include <gtest/gtest.h>

#include <set>
#include <tuple>
#include <vector>

#include "engine/selection.h"

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
  AutoProbe p(harness::kAutoTimedPages - 1, 1000);  // too small to be timed
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
  AutoProbe p(harness::kAutoTimedPages - 1, 1000);
  p.ran(Selection::Branch, 200, 0, 0, 7);
  EXPECT_FALSE(p.deciding());
  EXPECT_EQ(p.chosen(), Selection::Branch);
  // Eight pages decide even with few tuples on them.
  AutoProbe q(100, 30);
  for (int i = 0; i < 8; ++i) q.ran(Selection::Branch, 5, 5, 0, 1);
  EXPECT_FALSE(q.deciding());
  EXPECT_EQ(q.chosen(), Selection::Branch);
}

// Pages alone do not make a scan long: a key range of many pages of few
// tuples each (wide tuples) is too short to pay for timing; the same pages
// fuller are timed.
TEST(AutoSelection, ManyPagesOfFewTuplesAreNotTimed) {
  const uint32_t pages = 4 * harness::kAutoTimedPages;
  const uint32_t few = uint32_t(harness::kAutoTimedMinTuples / pages) - 1;
  EXPECT_FALSE(AutoProbe::timed_scan(pages, few));
  EXPECT_TRUE(AutoProbe::timed_scan(pages, few + 2));
  AutoProbe p(pages, few);
  for (int i = 0; i < 8; ++i) p.ran(Selection::Branch, few, 0, 0, 1);  // 0%: outside the band
  EXPECT_FALSE(p.deciding());  // decided by the band: no timed pages follow
  EXPECT_EQ(p.chosen(), Selection::Branch);
  AutoProbe q(pages, few + 2);
  for (int i = 0; i < 8; ++i) q.ran(Selection::Branch, few + 2, 0, 0, 1);
  EXPECT_TRUE(q.deciding());  // waiting for, or in, its timed pages
}

// On a large relation an extreme selectivity is timed: blocks of calls
// alternate, and nobranch is kept only when clearly faster.
TEST(AutoSelection, ExtremeSelectivityOnALargeRelationIsTimed) {
  // Calls of 100 tuples: a block is the calls that reach kAutoTimedBlock
  // tuples; each variant runs blocks until it has kAutoTimedTuples.
  const int per_block = int((harness::kAutoTimedBlock + 99) / 100);
  const int blocks = int((harness::kAutoTimedTuples + per_block * 100 - 1) / (per_block * 100));
  for (auto [branch_ns, nobranch_ns, want] : {std::tuple{4000, 2000, Selection::NoBranch},
                                              std::tuple{2000, 1980, Selection::Branch},
                                              std::tuple{2000, 3000, Selection::Branch}}) {
    AutoProbe p(100000, 30);
    p.ran(Selection::Branch, 200, 1, 0, 7);
    ASSERT_TRUE(p.timing());
    int calls = 0;
    std::vector<Selection> order;
    while (p.deciding()) {
      Selection s = p.next();
      order.push_back(s);
      p.ran(s, 100, 0, s == Selection::Branch ? branch_ns : nobranch_ns, 4);
      ASSERT_LE(++calls, int(harness::kAutoTimedCalls));
    }
    EXPECT_EQ(calls, 2 * blocks * per_block) << "each variant timed over enough tuples";
    for (int i = 0; i < calls; ++i)
      EXPECT_EQ(order[size_t(i)], (i / per_block) % 2 ? Selection::NoBranch : Selection::Branch) << "call " << i;
    EXPECT_EQ(p.chosen(), want) << branch_ns << " vs " << nobranch_ns;
  }
}

// Inside the band on a large relation the probe times both as well, and the
// band's nobranch gives way only to a branch clearly faster: six range terms
// that are each mostly true (85% together) are mostly predicted, and nobranch
// evaluates all six for every tuple.
TEST(AutoSelection, MiddleSelectivityOnALargeRelationIsTimed) {
  for (auto [branch_ns, nobranch_ns, want] : {std::tuple{2000, 3600, Selection::Branch},
                                              std::tuple{1950, 2000, Selection::NoBranch},
                                              std::tuple{5000, 1200, Selection::NoBranch}}) {
    AutoProbe p(100000, 30);
    p.ran(Selection::Branch, 200, 148, 0, 7);  // 74%
    ASSERT_TRUE(p.timing());
    std::set<Selection> ran;
    while (p.deciding()) {
      Selection s = p.next();
      ran.insert(s);
      p.ran(s, 100, 74, s == Selection::Branch ? branch_ns : nobranch_ns, 4);
    }
    EXPECT_EQ(ran.size(), 2u) << "both timed";
    EXPECT_EQ(p.chosen(), want) << branch_ns << " vs " << nobranch_ns;
  }
}

// A variant far slower than the other is not timed over every tuple: nobranch
// on (c) costs many times branch, and timing it over kAutoTimedTuples tuples
// was a visible part of the statement. Two blocks each (the fastest of them)
// decide.
TEST(AutoSelection, AFarSlowerVariantIsTimedOnlyBriefly) {
  const int per_block = int((harness::kAutoTimedBlock + 99) / 100);
  for (auto [branch_ns, nobranch_ns, want] :
       {std::tuple{350, 3500, Selection::Branch}, std::tuple{3500, 1000, Selection::NoBranch}}) {
    AutoProbe p(100000, 30);
    p.ran(Selection::Branch, 200, 0, 0, 7);
    ASSERT_TRUE(p.timing());
    int calls = 0;
    while (p.deciding()) {
      Selection s = p.next();
      p.ran(s, 100, 0, s == Selection::Branch ? branch_ns : nobranch_ns, 4);
      ++calls;
    }
    EXPECT_EQ(calls, 2 * int(harness::kAutoClearBlocks) * per_block) << branch_ns << " vs " << nobranch_ns;
    EXPECT_EQ(p.chosen(), want) << branch_ns << " vs " << nobranch_ns;
  }
}

// A page kernel call can be shorter than a few steps of the clock: calls of
// 72 tuples read as 50 or 60 ns. Branch at 60 every call against nobranch
// alternating 60 and 50 (56 on average, 0.93 of branch) have the same median
// call; summed over a block the difference shows, and nobranch is kept.
TEST(AutoSelection, DifferencesBelowTheClocksStepShowOverABlock) {
  AutoProbe p(100000, 30);
  p.ran(Selection::Branch, 200, 0, 0, 3);
  ASSERT_TRUE(p.timing());
  int nobranch_calls = 0;
  while (p.deciding()) {
    Selection s = p.next();
    const uint64_t ns = s == Selection::Branch ? 60 : nobranch_calls++ % 2 ? 50 : 60;
    p.ran(s, 72, 0, ns, 1);
  }
  EXPECT_EQ(p.chosen(), Selection::NoBranch);
}

// The scan times a block as one interval (scan.cpp): calls hand 0 until the
// one that ends_block says closes the block, which hands the whole block's ns.
// The blocks end where the probe ends them, and the choice is what the same
// ns split over the calls gives, in both directions.
TEST(AutoSelection, ABlockTimedAsOneIntervalDecidesAsItsCallsSummed) {
  for (auto [branch_ns, nobranch_ns, want] :
       {std::tuple{60, 55, Selection::NoBranch}, std::tuple{60, 59, Selection::Branch}}) {
    AutoProbe split(100000, 30), whole(100000, 30);
    split.ran(Selection::Branch, 200, 0, 0, 3);
    whole.ran(Selection::Branch, 200, 0, 0, 3);
    ASSERT_TRUE(whole.timing());
    EXPECT_FALSE(AutoProbe(100000, 30).ends_block(72)) << "nothing is timed before the count";
    uint64_t block = 0;
    int ends = 0;
    while (whole.deciding()) {
      ASSERT_TRUE(split.deciding());
      const Selection s = whole.next();
      ASSERT_EQ(split.next(), s);
      const uint64_t ns = s == Selection::Branch ? uint64_t(branch_ns) : uint64_t(nobranch_ns);
      split.ran(s, 72, 0, ns, 1);
      block += ns;
      const bool end = whole.ends_block(72);
      ends += end;
      whole.ran(s, 72, 0, end ? block : 0, 1);
      if (end) block = 0;
    }
    EXPECT_FALSE(split.deciding());
    EXPECT_GE(ends, 4) << "blocks of both";
    EXPECT_EQ(whole.chosen(), want) << branch_ns << " vs " << nobranch_ns;
    EXPECT_EQ(split.chosen(), want) << branch_ns << " vs " << nobranch_ns;
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
    AutoProbe p(pages, 30, seed, {.last = wait});
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
  AutoProbe q(harness::kAutoTimedPages - 1, 30, 12345);
  q.ran(Selection::Branch, 200, 0, 0, 7);
  EXPECT_FALSE(q.deciding());
}

// A variant's first call enters code just generated (cold, sealed by an
// mprotect): microseconds once. Nobranch twice as fast wins all the same.
TEST(AutoSelection, AVariantsColdFirstCallDoesNotDecide) {
  AutoProbe p(100000, 30);
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

// The same where two blocks each decide (one variant 2x the other or more):
// the cold call is in one of the two, and the faster of them decides. Inside
// the band (nobranch chosen, branch timed against it) and outside it.
TEST(AutoSelection, AColdFirstCallDoesNotDecideAnEarlyExit) {
  for (uint64_t qualified : {100u, 0u}) {  // of 200: in the band, and not
    AutoProbe p(100000, 30);
    p.ran(Selection::Branch, 200, qualified, 0, 7);
    ASSERT_TRUE(p.timing());
    bool first_nobranch = true;
    int calls = 0;
    while (p.deciding()) {
      Selection s = p.next();
      uint64_t ns = s == Selection::Branch ? 600 : 260;  // 6 and 2.6 ns a tuple
      if (s == Selection::NoBranch && first_nobranch) {
        ns = 200000;
        first_nobranch = false;
      }
      p.ran(s, 100, 0, ns, 4);
      ++calls;
    }
    const int per_block = int((harness::kAutoTimedBlock + 99) / 100);
    EXPECT_EQ(calls, 2 * int(harness::kAutoClearBlocks) * per_block) << "an early exit";
    EXPECT_EQ(p.chosen(), Selection::NoBranch) << qualified;
  }
}

// A scan too short to pay for timing on its own (88 pages of 1,200 tuples: the
// sweep's relation at 100,000) is timed once its plan's earlier scans ran
// kAutoTimedMinTuples; the verdict is kept for its next scans, which run it
// untimed, until the plan's tuples have doubled.
TEST(AutoSelection, AShortScanIsTimedOnceItsPlanHasPaidAndTheVerdictKept) {
  const uint32_t pages = 88, tpp = 1200;
  ASSERT_FALSE(AutoProbe::timed_scan(pages, tpp));
  harness::AutoMemory m;
  // The plan's first scans: the band decides (0%: branch), nothing timed.
  m.tuples = harness::kAutoTimedMinTuples - 1;
  EXPECT_FALSE(AutoProbe::times(pages, tpp, m));
  AutoProbe first(pages, tpp, 0, m);
  first.ran(Selection::Branch, tpp, 0, 0, 1);
  EXPECT_FALSE(first.deciding());
  EXPECT_EQ(first.chosen(), Selection::Branch);
  // Once they have run enough tuples, the next is timed: nobranch 2.5x faster.
  m.tuples = harness::kAutoTimedMinTuples;
  ASSERT_TRUE(AutoProbe::times(pages, tpp, m));
  AutoProbe timed(pages, tpp, 0, m);
  timed.ran(Selection::Branch, tpp, 0, 0, 1);
  ASSERT_TRUE(timed.timing());
  while (timed.deciding()) {
    const Selection s = timed.next();
    timed.ran(s, 100, 0, s == Selection::Branch ? 500 : 200, 1);
  }
  EXPECT_EQ(timed.chosen(), Selection::NoBranch);
  timed.remember(&m);
  EXPECT_EQ(m.last, Selection::NoBranch);
  EXPECT_EQ(m.verdict_at, harness::kAutoTimedMinTuples);
  EXPECT_EQ(m.verdict, Selection::NoBranch);
  EXPECT_EQ(m.verdict_band, Selection::Branch);
  // The next scans run the verdict where the band agrees, untimed.
  m.tuples += uint64_t(pages) * tpp;
  EXPECT_FALSE(AutoProbe::times(pages, tpp, m));
  AutoProbe kept(pages, tpp, 0, m);
  kept.ran(Selection::Branch, tpp, 0, 0, 1);
  EXPECT_FALSE(kept.deciding());
  EXPECT_EQ(kept.chosen(), Selection::NoBranch);
  // A doubling later one is timed again.
  m.tuples = 2 * m.verdict_at;
  EXPECT_TRUE(AutoProbe::times(pages, tpp, m));
  // A scan below the short bounds is never timed, whatever the plan ran.
  EXPECT_FALSE(AutoProbe::times(harness::kAutoShortTimedPages - 1, tpp, m));
  EXPECT_FALSE(AutoProbe::times(pages, uint32_t(harness::kAutoShortTimedTuples / pages) - 1, m));
}

// A verdict holds for the band it was made under: where timing confirmed
// branch at 0% and the data now select half (another band), the band decides.
TEST(AutoSelection, AVerdictGivesWayToAChangedBand) {
  harness::AutoMemory m;
  m.tuples = 10 * harness::kAutoTimedMinTuples;
  m.verdict_at = 6 * harness::kAutoTimedMinTuples;
  m.verdict_band = m.verdict = Selection::Branch;
  ASSERT_FALSE(AutoProbe::times(88, 1200, m));
  AutoProbe p(88, 1200, 0, m);
  p.ran(Selection::Branch, 1200, 600, 0, 1);
  EXPECT_FALSE(p.deciding());
  EXPECT_EQ(p.chosen(), Selection::NoBranch);
  // A short scan not timed leaves the verdict as it was.
  p.remember(&m);
  EXPECT_EQ(m.last, Selection::NoBranch);
  EXPECT_EQ(m.verdict, Selection::Branch);
  EXPECT_EQ(m.verdict_at, 6 * harness::kAutoTimedMinTuples);
}

// A long scan is timed whatever the plan remembers, and leaves no verdict:
// the next long scan times afresh.
TEST(AutoSelection, ALongScanIsAlwaysTimedAndKeepsNoVerdict) {
  harness::AutoMemory m;
  m.tuples = 10 * harness::kAutoTimedMinTuples;
  m.verdict_at = 9 * harness::kAutoTimedMinTuples;
  ASSERT_TRUE(AutoProbe::times(100000, 30, m));
  AutoProbe p(100000, 30, 0, m);
  p.ran(Selection::Branch, 200, 0, 0, 7);
  ASSERT_TRUE(p.timing());
  while (p.deciding()) {
    const Selection s = p.next();
    p.ran(s, 100, 0, s == Selection::Branch ? 500 : 200, 4);
  }
  p.remember(&m);
  EXPECT_EQ(m.last, Selection::NoBranch);
  EXPECT_EQ(m.verdict_at, 9 * harness::kAutoTimedMinTuples) << "no verdict from a long scan";
}

}  // namespace
}  // namespace quelkit::test
