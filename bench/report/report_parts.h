// The pieces of `quelkit paper` (report.h) after the measurement: what was
// measured (bench/measure/paper_run.h's rows) and the functions that print
// each block of the report and write its files, one file each.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/measure/paper_run.h"
#include "engine/session.h"

namespace quelkit::report {

struct LevelCost {
  std::string runner;
  int level;
  char query;
  double median_ns, min_ns, max_ns;
};

struct Measured {
  std::vector<Row> rows;        // the main block (--sink rows)
  std::vector<Row> count_rows;  // the count block (--sink count)
  std::vector<Row> aggregate_rows;  // the aggregates section (paper_aggregates.h), query = the spec's id
  std::vector<LevelCost> levels;
  // First-in-process prepare of (d), median over child processes, by label.
  std::map<std::string, double> first_prepare_ns;
  int first_prepare_children = 0;
  std::vector<harness::Structure> keyed_structures;
  int reps = 0, target_reps = 0;  // below kTargetSizes; at them, within target_budget s a cell
  double min_time = 0, target_budget = 0;
  bool jit_native_cpu = false;
  // What was asked for, as paper.json's settings record it.
  std::vector<uint64_t> sizes, keyed_sizes, count_sizes, aggregate_sizes;
  std::vector<std::string> backends;  // name:mode
  std::string queries;                // letters; "" = all
  bool sqlite = true;
};

std::string fmt(double v, int prec = 3);
std::string dur(double ns);  // human units for a duration in ns
// "2.31x ±4%": a ratio of two interleaved cells, its median and half its
// spread; "n/a" where the row has no such cell (no reference loop for (f)).
std::string ratio_cell(const Cell* a, const Cell* b);
// A table line: `what` (in `width` columns), then f of each row (a size) in a
// column of its own.
void line(const std::string& what, const std::vector<const Row*>& qs, const std::function<std::string(const Row&)>& f,
          int width = 18);

void print_table(const Measured& m, harness::Structure structure);
void print_count_block(const Measured& m);
// The aggregates section (report_aggregates.cpp): per-tuple times, the ratios
// to each back end's count scan and to interp:switch and threaded:goto, and
// the bounds on them, checked.
void print_aggregates(const Measured& m);
// One bound of the aggregates section checked on one statement and size:
// "best / best count (b)" or "llvm:fused / interp:switch".
struct AggregateCheck {
  std::string id;  // the statement's (paper_aggregates.h)
  uint64_t size = 0;
  std::string what;
  double limit = 0;
  harness::Stats stats;
  bool met = false, told = false;
};
std::vector<AggregateCheck> check_aggregates(const Measured& m);
// Warm-process and first-in-process prepare; break-even rows.
void print_prepare(const Measured& m);
// A back end's first-in-process prepare of (d), or -1 where not measured.
double first_prepare(const Measured& m, const std::string& label);
// Where back end x's one-off cost (prepare + statement time) crosses below
// base's on query qid's heap sizes, linearly interpolated between the two
// measured sizes around the crossing: the crossing of the report's one-off
// plot (bench/plots/plot.py). first: first-in-process prepare (measured on (d)).
struct BreakEven {
  enum Kind { At, AtMost, Never, Unknown } kind = Unknown;
  double tuples = 0;  // At: the crossing; AtMost: x is cheaper at the smallest size; Never: the largest size
};
BreakEven break_even(const Measured& m, const char* qid, const std::string& x, const std::string& base, bool first);
std::string break_even_text(const BreakEven& b);
// Whether a pays back sooner than b: at most the smallest size, then the
// earlier crossing, then never within the sizes; unknown last.
bool sooner(const BreakEven& a, const BreakEven& b);
void measure_levels(const harness::SessionOptions& so, Measured* m);
void measure_first_prepare(const harness::SessionOptions& so, int children, Measured* m);
void print_conclusions(const Measured& m, const std::string& profile_json);
// Whether --profile-json's file is `quelkit profile --json` output with a
// Table 3 to print: checked before the run, as a usage error.
bool check_profile_json(const std::string& path, std::string* why);
// The kit's targets (docs/DESIGN.md), checked on this run's figures
// (report_targets.cpp): one check per bound, query and size measured.
// kTargetSizes: the smallest size any target is checked at; the report
// measures these sizes with more repetitions (report.cpp).
constexpr uint64_t kTargetSizes = 1000000;
struct TargetCheck {
  char query = 0;
  uint64_t size = 0;
  std::string what;  // "llvm:fused / reference", "best / floor (best: llvm:fused)"
  double limit = 0;
  // The paired ratios (harness::ratio): their median, spread, quartiles,
  // the median's interval lo..hi at its level, and n, the pairs.
  harness::Stats stats;
  bool met = false;
  bool told = false;  // the interval lies wholly on met's side of the limit (harness::judge)
};
std::vector<TargetCheck> check_targets(const Measured& m);
// A bound of the targets this run could not check, and why: a back end it
// names was not built or not asked for (-b), --queries left out its queries,
// or no size reached its smallest (report_targets.cpp). One entry a bound.
struct TargetLeftOut {
  std::string what;     // "gccjit:fused / reference"
  std::string queries;  // "bcde"
  uint64_t min_size = 0;
  double limit = 0;
  std::string reason;  // "gccjit:fused is not built", "gccjit:fused is not in -b", ...
};
std::vector<TargetLeftOut> left_out_targets(const Measured& m);
// The ranking of the back ends on a row (report_ranking.cpp): by median
// statement time, each with its ratio to the fastest; tied: this run does not
// tell it from the one ranked before it (the first quartile of their paired
// ratios at or below 1).
struct Ranked {
  std::string runner;
  double median_ns = 0, ratio = 1;
  bool tied = false;
};
struct Ranking {
  std::string query;
  uint64_t size = 0;
  harness::Structure structure = harness::Structure::Heap;
  bool scans = false;  // the statement reads the relation ((a) reads none): a per-tuple figure means something
  std::vector<Ranked> order;
};
Ranking rank_backends(const Row& r);
// The rows the report ranks: Table 1's heap at kTargetSizes and more, each
// keyed structure at its largest size.
std::vector<Ranking> rankings(const Measured& m);
void print_ranking(const Measured& m);
void print_targets(const Measured& m);
bool write_files(const Measured& m, const std::string& out_dir);

}  // namespace quelkit::report
