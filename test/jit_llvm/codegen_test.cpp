// What the LLVM back end generates and how prepared plans behave: the IR of
// the paper's (d) shows the folded constant (no log call), functions are named
// after the statement, prepared code embeds no pointers and one prepared plan
// serves every parameter block, --jit-checks turns bad offsets into
// QK_ERR_BOUNDS instead of wild reads, and (f) compiles its substituted query
// once for all 3360 substitutions.
#include <gtest/gtest.h>

#ifdef QUELKIT_HAVE_LLVM

#include <cinttypes>
#include <cstdio>

#include "harness/parts.h"
#include "jit/llvm/llvm_backend.h"
#include "test/jit_llvm/support.h"

namespace quelkit::jittest {
namespace {

using ir::Op;
namespace lj = jit::llvmjit;

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

// How LLVM prints a double that has no short decimal form.
std::string llvm_hex(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016" PRIX64, bits);
  return buf;
}

std::string dump_llvm(const std::string& backend, const std::string& stmt, int level = 1) {
  auto o = options(backend, level, false);
  o.dumps.insert("llvm");
  std::ostringstream out, err;
  harness::Session s(o, out, err);
  s.catalog().add(harness::make_parts(100, false, harness::Structure::Heap));
  EXPECT_TRUE(s.run(std::make_shared<Source>("d.quel", "range of p is parts\n" + stmt))) << err.str();
  return out.str();
}

TEST(LlvmIr, PaperQueryDShowsOneFoldedConstant) {
  std::string text = dump_llvm("llvm:fused", "retrieve (p.pnum) where p.qoh < log(9.5) * p.weight");
  size_t after = text.find(", after --jit-opt");
  ASSERT_NE(after, std::string::npos) << text;
  std::string before = text.substr(0, after), optimized = text.substr(after);
  // The walk reads the folded IR: log(9.5) arrives as one f8 constant, before
  // LLVM optimises anything, and stays the only multiplication's operand.
  const std::string k = llvm_hex(std::log(9.5));
  for (const std::string* t : {&before, &optimized}) {
    EXPECT_EQ(count(*t, "fmul double"), 1u) << *t;
    EXPECT_EQ(count(*t, k), 1u) << *t;
    EXPECT_EQ(t->find("log"), std::string::npos) << *t;
    EXPECT_NE(t->find("define i64 @q2_kernel(ptr"), std::string::npos) << *t;
    EXPECT_EQ(t->find("fast"), std::string::npos) << "no fast-math flags";
    EXPECT_EQ(t->find("contract"), std::string::npos) << "no contraction";
  }
  // The product is checked for a finite result (FLOAT_RESULT), then compared.
  EXPECT_NE(optimized.find("@llvm.fabs.f64"), std::string::npos);
  EXPECT_NE(optimized.find("call i32 @qk_raise(ptr %ctx, i32 7"), std::string::npos) << optimized;
}

TEST(LlvmIr, QualModeNamesFunctionsAfterTheStatement) {
  std::string text = dump_llvm("llvm:qual", "retrieve (p.pname) where p.pname = \"bolt\" or p.qoh > 10");
  EXPECT_NE(text.find("define i32 @q2_qual(ptr"), std::string::npos) << text;
  EXPECT_NE(text.find("define i32 @q2_project(ptr"), std::string::npos) << text;
  EXPECT_NE(text.find("@qk_char_cmp"), std::string::npos) << "string comparison is the shared helper";
}

// A plan over (a = i4, s = c4) with parameters (x = i4, y = c4):
//   where t.a > x and t.s != y   retrieve (t.a, y)
harness::Plan reuse_plan(uint32_t attr_offset_override = 0) {
  harness::Plan p;
  p.name = "reuse";
  p.in = Schema::packed({{"a", Type::i4()}, {"s", Type::c(4)}});
  p.params = Schema::packed({{"x", Type::i4()}, {"y", Type::c(4)}});
  p.out = Schema::packed({{"a", Type::i4()}, {"y", Type::c(4)}});
  auto attr = [&](int i) {
    auto n = ir::make_node(Op::ATTR, p.in.attrs[size_t(i)].type, SrcPos{1, uint32_t(10 + i)});
    n->var = 0;
    n->attr = i;
    n->offset = p.in.attrs[size_t(i)].offset;
    return n;
  };
  auto param = [&](int i) {
    auto n = ir::make_node(Op::PARAM, p.params.attrs[size_t(i)].type, SrcPos{1, uint32_t(20 + i)});
    n->slot = i;
    n->offset = p.params.attrs[size_t(i)].offset;
    return n;
  };
  auto a = attr(0);
  if (attr_offset_override) a->offset = attr_offset_override;
  auto gt = ir::make_node(Op::GT_I4, Type::b(), SrcPos{1, 5}, std::move(a), param(0));
  auto ne = ir::make_node(Op::NE_C, Type::b(), SrcPos{1, 6}, attr(1), param(1));
  p.qual = ir::make_node(Op::AND, Type::b(), SrcPos{1, 5}, std::move(gt), std::move(ne));
  p.qual_folded = frontend::fold(*p.qual);
  p.targets.push_back(attr(0));
  p.targets.push_back(param(1));
  for (const auto& t : p.targets) p.targets_folded.push_back(frontend::fold(*t));
  harness::compute_key(p);
  return p;
}

std::vector<uint8_t> tuple(int32_t a, const char* s) {
  std::vector<uint8_t> t(8, ' ');
  harness::store<int32_t>(t.data(), a);
  std::memcpy(t.data() + 4, s, std::strlen(s));
  return t;
}

TEST(LlvmPlans, OnePreparedPlanServesEveryParameterBlock) {
  harness::Plan plan = reuse_plan();
  harness::Relation rel("r", plan.in);
  const char* const names[] = {"ab", "cd", "ab  ", "x"};
  for (int i = 0; i < 20; ++i) rel.insert(tuple(i * 10 - 50, names[i % 4]).data());
  for (jit::Mode mode : {jit::Mode::Qual, jit::Mode::Fused}) {
    SCOPED_TRACE(jit::mode_name(mode));
    harness::PrepareOptions opt;
    auto be = lj::make_backend(mode, opt);
    EXPECT_TRUE(be->reuses_plans());
    std::vector<uint8_t> first(plan.params.tuple_len, ' ');
    auto prepared = be->prepare(plan, first.data());  // once
    EXPECT_EQ(prepared->has_kernel(), mode == jit::Mode::Fused);
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
        auto strip = [](std::string v) { return v.erase(v.find_last_not_of(' ') + 1); };
        if (a > x && strip(s) != strip(ys)) want.emplace_back(a, ys);
      });
      std::vector<std::pair<int32_t, std::string>> got;
      auto take = [&](const uint8_t* row) {
        got.emplace_back(harness::load<int32_t>(row), std::string(reinterpret_cast<const char*>(row + 4), 4));
      };
      if (mode == jit::Mode::Fused) {
        int64_t n = prepared->run_page(rel.page(0), rows.data(), &ctx);
        ASSERT_GE(n, 0);
        for (int64_t i = 0; i < n; ++i) take(rows.data() + i * plan.out.tuple_len);
      }
      std::vector<std::pair<int32_t, std::string>> per_tuple;
      rel.for_each([&](harness::Tid, const uint8_t* t) {
        int q = prepared->qualify(t, &ctx);
        ASSERT_GE(q, 0);
        if (!q) return;
        ASSERT_EQ(prepared->project(t, rows.data(), &ctx), 0);
        per_tuple.emplace_back(harness::load<int32_t>(rows.data()),
                               std::string(reinterpret_cast<const char*>(rows.data() + 4), 4));
      });
      if (mode == jit::Mode::Qual) got = per_tuple;
      EXPECT_EQ(got, want) << "parameter block " << k;
      EXPECT_EQ(per_tuple, want) << "parameter block " << k << " tuple by tuple";
    }
  }
}

