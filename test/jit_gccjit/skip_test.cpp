// When CMake did not find libgccjit the back end is not built: say so, rather
// than let its tests vanish from the test list.
#include <gtest/gtest.h>

#ifndef QUELKIT_HAVE_GCCJIT
TEST(GccjitBackend, NotBuilt) {
  GTEST_SKIP() << "libgccjit (libgccjit-12-dev) was not found at configure time: the gccjit back end is not built";
}
#endif
