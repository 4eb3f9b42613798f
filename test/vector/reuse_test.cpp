// Plan reuse: one prepared vector program serves every parameter block. (f)
// on the paper's keyed setup substitutes p and looks q up by key; the inner
// plan is prepared once and hit for every other substituted tuple, and its
// results equal the interpreter's, which prepares afresh per tuple.
#include "vector_test_util.h"

namespace quelkit::test {
namespace {

class Reuse : public ::testing::TestWithParam<VectorVariant> {};

TEST_P(Reuse, PaperFPreparesItsInnerPlanOnce) {
  Kit k("vector:" + GetParam().mode, {.dumps = {}, .selection = GetParam().selection});
  k.add_parts(3360, true, harness::Structure::Isam);
  auto r = k.run("range of p is parts range of q is parts");
  ASSERT_TRUE(r.ok) << r.err;
  r = k.run("retrieve (p.qoh, q.qoh) where p.pnum = q.pnum");
  ASSERT_TRUE(r.ok) << r.err;
  const auto& st = k.reports().back().stats;
  EXPECT_EQ(st.prepares, 1u);
  EXPECT_EQ(st.cache_hits, 3359u);
  EXPECT_EQ(st.rows_out, 3360u);
}

// Parameters of every type, compared with the interpreter over many blocks.
TEST_P(Reuse, ParametersOfEveryTypeAgreeWithTheInterpreter) {
  Kit k("interp:switch,vector:" + GetParam().mode,
        {.dumps = {}, .batch = 0, .page_size = 4096, .selection = GetParam().selection});
  auto r = k.run(R"(create u (k = i1, s = c6, x = f4, y = f8, z = i4)
append to u (k = 1, s = "ab", x = 1.5, y = 2.5, z = 7)
append to u (k = -3, s = "b", x = -0.0, y = 0.0, z = 0)
append to u (k = 0, s = "abc", x = 3.25, y = -1.0e10, z = 2147483647)
create v (k = i2, s = c10, x = f8, z = i1)
append to v (k = 1, s = "ab", x = 1.5, z = 1)
append to v (k = 0, s = "abc  ", x = 0.0, z = 0)
append to v (k = -3, s = "b", x = 3.25, z = -1)
range of u is u range of v is v
retrieve (u.k, v.k, w = v.x * u.y) where u.k = v.k or u.s = v.s or u.x < v.x
retrieve (u.s, v.s, d = u.z / v.z) where u.z > 0 and v.z != 0
retrieve (n = concat(u.s, v.s)) where v.s != u.s and u.y >= v.x)");
  EXPECT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Modes, Reuse, ::testing::ValuesIn(vector_modes()),
                         [](const ::testing::TestParamInfo<VectorVariant>& i) { return i.param.name(); });

}  // namespace
}  // namespace quelkit::test
