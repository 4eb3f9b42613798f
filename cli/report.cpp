// The paper report (report.h). Every figure is measured by harness::measure
// (by default the median of 5 repetitions of at least 0.1 s each; --reps and
// --min-time change both). Statement time is the wall time of the statement with a warm
// plan cache (what a user pays per execution); prepare cost is measured apart
// with the cache cleared, and break-even tuple counts are computed from both.
#include "cli/report.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/reference.h"
#include "cli/backends.h"
#include "cli/sqlite_ref.h"
#include "frontend/frontend.h"
#include "harness/checksum.h"
#include "harness/measure.h"
#include "harness/parts.h"
#include "harness/session.h"

namespace quelkit {

using namespace harness;

const std::vector<PaperQuerySpec>& paper_queries() {
  static const std::vector<PaperQuerySpec> q = {
      {"a", "retrieve (a = 1)", false, {{1, {.087, .087}}, {210, {.087, .087}}, {3360, {.087, .087}}}},
      {"b", "retrieve (p.pnum)", false, {{1, {.112, .123}}, {210, {.401, .353}}, {3360, {4.73, 3.88}}}},
      {"c", "retrieve (p.pname, p.pnum) where p.pnum > 3 or p.pname = \"processor\" or p.color = \"black\"", false,
       {{1, {.195, .208}}, {210, {.823, .605}}, {3360, {10.3, 6.37}}}},
      {"d", "retrieve (p.pnum) where p.qoh < log(9.5) * p.weight", false,
       {{1, {.162, .177}}, {210, {.812, .433}}, {3360, {10.6, 4.25}}}},
      {"e", "retrieve (p.qoh) where p.pnum < 2500", true, {{3360, {8.96, 6.43}}}},
      {"f", "retrieve (p.qoh, q.qoh) where p.pnum = q.pnum", true, {{3360, {53.1, 42.4}}}},
      {"g", "retrieve (p.qoh, q.qoh) where p.pnum = q.pnum and p.color = \"black\"", true, {{3360, {13.1, 10.6}}}},
      {"h", "retrieve (p.qoh) where p.pnum = q.pnum and p.pnum < 2500", true, {{3360, {41.9, 33.1}}}},
      {"i",
       "retrieve (p.qoh, q.qoh) where p.pnum = q.pnum and p.color = \"black\" and p.qoh < log(9.5) * p.weight "
       "and q.qoh < log(9.5) * p.weight",
       true, {{3360, {14.1, 11.1}}}},
  };
  return q;
}

namespace {

struct Cell {
  std::string runner;
  bool external = false;  // sqlite / reference loop: no prepare cost, no break-even
  Measurement m;
  double prepare_ns = 0;  // median over cold preparations
  uint64_t prepares = 0, cache_hits = 0;
  uint64_t rows = 0, checksum = 0, scanned = 0;
};

struct Row {
  std::string query;
  uint64_t size = 0;
  bool keyed = false;
  Structure structure = Structure::Heap;
  std::vector<Cell> cells;
};

// "1,210,3360" replaces the default sizes; "+10000000" adds to them.
std::vector<uint64_t> parse_list(const std::string& spec, std::vector<uint64_t> v) {
  std::string s = spec;
  if (!s.empty() && s[0] == '+') s.erase(0, 1);
  else v.clear();
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ',')) {
    if (x.empty() || x.find_first_not_of("0123456789") != std::string::npos) {
      std::cerr << "quelkit paper: error: bad size '" << x << "'\n";
      std::exit(2);
    }
    if (std::find(v.begin(), v.end(), std::stoull(x)) == v.end()) v.push_back(std::stoull(x));
  }
  std::sort(v.begin(), v.end());
  return v;
}


std::string fmt(double v, int prec = 3) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(prec) << v;
  return os.str();
}

// Human units for a duration in ns.
std::string dur(double ns) {
  if (ns < 1e3) return fmt(ns, 1) + " ns";
  if (ns < 1e6) return fmt(ns / 1e3, 2) + " us";
  if (ns < 1e9) return fmt(ns / 1e6, 2) + " ms";
  return fmt(ns / 1e9, 2) + " s";
}

}  // namespace

