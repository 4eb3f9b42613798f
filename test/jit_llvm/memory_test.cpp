// Evicted plans release their code: preparing 10,000 distinct qualifications
// one after another with a bounded plan cache leaves at most the cache's worth
// of modules loaded, and resident memory after 10,000 is at most that after
// 1,000 plus 16 MiB, so a long session's memory is bounded by the cache, not
// by how many plans it ever prepared. Level 0 keeps the 10,000 compiles quick; what
// is freed does not depend on the level.
#include <gtest/gtest.h>

#ifdef QUELKIT_HAVE_LLVM

#include <unistd.h>

#include <fstream>

#include "bench/workloads/parts.h"
#include "jit/llvm/llvm.h"
#include "test/jit_llvm/support.h"
#include "test/distinct_shapes.h"

namespace quelkit::test {
namespace {

uint64_t resident_bytes() {
  std::ifstream f("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  f >> size >> resident;
  return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

TEST(LlvmMemory, TenThousandDistinctPlansDoNotGrowResidentMemory) {
#ifdef QUELKIT_SANITIZED
  // ASan's quarantine and shadow hold freed memory: resident size says nothing.
  GTEST_SKIP() << "resident memory means nothing under AddressSanitizer";
#endif
  constexpr size_t kCapacity = 64;
  auto o = options("llvm:fused", 0, false);
  o.plan_cache_capacity = kCapacity;
  std::ostringstream out, err;
  harness::Session s(o, out, err);
  s.catalog().add(harness::make_parts(40, false, harness::Structure::Heap));
  ASSERT_TRUE(s.run(std::make_shared<Source>("m.quel", "range of p is parts")));
  const size_t base = jit::llvmjit::loaded_modules();
  auto prepare = [&](int i) {
    // A different shape: a different plan key, a new compile (a different literal is not one).
    std::string text = "retrieve (p.pnum, p.qoh) where " + distinct_shape_qual(i);
    ASSERT_TRUE(s.run(std::make_shared<Source>("m.quel", text))) << err.str();
    if (s.reports().size() > 100) s.reports().clear();
  };
  for (int i = 0; i < 1000; ++i) prepare(i);
  const uint64_t rss_1000 = resident_bytes();
  for (int i = 1000; i < 10000; ++i) prepare(i);
  const uint64_t rss_10000 = resident_bytes();
  EXPECT_EQ(s.runners()[0]->cache().size(), kCapacity);
  EXPECT_GE(s.runners()[0]->cache().evictions(), 10000u - kCapacity);
  EXPECT_LE(jit::llvmjit::loaded_modules(), base + kCapacity) << "evicted plans must free their modules";
  EXPECT_LE(rss_10000, rss_1000 + (16u << 20)) << "resident after 1,000: " << (rss_1000 >> 20)
                                               << " MiB, after 10,000: " << (rss_10000 >> 20) << " MiB";
  std::printf("resident memory: %.1f MiB after 1,000 plans, %.1f MiB after 10,000\n", rss_1000 / 1048576.0,
              rss_10000 / 1048576.0);
}

}  // namespace
}  // namespace quelkit::test

#endif  // QUELKIT_HAVE_LLVM
