// Golden tests of --dump=threaded: they prove the tree's shape, not only its
// results — folded constants are computed once, into the plan's parameters
// (engine/plan.h: literals are parameters, so plans are shared across
// statements), each read by a PARAM node, its value in the parameters line,
// conversions are nodes (or fused into the load that feeds them), attribute
// comparisons are superinstructions, and both modes run the same program.
// (The kit runs under --format csv, so the dumps are on its error stream.)
#include "threaded_test_util.h"

namespace quelkit::test {
namespace {

class Dump : public ::testing::TestWithParam<std::string> {};

// The paper's (d): log(9.5) is folded into one f8 parameter; qoh and weight
// are converted from i2 to f8 by the nodes that read them from the tuple
// (the conversion is part of the node's kind), never by per-tuple type tests.
TEST_P(Dump, LogConstantFoldedOnceAndI2ToF8ConversionNode) {
  Kit k({{"threaded", GetParam()}}, {"threaded"});
  k.add_parts(20);
  auto r = k.run("range of p is parts\nretrieve (p.pnum) where p.qoh < log(9.5) * p.weight");
  ASSERT_TRUE(r.ok) << r.err;
  const std::string& d = r.err;
  EXPECT_EQ(count(d, "PARAM f8"), 1) << d;
  EXPECT_NE(d.find("-- parameters q2 (threaded:" + GetParam() + "): $0 = 2.2512917986064953 (f8)\n"), std::string::npos) << d;
  EXPECT_EQ(count(d, "LOG_F8"), 0) << "log(9.5) must not be evaluated per tuple\n" << d;
  EXPECT_NE(d.find("0 constant,"), std::string::npos) << d;
  // both conversions are tree nodes, each read by a node of the program
  EXPECT_NE(d.find("      CVT_I2_F8 f8 implicit  @2:44  [read by node 1]\n"), std::string::npos) << d;
  EXPECT_NE(d.find("    CVT_I2_F8 f8 implicit  @2:25  [read by node 2]\n"), std::string::npos) << d;
  EXPECT_EQ(section(d, "program:"),
            "program:\n"
            "   0  PARAM_F8           r2 <- param@0\n"
            "   1  MUL_F8.attr_i2     r3 <- CVT_I2_F8(tuple@30), r2  @2:42\n"
            "   2  LT_F8.attr_i2      r4 <- CVT_I2_F8(tuple@32), r3  @2:31\n"
            "   3  QUAL_END           r4\n"
            "   4  COPY_I2            row@0 <- tuple@0\n"
            "   5  PROJ_END\n")
      << d;
}

// A conversion that is not fused with an attribute load is a node of its own.
TEST_P(Dump, ConversionOfAComputedValueIsANode) {
  Kit k({{"threaded", GetParam()}}, {"threaded"});
  k.add_parts(20);
  auto r = k.run("range of p is parts\nretrieve (p.pnum) where p.qoh < log(9.5) * (p.weight + 1)");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(section(r.err, "program:"),
            "program:\n"
            "   0  PARAM_F8           r2 <- param@0\n"
            "   1  PARAM_I4           r3 <- param@8\n"
            "   2  ADD_I4.attr_i2     r4 <- tuple@30, r3  @2:54\n"
            "   3  CVT_I4_F8          r5 <- r4  @2:54\n"
            "   4  MUL_F8             r6 <- r2, r5  @2:42\n"
            "   5  LT_F8.attr_i2      r7 <- CVT_I2_F8(tuple@32), r6  @2:31\n"
            "   6  QUAL_END           r7\n"
            "   7  COPY_I2            row@0 <- tuple@0\n"
            "   8  PROJ_END\n")
      << r.err;
}

// `13 + e.salary = 100` over an f4 salary: both literals are converted to f4
// once, by the fold pass, and held as f4 parameters; no conversion node is left.
TEST_P(Dump, F4ComparisonConvertsTheLiteralOnce) {
  Kit k({{"threaded", GetParam()}}, {"threaded"});
  auto r = k.run("create emp (name = c10, salary = f4, dept = i2)");
  ASSERT_TRUE(r.ok) << r.err;
  r = k.run("range of e is emp\nretrieve (e.name) where 13 + e.salary = 100");
  ASSERT_TRUE(r.ok) << r.err;
  const std::string& d = r.err;
  EXPECT_NE(d.find("$0 = 13.0 (f4), $1 = 100.0 (f4)\n"), std::string::npos) << d;
  EXPECT_EQ(count(d, "CVT_"), 0) << d;
  EXPECT_EQ(count(d, "i2"), 0) << d;
  EXPECT_EQ(section(d, "program:"),
            "program:\n"
            "   0  PARAM_F4           r2 <- param@0\n"
            "   1  ADD_F4.attr_f4     r3 <- tuple@10, r2  @2:28\n"
            "   2  PARAM_F4           r4 <- param@4\n"
            "   3  EQ_F4              r5 <- r3, r4  @2:39\n"
            "   4  QUAL_END           r5\n"
            "   5  COPY_C             row@0 <- tuple@0\n"
            "   6  PROJ_END\n")
      << d;
}

// The paper's (c): or short-circuits by jumping; a jump onto a jump of the
// same register goes straight to the end; each comparison reads its attribute
// from the tuple itself; the projection copies attributes unchanged.
TEST_P(Dump, OrShortCircuitAndAttributeSuperinstructions) {
  Kit k({{"threaded", GetParam()}}, {"threaded"});
  k.add_parts(20);
  auto r = k.run("range of p is parts\nretrieve (p.pname, p.pnum)\n"
                 "where p.pnum > 3 or p.pname = \"processor\" or p.color = \"black\"");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(section(r.err, "program:"),
            "program:\n"
            "   0  PARAM_I4           r3 <- param@0\n"
            "   1  GT_I4.attr_i2      r2 <- tuple@0, r3  @3:14\n"
            "   2  OR                 r2 true: jump to 8  @3:18\n"
            "   3  PARAM_C            r4 <- param@4\n"
            "   4  EQ_C.attr_c        r2 <- tuple@2, r4  @3:29\n"
            "   5  OR                 r2 true: jump to 8  @3:18\n"
            "   6  PARAM_C            r5 <- param@24\n"
            "   7  EQ_C.attr_c        r2 <- tuple@22, r5  @3:54\n"
            "   8  QUAL_END           r2\n"
            "   9  COPY_C             row@0 <- tuple@2\n"
            "  10  COPY_I2            row@20 <- tuple@0\n"
            "  11  PROJ_END\n")
      << r.err;
  EXPECT_NE(r.err.find("CVT_I2_I4 i4 implicit  @3:7  [no node: registers hold integers as int32]"), std::string::npos)
      << r.err;
}

// Parameters are read by PARAM nodes from the parameter block, never inlined:
// the inner plan of (f) holds no constant at all.
TEST_P(Dump, SubstitutedValuesAreParameterNodes) {
  Kit k({{"threaded", GetParam()}}, {"threaded"});
  k.add_parts(30, true, harness::Structure::Isam);
  auto r = k.run("range of p is parts range of q is parts\nretrieve (p.qoh, q.qoh) where p.pnum = q.pnum");
  ASSERT_TRUE(r.ok) << r.err;
  size_t at = r.err.find("-- threaded q3_s1");
  ASSERT_NE(at, std::string::npos) << r.err;
  std::string inner = r.err.substr(at);
  EXPECT_NE(inner.find("PARAM_I2"), std::string::npos) << r.err;
  EXPECT_NE(inner.find(", 0 constant,"), std::string::npos) << r.err;  // not "10 constant"
  EXPECT_EQ(count(r.err, "-- threaded"), 1) << "dumped once, when first prepared\n" << r.err;
}

// Constant subexpressions that raise stay in the tree as nodes, so the error
// happens at run time, at their position, only if evaluation reaches them.
TEST_P(Dump, RaisingConstantIsKeptAsANode) {
  Kit k({{"threaded", GetParam()}}, {"threaded"});
  k.add_parts(20);
  auto r = k.run("range of p is parts\nretrieve (p.pnum) where p.pnum > 100 and 1 / 0 = 1");
  ASSERT_TRUE(r.ok) << r.err;  // no tuple reaches the division
  EXPECT_NE(r.err.find("DIV_I4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("AND                r2 false: jump to"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Modes, Dump, ::testing::ValuesIn(threaded_modes()));

}  // namespace
}  // namespace quelkit::test
