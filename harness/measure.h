// Timing for the kit. measure() is what `quelkit paper` reports: each
// repetition runs the work in a loop for at least `min_seconds`, the per-run
// time is elapsed / iterations, and the figure is the median over `reps`
// repetitions (min and max kept as the spread). `--repeat K` does not use it
// (it times K single runs, see docs/stats.md), nor does the Google Benchmark
// suite (bench/, which has its own loop of at least 0.1 s per benchmark).
// now_ns() is the one clock every phase timer reads.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace quelkit::harness {

struct Measurement {
  double median_ns = 0, min_ns = 0, max_ns = 0;  // per run
  int reps = 0;
  uint64_t iters = 0;  // runs per repetition (last repetition)
};

Measurement measure(const std::function<void()>& run, int reps = 5, double min_seconds = 0.1);
uint64_t now_ns();

// CPU model, logical cores, cache sizes (from /proc/cpuinfo and sysfs), kernel.
std::string machine_description();

}  // namespace quelkit::harness
