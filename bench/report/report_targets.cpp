// The report's targets block (report_parts.h): how close the evaluators come
// to the hand-written reference loop and to the streaming floor, and the
// vectorized back end to the compiled and threaded ones, each checked against
// the bound docs/DESIGN.md sets ("The kit's targets"). Each figure is the
// median of the ratios of repetitions taken side by side in one interleaved
// measurement (harness::ratio), as every ratio of the tables is, printed with
// half its spread, so that a reader sees how far a verdict is from its line,
// and marked where the median's interval (95%, less under 6 pairs) holds the bound.
#include <iomanip>
#include <iostream>

#include "bench/report/report_parts.h"
#include "engine/measure.h"

namespace quelkit::report {

namespace {

// One bound: on each of `queries` (Table 1, PARTS heap, (e) as a full scan)
// at every size of at least min_size tuples, num / den <= limit. num and den
// are a back end's label, or "best" (the fastest back end by median),
// "reference" or "floor".
struct Target {
  const char* queries;
  uint64_t min_size;
  const char* num;
  const char* den;
  double limit;
};

constexpr Target kTargets[] = {
    {"bde", 1000000, "reference", "floor", 1.5},
    {"bde", 1000000, "best", "floor", 2.0},
    {"c", 1000000, "best", "floor", 3.0},
    {"bcde", 1000000, "llvm:fused", "reference", 1.2},
    {"bcde", 1000000, "gccjit:fused", "reference", 1.2},
    {"bcde", 10000000, "vector:inplace", "llvm:fused", 2.0},
    {"cd", 10000000, "vector:inplace", "threaded:goto", 0.9},
    {"d", 10000000, "best", "reference", 1.5},
};

// Every bound is checked where the report takes its --target-reps.
constexpr bool at_target_sizes() {
  for (const Target& t : kTargets)
    if (t.min_size < kTargetSizes) return false;
  return true;
}
static_assert(at_target_sizes(), "a target below kTargetSizes would be checked on --reps figures");

const Cell* cell(const Row& r, const std::string& what) {
  if (what == "best") return r.best();
  if (what == "reference") return r.find(CellKind::Reference);
  if (what == "floor") return r.find(CellKind::Floor);
  for (const Cell& c : r.cells)
    if (c.runner == what) return &c;
  return nullptr;
}

}  // namespace

std::vector<TargetCheck> check_targets(const Measured& m) {
  std::vector<TargetCheck> out;
  for (const Target& t : kTargets)
    for (const char* q = t.queries; *q; ++q)
      for (const Row& r : m.rows) {
        if (r.query != std::string(1, *q) || r.structure != harness::Structure::Heap || r.size < t.min_size) continue;
        const Cell* a = cell(r, t.num);
        const Cell* b = cell(r, t.den);
        if (!a || !b) continue;  // a back end or reference not in this run
        const harness::Stats s = harness::ratio(a->m, b->m);
        if (s.n == 0) continue;
        TargetCheck c;
        c.query = *q;
        c.size = r.size;
        c.what = std::string(t.num) + " / " + t.den;
        if (std::string(t.num) == "best") c.what += " (best: " + a->runner + ")";
        c.limit = t.limit;
        c.stats = s;
        const harness::Verdict v = harness::judge(s, t.limit, false);
        c.met = v.met;
        c.told = v.told;
        out.push_back(std::move(c));
      }
  return out;
}

void print_targets(const Measured& m) {
  const std::vector<TargetCheck> checks = check_targets(m);
  if (checks.empty()) {
    // Said, so that a short run does not read as one with no targets.
    std::cout << "Targets (docs/DESIGN.md, \"The kit's targets\"): none checked in this run: they are on Table 1's\n"
                 "heap, (b)-(e), at 1M tuples and more, between the back ends, reference loop and floor they name\n";
    return;
  }
  std::cout << "Targets (docs/DESIGN.md, \"The kit's targets\"): Table 1's heap at 1M tuples and more; each the median\n"
               "of the ratios of side-by-side repetitions, the middle half of those ratios (quartiles), and ± half\n"
               "their spread (max - min); \"within noise\" where the median's interval (order statistics: 95%, less\n"
               "under 6 pairs) holds the bound\n";
  int missed = 0, noise = 0;
  for (const TargetCheck& c : checks) {
    std::cout << "  (" << c.query << ") " << std::setw(9) << c.size << "  " << std::left << std::setw(46)
              << (c.what + " <= " + fmt(c.limit, 1)) << std::right << std::setw(7) << (fmt(c.stats.median, 2) + "x")
              << std::setw(13) << (fmt(c.stats.q1, 2) + "-" + fmt(c.stats.q3, 2)) << std::setw(7)
              << harness::spread_text(c.stats.spread, c.stats.n) << "  " << (c.met ? "ok" : "MISSED")
              << harness::noise_mark(c.told, c.stats) << "\n";
    missed += !c.met;
    noise += !c.met && !c.told;
  }
  std::cout << missed << " of " << checks.size() << " targets missed in this run" << harness::noise_misses_note(noise)
            << "\n";
}

}  // namespace quelkit::report
