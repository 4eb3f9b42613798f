// A stencil the extractor must refuse: it calls a function that is neither a
// placeholder nor one of the externals stencils may call.
#include <cstdint>
#include <cstdlib>
#define CC __attribute__((preserve_none))
#define ARGS const uint8_t *t, uint8_t *f, void *ctx, uint8_t *row, const uint8_t *page, int64_t line, int64_t n, int64_t e
extern "C" {
CC int64_t _JIT_CONTINUE(ARGS);
CC int64_t qs_0(ARGS) {
  if (!t) abort();
  [[clang::musttail]] return _JIT_CONTINUE(t, f, ctx, row, page, line, n, e);
}
}
