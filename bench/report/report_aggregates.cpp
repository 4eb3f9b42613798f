// The report's aggregates section (report_parts.h): issue 69's six aggregate
// statements on the PARTS heap, per tuple on every back end beside SQLite,
// the scan, the floor and each back end's own count scan of the query that
// bounds it; then each back end's ratios to its count scan, to the 1976
// interpreter and to threaded code, and the section's bounds checked on
// paired repetitions, as the targets block checks its own.
#include <algorithm>
#include <iomanip>
#include <iostream>

#include "bench/measure/paper_aggregates.h"
#include "bench/report/report_parts.h"
#include "engine/measure.h"

namespace quelkit::report {

namespace {

constexpr int kLabel = 26;  // "interp:switch count (b)" and the like

const Cell* by_runner(const Row& r, const std::string& label) {
  for (const Cell& c : r.cells)
    if (c.runner == label) return &c;
  return nullptr;
}

// The fastest count scan of the row: the count block's figure for the best
// back end, measured beside the statement.
const Cell* best_count(const Row& r) {
  const Cell* b = nullptr;
  for (const Cell& c : r.cells)
    if (c.kind == CellKind::CountScan && (!b || c.m.median_ns < b->m.median_ns)) b = &c;
  return b;
}

const PaperAggregateSpec* spec_of(const std::string& id) {
  for (const auto& s : paper_aggregates())
    if (id == s.id) return &s;
  return nullptr;
}

// The compiled and vectorized back ends that must beat the 1976 interpreter
// by 3x on every statement (issue 69).
constexpr const char* kFast[] = {"llvm:fused", "gccjit:fused", "stencil:fused", "vector:inplace"};
constexpr double kOverInterp = 1.0 / 3;

}  // namespace

std::vector<AggregateCheck> check_aggregates(const Measured& m) {
  std::vector<AggregateCheck> out;
  for (const Row& r : m.aggregate_rows) {
    if (r.size < kTargetSizes) continue;
    const PaperAggregateSpec* spec = spec_of(r.query);
    auto check = [&](const Cell* a, const Cell* b, std::string what, double limit) {
      if (!a || !b) return;
      const harness::Stats s = harness::ratio(a->m, b->m);
      if (s.n == 0) return;
      AggregateCheck c;
      c.id = r.query;
      c.size = r.size;
      c.what = std::move(what);
      c.limit = limit;
      c.stats = s;
      const harness::Verdict v = harness::judge(s, limit, false);
      c.met = v.met;
      c.told = v.told;
      out.push_back(std::move(c));
    };
    const Cell *best = r.best(), *count = best_count(r);
    if (best && count)
      check(best, count, "best / best count (" + std::string(1, spec->scan_query) + ") (" + best->runner + ", " +
                             count->runner.substr(0, count->runner.find(' ')) + ")",
            spec->limit);
    for (const char* x : kFast)
      check(by_runner(r, x), by_runner(r, "interp:switch"), std::string(x) + " / interp:switch", kOverInterp);
  }
  return out;
}

void print_aggregates(const Measured& m) {
  if (m.aggregate_rows.empty()) return;
  std::cout << "Aggregates: each statement run whole on the narrow PARTS heap (its aggregates' scans, accumulation\n"
               "and groups on the statement's clock); \"X count (b)\" = back end X's own --sink count scan of (b), or\n"
               "of (d) for the sum with (d)'s qualification, measured interleaved with the statement\n";
  for (const auto& spec : paper_aggregates()) {
    std::vector<const Row*> qs;
    for (const Row& r : m.aggregate_rows)
      if (r.query == spec.id) qs.push_back(&r);
    if (qs.empty()) continue;
    std::cout << "\n[" << spec.id << "] " << spec.text << "\n";
    line("rows", qs, [](const Row& r) { return std::to_string(r.cells[0].rows); }, kLabel);
    line("per tuple", qs, [](const Row& r) { return std::to_string(r.size) + " tuples"; }, kLabel);
    for (size_t k = 0; k < qs[0]->cells.size(); ++k) {
      std::cout << "  " << std::left << std::setw(kLabel) << qs[0]->cells[k].runner << std::right;
      for (const Row* r : qs) {
        const Cell& c = r->cells[k];
        std::cout << " |" << std::setw(10) << dur(c.m.median_ns / double(std::max<uint64_t>(r->size, 1)))
                  << std::setw(7) << harness::spread_text(c.m.spread(), c.m.reps);
      }
      std::cout << "\n";
    }
    line("best", qs, [](const Row& r) { return r.best() ? r.best()->runner : ""; }, kLabel);
    line("best / best count", qs, [](const Row& r) { return ratio_cell(r.best(), best_count(r)); }, kLabel);
    line("best / floor", qs, [](const Row& r) { return ratio_cell(r.best(), r.find(CellKind::Floor)); }, kLabel);
    line("best / sqlite", qs, [](const Row& r) { return ratio_cell(r.best(), r.find(CellKind::Sqlite)); }, kLabel);
    // Each back end against its own count scan, the interpreter and threaded
    // code: what accumulating in its own code buys it.
    std::cout << "  " << std::left << std::setw(kLabel) << "each back end:" << std::right << " " << std::setw(17) << "/ own count" << "  " << std::setw(17)
              << "interp:switch /" << "  " << std::setw(17) << "/ threaded:goto" << "   (at " << qs.back()->size
              << " tuples)\n";
    const Row& last = *qs.back();
    for (const Cell& c : last.cells) {
      if (c.kind != CellKind::Backend) continue;
      std::cout << "  " << std::left << std::setw(kLabel) << c.runner << std::right << " " << std::setw(17)
                << ratio_cell(&c, by_runner(last, count_scan_label(c.runner, spec.scan_query))) << "  "
                << std::setw(17) << ratio_cell(by_runner(last, "interp:switch"), &c) << "  " << std::setw(17)
                << ratio_cell(&c, by_runner(last, "threaded:goto")) << "\n";
    }
  }
  const std::vector<AggregateCheck> checks = check_aggregates(m);
  std::cout << "\nAggregate bounds (docs/DESIGN.md, \"The kit's targets\"), at 1M tuples and more: best / best count\n"
               "scan of the bounding query, and each compiled and vectorized back end at least 3x faster than\n"
               "interp:switch (its time / interp's <= 0.33)\n";
  if (checks.empty()) std::cout << "  none checked: no size of 1M tuples or more\n";
  int missed = 0, noise = 0;
  for (const AggregateCheck& c : checks) {
    std::cout << "  " << std::left << std::setw(13) << c.id << std::right << std::setw(9) << c.size << "  "
              << std::left << std::setw(64) << (c.what + " <= " + fmt(c.limit, 2)) << std::right << std::setw(7)
              << (fmt(c.stats.median, 2) + "x") << std::setw(7) << harness::spread_text(c.stats.spread, c.stats.n)
              << "  " << (c.met ? "ok" : "MISSED") << harness::noise_mark(c.told, c.stats) << "\n";
    missed += !c.met;
    noise += !c.met && !c.told;
  }
  if (!checks.empty())
    std::cout << missed << " of " << checks.size() << " aggregate bounds missed in this run"
              << harness::noise_misses_note(noise) << "\n";
  std::cout << "\n";
}

}  // namespace quelkit::report
