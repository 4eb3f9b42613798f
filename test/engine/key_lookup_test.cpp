// Key lookups of a comparison made in another numeric type than the key's
// (DESIGN.md: a comparison of mixed types is made in the type arithmetic on
// them gives; key lookups follow the same rule). An i2 key against 5.5 is
// compared in f8, an i4 key against an f4 in f4, where 16777217 equals
// 16777216; an f4 key against an i4 parameter in f4. ISAM and hash must
// find exactly what a heap's full scan finds, and use the key to do it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support.h"

namespace quelkit::test {
namespace {

// Keys at the edges of rounding and of each type's range; s holds the
// values a join substitutes as parameters.
const char* const kData = R"(
create r (id = i2, k1 = i1, k2 = i2, k4 = i4, kf = f4)
append to r (id = 1, k1 = -128, k2 = -32768, k4 = -2147483647 - 1, kf = -0.0)
append to r (id = 2, k1 = 5, k2 = 5, k4 = 5, kf = 5.0)
append to r (id = 3, k1 = 6, k2 = 6, k4 = 16777215, kf = 5.5)
append to r (id = 4, k1 = 127, k2 = 32767, k4 = 16777216, kf = 16777216.0)
append to r (id = 5, k1 = -5, k2 = -5, k4 = 16777217, kf = 0.25)
append to r (id = 6, k1 = 0, k2 = 0, k4 = 16777218, kf = -7.0)
append to r (id = 7, k1 = 4, k2 = 4, k4 = 2147483647, kf = 4.0)
create s (x4 = i4, xf = f4, xd = f8)
append to s (x4 = 5, xf = 5.5, xd = 16777217.0)
append to s (x4 = 16777217, xf = 16777216.0, xd = -0.0)
range of r is r
range of s is s
)";

struct Case {
  std::string qual;    // K stands for the key
  bool hash_uses_key;  // an equality a hash lookup can take
};

const Case kCases[] = {
    {"K = 5.0", true},
    {"K = 5.5", true},  // no integer key is 5.5: one bucket, nothing in it qualifies
    {"5.0 = K", true},
    {"K = float4(16777216)", true},  // but an i4 key in f4: three keys round to it (no hash lookup)
    {"K = 16777217.0", true},         // i4 in f8 is exact
    {"K = 1e20", true},
    {"K < 5.5", false},
    {"K <= 5.0", false},
    {"K > 4.5", false},
    {"K >= float4(16777216) and K < 2e9", false},
    {"K > -1e20 and K < 0.5", false},
    {"K >= 32767.5", false},
    {"K <= -2147483649.0", false},
    {"K = s.xf", true},
    {"K = s.xd", true},
    {"K < s.xf and K > s.xf - 3", false},
    // Expressions of parameters, evaluated before each lookup.
    {"K = s.x4 - 0", true},
    {"K = s.xd * 1.0", true},
    {"K = -s.x4 + 10", true},
    {"K >= s.x4 - 1 and K < s.xd + 1.0", false},
};

TEST(KeyLookup, MixedTypeComparisonsUseTheKeyAndFindWhatAFullScanFinds) {
  for (const char* key : {"k1", "k2", "k4", "kf"}) {
    Kit heap("interp"), isam("interp"), hash("interp");
    ASSERT_TRUE(heap.run(kData).ok);
    ASSERT_TRUE(isam.run(std::string(kData) + "modify r to isam on " + key).ok);
    ASSERT_TRUE(hash.run(std::string(kData) + "modify r to hash on " + key).ok);
    for (const Case& c : kCases) {
      std::string q = c.qual;
      for (size_t at; (at = q.find('K')) != std::string::npos;) q.replace(at, 1, std::string("r.") + key);
      // The join's r side is the one-variable query a key serves.
      const std::string text = "retrieve (r.id) where " + q + " sort by id";
      SCOPED_TRACE(text);
      auto want = heap.run(text);
      ASSERT_TRUE(want.ok) << want.err;
      auto i = isam.run(text);
      ASSERT_TRUE(i.ok) << i.err;
      EXPECT_EQ(i.out, want.out);
      EXPECT_NE(isam.last_report().stats.access_path.find("r:isam key"), std::string::npos)
          << isam.last_report().stats.access_path;
      auto h = hash.run(text);
      ASSERT_TRUE(h.ok) << h.err;
      EXPECT_EQ(h.out, want.out);
      // An f4 key takes f4 equality by hash too; only an i4 key compared in f4 cannot.
      const bool hashed = c.hash_uses_key && !(std::string(key) == "k4" && c.qual.find("float4") != std::string::npos) &&
                          !(std::string(key) == "k4" && c.qual == "K = s.xf");
      EXPECT_EQ(hash.last_report().stats.access_path.find("r:hash key =") != std::string::npos, hashed)
          << hash.last_report().stats.access_path;
    }
  }
}

// A bound whose expression raises (16777217 * 1000 overflows i4) is no
// bound: that substituted execution scans the whole relation and the
// qualification raises the error where a heap's full scan raises it, the
// same message at the same position. The first substituted tuple's lookup
// (5 * 1000) still finds its rows.
TEST(KeyLookup, ABoundThatRaisesScansAndRaisesAsAFullScanDoes) {
  for (const char* key : {"k2", "k4", "kf"}) {
    Kit heap("all"), isam("all"), hash("all");
    ASSERT_TRUE(heap.run(kData).ok);
    ASSERT_TRUE(isam.run(std::string(kData) + "modify r to isam on " + key).ok);
    ASSERT_TRUE(hash.run(std::string(kData) + "modify r to hash on " + key).ok);
    const std::string text = std::string("retrieve (r.id) where r.") + key + " = s.x4 * 1000";
    SCOPED_TRACE(text);
    auto want = heap.run(text);
    ASSERT_FALSE(want.ok);
    EXPECT_NE(want.err.find("overflow"), std::string::npos) << want.err;
    for (Kit* k : {&isam, &hash}) {
      auto got = k->run(text);
      ASSERT_FALSE(got.ok);
      EXPECT_EQ(got.err, want.err);
      EXPECT_NE(k->last_report().stats.access_path.find(" key"), std::string::npos)
          << k->last_report().stats.access_path;
    }
    // Without the overflowing tuple, the lookups answer.
    const std::string fine = text + " and s.x4 < 100";
    ASSERT_TRUE(heap.run(fine).ok);
    ASSERT_TRUE(hash.run(fine).ok);
  }
}

}  // namespace
}  // namespace quelkit::test
