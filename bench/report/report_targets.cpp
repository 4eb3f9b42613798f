// The report's targets block (report_parts.h): how close the evaluators come
// to the hand-written reference loop and to the streaming floor, and the
// vectorized back end to the compiled and threaded ones, each checked against
// the bound docs/DESIGN.md sets ("The kit's targets"). Each figure is the
// median of the ratios of repetitions taken side by side in one interleaved
// measurement (harness::ratio), as every ratio of the tables is, printed with
// half its spread, so that a reader sees how far a verdict is from its line,
// and marked where the median's interval (95%, less under 6 pairs) holds the bound.
// A bound the run could not check is named with the reason (a back end not
// built or not asked for, queries or sizes left out), so that a short list of
// checks does not read as every target met.
#include <algorithm>
#include <iomanip>
#include <iostream>

#include "bench/report/report_parts.h"
#include "engine/backend.h"
#include "engine/measure.h"

namespace quelkit::report {

namespace {

// One bound: on each of `queries` (Table 1, PARTS heap, (e) as a full scan)
// at every size of at least min_size tuples, num / den <= limit. num and den
// are a back end's label, or "best" (the fastest back end by median),
// "reference", "floor" or "sqlite".
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
    // (a) as a whole statement from its text against SQLite's SELECT 1
    // prepared, stepped and finalized from its text (issue 68).
    {"a", 1000000, "best", "sqlite", 2.0},
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
  if (what == "sqlite") return r.find(CellKind::Sqlite);
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

std::vector<TargetLeftOut> left_out_targets(const Measured& m) {
  const std::vector<TargetCheck> checks = check_targets(m);
  std::vector<TargetLeftOut> out;
  for (const Target& t : kTargets) {
    const std::string what = std::string(t.num) + " / " + t.den;
    // Checked on at least one query and size: not left out.
    if (std::any_of(checks.begin(), checks.end(),
                    [&](const TargetCheck& c) { return c.what.rfind(what, 0) == 0 && c.limit == t.limit &&
                                                       std::string(t.queries).find(c.query) != std::string::npos &&
                                                       c.size >= t.min_size; }))
      continue;
    TargetLeftOut l;
    l.what = what;
    l.queries = t.queries;
    l.min_size = t.min_size;
    l.limit = t.limit;
    // The first reason that holds, the back ends first: a run asked for the
    // sizes may still lack the back end, and that is what a reader must hear.
    for (const char* side : {t.num, t.den}) {
      const std::string label = side;
      if (label == "sqlite" && !m.sqlite && l.reason.empty()) l.reason = "--no-sqlite leaves out SQLite";
      if (label == "best" || label == "reference" || label == "floor" || label == "sqlite" || !l.reason.empty())
        continue;
      if (std::find(m.backends.begin(), m.backends.end(), label) != m.backends.end()) continue;
      const std::string name = label.substr(0, label.find(':'));
      l.reason = label + (harness::find_backend(name) ? " is not in this run's back ends (-b)"
                                                      : " is not built (its back end is not in this quelkit)");
    }
    if (l.reason.empty() && !m.queries.empty() &&
        std::none_of(l.queries.begin(), l.queries.end(), [&](char q) { return m.queries.find(q) != std::string::npos; }))
      l.reason = "--queries " + m.queries + " leaves out its queries";
    if (l.reason.empty() && std::none_of(m.sizes.begin(), m.sizes.end(), [&](uint64_t n) { return n >= t.min_size; }))
      l.reason = "no --sizes of " + std::to_string(t.min_size) + " tuples or more";
    if (l.reason.empty()) l.reason = "not measured in this run";  // e.g. a figure with no repetitions
    out.push_back(std::move(l));
  }
  return out;
}

namespace {

// The bounds left out, one line each (after the checks, or alone).
void print_left_out(const Measured& m) {
  const std::vector<TargetLeftOut> left = left_out_targets(m);
  if (left.empty()) return;
  std::cout << "Targets left out (" << left.size() << " of " << std::size(kTargets) << "), and why:\n";
  for (const TargetLeftOut& l : left)
    std::cout << "  " << std::left << std::setw(6) << ("(" + l.queries + ")") << std::right << " >= " << std::setw(8)
              << l.min_size << "  " << std::left << std::setw(36) << (l.what + " <= " + fmt(l.limit, 1)) << std::right
              << "  " << l.reason << "\n";
}

}  // namespace

void print_targets(const Measured& m) {
  const std::vector<TargetCheck> checks = check_targets(m);
  if (checks.empty()) {
    // Said, so that a short run does not read as one with no targets.
    std::cout << "Targets (docs/DESIGN.md, \"The kit's targets\"): none checked in this run: they are on Table 1's\n"
                 "heap, (b)-(e), at 1M tuples and more, between the back ends, reference loop and floor they name\n";
    print_left_out(m);
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
  print_left_out(m);
}

}  // namespace quelkit::report
