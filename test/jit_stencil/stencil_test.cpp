// What the stencil back end stitches and how its prepared plans behave: the
// golden sequence of the paper's (d) with log(9.5) as one folded constant, one
// prepared plan serving every parameter block, (f) prepared once for its 3360
// substitutions, perf map names, and W^X: no page of the process is ever
// writable and executable at once (/proc/self/maps), before or after the
// arena seals what prepare wrote.
#include <gtest/gtest.h>

#ifdef QUELKIT_HAVE_STENCIL

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "bench/workloads/parts.h"
#include "jit/perfmap.h"
#include "jit/stencil/arena.h"
#include "jit/stencil/stencil_backend.h"
#include "test/jit_llvm/edge_queries.h"
#include "test/distinct_shapes.h"
#include "test/jit_llvm/plan_checks.h"
#include "test/jit_llvm/support.h"

namespace quelkit::test {
namespace {

namespace js = jit::stencil;

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

// One kernel variant, branch unless asked (under auto a dump prints both:
// Options.DumpUnderAutoPrintsBothKernelVariants).
std::string dump_stencil(const std::string& backend, const std::string& stmt,
                         harness::Selection sel = harness::Selection::Branch) {
  auto o = options(backend, 1, false);
  o.dumps.insert("stencil");
  o.prepare.selection = sel;
  std::ostringstream out, err;
  harness::Session s(o, out, err);
  s.catalog().add(harness::make_parts(100, false, harness::Structure::Heap));
  EXPECT_TRUE(s.run(std::make_shared<Source>("d.quel", "range of p is parts\n" + stmt))) << err.str();
  return out.str();
}

// The stencil lines of a dump (`  +0045  84   MUL_F8(k, t.i2)  [...]`): their names.
std::vector<std::string> sequence(const std::string& dump) {
  std::vector<std::string> v;
  std::istringstream in(dump);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("  +", 0) != 0) continue;
    std::istringstream l(line);
    std::string off, size, name;
    l >> off >> size;
    std::getline(l, name);
    name = name.substr(name.find_first_not_of(' '));
    name = name.substr(0, name.find("  "));
    v.push_back(name);
  }
  return v;
}

std::string k_hex(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  char b[32];
  std::snprintf(b, sizeof b, "k=0x%llx", static_cast<unsigned long long>(bits));
  return b;
}

// log(9.5) is folded once into a parameter of the plan (engine/plan.h:
// literals are parameters, so one stitched plan serves every statement of its
// shape): a LOAD stencil reads it from the block into a slot, where it was an
// immediate hole of MUL_F8 (the cost of sharing plans, docs/DESIGN.md).
TEST(StencilGolden, PaperQueryDQualIsThreeStencilsAndOneFoldedParameter) {
  std::string text = dump_stencil("stencil:qual", "retrieve (p.pnum) where p.qoh < log(9.5) * p.weight");
  // qual: the folded value loaded, the product of it and weight (widened by the
  // stencil's own load) into a slot, the comparison with qoh as a branch to
  // the false exit, the returns, then the cold raise of the product's
  // FLOAT_RESULT and the error exit. project: weight copied into the row.
  const std::vector<std::string> want = {
      "ENTRY_QUAL", "LOAD_F8(p.f8)", "MUL_F8(s, t.i2)", "LT_F8(t.i2, s) jump-if-false", "RET_TRUE", "RET_FALSE", "RAISE_CODE", "EXIT",
      "ENTRY_PROJECT", "STORE_I2(t.i2)", "RET_ZERO", "EXIT"};
  EXPECT_EQ(sequence(text), want) << text;
  EXPECT_EQ(count(text, k_hex(std::log(9.5))), 0u) << "log(9.5) is no immediate: a parameter\n" << text;
  EXPECT_NE(text.find("-- parameters q2 (stencil:qual): $0 = 2.2512917986064953 (f8)\n"), std::string::npos) << text;
  EXPECT_EQ(count(text, "LOG_F8"), 0u) << text;
  EXPECT_NE(text.find("<- MUL_F8 @2:42"), std::string::npos) << text;
  EXPECT_NE(text.find("<- LT_F8 @2:31"), std::string::npos) << text;
  EXPECT_NE(text.find("code 7, pos 2:42"), std::string::npos) << "the raise stencil carries FLOAT_RESULT and the * position\n" << text;
  EXPECT_NE(text.find("q2_qual at +0x0"), std::string::npos) << text;
  EXPECT_NE(text.find("mulsd"), std::string::npos) << "disassembly through LLVM's MC\n" << text;
}

