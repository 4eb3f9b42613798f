// One prepared threaded plan serves every parameter block (plan reuse): the
// plan is prepared once, the block it was prepared with is destroyed, and it
// then runs with many other blocks, agreeing with the interpreter prepared
// afresh per block. Also the fused page kernel against the tuple-at-a-time
// entry points, and its error slot. Drives the back ends directly through
// harness::Backend, with a plan bound from QUEL (test/quel_plan.h).
#include <cstring>

#include "storage/page.h"
#include "interp/interp.h"
#include "threaded/threaded.h"
#include "test/quel_plan.h"
#include "threaded_test_util.h"
#include "test/prepared_calls.h"

namespace quelkit::test {
namespace {

// in:     a i2, s c6, r f4
// params: k i4, t c6, x f8
// where   a = k or (s = t and r < x)          (a, r widened; k, t, x parameters)
// target  v = a + k, w = t, z = k / a          (z raises division by zero when a = 0)
struct ParamPlan {
  harness::Plan plan;
  ParamPlan() {
    quelkit::test::QuelPlan q("i", Schema::packed({{"a", Type::i2()}, {"s", Type::c(6)}, {"r", Type::f4()}}));
    q.params("k", Schema::packed({{"k", Type::i4()}, {"t", Type::c(6)}, {"x", Type::f8()}}));
    plan = q.plan("retrieve (v = i.a + k.k, w = k.t, z = k.k / i.a) where i.a = k.k or (i.s = k.t and i.r < k.x)");
    plan.name = "reuse";
    plan.qual_folded = plan.qual->clone();
    for (const auto& t : plan.targets) plan.targets_folded.push_back(t->clone());
    harness::compute_key(plan);
  }
};

std::vector<uint8_t> tuple(const Schema& s, int16_t a, const char* str, float r) {
  std::vector<uint8_t> t(s.tuple_len, ' ');
  harness::store<int16_t>(t.data() + s.attrs[0].offset, a);
  std::memcpy(t.data() + s.attrs[1].offset, str, std::min<size_t>(6, std::strlen(str)));
  harness::store<float>(t.data() + s.attrs[2].offset, r);
  return t;
}

std::vector<uint8_t> block(const Schema& s, int32_t k, const char* str, double x) {
  std::vector<uint8_t> p(s.tuple_len, ' ');
  harness::store<int32_t>(p.data() + s.attrs[0].offset, k);
  std::memcpy(p.data() + s.attrs[1].offset, str, std::min<size_t>(6, std::strlen(str)));
  harness::store<double>(p.data() + s.attrs[2].offset, x);
  return p;
}

// qualify, then project if it qualifies: "q=<0|1|-1>" + row bytes or the error.
std::string run_one(harness::Prepared& p, const uint8_t* t, const uint8_t* params, uint32_t row_len) {
  uint8_t scratch[8];
  qk_ctx ctx{};
  ctx.params = params;
  ctx.scratch = scratch;
  int q = qualify(p, t, &ctx);
  std::string s = "q=" + std::to_string(q);
  if (q == 1) {
    std::vector<uint8_t> row(row_len, 0xee);
    int r = project(p, t, row.data(), &ctx);
    s += " p=" + std::to_string(r);
    if (r == 0) s.append(reinterpret_cast<const char*>(row.data()), row.size());
  }
  if (ctx.err_code) s += " err=" + std::to_string(ctx.err_code) + "@" + std::to_string(ctx.err_pos);
  return s;
}

class Reuse : public ::testing::TestWithParam<std::string> {};

TEST_P(Reuse, OnePreparedPlanServesEveryParameterBlock) {
  ParamPlan pp;
  const harness::Plan& plan = pp.plan;
  auto threaded = threaded::make_backend(GetParam() == "goto" ? threaded::Dispatch::Goto : threaded::Dispatch::Call);
  auto interp = interp::make_backend(false);
  ASSERT_TRUE(threaded->reuses_plans());

  std::unique_ptr<harness::Prepared> prepared;
  {
    // The block the plan is first prepared with dies before the plan runs.
    auto first = block(plan.params, 7, "first", 1.0);
    prepared = threaded->prepare(plan, first.data());
    std::memset(first.data(), 0xab, first.size());
  }

  std::vector<std::vector<uint8_t>> tuples = {
      tuple(plan.in, 3, "abc", 1.5f), tuple(plan.in, 7, "zz", 9.0f), tuple(plan.in, -2, "abc", 0.25f),
      tuple(plan.in, 0, "abc", 0.5f), tuple(plan.in, 100, "abc  ", -1.0f)};
  std::vector<std::vector<uint8_t>> blocks = {
      block(plan.params, 3, "abc", 1.0),  block(plan.params, 7, "zz", 0.0),      block(plan.params, -2, "abc", 2.0),
      block(plan.params, 100, "q", -5.0), block(plan.params, 0, "abc", 0.75), block(plan.params, 2147483647, "abc", 9.0)};
  int qualified = 0, errors = 0;
  for (const auto& blk : blocks) {
    auto ref = interp->prepare(plan, blk.data());  // the interpreter inlines each block afresh
    for (const auto& t : tuples) {
      std::string want = run_one(*ref, t.data(), blk.data(), plan.out.tuple_len);
      std::string got = run_one(*prepared, t.data(), blk.data(), plan.out.tuple_len);
      EXPECT_EQ(got, want);
      qualified += got.rfind("q=1", 0) == 0;
      errors += got.find("err=") != std::string::npos;
    }
  }
  EXPECT_GT(qualified, 5);  // the blocks really change what qualifies
  EXPECT_GT(errors, 0);     // and z = k / a raises for a = 0, at the same node
}

// A synthetic page: lines 0..n-1 with some deleted, tuples from the end down.
std::vector<uint8_t> page_of(const std::vector<std::vector<uint8_t>>& tuples, const std::vector<bool>& deleted) {
  std::vector<uint8_t> pg(1024, 0);
  harness::store<uint32_t>(pg.data() + harness::kPageOffNext, harness::kNoPage);
  harness::store<uint16_t>(pg.data() + harness::kPageOffNLines, uint16_t(tuples.size()));
  uint32_t end = 1024;
  for (size_t i = 0; i < tuples.size(); ++i) {
    end -= uint32_t(tuples[i].size());
    std::memcpy(pg.data() + end, tuples[i].data(), tuples[i].size());
    harness::store<uint16_t>(pg.data() + harness::kPageHeader + 2 * i, deleted[i] ? 0 : uint16_t(end));
  }
  return pg;
}

TEST_P(Reuse, PageKernelMatchesTupleAtATimeAndReportsTheFailingLine) {
  ParamPlan pp;
  const harness::Plan& plan = pp.plan;
  auto be = threaded::make_backend(GetParam() == "goto" ? threaded::Dispatch::Goto : threaded::Dispatch::Call);
  auto blk = block(plan.params, 3, "abc", 1.0);
  auto prepared = be->prepare(plan, blk.data());
  ASSERT_TRUE(has_kernel(*prepared));
  const uint32_t len = plan.out.tuple_len;

  std::vector<std::vector<uint8_t>> tuples = {tuple(plan.in, 3, "abc", 1.5f), tuple(plan.in, 5, "abc", 0.5f),
                                              tuple(plan.in, 3, "x", 0.5f),   tuple(plan.in, 1, "abc", 0.0f),
                                              tuple(plan.in, 3, "abc", 9.0f), tuple(plan.in, 9, "abc", 7.0f)};
  std::vector<bool> deleted = {false, false, true, false, false, false};
  auto pg = page_of(tuples, deleted);
  uint8_t scratch[8];
  qk_ctx ctx{};
  ctx.params = blk.data();
  ctx.scratch = scratch;
  std::vector<uint8_t> rows(8 * len, 0);
  int64_t n = run_page(*prepared, pg.data(), rows.data(), &ctx);

  std::vector<uint8_t> want;
  for (size_t i = 0; i < tuples.size(); ++i) {
    if (deleted[i]) continue;
    const uint8_t* t = pg.data() + harness::page_line(pg.data(), uint32_t(i));
    if (qualify(*prepared, t, &ctx) != 1) continue;
    std::vector<uint8_t> row(len);
    ASSERT_EQ(project(*prepared, t, row.data(), &ctx), 0);
    want.insert(want.end(), row.begin(), row.end());
  }
  ASSERT_EQ(n, int64_t(want.size() / len));
  EXPECT_EQ(n, 4);  // lines 0, 1, 3, 4 qualify; 2 is deleted; 5 does not
  EXPECT_EQ(std::memcmp(rows.data(), want.data(), want.size()), 0);
  EXPECT_EQ(ctx.err_code, 0);

  // A tuple with a = 0 that qualifies makes z = k / 0 raise: line 4 here.
  tuples[4] = tuple(plan.in, 0, "abc", 0.5f);
  pg = page_of(tuples, deleted);
  qk_ctx ectx{};
  ectx.params = blk.data();
  ectx.scratch = scratch;
  EXPECT_EQ(run_page(*prepared, pg.data(), rows.data(), &ectx), -1);
  EXPECT_EQ(ectx.err_slot, 4);
  EXPECT_EQ(ectx.err_code, QK_ERR_DIV_ZERO);
  EXPECT_EQ(SrcPos::unpack(ectx.err_pos), plan.targets_folded[2]->pos);
}

INSTANTIATE_TEST_SUITE_P(Modes, Reuse, ::testing::ValuesIn(threaded_modes()));

}  // namespace
}  // namespace quelkit::test
