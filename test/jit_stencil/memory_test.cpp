// Evicted plans return their arena pages: 10,000 distinct qualifications
// prepared one after another with a bounded plan cache leave at most the
// cache's worth of pages live, the arena's touched pages bounded, and resident
// memory after 10,000 at most that after 1,000 plus 16 MiB.
#include <gtest/gtest.h>

#ifdef QUELKIT_HAVE_STENCIL

#include <unistd.h>

#include <fstream>

#include "bench/workloads/parts.h"
#include "jit/stencil/arena.h"
#include "jit/stencil/stencil_backend.h"
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

TEST(StencilMemory, TenThousandDistinctPlansDoNotGrowMemory) {
#ifdef QUELKIT_SANITIZED
  // ASan's quarantine and shadow hold freed memory: resident size says nothing.
  GTEST_SKIP() << "resident memory means nothing under AddressSanitizer";
#endif
  constexpr size_t kCapacity = 64;
  for (const char* mode : {"stencil:fused", "stencil:qual"}) {
    SCOPED_TRACE(mode);
    auto o = options(mode, 1, false);
    o.plan_cache_capacity = kCapacity;
    std::ostringstream out, err;
    harness::Session s(o, out, err);
    s.catalog().add(harness::make_parts(40, false, harness::Structure::Heap));
    ASSERT_TRUE(s.run(std::make_shared<Source>("m.quel", "range of p is parts")));
    jit::stencil::Arena& arena = jit::stencil::Arena::get();
    const size_t base = jit::stencil::live_pages();
    auto prepare = [&](int i) {
      // A different shape each: a new plan (a different literal is not one).
      std::string text = "retrieve (p.pnum, p.qoh) where " + distinct_shape_qual(i);
      ASSERT_TRUE(s.run(std::make_shared<Source>("m.quel", text))) << err.str();
      if (s.reports().size() > 100) s.reports().clear();
    };
    for (int i = 0; i < 1000; ++i) prepare(i);
    const uint64_t rss_1000 = resident_bytes();
    const size_t touched_1000 = arena.touched_pages();
    for (int i = 1000; i < 10000; ++i) prepare(i);
    const uint64_t rss_10000 = resident_bytes();
    EXPECT_EQ(s.runners()[0]->cache().size(), kCapacity);
    EXPECT_GE(s.runners()[0]->cache().evictions(), 10000u - kCapacity);
    // One page per plan (two for a fused plan whose per-tuple functions were made).
    EXPECT_LE(jit::stencil::live_pages(), base + 2 * kCapacity) << "evicted plans must return their pages";
    EXPECT_LE(arena.touched_pages(), touched_1000 + jit::stencil::Arena::kWindowPages)
        << "freed pages are reused, not new ones taken";
    EXPECT_LE(rss_10000, rss_1000 + (16u << 20)) << "resident after 1,000: " << (rss_1000 >> 20)
                                                 << " MiB, after 10,000: " << (rss_10000 >> 20) << " MiB";
    std::printf("%s: %zu arena pages touched, %zu live; resident %.1f MiB after 1,000 plans, %.1f MiB after 10,000; "
                "%zu mprotect calls in all\n",
                mode, arena.touched_pages(), jit::stencil::live_pages(), rss_1000 / 1048576.0,
                rss_10000 / 1048576.0, arena.protect_calls());
  }
}

}  // namespace
}  // namespace quelkit::test

#endif  // QUELKIT_HAVE_STENCIL