TEST(StencilGolden, PaperQueryDFusedLoopsOverThePage) {
  const std::string d = "retrieve (p.pnum) where p.qoh < log(9.5) * p.weight";
  // Nobranch: the comparison as a value, the row written for every tuple and
  // kept by it (ROW_IF), as the JITs' kernels do it.
  std::string text = dump_stencil("stencil:fused", d, harness::Selection::NoBranch);
  // The loop is entered at its foot: the body's last stencil falls into LOOP_TAIL.
  const std::vector<std::string> want = {"ENTRY_KERNEL", "JUMP", "LOAD_F8(p.f8)", "MUL_F8(s, t.i2)", "LT_F8(t.i2, s) select",
                                         "STORE_I2(t.i2)", "ROW_IF(2 bytes)", "LOOP_TAIL", "PAGE_DONE",
                                         "RAISE_CODE",   "PAGE_EXIT"};
  EXPECT_EQ(sequence(text), want) << text;
  EXPECT_EQ(count(text, k_hex(std::log(9.5))), 0u) << text;
  EXPECT_NE(text.find("q2_nb_kernel at +0x0"), std::string::npos) << text;
  // Branch: a failing tuple jumps to the loop's foot.
  const std::vector<std::string> branch = {"ENTRY_KERNEL",   "JUMP",     "LOAD_F8(p.f8)", "MUL_F8(s, t.i2)",
                                           "LT_F8(t.i2, s) jump-if-false", "STORE_I2(t.i2)", "ROW_DONE",
                                           "LOOP_TAIL",      "PAGE_DONE", "RAISE_CODE", "PAGE_EXIT"};
  text = dump_stencil("stencil:fused", d, harness::Selection::Branch);
  EXPECT_EQ(sequence(text), branch) << text;
  EXPECT_NE(text.find("q2_kernel at +0x0"), std::string::npos) << text;
  // Auto starts with branch and may switch: both, branch's first.
  text = dump_stencil("stencil:fused", d, harness::Selection::Auto);
  std::vector<std::string> both = branch;
  both.insert(both.end(), want.begin(), want.end());
  EXPECT_EQ(sequence(text), both) << text;
  EXPECT_LT(text.find("q2_kernel at +0x0"), text.find("q2_nb_kernel at +0x0")) << text;
}

// Nobranch computes speculatively only what cannot raise: both operands of
// an `and` of plain comparisons, combined as values; an `or` whose right
// operand divides under its guard; targets that can raise projected only for
// a qualifying tuple.
TEST(StencilGolden, NobranchSpeculatesOnlyWhatCannotRaise) {
  std::string text = dump_stencil("stencil:fused", "retrieve (p.pnum) where p.pnum > 3 and p.color = \"black\"",
                                  harness::Selection::NoBranch);
  // A conjunction: one term per pass over a selection vector, then the projection.
  // Each pass, as the page loop, is entered at its foot.
  // A literal is a parameter: an i2 attribute against an i4 parameter is
  // loaded first (no stencil compares t.i2 with p.i4), a c attribute is not.
  const std::vector<std::string> conj = {"ENTRY_KERNEL", "JUMP",      "LOAD_I4(t.i2)", "GT_I4(s, p.i4) select",
                                         "SEL_PUT",      "LOOP_TAIL", "SEL_START",
                                         "EQ_C(t.c, p.c) select",       "SEL_PUT",
                                         "SEL_TAIL",     "SEL_START", "STORE_I2(t.i2)",
                                         "ROW_DONE",     "SEL_TAIL",  "PAGE_DONE", "PAGE_EXIT"};
  std::vector<std::string> seq = sequence(text);
  EXPECT_EQ(seq, conj) << text;
  // A disjunction: both operands for every tuple, combined, the row kept by the value.
  text = dump_stencil("stencil:fused", "retrieve (p.pnum) where p.pnum > 3 or p.color = \"black\"",
                      harness::Selection::NoBranch);
  const std::vector<std::string> disj = {"ENTRY_KERNEL", "JUMP", "LOAD_I4(t.i2)", "GT_I4(s, p.i4) select", "SAVE_E",
                                         "EQ_C(t.c, p.c) select", "OR_E", "STORE_I2(t.i2)", "ROW_IF(2 bytes)",
                                         "LOOP_TAIL", "PAGE_DONE", "PAGE_EXIT"};
  EXPECT_EQ(sequence(text), disj) << text;
  // Five terms: three passes of one, the last evaluating the remaining two together.
  text = dump_stencil("stencil:fused",
                      "retrieve (p.pnum) where p.pnum > 3 and p.qoh > 1 and p.pnum < 90 and p.qoh < 900 and "
                      "p.color != \"red\"",
                      harness::Selection::NoBranch);
  seq = sequence(text);
  EXPECT_EQ(std::count(seq.begin(), seq.end(), "SEL_PUT"), 4) << text;
  EXPECT_EQ(std::count(seq.begin(), seq.end(), "SEL_TAIL"), 4) << text;
  EXPECT_EQ(std::count(seq.begin(), seq.end(), "AND_E"), 1) << text;
  text = dump_stencil("stencil:fused", "retrieve (p.pnum) where p.pnum > 3 or 10 / p.qoh > 1",
                      harness::Selection::NoBranch);
  EXPECT_EQ(count(text, "JUMP_E if 1"), 1u) << "the division stays behind the or's guard\n" << text;
  EXPECT_EQ(count(text, "SAVE_E"), 0u) << text;
  text = dump_stencil("stencil:fused", "retrieve (x = 1 / p.qoh) where p.qoh != 0", harness::Selection::NoBranch);
  const std::vector<std::string> guarded = {"ENTRY_KERNEL", "JUMP", "LOAD_I4(t.i2)", "NE_I4(s, p.i4) select",
                                            "JUMP_E if 0"};
  seq = sequence(text);
  ASSERT_GE(seq.size(), guarded.size()) << text;
  EXPECT_EQ(std::vector<std::string>(seq.begin(), seq.begin() + long(guarded.size())), guarded) << text;
  EXPECT_EQ(count(text, "ROW_IF"), 0u) << "a target that can raise is not written for every tuple\n" << text;
}

