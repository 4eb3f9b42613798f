// Chunked result rows and the pool of chunks they are taken from
// (result_rows.h). Chunks double from 16 KiB to 1 MiB, so a small result
// takes little and a large one few chunks; the pool keeps freed chunks by
// size for the next result, up to a quarter of the memory budget's limit.
#include "engine/result_rows.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <utility>

namespace quelkit::harness {

namespace {

constexpr int kMinShift = 14, kMaxShift = 20;  // pooled chunk sizes: 16 KiB .. 1 MiB
constexpr std::align_val_t kAlign{64};         // a row run starts on a cache line
constexpr size_t kPopulateMin = size_t(256) << 10;  // populate() chunks of 256 KiB and more

struct Pool {
  std::mutex mu;
  std::array<std::vector<uint8_t*>, kMaxShift - kMinShift + 1> free;
  uint64_t bytes = 0;
};
Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: results may outlive static destruction order
  return *p;
}

// The smallest chunk a thread gave back last, taken again without the
// pool's lock: a short statement's result takes one and gives it back. Freed
// when the thread ends; a result let go after that (a static one, at exit)
// gives its chunk to the pool (the flags are trivial, valid all along).
thread_local uint8_t* small_chunk = nullptr;
thread_local bool small_chunk_closed = false;
struct SmallChunkFree {
  ~SmallChunkFree() {
    ::operator delete(std::exchange(small_chunk, nullptr), kAlign);
    small_chunk_closed = true;
  }
};
thread_local SmallChunkFree small_chunk_free;  // made at its first use in a thread

int size_class(size_t bytes) {
  for (int s = kMinShift; s <= kMaxShift; ++s)
    if (bytes == size_t(1) << s) return s - kMinShift;
  return -1;
}

// Faults a fresh chunk's pages in with one system call (Linux 5.14's
// MADV_POPULATE_WRITE), where the kernel would otherwise take a fault per
// 4 KiB page as the scan first writes each: one pause in the page that asks
// for the chunk instead of a fault every 170 rows of 24 bytes. The time is
// the statement's either way; what changes is that a tier timing its first
// pages (adaptive/) measures tuples, not page faults spread over all of them.
// Best effort: on an older kernel, or for memory malloc took from its heap,
// the pages fault in as before.
void populate(uint8_t* m, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  // Chunks below this come from malloc's heap, mostly faulted in already;
  // a system call for each would be paid by every small result ((f) makes
  // thousands), for little.
  if (bytes < kPopulateMin) return;
  const uintptr_t page = 4096, b = (reinterpret_cast<uintptr_t>(m) + page - 1) & ~(page - 1),
                  e = (reinterpret_cast<uintptr_t>(m) + bytes) & ~(page - 1);
  if (e > b) (void)madvise(reinterpret_cast<void*>(b), e - b, MADV_POPULATE_WRITE);
#else
  (void)m;
  (void)bytes;
#endif
}

uint8_t* take(size_t bytes) {
  if (bytes == size_t(1) << kMinShift && small_chunk) return std::exchange(small_chunk, nullptr);
  if (int c = size_class(bytes); c >= 0) {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    if (!p.free[size_t(c)].empty()) {
      uint8_t* m = p.free[size_t(c)].back();
      p.free[size_t(c)].pop_back();
      p.bytes -= bytes;
      return m;
    }
  }
  uint8_t* m = static_cast<uint8_t*>(::operator new(bytes, kAlign));
  populate(m, bytes);
  return m;
}

void give_back(uint8_t* m, size_t bytes) {
  if (bytes == size_t(1) << kMinShift && !small_chunk && !small_chunk_closed) {
    (void)&small_chunk_free;  // (its destructor registered for this thread)
    small_chunk = m;
    return;
  }
  if (int c = size_class(bytes); c >= 0) {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    if (p.bytes + bytes <= memory_budget().limit() / 4) {
      p.free[size_t(c)].push_back(m);
      p.bytes += bytes;
      return;
    }
  }
  ::operator delete(m, kAlign);
}

}  // namespace

void trim_result_pool() {
  ::operator delete(std::exchange(small_chunk, nullptr), kAlign);
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  for (int c = 0; c <= kMaxShift - kMinShift; ++c) {
    for (uint8_t* m : p.free[size_t(c)]) ::operator delete(m, kAlign);
    p.free[size_t(c)].clear();
  }
  p.bytes = 0;
}

ResultRows::ResultRows(ResultRows&& o) noexcept
    : len_(o.len_),
      rows_(std::exchange(o.rows_, 0)),
      chunks_(std::move(o.chunks_)),
      charge_(std::move(o.charge_)),
      what_(std::move(o.what_)) {
  o.chunks_.clear();
}

ResultRows& ResultRows::operator=(ResultRows&& o) noexcept {
  if (this != &o) {
    clear();
    len_ = o.len_;
    rows_ = std::exchange(o.rows_, 0);
    chunks_ = std::move(o.chunks_);
    o.chunks_.clear();
    charge_ = std::move(o.charge_);
    what_ = std::move(o.what_);
  }
  return *this;
}

uint8_t* ResultRows::room(size_t min_rows, size_t* room) {
  const size_t len = len_ ? len_ : 1;  // rows of no columns take no bytes: count them in a byte each
  if (!chunks_.empty()) {
    Chunk& c = chunks_.back();
    const size_t left = c.bytes / len - c.rows;
    if (left >= min_rows && left) {
      *room = left;
      return c.mem + c.rows * len_;
    }
  }
  // Double the last chunk, within the pooled sizes, or exactly what is asked.
  size_t bytes = chunks_.empty() ? size_t(1) << kMinShift : std::min(chunks_.back().bytes * 2, size_t(1) << kMaxShift);
  const size_t need = std::max<size_t>(min_rows, 1) * len;
  while (bytes < need && bytes < (size_t(1) << kMaxShift)) bytes *= 2;
  if (bytes < need) bytes = need;
  charge_.set(charge_.bytes() + bytes, what_);  // throws before anything is taken
  Chunk c{take(bytes), bytes, 0, rows_};
  chunks_.push_back(c);
  *room = bytes / len;
  return c.mem;
}

void ResultRows::commit(size_t n) {
  chunks_.back().rows += n;
  rows_ += n;
}

void ResultRows::append(const uint8_t* rows, size_t n) {
  while (n) {
    size_t fit = 0;
    uint8_t* at = room(1, &fit);
    const size_t k = std::min(n, fit);
    if (len_) std::memcpy(at, rows, k * len_);
    commit(k);
    rows += k * len_;
    n -= k;
  }
}

const uint8_t* ResultRows::row(size_t i) const {
  auto c = std::upper_bound(chunks_.begin(), chunks_.end(), i, [](size_t x, const Chunk& k) { return x < k.first; });
  --c;  // the last chunk starting at or before row i
  return c->mem + (i - c->first) * len_;
}

void ResultRows::clear() {
  for (const Chunk& c : chunks_) give_back(c.mem, c.bytes);
  chunks_.clear();
  rows_ = 0;
  charge_.reset();
}

bool operator==(const ResultRows& a, const ResultRows& b) {
  if (a.len_ != b.len_ || a.rows_ != b.rows_) return false;
  for (size_t i = 0; i < a.rows_; ++i)
    if (a.len_ && std::memcmp(a.row(i), b.row(i), a.len_) != 0) return false;
  return true;
}

}  // namespace quelkit::harness