int run_paper(const std::vector<std::string>& args, size_t i) {
  register_all_backends();
  std::vector<uint64_t> sizes = {1, 210, 3360, 100000, 1000000};
  std::vector<uint64_t> keyed = {3360, 100000};
  std::vector<Structure> keyed_structures = {Structure::Isam, Structure::Hash};
  std::string backends = "all", out_dir, only;
  int reps = 5;
  double min_time = 0.1;
  bool with_sqlite = true;
  bool jit_native_cpu = false;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto val = [&]() -> std::string {
      auto eq = a.find('=');
      if (eq != std::string::npos) return a.substr(eq + 1);
      if (i + 1 >= args.size()) {
        std::cerr << "quelkit paper: error: " << a << " needs a value\n";
        std::exit(2);
      }
      return args[++i];
    };
    std::string name = a.substr(0, a.find('='));
    if (name == "--sizes") sizes = parse_list(val(), sizes);
    else if (name == "--keyed-sizes") keyed = parse_list(val(), keyed);
    else if (name == "--keyed-structures") {
      keyed_structures.clear();
      std::stringstream ss(val());
      std::string x;
      while (std::getline(ss, x, ',')) {
        if (x == "isam") keyed_structures.push_back(Structure::Isam);
        else if (x == "hash") keyed_structures.push_back(Structure::Hash);
        else {
          std::cerr << "quelkit paper: error: --keyed-structures takes isam and/or hash, not '" << x << "'\n";
          return 2;
        }
      }
    }
    else if (name == "-b" || name == "--backend") backends = val();
    else if (name == "--out") out_dir = val();
    else if (name == "--queries") only = val();
    else if (name == "--reps") reps = std::max(1, std::atoi(val().c_str()));
    else if (name == "--min-time") min_time = std::atof(val().c_str());
    else if (a == "--no-sqlite") with_sqlite = false;
    else if (name == "--jit-cpu") {
      const std::string cpu = val();
      if (cpu != "generic" && cpu != "native") {
        std::cerr << "quelkit paper: error: --jit-cpu must be generic or native\n";
        return 2;
      }
      jit_native_cpu = cpu == "native";
    }
    else if (a == "-h" || a == "--help") {
      std::cout << "quelkit paper [--sizes 1,210,3360,100000,1000000] [--keyed-sizes 3360,100000]\n"
                   "              [--keyed-structures isam,hash] [-b all|LIST] [--queries abcdefghi]\n"
                   "              [--reps 5] [--min-time 0.1] [--out DIR] [--no-sqlite] [--jit-cpu generic|native]\n"
                   "  a size list replaces the default one; +N adds to it (--sizes +10000000: the\n"
                   "  paper's sizes and ten million tuples)\n";
      return 0;
    } else {
      std::cerr << "quelkit paper: error: unknown option " << a << "\n";
      return 2;
    }
  }
  SessionOptions so;
  try {
    so.backends = parse_backend_list(backends);
  } catch (QuelError& e) {
    std::cerr << "quelkit paper: error: " << e.err.message << "\n";
    return 2;
  }
  so.format = OutFormat::None;
  so.prepare.jit_native_cpu = jit_native_cpu;
  std::ostringstream sink_out, sink_err;

  std::cout << "quelkit paper: Stonebraker et al. 1981, Tables 1 and 2, re-run\n"
            << "machine:  " << machine_description() << "\n"
            << "build:    " << QUELKIT_BUILD_TYPE << "; each figure the median of " << reps << " repetitions of >= "
            << min_time << " s (spread = (max - min) / median)\n"
            << "JIT code: " << (jit_native_cpu ? "this machine's CPU (--jit-cpu native)" : "the generic CPU the kit is built for (--jit-cpu native: this machine's)") << "\n"
            << "per tuple = statement time / tuples in the relation; prepare = cold preparation of the\n"
            << "statement's plans (plan cache cleared), kept apart from statement time (warm cache)\n\n";

  std::vector<Row> rows;
  bool mismatch = false;
  auto run_set = [&](Structure structure, uint64_t n) {
    const bool is_keyed = structure != Structure::Heap;
    Session session(so, sink_out, sink_err);
    session.catalog().add(make_parts(n, is_keyed, structure));
    auto setup = std::make_shared<Source>("<paper>", "range of p is parts range of q is parts");
    session.run(setup);
    std::unique_ptr<SqliteRef> db = with_sqlite ? SqliteRef::open(n, is_keyed, is_keyed) : nullptr;
    for (const auto& pq : paper_queries()) {
      if (pq.keyed != is_keyed) continue;
      if (!only.empty() && only.find(pq.id) == std::string::npos) continue;
      auto src = std::make_shared<Source>(std::string("<paper ") + pq.id + ">", pq.text);
      auto stmts = frontend::parse(src);
      frontend::BoundQuery q = frontend::bind(*stmts[0], session.ranges(), session.catalog(), src);
      Row row;
      row.query = pq.id;
      row.size = n;
      row.keyed = is_keyed;
      row.structure = structure;
      for (auto& r : session.runners()) {
        Cell c;
        c.runner = r->label();
        // Cold: prepare cost (median of 5 cold runs, each one also checks the result).
        std::vector<double> prep;
        Result first;
        for (int k = 0; k < 5; ++k) {
          r->cache().clear();
          Result res = session.evaluate(q, *r, src, false);
          if (!res.ok) {
            std::cerr << "quelkit paper: (" << pq.id << ") failed on " << r->label() << ": " << res.error.format()
                      << "\n";
            std::exit(1);
          }
          prep.push_back(double(res.stats.prepare_ns));
          if (k == 0) first = std::move(res);
        }
        std::sort(prep.begin(), prep.end());
        c.prepare_ns = prep[prep.size() / 2];
        c.prepares = first.stats.prepares;
        c.rows = first.nrows();
        c.checksum = first.checksum.sum;
        c.scanned = first.stats.rows_scanned;
        // Warm: the statement as a user pays for it on every execution.
        Result warm = session.evaluate(q, *r, src, false);
        c.cache_hits = warm.stats.cache_hits;
        c.m = measure([&] { session.evaluate(q, *r, src, false); }, reps, min_time);
        if (!row.cells.empty() && (c.rows != row.cells[0].rows || c.checksum != row.cells[0].checksum)) {
          std::cerr << "quelkit paper: back ends disagree on (" << pq.id << ") at " << n << ": " << row.cells[0].runner
                    << " " << row.cells[0].rows << " rows " << checksum_hex(row.cells[0].checksum) << " vs "
                    << c.runner << " " << c.rows << " rows " << checksum_hex(c.checksum) << "\n";
          mismatch = true;
        }
        row.cells.push_back(c);
      }
      if (db) {
        // SQLite on the same data, checksummed the same way: it must agree.
        Cell c;
        c.runner = "sqlite";
        c.external = true;
        std::string sql = SqliteRef::sql_for(pq.id[0]), err;
        if (!db->run(sql, &c.rows, &c.checksum, &err)) {
          std::cerr << "quelkit paper: sqlite failed on (" << pq.id << "): " << err << "\n";
          std::exit(1);
        }
        c.m = measure([&] { db->run(sql, &c.rows, &c.checksum, &err); }, reps, min_time);
        if (c.rows != row.cells[0].rows || c.checksum != row.cells[0].checksum) {
          std::cerr << "quelkit paper: sqlite disagrees on (" << pq.id << ") at " << n << ": " << c.rows << " rows "
                    << checksum_hex(c.checksum) << "\n";
          mismatch = true;
        }
        row.cells.push_back(c);
      }
      if (bench::has_reference(pq.id[0])) {
        // The hand-written loop over the same pages (bench/reference.h): the physical limit.
        Cell c;
        c.runner = "reference";
        c.external = true;
        const Relation& rel = *session.catalog().find("parts");
        bench::ReferenceResult rr;
        std::string err;
        if (!bench::run_reference(pq.id[0], rel, &rr, &err)) {
          std::cerr << "quelkit paper: reference loop failed on (" << pq.id << "): " << err << "\n";
          std::exit(1);
        }
        c.rows = rr.rows;
        c.checksum = rr.checksum;
        c.m = measure([&] { bench::run_reference(pq.id[0], rel, &rr, &err); }, reps, min_time);
        if (c.rows != row.cells[0].rows || c.checksum != row.cells[0].checksum) {
          std::cerr << "quelkit paper: the reference loop disagrees on (" << pq.id << ") at " << n << ": " << c.rows
                    << " rows " << checksum_hex(c.checksum) << "\n";
          mismatch = true;
        }
        row.cells.push_back(c);
      }
      rows.push_back(std::move(row));
    }
  };
  for (uint64_t n : sizes) run_set(Structure::Heap, n);
  for (Structure st : keyed_structures)
    for (uint64_t n : keyed) run_set(st, n);
  if (rows.empty()) {
    std::cerr << "quelkit paper: nothing to run\n";
    return 2;
  }

  const auto& labels = rows[0].cells;
  // One block per query: sizes across, back ends down, so the report stays
  // readable however many back ends are built. Statement time with the
  // improvement over the first back end, as the paper reports it; then cost per tuple.
  auto print_table = [&](Structure structure) {
    const bool is_keyed = structure != Structure::Heap;
    if (std::none_of(rows.begin(), rows.end(), [&](const Row& r) { return r.structure == structure; })) return;
    std::cout << (structure == Structure::Heap ? "Table 1: queries (a)-(d), PARTS heap (34-byte tuples)\n"
                  : structure == Structure::Isam
                      ? "Table 2: keyed queries (e)-(i), wide PARTS (200-byte tuples), ISAM on pnum (the paper's)\n"
                      : "Table 2, hashed: keyed queries (e)-(i), wide PARTS (200-byte tuples), hash on pnum\n"
                        "(the paper measured ISAM: its VAX columns are shown beside ISAM only)\n");
    for (const auto& pq : paper_queries()) {
      if (pq.keyed != is_keyed) continue;
      std::vector<const Row*> qs;
      for (const auto& r : rows)
        if (r.query == pq.id && r.structure == structure) qs.push_back(&r);
      if (qs.empty()) continue;
      std::cout << "\n(" << pq.id << ") " << pq.text << "\n";
      auto head = [&](const char* what) {
        std::cout << "  " << std::left << std::setw(18) << what << std::right;
        for (const Row* r : qs) std::cout << " |" << std::setw(17) << (std::to_string(r->size) + " tuples");
        std::cout << "\n";
      };
      head("statement");
      std::cout << "  " << std::left << std::setw(18) << "rows" << std::right;
      for (const Row* r : qs) std::cout << " |" << std::setw(17) << r->cells[0].rows;
      std::cout << "\n";
      for (int which = 0; which < (structure == Structure::Hash ? 0 : 2); ++which) {
        std::cout << "  " << std::left << std::setw(18) << (which ? "VAX DC-INGRES" : "VAX INGRES") << std::right;
        for (const Row* r : qs) {
          auto it = pq.vax.find(r->size);
          std::string cell;
          if (it != pq.vax.end()) {
            double v = which ? it->second.second : it->second.first;
            cell = fmt(v) + " s";
            if (which)
              cell += " " + fmt(100 * (it->second.first - it->second.second) / it->second.second, 0) + "%";
          }
          std::cout << " |" << std::setw(17) << cell;
        }
        std::cout << "\n";
      }
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
      head("per tuple");
      for (size_t k = 0; k < qs[0]->cells.size(); ++k) {
        std::cout << "  " << std::left << std::setw(18) << qs[0]->cells[k].runner << std::right;
        for (const Row* r : qs) {
          const Cell& c = r->cells[k];
          double spread = c.m.median_ns > 0 ? 100 * (c.m.max_ns - c.m.min_ns) / c.m.median_ns : 0;
          std::cout << " |" << std::setw(10) << dur(c.m.median_ns / double(std::max<uint64_t>(r->size, 1)))
                    << std::setw(6) << ("±" + fmt(spread / 2, 0)) << "%";
        }
        std::cout << "\n";
      }
    }
    std::cout << "\n(VAX: the paper's CPU seconds on a VAX 11/780, its improvement (INGRES - DC) / DC; ours:"
                 " median statement time, improvement (first - this) / this relative to "
              << labels[0].runner << "; ± = half the min-max spread of the repetitions)\n\n";
  };
  print_table(Structure::Heap);
  for (Structure st : keyed_structures) print_table(st);

  // Prepare cost and break-even, from (c) and (d) at the largest heap size measured.
  // Break-even = (prepare_x - prepare_base) / (per-tuple_base - per-tuple_x)
  // (DESIGN.md), from (c) and (d) at the largest heap size measured, against
  // the interpreter (the first back end) and against the threaded back end.
  std::cout << "Prepare cost (cold, median of 5) and break-even tuple counts\n";
  for (const char* qid : {"c", "d"}) {
    const Row* best = nullptr;
    for (const auto& r : rows)
      if (r.query == qid && !r.keyed && (!best || r.size > best->size)) best = &r;
    if (!best) continue;
    const double n = double(std::max<uint64_t>(best->size, 1));
    std::vector<const Cell*> bases = {&best->cells[0]};
    for (const auto& c : best->cells)
      if (c.runner.rfind("threaded:", 0) == 0) {
        bases.push_back(&c);
        break;
      }
    std::cout << "  (" << qid << ") at " << best->size << " tuples:" << std::string(17, ' ');
    for (const Cell* b : bases) std::cout << std::setw(22) << ("vs " + b->runner);
    std::cout << "\n";
    for (const auto& c : best->cells) {
      if (c.external) continue;
      std::cout << "    " << std::left << std::setw(16) << c.runner << std::right << " prepare " << std::setw(9)
                << dur(c.prepare_ns) << "  per tuple " << std::setw(9) << dur(c.m.median_ns / n);
      for (const Cell* b : bases) {
        std::string be;
        if (&c == b) {
          be = "-";
        } else {
          double dp = c.prepare_ns - b->prepare_ns, dt = (b->m.median_ns - c.m.median_ns) / n;
          be = dt > 0 ? fmt(std::max(0.0, dp / dt), 0) + " tuples" : "never";
        }
        std::cout << std::setw(22) << be;
      }
      std::cout << "\n";
    }
  }
  std::cout << "  (the paper: break-even about ten records, compile overhead about .012 s on the VAX;"
               " never = not faster per tuple)\n\n";

  // Compile cost by optimisation level, for back ends that compile (whose
  // prepare reports code-generation time): cold prepares of (c) and (d).
  struct LevelCost {
    std::string runner;
    int level;
    char query;
    double median_ns, min_ns, max_ns;
  };
  std::vector<LevelCost> levels;
  {
    std::vector<std::pair<std::string, std::string>> compiling;
    for (const auto& b : so.backends) {
      SessionOptions lo = so;
      lo.backends = {b};
      Session probe(lo, sink_out, sink_err);
      probe.catalog().add(make_parts(1, false, Structure::Heap));
      probe.run(std::make_shared<Source>("<probe>", "range of p is parts"));
      auto src = std::make_shared<Source>("<probe d>", paper_queries()[3].text);
      auto stmts = frontend::parse(src);
      auto q = frontend::bind(*stmts[0], probe.ranges(), probe.catalog(), src);
      Result r = probe.evaluate(q, *probe.runners()[0], src, false);
      if (r.ok && r.stats.codegen_ns > 0) compiling.push_back(b);
    }
    if (!compiling.empty()) {
      std::cout << "Compile cost by --jit-opt level (cold prepare, median of 9, [min - max])\n";
      std::cout << "  " << std::left << std::setw(16) << "back end" << std::right;
      for (int l = 0; l <= 3; ++l) std::cout << std::setw(34) << ("level " + std::to_string(l));
      std::cout << "\n";
    }
    for (const auto& b : compiling) {
      for (char qc : {'c', 'd'}) {
        std::cout << "  " << std::left << std::setw(16) << (b.first + ":" + b.second + " (" + qc + ")") << std::right;
        for (int l = 0; l <= 3; ++l) {
          SessionOptions lo = so;
          lo.backends = {b};
          lo.prepare.jit_opt = l;
          Session s(lo, sink_out, sink_err);
          s.catalog().add(make_parts(1, false, Structure::Heap));
          s.run(std::make_shared<Source>("<levels>", "range of p is parts"));
          auto src = std::make_shared<Source>("<levels>", paper_queries()[size_t(qc - 'a')].text);
          auto stmts = frontend::parse(src);
          auto q = frontend::bind(*stmts[0], s.ranges(), s.catalog(), src);
          std::vector<double> t;
          for (int k = 0; k < 9; ++k) {
            s.runners()[0]->cache().clear();
            t.push_back(double(s.evaluate(q, *s.runners()[0], src, false).stats.prepare_ns));
          }
          std::sort(t.begin(), t.end());
          levels.push_back({b.first + ":" + b.second, l, qc, t[t.size() / 2], t.front(), t.back()});
          std::cout << std::setw(34)
                    << (dur(t[t.size() / 2]) + " [" + dur(t.front()) + " - " + dur(t.back()) + "]");
        }
        std::cout << "\n";
      }
    }
    if (!compiling.empty()) std::cout << "\n";
  }

  if (!out_dir.empty()) {
    mkdir(out_dir.c_str(), 0755);
    std::ofstream js(out_dir + "/paper.json"), csv(out_dir + "/paper.csv");
    if (!js || !csv) {
      std::cerr << "quelkit paper: error: cannot write into " << out_dir << "\n";
      return 1;
    }
    // Keys in a fixed order, so runs diff line by line (bench/plot.py reads it).
    nlohmann::ordered_json doc = {{"machine", machine_description()},
                                  {"build", QUELKIT_BUILD_TYPE},
                                  {"jit_cpu", jit_native_cpu ? "native" : "generic"},
                                  {"reps", reps},
                                  {"min_time_s", min_time},
                                  {"results", nlohmann::ordered_json::array()},
                                  {"compile_levels", nlohmann::ordered_json::array()}};
    csv << "query,tuples,keyed,structure,backend,rows,checksum,statement_ns,min_ns,max_ns,per_tuple_ns,prepare_ns,prepares,"
           "cache_hits,rows_scanned,vax_ingres_s,vax_dcingres_s\n";
    for (const auto& r : rows) {
      const PaperQuerySpec* pq = nullptr;
      for (const auto& q : paper_queries())
        if (r.query == q.id) pq = &q;
      auto it = r.structure == Structure::Hash ? pq->vax.end() : pq->vax.find(r.size);
      for (const auto& c : r.cells) {
        double pt = c.m.median_ns / double(std::max<uint64_t>(r.size, 1));
        nlohmann::ordered_json o = {{"query", r.query},
                                    {"tuples", r.size},
                                    {"keyed", r.keyed},
                                    {"structure", structure_name(r.structure)},
                                    {"backend", c.runner},
                                    {"rows", c.rows},
                                    {"checksum", checksum_hex(c.checksum)},
                                    {"statement_ns", c.m.median_ns},
                                    {"min_ns", c.m.min_ns},
                                    {"max_ns", c.m.max_ns},
                                    {"per_tuple_ns", pt},
                                    {"prepare_ns", c.prepare_ns},
                                    {"prepares", c.prepares},
                                    {"cache_hits", c.cache_hits},
                                    {"rows_scanned", c.scanned}};
        if (it != pq->vax.end()) {
          o["vax_ingres_s"] = it->second.first;
          o["vax_dcingres_s"] = it->second.second;
        }
        doc["results"].push_back(std::move(o));
        csv << r.query << ',' << r.size << ',' << (r.keyed ? 1 : 0) << ',' << structure_name(r.structure) << ','
            << c.runner << ',' << c.rows << ','
            << checksum_hex(c.checksum) << ',' << c.m.median_ns << ',' << c.m.min_ns << ',' << c.m.max_ns << ',' << pt
            << ',' << c.prepare_ns << ',' << c.prepares << ',' << c.cache_hits << ',' << c.scanned << ','
            << (it != pq->vax.end() ? fmt(it->second.first) : "") << ','
            << (it != pq->vax.end() ? fmt(it->second.second) : "") << '\n';
      }
    }
    for (const LevelCost& l : levels)
      doc["compile_levels"].push_back({{"backend", l.runner},
                                       {"level", l.level},
                                       {"query", std::string(1, l.query)},
                                       {"prepare_ns", l.median_ns},
                                       {"min_ns", l.min_ns},
                                       {"max_ns", l.max_ns}});
    // Invalid UTF-8 (a machine name, say) becomes U+FFFD rather than an exception.
    js << doc.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
    std::cout << "\nwrote " << out_dir << "/paper.json and " << out_dir << "/paper.csv\n";
  }
  return mismatch ? 1 : 0;
}

}  // namespace quelkit