// The instructions of the first stencil of that name in a dump: the lines
// after its `  +OFFSET` line, up to the next stencil or label.
std::string stencil_code(const std::string& dump, const std::string& name) {
  std::istringstream in(dump);
  std::string line, code;
  bool in_it = false;
  while (std::getline(in, line)) {
    const bool head = line.rfind("  +", 0) == 0 || line.rfind("  L", 0) == 0;
    if (in_it && head) break;
    if (in_it) code += line + "\n";
    if (head && line.find(" " + name + "  ") != std::string::npos) in_it = true;
  }
  return code;
}

// A nobranch row of one, two, four or eight bytes is kept by ROW_IF's sized
// variant: e scaled in one address computation, no multiply by the row
// length's hole; any other length takes the generic one.
TEST(StencilGolden, NobranchKeepsARowOfATypesSizeWithoutAMultiply) {
  std::string text = dump_stencil("stencil:fused", "retrieve (p.pnum) where p.qoh < 100", harness::Selection::NoBranch);
  ASSERT_EQ(count(text, "ROW_IF(2 bytes)"), 1u) << text;
  std::string code = stencil_code(text, "ROW_IF(2 bytes)");
  EXPECT_NE(code.find("lea"), std::string::npos) << code;
  EXPECT_EQ(code.find("imul"), std::string::npos) << code;
  text = dump_stencil("stencil:fused", "retrieve (p.pnum, p.weight) where p.qoh < 100", harness::Selection::NoBranch);
  EXPECT_EQ(count(text, "ROW_IF(4 bytes)"), 1u) << text;
  // Three i2s: six bytes, the hole's length times e.
  text = dump_stencil("stencil:fused", "retrieve (p.pnum, p.weight, p.qoh) where p.qoh < 100",
                      harness::Selection::NoBranch);
  const std::vector<std::string> seq = sequence(text);
  EXPECT_EQ(std::count(seq.begin(), seq.end(), "ROW_IF"), 1) << text;
  EXPECT_NE(stencil_code(text, "ROW_IF").find("imul"), std::string::npos) << text;
}

// A kept row costs the row pointer's advance and nothing else: the kernel's
// entry counts the rows by how far the pointer moved, once a page, so neither
// ROW_IF nor ROW_DONE keeps a count (one instruction each, where a count was a
// second for every tuple kept).
TEST(StencilGolden, KeptRowsAreCountedOnceAPageNotOnceARow) {
  auto instructions = [](const std::string& code) {
    return size_t(std::count(code.begin(), code.end(), '\n'));
  };
  std::string text = dump_stencil("stencil:fused", "retrieve (p.pnum) where p.qoh < 100", harness::Selection::NoBranch);
  EXPECT_EQ(instructions(stencil_code(text, "ROW_IF(2 bytes)")), 1u) << text;
  text = dump_stencil("stencil:fused", "retrieve (p.pnum) where p.qoh < 100", harness::Selection::Branch);
  EXPECT_EQ(instructions(stencil_code(text, "ROW_DONE")), 1u) << text;
  // The entry divides by the row's stride after the chain returns.
  EXPECT_NE(text.find("divl"), std::string::npos) << text;
}

