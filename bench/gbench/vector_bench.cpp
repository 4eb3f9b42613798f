// The vectorized back end's own axes, as Google Benchmark suites: batch size
// and page size (batches span pages: the harness hands the kernel a batch's
// worth of pages per call), for each mode,
// on the paper's queries (b)-(e), beside threaded:goto and llvm:fused on the
// same pages. Names: vector/<query>/<backend:mode>/page:<bytes>/batch:<tuples>/<tuples>
// (batch:0 for the back ends without one). Each query is its QUEL text from
// the report's table; execution only, with a warm plan cache.
#include <benchmark/benchmark.h>

#include "bench/gbench/context.h"
#include "bench/gbench/fixture.h"
#include "backends/backends.h"
#include "bench/measure/paper_queries.h"
#include "engine/session.h"

using namespace quelkit;
using namespace quelkit::harness;

namespace {

// One session per benchmark (bench/fixture.h).
using bench::Fixture;
Fixture& fixture(const PaperQuerySpec& pq, const std::string& backend, uint32_t page, uint32_t batch, uint64_t n) {
  return bench::fixture(pq, {.backend = backend,
                             .tuples = n,
                             .structure = pq.keyed ? Structure::Isam : Structure::Heap,
                             .page = page,
                             .batch = batch});
}

void bm_query(benchmark::State& state, const PaperQuerySpec* pq, std::string backend, uint32_t page, uint32_t batch,
              uint64_t n) {
  Fixture& f = fixture(*pq, backend, page, batch, n);
  Runner& r = *f.session->runners()[0];
  Result warm = f.session->evaluate(f.q, r, f.src, false);
  if (!warm.ok) {
    // The counters even so: Google Benchmark 1.7.1's CSV reporter takes its
    // columns from the first run and aborts on a later run with others.
    state.counters["rows"] = 0;
    state.counters["ns_per_tuple"] = 0;
    state.SkipWithError(warm.error.message.c_str());
    return;
  }
  // Timed by the statement's own run_ns (manual time). The warm run above
  // checksummed the rows; the timed ones leave the checksum out, as the
  // report's do (docs/stats.md).
  uint64_t run_ns = 0;
  for (auto _ : state) {
    Result res = f.session->evaluate(f.q, r, f.src, false, false);
    benchmark::DoNotOptimize(res.checksum.rows);
    state.SetIterationTime(double(res.stats.run_ns) * 1e-9);
    run_ns += res.stats.run_ns;
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
  state.counters["rows"] = double(warm.nrows());
  // Nanoseconds per tuple, Time / tuples: a plain counter, so the value is
  // the same in the console, JSON and CSV (an inverted rate would be seconds).
  state.counters["ns_per_tuple"] =
      state.iterations() ? double(run_ns) / (double(state.iterations()) * double(n)) : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  register_all_backends();
  std::vector<std::string> vector_modes, others;
  for (const auto& b : registered_backends()) {
    if (b.name == "vector")
      for (const auto& m : b.modes) vector_modes.push_back("vector:" + m.name);
    if (b.name == "threaded") others.push_back("threaded:goto");
    if (b.name == "llvm") others.push_back("llvm:fused");
  }
  const uint64_t n = 1000000;
  for (const auto& pq : paper_queries()) {
    std::string id = pq.id;
    if (id < "b" || id > "e") continue;
    for (uint32_t page : {1024u, 16384u, 65536u}) {
      auto add = [&](const std::string& label, uint32_t batch) {
        std::string name = "vector/" + id + "/" + label + "/page:" + std::to_string(page) + "/batch:" +
                           std::to_string(batch) + "/" + std::to_string(n);
        benchmark::RegisterBenchmark(name.c_str(), bm_query, &pq, label, page, batch, n)->MinTime(0.1)->UseManualTime();
      };
      for (const auto& l : others) add(l, 0);
      for (const auto& l : vector_modes)
        for (uint32_t batch : {64u, 96u, 128u, 192u, 256u, 1024u}) add(l, batch);
    }
  }
  std::vector<std::string> all = others;
  all.insert(all.end(), vector_modes.begin(), vector_modes.end());
  bench::add_kit_context(all, "1024,16384,65536 (in each name)");
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
