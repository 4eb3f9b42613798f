// The one page walk: how every scan visits a page's live tuples. The harness's
// tuple-at-a-time loop, each back end's page kernel (threaded, vector,
// stencil, and the LLVM and gccjit kernels that jit/codegen.cpp generates)
// and bench's reference loops all follow this policy, so a comparison of back
// ends measures their evaluation of a tuple, not different scan loops.
//
// The policy, per page (generated code emits exactly these steps):
//   1. Page boundary. The caller checks cancel_requested() (budget.h) before
//      each page; a kernel runs one page per call (vector's, whose batches
//      span pages, the pages of one batch: scan.cpp queues them, checking
//      each), so no kernel checks it.
//      (Several pages a call were tried for the compiled kernels, to save
//      the scan's per-call work, and made them slower for reasons not
//      understood: not kept. docs/DESIGN.md, "Measurements", page walk.)
//   2. Prefetch, once, before the first tuple, at two distances. Tuples
//      fill a page from its end down (page.h), so line 0's tuple ends the
//      page, and a heap scan's next page most likely starts right there:
//      span = line[0] + tuple_len bytes from this page. The fourth page ahead
//      (at kPrefetchAhead * span) is fetched from memory into L2
//      (prefetcht1), and the next page (at span), which that prefetch brought
//      into L2 three pages ago, into L1 (prefetcht0). Each whole, a cache line
//      (64 bytes) at a time, span bytes (a page's size) but at most 4 KiB:
//      32 prefetches per 1 KiB page rather than one per tuple.
//      Why: a compiled kernel finishes a 1 KiB page (26 narrow tuples) in
//      well under DRAM's latency, so a prefetch of the next page only was
//      still in flight when the kernel got there, and prefetching two pages
//      ahead into L1 filled its miss buffers while the row stores wanted
//      them. Two distances made the compiled kernels markedly faster and
//      cost threaded code nothing; vector, whose batches gather ten pages
//      (and so issue their prefetches) before evaluating them, pays a little.
//      Why four, not two, pages ahead into L2: two were too short for the
//      kernels that finish a page fastest, which stalled on the tuple loads;
//      four was at least as fast as two for every back end at 10M, six made
//      threaded and vector slower.
//      The burst replaced a prefetch of each tuple's counterpart as it is
//      reached, which it beat. The figures, the distances tried and the
//      machines: docs/DESIGN.md, "Measurements", page walk.
//   3. Line table in order, i = 0 .. nlines-1; line[i] == 0 is a deleted
//      tuple: skip it (a branch predicted not taken). No other prefetch.
// Prefetches never fault: a wrong guess (an overflow chain, a deleted line 0,
// the last page) costs only the hint, so no step checks for it.
//
// A walk's count of live tuples is the number of visits: a scan needs no
// separate pass over the line table to count what it scanned.
#pragma once

#include <cstdint>

#include "storage/page.h"
#include "runtime/inline.h"

namespace quelkit::harness {

// Bytes from a page to where the next page of a heap most likely starts
// (step 2). A hint only.
inline uint32_t next_page_span(const uint8_t* pg, uint32_t tuple_len) {
  return uint32_t(load<uint16_t>(pg + kPageHeader)) + tuple_len;
}

constexpr uint32_t kPrefetchLine = 64, kPrefetchMax = 4096, kPrefetchAhead = 4;

// Locality hints of the two prefetches (__builtin_prefetch's, LLVM's and
// libgccjit's third argument): 3 is prefetcht0 (into L1), 2 prefetcht1 (L2).
constexpr int kPrefetchNearLocality = 3, kPrefetchFarLocality = 2;

// Step 2: the next page into L1 and the fourth page ahead into L2, whole, a
// cache line at a time.
QK_INLINE void prefetch_page_ahead(const uint8_t* pg, uint32_t tuple_len) {
  const uint32_t span = next_page_span(pg, tuple_len);
  const uint32_t size = span < kPrefetchMax ? span : kPrefetchMax;
  for (uint32_t o = 0; o < size; o += kPrefetchLine) {
    __builtin_prefetch(pg + span + o, 0, kPrefetchNearLocality);
    __builtin_prefetch(pg + kPrefetchAhead * span + o, 0, kPrefetchFarLocality);
  }
}

// Visits the live tuples of `pg` in line order, following the policy above:
// visit(line, tuple) returns true to go on, false to stop at that line.
// Returns the line it stopped at, or nlines when it visited the whole page.
// Always inlined, so the visit is part of the loop (no call per tuple).
template <class Visit>
QK_INLINE uint32_t walk_page(const uint8_t* pg, uint32_t tuple_len, Visit&& visit) {
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
