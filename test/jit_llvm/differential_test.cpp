// llvm:qual and llvm:fused against the 1976 interpreter on the edge relation:
// the same rows bit for bit, or the same error (code, position, tuple ordinal),
// at every --jit-opt level, with --jit-checks on (as the differential tests
// always run) and once with it off. Statements that drive plans tuple by tuple
// (replace, delete) check the fused mode's lazily generated functions too.
#include <gtest/gtest.h>

#ifdef QUELKIT_HAVE_LLVM

#include "test/jit_llvm/edge_queries.h"
#include "test/jit_llvm/support.h"

namespace quelkit::test {
namespace {

#define QUELKIT_DIFF_BACKEND "llvm"
#define QUELKIT_DIFF_SUITE Differential
#include "test/jit_llvm/differential_suite.h"

}  // namespace
}  // namespace quelkit::test

#endif  // QUELKIT_HAVE_LLVM
