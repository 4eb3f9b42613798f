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
//      (Tried: the LLVM, gccjit and stencil kernels handed 36 pages a call
//      through Prepared::run_pages, which saves the scan's per-call work, a
//      quarter of llvm's kernel time on a scan that selects nothing. (b) at
//      1M narrow tuples got slower, alternated processes: llvm:fused 2.0-2.1
//      -> 2.6 ns a tuple, gccjit:fused 1.6-1.9 -> 2.2, stencil 1.7-1.9 ->
//      2.2, the reference loop unchanged. Not understood; not kept.)
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
//      them. Measured (the kit's 2-core machine, 1M narrow tuples,
//      interleaved processes, 2-3 rounds; ns per tuple, the next page into
//      L1 -> this): stencil:fused (b) 4.1-4.6 -> 2.1-2.3, (c) 6.0 -> 3.3-3.4,
//      (d) 5.6-6.1 -> 2.9-3.0; llvm:fused (b) 3.2-3.6 -> 1.9-2.1, (c)
//      4.5-5.5 -> 3.1-3.6, (d) 4.8-5.1 -> 2.1-2.5; threaded:goto about even
//      ((b) 2.9-3.5 -> 3.0-3.2); vector, whose batches gather ten pages
//      (and so issue their prefetches) before evaluating them, 5-20% slower
//      on (c) and (d). 10M: the same. Tried and measured worse: two pages
//      ahead into L1 alone, two ahead into L2 alone, three ahead into L2.
//      Why four, not two, pages ahead into L2: on a later host of the same
//      kind (AMD EPYC with AVX-512, 2 cores) two pages (2 KiB) were too
//      short for the kernels that finish a page fastest: llvm:fused ran (c)
//      at 1M 40% slower than gccjit:fused from the same page in the same
//      process, stalled on the tuple loads (47% of its samples), and was
//      the fastest of them with 4 KiB pages or 10K-100K tuples (in cache).
//      Measured there (1M narrow tuples, four binaries alternated, two
//      rounds each; ns per tuple, two -> three -> four -> six pages ahead):
//      llvm:fused (b) 1.8-2.0 -> 1.5-1.6 -> 1.3-1.5 -> 1.4, (c) 2.9-3.0 ->
//      2.1 -> 1.9-2.2 -> 1.7-1.8, (d) 2.3 -> 2.1-2.2 -> 1.7-1.8 -> 1.9-2.1;
//      the reference loop (b) 2.0 -> 1.7 -> 1.4-1.5 -> 1.3-1.4, (d) 2.0 ->
//      1.8 -> 1.6-1.7 -> 1.6; stencil:fused (b) 1.9-2.2 -> 1.6 -> 1.3;
//      gccjit:fused, threaded:goto and the stream floor even; vector:inplace
//      (b) 1.5-1.6 -> 1.7 at four (its batches prefetch ten pages before
//      evaluating them), (c) and (d) even. 10M: four at least as fast as two
//      everywhere. Six pages made threaded and vector slower.
//      The burst replaced (measured on (e), threaded:goto) a prefetch of
//      each tuple's counterpart as it is reached: 5.5-6.3 ms -> 2.6-2.9.
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
inline __attribute__((always_inline)) void prefetch_page_ahead(const uint8_t* pg, uint32_t tuple_len) {
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
