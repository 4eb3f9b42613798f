// INGRES's comparison rule (every blank ignored on both sides) wherever the
// kit tells character values apart, on every back end: comparisons and
// patterns, `unique`, groups, sort by, hash and ISAM keys, retrieve into's
// duplicate removal; and the rule's one definition (rt::char_cmp with its
// lockstep fast path) against the plain statement of it.
#include <gtest/gtest.h>

#include <random>

#include "runtime/runtime_inline.h"
#include "support.h"

namespace quelkit::test {
namespace {

// The rule as the tutorial states it: drop every blank, then compare bytes
// unsigned, a proper prefix first.
int plain_rule(const std::string& a, const std::string& b) {
  const std::string x = rt::squeeze(a), y = rt::squeeze(b);
  const int c = x.compare(y);  // char_traits<char>::compare is unsigned (memcmp)
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

TEST(ComparisonRule, CharCmpIsThePlainRule) {
  std::mt19937 rng(71);
  const char alphabet[] = {' ', ' ', ' ', 'a', 'b', 'c', char(0xe9), '\0'};
  auto draw = [&](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s.push_back(alphabet[rng() % sizeof alphabet]);
    return s;
  };
  for (int i = 0; i < 20000; ++i) {
    std::string a = draw(rng() % 9), b = rng() % 3 ? draw(rng() % 9) : a;
    if (!b.empty() && rng() % 2) b[rng() % b.size()] = ' ';  // the same bytes but for a blank
    const int want = plain_rule(a, b);
    const auto* pa = reinterpret_cast<const uint8_t*>(a.data());
    const auto* pb = reinterpret_cast<const uint8_t*>(b.data());
    ASSERT_EQ(rt::char_cmp(pa, uint32_t(a.size()), pb, uint32_t(b.size())), want) << '"' << a << "\" \"" << b << '"';
    ASSERT_EQ(qk_char_cmp(pb, uint32_t(b.size()), pa, uint32_t(a.size())), -want);
    // Equal exactly when the keys and hashes of the tables are.
    std::string ka, kb;
    rt::append_char_key(&ka, pa, uint32_t(a.size()));
    rt::append_char_key(&kb, pb, uint32_t(b.size()));
    ASSERT_EQ(ka == kb, want == 0);
    if (want == 0) {
      ASSERT_EQ(rt::fnv1a64_squeezed(pa, a.size(), QK_FNV_OFFSET), rt::fnv1a64_squeezed(pb, b.size(), QK_FNV_OFFSET));
    }
  }
}

TEST(ComparisonRule, PatternsIgnoreEveryBlank) {
  struct Case {
    const char *value, *pattern;
    bool match;
  } cases[] = {
      {"Smith, Paul", "*,Paul*", true}, {"Brunet, Paul C.", "*,Paul*", true}, {"Brunet, Paul C.", "*,Paul", false},
      {"Ross, Stanley", "Ross,Stanley", true}, {"Ross, Stanley", "R o s s,Stanley", true},
      {"R oss", "R?ss", true},         {"R  ss", "R?ss", false},          {" a b c", "[a]bc", true},
      {"a*b", "a \\* b", true},        {"axb", "a\\*b", false},           {"ab", "a\\b", true},
      {"a\\b", "a\\\\b", true},        {"a b", "a*", true},               {"   ", "", true},
      {"x", "* ", true},               {"a[b", "a\\[b", true},            {"ab", "a \\ b", true},  // an escaped blank is a blank
      {"ab", "ab\\ ", true},         {"", "\\ *", true},
  };
  for (const auto& c : cases) {
    const auto* v = reinterpret_cast<const uint8_t*>(c.value);
    const auto* p = reinterpret_cast<const uint8_t*>(c.pattern);
    EXPECT_EQ(qk_pattern_match(v, uint32_t(strlen(c.value)), p, uint32_t(strlen(c.pattern))), int(c.match))
        << '"' << c.value << "\" = \"" << c.pattern << '"';
  }
}

TEST(ComparisonRule, EscapesOfALiteral) {
  EXPECT_EQ(rt::unescape("\\*\\*\\* ingres \\*\\*\\*"), "*** ingres ***");
  EXPECT_EQ(rt::unescape("a\\b\\\\c\\"), "ab\\c\\");  // any character; a last lone backslash stays
  EXPECT_EQ(rt::unescape("\\[x\\]\\?"), "[x]?");
  EXPECT_FALSE(rt::is_pattern_text("a\\*b"));
  EXPECT_TRUE(rt::is_pattern_text("a\\**"));
  EXPECT_TRUE(rt::is_pattern_text("x[ab]"));
  EXPECT_FALSE(rt::is_pattern_text("a\\b"));
}

class ComparisonRuleOnEveryBackend : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto r = k.run(
        "create names (n = c12, k = i4)\n"
        "append to names (n = \"Ross, Stan\", k = 1)\n"
        "append to names (n = \"Ross,Stan\", k = 2)\n"
        "append to names (n = \"  RossStan\", k = 3)\n"
        "append to names (n = \"ab\", k = 4)\n"
        "append to names (n = \" a b\", k = 5)\n"
        "append to names (n = \"abc\", k = 6)\n"
        "range of x is names\n");
    ASSERT_TRUE(r.ok) << r.err;
  }
  std::string csv(const std::string& text) {
    auto r = k.run(text);
    EXPECT_TRUE(r.ok) << r.err;
    return r.out;
  }
  // The keys a qualification finds, in order.
  std::string keys(const std::string& qual) { return csv("retrieve (x.k) where " + qual + " sort by k"); }
  Kit k{GetParam()};
};

TEST_P(ComparisonRuleOnEveryBackend, ComparisonsAndPatterns) {
  EXPECT_EQ(keys("x.n = \"Ross,Stan\""), "k\n1\n2\n");
  EXPECT_EQ(keys("x.n = \"R o s s , S t a n\""), "k\n1\n2\n");
  EXPECT_EQ(keys("x.n != \"ab\""), "k\n1\n2\n3\n6\n");
  EXPECT_EQ(keys("x.n > \"a\" and x.n < \"abc\""), "k\n4\n5\n");
  EXPECT_EQ(keys("x.n >= \"ab c\""), "k\n6\n");
  EXPECT_EQ(keys("x.n <= \"Ross,T\" and x.n > \"Ross,\""), "k\n1\n2\n");
  EXPECT_EQ(keys("x.n = \"?b\""), "k\n4\n5\n");
  EXPECT_EQ(keys("x.n = \"Ross,S*\""), "k\n1\n2\n");
  EXPECT_EQ(keys("x.n = \"R*[S]tan\""), "k\n1\n2\n3\n");
  EXPECT_EQ(keys("x.n != \"*b*\""), "k\n1\n2\n3\n");
  EXPECT_EQ(keys("concat(x.n, \"c\") = \"abc\""), "k\n4\n5\n");
}

TEST_P(ComparisonRuleOnEveryBackend, UniqueGroupsAndSortTellApartByTheRule) {
  EXPECT_EQ(csv("retrieve unique (x.n) where x.k >= 4 and x.k <= 5"), "n\nab\n");
  EXPECT_EQ(csv("retrieve (x.k, c = count(x.k by x.n)) where x.k = 5 or x.k = 2"), "k,c\n2,2\n5,2\n");
  EXPECT_EQ(csv("retrieve (c = countu(x.n))"), "c\n4\n");
  EXPECT_EQ(csv("retrieve (x.n, x.k) where x.k >= 4 sort by n, k:d"), "n,k\n a b,5\nab,4\nabc,6\n");
  auto r = k.run("retrieve into pairs (x.n) where x.k >= 4\nrange of p is pairs\nretrieve (p.n)");
  EXPECT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "n\nab\nabc\n");  // " a b" is a duplicate of "ab"
}

TEST_P(ComparisonRuleOnEveryBackend, HashAndIsamKeysFindWhatEqualsFinds) {
  for (const char* structure : {"hash", "isam"}) {
    auto r = k.run(std::string("modify names to ") + structure + " on n");
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(keys("x.n = \"Ross,Stan\""), "k\n1\n2\n") << structure;
    EXPECT_EQ(keys("x.n = \"a b\""), "k\n4\n5\n") << structure;
    EXPECT_EQ(keys("x.n = \"RossStan\""), "k\n3\n") << structure;
    EXPECT_EQ(keys("x.n >= \"ab\" and x.n <= \"a bc\""), "k\n4\n5\n6\n") << structure;
  }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, ComparisonRuleOnEveryBackend, ::testing::ValuesIn(all_backend_modes()),
                         backend_test_name);

}  // namespace
}  // namespace quelkit::test
