// Checks of prepared JIT plans written once for both code generators: a
// hand-built plan ("reuse": a > x and s != y, projecting a and y) prepared
// once must serve every parameter block, tuple by tuple and page at a time;
// --jit-checks turns an attribute outside the tuple and a corrupt line table
// into QK_ERR_BOUNDS; (f) compiles its substituted query once. Each back end's
// test file calls them with its make_backend (and its own extra checks).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "frontend/frontend.h"
#include "bench/workloads/parts.h"
#include "engine/plan.h"
#include "runtime/runtime_inline.h"
#include "jit/codegen.h"
#include "test/jit_llvm/support.h"
#include "test/prepared_calls.h"

namespace quelkit::test {

using MakeBackend = std::function<std::unique_ptr<harness::Backend>(jit::Mode, const harness::PrepareOptions&)>;

// attr_offset_override moves attribute a's offset (to test bounds checks).
inline harness::Plan reuse_plan(uint32_t attr_offset_override = 0) {
  harness::Plan p;
  p.name = "reuse";
  p.in = Schema::packed({{"a", Type::i4()}, {"s", Type::c(4)}});
  p.params = Schema::packed({{"x", Type::i4()}, {"y", Type::c(4)}});
  p.out = Schema::packed({{"a", Type::i4()}, {"y", Type::c(4)}});
  auto attr = [&](int i) {
    auto n = ir::make_node(ir::Op::ATTR, p.in.attrs[size_t(i)].type, SrcPos{1, uint32_t(10 + i)});
    n->var = 0;
    n->attr = i;
    n->offset = p.in.attrs[size_t(i)].offset;
    return n;
  };
  auto param = [&](int i) {
    auto n = ir::make_node(ir::Op::PARAM, p.params.attrs[size_t(i)].type, SrcPos{1, uint32_t(20 + i)});
    n->slot = i;
    n->offset = p.params.attrs[size_t(i)].offset;
    return n;
  };
  auto a = attr(0);
  if (attr_offset_override) a->offset = attr_offset_override;
  auto gt = ir::make_node(ir::Op::GT_I4, Type::b(), SrcPos{1, 5}, std::move(a), param(0));
  auto ne = ir::make_node(ir::Op::NE_C, Type::b(), SrcPos{1, 6}, attr(1), param(1));
  p.qual = ir::make_node(ir::Op::AND, Type::b(), SrcPos{1, 5}, std::move(gt), std::move(ne));
  p.qual_folded = frontend::fold(*p.qual);
  p.targets.push_back(attr(0));
  p.targets.push_back(param(1));
  for (const auto& t : p.targets) p.targets_folded.push_back(frontend::fold(*t));
  harness::compute_key(p);
  return p;
}

inline std::vector<uint8_t> tuple(int32_t a, const char* s) {
  std::vector<uint8_t> t(8, ' ');
  harness::store<int32_t>(t.data(), a);
  std::memcpy(t.data() + 4, s, std::strlen(s));
  return t;
}

// `before_prepare` and `after_runs` let a back end count what it loads.
inline void check_one_plan_serves_every_parameter_block(
    const MakeBackend& make, const std::function<void(jit::Mode)>& before_prepare = {},
    const std::function<void(jit::Mode, std::unique_ptr<harness::Prepared>&)>& after_runs = {}) {
  harness::Plan plan = reuse_plan();
  harness::Relation rel("r", plan.in);
  const char* const names[] = {"ab", "cd", "ab  ", "x"};
  for (int i = 0; i < 20; ++i) rel.insert(tuple(i * 10 - 50, names[i % 4]).data());
  for (jit::Mode mode : {jit::Mode::Qual, jit::Mode::Fused}) {
    SCOPED_TRACE(jit::mode_name(mode));
    harness::PrepareOptions opt;
    auto be = make(mode, opt);
    EXPECT_TRUE(be->reuses_plans());
    std::vector<uint8_t> first(plan.params.tuple_len, ' ');
    if (before_prepare) before_prepare(mode);
    auto prepared = be->prepare(plan, first.data());  // once
    EXPECT_EQ(has_kernel(*prepared), mode == jit::Mode::Fused);
    std::vector<uint8_t> scratch(8), rows(20 * plan.out.tuple_len + 1);
    for (int k = 0; k < 200; ++k) {
      // A fresh block each time, at a fresh address: nothing may be cached.
      std::vector<uint8_t> params(plan.params.tuple_len, ' ');
      const int32_t x = k % 120 - 60;
      const char* y = names[k % 4];
      harness::store<int32_t>(params.data(), x);
      std::memcpy(params.data() + 4, y, std::strlen(y));
      qk_ctx ctx{};
      ctx.params = params.data();
      ctx.scratch = scratch.data();
      std::vector<std::pair<int32_t, std::string>> want;
      std::string ys = std::string(y) + std::string(4 - std::strlen(y), ' ');
      rel.for_each([&](harness::Tid, const uint8_t* t) {
        int32_t a = harness::load<int32_t>(t);
        std::string s(reinterpret_cast<const char*>(t + 4), 4);
        if (a > x && rt::strip(s) != rt::strip(ys)) want.emplace_back(a, ys);
      });
      std::vector<std::pair<int32_t, std::string>> got;
      auto take = [&](const uint8_t* row) {
        got.emplace_back(harness::load<int32_t>(row), std::string(reinterpret_cast<const char*>(row + 4), 4));
      };
      if (mode == jit::Mode::Fused) {
        int64_t n = run_page(*prepared, rel.page(0), rows.data(), &ctx);
        ASSERT_GE(n, 0);
        for (int64_t i = 0; i < n; ++i) take(rows.data() + i * plan.out.tuple_len);
      }
      std::vector<std::pair<int32_t, std::string>> per_tuple;
      rel.for_each([&](harness::Tid, const uint8_t* t) {
        int q = qualify(*prepared, t, &ctx);
        ASSERT_GE(q, 0);
        if (!q) return;
        ASSERT_EQ(project(*prepared, t, rows.data(), &ctx), 0);
        per_tuple.emplace_back(harness::load<int32_t>(rows.data()),
                               std::string(reinterpret_cast<const char*>(rows.data() + 4), 4));
      });
      if (mode == jit::Mode::Qual) got = per_tuple;
      EXPECT_EQ(got, want) << "parameter block " << k;
      EXPECT_EQ(per_tuple, want) << "parameter block " << k << " tuple by tuple";
    }
    if (after_runs) after_runs(mode, prepared);
  }
}

inline void check_attribute_outside_the_tuple_raises_bounds(const MakeBackend& make) {
  harness::Plan plan = reuse_plan(/*attr_offset_override=*/6);  // a: bytes 6..9 of an 8-byte tuple
  harness::PrepareOptions opt;
  opt.jit_checks = true;
  for (jit::Mode mode : {jit::Mode::Qual, jit::Mode::Fused}) {
    auto be = make(mode, opt);
    auto p = be->prepare(plan, nullptr);
    std::vector<uint8_t> params(8, ' '), scratch(8);
    qk_ctx ctx{};
    ctx.params = params.data();
    ctx.scratch = scratch.data();
    auto t = tuple(1, "ab");
    EXPECT_EQ(qualify(*p, t.data(), &ctx), -1);
    EXPECT_EQ(ctx.err_code, QK_ERR_BOUNDS);
    EXPECT_EQ(SrcPos::unpack(ctx.err_pos), (SrcPos{1, 10}));
  }
}

inline void check_corrupt_line_table_raises_bounds_in_the_kernel(const MakeBackend& make) {
  harness::Plan plan = reuse_plan();
  harness::PrepareOptions opt;
  opt.jit_checks = true;
  auto p = make(jit::Mode::Fused, opt)->prepare(plan, nullptr);
  ASSERT_TRUE(has_kernel(*p));
  harness::Relation rel("r", plan.in);
  for (int i = 0; i < 3; ++i) rel.insert(tuple(100 + i, "zz").data());
  std::vector<uint8_t> page(rel.page(0), rel.page(0) + rel.page_size());
  harness::store<uint16_t>(page.data() + harness::kPageHeader + 2, 4);  // line 1 points into the header
  std::vector<uint8_t> params(8, ' '), scratch(8), rows(64);
  harness::store<int32_t>(params.data(), 0);  // where a > 0 and s != "    "
  qk_ctx ctx{};
  ctx.params = params.data();
  ctx.scratch = scratch.data();
  EXPECT_EQ(run_page(*p, page.data(), rows.data(), &ctx), -1);
  EXPECT_EQ(ctx.err_code, QK_ERR_BOUNDS);
  EXPECT_EQ(ctx.err_slot, 1);
  // The intact page runs.
  qk_ctx ok{};
  ok.params = params.data();
  ok.scratch = scratch.data();
  EXPECT_EQ(run_page(*p, rel.page(0), rows.data(), &ok), 3);
}

// `backend` is "llvm" or "gccjit": both modes beside the interpreter.
inline void check_substituted_query_compiles_once(const std::string& backend) {
  auto o = options("interp," + backend + ":qual," + backend + ":fused", 1, true);
  std::ostringstream out, err;
  harness::Session s(o, out, err);
  s.catalog().add(harness::make_parts(3360, true, harness::Structure::Isam));
  ASSERT_TRUE(s.run(std::make_shared<Source>("f.quel", "range of p is parts range of q is parts")));
  auto src = std::make_shared<Source>("f.quel", "retrieve (p.qoh, q.qoh) where p.pnum = q.pnum");
  auto stmts = frontend::parse(src);
  auto q = frontend::bind(*stmts[0], s.ranges(), s.catalog(), src);
  std::vector<harness::Result> rs;
  for (auto& r : s.runners()) rs.push_back(s.evaluate(q, *r, src, true));
  ASSERT_TRUE(rs[0].ok);
  EXPECT_EQ(rs[0].nrows(), 3360u);
  EXPECT_EQ(rs[0].stats.prepares, 3360u) << "the interpreter prepares every substitution afresh";
  for (size_t i = 1; i < rs.size(); ++i) {
    EXPECT_EQ(differ(rs[0], rs[i]), "");
    EXPECT_EQ(rs[i].stats.prepares, 1u);
    EXPECT_EQ(rs[i].stats.cache_hits, 3359u);
    EXPECT_GT(rs[i].stats.codegen_ns, 0u);
  }
}

}  // namespace quelkit::test
