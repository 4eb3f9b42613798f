// `quelkit paper` (report.h): its options and the order of the run. The
// measurement is bench/measure's (paper_run.h, timed by harness/measure.h);
// each block of the report is printed by a file of its own (report_parts.h).
// Statement time is the wall time of the statement with a warm plan cache
// (what a user pays per execution); prepare cost is measured apart, in this
// process with the cache cleared and in fresh child processes.
#include "cli/report.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>

#include "bench/measure/backends.h"
#include "bench/measure/paper_queries.h"
#include "bench/measure/paper_run.h"
#include "bench/measure/sqlite_ref.h"
#include "cli/report_parts.h"
#include "harness/measure.h"
#include "harness/parts.h"
#include "harness/session.h"

namespace quelkit {

using namespace harness;
using report::dur;
using report::fmt;

namespace {

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

}  // namespace

int run_paper(const std::vector<std::string>& args, size_t i) {
  register_all_backends();
  std::vector<uint64_t> sizes = {1, 210, 3360, 100000, 1000000, 10000000};
  std::vector<uint64_t> count_sizes = {1000000, 10000000};
  std::vector<uint64_t> keyed = {3360, 100000};
  std::vector<Structure> keyed_structures = {Structure::Isam, Structure::Hash};
  std::string backends = "all", out_dir, only;
  int reps = kDefaultReps, large_reps = 3, children = 5;
  double min_time = kDefaultMinSeconds;
  std::string profile_json;
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
    else if (name == "--count-sizes") count_sizes = parse_list(val(), count_sizes);
    else if (name == "--large-reps") large_reps = std::max(1, std::atoi(val().c_str()));
    else if (name == "--children") children = std::max(0, std::atoi(val().c_str()));
    else if (name == "--profile-json") profile_json = val();
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
      std::cout << "quelkit paper [--sizes 1,210,3360,100000,1000000,10000000] [--keyed-sizes 3360,100000]\n"
                   "              [--count-sizes 1000000,10000000] [--large-reps 3] [--children 5]\n"
                   "              [--profile-json FILE]\n"
                   "              [--keyed-structures isam,hash] [-b all|LIST] [--queries abcdefghi]\n"
                   "              [--reps 5] [--min-time 0.1] [--out DIR] [--no-sqlite] [--jit-cpu generic|native]\n"
                   "  a size list replaces the default one; +N adds to it (--sizes +10000000: the\n"
                   "  paper's sizes and ten million tuples); --large-reps caps the repetitions at\n"
                   "  10M tuples and more; --children is how many processes measure first-in-process\n"
                   "  prepare; --profile-json is `quelkit profile --json`'s output for Table 3\n";
      return 0;
    } else {
      std::cerr << "quelkit paper: error: unknown option " << a << "\n";
      return 2;
    }
  }
  SessionOptions so;
  try {
    so.backends = parse_backend_list(backends, /*measured=*/true);
  } catch (QuelError& e) {
    std::cerr << "quelkit paper: error: " << e.err.message << "\n";
    return 2;
  }
  so.format = OutFormat::None;
  so.prepare.jit_native_cpu = jit_native_cpu;
  std::ostringstream sink_out, sink_err;

  std::cout << "quelkit paper: Stonebraker et al. 1981, Tables 1 and 2, re-run\n"
            << "machine:  " << machine_description() << "\n"
            << "build:    " << QUELKIT_BUILD_TYPE << "; each figure the median of " << reps << " repetitions (" << large_reps
            << " at 10M tuples and more) of >= " << min_time
            << " s after one warm-up run, the cells of a table interleaved (A B C A B C); spread = (max - min) / median\n"
            << "JIT code: " << (jit_native_cpu ? "this machine's CPU (--jit-cpu native)" : "the generic CPU the kit is built for (--jit-cpu native: this machine's)") << "\n"
            << "per tuple = statement time / tuples in the relation (result rows projected and stored on the clock,\n"
            << "the checksum after it); prepare = cold preparation of the statement's plans, kept apart from\n"
            << "statement time (warm cache); floor = a sum of the relation's pages as 8-byte words (generic x86-64);\n"
            << "scan = the page walk touching each tuple, nothing else\n\n";

  report::Measured m;
  m.keyed_structures = keyed_structures;
  m.reps = reps;
  m.min_time = min_time;
  m.jit_native_cpu = jit_native_cpu;
  bool mismatch = false;
  auto run_set = [&](Structure structure, uint64_t n, bool count, std::vector<Row>& into) {
    const bool is_keyed = structure != Structure::Heap;
    SessionOptions o = so;
    o.runner.count_sink = count;
    Session session(o, sink_out, sink_err);
    session.catalog().add(make_parts(n, is_keyed, structure));
    session.run(std::make_shared<Source>("<paper>", "range of p is parts range of q is parts"));
    std::unique_ptr<SqliteRef> db = with_sqlite && !count ? SqliteRef::open(n, is_keyed, is_keyed) : nullptr;
    PaperRunOptions po;
    po.timing.reps = n >= 10000000 ? std::min(reps, large_reps) : reps;
    po.timing.min_seconds = min_time;
    po.cold_runs = n >= 10000000 ? 3 : 5;
    for (const auto& pq : paper_queries()) {
      // The count block: (b)-(e) on the narrow heap, (e) as a full scan.
      if (count ? !(pq.id[0] >= 'b' && pq.id[0] <= 'e') : pq.keyed != is_keyed) continue;
      if (!only.empty() && only.find(pq.id) == std::string::npos) continue;
      Row row;
      row.count = count;
      std::string err;
      if (!measure_query(session, pq, n, structure, db.get(), po, &row, &mismatch, &err)) {
        std::cerr << err;
        std::exit(1);
      }
      std::cerr << err;
      into.push_back(std::move(row));
    }
  };
  for (uint64_t n : sizes) run_set(Structure::Heap, n, false, m.rows);
  for (Structure st : keyed_structures)
    for (uint64_t n : keyed) run_set(st, n, false, m.rows);
  if (m.rows.empty()) {
    std::cerr << "quelkit paper: nothing to run\n";
    return 2;
  }
  for (uint64_t n : count_sizes) run_set(Structure::Heap, n, true, m.count_rows);

  report::print_table(m, Structure::Heap);
  for (Structure st : keyed_structures) report::print_table(m, st);
  report::print_count_block(m);
  report::measure_first_prepare(so, children, &m);
  report::print_prepare(m);
  report::measure_levels(so, &m);
  report::print_conclusions(m, profile_json);
  if (!out_dir.empty() && !report::write_files(m, out_dir)) return 1;
  return mismatch ? 1 : 0;
}

}  // namespace quelkit
