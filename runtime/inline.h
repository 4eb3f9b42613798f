// The one spelling of "always inline", and the short byte copy that projects
// a row, shared by every evaluator: the interpreter, threaded code, the vector
// primitives, the runtime's inline rules and the stencil bodies clang-19
// compiles at build time (jit/stencil), so none keeps a copy of its own.
// Header only, no library calls: a stencil may reference no symbol but its holes.
#pragma once

#include <stdint.h>

// Forces inlining where the hot loops must stay one straight run of code:
// QK_INLINE declares a function; a lambda, which cannot be declared inline,
// takes QK_INLINE_LAMBDA after its parameters. GCC's heuristics otherwise
// leave a per-row lambda out of line once its body grows (a call per row).
#define QK_INLINE_LAMBDA __attribute__((always_inline))
#define QK_INLINE inline QK_INLINE_LAMBDA

namespace quelkit::rt {

namespace copy_detail {
struct B16 {
  uint64_t x[2];
};
struct B32 {
  uint64_t x[4];
};
template <class W>
QK_INLINE void move_at(uint8_t* d, const uint8_t* s, uint32_t at) noexcept {
  W w;
  __builtin_memcpy(&w, s + at, sizeof w);
  __builtin_memcpy(d + at, &w, sizeof w);
}
}  // namespace copy_detail

// Copies n bytes (a character attribute: short) with fixed-size moves, the
// last overlapping the one before: a variable-length memcpy is a call (or
// `rep movsb`) whose start-up costs more than the copy, and a stencil may
// not call it. n is fixed per node, so the branches are predicted.
QK_INLINE void copy_short(uint8_t* d, const uint8_t* s, uint32_t n) noexcept {
  using namespace copy_detail;
  if (n >= 32) {
    for (uint32_t i = 0; i + 32 < n; i += 32) move_at<B32>(d, s, i);
    move_at<B32>(d, s, n - 32);
  } else if (n >= 16) {
    move_at<B16>(d, s, 0);
    move_at<B16>(d, s, n - 16);
  } else if (n >= 8) {
    move_at<uint64_t>(d, s, 0);
    move_at<uint64_t>(d, s, n - 8);
  } else if (n >= 4) {
    move_at<uint32_t>(d, s, 0);
    move_at<uint32_t>(d, s, n - 4);
  } else if (n >= 2) {
    move_at<uint16_t>(d, s, 0);
    move_at<uint16_t>(d, s, n - 2);
  } else if (n == 1) {
    d[0] = s[0];
  }
}

}  // namespace quelkit::rt
