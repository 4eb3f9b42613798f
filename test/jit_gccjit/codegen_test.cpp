// What the gccjit back end generates and how its prepared plans behave: the
// GIMPLE of the paper's (d) reads the folded constant as a parameter and calls no log,
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

#include "bench/workloads/parts.h"
#include "jit/perfmap.h"
#include "jit/gccjit/gccjit.h"
#include "test/jit_llvm/plan_checks.h"
#include "test/jit_llvm/support.h"

namespace quelkit::test {
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
  o.prepare.selection = harness::Selection::Branch;  // one kernel variant (auto prints both)
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

TEST(GccjitGimple, PaperQueryDReadsTheFoldedParameterAndNoLog) {
  for (int level : {0, 2}) {
    SCOPED_TRACE("--jit-opt " + std::to_string(level));
    std::string text = dump_gimple("gccjit:fused", "retrieve (p.pnum) where p.qoh < log(9.5) * p.weight", level);
    auto [before, optimized] = halves(text);
    char k[32];
    std::snprintf(k, sizeof k, "%.17g", std::log(9.5));  // GCC prints more digits: this is their prefix
    EXPECT_NE(before.find("-- parameters q2 (gccjit:fused): $0 = 2.2512917986064953 (f8)\n"), std::string::npos)
        << before;
    for (const std::string* t : {&before, &optimized}) {
      // The walk reads the folded IR: log(9.5) arrives as one f8 value, a
      // parameter of the plan (engine/plan.h: literals are parameters), read
      // from the block, never an immediate; no logarithm is called.
      EXPECT_EQ(count(*t, std::string(" * ") + k), 0u) << *t;
      EXPECT_NE(t->find("MEM[(double *)"), std::string::npos) << *t;
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
    EXPECT_NE(before.find("[d.quel:2:33] /* PARAM slot 0 at offset 0 at 2:33 */"), std::string::npos) << before;
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
TEST(GccjitPlans, OnePreparedPlanServesEveryParameterBlock) {
  size_t before = 0;
  check_one_plan_serves_every_parameter_block(
      gj::make_backend, [&](jit::Mode) { before = gj::loaded_results(); },
      [&](jit::Mode mode, std::unique_ptr<harness::Prepared>& prepared) {
        // Qual: one result; fused: the kernel's, then the per-tuple functions' on first use.
        EXPECT_EQ(gj::loaded_results(), before + (mode == jit::Mode::Fused ? 2u : 1u));
        prepared.reset();
        EXPECT_EQ(gj::loaded_results(), before) << "a destroyed plan releases its results";
      });
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
  check_substituted_query_compiles_once("gccjit");
}

TEST(GccjitChecks, AttributeOutsideTheTupleRaisesBounds) {
  check_attribute_outside_the_tuple_raises_bounds(gj::make_backend);
}

TEST(GccjitChecks, CorruptLineTableRaisesBoundsInTheKernel) {
  check_corrupt_line_table_raises_bounds_in_the_kernel(gj::make_backend);
}

}  // namespace
}  // namespace quelkit::test

#endif  // QUELKIT_HAVE_GCCJIT
