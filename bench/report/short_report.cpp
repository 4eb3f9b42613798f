// `quelkit short` (short_report.h): the options, --reps runs of each workload
// per back end and per SQLite mode (the median kept), the table (µs per statement, transactions per
// second, prepares and plan-cache hits, the fixed costs per statement), the
// issue's targets as met or not met, and short.json and short.csv with --out.
// Exit 1 when an engine ends with other data than SQLite's prepared run.
#include "bench/report/short_report.h"

#include <sys/stat.h>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/measure/short_run.h"
#include "bench/report/report_parts.h"
#include "bench/workloads/short.h"
#include "engine/measure.h"
#include "engine/version.h"
#include "storage/checksum.h"
#include "storage/whole_file.h"

namespace quelkit {

using namespace harness;
using report::fmt;

namespace {

struct ShortOptions {
  std::string backends = "all", workloads = "emp,tp1", out_dir, jit_cpu = "generic";
  uint64_t emp_rows = 30000, replaces = 1000, accounts = 10000, transactions = 300;
  int reps = 5;
  int jit_opt = harness::PrepareOptions{}.jit_opt, jit_lookup_opt = harness::PrepareOptions{}.jit_lookup_opt;
  bool no_sqlite = false;
  bool no_statement_cache = false;
};

int run_short(const ShortOptions& o, const CLI::App& app);

}  // namespace

cli::Run define_short(CLI::App& app, const std::vector<std::string>&) {
  auto o = std::make_shared<ShortOptions>();
  app.description(
      "The short-statement workloads on every built back end and on SQLite, the same data in both: the Distributed\n"
      "INGRES benchmark on one site (EMP of 30,000 tuples hashed on name, 1,000 random replaces by name) and TP1 as\n"
      "the POSTGRES study defined it (branch, teller, account keyed on their ids, history; 300 transactions).\n"
      "Each statement runs from its text; µs per statement, transactions per second, prepares, fixed costs.");
  app.add_option("--workload", o->workloads, "workloads to run (default emp,tp1)")
      ->check(cli::list_of({"emp", "tp1"}))
      ->type_name("emp,tp1");
  app.add_option("--emp-rows", o->emp_rows, "tuples of emp (default 30000)")->check(cli::whole(1, 1u << 30))->type_name("N");
  app.add_option("--replaces", o->replaces, "replaces on emp (default 1000)")->check(cli::whole(1, 1u << 30))->type_name("N");
  app.add_option("--accounts", o->accounts, "tuples of account and teller, a tenth of them branch's (default 10000)")
      ->check(cli::whole(1, 1u << 30))
      ->type_name("N");
  app.add_option("--transactions", o->transactions, "TP1 transactions (default 300)")
      ->check(cli::whole(1, 1u << 30))
      ->type_name("N");
  app.add_option("--reps", o->reps, "runs of each workload per engine, the median reported (default 5)")
      ->check(cli::whole(1, 100))
      ->type_name("N");
  app.add_option("-b,--backend", o->backends, "back ends (default all)")->check(cli::backend_list())->type_name("LIST");
  app.add_option("--out", o->out_dir, "also write short.json and short.csv to DIR (checked before any work)")
      ->check(cli::a_name("a directory"))
      ->type_name("DIR");
  app.add_flag("--no-sqlite", o->no_sqlite, "leave out SQLite (and the check that the data agrees with it)");
  app.add_flag("--no-statement-cache", o->no_statement_cache,
               "lex, parse and bind every statement's text (by default a text of an earlier one's shape reuses its "
               "parse and binding, and the report says how often)");
  cli::add_jit_cpu_option(app, &o->jit_cpu);
  cli::add_jit_opt_option(app, &o->jit_opt);
  cli::add_jit_lookup_opt_option(app, &o->jit_lookup_opt);
  return [o, &app] { return run_short(*o, app); };
}

namespace {

struct Measured {
  ShortWorkload w;
  std::string title;
  std::vector<ShortCell> cells;  // the back ends in order, then sqlite:text, sqlite:prepared
  std::vector<std::string> differs;  // cells whose data is not the reference's
};

struct Target {
  std::string workload, what;
  bool met;
  std::string detail;
};

const ShortCell* find(const Measured& m, const std::string& runner) {
  for (const auto& c : m.cells)
    if (c.runner == runner) return &c;
  return nullptr;
}

std::string family(const ShortCell& c) { return c.runner.substr(0, c.runner.find(':')); }

double us_without_prepare(const ShortCell& c) {
  return c.statements ? double(c.wall_ns - std::min(c.wall_ns, c.prepare_ns)) / 1e3 / double(c.statements)
                      : 0;
}

// ASCII in the table ("us", "-"), so that setw's bytes are its columns.
void print_table(const Measured& m) {
  std::cout << "\n" << m.title << "\n";
  std::cout << "  " << std::left << std::setw(18) << "engine" << std::right << std::setw(10) << "us/stmt"
            << std::setw(10) << "xact/s" << std::setw(15) << "us/stmt -prep" << std::setw(15) << "us/stmt timed"
            << std::setw(10) << "prepares"
            << std::setw(12) << "cache hits" << std::setw(11) << "text hits";
  for (const auto& f : kShortCostFields) {
    std::string n = f.name;
    if (n.size() > 3 && n.substr(n.size() - 3) == "_ns") n = n.substr(0, n.size() - 3);
    std::cout << std::setw(std::max<int>(12, int(n.size()) + 10)) << (n + " us/stmt");
  }
  std::cout << std::setw(11) << "set-up ms" << std::setw(7) << "data" << "\n";
  for (const auto& c : m.cells) {
    const bool differs = std::find(m.differs.begin(), m.differs.end(), c.runner) != m.differs.end();
    const uint64_t n = std::max<uint64_t>(c.statements, 1);
    std::cout << "  " << std::left << std::setw(18) << c.runner << std::right << std::setw(10)
              << fmt(c.us_per_statement(), 2) << std::setw(10) << fmt(c.per_second(), 0) << std::setw(15)
              << (c.sqlite ? "-" : fmt(us_without_prepare(c), 2)) << std::setw(15)
              << (c.sqlite ? "-" : fmt(c.us_per_statement_phases_timed(), 2)) << std::setw(10) << c.prepares
              << std::setw(12)
              << (c.sqlite ? "-" : std::to_string(c.cache_hits)) << std::setw(11)
              << (c.sqlite ? "-" : std::to_string(c.text_hits));
    for (size_t k = 0; k < kShortCosts; ++k) {
      const int w = std::max<int>(12, int(std::string(kShortCostFields[k].name).size()) + 7);
      std::cout << std::setw(w) << (c.sqlite ? "-" : fmt(double(c.costs[k]) / 1e3 / double(n), 2));
    }
    std::cout << std::setw(11) << fmt(double(c.setup_ns) / 1e6, 1) << std::setw(7) << (differs ? "DIFF" : "same")
              << "\n";
  }
}

// The targets on the run (issue 68, "Numbers it must reach").
std::vector<Target> targets(const std::vector<Measured>& ms) {
  std::vector<Target> out;
  auto best_quelkit = [](const Measured& m) {
    const ShortCell* best = nullptr;
    for (const auto& c : m.cells)
      if (!c.sqlite && (!best || c.wall_ns < best->wall_ns)) best = &c;
    return best;
  };
  for (const Measured& m : ms) {
    const ShortCell* prepared = find(m, "sqlite:prepared");
    const ShortCell* best = best_quelkit(m);
    if (m.w.name == "emp") {
      std::string over;
      for (const auto& c : m.cells)
        if (c.reuses && c.prepares > 3) over += (over.empty() ? "" : ", ") + c.runner + " " + std::to_string(c.prepares);
      out.push_back({"emp", "at most 3 prepares over the replaces on every back end that reuses plans", over.empty(),
                     over.empty() ? "" : "more: " + over});
      if (const ShortCell* base = find(m, "interp:switch"))
        for (const auto& c : m.cells) {
          const std::string f = family(c);
          const double bound = f == "llvm" ? 1.5 : (f == "threaded" || f == "vector" || f == "stencil") ? 1.1 : 0;
          if (bound == 0) continue;
          const double ratio = c.us_per_statement() / base->us_per_statement();
          out.push_back({"emp", c.runner + " at most " + fmt(bound, 1) + "x interp:switch's µs per statement",
                         ratio <= bound, fmt(ratio, 2) + "x"});
        }
      for (const auto& c : m.cells)
        if (family(c) == "gccjit")
          out.push_back({"emp", c.runner + " reported, its compile amortized apart", true,
                         fmt(c.us_per_statement(), 2) + " µs per statement: " + fmt(us_without_prepare(c), 2) +
                             " running, " + fmt(double(c.cost("prepare_ns")) / 1e3 / double(c.statements), 2) +
                             " of compile (" + std::to_string(c.prepares) + " prepares)"});
      if (prepared && best)
        out.push_back({"emp", std::string("best back end at most SQLite's prepared µs per statement (") +
                                  (best->text_hits ? "the statement cache used: " + std::to_string(best->text_hits) +
                                                         " texts found their parse and binding"
                                                   : "text parsed per statement, no statement cache") +
                                  ")",
                       best->us_per_statement() <= prepared->us_per_statement(),
                       best->runner + " " + fmt(best->us_per_statement(), 2) + " vs " + fmt(prepared->us_per_statement(), 2)});
    } else if (prepared && best) {
      out.push_back({"tp1",
                     "best back end at least SQLite's transactions per second (prepared, in transactions)",
                     best->per_second() >= prepared->per_second(),
                     best->runner + " " + fmt(best->per_second(), 0) + " vs " + fmt(prepared->per_second(), 0)});
    }
  }
  return out;
}

bool write_files(const std::vector<Measured>& ms, const std::vector<Target>& ts, const ShortOptions& o) {
  mkdir(o.out_dir.c_str(), 0755);
  WholeFile js_file(o.out_dir + "/short.json"), csv_file(o.out_dir + "/short.csv");
  if (!js_file.ok() || !csv_file.ok()) {
    std::cerr << "quelkit short: error: " << (js_file.ok() ? csv_file : js_file).error() << "\n";
    return false;
  }
  std::ostream &js = js_file.stream(), &csv = csv_file.stream();
  nlohmann::ordered_json doc = {{"tool", "quelkit short"},
                                {"version", harness::kit_version()},
                                {"commit", harness::kit_commit()},
                                {"machine", machine_description()},
                                {"build", QUELKIT_BUILD_TYPE},
                                {"settings",
                                 {{"backends", o.backends},
                                  {"workloads", cli::split(o.workloads)},
                                  {"emp_rows", o.emp_rows},
                                  {"replaces", o.replaces},
                                  {"accounts", o.accounts},
                                  {"transactions", o.transactions},
                                  {"reps", o.reps},
                                  {"seed", kShortSeed},
                                  {"sqlite", !o.no_sqlite},
                                  {"statement_cache", !o.no_statement_cache},
                                  {"jit_cpu", o.jit_cpu},
                                  {"jit_opt", o.jit_opt},
                                  {"jit_lookup_opt", o.jit_lookup_opt}}},
                                {"results", nlohmann::ordered_json::array()},
                                {"targets", nlohmann::ordered_json::array()}};
  csv << "workload,backend,statements,transactions,us_per_statement,per_second,wall_ns,setup_ns,prepares,cache_hits,"
         "text_hits";
  for (const auto& f : kShortCostFields) csv << ',' << f.name;
  csv << ",same_data\n";
  for (const Measured& m : ms)
    for (const auto& c : m.cells) {
      const bool same = std::find(m.differs.begin(), m.differs.end(), c.runner) == m.differs.end();
      nlohmann::ordered_json j = {{"workload", m.w.name},
                                  {"backend", c.runner},
                                  {"sqlite", c.sqlite},
                                  {"reuses_plans", c.reuses},
                                  {"statements", c.statements},
                                  {"transactions", c.transactions},
                                  {"us_per_statement", c.us_per_statement()},
                                  {"us_per_statement_phases_timed", c.us_per_statement_phases_timed()},
                                  {"per_second", c.per_second()},
                                  {"wall_ns", c.wall_ns},
                                  {"setup_ns", c.setup_ns},
                                  {"prepares", c.prepares},
                                  {"cache_hits", c.cache_hits},
                                  {"text_hits", c.text_hits}};
      csv << m.w.name << ',' << c.runner << ',' << c.statements << ',' << c.transactions << ','
          << c.us_per_statement() << ',' << c.per_second() << ',' << c.wall_ns << ',' << c.setup_ns << ','
          << c.prepares << ',' << c.cache_hits << ',' << c.text_hits;
      for (size_t k = 0; k < kShortCosts; ++k) {
        j[kShortCostFields[k].name] = c.costs[k];
        csv << ',' << c.costs[k];
      }
      nlohmann::ordered_json sums = nlohmann::ordered_json::object();
      for (const auto& [rel, sum] : c.checksums) sums[rel] = checksum_hex(sum);
      j["checksums"] = sums;
      j["same_data"] = same;
      csv << ',' << (same ? "true" : "false") << '\n';
      doc["results"].push_back(std::move(j));
    }
  for (const Target& t : ts)
    doc["targets"].push_back({{"workload", t.workload}, {"target", t.what}, {"met", t.met}, {"detail", t.detail}});
  js << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
  if (const std::string err = commit_all({&js_file, &csv_file}); !err.empty()) {
    std::cerr << "quelkit short: error: " << err << "\n";
    return false;
  }
  std::cout << "\nwrote " << o.out_dir << "/short.json and " << o.out_dir << "/short.csv\n";
  return true;
}

int run_short(const ShortOptions& o, const CLI::App& app) {
  const auto backends = parse_backend_list(o.backends, /*measured=*/true);
  cli::refuse_unread_backend_options(app, backends);
  if (!o.out_dir.empty()) cli::require_output_dir("--out", o.out_dir);
  const std::vector<std::string> want = cli::drop_repeats(cli::split(o.workloads));
  if (want.empty()) cli::usage_error("--workload: names no workload");
  SessionOptions so;
  so.prepare.jit_native_cpu = o.jit_cpu == "native";
  so.prepare.jit_opt = o.jit_opt;
  so.prepare.jit_lookup_opt = o.jit_lookup_opt;
  so.statement_cache = !o.no_statement_cache;

  std::cout << "quelkit short: short-statement workloads (issue 68) on every back end and SQLite\n"
            << "machine:  " << machine_description() << "\n"
            << "JIT code: " << harness::jit_settings(so.prepare) << "\n"
            << "build:    " << QUELKIT_BUILD_TYPE << "; each engine the median of " << o.reps
            << " runs (the engines in turn), each run a session\n"
            << "of its own on its own copy of the data; each statement run from its QUEL text (lexed, parsed, bound, planned, looked up in the plan\n"
            << "cache, prepared if new, run, its result stored), the set-up (loading, range, modify) timed apart.\n"
            << "us/stmt = µs: wall time of the statements / statements; xact/s = transactions / that time;\n"
            << "us/stmt -prep = the same less prepare time (a JIT's compile amortized apart); the timed runs read\n"
            << "no clock inside a statement: the cost columns are the statements' --stats fields per statement in\n"
            << "one more run of each back end, its phases timed (its us/stmt: `us/stmt timed`). sqlite:text prepares, steps and finalizes each statement's\n"
            << "SQL text; sqlite:prepared one prepared statement per shape, values bound; both in memory, indexed where\n"
            << "quelkit hashes, TP1's transactions inside BEGIN/COMMIT"
            << " (quelkit's inside begin/end).\n"
            << (o.no_statement_cache
                    ? "statement cache: off (--no-statement-cache): every statement's text lexed, parsed and bound.\n"
                    : "statement cache: on (a text that differs from an earlier one only in its literals reuses its\n"
                      "parse and binding, its literals written in; `text hits` counts them; --no-statement-cache: off).\n")
            << "data: each relation's checksum after the run against sqlite:prepared's (the last back end's with\n"
            << "--no-sqlite; DIFF: not the same data).\n";

  std::vector<Measured> ms;
  bool differ = false;
  for (const std::string& name : want) {
    Measured m;
    if (name == "emp") {
      m.w = make_emp_workload(o.emp_rows, o.replaces);
      m.title = "Distributed INGRES on one site (Seed 1982): emp of " + std::to_string(o.emp_rows) +
                " tuples of 38 bytes hashed on name; " + std::to_string(o.replaces) +
                " `replace e (salary = K) where e.name = \"L\"`";
    } else {
      m.w = make_tp1_workload(o.accounts, o.transactions);
      m.title = "TP1 (POSTGRES study, Figure 2.2): account and teller of " + std::to_string(o.accounts) +
                ", branch of " + std::to_string(std::max<uint64_t>(1, o.accounts / 10)) +
                " 100-byte tuples hashed on their ids; " + std::to_string(o.transactions) +
                " transactions of 3 retrieves, 3 replaces, 1 append";
    }
    // Every engine --reps times, the engines in turn each repetition (so a
    // burst of load on the machine falls on all of them), each its median run.
    std::string err;
    const size_t engines = backends.size() + (o.no_sqlite ? 0 : 2);
    std::vector<std::vector<ShortCell>> runs(engines);
    // The timed runs read no clock inside a statement (SessionOptions::
    // phase_timing off); one more run of each back end, its phases timed,
    // gives the cost columns.
    harness::SessionOptions untimed = so, timed = so;
    untimed.phase_timing = false;
    timed.phase_timing = true;
    std::vector<ShortCell> phases(backends.size());
    for (int r = 0; r <= o.reps; ++r)
      for (size_t e = 0; e < engines; ++e) {
        if (r == o.reps && e >= backends.size()) break;
        ShortCell c;
        const bool ok = e < backends.size()
                            ? measure_short_backend(r == o.reps ? timed : untimed, backends[e], m.w, &c, &err)
                            : measure_short_sqlite(m.w, e > backends.size(), &c, &err);
        if (!ok) {
          std::cerr << err;
          return 1;
        }
        if (r == o.reps) phases[e] = std::move(c);
        else runs[e].push_back(std::move(c));
      }
    bool runs_differ = false;  // a repetition that ended with other data than the engine's median run
    for (auto& rs : runs) {
      std::sort(rs.begin(), rs.end(), [](const ShortCell& a, const ShortCell& b) { return a.wall_ns < b.wall_ns; });
      ShortCell& mid = rs[rs.size() / 2];
      for (const auto& c : rs)
        if (c.checksums != mid.checksums) {
          std::cerr << "quelkit short: " << name << ": " << c.runner << " ended its runs with different data\n";
          m.differs.push_back(c.runner);
          runs_differ = true;
          break;
        }
      m.cells.push_back(std::move(mid));
    }
    for (size_t e = 0; e < backends.size(); ++e) {
      std::copy(std::begin(phases[e].costs), std::end(phases[e].costs), std::begin(m.cells[e].costs));
      m.cells[e].phases_wall_ns = phases[e].wall_ns;
    }
    differ |= runs_differ;
    // The reference: SQLite prepared (the last cell), else the last back end.
    const ShortCell& ref = m.cells.back();
    for (const auto& c : m.cells)
      if (c.checksums != ref.checksums) {
        m.differs.push_back(c.runner);
        for (size_t k = 0; k < c.checksums.size() && k < ref.checksums.size(); ++k)
          if (c.checksums[k] != ref.checksums[k])
            std::cerr << "quelkit short: " << name << ": " << c.runner << " ends with other data in "
                      << c.checksums[k].first << " than " << ref.runner << " (" << checksum_hex(c.checksums[k].second)
                      << " vs " << checksum_hex(ref.checksums[k].second) << ")\n";
        differ = true;
      }
    print_table(m);
    std::cout.flush();
    ms.push_back(std::move(m));
  }
  const std::vector<Target> ts = targets(ms);
  if (!ts.empty()) std::cout << "\nTargets (issue 68)\n";
  for (const Target& t : ts)
    std::cout << "  " << std::left << std::setw(9) << (t.met ? "met" : "NOT MET") << std::right << t.workload << ": "
              << t.what << (t.detail.empty() ? "" : ": " + t.detail) << "\n";
  if (!o.out_dir.empty() && !write_files(ms, ts, o)) return 1;
  return differ ? 1 : 0;
}

}  // namespace

}  // namespace quelkit
