// The kit's one timing module: warm-up, minimum time, repetition count and the
// statistics of repetitions (median, min, max, spread). `quelkit paper`
// measures with it, `--repeat K` summarises its K runs with it, and the Google
// Benchmark binaries take their minimum time, repetitions and statistics from
// it. It lives in the engine, below the reports, because --repeat is a session
// option; bench/measure/ builds the report's measurement on it. The clock is a
// parameter so a test can drive the loop with a fake one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace quelkit::harness {

// Defaults of a measured figure: quelkit_bench's repetitions and minimum time
// (the report sets its own, bench/report/report.cpp).
constexpr int kDefaultReps = 5;
constexpr double kDefaultMinSeconds = 0.1;

struct Timing {
  int reps = kDefaultReps;                 // repetitions; the figure is their median
  double min_seconds = kDefaultMinSeconds; // each repetition loops the work at least this long
  int warmup = 1;                          // untimed runs first (caches, plan cache, page faults)
  // A time budget per piece (0: none). A piece whose `reps` repetitions
  // would last longer than budget_seconds, as its calibrating run foretells,
  // takes as many as fit, but at least min_reps: so many repetitions steady
  // the fast pieces' medians and ratios without multiplying the time of a
  // piece that runs for seconds (an interpreter, SQLite at 10M tuples).
  double budget_seconds = 0;
  int min_reps = 1;
};

// Median, min and max of samples; spread = (max - min) / median; q1 and q3
// the quartiles (linear between the sorted samples, as numpy's default), so
// a median of many repetitions can be read with the middle half of them
// rather than only their extremes. lo..hi: a distribution-free interval of
// at least 95% for the median, two order statistics chosen by the binomial
// law (the k-th smallest and largest, k the largest with P(Bin(n, 1/2) < k)
// <= 2.5%; 15 samples: the 4th and 12th); it assumes only that repetitions
// are independent draws. Under 6 samples no two order statistics reach 95%:
// then lo..hi is min..max.
struct Stats {
  double median = 0, min = 0, max = 0, spread = 0, q1 = 0, q3 = 0;
  double lo = 0, hi = 0;
  // How often [lo, hi] holds the true median: 0.95 or more from 6 samples
  // on; under that the interval is min..max, which holds it 1 - 2^(1-n) of
  // the time (75% of 3 samples).
  double level = 0;
  int n = 0;
};
Stats summarise(std::vector<double> samples);

struct Measurement {
  double median_ns = 0, min_ns = 0, max_ns = 0;  // per run
  int reps = 0;
  uint64_t iters = 0;           // runs per repetition
  std::vector<double> samples;  // per-run ns of each repetition, in the order taken
  double spread() const { return median_ns > 0 ? (max_ns - min_ns) / median_ns : 0; }
};

using Clock = std::function<uint64_t()>;  // ns, monotonic

// One piece of work: warm-up runs, then `reps` repetitions of `iters` runs,
// iters chosen so a repetition lasts at least min_seconds.
Measurement measure(const std::function<void()>& run, const Timing& t = {}, const Clock& clock = {});
Measurement measure(const std::function<void()>& run, int reps, double min_seconds);

// Several pieces of work compared with each other: each is warmed up and
// calibrated apart, then repetitions are interleaved, so a drift of the
// machine (frequency, a neighbour) falls on all of them alike. Round r
// starts at the (r mod n)th piece (A B C, B C A, C A B, ...): in a fixed
// order each piece follows the same one every round, and what that one
// leaves behind (caches, predictors) fell on it every time. A piece cut
// short by the budget leaves the rounds after its last repetition, so every
// piece's i-th sample is from round i and ratio() pairs rounds.
std::vector<Measurement> measure_interleaved(const std::vector<std::function<void()>>& runs, const Timing& t = {},
                                             const Clock& clock = {});

// The ratio a / b repetition by repetition (both from one interleaved
// measurement): its median and spread, which is what a ratio of medians hides.
Stats ratio(const Measurement& a, const Measurement& b);

// A bound checked on a ratio's median (below it when strict, else at most
// it): met or not, and told, where the median's 95% interval lies wholly on
// the verdict's side; not told, it holds the bound and the repetitions
// cannot tell a pass from a miss.
struct Verdict {
  bool met = false, told = false;
};
Verdict judge(const Stats& r, double bound, bool strict);
// How the reports (quelkit sweep's checks, the paper's targets) print what
// noise cannot decide: after a verdict not told, " (within noise: 95% CI
// lo-hi)", or the interval's own level where it is under 95% (too few
// repetitions: " (within noise: 75% CI lo-hi, 3 repetitions)"); after the
// count of misses, " (N of them within noise: ...)"; "" where there is
// nothing to mark.
std::string noise_mark(bool told, const Stats& ratio);
std::string noise_misses_note(int misses_within_noise);

uint64_t now_ns();

// The stopwatch of a statement's phases, --stats' parse, bind, plan, lookup,
// run and result (prepare is timed apart always): now_ns(), or 0 while phase timing is off on this
// thread. A statement reads it a dozen times, and a read costs as much as a
// tenth of a short statement; where the statement's whole time is what is
// measured (quelkit short's timed runs), its session turns the phases off,
// as PostgreSQL's EXPLAIN (ANALYZE, TIMING OFF) does, and they read 0.
inline thread_local bool phase_timing_on = true;
inline uint64_t phase_ns() { return phase_timing_on ? now_ns() : 0; }
// Sets phase timing on this thread for a scope, restoring it after.
class PhaseTiming {
 public:
  explicit PhaseTiming(bool on) : was_(phase_timing_on) { phase_timing_on = on; }
  ~PhaseTiming() { phase_timing_on = was_; }
  PhaseTiming(const PhaseTiming&) = delete;
  PhaseTiming& operator=(const PhaseTiming&) = delete;

 private:
  bool was_;
};

// What one now_ns() adds to an interval it ends: the median difference of
// back-to-back reads, measured once per process. Subtracted from intervals
// short enough for it to matter (auto's timed blocks of kernel calls).
uint64_t clock_read_ns();

// CPU model, logical cores, cache sizes (from /proc/cpuinfo and sysfs), kernel.
std::string machine_description();

// A measured figure as the shortest text that reads back as the same double
// (std::to_chars): the CSV files carry what the JSON beside them carries, not
// a stream's six significant digits (6.2375e+06 for 6237512).
std::string figure_text(double v);

// "±4%": half the min-max spread of n repetitions, as the reports print it;
// "" for one repetition, which has no spread (±0% there would claim a
// steadiness nothing measured).
std::string spread_text(double spread, int n);

}  // namespace quelkit::harness
