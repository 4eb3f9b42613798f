// Google Benchmark suite of the paper's queries: each query is written once
// (its QUEL text, from the report's table) and registered for every back end,
// mode and size as paper/<query>/<backend:mode>/<tuples>. Prepare and run are
// timed apart: prepare/<query>/<backend:mode> times a cold preparation, and
// paper/... times execution with a warm plan cache. Minimum time, repetitions
// and the statistics of repetitions are the timing module's (harness/measure.h),
// so these figures and `quelkit paper`'s are taken alike.
#include <algorithm>
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <sstream>

#include "measure/reference.h"
#include "measure/backends.h"
#include "measure/paper_queries.h"
#include "measure/sqlite_ref.h"
#include "frontend/frontend.h"
#include "harness/measure.h"
#include "harness/parts.h"
#include "harness/session.h"

using namespace quelkit;
using namespace quelkit::harness;
using quelkit::harness::kDefaultMinSeconds;
using quelkit::harness::kDefaultReps;

namespace {

// One session per (relation kind, size, back end), built on first use.
// Names: paper/<query>/<backend:mode>/<tuples> (heap for (a)-(d), ISAM for
// (e)-(i)), paper/<query>-hash/... for (e)-(i) on the hash structure.
struct Fixture {
  std::ostringstream out, err;
  std::unique_ptr<Session> session;
  SourceRef src;
  frontend::BoundQuery q;
};

Fixture& fixture(const PaperQuerySpec& pq, uint64_t n, const std::string& backend, bool hash = false) {
  static std::map<std::string, std::unique_ptr<Fixture>> cache;
  std::string key = std::string(pq.id) + (hash ? "-hash" : "") + "/" + backend + "/" + std::to_string(n);
  auto& f = cache[key];
  if (!f) {
    f = std::make_unique<Fixture>();
    SessionOptions o;
    o.backends = parse_backend_list(backend);
    o.format = OutFormat::None;
    f->session = std::make_unique<Session>(o, f->out, f->err);
    Structure st = !pq.keyed ? Structure::Heap : hash ? Structure::Hash : Structure::Isam;
    f->session->catalog().add(make_parts(n, pq.keyed, st));
    f->session->run(std::make_shared<Source>("<bench>", "range of p is parts range of q is parts"));
    f->src = std::make_shared<Source>(std::string("<") + pq.id + ">", pq.text);
    auto stmts = frontend::parse(f->src);
    f->q = frontend::bind(*stmts[0], f->session->ranges(), f->session->catalog(), f->src);
  }
  return *f;
}

void bm_paper(benchmark::State& state, const PaperQuerySpec* pq, std::string backend, uint64_t n, bool hash) {
  Fixture& f = fixture(*pq, n, backend, hash);
  Runner& r = *f.session->runners()[0];
  Result warm = f.session->evaluate(f.q, r, f.src, false);  // fills the plan cache
  if (!warm.ok) {
    state.SkipWithError(warm.error.message.c_str());
    return;
  }
  // Timed by the statement's own run_ns (manual time): prepare is off the
  // clock, and the checksum (taken by the warm run above) is left out of the
  // timed runs, as in the report (docs/stats.md).
  uint64_t rows = 0;
  for (auto _ : state) {
    Result res = f.session->evaluate(f.q, r, f.src, false, false);
    rows = res.checksum.rows;
    benchmark::DoNotOptimize(rows);
    state.SetIterationTime(double(res.stats.run_ns) * 1e-9);
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
  state.counters["rows"] = double(warm.nrows());
  state.counters["prepares"] = double(warm.stats.prepares);
  state.counters["cache_hits"] = double(warm.stats.cache_hits);
  state.counters["ns_per_tuple"] =
      benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void bm_prepare(benchmark::State& state, const PaperQuerySpec* pq, std::string backend) {
  Fixture& f = fixture(*pq, pq->keyed ? 3360 : 210, backend);
  Runner& r = *f.session->runners()[0];
  uint64_t prepare_ns = 0, n = 0;
  for (auto _ : state) {
    r.cache().clear();
    Result res = f.session->evaluate(f.q, r, f.src, false);
    prepare_ns += res.stats.prepare_ns;
    ++n;
  }
  state.counters["prepare_ns"] = double(prepare_ns) / double(n ? n : 1);
}

// The physical-limit column: the hand-written loop over the same pages.
void bm_reference(benchmark::State& state, const PaperQuerySpec* pq, uint64_t n) {
  Fixture& f = fixture(*pq, n, "interp");
  const Relation& rel = *f.session->catalog().find("parts");
  bench::ReferenceResult rr;
  rr.verify = false;  // the checksum is off the clock, as the engine's
  std::string err;
  for (auto _ : state) {
    if (!bench::run_reference(pq->id[0], rel, &rr, &err)) {
      state.SkipWithError(err.c_str());
      return;
    }
    benchmark::DoNotOptimize(rr.rows);
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
  state.counters["rows"] = double(rr.rows);
}

// SQLite on the same data: the external reference engine.
void bm_sqlite(benchmark::State& state, const PaperQuerySpec* pq, uint64_t n) {
  static std::map<std::string, std::unique_ptr<SqliteRef>> dbs;
  auto& db = dbs[std::to_string(n) + (pq->keyed ? "k" : "")];
  if (!db) db = SqliteRef::open(n, pq->keyed, pq->keyed);
  std::string sql = SqliteRef::sql_for(pq->id[0]), err;
  uint64_t rows = 0, sum = 0;
  for (auto _ : state) {
    if (!db->run(sql, &rows, &sum, &err)) {
      state.SkipWithError(err.c_str());
      return;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
  state.counters["rows"] = double(rows);
}

// The timing module's settings and statistics on a registered benchmark:
// median (the figure), min, max and spread over the repetitions.
double stat_min(const std::vector<double>& v) { return harness::summarise(v).min; }
double stat_max(const std::vector<double>& v) { return harness::summarise(v).max; }
double stat_spread(const std::vector<double>& v) { return harness::summarise(v).spread; }

benchmark::internal::Benchmark* timed(benchmark::internal::Benchmark* b) {
  return b->MinTime(kDefaultMinSeconds)
      ->Repetitions(kDefaultReps)
      ->ComputeStatistics("min", stat_min)
      ->ComputeStatistics("max", stat_max)
      ->ComputeStatistics("spread", stat_spread, benchmark::StatisticUnit::kPercentage);
}

}  // namespace

int main(int argc, char** argv) {
  register_all_backends();
  std::vector<std::string> labels;
  for (const auto& b : registered_backends())
    for (const auto& m : b.modes)
      if (std::find(b.test_modes.begin(), b.test_modes.end(), m) == b.test_modes.end())
        labels.push_back(b.name + ":" + m);
  for (const auto& pq : paper_queries()) {
    // Fixtures are built on first use, so the large sizes cost nothing unless
    // selected (--benchmark_filter); the keyed relation keeps the paper's
    // 130-of-3360 overflow proportion at every size.
    std::vector<uint64_t> all_sizes = pq.keyed ? std::vector<uint64_t>{3360, 100000, 1000000}
                                               : std::vector<uint64_t>{1, 210, 3360, 100000, 1000000, 10000000};
    for (uint64_t n : all_sizes) {
      if (bench::has_reference(pq.id[0]))
        timed(benchmark::RegisterBenchmark(("reference/" + std::string(pq.id) + "/" + std::to_string(n)).c_str(),
                                     bm_reference, &pq, n));
      timed(benchmark::RegisterBenchmark(("sqlite/" + std::string(pq.id) + "/" + std::to_string(n)).c_str(),
                                         bm_sqlite, &pq, n));
    }
    for (const auto& l : labels) {
      benchmark::RegisterBenchmark(("prepare/" + std::string(pq.id) + "/" + l).c_str(), bm_prepare, &pq, l);
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
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
