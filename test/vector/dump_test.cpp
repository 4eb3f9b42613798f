// Golden tests of --dump=vector: they prove the program's shape, not only its
// results — a folded constant is one scalar register, attributes are read in
// place (or gathered first, in the gather modes) with their widening fused,
// and/or/not are selection arithmetic, parameters load in the prologue, and
// the dump says which attribute and selection methods ran. (The kit runs
// under --format csv, so the dumps are on its error stream.)
#include "vector_test_util.h"

namespace quelkit::test {
namespace {

constexpr const char* kD = "range of p is parts\nretrieve (p.pnum) where p.qoh < log(9.5) * p.weight";

// The paper's (d): log(9.5) folded into one f8 scalar; qoh and weight read
// from the tuple as f8 by the primitives themselves; + and * swap their
// operands to read the attribute in place.
TEST(VectorDump, PaperDInPlace) {
  Kit k("vector:inplace", {.dumps = {"vector"}, .selection = harness::Selection::NoBranch});
  k.add_parts(20);
  auto r = k.run(kD);
  ASSERT_TRUE(r.ok) << r.err;
  const std::string& d = r.err;
  EXPECT_NE(d.find("vector q2: 4 primitives, 1 vector, 1 scalar, 2 selection registers\n"), std::string::npos) << d;
  // log(9.5) folded once, a parameter of the plan (engine/plan.h) the prologue loads.
  EXPECT_NE(d.find("-- parameters q2 (vector:inplace): $0 = 2.2512917986064953 (f8)\n"), std::string::npos) << d;
  EXPECT_NE(d.find("prologue:\n   0  PARAM_F8                           c0 <- param@0  @2:33\n"), std::string::npos) << d;
  EXPECT_NE(d.find("attributes: in place"), std::string::npos) << d;
  EXPECT_NE(d.find("selection: nobranch"), std::string::npos) << d;
  EXPECT_EQ(count(d, "LOG_F8"), 0) << "log(9.5) must not be evaluated per tuple\n" << d;
  EXPECT_EQ(section(d, "qual:"),
            "qual:\n"
            "   1  MUL_F8(attr_i2, scalar)            v0 <- CVT_I2_F8(tuple@30), c0  under s0  @2:42\n"
            "   2  LT_F8(attr_i2, vec) nobranch       s1 <- CVT_I2_F8(tuple@32), v0  under s0  @2:31\n")
      << d;
  EXPECT_NE(d.find("qualifying: s1\n"), std::string::npos) << d;
  EXPECT_EQ(section(d, "project:"),
            "project:\n"
            "   3  COPY_I2                            row@0 <- tuple@0  under s1  @2:11\n")
      << d;
}

TEST(VectorDump, PaperDGatheredWithBranches) {
  Kit k("vector:gather", {.dumps = {"vector"}, .selection = harness::Selection::Branch});
  k.add_parts(20);
  auto r = k.run(kD);
  ASSERT_TRUE(r.ok) << r.err;
  const std::string& d = r.err;
  EXPECT_NE(d.find("attributes: gathered"), std::string::npos) << d;
  EXPECT_NE(d.find("selection: branch"), std::string::npos) << d;
  EXPECT_EQ(section(d, "qual:"),
            "qual:\n"
            "   1  GATHER_I2_F8                       v0 <- tuple@30  under s0\n"
            "   2  MUL_F8(scalar, vec)                v1 <- c0, v0  under s0  @2:42\n"
            "   3  GATHER_I2_F8                       v2 <- tuple@32  under s0\n"
            "   4  LT_F8(vec, vec) branch             s1 <- v2, v1  under s0  @2:31\n")
      << d;
}

// The paper's (c): or runs its right operand on what its left left open
// (SEL_DIFF) and joins the two (SEL_UNION); the target list runs on the
// qualifying tuples only.
TEST(VectorDump, PaperCOrIsSelectionArithmetic) {
  Kit k("vector:inplace", {.dumps = {"vector"}, .selection = harness::Selection::NoBranch});
  k.add_parts(20);
  auto r = k.run(
      "range of p is parts\nretrieve (p.pname, p.pnum) where p.pnum > 3 or p.pname = \"processor\" or p.color = "
      "\"black\"");
  ASSERT_TRUE(r.ok) << r.err;
  const std::string& d = r.err;
  EXPECT_EQ(section(d, "qual:"),
            "qual:\n"
            "   3  GT_I4(attr_i2, scalar) nobranch    s1 <- tuple@0, c0  under s0  @2:41\n"
            "   4  SEL_DIFF                           s2 <- s0 without s1\n"
            "   5  EQ_C(attr_c, scalar) nobranch      s3 <- tuple@2, c1  under s2  @2:56\n"
            "   6  SEL_UNION                          s4 <- s1 with s3\n"
            "   7  SEL_DIFF                           s5 <- s2 without s3\n"
            "   8  EQ_C(attr_c, scalar) nobranch      s6 <- tuple@22, c2  under s5  @2:81\n"
            "   9  SEL_UNION                          s7 <- s4 with s6\n")
      << d;
  // The literals are the plan's parameters, "processor" widened to pname's c20.
  EXPECT_NE(d.find("$0 = 3 (i4), $1 = \"processor\" (c20), $2 = \"black\" (c8)\n"), std::string::npos) << d;
  EXPECT_EQ(section(d, "project:"),
            "project:\n"
            "  10  COPY_C                             row@0 <- tuple@2  under s7  @2:11\n"
            "  11  COPY_I2                            row@20 <- tuple@0  under s7  @2:20\n")
      << d;
}

// not is what its operand left out; a conversion of a computed value is a
// primitive of its own; a target that is no plain attribute is computed
// under the qualifying selection and stored.
TEST(VectorDump, NotConversionsAndStores) {
  Kit k("vector:inplace", {.dumps = {"vector"}, .selection = harness::Selection::NoBranch});
  k.add_parts(20);
  auto r = k.run("range of p is parts\nretrieve (w = float8(p.weight + 1)) where not (p.qoh < 10)");
  ASSERT_TRUE(r.ok) << r.err;
  const std::string& d = r.err;
  EXPECT_EQ(section(d, "qual:"),
            "qual:\n"
            "   2  LT_I4(attr_i2, scalar) nobranch    s1 <- tuple@32, c0  under s0  @2:54\n"
            "   3  SEL_DIFF                           s2 <- s0 without s1\n")
      << d;
  EXPECT_NE(d.find("$0 = 10 (i4), $1 = 1 (i4)\n"), std::string::npos) << d;
  EXPECT_EQ(section(d, "project:"),
            "project:\n"
            "   4  ADD_I4(attr_i2, scalar)            v0 <- tuple@30, c1  under s2  @2:31\n"
            "   5  CVT_I4_F8(vec)                     v1 <- v0  under s2  @2:15\n"
            "   6  STORE_F8(vec)                      row@0 <- v1  under s2  @2:15\n")
      << d;
}

// Tuple substitution's values are parameters: loaded from the parameter
// block by the prologue, never folded into the program (plan reuse).
TEST(VectorDump, ParametersLoadInThePrologue) {
  Kit k("vector:inplace", {.dumps = {"vector"}, .selection = harness::Selection::NoBranch});
  k.add_parts(20);
  auto r = k.run("range of p is parts range of q is parts\nretrieve (p.qoh, q.qoh) where p.pnum = q.pnum");
  ASSERT_TRUE(r.ok) << r.err;
  const std::string& d = r.err;
  EXPECT_NE(d.find("prologue:\n   0  PARAM_I2                           c0 <- param@0  @2:31\n"), std::string::npos) << d;
  EXPECT_NE(d.find("EQ_I4(attr_i2, scalar) nobranch    s1 <- tuple@0, c0  under s0"), std::string::npos) << d;
}

// Every mode prints its form; the selection method is in its header.
TEST(VectorDump, EveryModeSaysWhatRan) {
  for (const auto& v : vector_modes()) {
    const std::string m = v.name();
    Kit k("vector:" + v.mode, {.dumps = {"vector"}, .batch = 256, .selection = v.selection});
    k.add_parts(20);
    auto r = k.run(kD);
    ASSERT_TRUE(r.ok) << m << "\n" << r.err;
    bool branch = v.selection == harness::Selection::Branch;
    EXPECT_NE(r.err.find(branch ? "selection: branch" : "selection: nobranch"), std::string::npos) << m << r.err;
    EXPECT_NE(r.err.find(v.mode == "gather" ? "attributes: gathered" : "attributes: in place"), std::string::npos)
        << m << r.err;
    EXPECT_NE(r.err.find("batch: 256 tuples"), std::string::npos) << m << r.err;
  }
}

}  // namespace
}  // namespace quelkit::test
