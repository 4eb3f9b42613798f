// The operator catalogue's test-only operator, `twice(i)` (frontend/ops.def,
// built with -DQUELKIT_TEST_OPERATOR, as ./kit test's sanitizer build is):
// one generic row, one typed row and one runtime rule, and every back end
// runs it — folded, interpreted, threaded, compiled — with the same values and
// the same error at the same tuple. Without the option it is not built and
// these tests skip, saying so.
#include <gtest/gtest.h>

#include "support.h"

namespace quelkit::test {
namespace {

class TestOperator : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
#ifndef QUELKIT_TEST_OPERATOR
    GTEST_SKIP() << "the test-only operator is built only with -DQUELKIT_TEST_OPERATOR=ON "
                    "(./kit test's sanitizer build)";
#endif
  }
};

TEST_P(TestOperator, ComputesOnEveryBackend) {
  Kit k(GetParam());
  ASSERT_TRUE(k.run("create t (a = i1, b = i2, c = i4)\n"
                    "append to t (a = 3, b = -300, c = 70000)\n"
                    "append to t (a = -128, b = 32767, c = -5)\n"
                    "range of x is t")
                  .ok);
  // Operands of every integer width (widened to i4 by the binder), a folded
  // constant, and the operator inside a qualification.
  RunResult r = k.run("retrieve (p = twice(x.a), q = twice(x.b), r = twice(x.c), s = twice(21)) "
                      "where twice(x.c) > 0 sort by p");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "p,q,r,s\n6,-600,140000,42\n");
  r = k.run("retrieve (p = twice(x.a)) where twice(x.c) < 0");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "p\n-256\n");
}

TEST_P(TestOperator, RaisesItsErrorAtTheSameTuple) {
  Kit k(GetParam());
  ASSERT_TRUE(k.run("create t (c = i4)\n"
                    "append to t (c = 5)\n"
                    "append to t (c = 1500000000)\n"
                    "append to t (c = 7)\n"
                    "range of x is t")
                  .ok);
  RunResult r = k.run("retrieve (d = twice(x.c))");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("integer overflow"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1:15"), std::string::npos) << r.err;  // the call's position
  EXPECT_NE(r.err.find("tuple 2"), std::string::npos) << r.err;
  // A folded constant raises at bind time, as every operator's does.
  r = k.run("retrieve (d = twice(2000000000))");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("integer overflow"), std::string::npos) << r.err;
  // Its typing rule: integers only.
  r = k.run("retrieve (d = twice(1.5))");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("'twice' takes integers, not f8"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, TestOperator, ::testing::ValuesIn(all_backend_modes()),
                         backend_test_name);

}  // namespace
}  // namespace quelkit::test
