// Counts in messages agree with their number: "1 tuple", "1 byte", as
// "1 row" already did (issue 67's smaller defects).
#include <gtest/gtest.h>

#include "storage/budget.h"
#include "support.h"

namespace quelkit::test {
namespace {

TEST(CountsText, OneTupleInHelpsListing) {
  Kit k("interp");
  ASSERT_TRUE(k.run("create one (a = i4)\nappend to one (a = 1)\ncreate two (a = i4)\n"
                    "append to two (a = 1)\nappend to two (a = 2)").ok);
  RunResult r = k.run("help");
  ASSERT_TRUE(r.ok) << r.err;
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("one (heap, 1 tuple)"), std::string::npos) << all;
  EXPECT_NE(all.find("two (heap, 2 tuples)"), std::string::npos) << all;
}

TEST(CountsText, OneByteOfMemory) {
  EXPECT_EQ(harness::memory_size_text(1), "1 byte");
  EXPECT_EQ(harness::memory_size_text(0), "0 bytes");
  EXPECT_EQ(harness::memory_size_text(512), "512 bytes");
}

}  // namespace
}  // namespace quelkit::test
