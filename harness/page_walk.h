// The one page walk: how every scan visits a page's live tuples. The harness's
// tuple-at-a-time loop, each back end's page kernel (threaded, vector,
// stencil, and the LLVM and gccjit kernels that jit/codegen.cpp generates)
// and bench's reference loops all follow this policy, so a comparison of back
// ends measures their evaluation of a tuple, not different scan loops.
//
// The policy, per page (generated code emits exactly these steps):
//   1. Page boundary. The caller checks cancel_requested() (budget.h) before
//      each page; a kernel runs one page per call, so no kernel checks it.
//   2. Prefetch, once, before the first tuple, of the page after the next.
//      Tuples fill a page from its end down (page.h), so line 0's tuple ends
//      the page, and a heap scan's next page most likely starts right there:
//      span = line[0] + tuple_len bytes from this page, and the page after
//      it at 2 * span. Prefetch that page whole, a cache line (64 bytes) at a
//      time, span bytes (a page's size) but at most 4 KiB: 16 prefetches per
//      1 KiB page rather than one per tuple. Measured (the kit's 2-core
//      machine, one sitting, 1M narrow tuples, median of 11): the burst for
//      the next page took (e) on threaded:goto from 5.5-6.3 ms to 2.6-2.9 ms
//      against a prefetch of each tuple's counterpart as it is reached. One
//      page ahead is not far enough for a compiled kernel, which finishes a
//      1 KiB page (26 tuples) in well under DRAM's latency: two ahead took
//      stencil:fused on (d) from 5.6-6.1 to 4.7-4.9 ns a tuple at 1M (5.1 to
//      4.2 at 10M), llvm:fused from 4.8-5.1 to 4.0-4.6, both on (c) by 10%,
//      threaded:goto on (b) from 2.9-3.5 to 2.5-2.8; vector, whose batches
//      gather ten pages before evaluating them, lost 5-8% on (c) and (d), and
//      llvm:fused on (b) 5-10% (interleaved processes, 3 rounds at 1M, 2 at
//      10M; docs/DESIGN.md).
//   3. Line table in order, i = 0 .. nlines-1; line[i] == 0 is a deleted
//      tuple: skip it (a branch predicted not taken). No other prefetch.
// Prefetches never fault: a wrong guess (an overflow chain, a deleted line 0,
// the last page) costs only the hint, so no step checks for it.
//
// A walk's count of live tuples is the number of visits: a scan needs no
// separate pass over the line table to count what it scanned.
#pragma once

#include <cstdint>

#include "harness/page.h"

namespace quelkit::harness {

// Bytes from a page to where the next page of a heap most likely starts
// (step 2). A hint only.
inline uint32_t next_page_span(const uint8_t* pg, uint32_t tuple_len) {
  return uint32_t(load<uint16_t>(pg + kPageHeader)) + tuple_len;
}

constexpr uint32_t kPrefetchLine = 64, kPrefetchMax = 4096, kPrefetchAhead = 2;

// Step 2: the page after the next, whole, a cache line at a time.
inline __attribute__((always_inline)) void prefetch_page_ahead(const uint8_t* pg, uint32_t tuple_len) {
  const uint32_t span = next_page_span(pg, tuple_len);
  const uint32_t size = span < kPrefetchMax ? span : kPrefetchMax;
  for (uint32_t o = 0; o < size; o += kPrefetchLine) __builtin_prefetch(pg + kPrefetchAhead * span + o);
}

// Visits the live tuples of `pg` in line order, following the policy above:
// visit(line, tuple) returns true to go on, false to stop at that line.
// Returns the line it stopped at, or nlines when it visited the whole page.
// Always inlined, so the visit is part of the loop (no call per tuple).
template <class Visit>
inline __attribute__((always_inline)) uint32_t walk_page(const uint8_t* pg, uint32_t tuple_len, Visit&& visit) {
  const uint32_t nl = page_nlines(pg);
  prefetch_page_ahead(pg, tuple_len);
  for (uint32_t i = 0; i < nl; ++i) {
    const uint16_t off = page_line(pg, i);
    if (__builtin_expect(off == 0, 0)) continue;
    if (!visit(i, pg + off)) return i;
  }
  return nl;
}

}  // namespace quelkit::harness
