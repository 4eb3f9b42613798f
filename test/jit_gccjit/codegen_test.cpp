// What the gccjit back end generates and how its prepared plans behave: the
// GIMPLE of the paper's (d) holds the folded constant and no call to log,
// every IR node's code carries a comment and a location in the script,
// functions are named after the statement and registered with perf, one
// prepared plan serves every parameter block, --jit-checks turns bad offsets
// into QK_ERR_BOUNDS, (f) compiles its substituted query once, and prepare
// reports its compile time split. Each test compiles a handful of plans
// (libgccjit takes tens of milliseconds a compile).
#include <gtest/gtest.h>

#ifdef QUELKIT_HAVE_GCCJIT

#include <cmath>
#include <cstdio>
#include <fstream>

#include "harness/parts.h"
#include "harness/perfmap.h"
#include "jit/gccjit/gccjit_backend.h"
#include "test/jit_llvm/support.h"

namespace quelkit::jittest {
namespace {

using ir::Op;
namespace gj = jit::gccjit;

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

// --dump=gimple of `stmt` after `range of p is parts`, from script d.quel.
std::string dump_gimple(const std::string& backend, const std::string& stmt, int level = 1) {
  auto o = options(backend, level, false);
  o.dumps.insert("gimple");
  std::ostringstream out, err;
  harness::Session s(o, out, err);
  s.catalog().add(harness::make_parts(100, false, harness::Structure::Heap));
  EXPECT_TRUE(s.run(std::make_shared<Source>("d.quel", "range of p is parts\n" + stmt))) << err.str();
  return out.str();
}

// The two halves of a dump: before and after the --jit-opt passes.
std::pair<std::string, std::string> halves(const std::string& text) {
  size_t after = text.find(", GIMPLE after --jit-opt");
  EXPECT_NE(after, std::string::npos) << text;
  if (after == std::string::npos) return {text, ""};
  return {text.substr(0, after), text.substr(after)};
}

TEST(GccjitGimple, PaperQueryDHoldsTheFoldedConstantAndNoLog) {
  for (int level : {0, 2}) {
    SCOPED_TRACE("--jit-opt " + std::to_string(level));
    std::string text = dump_gimple("gccjit:fused", "retrieve (p.pnum) where p.qoh < log(9.5) * p.weight", level);
    auto [before, optimized] = halves(text);
    char k[32];
    std::snprintf(k, sizeof k, "%.17g", std::log(9.5));  // GCC prints more digits: this is their prefix
    for (const std::string* t : {&before, &optimized}) {
      // The walk reads the folded IR: log(9.5) arrives as one f8 constant and
      // is the one multiplication's operand; no logarithm is called.
      EXPECT_EQ(count(*t, std::string(" * ") + k), 1u) << *t;
      EXPECT_EQ(t->find("qk_log"), std::string::npos) << *t;
      EXPECT_EQ(t->find("log ("), std::string::npos) << *t;
      EXPECT_NE(t->find("long int q2_kernel (unsigned char * page, unsigned char * rows, unsigned char * ctx)"),
                std::string::npos)
          << *t;
      // The product is checked for a finite result: FLOAT_RESULT (7) raised at the *.
      EXPECT_NE(t->find("qk_raise (ctx"), std::string::npos) << *t;
      EXPECT_NE(t->find(", 7, " + std::to_string(SrcPos{2, 42}.pack()) + ")"), std::string::npos) << *t;
    }
    // Every IR node's code opens with a comment naming it, at its place in d.quel.
    EXPECT_NE(before.find("[d.quel:2:42] /* MUL_F8 at 2:42 */"), std::string::npos) << before;
    EXPECT_NE(before.find("/* CONST 2.2512917986064953 at 2:33 */"), std::string::npos) << before;
    EXPECT_NE(before.find("[d.quel:2:31] /* LT_F8 at 2:31 */"), std::string::npos) << before;
    EXPECT_NE(before.find("/* ATTR attribute 3 at offset 30 at 2:44 */"), std::string::npos) << before;
    EXPECT_NE(optimized.find("[d.quel:2:44]"), std::string::npos) << "locations survive optimisation";
  }
}

TEST(GccjitGimple, QualModeNamesFunctionsAfterTheStatement) {
  std::string text = dump_gimple("gccjit:qual", "retrieve (p.pname) where p.pname = \"bolt\" or p.qoh > 10");
  auto [before, optimized] = halves(text);
  EXPECT_NE(before.find("int q2_qual (unsigned char * tuple, unsigned char * ctx)"), std::string::npos) << text;
  EXPECT_NE(before.find("int q2_project (unsigned char * tuple, unsigned char * row, unsigned char * ctx)"),
            std::string::npos)
      << text;
  EXPECT_NE(before.find("qk_char_cmp ("), std::string::npos) << "string comparison is the shared helper";
  EXPECT_NE(before.find("/* OR at 2:"), std::string::npos) << before;
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

TEST(GccjitPlans, OnePreparedPlanServesEveryParameterBlock) {
  harness::Plan plan = reuse_plan();
  harness::Relation rel("r", plan.in);
  const char* const names[] = {"ab", "cd", "ab  ", "x"};
  for (int i = 0; i < 20; ++i) rel.insert(tuple(i * 10 - 50, names[i % 4]).data());
  for (jit::Mode mode : {jit::Mode::Qual, jit::Mode::Fused}) {
    SCOPED_TRACE(jit::mode_name(mode));
    harness::PrepareOptions opt;
    auto be = gj::make_backend(mode, opt);
    EXPECT_TRUE(be->reuses_plans());
    std::vector<uint8_t> first(plan.params.tuple_len, ' ');
    const size_t before = gj::loaded_results();
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
    // Qual: one result; fused: the kernel's, then the per-tuple functions' on first use.
    EXPECT_EQ(gj::loaded_results(), before + (mode == jit::Mode::Fused ? 2u : 1u));
    prepared.reset();
    EXPECT_EQ(gj::loaded_results(), before) << "a destroyed plan releases its results";
  }
}

TEST(GccjitPlans, PrepareReportsItsCompileTimeSplit) {
  harness::Plan plan = reuse_plan();
  for (int level = 0; level <= 3; ++level) {
    harness::PrepareOptions opt;
    opt.jit_opt = level;
    auto p = gj::make_backend(jit::Mode::Qual, opt)->prepare(plan, nullptr);
    EXPECT_GT(p->times.irgen_ns, 0u);
    EXPECT_GT(p->times.opt_ns, 0u) << "GCC proper, timed from libgccjit's log";
    EXPECT_GT(p->times.codegen_ns, 0u) << "assembler, linker, dlopen";
  }
}

TEST(GccjitTarget, NativeIsTheDriversExpansionOfMarchNative) {
  // cc1 cannot take -march=native itself: the options must name the CPU.
  const auto& opts = gj::native_cpu_options();
  size_t march = 0;
  for (const auto& o : opts) {
    EXPECT_NE(o, "-march=native");
    march += o.rfind("-march=", 0) == 0;
  }
  EXPECT_EQ(march, 1u);
  EXPECT_FALSE(harness::PrepareOptions{}.jit_native_cpu) << "the default must be generic";
}

TEST(GccjitPlans, RuntimeHelpersResolveToTheKitsOwn) {
  EXPECT_EQ(gj::unresolved_helper(), "") << "the test executable must export the runtime helpers";
}

TEST(GccjitPlans, GeneratedFunctionsAreRegisteredWithPerf) {
  harness::perfmap_enable(true);
  harness::Plan plan = reuse_plan();
  auto p = gj::make_backend(jit::Mode::Fused, harness::PrepareOptions{})->prepare(plan, nullptr);
  harness::perfmap_enable(false);
  std::ifstream f(harness::perfmap_path());
  std::string line, found;
  while (std::getline(f, line))
    if (line.size() > 13 && line.compare(line.size() - 13, 13, " reuse_kernel") == 0) found = line;
  harness::perfmap_close(true);
  ASSERT_FALSE(found.empty()) << "no reuse_kernel in " << harness::perfmap_path();
  unsigned long long addr = 0, size = 0;
  ASSERT_EQ(std::sscanf(found.c_str(), "%llx %llx", &addr, &size), 2) << found;
  EXPECT_GT(size, 16u) << "the size comes from the loaded object's symbol table";
  EXPECT_LT(size, 16384u);
}

TEST(GccjitPlans, SubstitutedQueryCompilesOnce) {
  auto o = options("interp,gccjit:qual,gccjit:fused", 1, true);
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

TEST(GccjitChecks, AttributeOutsideTheTupleRaisesBounds) {
  harness::Plan plan = reuse_plan(/*attr_offset_override=*/6);  // a: bytes 6..9 of an 8-byte tuple
  harness::PrepareOptions opt;
  opt.jit_checks = true;
  for (jit::Mode mode : {jit::Mode::Qual, jit::Mode::Fused}) {
    auto p = gj::make_backend(mode, opt)->prepare(plan, nullptr);
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

TEST(GccjitChecks, CorruptLineTableRaisesBoundsInTheKernel) {
  harness::Plan plan = reuse_plan();
  harness::PrepareOptions opt;
  opt.jit_checks = true;
  auto p = gj::make_backend(jit::Mode::Fused, opt)->prepare(plan, nullptr);
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
  qk_ctx ok{};
  ok.params = params.data();
  ok.scratch = scratch.data();
  EXPECT_EQ(p->run_page(rel.page(0), rows.data(), &ok), 3);
}

}  // namespace
}  // namespace quelkit::jittest

#endif  // QUELKIT_HAVE_GCCJIT
