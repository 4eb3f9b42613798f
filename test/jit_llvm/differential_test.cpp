// llvm:qual and llvm:fused against the 1976 interpreter on the edge relation:
// the same rows bit for bit, or the same error (code, position, tuple ordinal),
// at every --jit-opt level, with --jit-checks on (as the differential tests
// always run) and once with it off. Statements that drive plans tuple by tuple
// (replace, delete) check the fused mode's lazily generated functions too.
#include <gtest/gtest.h>

#ifdef QUELKIT_HAVE_LLVM

#include "test/jit_llvm/support.h"

namespace quelkit::jittest {
namespace {

// Over e (tuple ordinals 41..46 are the edge rows; see support.h).
const char* const kQueries[] = {
    "retrieve (t.a, t.b, t.c, t.f, t.d, t.s, t.u)",
    "retrieve (x = t.a + 1)",  // OVERFLOW at INT32_MAX
    "retrieve (x = t.a - 1)",  // OVERFLOW at INT32_MIN
    "retrieve (x = t.a * t.b)",
    "retrieve (x = t.a / t.c)",  // INT32_MIN / -1, then division by zero
    "retrieve (x = t.a / t.b) where t.a < 0",
    "retrieve (x = mod(t.a, t.c)) where t.c != 0",  // INT32_MIN mod -1 is 0
    "retrieve (x = mod(t.a, t.c))",                 // MOD_ZERO
    "retrieve (x = mod(t.a, 3), y = mod(-t.b, 4))",
    "retrieve (x = -t.a)",
    "retrieve (x = abs(t.a))",
    "retrieve (x = abs(t.f), y = abs(t.d), z = -t.f, w = -t.d)",  // -0.0 kept, NaN passed through
    "retrieve (x = t.f * t.f)",                                    // f4 overflow
    "retrieve (x = t.f + t.b, y = t.f * 3, z = t.c - t.f)",
    "retrieve (x = t.f / 3, y = t.b / 4.0) where t.a < 100",
    "retrieve (x = t.d / t.f)",  // divisor -0.0
    "retrieve (x = t.f / t.b) where t.b != 0",
    "retrieve (x = t.d * 2) where t.d < 1e300 or t.d > 1e300",
    "retrieve (x = t.a) where t.d = t.d",  // NaN
    "retrieve (x = t.a) where t.d != t.d",
    "retrieve (x = t.a) where t.f < t.d or t.f >= t.d",
    "retrieve (x = sqrt(t.d))",
    "retrieve (x = log(t.d))",
    "retrieve (x = exp(t.d / 1000))",
    "retrieve (x = sin(t.a), y = cos(t.f), z = atan(t.d))",
    "retrieve (x = t.b ** 2, y = 2 ** t.c)",
    "retrieve (x = int1(t.b))",  // CONVERT_RANGE
    "retrieve (x = int2(t.a)) where t.a > -40000 and t.a < 40000",
    "retrieve (x = int4(t.f)) where t.a < 1000",
    "retrieve (x = int4(t.d))",
    "retrieve (x = int2(t.f), y = int1(t.d)) where t.a > -100 and t.a < 50",
    "retrieve (x = float4(t.d))",  // 1e308 is infinite in f4
    "retrieve (x = float8(t.c), y = float4(t.a), z = float4(t.f))",
    "retrieve (t.s) where t.s = \"abc\"",
    "retrieve (t.s) where t.s != \"abc\" and t.s < \"b\"",
    "retrieve (t.s, t.u) where t.s > t.u or t.u = \"zz\"",
    "retrieve (t.s) where t.s = \"*c*\"",
    "retrieve (t.s) where t.s = \"?bc\" or t.u = \"[a-c]*\"",
    "retrieve (t.s) where t.s != \"p*\" and t.s = \"[^x]*\"",
    "retrieve (t.u) where t.u = \"\\[a\"",
    "retrieve (t.s) where \"a*\" = t.u",
    "retrieve (x = concat(t.s, t.u), y = concat(t.u, \"!\"))",
    "retrieve (x = ascii(t.a), y = ascii(t.b), z = ascii(t.c))",
    "retrieve (x = ascii(t.f), y = ascii(t.d))",
    "retrieve (x = concat(ascii(t.b), t.s)) where concat(t.u, t.s) != \"ab*\"",
    "retrieve (t.a) where t.b = 0 or t.a / t.b > 1",  // the division only where b != 0
    "retrieve (t.a) where t.a > 0 and t.a + 1 > 0",
    "retrieve (t.a) where not (t.a > 0) and not t.b = 0",
    "retrieve (t.a) where t.a > 2 * 3 and t.d < log(9.5) * t.b",
    "retrieve (t.a) where 1 = 1",
    "retrieve (t.a) where 1 = 2",
    "retrieve (t.a) where t.a > 0 or 1 = 1",
    "retrieve (x = 100 / t.b) where t.a > 0",  // the error in the projection
    "retrieve (a = 1)",
    "retrieve (a = 1 / 0)",
    "retrieve (a = 2.5 * 4, b = \"x\")",
    "retrieve (t.a, v.b) where t.a = v.a",  // tuple substitution: parameters
    "retrieve (t.s, v.u) where t.s = v.s and t.a < v.a + 5",
    "retrieve (x = t.f + v.d) where t.a = v.b",
    "retrieve (x = concat(t.s, v.u)) where t.c = v.c and v.a > 0",
    "retrieve (t.a, v.a) where t.a / v.b > 1000",  // DIV_ZERO through a parameter
    "retrieve (t.a) where t.s = v.s and v.d < log(9.5) * t.b",
    "retrieve unique (t.u)",
};

struct Config {
  int level;
  bool checks;
};

class Differential : public ::testing::TestWithParam<Config> {};

TEST_P(Differential, QueriesAgreeWithTheInterpreter) {
  Kit kit(options("interp,llvm:qual,llvm:fused", GetParam().level, GetParam().checks));
  int errors = 0;
  for (const char* text : kQueries) {
    SCOPED_TRACE(text);
    std::vector<harness::Result> rs;
    ASSERT_NO_THROW(rs = kit.evaluate(text));
    ASSERT_EQ(rs.size(), 3u);
    EXPECT_EQ(differ(rs[0], rs[1]), "") << "llvm:qual";
    EXPECT_EQ(differ(rs[0], rs[2]), "") << "llvm:fused";
    errors += !rs[0].ok;
  }
  EXPECT_GE(errors, 15) << "the edge relation should make many queries fail";
}

TEST_P(Differential, ErrorsComeFromTheSameTuple) {
  Kit kit(options("interp,llvm:qual,llvm:fused", GetParam().level, GetParam().checks));
  auto rs = kit.evaluate("retrieve (x = t.a + 1)");
  for (const auto& r : rs) {
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.code, QK_ERR_OVERFLOW);
    EXPECT_EQ(r.error.tuple, 44);  // INT32_MAX, on the second page: the kernel's err_slot
    EXPECT_EQ(r.error.pos, (SrcPos{1, 19}));  // the +
  }
}

TEST_P(Differential, UpdatesAgree) {
  Kit kit(options("interp,llvm:qual,llvm:fused", GetParam().level, GetParam().checks));
  const char* const stmts[] = {
      "replace t (a = t.a + 1) where t.a > 100 and t.a < 200",
      "replace t (b = t.b / 2, s = concat(t.u, t.s)) where t.b > 2",
      "replace t (a = t.a * 100000) where t.a > 0",  // fails: OVERFLOW, nothing changes
      "delete t where t.s = \"nut*\"",
      "replace t (f = t.f * 2) where t.a = v.a and v.b > 3",
      "retrieve (t.a, t.b, t.s)",
  };
  for (const char* s : stmts) {
    SCOPED_TRACE(s);
    kit.err.str("");
    kit.run(s);
    EXPECT_EQ(kit.err.str().find("disagree"), std::string::npos) << kit.err.str();
  }
}

INSTANTIATE_TEST_SUITE_P(Levels, Differential,
                         ::testing::Values(Config{0, true}, Config{1, true}, Config{2, true}, Config{3, true},
                                           Config{1, false}),
                         [](const ::testing::TestParamInfo<Config>& i) {
                           return "O" + std::to_string(i.param.level) + (i.param.checks ? "_checks" : "");
                         });

}  // namespace
}  // namespace quelkit::jittest

#endif  // QUELKIT_HAVE_LLVM
