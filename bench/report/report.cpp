// `quelkit paper` (report.h): its options and the order of the run. The
// measurement is bench/measure/'s (paper_run.h, timed by engine/measure.h);
// each block of the report is printed by a file of its own (report_parts.h).
// Statement time is the wall time of the statement with a warm plan cache
// (what a user pays per execution); prepare cost is measured apart, in this
// process with the cache cleared and in fresh child processes.
#include "bench/report/report.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>

#include "backends/backends.h"
#include "bench/measure/paper_aggregates.h"
#include "bench/measure/paper_queries.h"
#include "bench/measure/paper_run.h"
#include "bench/measure/sqlite_ref.h"
#include "cli/command.h"
#include "bench/report/report_parts.h"
#include "engine/measure.h"
#include "bench/workloads/parts.h"
#include "engine/session.h"

namespace quelkit {

using namespace harness;
using report::dur;
using report::fmt;

namespace {

// The report's timing (docs/DESIGN.md, "Measuring"). Below the targets'
// sizes a figure is the median of kPaperReps short repetitions. At them
// (1M tuples and more) it is the median of kPaperTargetReps, within a budget
// of kPaperTargetBudget seconds a cell: with fewer, longer repetitions the
// targets' paired ratios moved from run to run with one slow repetition,
// while a cell that runs long (an interpreter, SQLite at 10M) takes what
// fits, at least kPaperReps. Short repetitions are still hundreds of runs
// each at the small sizes, and keep the default report's time down (the
// figures: docs/DESIGN.md, "Measuring" and "Measurements").
constexpr int kPaperReps = 5, kPaperTargetReps = 15;
constexpr double kPaperMinSeconds = 0.03, kPaperTargetBudget = 2;

struct PaperOptions {
  std::string sizes = "+", count_sizes = "+", keyed_sizes = "+", keyed_structures = "isam,hash";  // "+": the defaults
  std::string aggregate_sizes = "+";
  std::string backends = "all", out_dir, only, profile_json, jit_cpu = "generic", memory_budget;
  int reps = kPaperReps, target_reps = kPaperTargetReps, children = 5;
  double min_time = kPaperMinSeconds, target_budget = kPaperTargetBudget;
  bool no_sqlite = false, no_aggregates = false, no_reformat = false;
};

int run_paper(const PaperOptions& p);

// Which of the paper's queries run on a relation: its own (a)-(d) on the
// heap, (e)-(i) on the keyed one, and (e) on the heap too, as a full scan
// (what a relation without the key's structure costs, the figure the
// reference loop, the floor and the count block set beside it); the count
// block, (b)-(e) on the heap.
bool on_structure(const PaperQuerySpec& pq, bool count, bool keyed) {
  if (count) return pq.id[0] >= 'b' && pq.id[0] <= 'e';
  return pq.keyed == keyed || (!keyed && pq.id[0] == 'e');
}

}  // namespace

cli::Run define_paper(CLI::App& app, const std::vector<std::string>&) {
  auto p = std::make_shared<PaperOptions>();
  app.description(
      "The paper's benchmark on every built back end (Stonebraker et al. 1981, Tables 1 and 2, re-run).\n"
      "A size list replaces the default one; +N adds to it (--sizes +30000000: the default sizes and thirty\n"
      "million tuples).");
  app.add_option("--sizes", p->sizes, "heap sizes for (a)-(e) (default 1,210,3360,100000,1000000,10000000)")
      ->check(cli::size_list(2147483647, "pnum is an i4"))
      ->type_name("[+]N,...");
  app.add_option("--keyed-sizes", p->keyed_sizes, "sizes of the keyed relation for (e)-(i) (default 3360,100000)")
      ->check(cli::size_list(2147483647, "pnum is an i4"))
      ->type_name("[+]N,...");
  app.add_option("--count-sizes", p->count_sizes, "sizes of the --sink count block (default 1000000,10000000)")
      ->check(cli::size_list(2147483647, "pnum is an i4"))
      ->type_name("[+]N,...");
  app.add_option("--aggregate-sizes", p->aggregate_sizes,
                 "sizes of the PARTS heap for the aggregates section (default 1000000,10000000; with --queries only "
                 "when given)")
      ->check(cli::size_list(2147483647, "pnum is an i4"))
      ->type_name("[+]N,...");
  app.add_flag("--no-aggregates", p->no_aggregates, "leave out the aggregates section");
  app.add_option("--keyed-structures", p->keyed_structures, "structures of the keyed relation (default isam,hash)")
      ->check(cli::list_of({"isam", "hash"}))
      ->type_name("isam,hash");
  app.add_option("-b,--backend", p->backends, "back ends (default all)")->check(cli::backend_list())->type_name("LIST");
  app.add_option("--queries", p->only, "the paper's queries to run, letters of a-i, as ab or a,b (default all)")
      ->transform(cli::query_letters())
      ->type_name("LETTERS");
  app.add_option("--reps", p->reps,
                 "repetitions per figure below 1M tuples, the median reported; the fewest a cell takes at 1M and more "
                 "(default 5)")
      ->check(cli::whole(1, 1000))
      ->type_name("N");
  app.add_option("--target-reps", p->target_reps,
                 "repetitions per figure at 1M tuples and more, where the targets are checked (default 15)")
      ->check(cli::whole(1, 1000))
      ->type_name("N");
  app.add_option("--target-budget", p->target_budget,
                 "seconds a cell's --target-reps repetitions may take; a slower cell takes as many as fit, at least "
                 "--reps (default 2)")
      ->check(cli::real_above(0))
      ->type_name("S");
  app.add_option("--min-time", p->min_time, "seconds each repetition runs at least (default 0.03)")
      ->check(cli::real_above(0, 60))
      ->type_name("S");
  app.add_option("--children", p->children,
                 "processes measuring first-in-process prepare (default 5; 0 leaves that measurement out)")
      ->check(cli::whole(0, 1000))
      ->type_name("N");
  app.add_option("--profile-json", p->profile_json, "`quelkit profile --json`'s output, for Table 3")
      ->check(CLI::ExistingFile.description(""))
      ->type_name("FILE");
  app.add_option("--out", p->out_dir, "also write paper.json and paper.csv to DIR (checked before any work)")
      ->check(cli::a_name("a directory"))
      ->type_name("DIR");
  app.add_flag("--no-sqlite", p->no_sqlite, "leave out the SQLite reference");
  app.add_flag("--no-reformat", p->no_reformat,
               "joins by tuple substitution alone, the plans of 1981 (quelkit --no-reformat)");
  cli::add_jit_cpu_option(app, &p->jit_cpu);
  cli::add_memory_budget_option(app, &p->memory_budget);
  return [p, &app] {
    cli::refuse_unread_backend_options(app, parse_backend_list(p->backends, /*measured=*/true));
    if (p->no_aggregates && app.count("--aggregate-sizes"))
      cli::usage_error("--aggregate-sizes: --no-aggregates leaves the aggregates section out");
    // --queries names the paper's queries: the aggregates section runs
    // beside them only when its sizes are asked for too.
    if (app.count("--queries") && !app.count("--aggregate-sizes")) p->no_aggregates = true;
    // A cell at the target sizes takes at least --reps: fewer, asked for,
    // would be silently more.
    if (app.count("--target-reps") && p->target_reps < p->reps)
      cli::usage_error("--target-reps " + std::to_string(p->target_reps) + " is fewer than --reps " +
                       std::to_string(p->reps) + ", which a cell at 1M tuples and more takes at least");
    return run_paper(*p);
  };
}

namespace {

int run_paper(const PaperOptions& p) {
  cli::apply_memory_budget(p.memory_budget);  // before any size is checked against it
  // Said before the first measurement: a report that cannot be written is
  // not found out an hour later.
  if (!p.out_dir.empty()) cli::require_output_dir("--out", p.out_dir);
  const std::vector<uint64_t> sizes = cli::parse_sizes(p.sizes, {1, 210, 3360, 100000, 1000000, 10000000});
  const std::vector<uint64_t> count_sizes = cli::parse_sizes(p.count_sizes, {1000000, 10000000});
  const std::vector<uint64_t> keyed = cli::parse_sizes(p.keyed_sizes, {3360, 100000});
  const std::vector<uint64_t> aggregate_sizes =
      p.no_aggregates ? std::vector<uint64_t>{} : cli::parse_sizes(p.aggregate_sizes, {1000000, 10000000});
  std::vector<Structure> keyed_structures;
  for (const auto& x : cli::drop_repeats(cli::split(p.keyed_structures)))
    keyed_structures.push_back(x == "isam" ? Structure::Isam : Structure::Hash);
  const std::string& backends = p.backends;
  const std::string& only = p.only;
  const std::string& out_dir = p.out_dir;
  const std::string& profile_json = p.profile_json;
  const int reps = p.reps, target_reps = std::max(p.reps, p.target_reps), children = p.children;
  const double min_time = p.min_time;
  const bool with_sqlite = !p.no_sqlite, jit_native_cpu = p.jit_cpu == "native";
  auto wanted = [&](const char* ids) {
    for (const char* c = ids; *c; ++c)
      if (only.empty() || only.find(*c) != std::string::npos) return true;
    return false;
  };
  if (!(wanted("abcde") && !sizes.empty()) && !(wanted("efghi") && !keyed.empty() && !keyed_structures.empty()) &&
      aggregate_sizes.empty())
    cli::usage_error("nothing to run: no size is left for the queries asked for");
  // Sizes given for a block that --queries leaves empty would do nothing.
  if (p.count_sizes != "+" && !count_sizes.empty() && !wanted("bcde"))
    cli::usage_error("--count-sizes: the count block runs (b)-(e), and --queries " + only + " asks for none of them");
  if (p.keyed_sizes != "+" && !keyed.empty() && !wanted("efghi"))
    cli::usage_error("--keyed-sizes: the keyed relation runs (e)-(i), and --queries " + only +
                     " asks for none of them");
  // A relation the memory budget cannot hold is refused before the first
  // measurement (--sizes +3000000000 would abort after the smaller sizes).
  auto parts_need = [](uint64_t n, Structure s, bool wide) {
    return parts_memory_needed(PartsSpec{n, s, wide}, kDefaultPageSize);
  };
  if (wanted("abcde"))
    for (uint64_t n : sizes) cli::require_fits("--sizes", n, parts_need(n, Structure::Heap, false));
  if (wanted("efghi"))
    for (Structure st : keyed_structures)
      for (uint64_t n : keyed) cli::require_fits("--keyed-sizes", n, parts_need(n, st, true));
  if (wanted("bcde"))
    for (uint64_t n : count_sizes) cli::require_fits("--count-sizes", n, parts_need(n, Structure::Heap, false));
  for (uint64_t n : aggregate_sizes) cli::require_fits("--aggregate-sizes", n, parts_need(n, Structure::Heap, false));
  if (std::string why; !profile_json.empty() && !report::check_profile_json(profile_json, &why))
    cli::usage_error("--profile-json " + profile_json + ": " + why);
  SessionOptions so;
  so.backends = parse_backend_list(backends, /*measured=*/true);  // validated while parsing; test modes left out
  so.format = OutFormat::None;
  so.prepare.jit_native_cpu = jit_native_cpu;
  so.runner.reformat = !p.no_reformat;
  std::ostringstream sink_out, sink_err;

  std::cout << "quelkit paper: Stonebraker et al. 1981, Tables 1 and 2, re-run\n"
            << "machine:  " << machine_description() << "\n"
            << "build:    " << QUELKIT_BUILD_TYPE << "; each figure the median of " << reps
            << (reps == 1 ? " repetition" : " repetitions") << " of >= "
            << min_time << " s after one warm-up run (at 1M tuples and more " << target_reps
            << ", or as many as fit in " << p.target_budget << " s, at least " << reps
            << "), the cells of a table interleaved (A B C, B C A, ...); spread = (max - min) / median\n"
            << "JIT code: " << cli::jit_cpu_description(jit_native_cpu) << "\n"
            << "per tuple = statement time / tuples in the relation (result rows projected and stored on the clock,\n"
            << "the checksum after it; the joins (f)-(i) of parts with itself divide by its tuples once, where the\n"
            << "Wisconsin report divides a join by the tuples of every relation it reads); prepare = cold\n"
            << "preparation of the statement's plans, kept apart from statement time (warm cache); floor = a sum\n"
            << "of the relation's pages as 8-byte words (generic x86-64); scan = the page walk touching each tuple,\n"
            << "nothing else\n\n";

  report::Measured m;
  m.keyed_structures = keyed_structures;
  m.reps = reps;
  m.target_reps = target_reps;
  m.target_budget = p.target_budget;
  m.min_time = min_time;
  m.jit_native_cpu = jit_native_cpu;
  m.sizes = sizes;
  m.keyed_sizes = keyed;
  m.count_sizes = count_sizes;
  m.aggregate_sizes = aggregate_sizes;
  for (const auto& [name, mode] : so.backends) m.backends.push_back(name + ":" + mode);
  m.queries = only;
  m.sqlite = with_sqlite;
  bool mismatch = false;
  // aggregates_only: a heap Table 1 does not measure, made for the
  // aggregates section alone.
  auto run_set = [&](Structure structure, uint64_t n, bool count, std::vector<Row>& into, bool aggregates_only = false) {
    const bool is_keyed = structure != Structure::Heap;
    SessionOptions o = so;
    o.runner.count_sink = count;
    Session session(o, sink_out, sink_err);
    try {
      session.catalog().add(make_parts(n, is_keyed, structure));
    } catch (QuelError& e) {  // an ISAM or hash copy past the memory budget
      std::cerr << "quelkit paper: " << e.err.format() << "\n";
      std::exit(1);
    }
    session.run(std::make_shared<Source>("<paper>", "range of p is parts range of q is parts"));
    std::unique_ptr<SqliteRef> db = with_sqlite && !count ? SqliteRef::open(n, is_keyed, is_keyed) : nullptr;
    PaperRunOptions po;
    po.timing.min_seconds = min_time;
    po.timing.reps = reps;
    if (n >= report::kTargetSizes) {
      po.timing.reps = target_reps;
      po.timing.budget_seconds = p.target_budget;
      po.timing.min_reps = reps;
    }
    po.cold_runs = n >= 10000000 ? 3 : 5;
    for (const auto& pq : paper_queries()) {
      if (aggregates_only) break;
      // The count block: (b)-(e) on the narrow heap, (e) as a full scan.
      if (!on_structure(pq, count, is_keyed)) continue;
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
    // The aggregates section, on the same heap and SQLite database when
    // Table 1 measures its size.
    if (structure != Structure::Heap || count ||
        std::find(aggregate_sizes.begin(), aggregate_sizes.end(), n) == aggregate_sizes.end())
      return;
    for (const auto& spec : paper_aggregates()) {
      Row row;
      std::string err;
      if (!measure_aggregate(session, spec, n, db.get(), po, &row, &mismatch, &err)) {
        std::cerr << err;
        std::exit(1);
      }
      std::cerr << err;
      m.aggregate_rows.push_back(std::move(row));
    }
  };
  // A relation no query asked for runs on is not made.
  if (wanted("abcde"))
    for (uint64_t n : sizes) run_set(Structure::Heap, n, false, m.rows);
  for (uint64_t n : aggregate_sizes)
    if (!wanted("abcde") || std::find(sizes.begin(), sizes.end(), n) == sizes.end())
      run_set(Structure::Heap, n, false, m.rows, true);
  if (wanted("efghi"))
    for (Structure st : keyed_structures)
      for (uint64_t n : keyed) run_set(st, n, false, m.rows);
  if (wanted("bcde"))
    for (uint64_t n : count_sizes) run_set(Structure::Heap, n, true, m.count_rows);

  report::print_table(m, Structure::Heap);
  for (Structure st : keyed_structures) report::print_table(m, st);
  report::print_count_block(m);
  report::print_aggregates(m);
  report::measure_first_prepare(so, children, &m);
  report::print_prepare(m);
  report::measure_levels(so, &m);
  report::print_ranking(m);
  report::print_conclusions(m, profile_json);
  report::print_targets(m);
  if (!out_dir.empty() && !report::write_files(m, out_dir)) return 1;
  return mismatch ? 1 : 0;
}

}  // namespace

}  // namespace quelkit
