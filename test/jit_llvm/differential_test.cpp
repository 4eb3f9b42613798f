// llvm:qual and llvm:fused against the 1976 interpreter on the edge relation:
// the same rows bit for bit, or the same error (code, position, tuple ordinal),
// at every --jit-opt level, with --jit-checks on (as the differential tests
// always run) and once with it off. Statements that drive plans tuple by tuple
// (replace, delete) check the fused mode's lazily generated functions too.
#include <gtest/gtest.h>

#ifdef QUELKIT_HAVE_LLVM

#include "test/jit_llvm/edge_queries.h"
#include "test/jit_llvm/support.h"

namespace quelkit::jittest {
namespace {

const auto& kQueries = kEdgeQueries;  // edge_queries.h

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
