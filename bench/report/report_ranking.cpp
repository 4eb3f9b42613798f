// The report's ranking of the back ends (report_parts.h, rank_backends): for
// each of the paper's queries, the back ends in order of median statement
// time, each with its ratio to the first, and a mark where this run cannot
// tell a back end from the one ranked just before it. Which back end is
// faster is what a reader takes from the report first; the per-tuple table
// lists back ends in registration order, so the order had to be read off
// fourteen columns of figures.
#include <algorithm>
#include <iomanip>
#include <iostream>

#include "bench/report/report_parts.h"

namespace quelkit::report {

namespace {

// The rows ranked: Table 1's heap at the targets' sizes (where the report
// takes its --target-reps), Table 2's keyed relations at their largest size.
std::vector<const Row*> ranked_rows(const Measured& m) {
  std::vector<const Row*> out;
  std::map<harness::Structure, uint64_t> largest_keyed;
  for (const Row& r : m.rows)
    if (r.structure != harness::Structure::Heap)
      largest_keyed[r.structure] = std::max(largest_keyed[r.structure], r.size);
  for (const Row& r : m.rows) {
    const bool heap = r.structure == harness::Structure::Heap;
    if (heap ? r.size >= kTargetSizes : r.size == largest_keyed[r.structure]) out.push_back(&r);
  }
  return out;
}

}  // namespace

Ranking rank_backends(const Row& r) {
  Ranking k;
  k.query = r.query;
  k.size = r.size;
  k.structure = r.structure;
  std::vector<const Cell*> cells;
  for (const Cell& c : r.cells)
    if (!c.external() && c.m.median_ns > 0) cells.push_back(&c);
  std::stable_sort(cells.begin(), cells.end(),
                   [](const Cell* a, const Cell* b) { return a->m.median_ns < b->m.median_ns; });
  for (size_t i = 0; i < cells.size(); ++i) {
    Ranked e;
    e.runner = cells[i]->runner;
    e.median_ns = cells[i]->m.median_ns;
    e.ratio = e.median_ns / cells[0]->m.median_ns;
    k.scans = k.scans || cells[i]->scanned > 0;
    if (i > 0) {
      // Paired with the one before: in at least a quarter of the rounds this
      // one was the faster, so this run does not tell the two apart.
      const harness::Stats s = harness::ratio(cells[i]->m, cells[i - 1]->m);
      e.tied = s.n > 0 && s.q1 <= 1.0;
    }
    k.order.push_back(std::move(e));
  }
  return k;
}

std::vector<Ranking> rankings(const Measured& m) {
  std::vector<Ranking> out;
  for (const Row* r : ranked_rows(m)) {
    Ranking k = rank_backends(*r);
    if (k.order.size() > 1) out.push_back(std::move(k));
  }
  return out;
}

void print_ranking(const Measured& m) {
  const std::vector<Ranking> all = rankings(m);
  if (all.empty()) return;
  std::cout << "Ranking of the back ends: Table 1's heap at 1M tuples and more, Table 2 at its largest size; by\n"
               "median statement time, the fastest first with its time (and per tuple where the statement reads the\n"
               "relation), each after it as a ratio to it; '=' marks one this run does not tell from the one before it\n"
               "(faster than it in a quarter of the rounds or more)\n";
  for (const Ranking& k : all) {
    const std::string head = "  (" + k.query + ") " + harness::structure_name(k.structure) + " " + std::to_string(k.size) + ": ";
    std::string line = head;
    const std::string indent(head.size(), ' ');
    for (size_t i = 0; i < k.order.size(); ++i) {
      const Ranked& e = k.order[i];
      if (i == 0) {  // the fastest: its time; the others: their ratio to it
        line += e.runner + " " + dur(e.median_ns) +
                (k.scans ? " (" + dur(e.median_ns / double(std::max<uint64_t>(k.size, 1))) + "/tuple)" : "");
        continue;
      }
      const std::string item = (e.tied ? "= " : "") + e.runner + " " + fmt(e.ratio, 2) + "x";
      if (line.size() + 2 + item.size() > 118) {
        std::cout << line << ",\n";
        line = indent + item;
      } else {
        line += ", " + item;
      }
    }
    std::cout << line << "\n";
  }
  std::cout << "\n";
}

}  // namespace quelkit::report
