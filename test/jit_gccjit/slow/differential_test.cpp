// gccjit:qual and gccjit:fused against the 1976 interpreter on the edge
// relation (the query list the LLVM back end's differential test runs): the
// same rows bit for bit, or the same error (code, position, tuple ordinal), at
// every --jit-opt level with --jit-checks on, and once with it off. Updates
// drive plans tuple by tuple, so the fused mode's lazily compiled per-tuple
// functions are checked too. About 150 compiles per level: slow (labelled
// no_sanitize; the sanitizer run skips it).
#include <gtest/gtest.h>

#ifdef QUELKIT_HAVE_GCCJIT

#include "test/jit_llvm/edge_queries.h"
#include "test/jit_llvm/support.h"

namespace quelkit::test {
namespace {

#define QUELKIT_DIFF_BACKEND "gccjit"
#define QUELKIT_DIFF_SUITE GccjitDifferential
#include "test/jit_llvm/differential_suite.h"

}  // namespace
}  // namespace quelkit::test

#endif  // QUELKIT_HAVE_GCCJIT
