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

#include "bench/workloads/parts.h"
#include "jit/llvm/llvm.h"
#include "test/jit_llvm/plan_checks.h"
#include "test/jit_llvm/support.h"
#include "test/prepared_calls.h"

namespace quelkit::test {
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
  o.prepare.selection = harness::Selection::Branch;  // one kernel variant (auto prints both)
  std::ostringstream out, err;
  harness::Session s(o, out, err);
  s.catalog().add(harness::make_parts(100, false, harness::Structure::Heap));
  EXPECT_TRUE(s.run(std::make_shared<Source>("d.quel", "range of p is parts\n" + stmt))) << err.str();
  return out.str();
}

TEST(LlvmIr, PaperQueryDShowsOneFoldedParameter) {
  std::string text = dump_llvm("llvm:fused", "retrieve (p.pnum) where p.qoh < log(9.5) * p.weight");
  size_t after = text.find(", after --jit-opt");
  ASSERT_NE(after, std::string::npos) << text;
  std::string before = text.substr(0, after), optimized = text.substr(after);
  // The walk reads the folded IR: log(9.5) arrives as one f8 value, folded
  // before LLVM optimises anything, a parameter of the plan (engine/plan.h:
  // literals are parameters, so the plan serves every statement of its
  // shape): one load of a double, the only multiplication's operand.
  EXPECT_NE(before.find("-- parameters q2 (llvm:fused): $0 = 2.2512917986064953 (f8)\n"), std::string::npos)
      << before;
  for (const std::string* t : {&before, &optimized}) {
    EXPECT_EQ(count(*t, "fmul double"), 1u) << *t;
    EXPECT_EQ(count(*t, "load double"), 1u) << *t;
    EXPECT_EQ(count(*t, llvm_hex(std::log(9.5))), 0u) << "no immediate: the value is the parameter's\n" << *t;
    EXPECT_EQ(t->find("log"), std::string::npos) << *t;
    EXPECT_NE(t->find("define i64 @q2_kernel(ptr"), std::string::npos) << *t;
    EXPECT_EQ(t->find("fast"), std::string::npos) << "no fast-math flags";
    EXPECT_EQ(t->find("contract"), std::string::npos) << "no contraction";
  }
  // The product is checked for a finite result (FLOAT_RESULT), then compared.
  EXPECT_NE(optimized.find("@llvm.fabs.f64"), std::string::npos);
  // (ctx `nonnull` where the parameter's load through it let LLVM infer it.)
  EXPECT_NE(optimized.find("call i32 @qk_raise(ptr nonnull %ctx, i32 7"), std::string::npos) << optimized;
}

TEST(LlvmIr, QualModeNamesFunctionsAfterTheStatement) {
  std::string text = dump_llvm("llvm:qual", "retrieve (p.pname) where p.pname = \"bolt\" or p.qoh > 10");
  EXPECT_NE(text.find("define i32 @q2_qual(ptr"), std::string::npos) << text;
  EXPECT_NE(text.find("define i32 @q2_project(ptr"), std::string::npos) << text;
  EXPECT_NE(text.find("@qk_char_cmp"), std::string::npos) << "string comparison is the shared helper";
}

// A plan over (a = i4, s = c4) with parameters (x = i4, y = c4):
//   where t.a > x and t.s != y   retrieve (t.a, y)
TEST(LlvmPlans, OnePreparedPlanServesEveryParameterBlock) {
  check_one_plan_serves_every_parameter_block(lj::make_backend);
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
  check_substituted_query_compiles_once("llvm");
}

TEST(LlvmChecks, AttributeOutsideTheTupleRaisesBounds) {
  check_attribute_outside_the_tuple_raises_bounds(lj::make_backend);
}

TEST(LlvmChecks, MissingParameterBlockRaisesBounds) {
  harness::Plan plan = reuse_plan();
  harness::PrepareOptions opt;
  opt.jit_checks = true;
  auto p = lj::make_backend(jit::Mode::Qual, opt)->prepare(plan, nullptr);
  qk_ctx ctx{};  // no params
  auto t = tuple(1, "ab");
  EXPECT_EQ(qualify(*p, t.data(), &ctx), -1);
  EXPECT_EQ(ctx.err_code, QK_ERR_BOUNDS);
}

TEST(LlvmChecks, CorruptLineTableRaisesBoundsInTheKernel) {
  check_corrupt_line_table_raises_bounds_in_the_kernel(lj::make_backend);
}

TEST(LlvmChecksDeathTest, WithoutChecksABadPlanIsAnInternalError) {
  harness::Plan plan = reuse_plan(/*attr_offset_override=*/6);
  EXPECT_DEATH(lj::make_backend(jit::Mode::Qual, harness::PrepareOptions{})->prepare(plan, nullptr),
               "internal error");
}

}  // namespace
}  // namespace quelkit::test

#endif  // QUELKIT_HAVE_LLVM
