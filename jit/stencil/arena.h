// The executable arena stitched plans live in: one anonymous reservation made
// once per process, carved into page runs. W^X: a page is never writable and
// executable at once. Prepare writes into pages of an open window (read-write);
// the window's written pages are sealed (read-execute) in one mprotect before
// any prepared code runs (Arena::ready(), called on every entry, is a load and
// a compare when nothing is pending), so preparing a plan makes no system call
// and plans prepared back to back are sealed together. Windows are opened a
// run of pages at a time (one mprotect for many plans). Freed runs (the plan
// cache evicting a plan) are reused; reused pages are anonymous memory, so
// valgrind's --smc-check=all-non-file and perf see the new code.
//
// Trampolines: the arena's first page holds, for each external function
// stencils may call (code.h), `jmp *0(%rip)` and the function's address, so a
// stencil's rel32 call reaches any helper, however far from the arena it is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <atomic>
#include <map>
#include <mutex>

namespace quelkit::jit::stencil {

class Arena {
 public:
  static Arena& get();

  struct Span {
    uint8_t* p = nullptr;
    uint32_t pages = 0;
    explicit operator bool() const { return p != nullptr; }
  };
  // Page-aligned writable room for `bytes`; null if the reservation is full.
  Span allocate(size_t bytes);
  // Returns a span's pages (its code must never run again).
  void release(Span s);
  // Makes every page written since the last call executable. Cheap when
  // nothing is pending; callers run it before entering stitched code.
  void ready() {
    if (pending_.load(std::memory_order_relaxed)) seal();
  }
  void seal();

  // A stencil's call to external function `index` (code.h's QK_STENCIL_EXTERNS)
  // from `site`: the function itself when a rel32 reaches it, else its trampoline.
  uint64_t call_target(int index, const uint8_t* site) const;
  static void* extern_address(int index);

  // Counters: pages handed out and not released, the reservation's pages
  // ever touched, mprotect calls made.
  size_t live_pages() const { return live_pages_; }
  size_t touched_pages() const { return top_; }
  size_t protect_calls() const { return protect_calls_; }
  bool contains(const void* p) const { return p >= base_ && p < base_ + reserved_; }

  static constexpr size_t kPage = 4096;
  static constexpr size_t kReserve = size_t(1) << 30;  // address space only; rel32 reaches all of it
  static constexpr size_t kLeastReserve = size_t(16) << 20;  // under an address-space limit, down to this
  size_t reserved_bytes() const { return reserved_; }
  static constexpr uint32_t kWindowPages = 32;          // opened read-write at a time

 private:
  Arena();
  void protect(uint8_t* p, size_t pages, int prot);
  bool open_window(uint32_t pages);
  void seal_locked();

  std::mutex mu_;
  uint8_t* base_ = nullptr;
  size_t reserved_ = 0;
  uint32_t top_ = 0;                         // pages [0, top_) have been used at least once
  std::map<uint32_t, uint32_t> free_;        // free runs outside the window: first page -> pages
  // The window: [win_begin_, win_sealed_) sealed (read-execute), [win_sealed_,
  // win_next_) written and pending, [win_next_, win_end_) read-write and unused.
  uint32_t win_begin_ = 0, win_sealed_ = 0, win_next_ = 0, win_end_ = 0;
  std::atomic<bool> pending_{false};
  size_t live_pages_ = 0;
  size_t protect_calls_ = 0;
  uint8_t* trampolines_ = nullptr;
};

}  // namespace quelkit::jit::stencil
