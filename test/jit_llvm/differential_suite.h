// The JIT back ends' differential suite, written once: qual and fused mode
// against the 1976 interpreter on the edge relation (edge_queries.h), the same
// rows bit for bit or the same error (code, position, tuple ordinal), at every
// --jit-opt level with --jit-checks on, once with it off, and once for this
// machine's CPU (--jit-cpu native), updates included.
// A test file defines QUELKIT_DIFF_BACKEND ("llvm") and QUELKIT_DIFF_SUITE (a
// suite name unique across binaries) and includes this inside its namespace.
#pragma once

#if !defined(QUELKIT_DIFF_BACKEND) || !defined(QUELKIT_DIFF_SUITE)
#error "define QUELKIT_DIFF_BACKEND and QUELKIT_DIFF_SUITE before including differential_suite.h"
#endif

inline std::string backends() {
  return "interp," QUELKIT_DIFF_BACKEND ":qual," QUELKIT_DIFF_BACKEND ":fused";
}

const auto& kQueries = kEdgeQueries;  // edge_queries.h

struct Config {
  int level;
  bool checks;
  bool native = false;  // --jit-cpu native
};

class QUELKIT_DIFF_SUITE : public ::testing::TestWithParam<Config> {};

TEST_P(QUELKIT_DIFF_SUITE, QueriesAgreeWithTheInterpreter) {
  Kit kit(options(backends(), GetParam().level, GetParam().checks, GetParam().native));
  int errors = 0;
  for (const char* text : kQueries) {
    SCOPED_TRACE(text);
    std::vector<harness::Result> rs;
    ASSERT_NO_THROW(rs = kit.evaluate(text));
    ASSERT_EQ(rs.size(), 3u);
    EXPECT_EQ(differ(rs[0], rs[1]), "") << QUELKIT_DIFF_BACKEND ":qual";
    EXPECT_EQ(differ(rs[0], rs[2]), "") << QUELKIT_DIFF_BACKEND ":fused";
    errors += !rs[0].ok;
  }
  EXPECT_GE(errors, 15) << "the edge relation should make many queries fail";
}

TEST_P(QUELKIT_DIFF_SUITE, ErrorsComeFromTheSameTuple) {
  Kit kit(options(backends(), GetParam().level, GetParam().checks, GetParam().native));
  auto rs = kit.evaluate("retrieve (x = t.a + 1)");
  for (const auto& r : rs) {
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.code, QK_ERR_OVERFLOW);
    EXPECT_EQ(r.error.tuple, 44);  // INT32_MAX, on the second page: the kernel's err_slot
    EXPECT_EQ(r.error.pos, (SrcPos{1, 19}));  // the +
  }
}

TEST_P(QUELKIT_DIFF_SUITE, UpdatesAgree) {
  Kit kit(options(backends(), GetParam().level, GetParam().checks, GetParam().native));
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

INSTANTIATE_TEST_SUITE_P(Levels, QUELKIT_DIFF_SUITE,
                         ::testing::Values(Config{0, true}, Config{1, true}, Config{2, true}, Config{3, true},
                                           Config{1, false}, Config{2, false, true}),
                         [](const ::testing::TestParamInfo<Config>& i) {
                           return "O" + std::to_string(i.param.level) + (i.param.checks ? "_checks" : "") +
                                  (i.param.native ? "_native" : "");
                         });