TEST(LlvmPlans, GeneratedCodeEmbedsNoPointers) {
  harness::Plan plan = reuse_plan();
  for (jit::Mode mode : {jit::Mode::Qual, jit::Mode::Fused}) {
    std::ostringstream os;
    lj::print_module(plan, mode, harness::PrepareOptions{}, true, os);
    EXPECT_EQ(os.str().find("inttoptr"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find(mode == jit::Mode::Qual ? "@reuse_qual(" : "@reuse_kernel("), std::string::npos);
  }
}

TEST(LlvmTarget, GenericUnlessNativeIsAsked) {
  // --jit-cpu generic (the default) is the triple's baseline CPU, what the
  // ahead-of-time build targets; native is this machine's CPU.
  EXPECT_EQ(lj::target_cpu(false), "generic");
  EXPECT_EQ(lj::target_cpu(true), lj::host_cpu());
  EXPECT_FALSE(harness::PrepareOptions{}.jit_native_cpu) << "the default must be generic";
}

TEST(LlvmPlans, SubstitutedQueryCompilesOnce) {
  auto o = options("interp,llvm:qual,llvm:fused", 1, true);
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

TEST(LlvmChecks, AttributeOutsideTheTupleRaisesBounds) {
  harness::Plan plan = reuse_plan(/*attr_offset_override=*/6);  // a: bytes 6..9 of an 8-byte tuple
  harness::PrepareOptions opt;
  opt.jit_checks = true;
  for (jit::Mode mode : {jit::Mode::Qual, jit::Mode::Fused}) {
    auto be = lj::make_backend(mode, opt);
    auto p = be->prepare(plan, nullptr);
    std::vector<uint8_t> params(8, ' '), scratch(8);
    qk_ctx ctx{};
    ctx.params = params.data();
    ctx.scratch = scratch.data();
    auto t = tuple(1, "ab");
    EXPECT_EQ(p->qualify(t.data(), &ctx), -1);
    EXPECT_EQ(ctx.err_code, QK_ERR_BOUNDS);
    EXPECT_EQ(SrcPos::unpack(ctx.err_pos), (SrcPos{1, 10}));
  }
}

TEST(LlvmChecks, MissingParameterBlockRaisesBounds) {
  harness::Plan plan = reuse_plan();
  harness::PrepareOptions opt;
  opt.jit_checks = true;
  auto p = lj::make_backend(jit::Mode::Qual, opt)->prepare(plan, nullptr);
  qk_ctx ctx{};  // no params
  auto t = tuple(1, "ab");
  EXPECT_EQ(p->qualify(t.data(), &ctx), -1);
  EXPECT_EQ(ctx.err_code, QK_ERR_BOUNDS);
}

TEST(LlvmChecks, CorruptLineTableRaisesBoundsInTheKernel) {
  harness::Plan plan = reuse_plan();
  harness::PrepareOptions opt;
  opt.jit_checks = true;
  auto p = lj::make_backend(jit::Mode::Fused, opt)->prepare(plan, nullptr);
  ASSERT_TRUE(p->has_kernel());
  harness::Relation rel("r", plan.in);
  for (int i = 0; i < 3; ++i) rel.insert(tuple(100 + i, "zz").data());
  std::vector<uint8_t> page(rel.page(0), rel.page(0) + rel.page_size());
  harness::store<uint16_t>(page.data() + harness::kPageHeader + 2, 4);  // line 1 points into the header
  std::vector<uint8_t> params(8, ' '), scratch(8), rows(64);
  harness::store<int32_t>(params.data(), 0);  // where a > 0 and s != "    "
  qk_ctx ctx{};
  ctx.params = params.data();
  ctx.scratch = scratch.data();
  EXPECT_EQ(p->run_page(page.data(), rows.data(), &ctx), -1);
  EXPECT_EQ(ctx.err_code, QK_ERR_BOUNDS);
  EXPECT_EQ(ctx.err_slot, 1);
  // The intact page runs.
  qk_ctx ok{};
  ok.params = params.data();
  ok.scratch = scratch.data();
  EXPECT_EQ(p->run_page(rel.page(0), rows.data(), &ok), 3);
}

TEST(LlvmChecksDeathTest, WithoutChecksABadPlanIsAnInternalError) {
  harness::Plan plan = reuse_plan(/*attr_offset_override=*/6);
  EXPECT_DEATH(lj::make_backend(jit::Mode::Qual, harness::PrepareOptions{})->prepare(plan, nullptr),
               "internal error");
}

}  // namespace
}  // namespace quelkit::jittest

#endif  // QUELKIT_HAVE_LLVM
