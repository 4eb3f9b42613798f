// `quelkit wisconsin` (wisconsin_report.h): the options, the order of the run,
// the tables and the files. Data sets: the study's relations (onek, onek1,
// onek2 of 1,000 tuples, tenk1 and tenk2 of 10,000) on each --structure, then
// tenk1 alone at each --sizes for the selections and the aggregates. One
// table per figure, data set and figure kind (statement time, per tuple,
// prepare), back ends across; the selectivity series of Figure 2.4 as its own
// table; wisconsin.json and wisconsin.csv with --out (bench/plots/plot_wisconsin.py
// plots the series). Exit 1 when a back end or SQLite disagrees, or a
// statement's rows changed between repetitions (the state was not restored).
#include "bench/report/wisconsin_report.h"

#include <sys/stat.h>

#include <algorithm>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/measure/wisconsin_run.h"
#include "bench/report/report_parts.h"
#include "storage/checksum.h"
#include "storage/whole_file.h"
#include "engine/measure.h"
#include "engine/version.h"
#include "bench/workloads/wisconsin.h"

namespace quelkit {

using namespace harness;
using report::dur;
using report::fmt;

namespace {

struct WisconsinOptions {
  std::string sizes = "+", structures = "heap,isam", backends = "all", figures, out_dir, jit_cpu = "generic";
  std::string memory_budget;
  std::string scripts = QUELKIT_SOURCE_DIR "/bench/workloads/wisconsin";
  int reps = 3, large_reps = 1, cold_runs = 3;
  double min_time = 0.02;
  bool quick = false, no_sqlite = false, no_reformat = false;
};

int run_wisconsin(const WisconsinOptions& o, const CLI::App& app);

}  // namespace

cli::Run define_wisconsin(CLI::App& app, const std::vector<std::string>&) {
  auto o = std::make_shared<WisconsinOptions>();
  app.description(
      "The Wisconsin benchmark as the POSTGRES performance study ran it (its Figures 2.1, 2.4, 2.5, 2.6, from\n"
      "bench/workloads/wisconsin/*.quel) on every built back end and on SQLite: statement time, per tuple, prepare.\n"
      "The study's relations (1K, 10K tuples) on each structure, then tenk1 alone at each --sizes for the\n"
      "selections and aggregates (their constants scaled to keep their selectivity).");
  app.add_option("--sizes", o->sizes, "tenk1 sizes beyond the study's (default 100000,1000000; '' none)")
      ->check(cli::size_list(harness::kWisconsinMaxRows, "unique1 and unique2 stay unique in an i4"))
      ->type_name("[+]N,...");
  app.add_option("--structure", o->structures, "structures of the relations, keyed on unique2 (default heap,isam)")
      ->check(cli::list_of({"heap", "isam", "hash"}))
      ->type_name("heap,isam,hash");
  app.add_option("-b,--backend", o->backends, "back ends (default all)")->check(cli::backend_list())->type_name("LIST");
  app.add_option("--figures", o->figures, "scripts to run, of 2.1 2.4 2.5 2.6 agg 3.11 (default all)")
      ->check(cli::list_of({"2.1", "2.4", "2.5", "2.6", "agg", "3.11"}))
      ->type_name("LIST");
  app.add_option("--reps", o->reps, "repetitions per figure, the median reported (default 3)")
      ->check(cli::whole(1, 1000))
      ->type_name("N");
  app.add_option("--large-reps", o->large_reps, "repetitions on a tenk1 of 1,000,000 tuples and more (default 1; at most --reps)")
      ->check(cli::whole(1, 1000))
      ->type_name("N");
  app.add_option("--min-time", o->min_time, "seconds each repetition runs at least (default 0.02)")
      ->check(cli::real_above(0, 60))
      ->type_name("S");
  app.add_option("--cold-runs", o->cold_runs, "cold preparations per statement, their median the prepare (default 3)")
      ->check(cli::whole(1, 1000))
      ->type_name("N");
  app.add_flag("--quick", o->quick,
               "a check, not a measurement: the study's relations at a tenth (100 and 1,000 tuples, constants "
               "scaled alike), no larger sizes, heap only, one repetition of at least 0.001 s, one cold run (options given beside "
               "it still apply)");
  app.add_option("--scripts", o->scripts, "where the figures' scripts are (default the source tree's bench/workloads/wisconsin)")
      ->check(CLI::ExistingDirectory.description(""))
      ->type_name("DIR");
  app.add_option("--out", o->out_dir, "also write wisconsin.json and wisconsin.csv to DIR (checked before any work)")
      ->check(cli::a_name("a directory"))
      ->type_name("DIR");
  app.add_flag("--no-sqlite", o->no_sqlite, "leave out the SQLite reference");
  app.add_flag("--no-reformat", o->no_reformat,
               "joins by tuple substitution alone, as the study's INGRES figures were run before the reformat step "
               "(quelkit --no-reformat)");
  cli::add_jit_cpu_option(app, &o->jit_cpu);
  cli::add_memory_budget_option(app, &o->memory_budget);
  return [o, &app] { return run_wisconsin(*o, app); };
}

namespace {

// Figures' titles, in the report's order.
const char* figure_title(const std::string& f) {
  if (f == "2.1") return "Figure 2.1: selections into a temporary, exact matches, a copy, single-tuple updates";
  if (f == "2.4") return "Figure 2.4: the selectivity series, 10% to 90% of tenk1 into a temporary";
  if (f == "2.5") return "Figure 2.5: joins of onek1 and onek2 on unique2, all attributes into a temporary";
  if (f == "2.6") return "Figure 2.6: non-equi-joins; 10% ranges at the start, middle and end of unique2";
  if (f == "3.11") return "Figure 3.11: the whole Wisconsin benchmark, 32 queries (no index, clustered, non-clustered)";
  return "Aggregates over tenk1 (bench/workloads/wisconsin/aggregates.quel)";
}

std::string data_name(const WisconsinStmtRow& r, const WisconsinDataSet& d) {
  std::string s = std::string(structure_name(r.structure)) + (r.structure == Structure::Heap ? "" : " on unique2");
  return d.study ? s + ", onek* " + std::to_string(d.onek_rows) + " and tenk* " + std::to_string(d.tenk_rows) + " tuples"
                 : s + ", tenk1 " + std::to_string(d.tenk_rows) + " tuples (constants scaled)";
}

// `s` right-aligned in w columns ("—" is three bytes and one column).
std::string right(const std::string& s, size_t w) {
  size_t cols = 0;
  for (unsigned char ch : s) cols += (ch & 0xC0) != 0x80;
  return std::string(w > cols ? w - cols : 0, ' ') + s;
}

// The runners of a table's cells in order of first appearance; *w widened
// to the longest name's column.
std::vector<std::string> runners_of(const std::vector<const WisconsinStmtRow*>& rs, size_t* w) {
  std::vector<std::string> runners;
  for (const WisconsinStmtRow* r : rs)
    for (const auto& c : r->cells)
      if (std::find(runners.begin(), runners.end(), c.runner) == runners.end()) {
        runners.push_back(c.runner);
        *w = std::max(*w, c.runner.size() + 2);
      }
  return runners;
}

// One table: a line per statement, a column per runner (every back end, then
// SQLite where any statement of the table has SQL; "—" where one has none).
void matrix(const std::vector<const WisconsinStmtRow*>& rs, const char* what,
            const std::function<std::string(const WisconsinStmtRow&)>& lead, const char* lead_head,
            const std::function<std::string(const WisconsinStmtRow&, const WisconsinCell&)>& f) {
  size_t w = 12;
  const std::vector<std::string> runners = runners_of(rs, &w);
  std::cout << "  " << what << "\n  " << std::left << std::setw(8) << "id" << std::setw(24) << lead_head << std::right;
  for (const auto& name : runners) std::cout << right(name, w);
  std::cout << "\n";
  for (const WisconsinStmtRow* r : rs) {
    std::cout << "  " << std::left << std::setw(8) << r->id << std::setw(24) << lead(*r) << std::right;
    for (const auto& name : runners) {
      auto c = std::find_if(r->cells.begin(), r->cells.end(), [&](const WisconsinCell& x) { return x.runner == name; });
      std::cout << right(c == r->cells.end() ? "—" : f(*r, *c), w);
    }
    std::cout << "\n";
  }
}

std::string per_tuple(const WisconsinStmtRow& r, const WisconsinCell& c) {
  return r.input ? fmt(c.m.median_ns / double(r.input), 1) : "—";
}

// Issue 69's bound on the grouped count by tenk1.ten (10 groups): the best
// back end at most 25 ns an input tuple at 1M tuples and more.
void print_group_bound(const std::vector<const WisconsinStmtRow*>& rs) {
  constexpr double kBoundNs = 25;
  constexpr uint64_t kFrom = 1000000;
  for (const WisconsinStmtRow* r : rs) {
    if (r->text.find("count(tenk1.unique1 by tenk1.ten)") == std::string::npos || !r->input) continue;
    const WisconsinCell* best = nullptr;
    for (const auto& c : r->cells)
      if (!c.external() && (!best || c.m.median_ns < best->m.median_ns)) best = &c;
    if (!best) return;
    const double pt = best->m.median_ns / double(r->input);
    std::cout << "  bound: " << r->id << ", the best back end at most " << fmt(kBoundNs, 0)
              << " ns per tuple at 1M tuples and more: " << best->runner << " " << fmt(pt, 1) << " ns"
              << (r->size < kFrom ? " (not checked: below 1M tuples)" : pt <= kBoundNs ? "  ok" : "  MISSED") << "\n";
  }
}

void print_block(const std::vector<const WisconsinStmtRow*>& rs, const WisconsinDataSet& d) {
  std::cout << "\n" << figure_title(rs[0]->figure) << "; " << data_name(*rs[0], d) << "\n";
  for (const WisconsinStmtRow* r : rs) {
    std::string t = r->text.size() > 150 ? r->text.substr(0, 147) + "..." : r->text;
    std::cout << "  " << std::left << std::setw(8) << r->id << t << "\n" << std::right;
  }
  auto lead = [](const WisconsinStmtRow& r) {
    std::ostringstream s;
    s << std::left << std::setw(14) << r.kind << std::right << std::setw(9) << r.cells[0].rows;
    return s.str();
  };
  matrix(rs, "statement (median; ± half the spread)", lead, "kind              rows",
         [](const WisconsinStmtRow&, const WisconsinCell& c) {
           const std::string spread = spread_text(c.m.spread(), c.m.reps);
           return dur(c.m.median_ns) + (spread.empty() ? "" : " " + spread);
         });
  matrix(rs, "ns per input tuple", [](const WisconsinStmtRow& r) { return "input " + std::to_string(r.input); },
         "", per_tuple);
  // The statement's plans: what a back end that reuses plans prepares, the
  // fewest of any; the interpreter lowers again for every substitution
  // (its prepare column is its first lowering of each plan, docs/stats.md).
  auto plans = [](const WisconsinStmtRow& r) {
    uint64_t fewest = UINT64_MAX;
    for (const auto& c : r.cells)
      if (!c.external()) fewest = std::min<uint64_t>(fewest, c.prepares);
    return fewest == UINT64_MAX ? std::string() : std::to_string(fewest) + (fewest == 1 ? " plan" : " plans");
  };
  matrix(rs, "prepare (cold, warm process)", plans, "",
         [](const WisconsinStmtRow&, const WisconsinCell& c) { return c.external() ? "—" : dur(c.prepare_ns); });
  if (rs[0]->figure == "agg") print_group_bound(rs);
}

// The POSTGRES study's Figure 3.11: seconds on a VAX 11/780 for POSTGRES and
// University INGRES, by query (-1: the study has no figure).
struct StudySeconds {
  int query;
  double postgres, ingres;
};
constexpr StudySeconds kFigure311[] = {
    {1, 47.7, 11.8},  {2, 59.0, 21.1},  {3, 5.1, 2.3},    {4, 39.4, 13.7},  {5, 7.5, 4.5},    {6, 61.4, 26.3},
    {7, 1.2, 1.0},    {8, 5.2, 1.0},    {9, 228, 816},    {10, 234, 790},   {11, 244, 175},   {12, 266, 51},
    {13, 279, 48},    {14, 298, 96},    {15, 261, 77},    {16, 201, 55},    {17, 277, 116},   {18, 169, 64},
    {19, 55, 14},     {20, -1, 9.0},    {21, -1, 47},     {22, -1, 43},     {23, -1, 9.0},    {24, -1, 60},
    {25, -1, 44},     {26, 8.0, 0.8},   {27, 45.8, 8.3},  {28, 52.3, 7.8},  {29, 5.6, 1.2},   {30, 2.3, 0.4},
    {31, 3.8, 0.5},   {32, 58.0, 7.9}};

// Figure 3.11 as the study printed it, by query: each runner's statement time
// beside the study's POSTGRES and INGRES seconds.
void print_figure311(const std::vector<WisconsinStmtRow>& rows, const std::vector<WisconsinDataSet>& sets,
                     const std::vector<std::vector<size_t>>& rows_of) {
  for (size_t i = 0; i < sets.size(); ++i) {
    std::vector<const WisconsinStmtRow*> rs;
    for (size_t k : rows_of[i])
      if (rows[k].figure == "3.11") rs.push_back(&rows[k]);
    if (rs.empty()) continue;
    std::stable_sort(rs.begin(), rs.end(), [](const WisconsinStmtRow* a, const WisconsinStmtRow* b) {
      return std::stoi(a->id.substr(5)) < std::stoi(b->id.substr(5));
    });
    std::cout << "\nFigure 3.11 of the POSTGRES study beside this run (" << data_name(*rs[0], sets[i])
              << "): the study's seconds on a VAX 11/780\n";
    size_t w = 12;
    const std::vector<std::string> runners = runners_of(rs, &w);
    std::cout << "  " << std::left << std::setw(9) << "id" << std::setw(44) << "query" << std::right;
    for (const auto& name : runners) std::cout << right(name, w);
    std::cout << right("POSTGRES", 10) << right("INGRES", 10) << "\n";
    for (const WisconsinStmtRow* r : rs) {
      const int q = std::stoi(r->id.substr(5));
      const StudySeconds* st = nullptr;
      for (const auto& x : kFigure311)
        if (x.query == q) st = &x;
      std::cout << "  " << std::left << std::setw(9) << r->id << std::setw(44) << r->label.substr(0, 43) << std::right;
      for (const auto& name : runners) {
        auto c = std::find_if(r->cells.begin(), r->cells.end(), [&](const WisconsinCell& x) { return x.runner == name; });
        std::cout << right(c == r->cells.end() ? "—" : dur(c->m.median_ns), w);
      }
      std::cout << right(st && st->postgres >= 0 ? fmt(st->postgres, 1) + " s" : "—", 10)
                << right(st ? fmt(st->ingres, 1) + " s" : "—", 10) << "\n";
    }
  }
}

// Figure 2.4 as the study drew it: selectivity against time per tuple.
void print_series(const std::vector<WisconsinStmtRow>& rows, const std::vector<WisconsinDataSet>& sets,
                  const std::vector<std::vector<size_t>>& rows_of) {
  bool any = false;
  for (size_t i = 0; i < sets.size(); ++i) {
    std::vector<const WisconsinStmtRow*> rs;
    for (size_t k : rows_of[i])
      if (rows[k].figure == "2.4") rs.push_back(&rows[k]);
    if (rs.empty()) continue;
    if (!any) std::cout << "\nThe selectivity series (Figure 2.4): ns per tuple of tenk1 against selectivity\n";
    any = true;
    std::cout << "\n" << data_name(*rs[0], sets[i]) << "\n";
    matrix(rs, "ns per tuple", [](const WisconsinStmtRow& r) {
      return fmt(100.0 * double(r.cells[0].rows) / double(std::max<uint64_t>(r.size, 1)), 1) + "%";
    }, "selectivity", per_tuple);
  }
}

// The files say what made them: the machine, the build, and every setting
// that shapes a figure, so a run can be reproduced from its files alone.
bool write_files(const std::vector<WisconsinStmtRow>& rows, const WisconsinOptions& o, bool quick,
                 const std::vector<uint64_t>& sizes, const std::vector<Structure>& structures,
                 const SessionOptions& so) {
  mkdir(o.out_dir.c_str(), 0755);
  // Each written whole or not at all (storage/whole_file.h).
  WholeFile js_file(o.out_dir + "/wisconsin.json"), csv_file(o.out_dir + "/wisconsin.csv");
  if (!js_file.ok() || !csv_file.ok()) {
    std::cerr << "quelkit wisconsin: error: " << (js_file.ok() ? csv_file : js_file).error() << "\n";
    return false;
  }
  std::ostream &js = js_file.stream(), &csv = csv_file.stream();
  nlohmann::ordered_json backends = nlohmann::ordered_json::array(), structs = nlohmann::ordered_json::array();
  for (const auto& [name, mode] : so.backends) backends.push_back(name + ":" + mode);
  for (Structure st : structures) structs.push_back(structure_name(st));
  nlohmann::ordered_json doc = {{"tool", "quelkit wisconsin"},
                                {"version", harness::kit_version()},
                                {"commit", harness::kit_commit()},
                                {"machine", machine_description()},
                                {"build", QUELKIT_BUILD_TYPE},
                                {"quick", quick},
                                {"reps", o.reps},
                                {"min_time_s", o.min_time},
                                {"settings",
                                 {{"backends", backends},
                                  {"sqlite", !o.no_sqlite},
                                  {"reformat", !o.no_reformat},
                                  {"structures", structs},
                                  {"sizes", sizes},
                                  {"figures", o.figures.empty() ? nlohmann::ordered_json("all")
                                                                : nlohmann::ordered_json(cli::split(o.figures))},
                                  {"large_reps", o.large_reps},
                                  {"cold_runs", o.cold_runs},
                                  {"jit_cpu", o.jit_cpu}}},
                                {"results", nlohmann::ordered_json::array()}};
  csv << "figure,id,kind,tuples,structure,input,backend,rows,checksum,statement_ns,min_ns,max_ns,per_tuple_ns,"
         "prepare_ns,prepares,cache_hits,rows_scanned,timed_runs,rows_min,rows_max,spread\n";
  for (const auto& r : rows)
    for (const auto& c : r.cells) {
      // No input (an append of constants): no per-tuple figure, null and an
      // empty CSV field, as the table's dash; a 0 would read as a measurement.
      const double pt = r.input ? c.m.median_ns / double(r.input) : 0;
      const nlohmann::ordered_json pt_json = r.input ? nlohmann::ordered_json(pt) : nlohmann::ordered_json(nullptr);
      const uint64_t rmin = c.timed_runs ? c.rows_min : c.rows, rmax = c.timed_runs ? c.rows_max : c.rows;
      nlohmann::ordered_json j = {{"figure", r.figure},
                                  {"id", r.id},
                                  {"kind", r.kind},
                                  {"label", r.label},
                                  {"text", r.text},
                                  {"sql", r.sql},
                                  {"tuples", r.size},
                                  {"structure", structure_name(r.structure)},
                                  {"input", r.input},
                                  {"backend", c.runner},
                                  {"rows", c.rows},
                                  {"checksum", c.rows_only ? "" : checksum_hex(c.checksum)},
                                  {"statement_ns", c.m.median_ns},
                                  {"min_ns", c.m.min_ns},
                                  {"max_ns", c.m.max_ns},
                                  {"spread", c.m.spread()},
                                  {"per_tuple_ns", pt_json},
                                  {"prepare_ns", c.prepare_ns},
                                  {"prepares", c.prepares},
                                  {"cache_hits", c.cache_hits},
                                  {"rows_scanned", c.scanned},
                                  {"timed_runs", c.timed_runs},
                                  {"rows_min", rmin},
                                  {"rows_max", rmax}};
      doc["results"].push_back(std::move(j));
      csv << r.figure << ',' << r.id << ',' << r.kind << ',' << r.size << ',' << structure_name(r.structure) << ','
          << r.input << ',' << c.runner << ',' << c.rows << ',' << (c.rows_only ? "" : checksum_hex(c.checksum)) << ','
          << figure_text(c.m.median_ns) << ',' << figure_text(c.m.min_ns) << ',' << figure_text(c.m.max_ns) << ','
          << (r.input ? figure_text(pt) : "") << ',' << figure_text(c.prepare_ns) << ',' << c.prepares << ',' << c.cache_hits << ','
          << c.scanned << ',' << c.timed_runs << ',' << rmin << ',' << rmax << ',' << figure_text(c.m.spread()) << '\n';
    }
  js << doc.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
  if (const std::string err = commit_all({&js_file, &csv_file}); !err.empty()) {
    std::cerr << "quelkit wisconsin: error: " << err << "\n";
    return false;
  }
  std::cout << "\nwrote " << o.out_dir << "/wisconsin.json and " << o.out_dir
            << "/wisconsin.csv (python3 bench/plots/plot_wisconsin.py " << o.out_dir << ")\n";
  return true;
}

int run_wisconsin(const WisconsinOptions& opt, const CLI::App& app) {
  cli::apply_memory_budget(opt.memory_budget);  // before any size is checked against it
  cli::refuse_unread_backend_options(app, parse_backend_list(opt.backends, /*measured=*/true));
  // --quick sets what was not given beside it.
  WisconsinOptions o = opt;
  auto given = [&](const char* name) { return app.count(name) > 0; };
  if (o.quick) {
    if (!given("--sizes")) o.sizes = "";
    if (!given("--structure")) o.structures = "heap";
    if (!given("--reps")) o.reps = 1;
    if (!given("--min-time")) o.min_time = 0.001;
    if (!given("--cold-runs")) o.cold_runs = 1;
  }
  if (o.large_reps > o.reps)
    cli::usage_error("--large-reps " + std::to_string(o.large_reps) + " is more than --reps " + std::to_string(o.reps) +
                     (given("--reps") ? "" : o.quick ? " (--quick's)" : " (the default)") +
                     ": the large sizes take at most --reps repetitions");
  if (!o.out_dir.empty()) cli::require_output_dir("--out", o.out_dir);
  // --quick has no larger sizes: +N adds N to none.
  const std::vector<uint64_t> sizes =
      cli::parse_sizes(o.sizes, o.quick ? std::vector<uint64_t>{} : std::vector<uint64_t>{100000, 1000000});
  // A tenk1 the memory budget cannot hold is refused before the study's
  // measurements, not after them: the exact reservation of its heap load,
  // which comes first. (An ISAM or hash copy that then does not fit, or a
  // statement's result, fails its data set with an error below.)
  {
    const auto empty = make_wisconsin(0, Structure::Heap, SessionOptions{}.page_size, "tenk1");
    for (uint64_t n : sizes) cli::require_fits("--sizes", n, cli::heap_bytes(*empty, n));
  }
  std::vector<Structure> structures;
  for (const auto& x : cli::drop_repeats(cli::split(o.structures)))
    structures.push_back(x == "heap" ? Structure::Heap : x == "isam" ? Structure::Isam : Structure::Hash);
  if (structures.empty()) cli::usage_error("--structure: names no structure");
  std::vector<WisconsinScript> scripts;
  {
    std::vector<WisconsinScript> all;
    std::string err;
    if (!load_wisconsin_scripts(o.scripts, &all, &err)) cli::usage_error("--scripts: " + err);
    const std::vector<std::string> want = cli::split(o.figures);
    // `--figures=` is the empty value (as `--structure=` is), not "all".
    if (want.empty() && given("--figures")) cli::usage_error("--figures: names no figure");
    for (auto& s : all)
      if (want.empty() || std::find(want.begin(), want.end(), s.figure) != want.end()) scripts.push_back(std::move(s));
  }
  if (scripts.empty()) cli::usage_error("--figures: names no figure");

  SessionOptions so;
  so.backends = parse_backend_list(o.backends, /*measured=*/true);  // validated while parsing; test modes left out
  so.prepare.jit_native_cpu = o.jit_cpu == "native";
  so.runner.reformat = !o.no_reformat;
  WisconsinRunOptions ro;
  ro.timing.reps = o.reps;
  ro.timing.min_seconds = o.min_time;
  ro.cold_runs = o.cold_runs;
  ro.sqlite = !o.no_sqlite;

  std::vector<WisconsinDataSet> sets;
  for (Structure s : structures) {
    WisconsinDataSet d;
    d.structure = s;
    if (o.quick) d.onek_rows = 100, d.tenk_rows = 1000;
    sets.push_back(d);
  }
  for (uint64_t n : sizes)
    for (Structure s : structures) {
      WisconsinDataSet d;
      d.study = false;
      d.tenk_rows = n;
      d.structure = s;
      sets.push_back(d);
    }

  std::cout << "quelkit wisconsin: the Wisconsin benchmark (Bitton, DeWitt, Turbyfill 1983) as the POSTGRES study ran it\n"
            << "machine:  " << machine_description() << "\n"
            << "build:    " << QUELKIT_BUILD_TYPE << "; each figure the median of " << o.reps << " repetitions ("
            << std::min(o.reps, o.large_reps) << " at 1M tuples and more) of >= " << o.min_time
            << " s (the first run untimed), the cells of a statement interleaved (A B C, B C A, ...)"
            << (o.quick ? "; --quick: a check, not a measurement" : "") << "\n"
            << "statement = wall time of the statement with a warm plan cache (its result stored, its update applied),\n"
            << "prepare and the checksum's verification off the clock; per tuple = statement / tuples of the relations\n"
            << "it reads; prepare = cold preparation in a warm process (median of " << o.cold_runs
            << " at the study's sizes; beyond, the first run's).\n"
            << "A statement that changes the database runs once a repetition, five times as many repetitions, each on\n"
            << "the state the script gives it, put back off the clock (the changed relation copied back, the temporary\n"
            << "of `retrieve into` removed); destroy runs once, untimed. sqlite: the same tuples, an index on unique2\n"
            << "where quelkit has a key (isam or hash), its changes rolled back off the clock; a statement without\n"
            << "faithful SQL (an operator SQL lacks, sort by, an update over several variables) has no sqlite cell.\n";

  std::vector<WisconsinStmtRow> rows;
  std::vector<std::vector<size_t>> rows_of(sets.size());
  bool mismatch = false;
  for (size_t i = 0; i < sets.size(); ++i) {
    std::vector<WisconsinStmtRow> got;
    std::string err;
    // Beyond the study's relations no cold runs (the first timed run
    // prepares and checks the result: a run there is a large copy, and the
    // prepare cost, reported at the study's sizes, does not depend on the
    // relation's), and --large-reps at 1M tuples and more, so a default run
    // stays near ten minutes on two cores.
    WisconsinRunOptions rs = ro;
    if (!sets[i].study) rs.cold_runs = 0;
    if (sets[i].tenk_rows >= 1000000) rs.timing.reps = std::min(o.reps, o.large_reps);
    bool measured = false;
    try {
      measured = measure_wisconsin(so, sets[i], scripts, rs, &got, &mismatch, &err);
    } catch (QuelError& e) {  // making the data set's relations (the memory budget)
      err += "quelkit wisconsin: error: " + e.err.message + "\n";
    }
    if (!measured) {
      std::cerr << err;
      return 1;
    }
    std::cerr << err;
    for (auto& r : got) {
      // Every repetition must have seen the same state: the same rows.
      for (const auto& c : r.cells)
        if (c.timed_runs && c.rows_min != c.rows_max) {
          std::cerr << "quelkit wisconsin: " << c.runner << " on " << r.id << ": rows changed between repetitions ("
                    << c.rows_min << " to " << c.rows_max << "): the state was not restored\n";
          mismatch = true;
        }
      rows_of[i].push_back(rows.size());
      rows.push_back(std::move(r));
    }
    // Print this data set, a block per figure; the larger sets follow the study's.
    for (const auto& s : scripts) {
      std::vector<const WisconsinStmtRow*> rs;
      for (size_t k : rows_of[i])
        if (rows[k].figure == s.figure) rs.push_back(&rows[k]);
      if (!rs.empty()) print_block(rs, sets[i]);
    }
    std::cout.flush();
  }
  // The SQLite cells that exist: said once, so a missing one is not a surprise.
  size_t without = 0, statements = 0;
  for (const auto& r : rows) {
    ++statements;
    without += r.sql.empty();
  }
  print_series(rows, sets, rows_of);
  print_figure311(rows, sets, rows_of);
  if (!o.no_sqlite)
    std::cout << "\nsqlite ran " << statements - without << " of " << statements << " statements"
              << (without ? " (— for the rest, which have no faithful SQL: see bench/measure/quel_sql.h)" : "")
              << "\n";
  if (!o.out_dir.empty() && !write_files(rows, o, o.quick, sizes, structures, so)) return 1;
  return mismatch ? 1 : 0;
}

}  // namespace

}  // namespace quelkit
