// The streaming floor and the scan reference (floor.h). Compiled like the rest
// of the kit, for the generic x86-64 ISA (no -march=native): the floor is what
// code built the way the kit's back ends are built can read, not what the
// widest vector unit of this machine could.
#include "bench/measure/floor.h"

#include <cstring>

#include "storage/page_walk.h"

namespace quelkit::bench {

uint64_t stream_bytes(const harness::Relation& r) { return uint64_t(r.npages()) * r.page_size(); }

uint64_t stream_floor(const harness::Relation& r) {
  if (r.npages() == 0) return 0;
  const uint8_t* p = r.page(0);
  const uint64_t words = stream_bytes(r) / 8;
  // Four accumulators: one dependency chain would measure add latency, not memory.
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, i = 0;
  for (; i + 4 <= words; i += 4) {
    uint64_t w[4];
    std::memcpy(w, p + i * 8, 32);
    s0 += w[0];
    s1 += w[1];
    s2 += w[2];
    s3 += w[3];
  }
  for (; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, p + i * 8, 8);
    s0 += w;
  }
  return s0 + s1 + s2 + s3;
}

uint64_t scan_reference(const harness::Relation& r) {
  const uint32_t len = r.tuple_len(), n = r.npages();
  uint64_t visits = 0, touch = 0;
  for (uint32_t pno = 0; pno < n; ++pno)
    harness::walk_page(r.page(pno), len, [&](uint32_t, const uint8_t* t) {
      uint64_t w;
      std::memcpy(&w, t, 8);
      touch ^= w;
      ++visits;
      return true;
    });
  // The touched words feed the result, so the loads stay; the visits are it.
  asm volatile("" : : "r"(touch));
  return visits;
}

}  // namespace quelkit::bench
