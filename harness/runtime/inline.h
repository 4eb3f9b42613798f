// The one spelling of "always inline", shared by every evaluator: the
// interpreter, threaded code, the vector primitives, the runtime's inline
// rules and the stencil bodies clang-19 compiles at build time (jit/stencil).
// Header only and plain C preprocessor, so any of them can include it.
#pragma once

// Forces inlining where the hot loops must stay one straight run of code.
#define QK_INLINE inline __attribute__((always_inline))