TEST(StencilGolden, ConditionsAreJumps) {
  std::string text = dump_stencil(
      "stencil:qual", "retrieve (p.pnum) where p.pnum > 3 or p.pname = \"processor\" or p.color = \"black\"");
  // or: the first two jump to the true exit when true, the last to the false exit when false.
  EXPECT_EQ(count(text, "GT_I4(s, p.i4) jump-if-true"), 1u) << text;
  EXPECT_EQ(count(text, "EQ_C(t.c, p.c) jump-if-true"), 1u) << text;
  EXPECT_EQ(count(text, "EQ_C(t.c, p.c) jump-if-false"), 1u) << text;
  EXPECT_NE(text.find("$1 = \"processor\" (c20)"), std::string::npos) << text;
}

TEST(StencilPlans, OnePlanServesEveryParameterBlock) {
  check_one_plan_serves_every_parameter_block(js::make_backend);
}

TEST(StencilPlans, SubstitutedQueryPreparesOnce) { check_substituted_query_compiles_once("stencil"); }

TEST(StencilPlans, DestroyedPlansReturnTheirPages) {
  harness::Plan plan = reuse_plan();
  const size_t before = js::live_pages();
  for (jit::Mode mode : {jit::Mode::Qual, jit::Mode::Fused}) {
    auto p = js::make_backend(mode, harness::PrepareOptions{})->prepare(plan, nullptr);
    EXPECT_GT(js::live_pages(), before);
    p.reset();
    EXPECT_EQ(js::live_pages(), before);
  }
}

TEST(StencilPlans, FunctionsAreRegisteredWithPerf) {
  harness::perfmap_enable(true);
  harness::Plan plan = reuse_plan();
  auto p = js::make_backend(jit::Mode::Fused, harness::PrepareOptions{})->prepare(plan, nullptr);
  harness::perfmap_enable(false);
  std::ifstream f(harness::perfmap_path());
  std::string line, found;
  while (std::getline(f, line))
    if (line.size() > 13 && line.compare(line.size() - 13, 13, " reuse_kernel") == 0) found = line;
  harness::perfmap_close(true);
  ASSERT_FALSE(found.empty()) << "no reuse_kernel in " << harness::perfmap_path();
  unsigned long long addr = 0, size = 0;
  ASSERT_EQ(std::sscanf(found.c_str(), "%llx %llx", &addr, &size), 2) << found;
  EXPECT_TRUE(js::Arena::get().contains(reinterpret_cast<void*>(addr)));
  EXPECT_GT(size, 32u);
  EXPECT_LT(size, 4096u);
}

// Every mapping of the process: none may be writable and executable at once.
std::string writable_and_executable() {
  std::ifstream maps("/proc/self/maps");
  std::string line, bad;
  while (std::getline(maps, line)) {
    std::istringstream l(line);
    std::string range, perms;
    l >> range >> perms;
    if (perms.size() >= 3 && perms[1] == 'w' && perms[2] == 'x') bad += line + "\n";
  }
  return bad;
}

TEST(StencilArena, NoPageIsWritableAndExecutable) {
  js::Arena& arena = js::Arena::get();
  EXPECT_EQ(writable_and_executable(), "");
  auto o = options("stencil:qual,stencil:fused", 1, false);
  std::ostringstream out, err;
  harness::Session s(o, out, err);
  s.catalog().add(harness::make_parts(300, false, harness::Structure::Heap));
  ASSERT_TRUE(s.run(std::make_shared<Source>("w.quel", "range of p is parts")));
  // Prepared but not run: written pages are read-write, not executable.
  harness::Plan plan = reuse_plan();
  auto pending = js::make_backend(jit::Mode::Qual, harness::PrepareOptions{})->prepare(plan, nullptr);
  EXPECT_EQ(writable_and_executable(), "");
  for (int i = 0; i < 40; ++i) {
    // A new shape each: a new plan written (a new literal is not one).
    std::string q = "retrieve (p.pnum, x = p.qoh * " + std::to_string(i) + ") where " + distinct_shape_qual(i);
    ASSERT_TRUE(s.run(std::make_shared<Source>("w.quel", q))) << err.str();
    EXPECT_EQ(writable_and_executable(), "") << "after statement " << i;
  }
  arena.ready();
  EXPECT_EQ(writable_and_executable(), "");
  EXPECT_GT(arena.protect_calls(), 0u);
}

}  // namespace

#define QUELKIT_DIFF_BACKEND "stencil"
#define QUELKIT_DIFF_SUITE StencilDifferential
namespace {
#include "test/jit_llvm/differential_suite.h"
}  // namespace

}  // namespace quelkit::test

#endif  // QUELKIT_HAVE_STENCIL
