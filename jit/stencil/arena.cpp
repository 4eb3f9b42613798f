// The arena (arena.h): page runs out of one reservation, protection changed
// a window at a time, never writable and executable at once.
#include "jit/stencil/arena.h"

#include <sys/mman.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>

#include "runtime/runtime.h"
#include "jit/stencil/code.h"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#define VALGRIND_DISCARD_TRANSLATIONS(a, n) ((void)(a), (void)(n))
#endif

namespace quelkit::jit::stencil {

namespace {

[[noreturn]] void fatal(const char* what) {
  std::fprintf(stderr, "quelkit: internal error: stencil arena: %s: %s\n", what, std::strerror(errno));
  std::abort();
}

constexpr size_t kTrampoline = 16;  // jmp *0(%rip); .quad address; 2 bytes of padding

}  // namespace

void* Arena::extern_address(int index) {
  // Generated from the list, so an entry cannot be out of its order; the
  // type picks the overload (::log is one of several under <cmath>).
  static void* const table[] = {
#define QK_STENCIL_EXTERN_ADDRESS(name, type) reinterpret_cast<void*>(static_cast<type>(&::name)),
      QK_STENCIL_EXTERNS(QK_STENCIL_EXTERN_ADDRESS)
#undef QK_STENCIL_EXTERN_ADDRESS
  };
  return table[index];
}

Arena& Arena::get() {
  static Arena* a = new Arena();  // lives as long as the process: plans may outlive statics
  return *a;
}

Arena::Arena() {
  // Address space only, but an address-space limit (ulimit -v) counts it:
  // a smaller reservation where the whole cannot be had, and none at all
  // leaves every allocation failing as a statement's error (stitch.cpp),
  // not the program aborting before its first statement.
  void* p = MAP_FAILED;
  size_t size = kReserve;
  for (; size >= kLeastReserve; size /= 4) {
    p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) break;
  }
  if (p == MAP_FAILED) return;
  base_ = static_cast<uint8_t*>(p);
  reserved_ = size;
  // Page 0: the trampolines, written once, then executable for good.
  protect(base_, 1, PROT_READ | PROT_WRITE);
  constexpr int n = 0
#define QK_STENCIL_EXTERN_COUNT(name, type) +1
      QK_STENCIL_EXTERNS(QK_STENCIL_EXTERN_COUNT)
#undef QK_STENCIL_EXTERN_COUNT
      ;
  static_assert(n * kTrampoline <= kPage);
  for (int i = 0; i < n; ++i) {
    uint8_t* t = base_ + size_t(i) * kTrampoline;
    const uint8_t jmp[6] = {0xff, 0x25, 0, 0, 0, 0};
    std::memcpy(t, jmp, 6);
    uint64_t a = reinterpret_cast<uint64_t>(extern_address(i));
    std::memcpy(t + 6, &a, 8);
    t[14] = t[15] = 0xcc;
  }
  protect(base_, 1, PROT_READ | PROT_EXEC);
  trampolines_ = base_;
  top_ = 1;
}

void Arena::protect(uint8_t* p, size_t pages, int prot) {
  if (!pages) return;
  ++protect_calls_;
  if (mprotect(p, pages * kPage, prot) != 0) fatal("mprotect");
}

uint64_t Arena::call_target(int index, const uint8_t* site) const {
  const int64_t a = int64_t(reinterpret_cast<uintptr_t>(extern_address(index)));
  const int64_t d = a - int64_t(reinterpret_cast<uintptr_t>(site)) - 4;
  if (d == int64_t(int32_t(d))) return uint64_t(a);
  return reinterpret_cast<uint64_t>(trampolines_ + size_t(index) * kTrampoline);
}

// A new read-write window of at least `need` pages: the old one's written
// pages sealed, its unwritten ones freed, then a free run (or untouched pages)
// opened with one mprotect.
bool Arena::open_window(uint32_t need) {
  seal_locked();
  if (win_next_ < win_end_) free_[win_next_] = win_end_ - win_next_;
  win_begin_ = win_next_ = win_end_ = 0;
  const uint32_t want = need > kWindowPages ? need : kWindowPages;
  auto take = [&](uint32_t first, uint32_t n) {
    win_begin_ = win_next_ = win_sealed_ = first;
    win_end_ = first + n;
    uint8_t* p = base_ + size_t(first) * kPage;
    protect(p, n, PROT_READ | PROT_WRITE);
    if (first < top_ && RUNNING_ON_VALGRIND) VALGRIND_DISCARD_TRANSLATIONS(p, size_t(n) * kPage);
  };
  // First fit among free runs of a whole window, then of what is needed.
  for (uint32_t min : {want, need}) {
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < min) continue;
      const uint32_t first = it->first, len = it->second, n = len < want ? len : want;
      free_.erase(it);
      if (len > n) free_[first + n] = len - n;
      take(first, n);
      return true;
    }
  }
  const size_t total = reserved_ / kPage;
  if (top_ + need > total) return false;
  const uint32_t n = top_ + want <= total ? want : need;
  const uint32_t first = top_;
  top_ += n;
  take(first, n);
  return true;
}

Arena::Span Arena::allocate(size_t bytes) {
  std::lock_guard<std::mutex> g(mu_);
  const uint32_t need = uint32_t((bytes + kPage - 1) / kPage);
  if (win_next_ + need > win_end_ && !open_window(need)) return {};
  Span s{base_ + size_t(win_next_) * kPage, need};
  win_next_ += need;
  pending_ = true;
  live_pages_ += need;
  return s;
}

void Arena::seal() {
  std::lock_guard<std::mutex> g(mu_);
  seal_locked();
}

void Arena::seal_locked() {
  if (!pending_) return;
  protect(base_ + size_t(win_sealed_) * kPage, win_next_ - win_sealed_, PROT_READ | PROT_EXEC);
  win_sealed_ = win_next_;
  pending_ = false;
}

void Arena::release(Span s) {
  if (!s) return;
  std::lock_guard<std::mutex> g(mu_);
  live_pages_ -= s.pages;
  uint32_t first = uint32_t((s.p - base_) / kPage), n = s.pages;
  // Coalesce with the neighbouring free runs.
  auto next = free_.lower_bound(first);
  if (next != free_.end() && next->first == first + n) {
    n += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == first) {
      first = prev->first;
      n += prev->second;
      free_.erase(prev);
    }
  }
  free_[first] = n;
}

}  // namespace quelkit::jit::stencil
