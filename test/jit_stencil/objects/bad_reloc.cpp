// A stencil the extractor must refuse: a thread-local variable is reached
// through %fs with a TLS relocation (R_X86_64_TPOFF32), which prepare cannot patch.
#include <cstdint>
#define CC __attribute__((preserve_none))
#define ARGS const uint8_t *t, uint8_t *f, void *ctx, uint8_t *row, const uint8_t *page, int64_t line, int64_t n, int64_t e
extern "C" {
CC int64_t _JIT_CONTINUE(ARGS);
extern thread_local int64_t qs_counter;
CC int64_t qs_0(ARGS) {
  ++qs_counter;
  [[clang::musttail]] return _JIT_CONTINUE(t, f, ctx, row, page, line, n, e);
}
}
