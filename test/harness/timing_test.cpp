// The timing module (engine/measure.h) driven by a fake clock: calibration,
// warm-up, interleaving and the statistics, never the speed of anything.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/measure.h"

namespace quelkit::test {
namespace {

using harness::Clock;
using harness::Measurement;
using harness::Stats;
using harness::Timing;

// A clock that advances only when the work says so: each run adds its cost.
struct FakeClock {
  uint64_t t = 0;
  Clock clock() {
    return [this] { return t; };
  }
};

TEST(Timing, SummariseMedianMinMaxSpread) {
  Stats s = harness::summarise({5, 1, 3});
  EXPECT_EQ(s.n, 3);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.spread, 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(harness::summarise({4, 2, 8, 6}).median, 5);  // even count: mean of the middle two
  // Quartiles between the sorted samples (1 2 3 4 5 6 7 8 9 100): the
  // extreme moves the spread, not the middle half.
  Stats q = harness::summarise({100, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(q.q1, 3.25);
  EXPECT_DOUBLE_EQ(q.q3, 7.75);
  EXPECT_DOUBLE_EQ(q.median, 5.5);
  EXPECT_DOUBLE_EQ(s.q1, 2);  // 1 3 5: halfway between 1 and 3
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_EQ(harness::summarise({}).n, 0);
}

// The median's 95% interval: order statistics by the binomial law. 15
// samples: the 4th and 12th smallest (P(Bin(15, 1/2) <= 3) = 1.8%, <= 4 is
// 5.9%); 6 samples: min and max (1/64 = 1.6% a side); 5: no pair reaches 95%,
// so min..max; 100: the 40th and 61st (the normal approximation's 50 -+ 9.8).
TEST(Timing, SummariseBoundsTheMedianByOrderStatistics) {
  auto upto = [](int n) {
    std::vector<double> v;
    for (int i = n; i >= 1; --i) v.push_back(i);  // 1..n, given unsorted
    return v;
  };
  Stats s = harness::summarise(upto(15));
  EXPECT_DOUBLE_EQ(s.lo, 4);
  EXPECT_DOUBLE_EQ(s.hi, 12);
  s = harness::summarise(upto(6));
  EXPECT_DOUBLE_EQ(s.lo, 1);
  EXPECT_DOUBLE_EQ(s.hi, 6);
  s = harness::summarise(upto(5));
  EXPECT_DOUBLE_EQ(s.lo, 1);
  EXPECT_DOUBLE_EQ(s.hi, 5);
  s = harness::summarise(upto(100));
  EXPECT_DOUBLE_EQ(s.lo, 40);
  EXPECT_DOUBLE_EQ(s.hi, 61);
  s = harness::summarise({2.5});
  EXPECT_DOUBLE_EQ(s.lo, 2.5);
  EXPECT_DOUBLE_EQ(s.hi, 2.5);
}

// A check's verdict is the median's; it is told only where the interval
// lies wholly on the verdict's side of the bound.
TEST(Timing, AVerdictIsToldOnlyWhereTheIntervalClearsTheBound) {
  Stats r;
  r.median = 1.25, r.lo = 1.2, r.hi = 1.28;
  harness::Verdict v = harness::judge(r, 1.3, false);
  EXPECT_TRUE(v.met && v.told);
  r.hi = 1.31;  // met, but the interval reaches past the bound
  v = harness::judge(r, 1.3, false);
  EXPECT_TRUE(v.met && !v.told);
  r.median = 1.34, r.lo = 1.29, r.hi = 1.4;  // missed, the interval holds the bound
  v = harness::judge(r, 1.3, false);
  EXPECT_TRUE(!v.met && !v.told);
  r.lo = 1.31;  // missed beyond noise
  v = harness::judge(r, 1.3, false);
  EXPECT_TRUE(!v.met && v.told);
  // Strict: a median at the bound misses; one below it, with the interval's
  // top at the bound, is met but not told.
  r.median = 1, r.lo = 0.9, r.hi = 1.1;
  EXPECT_FALSE(harness::judge(r, 1, true).met);
  r.median = 0.95, r.hi = 1;
  v = harness::judge(r, 1, true);
  EXPECT_TRUE(v.met && !v.told);
  EXPECT_TRUE(harness::judge(r, 1, false).told);
}

// The reports (the sweep's checks, the paper's targets) mark only a verdict
// not told, with its interval, and count such misses only where there are.
TEST(Timing, OnlyAVerdictNotToldIsMarkedWithinNoise) {
  harness::Stats r;
  r.lo = 1.041, r.hi = 1.408, r.level = 0.965, r.n = 15;
  EXPECT_EQ(harness::noise_mark(true, r), "");
  EXPECT_EQ(harness::noise_mark(false, r), " (within noise: 95% CI 1.04-1.41)");
  // Too few repetitions for a 95% interval: min..max, at the level it has.
  r.level = 0.75, r.n = 3;
  EXPECT_EQ(harness::noise_mark(false, r), " (within noise: 75% CI 1.04-1.41, 3 repetitions)");
}

// The level of the median's interval: min..max holds the median 1 - 2^(1-n)
// of the time, under 95% below 6 samples; from 6 on it is 95% or more.
TEST(Timing, TheMediansIntervalSaysItsLevel) {
  EXPECT_NEAR(harness::summarise({1, 2, 3}).level, 0.75, 1e-12);
  EXPECT_NEAR(harness::summarise({1, 2, 3, 4, 5}).level, 0.9375, 1e-12);
  EXPECT_NEAR(harness::summarise({1, 2, 3, 4, 5, 6}).level, 1 - 2.0 / 64, 1e-12);
  std::vector<double> fifteen;
  for (int i = 1; i <= 15; ++i) fifteen.push_back(i);
  const harness::Stats s = harness::summarise(fifteen);
  EXPECT_EQ(s.lo, 4);  // the 4th and 12th of 15
  EXPECT_EQ(s.hi, 12);
  EXPECT_NEAR(s.level, 1 - 2.0 * (1 + 15 + 105 + 455) / 32768, 1e-12);
  EXPECT_GE(s.level, 0.95);
  EXPECT_EQ(harness::noise_misses_note(0), "");
  EXPECT_EQ(harness::noise_misses_note(2), " (2 of them within noise: the bound inside their median's interval)");
}

TEST(Timing, RepetitionsLastAtLeastTheMinimumTime) {
  FakeClock fc;
  int runs = 0;
  Timing t;
  t.reps = 3;
  t.min_seconds = 1e-3;  // 1 ms of fake time
  t.warmup = 2;
  Measurement m = harness::measure([&] { fc.t += 1000; ++runs; }, t, fc.clock());  // 1 us a run
  EXPECT_EQ(m.reps, 3);
  EXPECT_EQ(m.iters, 1000u);
  EXPECT_DOUBLE_EQ(m.median_ns, 1000);
  EXPECT_DOUBLE_EQ(m.spread(), 0);
  // two warm-up runs, one calibrating run, then 3 x 1000
  EXPECT_EQ(runs, 2 + 1 + 3000);
}

TEST(Timing, APessimisticCalibrationGrowsTheLoop) {
  FakeClock fc;
  int k = 0;
  Timing t;
  t.reps = 1;
  t.min_seconds = 1e-3;
  t.warmup = 0;
  // The calibrating run is slow (1 ms), the rest fast (1 us): one run would
  // not fill the minimum time, so the repetition is taken again, longer.
  Measurement m = harness::measure([&] { fc.t += k++ == 0 ? 1000000 : 1000; }, t, fc.clock());
  EXPECT_GE(double(m.iters) * m.median_ns, 0.5e6);
  EXPECT_DOUBLE_EQ(m.median_ns, 1000);
}

TEST(Timing, InterleavedRepetitionsRotateAndRatiosKeepTheirSpread) {
  FakeClock fc;
  std::string order;
  int rep_a = 0;
  Timing t;
  t.reps = 3;
  t.min_seconds = 1e-7;  // one run a repetition
  t.warmup = 0;
  auto a = [&] { order += 'A'; fc.t += 1000 + 100 * (rep_a++ % 3); };  // 1000, 1100, 1200, ...
  auto b = [&] { order += 'B'; fc.t += 500; };
  auto ms = harness::measure_interleaved({a, b}, t, fc.clock());
  // Calibration runs A then B, then the repetitions alternate, each round
  // starting one piece further on.
  EXPECT_EQ(order, "ABABBAAB");
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0].samples.size(), 3u);
  Stats r = harness::ratio(ms[0], ms[1]);
  EXPECT_EQ(r.n, 3);
  EXPECT_DOUBLE_EQ(r.min, 2.0);
  EXPECT_DOUBLE_EQ(r.median, 2.2);
  EXPECT_DOUBLE_EQ(r.max, 2.4);
  EXPECT_GT(r.spread, 0);
}

TEST(Timing, ABudgetCutsASlowPieceShortAndKeepsTheRoundsPaired) {
  FakeClock fc;
  std::string order;
  Timing t;
  t.reps = 6;
  t.min_seconds = 1e-7;  // one run a repetition
  t.warmup = 0;
  t.budget_seconds = 300e-6;  // 300 us of fake time a piece
  t.min_reps = 2;
  auto fast = [&] { order += 'A'; fc.t += 1000; };    // 6 x 1 us: within the budget
  auto slow = [&] { order += 'B'; fc.t += 100000; };  // 6 x 100 us would not be: 3 fit
  auto ms = harness::measure_interleaved({fast, slow}, t, fc.clock());
  // Calibration A B, three rotated rounds of both, then A alone.
  EXPECT_EQ(order, "AB" "AB" "BA" "AB" "A" "A" "A");
  EXPECT_EQ(ms[0].reps, 6);
  EXPECT_EQ(ms[1].reps, 3);
  EXPECT_EQ(harness::ratio(ms[1], ms[0]).n, 3);  // the rounds both took part in
  EXPECT_DOUBLE_EQ(harness::ratio(ms[1], ms[0]).median, 100);

  // Slower than the whole budget: min_reps still.
  order.clear();
  auto slowest = [&] { order += 'C'; fc.t += 1000000; };
  ms = harness::measure_interleaved({fast, slowest}, t, fc.clock());
  EXPECT_EQ(ms[1].reps, 2);
  EXPECT_EQ(ms[0].reps, 6);

  // No budget: every piece takes reps.
  t.budget_seconds = 0;
  ms = harness::measure_interleaved({fast, slowest}, t, fc.clock());
  EXPECT_EQ(ms[1].reps, 6);
}

// A figure in a CSV reads back as the double measured; a spread is printed
// only where there are two repetitions to have one.
TEST(Timing, FiguresAndSpreadsAsTheFilesAndReportsWriteThem) {
  for (double v : {6237512.0, 11830.761363636364, 0.1, 2.540846681922197, 0.0, 1e-300}) {
    const std::string t = harness::figure_text(v);
    EXPECT_EQ(std::stod(t), v) << t;
  }
  EXPECT_EQ(harness::figure_text(6237512.0), "6237512");
  EXPECT_EQ(harness::spread_text(0.08, 3), "±4%");
  EXPECT_EQ(harness::spread_text(0.0, 1), "");
  EXPECT_EQ(harness::spread_text(0.5, 0), "");
}

}  // namespace
}  // namespace quelkit::test
