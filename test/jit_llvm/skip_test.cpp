// When CMake did not find LLVM 19 the back end is not built: say so, rather
// than let its tests vanish from the test list.
#include <gtest/gtest.h>

#ifndef QUELKIT_HAVE_LLVM
TEST(LlvmBackend, NotBuilt) { GTEST_SKIP() << "LLVM 19 was not found at configure time: the llvm back end is not built"; }
#endif
