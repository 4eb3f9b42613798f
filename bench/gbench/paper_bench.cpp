// Google Benchmark suite of the paper's queries: each query is written once
// (its QUEL text, from the report's table) and registered for every back end,
// mode and size as paper/<query>/<backend:mode>/<tuples>. Prepare and run are
// timed apart: prepare/<query>/<backend:mode> times a cold preparation, and
// paper/... times execution with a warm plan cache. Minimum time, repetitions
// and the statistics of repetitions are the timing module's (engine/measure.h),
// so these figures and `quelkit paper`'s are taken alike. Every family reports
// the same counters (rows, ns_per_tuple, prepare_ns, prepares, cache_hits), so
// any filter can be written as CSV.
#include <algorithm>
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "bench/gbench/context.h"
#include "bench/gbench/fixture.h"
#include "bench/measure/reference.h"
#include "backends/backends.h"
#include "bench/measure/paper_queries.h"
#include "bench/measure/paper_run.h"
#include "bench/measure/sqlite_ref.h"
#include "engine/measure.h"
#include "bench/workloads/parts.h"
#include "engine/session.h"

using namespace quelkit;
using namespace quelkit::harness;
using quelkit::harness::kDefaultMinSeconds;
using quelkit::harness::kDefaultReps;

namespace {

// One session per (relation kind, size, back end), built on first use
// (bench/fixture.h). Names: paper/<query>/<backend:mode>/<tuples> (heap for
// (a)-(d), ISAM for (e)-(i)), paper/<query>-hash/... for (e)-(i) on the hash
// structure.
using bench::Fixture;
Fixture& fixture(const PaperQuerySpec& pq, uint64_t n, const std::string& backend, bool hash = false) {
  Structure st = !pq.keyed ? Structure::Heap : hash ? Structure::Hash : Structure::Isam;
  return bench::fixture(pq, {.backend = backend, .tuples = n, .structure = st});
}

// Whether the query's statement reads the relation: (a) names no range
// variable. Bound over an empty relation, once per query at registration.
bool reads_relation(const PaperQuerySpec& pq) { return !fixture(pq, 0, "interp:switch").q.vars.empty(); }

// The counters of a run, set alike by every family: Google Benchmark 1.7.1's
// CSV reporter takes its columns from the first benchmark run and aborts
// ("All counters must be present in each run") on a later run with a counter
// not among them, so a family may not add one of its own. Each figure is per
// timed statement (iteration); where a family has no such thing, 0 is what it
// has (the reference loop prepares nothing).
struct Figures {
  double rows = 0;          // result rows of the statement
  double ns_per_tuple = 0;  // nanoseconds per tuple of the relation (Time / tuples; prepare/: its
                            // statement's first run after the cold prepare, at 210 tuples, 3360
                            // keyed; 0 for (a), which reads no relation)
  double prepare_ns = 0;    // prepare paid by each timed statement
  double prepares = 0;      // plans each timed statement prepared
  double cache_hits = 0;    // plans each timed statement found in the plan cache
};

void set_counters(benchmark::State& state, const Figures& f) {
  // Plain counters (no rate flags): the value written is the value shown,
  // in the console, JSON and CSV alike.
  state.counters["rows"] = f.rows;
  state.counters["ns_per_tuple"] = f.ns_per_tuple;
  state.counters["prepare_ns"] = f.prepare_ns;
  state.counters["prepares"] = f.prepares;
  state.counters["cache_hits"] = f.cache_hits;
}

// A run that failed still sets the counters (zeros beside its error), so
// that when it is the first run the CSV header has every column.
void skip_with_error(benchmark::State& state, const std::string& why) {
  set_counters(state, {});
  state.SkipWithError(why.c_str());
}

// Per timed statement, from totals over the timed iterations.
double per(benchmark::State& state, double total) {
  return state.iterations() ? total / double(state.iterations()) : 0;
}

// The families with no run_ns of their own (reference/, sqlite/, and paper/a,
// which is timed whole from its text) time each
// iteration once, with the clock the timing module reads, and hand that same
// reading to Google Benchmark as the iteration's time (manual time): Time and
// ns_per_tuple are then one measurement, not two clocks read around one loop,
// which differ whenever the machine is busy.
struct IterationClock {
  uint64_t total_ns = 0;
  template <class F>
  void time(benchmark::State& state, F&& f) {
    const uint64_t t0 = harness::now_ns();
    f();
    const uint64_t ns = harness::now_ns() - t0;
    total_ns += ns;
    state.SetIterationTime(double(ns) * 1e-9);
  }
};

void bm_paper(benchmark::State& state, const PaperQuerySpec* pq, std::string backend, uint64_t n, bool hash) {
  Fixture& f = fixture(*pq, n, backend, hash);
  Runner& r = *f.session->runners()[0];
  Result warm = f.session->evaluate(f.q, r, f.src, false);  // fills the plan cache
  if (!warm.ok) {
    skip_with_error(state, warm.error.message);
    return;
  }
  // Timed by the statement's own run_ns (manual time): prepare is off the
  // clock, and the checksum (taken by the warm run above) is left out of the
  // timed runs, as in the report (docs/stats.md). ns_per_tuple is the same
  // run_ns, so it is Time / tuples; prepare_ns, prepares and cache_hits are
  // what each timed statement did off that clock: plan-cache hits and no
  // prepare where the back end reuses plans, a fresh lowering where it does
  // not (the interpreter's, engine/runner.cpp).
  // (a) names no range variable: it reads no relation, so it processes no
  // items and has no per-tuple figure (0), whatever the size in its name.
  // Its statement is all fixed cost: each iteration is the whole statement
  // from its text (lex, parse, bind, plan, plan-cache lookup, run), by the
  // wall clock, as the report times it and as sqlite/a prepares its SQL.
  const bool reads = !f.q.vars.empty();
  if (!reads) {
    IterationClock clock;
    ExecStats st;
    for (auto _ : state) clock.time(state, [&] { evaluate_text(*f.session, r, f.src->name(), pq->text, &st); });
    // prepare_ns is inside Time here (the statement whole): said, not taken off.
    set_counters(state, {.rows = double(warm.nrows()),
                         .prepare_ns = per(state, double(st.prepare_ns)),
                         .prepares = per(state, double(st.prepares)),
                         .cache_hits = per(state, double(st.cache_hits))});
    return;
  }
  uint64_t rows = 0, run_ns = 0, prepare_ns = 0, prepares = 0, cache_hits = 0;
  for (auto _ : state) {
    Result res = f.session->evaluate(f.q, r, f.src, false, false);
    rows = res.checksum.rows;
    benchmark::DoNotOptimize(rows);
    state.SetIterationTime(double(res.stats.run_ns) * 1e-9);
    run_ns += res.stats.run_ns;
    prepare_ns += res.stats.prepare_ns;
    prepares += res.stats.prepares;
    cache_hits += res.stats.cache_hits;
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
  set_counters(state, {.rows = double(warm.nrows()),
                       .ns_per_tuple = per(state, double(run_ns)) / double(n),
                       .prepare_ns = per(state, double(prepare_ns)),
                       .prepares = per(state, double(prepares)),
                       .cache_hits = per(state, double(cache_hits))});
}

// Timed by the statement's own prepare_ns (manual time), so Time is the cold
// prepare the name says and the prepare_ns counter is the same figure; the
// statement's run after it (over 210 or 3,360 tuples) is off the clock.
// ns_per_tuple is that run's time per tuple, right after a cold prepare: not
// Time / tuples, which would spread the prepare over a relation it does not read.
void bm_prepare(benchmark::State& state, const PaperQuerySpec* pq, std::string backend) {
  const uint64_t n = pq->keyed ? 3360 : 210;
  Fixture& f = fixture(*pq, n, backend);
  Runner& r = *f.session->runners()[0];
  uint64_t rows = 0, prepare_ns = 0, run_ns = 0, prepares = 0, cache_hits = 0;
  for (auto _ : state) {
    r.cache().clear();
    Result res = f.session->evaluate(f.q, r, f.src, false);
    if (!res.ok) {
      skip_with_error(state, res.error.message);
      return;
    }
    state.SetIterationTime(double(res.stats.prepare_ns) * 1e-9);
    rows = res.nrows();
    prepare_ns += res.stats.prepare_ns;
    run_ns += res.stats.run_ns;
    prepares += res.stats.prepares;
    cache_hits += res.stats.cache_hits;
  }
  set_counters(state, {.rows = double(rows),
                       .ns_per_tuple = per(state, double(run_ns)) / double(n),
                       .prepare_ns = per(state, double(prepare_ns)),
                       .prepares = per(state, double(prepares)),
                       .cache_hits = per(state, double(cache_hits))});
}


// The physical-limit column: the hand-written loop over the same pages.
void bm_reference(benchmark::State& state, const PaperQuerySpec* pq, uint64_t n) {
  Fixture& f = fixture(*pq, n, "interp");
  const Relation& rel = *f.session->catalog().find("parts");
  bench::ReferenceResult rr;
  rr.verify = false;  // the checksum is off the clock, as the engine's
  std::string err;
  IterationClock clock;
  bool ok = true;
  for (auto _ : state) {
    clock.time(state, [&] { ok = bench::run_reference(pq->id[0], rel, &rr, &err); });
    if (!ok) {
      skip_with_error(state, err);
      return;
    }
    benchmark::DoNotOptimize(rr.rows);
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
  // A loop written for the query: nothing is prepared or cached.
  set_counters(state, {.rows = double(rr.rows), .ns_per_tuple = per(state, double(clock.total_ns)) / double(n)});
}

// SQLite on the same data: the external reference engine.
void bm_sqlite(benchmark::State& state, const PaperQuerySpec* pq, uint64_t n) {
  static std::map<std::string, std::unique_ptr<SqliteRef>> dbs;
  auto& db = dbs[std::to_string(n) + (pq->keyed ? "k" : "")];
  if (!db) db = SqliteRef::open(n, pq->keyed, pq->keyed);
  if (!db) {
    skip_with_error(state, "SQLite: could not load the relation");
    return;
  }
  std::string sql = SqliteRef::sql_for(pq->id[0]), err;
  uint64_t rows = 0, sum = 0;
  // A warm run first, as bm_paper's: SqliteRef prepares the statement
  // (sqlite3_prepare_v2) on its first run and reuses it after, so the timed
  // runs prepare nothing: their prepare_ns and prepares are 0. cache_hits
  // counts quelkit's plan cache, which SQLite does not use: 0 too. (a)
  // alone is prepared from its text on every run, below.
  if (!db->run(sql, &rows, &sum, &err)) {
    skip_with_error(state, err);
    return;
  }
  // Timed: the statement stepped and its rows stored; the checksum (taken
  // by the warm run above) is off the clock, as the engine's is.
  IterationClock clock;
  bool ok = true;
  SqliteRows stored;
  // A statement that reads no relation ((a)) from its text every run, as
  // bm_paper's: SQLite prepares, steps and finalizes it.
  const bool from_text = n == 0;
  for (auto _ : state) {
    clock.time(state, [&] { ok = from_text ? db->execute_text(sql, &stored, &err) : db->execute(sql, &stored, &err); });
    if (!ok) {
      skip_with_error(state, err);
      return;
    }
    benchmark::DoNotOptimize(stored.values.data());
  }
  rows = stored.rows();
  // n is 0 for (a) alone, which reads no relation: no items, no per-tuple figure.
  if (n > 0) state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
  set_counters(state, {.rows = double(rows),
                       .ns_per_tuple = n > 0 ? per(state, double(clock.total_ns)) / double(n) : 0});
}

// The timing module's settings and statistics on a registered benchmark:
// median (the figure), min, max and spread over the repetitions.
double stat_min(const std::vector<double>& v) { return harness::summarise(v).min; }
double stat_max(const std::vector<double>& v) { return harness::summarise(v).max; }
double stat_spread(const std::vector<double>& v) { return harness::summarise(v).spread; }

// The timing module's repetitions and statistics (min, max, spread beside
// Google Benchmark's own).
benchmark::internal::Benchmark* repeated(benchmark::internal::Benchmark* b) {
  return b->Repetitions(kDefaultReps)
      ->ComputeStatistics("min", stat_min)
      ->ComputeStatistics("max", stat_max)
      ->ComputeStatistics("spread", stat_spread, benchmark::StatisticUnit::kPercentage);
}
benchmark::internal::Benchmark* timed(benchmark::internal::Benchmark* b) {
  return repeated(b->MinTime(kDefaultMinSeconds));
}

// A cold prepare's iteration runs its statement too, off the clock (a
// substituted query prepares while it runs), so a minimum of prepare time
// could mean minutes of runs where the prepare is short beside its run
// (docs/DESIGN.md, Measurements). A fixed count of iterations per
// repetition bounds it (a JIT's compile included).
constexpr int kPrepareIterations = 50;

}  // namespace

int main(int argc, char** argv) {
  register_all_backends();
  std::vector<std::string> labels;
  for (const auto& b : registered_backends())
    for (const auto& m : b.modes)
      if (!m.for_tests) labels.push_back(b.name + ":" + m.name);
  for (const auto& pq : paper_queries()) {
    // Fixtures are built on first use, so the large sizes cost nothing unless
    // selected (--benchmark_filter); the keyed relation keeps the paper's
    // 130-of-3360 overflow proportion at every size.
    std::vector<uint64_t> all_sizes = pq.keyed ? std::vector<uint64_t>{3360, 100000, 1000000}
                                               : std::vector<uint64_t>{1, 210, 3360, 100000, 1000000, 10000000};
    // (a) names no range variable: its statement is the same at every size,
    // so it is registered once, at the 0 tuples it reads (six copies of one
    // figure, the last over a 10M-tuple relation it never reads, told
    // nothing more).
    if (!pq.keyed && !reads_relation(pq)) all_sizes = {0};
    for (uint64_t n : all_sizes) {
      // Manual time, each iteration's wall time as IterationClock reads it,
      // as the paper/ family's: Time and items_per_second were CPU time here.
      if (bench::has_reference(pq.id[0]))
        timed(benchmark::RegisterBenchmark(("reference/" + std::string(pq.id) + "/" + std::to_string(n)).c_str(),
                                           bm_reference, &pq, n))
            ->UseManualTime();
      timed(benchmark::RegisterBenchmark(("sqlite/" + std::string(pq.id) + "/" + std::to_string(n)).c_str(),
                                         bm_sqlite, &pq, n))
          ->UseManualTime();
    }
    for (const auto& l : labels) {
      repeated(benchmark::RegisterBenchmark(("prepare/" + std::string(pq.id) + "/" + l).c_str(), bm_prepare, &pq, l)
                   ->Iterations(kPrepareIterations))
          ->UseManualTime();
      for (uint64_t n : all_sizes)
        for (bool hash : {false, true}) {
          if (hash && !pq.keyed) continue;
          std::string q = std::string(pq.id) + (hash ? "-hash" : "");
          timed(benchmark::RegisterBenchmark(("paper/" + q + "/" + l + "/" + std::to_string(n)).c_str(), bm_paper,
                                             &pq, l, n, hash))
              ->UseManualTime();
        }
    }
  }
  bench::add_kit_context(labels, std::to_string(kDefaultPageSize));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
