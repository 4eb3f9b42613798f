// A stencil object with relocations the extractor must read exactly (see
// extractor_test.cpp): compiled by clang-19 with the stencil flags.
#include <cmath>
#include <cstdint>
#include <cstring>
#define CC __attribute__((preserve_none))
#define ARGS const uint8_t *t, uint8_t *f, void *ctx, uint8_t *row, const uint8_t *page, int64_t line, int64_t n, int64_t e
extern "C" {
CC int64_t _JIT_CONTINUE(ARGS);
CC int64_t _JIT_TARGET(ARGS);
extern char _JIT_A_OFF[1], _JIT_D_OFF[1];
extern char _JIT_A_K[1 << 20];
extern const unsigned long long qs_fingerprint = 0x1234;

// t[A_OFF] as f8, times the constant A_K, into f[D_OFF]; jump to TARGET if negative.
CC int64_t qs_0(ARGS) {
  double a;
  std::memcpy(&a, t + reinterpret_cast<uintptr_t>(_JIT_A_OFF), 8);
  uint64_t k = reinterpret_cast<uintptr_t>(_JIT_A_K);
  asm("" : "+r"(k));
  double r = a * __builtin_bit_cast(double, k);
  std::memcpy(f + reinterpret_cast<uintptr_t>(_JIT_D_OFF), &r, 8);
  if (r < 0) [[clang::musttail]] return _JIT_TARGET(t, f, ctx, row, page, line, n, e);
  [[clang::musttail]] return _JIT_CONTINUE(t, f, ctx, row, page, line, n, e);
}

// fabs needs a mask from .rodata.cst16; log is an external call.
CC int64_t qs_1(ARGS) {
  double a;
  std::memcpy(&a, f + reinterpret_cast<uintptr_t>(_JIT_A_OFF), 8);
  double r = std::log(std::fabs(a));
  std::memcpy(f + reinterpret_cast<uintptr_t>(_JIT_D_OFF), &r, 8);
  [[clang::musttail]] return _JIT_CONTINUE(t, f, ctx, row, page, line, n, e);
}
}
