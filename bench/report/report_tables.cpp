// The report's tables (report_parts.h): Tables 1 and 2 of the paper, one block
// per query, sizes across and cells down, with the floor ratios under each;
// and the count block, the same queries with --sink count.
#include <algorithm>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "bench/report/report_parts.h"

namespace quelkit::report {

using harness::Structure;

std::string fmt(double v, int prec) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(prec) << v;
  return os.str();
}

std::string dur(double ns) {
  if (ns < 1e3) return fmt(ns, 1) + " ns";
  if (ns < 1e6) return fmt(ns / 1e3, 2) + " us";
  if (ns < 1e9) return fmt(ns / 1e6, 2) + " ms";
  return fmt(ns / 1e9, 2) + " s";
}

std::string ratio_cell(const Cell* a, const Cell* b) {
  if (!a || !b) return "n/a";
  harness::Stats r = harness::ratio(a->m, b->m);
  if (r.n == 0) return "";
  const std::string spread = harness::spread_text(r.spread, r.n);
  return fmt(r.median, 2) + "x" + (spread.empty() ? "" : " " + spread);
}

void line(const std::string& what, const std::vector<const Row*>& qs, const std::function<std::string(const Row&)>& f,
          int width) {
  std::cout << "  " << std::left << std::setw(width) << what << std::right;
  for (const Row* r : qs) std::cout << " |" << std::setw(17) << f(*r);
  std::cout << "\n";
}

namespace {

// Per-tuple times of every cell, then the ratios to the floor; none for a
// statement that reads no relation ((a)).
void per_tuple_block(const std::vector<const Row*>& qs) {
  if (!qs[0]->reads) {
    std::cout << "  (reads no relation: no per-tuple figure, scan or floor; each run is the whole statement from its\n"
                 "  text: quelkit's lex, parse, bind, plan, plan-cache lookup and run, SQLite's\n"
                 "  sqlite3_prepare_v2, step and finalize)\n";
    return;
  }
  line("per tuple", qs, [](const Row& r) { return std::to_string(r.size) + " tuples"; });
  for (size_t k = 0; k < qs[0]->cells.size(); ++k) {
    std::cout << "  " << std::left << std::setw(18) << qs[0]->cells[k].runner << std::right;
    for (const Row* r : qs) {
      const Cell& c = r->cells[k];
      std::cout << " |" << std::setw(10) << dur(c.m.median_ns / double(std::max<uint64_t>(r->size, 1)))
                << std::setw(7) << harness::spread_text(c.m.spread(), c.m.reps);
    }
    std::cout << "\n";
  }
  if (!qs[0]->find(CellKind::Floor)) return;
  line("floor GB/s", qs, [](const Row& r) { return fmt(r.floor_gbs, 2); });
  line("best", qs, [](const Row& r) { return r.best() ? r.best()->runner : ""; });
  line("best / floor", qs, [](const Row& r) { return ratio_cell(r.best(), r.find(CellKind::Floor)); });
  line("reference / floor", qs,
       [](const Row& r) { return ratio_cell(r.find(CellKind::Reference), r.find(CellKind::Floor)); });
  line("scan / floor", qs, [](const Row& r) { return ratio_cell(r.find(CellKind::Scan), r.find(CellKind::Floor)); });
  line("best / reference", qs,
       [](const Row& r) { return ratio_cell(r.best(), r.find(CellKind::Reference)); });
}

}  // namespace

void print_table(const Measured& m, Structure structure) {
  const bool is_keyed = structure != Structure::Heap;
  if (std::none_of(m.rows.begin(), m.rows.end(), [&](const Row& r) { return r.structure == structure; })) return;
  std::cout << (structure == Structure::Heap ? "Table 1: queries (a)-(d), PARTS heap (34-byte tuples); (e) as a full scan\n"
                : structure == Structure::Isam
                    ? "Table 2: keyed queries (e)-(i), wide PARTS (200-byte tuples), ISAM on pnum (the paper's)\n"
                    : "Table 2, hashed: keyed queries (e)-(i), wide PARTS (200-byte tuples), hash on pnum\n"
                      "(the paper measured ISAM: its VAX columns are shown beside ISAM only)\n");
  const std::string first = m.rows[0].cells[0].runner;
  for (const auto& pq : paper_queries()) {
    std::vector<const Row*> qs;
    for (const auto& r : m.rows)
      if (r.query == pq.id && r.structure == structure) qs.push_back(&r);
    if (qs.empty()) continue;
    std::cout << "\n(" << pq.id << ") " << pq.text << "\n";
    line("statement", qs, [](const Row& r) { return std::to_string(r.size) + " tuples"; });
    line("rows", qs, [](const Row& r) { return std::to_string(r.cells[0].rows); });
    // The paper measured ISAM, and (e) keyed: not (e)'s full scan of the heap.
    for (int which = 0; which < (structure == Structure::Hash || pq.keyed != is_keyed ? 0 : 2); ++which)
      line(which ? "VAX DC-INGRES" : "VAX INGRES", qs, [&](const Row& r) -> std::string {
        auto it = pq.vax.find(r.size);
        if (it == pq.vax.end()) return "";
        double v = which ? it->second.second : it->second.first;
        std::string cell = fmt(v) + " s";
        if (which) cell += " " + fmt(100 * (it->second.first - it->second.second) / it->second.second, 0) + "%";
        return cell;
      });
    for (size_t k = 0; k < qs[0]->cells.size(); ++k) {
      std::cout << "  " << std::left << std::setw(18) << qs[0]->cells[k].runner << std::right;
      for (const Row* r : qs) {
        const Cell& c = r->cells[k];
        std::string cell = dur(c.m.median_ns);
        if (k) cell += " " + fmt(100 * (r->cells[0].m.median_ns - c.m.median_ns) / c.m.median_ns, 0) + "%";
        std::cout << " |" << std::setw(17) << cell;
      }
      std::cout << "\n";
    }
    per_tuple_block(qs);
  }
  std::cout << "\n(VAX: the paper's CPU seconds on a VAX 11/780, its improvement (INGRES - DC) / DC; ours:"
               " median statement time, improvement (first - this) / this relative to "
            << first << "; ± = half the min-max spread of the repetitions, of a ratio: of the ratios of"
               " interleaved repetitions; none from one repetition)\n\n";
}

void print_count_block(const Measured& m) {
  if (m.count_rows.empty()) return;
  std::cout << "Count block: --sink count (the qualification alone: no targets evaluated, no rows stored),\n"
               "narrow PARTS heap, (e) as a full scan; the figure to set beside another engine's count(*)\n";
  for (const char* id : {"b", "c", "d", "e"}) {
    std::vector<const Row*> qs;
    for (const auto& r : m.count_rows)
      if (r.query == id) qs.push_back(&r);
    if (qs.empty()) continue;
    std::cout << "\n(" << id << ") " << paper_query(id[0])->text << "\n";
    line("qualifying", qs, [](const Row& r) { return std::to_string(r.cells[0].rows); });
    per_tuple_block(qs);
  }
  std::cout << "\n";
}

}  // namespace quelkit::report
