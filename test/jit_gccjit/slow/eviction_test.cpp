// Evicted plans release their code: 300 distinct qualifications prepared one
// after another through a plan cache of 16 leave at most 16 results (and 16
// mapped shared objects) loaded, and clearing the cache releases the rest.
// 300 compiles of libgccjit's tens of milliseconds each: slow (labelled
// no_sanitize; the sanitizer run skips it).
#include <gtest/gtest.h>

#ifdef QUELKIT_HAVE_GCCJIT

#include <fstream>

#include "bench/workloads/parts.h"
#include "jit/gccjit/gccjit.h"
#include "test/jit_llvm/support.h"
#include "test/distinct_shapes.h"

namespace quelkit::test {
namespace {

// Shared objects libgccjit built that are mapped into this process (their
// files are deleted once loaded: "/tmp/libgccjit-XXXXXX/fake.so (deleted)").
size_t mapped_objects() {
  std::ifstream f("/proc/self/maps");
  std::string line, last;
  size_t n = 0;
  while (std::getline(f, line)) {
    size_t p = line.find("/libgccjit-");
    if (p == std::string::npos) continue;
    std::string path = line.substr(p);
    if (path != last) ++n;  // one object maps several consecutive segments
    last = path;
  }
  return n;
}

TEST(GccjitEviction, ThreeHundredDistinctPlansReleaseTheirResults) {
  constexpr size_t kCapacity = 16;
  auto o = options("gccjit:fused", 0, false);
  o.plan_cache_capacity = kCapacity;
  std::ostringstream out, err;
  harness::Session s(o, out, err);
  s.catalog().add(harness::make_parts(40, false, harness::Structure::Heap));
  ASSERT_TRUE(s.run(std::make_shared<Source>("m.quel", "range of p is parts")));
  const size_t base = jit::gccjit::loaded_results(), base_maps = mapped_objects();
  size_t most = 0;
  for (int i = 0; i < 300; ++i) {
    // A different shape: a different plan key, a new compile (a different literal is not one).
    std::string text = "retrieve (p.pnum, p.qoh) where " + distinct_shape_qual(i);
    ASSERT_TRUE(s.run(std::make_shared<Source>("m.quel", text))) << err.str();
    most = std::max(most, jit::gccjit::loaded_results() - base);
    if (s.reports().size() > 100) s.reports().clear();
  }
  harness::PlanCache& cache = s.runners()[0]->cache();
  EXPECT_EQ(cache.size(), kCapacity);
  EXPECT_GE(cache.evictions(), 300u - kCapacity);
  EXPECT_LE(most, kCapacity) << "evicted plans must release their results";
  EXPECT_EQ(jit::gccjit::loaded_results(), base + kCapacity);
  EXPECT_LE(mapped_objects(), base_maps + kCapacity) << "released results are unmapped";
  cache.clear();
  EXPECT_EQ(jit::gccjit::loaded_results(), base);
  EXPECT_EQ(mapped_objects(), base_maps);
}

}  // namespace
}  // namespace quelkit::test

#endif  // QUELKIT_HAVE_GCCJIT
