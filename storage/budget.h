// What a statement may spend: its time (Ctrl-C cancels it) and its memory
// (one budget that relation pages, temporaries and results are charged
// against). Both end the statement with a runtime error that is rolled back
// like any other ("cancelled", "memory budget exceeded"), so neither a
// runaway query nor the kernel's OOM killer takes the session with it.
//
// Cancellation is a flag: the CLI's SIGINT handler sets it (a lock-free
// atomic store is async-signal-safe), the scan loop checks it between pages
// and tuple substitution between substituted tuples; back ends' page kernels
// run one page per call (or one batch's pages, each checked as it is queued),
// so no generated code needs to look at it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "frontend/source.h"

namespace quelkit::harness {

// ---- cancellation

void request_cancel() noexcept;  // async-signal-safe
bool cancel_requested() noexcept;
void clear_cancel() noexcept;
// The statement error "cancelled" (runtime, code QK_ERR_CANCELLED; no position:
// whoever catches it places it on the statement).
[[noreturn]] void throw_cancelled();
inline void check_cancel() {
  if (cancel_requested()) throw_cancelled();
}
// check_cancel() at the first call and every kEvery calls after, for steps
// too small to check each (a sort's comparisons, rows printed): cancelled
// within moments of the request at a cost of a counter.
class CancelPoll {
 public:
  static constexpr uint32_t kEvery = 1024;
  void operator()() {
    if (++n_ == kEvery) {
      n_ = 0;
      check_cancel();
    }
  }

 private:
  uint32_t n_ = kEvery - 1;
};

// While one lives, Ctrl-C interrupts a read, write or open that waits (on a
// pipe, a FIFO, a terminal): the call fails with EINTR, the caller checks
// the flag. Elsewhere SIGINT's handler restarts such calls (SA_RESTART), so
// a statement's I/O is not cut short by a Ctrl-C meant for it, and would
// wait for a writer that never comes: `copy from` a FIFO ignored Ctrl-C
// until its writer closed, then kept the rows. Nothing changes where no
// handler is installed (tests, the library used alone).
class InterruptibleIo {
 public:
  InterruptibleIo();
  ~InterruptibleIo();
  InterruptibleIo(const InterruptibleIo&) = delete;
  InterruptibleIo& operator=(const InterruptibleIo&) = delete;

 private:
  bool changed_ = false;
};

// ---- memory

// Bytes of memory available to this process now: MemAvailable of
// /proc/meminfo, else physical pages * page size from sysconf.
uint64_t available_memory();

// "BYTES", "N[KMGT]" (binary units, optional B or iB) or "N%" (of
// available_memory()); false with *err set when malformed or zero.
bool parse_memory_size(const std::string& text, uint64_t* bytes, std::string* err);
// An amount of memory for a message, in the unit that shows it: "512 bytes",
// "700 KiB", "7.5 MiB", "64 MiB", "1.5 GiB" (a budget of 700K is not "1 MiB").
std::string memory_size_text(uint64_t bytes);

// One process-wide account. The default limit is half of available_memory()
// when first used; `--memory-budget` sets it.
class MemoryBudget {
 public:
  uint64_t limit() const { return limit_; }
  uint64_t used() const { return used_; }
  void set_limit(uint64_t bytes) { limit_ = bytes; }
  // Throws the statement error "memory budget exceeded" if `more` bytes would
  // not fit; charges nothing.
  void check(uint64_t more, const std::string& what) const;
  void charge(uint64_t n, const std::string& what) {  // check, then charge
    check(n, what);
    used_ += n;
  }
  void force(uint64_t n) noexcept { used_ += n; }  // copies of charged storage
  void release(uint64_t n) noexcept { used_ -= n < used_ ? n : used_; }

 private:
  friend MemoryBudget& memory_budget();
  MemoryBudget();
  uint64_t limit_;
  uint64_t used_ = 0;
};
MemoryBudget& memory_budget();

// The bytes one buffer holds, kept in the budget for as long as it lives.
// Copies charge again (without a check: the original was admitted).
class MemCharge {
 public:
  MemCharge() = default;
  MemCharge(const MemCharge& o) : bytes_(o.bytes_) { memory_budget().force(bytes_); }
  MemCharge(MemCharge&& o) noexcept : bytes_(std::exchange(o.bytes_, 0)) {}
  MemCharge& operator=(const MemCharge& o) {
    if (this != &o) {
      memory_budget().force(o.bytes_);
      reset();
      bytes_ = o.bytes_;
    }
    return *this;
  }
  MemCharge& operator=(MemCharge&& o) noexcept {
    if (this != &o) {
      reset();
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  ~MemCharge() { reset(); }

  // Makes the charge `bytes`: growth is checked (throws, changing nothing),
  // shrinking releases.
  void set(uint64_t bytes, const std::string& what) {
    if (bytes > bytes_) memory_budget().charge(bytes - bytes_, what);
    else memory_budget().release(bytes_ - bytes);
    bytes_ = bytes;
  }
  void reset() noexcept {
    memory_budget().release(bytes_);
    bytes_ = 0;
  }
  uint64_t bytes() const { return bytes_; }

 private:
  uint64_t bytes_ = 0;
};

// Makes room for `need` elements in v, charging its capacity to c first (so
// an over-budget request fails before anything is allocated). Grows by half
// again, or exactly to `need` when that much more would not fit.
template <class V>
void reserve_charged(V& v, size_t need, MemCharge& c, const std::string& what) {
  if (need <= v.capacity()) return;
  const size_t elem = sizeof(typename V::value_type);
  size_t cap = std::max(need, v.capacity() + v.capacity() / 2);
  try {
    c.set(uint64_t(cap) * elem, what);
  } catch (QuelError&) {
    cap = need;
    c.set(uint64_t(cap) * elem, what);
  }
  v.reserve(cap);
}

}  // namespace quelkit::harness
