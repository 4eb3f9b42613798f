// The report's files (report_parts.h): paper.json (bench/plots/plot.py reads it)
// and paper.csv, every measured cell of both blocks.
#include <sys/stat.h>

#include <iostream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "bench/report/report_parts.h"
#include "storage/checksum.h"
#include "storage/whole_file.h"
#include "engine/measure.h"
#include "engine/version.h"

namespace quelkit::report {

using namespace harness;

namespace {

const char* kind_name(CellKind k) {
  static const char* const kKinds[] = {"backend", "sqlite", "reference", "scan", "floor", "count_scan"};
  static_assert(std::size(kKinds) == size_t(CellKind::CountScan) + 1);
  return kKinds[int(k)];
}

// A bound checked on paired ratios, after the keys that say where.
nlohmann::ordered_json check_json(nlohmann::ordered_json o, const std::string& what, double limit, const Stats& st,
                                  bool met, bool told) {
  o["ratio"] = what;
  o["limit"] = limit;
  o["median"] = st.median;
  o["q1"] = st.q1;
  o["q3"] = st.q3;
  o["pairs"] = st.n;
  o["spread"] = st.spread;
  o["ci95"] = {st.lo, st.hi};
  o["ci_level"] = st.level;
  o["met"] = met;
  o["told"] = told;
  return o;
}

// A cell's figures, after the keys that say which row it is.
void put_cell(const Cell& c, nlohmann::ordered_json per_tuple, nlohmann::ordered_json* o) {
  (*o)["backend"] = c.runner;
  (*o)["kind"] = kind_name(c.kind);
  (*o)["rows"] = c.rows;
  (*o)["checksum"] = checksum_hex(c.checksum);
  (*o)["statement_ns"] = c.m.median_ns;
  (*o)["min_ns"] = c.m.min_ns;
  (*o)["max_ns"] = c.m.max_ns;
  (*o)["per_tuple_ns"] = std::move(per_tuple);
  (*o)["prepare_ns"] = c.prepare_ns;
  (*o)["prepares"] = c.prepares;
  (*o)["cache_hits"] = c.cache_hits;
  (*o)["rows_scanned"] = c.scanned;
}

}  // namespace

bool write_files(const Measured& m, const std::string& out_dir) {
    mkdir(out_dir.c_str(), 0755);
    // Each written whole or not at all (storage/whole_file.h).
    WholeFile js_file(out_dir + "/paper.json"), csv_file(out_dir + "/paper.csv");
    if (!js_file.ok() || !csv_file.ok()) {
      std::cerr << "quelkit paper: error: " << (js_file.ok() ? csv_file : js_file).error() << "\n";
      return false;
    }
    std::ostream &js = js_file.stream(), &csv = csv_file.stream();
    // Keys in a fixed order, so runs diff line by line (bench/plots/plot.py reads it).
    nlohmann::ordered_json structures = nlohmann::ordered_json::array();
    for (Structure st : m.keyed_structures) structures.push_back(structure_name(st));
    nlohmann::ordered_json doc = {{"tool", "quelkit paper"},
                                  {"version", harness::kit_version()},
                                  {"commit", harness::kit_commit()},
                                  {"machine", machine_description()},
                                  {"build", QUELKIT_BUILD_TYPE},
                                  {"settings",
                                   {{"sizes", m.sizes},
                                    {"keyed_sizes", m.keyed_sizes},
                                    {"keyed_structures", structures},
                                    {"count_sizes", m.count_sizes},
                                    {"aggregate_sizes", m.aggregate_sizes},
                                    {"backends", m.backends},
                                    {"queries", m.queries.empty() ? "abcdefghi" : m.queries},
                                    {"sqlite", m.sqlite},
                                    {"children", m.first_prepare_children}}},
                                  {"jit_cpu", m.jit_native_cpu ? "native" : "generic"},
                                  {"reps", m.reps},
                                  {"target_reps", m.target_reps},
                                  {"target_budget_s", m.target_budget},
                                  {"min_time_s", m.min_time},
                                  {"results", nlohmann::ordered_json::array()},
                                  {"compile_levels", nlohmann::ordered_json::array()},
                                  {"first_prepare_ns", nlohmann::ordered_json::object()}};
    csv << "query,tuples,keyed,structure,backend,rows,checksum,statement_ns,min_ns,max_ns,per_tuple_ns,prepare_ns,prepares,"
           "cache_hits,rows_scanned,vax_ingres_s,vax_dcingres_s,sink,reps,spread\n";
    for (const auto* set : {&m.rows, &m.count_rows})
    for (const auto& r : *set) {
      const PaperQuerySpec* pq = nullptr;
      for (const auto& q : paper_queries())
        if (r.query == q.id) pq = &q;
      // The paper measured ISAM, and (e) keyed: not (e)'s full scan of the heap.
      auto it = r.structure == Structure::Hash || pq->keyed != r.keyed ? pq->vax.end() : pq->vax.find(r.size);
      for (const auto& c : r.cells) {
        // (a) reads no relation: no per-tuple figure (null, an empty CSV field).
        const double pt = r.reads ? c.m.median_ns / double(std::max<uint64_t>(r.size, 1)) : 0;
        // kind: a back end's cell, or a reference's (sqlite, reference, scan,
        // floor), which has no prepare, cache or scan count of the kit's: 0 there.
        nlohmann::ordered_json o = {{"query", r.query},
                                    {"tuples", r.size},
                                    {"keyed", r.keyed},
                                    {"structure", structure_name(r.structure)}};
        put_cell(c, r.reads ? nlohmann::ordered_json(pt) : nlohmann::ordered_json(), &o);
        o["sink"] = r.count ? "count" : "rows";
        o["reps"] = c.m.reps;
        o["spread"] = c.m.spread();
        if (it != pq->vax.end()) {
          o["vax_ingres_s"] = it->second.first;
          o["vax_dcingres_s"] = it->second.second;
        }
        doc["results"].push_back(std::move(o));
        csv << r.query << ',' << r.size << ',' << (r.keyed ? 1 : 0) << ',' << structure_name(r.structure) << ','
            << c.runner << ',' << c.rows << ','
            << checksum_hex(c.checksum) << ',' << figure_text(c.m.median_ns) << ',' << figure_text(c.m.min_ns) << ','
            << figure_text(c.m.max_ns) << ',' << (r.reads ? figure_text(pt) : "") << ',' << figure_text(c.prepare_ns) << ','
            << c.prepares << ',' << c.cache_hits << ',' << c.scanned << ','
            << (it != pq->vax.end() ? figure_text(it->second.first) : "") << ','
            << (it != pq->vax.end() ? figure_text(it->second.second) : "") << ',' << (r.count ? "count" : "rows")
            << ',' << c.m.reps << ',' << figure_text(c.m.spread()) << '\n';
      }
    }
    // The aggregates section (report_aggregates.cpp): its cells, then its
    // bounds checked; in the CSV as rows whose query is "agg.<id>".
    doc["aggregates"] = nlohmann::ordered_json::array();
    for (const Row& r : m.aggregate_rows)
      for (const Cell& c : r.cells) {
        const double pt = c.m.median_ns / double(std::max<uint64_t>(r.size, 1));
        nlohmann::ordered_json o = {{"statement", r.query}, {"tuples", r.size}};
        put_cell(c, pt, &o);
        o["reps"] = c.m.reps;
        o["spread"] = c.m.spread();
        doc["aggregates"].push_back(std::move(o));
        csv << "agg." << r.query << ',' << r.size << ",0,heap," << c.runner << ',' << c.rows << ','
            << checksum_hex(c.checksum) << ',' << figure_text(c.m.median_ns) << ',' << figure_text(c.m.min_ns) << ','
            << figure_text(c.m.max_ns) << ',' << figure_text(pt) << ',' << figure_text(c.prepare_ns) << ','
            << c.prepares << ',' << c.cache_hits << ',' << c.scanned << ",,,"
            << (c.kind == CellKind::CountScan ? "count" : "rows") << ',' << c.m.reps << ','
            << figure_text(c.m.spread()) << '\n';
      }
    doc["aggregate_bounds"] = nlohmann::ordered_json::array();
    for (const AggregateCheck& t : check_aggregates(m))
      doc["aggregate_bounds"].push_back(
          check_json({{"statement", t.id}, {"tuples", t.size}}, t.what, t.limit, t.stats, t.met, t.told));
    for (const auto& [label, ns] : m.first_prepare_ns) doc["first_prepare_ns"][label] = ns;
    // The ratio rows under each table (report_tables.cpp), each the median of
    // the per-repetition ratios of two interleaved cells: not to be had from
    // the medians above. Null where a cell is missing.
    doc["ratios"] = nlohmann::ordered_json::array();
    for (const Row& r : m.rows) {
      auto ratio = [](const Cell* a, const Cell* b) -> nlohmann::ordered_json {
        if (!a || !b) return nullptr;
        const Stats s = harness::ratio(a->m, b->m);
        return {{"median", s.median}, {"q1", s.q1}, {"q3", s.q3}, {"spread", s.spread}, {"pairs", s.n}};
      };
      const Cell *best = r.best(), *floor = r.find(CellKind::Floor), *ref = r.find(CellKind::Reference);
      doc["ratios"].push_back({{"query", r.query},
                               {"tuples", r.size},
                               {"structure", structure_name(r.structure)},
                               {"best", best ? nlohmann::ordered_json(best->runner) : nlohmann::ordered_json(nullptr)},
                               {"floor_gbs", r.floor_gbs},
                               {"best_over_floor", ratio(best, floor)},
                               {"reference_over_floor", ratio(ref, floor)},
                               {"scan_over_floor", ratio(r.find(CellKind::Scan), floor)},
                               {"best_over_reference", ratio(best, ref)}});
    }
    doc["ranking"] = nlohmann::ordered_json::array();  // the ranking block (report_ranking.cpp)
    for (const Ranking& k : rankings(m)) {
      nlohmann::ordered_json order = nlohmann::ordered_json::array();
      for (const Ranked& e : k.order)
        order.push_back({{"backend", e.runner}, {"statement_ns", e.median_ns}, {"ratio", e.ratio}, {"tied", e.tied}});
      doc["ranking"].push_back({{"query", k.query},
                                {"tuples", k.size},
                                {"structure", structure_name(k.structure)},
                                {"order", std::move(order)}});
    }
    doc["targets"] = nlohmann::ordered_json::array();  // the targets block's checks (report_targets.cpp)
    for (const TargetCheck& t : check_targets(m))
      doc["targets"].push_back(check_json({{"query", std::string(1, t.query)}, {"tuples", t.size}}, t.what, t.limit,
                                          t.stats, t.met, t.told));
    doc["targets_left_out"] = nlohmann::ordered_json::array();  // bounds not checked, and why
    for (const TargetLeftOut& l : left_out_targets(m))
      doc["targets_left_out"].push_back({{"ratio", l.what},
                                         {"queries", l.queries},
                                         {"min_tuples", l.min_size},
                                         {"limit", l.limit},
                                         {"reason", l.reason}});
    for (const LevelCost& l : m.levels)
      doc["compile_levels"].push_back({{"backend", l.runner},
                                       {"level", l.level},
                                       {"query", std::string(1, l.query)},
                                       {"prepare_ns", l.median_ns},
                                       {"min_ns", l.min_ns},
                                       {"max_ns", l.max_ns}});
    // Invalid UTF-8 (a machine name, say) becomes U+FFFD rather than an exception.
    js << doc.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
    if (const std::string err = commit_all({&js_file, &csv_file}); !err.empty()) {
      std::cerr << "quelkit paper: error: " << err << "\n";
      return false;
    }
    std::cout << "\nwrote " << out_dir << "/paper.json and " << out_dir << "/paper.csv\n";
  return true;
}

}  // namespace quelkit::report
