// When CMake did not find clang-19 (or LLVM 19) the stencil back end is not
// built: say so, rather than let its tests vanish from the test list. The
// configure-time side of the skip path is test/jit_stencil/skip_configure.cmake.
#include <gtest/gtest.h>

#ifndef QUELKIT_HAVE_STENCIL
TEST(StencilBackend, NotBuilt) {
  GTEST_SKIP() << "clang-19 was not found at configure time: the stencil back end is not built";
}
#endif
