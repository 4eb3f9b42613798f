// The adaptive back end (adaptive/): its cost model on made-up figures; the
// forced switch at every page agreeing with the interpreter, errors on the
// first tuple after a switch included; a compile the statement no longer
// needs abandoned, joined and its code freed; the tier fields of --stats;
// eviction of plans holding compiled tiers; the default tiered policy driven
// through each of its stages by a scripted world (clocks and the compile's
// thread, adaptive::World), deterministic. The corpus and difftest run it
// too (every registered mode). These tests also run under ThreadSanitizer
// (`./kit tsan`; suppressions in test/sanitize/tsan.supp).
#include <gtest/gtest.h>

#include <future>
#include <string>

#include "adaptive/adaptive.h"
#include "adaptive/model.h"
#include "test/engine/support.h"
#include "test/distinct_shapes.h"
#ifdef QUELKIT_HAVE_LLVM
#include "jit/llvm/llvm.h"
#endif

namespace quelkit::test {
namespace {

using adaptive::CostModel;

bool have_llvm() {
  register_all_backends();
  return harness::find_backend("llvm") != nullptr;
}

size_t llvm_modules() {
#ifdef QUELKIT_HAVE_LLVM
  return jit::llvmjit::loaded_modules();
#else
  return 0;
#endif
}

// ------------------------------------------------------------ the model

TEST(AdaptiveModel, CompilesOnlyWhenTheSavingExceedsTheCompile) {
  CostModel m;
  // 5 ns a tuple on the first tier, a 20-node plan: 1,000 tuples never pay a
  // compile of a millisecond or more; a billion always do.
  EXPECT_FALSE(m.decide(5.0, 1000, 20).compile);
  EXPECT_FALSE(m.decide(5.0, 0, 20).compile);
  auto d = m.decide(5.0, 1e9, 20);
  EXPECT_TRUE(d.compile);
  EXPECT_GT(d.saving_ns, d.compile_ns);
  // A faster level is worth its longer compile only for more work.
  // (With the priors: 5M tuples repay -O0's compile and no other; ten
  // billion repay a higher level.)
  auto small = m.decide(5.0, 5e6, 20), big = m.decide(5.0, 1e10, 20);
  ASSERT_TRUE(small.compile);
  ASSERT_TRUE(big.compile);
  EXPECT_LT(small.level, big.level);
}

// Below tuples_to_repay_any_compile() no plan's compile can pay, so scans
// that small are neither measured nor copied for one (backend.cpp): the bound
// must sit below every tuple count decide() would compile for, whatever the
// first tier costs a tuple (up to kMaxSavingNs), and follow the compiles.
TEST(AdaptiveModel, NoCompilePaysBelowTheRepayBound) {
  CostModel m;
  const double bound = m.tuples_to_repay_any_compile();
  ASSERT_GT(bound, 0);
  for (double size : {1.0, 20.0, 200.0})
    for (double ns : {1.0, 5.0, 30.0, CostModel::kMaxSavingNs})
      EXPECT_FALSE(m.decide(ns, bound, size).compile) << size << " nodes at " << ns << " ns";
  // Compiles measured faster than the priors lower the bound.
  for (int i = 0; i < 8; ++i) m.compiled(0, 10, 50e3);
  EXPECT_LT(m.tuples_to_repay_any_compile(), bound);
  for (double ns : {1.0, 30.0, CostModel::kMaxSavingNs})
    EXPECT_FALSE(m.decide(ns, m.tuples_to_repay_any_compile(), 10).compile) << ns << " ns";
  // A bound on the saving (the first tier's cost) raises it in proportion,
  // and still no compile pays below it when the first tier costs that much.
  const double at12 = m.tuples_to_repay_any_compile(12);
  EXPECT_NEAR(at12, m.tuples_to_repay_any_compile() * CostModel::kMaxSavingNs / 12, 1e-6 * at12);
  EXPECT_FALSE(m.decide(12, at12, 1).compile);
  EXPECT_EQ(m.tuples_to_repay_any_compile(1e9), m.tuples_to_repay_any_compile());
}

TEST(AdaptiveModel, CompileCostFollowsMeasurements) {
  CostModel m;
  const double prior = m.compile_ns(1, 30);
  // This machine compiles ten times faster than the prior says, at two sizes.
  for (int i = 0; i < 6; ++i) {
    m.compiled(1, 10, prior / 10 * 0.8);
    m.compiled(1, 50, prior / 10 * 1.2);
  }
  EXPECT_LT(m.compile_ns(1, 30), prior / 5);
  EXPECT_GT(m.compile_ns(1, 50), m.compile_ns(1, 10));  // a line over size, not a constant
  // One size seen: the prior's shape through the measured point.
  CostModel one;
  for (int i = 0; i < 3; ++i) one.compiled(0, 20, 100e3);
  EXPECT_NEAR(one.compile_ns(0, 20), 100e3, 1e3);
  EXPECT_GT(one.compile_ns(0, 40), one.compile_ns(0, 20));
  // Ratios move toward what ran, and a wild figure is bounded.
  const double r = m.ratio(1);
  m.ran(1, 0.2);
  EXPECT_LT(m.ratio(1), r);
  m.ran(1, 1e9);
  EXPECT_LE(m.ratio(1), 2.0);
}

TEST(AdaptiveModel, AnUnmeasuredLevelIsNoBetterThanTheMeasuredOneBelow) {
  CostModel m;
  // Level 1 measured at 0.97 of the first tier: level 2's prior promise of
  // more must not make a costlier compile look worth trying.
  for (int i = 0; i < 4; ++i) m.ran(1, 0.97);
  const auto d = m.decide(5.0, 1e8, 10);
  if (d.compile) {
    EXPECT_NE(d.level, 2);
  }
}

// What a compiled tier gains is measured against the first tier that ran:
// -O0 code that beats threaded code says nothing about stencils, which are
// native code already and may beat -O0 code in turn (docs/DESIGN.md,
// "Measurements"), so a ratio learned over one first tier leaves the
// other's alone.
TEST(AdaptiveModel, RatiosAreKeptPerFirstTier) {
  using adaptive::Base;
  CostModel m;
  const double stencil_prior = m.ratio(0, Base::Stencil);
  for (int i = 0; i < 4; ++i) m.ran(0, 0.5, Base::Threaded);
  EXPECT_NEAR(m.ratio(0, Base::Threaded), 0.5, 1e-9);
  EXPECT_EQ(m.ratio(0, Base::Stencil), stencil_prior);
  const auto over_threaded = m.decide(6.0, 1e8, 10, Base::Threaded);
  EXPECT_TRUE(over_threaded.compile);
  EXPECT_EQ(over_threaded.level, 0);  // the cheapest compile, at half the cost
  // Over stencils, -O0 was measured slower: that level is never chosen, and
  // a prior of no gain at -O0 needs no measurement to say so.
  // The levels above, unmeasured, are assumed no better than 0.95 of it:
  // no compile pays.
  for (int i = 0; i < 4; ++i) m.ran(0, 1.6, Base::Stencil);
  EXPECT_FALSE(m.decide(3.0, 1e8, 10, Base::Stencil).compile);
  // Level 1 measured at half the stencils' cost pays; level 0 stays out,
  // whatever the threaded ratios (0.5 at level 0) say.
  for (int i = 0; i < 4; ++i) m.ran(1, 0.5, Base::Stencil);
  const auto over_stencil = m.decide(3.0, 1e8, 10, Base::Stencil);
  ASSERT_TRUE(over_stencil.compile);
  EXPECT_EQ(over_stencil.level, 1);
  CostModel fresh;
  const auto prior = fresh.decide(3.0, 1e8, 10, Base::Stencil);
  if (prior.compile) {
    EXPECT_NE(prior.level, 0);
  }
}

TEST(AdaptiveModel, StencilStartsOnlyWhenItsTuplesRepayItsPrepare) {
  adaptive::FirstTier f;
  // The priors: a single tuple never repays a stencil prepare; a million do.
  EXPECT_FALSE(f.stencil_pays(1));
  EXPECT_TRUE(f.stencil_pays(1e6));
  const double at = f.prepare_ns() / (f.threaded_ns() - f.stencil_ns());  // the break-even in tuples
  EXPECT_FALSE(f.stencil_pays(0.9 * at));
  EXPECT_TRUE(f.stencil_pays(1.1 * at));
  // Measured: stencil no faster than threaded here, so no count of tuples pays.
  for (int i = 0; i < 40; ++i) {
    f.ran(true, 9.0);
    f.ran(false, 8.0);
  }
  EXPECT_FALSE(f.stencil_pays(1e9));
  // Twice as fast and cheap to prepare: a few hundred tuples pay.
  for (int i = 0; i < 40; ++i) {
    f.ran(true, 4.0);
    f.prepared(1000);
  }
  EXPECT_TRUE(f.stencil_pays(400));
  EXPECT_FALSE(f.stencil_pays(100));
  // A stalled page moves an average by a bounded step.
  {
    // Threaded code never measured (stencils ran every scan): its cost follows
    // stencil's, at the priors' ratio, so fast stencils do not make a few
    // thousand tuples repay a preparation.
    adaptive::FirstTier g;
    for (int i = 0; i < 40; ++i) g.ran(true, 2.0);
    EXPECT_NEAR(g.threaded_ns() / g.stencil_ns(), 10.0 / 7.0, 1e-9);
    EXPECT_FALSE(g.stencil_pays(3360));
    EXPECT_TRUE(g.stencil_pays(100000));
  }
  const double before = f.threaded_ns();
  f.ran(false, 1e12);
  EXPECT_LT(f.threaded_ns(), 3 * before);
}

// ---------------------------------------------- sessions on the back end

// The first tier follows the scan's size: one tuple runs on threaded code
// (cheapest to prepare), 100,000 on stencils (cheaper per tuple), and both
// agree with the interpreter.
TEST(Adaptive, FirstTierFollowsTheScansSize) {
  register_all_backends();
  const bool stencil = harness::find_backend("stencil") != nullptr;
  for (uint64_t n : {uint64_t(1), uint64_t(100000)}) {
    Kit k("adaptive:tiered"), ref("interp:switch");
    k.add_parts(n);
    ref.add_parts(n);
    ASSERT_TRUE(k.run("range of p is parts").ok);
    ASSERT_TRUE(ref.run("range of p is parts").ok);
    const auto r = k.run(kPaperQueries[3]);
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.out, ref.run(kPaperQueries[3]).out);
    const auto& st = k.last_report().stats;
    ASSERT_FALSE(st.tier_tuples.empty()) << st.tiers();
    const std::string& first = st.tier_tuples[0].first;
    if (n == 1 || !stencil) EXPECT_EQ(first, "threaded:goto") << n;
    else EXPECT_EQ(first, "stencil:fused") << n;
  }
}

// The paper's queries on the narrow heap and the wide ISAM relation, the
// forced switch against the interpreter (the session compares every row,
// value and error of the back ends it runs).
TEST(Adaptive, ForcedSwitchAgreesWithTheInterpreterOnThePaperQueries) {
  for (bool keyed : {false, true}) {
    Kit k("interp:switch,adaptive:switch-every-page,adaptive:tiered,adaptive:compile-at-start");
    k.add_parts(3360, keyed, keyed ? harness::Structure::Isam : harness::Structure::Heap);
    ASSERT_TRUE(k.run("range of p is parts\nrange of q is parts").ok);
    for (const char* q : kPaperQueries) {
      SCOPED_TRACE(q);
      auto r = k.run(q);
      EXPECT_TRUE(r.ok) << r.err;
      EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err;
    }
  }
}

// Both selections: the compiled tier follows the selection the scan chose.
TEST(Adaptive, ForcedSwitchUnderEachSelection) {
  for (auto sel : {harness::Selection::Branch, harness::Selection::NoBranch, harness::Selection::Auto}) {
    Kit k("interp:switch,adaptive:switch-every-page");
    k.set_selection(sel);
    k.add_parts(3360);
    ASSERT_TRUE(k.run("range of p is parts").ok);
    for (const char* q : {kPaperQueries[2], kPaperQueries[3]}) {
      SCOPED_TRACE(q);
      auto r = k.run(q);
      EXPECT_TRUE(r.ok) << r.err;
      EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err;
      // What the adaptive scan's page kernels ran is what was asked (auto:
      // either, marked as auto's).
      const std::string ran = k.last_report().stats.selection;
      if (sel == harness::Selection::Auto) {
        EXPECT_EQ(ran.rfind("auto:", 0), 0u) << ran;
      } else {
        EXPECT_EQ(ran, harness::selection_name(sel));
      }
    }
  }
}

// Page 0 runs on the first tier, page 1 (tuples 29..56 of the narrow heap) on
// the compiled one: an error on tuple 29 is the first tuple after the switch.
TEST(Adaptive, ErrorOnTheFirstTupleAfterASwitch) {
  const char* queries[] = {
      "retrieve (x = p.pnum / (p.pnum - 29))",            // in a target
      "retrieve (p.pnum) where 10 / (p.pnum - 29) < 0",   // in the qualification
      "retrieve (x = p.pnum / (p.pnum - 57))",            // first tuple of page 2: back on the first tier
      "retrieve (x = p.pnum / (p.pnum - 40))",            // mid-page: the tuples before it are re-run to count
  };
  for (const char* q : queries) {
    SCOPED_TRACE(q);
    std::string expected;
    {
      Kit ref("interp:switch");
      ref.add_parts(210);
      ASSERT_TRUE(ref.run("range of p is parts").ok);
      auto r = ref.run(q);
      ASSERT_FALSE(r.ok);
      expected = r.err;
    }
    Kit k("adaptive:switch-every-page");
    k.add_parts(210);
    ASSERT_TRUE(k.run("range of p is parts").ok);
    auto r = k.run(q);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.err, expected);
    const auto& st = k.last_report().stats;
    if (have_llvm()) {
      EXPECT_EQ(st.tier_switch_page, 1);
    }
    // The counts a failed statement reports are every back end's.
    Kit ref("interp:switch");
    ref.add_parts(210);
    ASSERT_TRUE(ref.run("range of p is parts").ok);
    ref.run(q);
    EXPECT_EQ(st.rows_scanned, ref.last_report().stats.rows_scanned);
    EXPECT_EQ(st.rows_qualified, ref.last_report().stats.rows_qualified);
    // The tiers were handed the pages up to the failing one, whole (28
    // tuples each); its tuples re-run to count what qualified are not more.
    uint64_t handed = 0;
    for (const auto& t : st.tier_tuples) handed += t.second;
    EXPECT_EQ(handed, (st.rows_scanned + 27) / 28 * 28) << st.tiers();
  }
}

// An aggregate's inner query accumulates in the tiers' own kernels, the
// compiled tier taking over at a page boundary from the block the first tier
// left: the interpreter's values (a float sum added in scan order, every
// group), and its error at the same tuple, where the harness accumulates.
TEST(Adaptive, AggregatesAccumulateInTheTiersAcrossTheSwitch) {
  const char* queries[] = {
      "retrieve (n = count(p.pnum), s = sum(p.qoh where p.qoh < log(9.5) * p.weight))",
      "retrieve (a = min(p.qoh), b = max(p.weight), v = avg(p.weight * 1.1), u = sum(p.weight / 3.7))",
      "retrieve unique (p.color, n = count(p.pnum by p.color), s = sum(p.qoh by p.color))",
      "retrieve unique (b = p.pnum / 100, n = count(p.pnum by p.pnum / 100))",
      "retrieve (p.pnum) where p.qoh = max(p.qoh by p.color)",
  };
  for (const char* q : queries) {
    SCOPED_TRACE(q);
    Kit k("interp:switch,adaptive:switch-every-page");
    k.add_parts(3360);  // 120 pages: the tiers alternate page by page
    ASSERT_TRUE(k.run("range of p is parts").ok);
    auto r = k.run(q);
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err;
    const harness::StmtReport& rep = k.last_report();
    ASSERT_EQ(rep.backend, "adaptive");
    const std::string& at = rep.stats.accumulated;
    EXPECT_NE(at.find(": adaptive:switch-every-page"), std::string::npos) << at;
    EXPECT_EQ(at.find("harness"), std::string::npos) << at;
    // The compiled tier ran the odd pages of the accumulating scan (60 of
    // 120), whatever else of the statement (its groups' scan) it ran.
    if (have_llvm()) {
      uint64_t compiled = 0;
      for (const auto& t : rep.stats.tier_tuples) compiled += t.first.rfind("llvm:fused", 0) == 0 ? t.second : 0;
      EXPECT_GE(compiled, 60u * 28) << rep.stats.tiers();
    }
  }
  // A sum's argument failing on tuple 29, the first of page 1, which the
  // compiled tier accumulates; and mid-page on the first tier (tuple 70).
  for (const char* q : {"retrieve (s = sum(p.pnum / (p.pnum - 29)))",
                        "retrieve unique (p.color, s = sum(p.pnum / (p.pnum - 70) by p.color))"}) {
    SCOPED_TRACE(q);
    Kit ref("interp:switch"), k("adaptive:switch-every-page");
    for (Kit* x : {&ref, &k}) {
      x->add_parts(210);
      ASSERT_TRUE(x->run("range of p is parts").ok);
    }
    const auto want = ref.run(q);
    ASSERT_FALSE(want.ok);
    const auto got = k.run(q);
    EXPECT_FALSE(got.ok);
    EXPECT_EQ(got.err, want.err);
    EXPECT_EQ(k.last_report().stats.rows_scanned, ref.last_report().stats.rows_scanned);
  }
}

TEST(Adaptive, StatsShowTheTiers) {
  if (!have_llvm()) GTEST_SKIP() << "LLVM not built: no second tier";
  Kit k("adaptive:switch-every-page");
  k.add_parts(3360);  // 120 pages
  ASSERT_TRUE(k.run("range of p is parts").ok);
  ASSERT_TRUE(k.run(kPaperQueries[3]).ok);
  const auto& st = k.last_report().stats;
  ASSERT_EQ(st.tier_tuples.size(), 2u) << st.tiers();
  EXPECT_EQ(st.tier_tuples[0].first.rfind("stencil:fused", 0) == 0 || st.tier_tuples[0].first == "threaded:goto",
            true);
  EXPECT_EQ(st.tier_tuples[1].first.rfind("llvm:fused:O", 0), 0u);
  EXPECT_EQ(st.tier_tuples[0].second + st.tier_tuples[1].second, 3360u);
  EXPECT_EQ(st.tier_tuples[0].second, 60u * 28);  // pages 0, 2, 4, ...
  EXPECT_EQ(st.tier_switch_page, 1);
  EXPECT_EQ(st.bg_compiles, 1u);
  EXPECT_EQ(st.bg_abandoned, 0u);
  EXPECT_GT(st.bg_compile_wall_ns, 0u);
  EXPECT_GT(st.bg_compile_cpu_ns, 0u);

  // The text and JSON forms carry them.
  harness::SessionOptions o;
  register_all_backends();
  o.backends = harness::parse_backend_list("adaptive:switch-every-page");
  o.stats = true;
  o.stats_json = true;
  o.format = harness::OutFormat::None;
  std::ostringstream out, err;
  {
    harness::Session s(o, out, err);
    s.catalog().add(harness::make_parts(3360, false, harness::Structure::Heap));
    ASSERT_TRUE(s.run(std::make_shared<Source>("t.quel", std::string("range of p is parts\n") + kPaperQueries[3])));
  }
  const std::string json = out.str();
  for (const char* field : {"\"tiers\":\"", "\"tier_switch_page\":1", "\"bg_compiles\":1", "\"bg_abandoned\":0",
                            "\"bg_compile_wall_ns\":", "\"bg_compile_cpu_ns\":"})
    EXPECT_NE(json.find(field), std::string::npos) << field << " in " << json;
  o.stats_json = false;
  out.str("");
  {
    harness::Session s(o, out, err);
    s.catalog().add(harness::make_parts(3360, false, harness::Structure::Heap));
    ASSERT_TRUE(s.run(std::make_shared<Source>("t.quel", std::string("range of p is parts\n") + kPaperQueries[3])));
  }
  EXPECT_NE(out.str().find("; tiers "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("switched at page 1"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("background compiles 1 (abandoned 0)"), std::string::npos) << out.str();
}

// A tiny relation never pays a compile: the tiered mode stays on the first tier.
TEST(Adaptive, SmallRelationNeverCompiles) {
  Kit k("adaptive:tiered");
  k.add_parts(10);
  ASSERT_TRUE(k.run("range of p is parts").ok);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(k.run(kPaperQueries[3]).ok);
  const auto& st = k.last_report().stats;
  ASSERT_EQ(st.tier_tuples.size(), 1u) << st.tiers();
  EXPECT_EQ(st.tier_tuples[0].second, 10u);
  EXPECT_EQ(st.tier_switch_page, -1);
  EXPECT_EQ(st.bg_compiles, 0u);
  EXPECT_EQ(adaptive::compiles_in_flight(), 0);
}

// compile-at-start on one page: the scan is over long before the compile,
// which the statement then abandons: joined, counted, its code freed.
TEST(Adaptive, AbandonedCompileIsJoinedAndFreed) {
  if (!have_llvm()) GTEST_SKIP() << "LLVM not built: no second tier";
  const size_t before = llvm_modules();
  {
    Kit k("adaptive:compile-at-start");
    k.add_parts(10);
    ASSERT_TRUE(k.run("range of p is parts").ok);
    for (int i = 0; i < 5; ++i) {
      // A new shape each time: a new plan, a new compile (a new literal is not one).
      auto r = k.run("retrieve (p.pnum) where " + distinct_shape_qual(i));
      ASSERT_TRUE(r.ok) << r.err;
      const auto& st = k.last_report().stats;
      EXPECT_EQ(adaptive::compiles_in_flight(), 0) << "joined before the statement ended";
      EXPECT_EQ(st.bg_compiles, 1u);
      EXPECT_EQ(st.bg_abandoned, 1u) << "a 10-tuple scan outran a compile";
      EXPECT_EQ(st.tier_tuples.size(), 1u) << st.tiers();
      EXPECT_EQ(llvm_modules(), before) << "an abandoned compile's code is freed";
    }
  }
  EXPECT_EQ(llvm_modules(), before);
}

// Plans holding compiled tiers free them when the cache evicts them.
TEST(Adaptive, EvictedPlansFreeTheirCompiledTier) {
  if (!have_llvm()) GTEST_SKIP() << "LLVM not built: no second tier";
  const size_t before = llvm_modules();
  {
    Kit k("adaptive:switch-every-page", harness::OutFormat::None);
    k.set_options([](harness::SessionOptions& o) { o.plan_cache_capacity = 4; });
    k.add_parts(100);
    ASSERT_TRUE(k.run("range of p is parts").ok);
    for (int i = 0; i < 20; ++i) {
      auto r = k.run("retrieve (p.pnum) where " + distinct_shape_qual(i));
      ASSERT_TRUE(r.ok) << r.err;
      EXPECT_EQ(k.last_report().stats.bg_compiles, 1u);
    }
    EXPECT_EQ(k.session().runners()[0]->cache().size(), 4u);
    EXPECT_LE(llvm_modules(), before + 4 * 2) << "evicted plans must free their modules";
  }
  EXPECT_EQ(llvm_modules(), before);
  EXPECT_EQ(adaptive::compiles_in_flight(), 0);
}

// Tuple substitution: one plan shape over every substituted execution; the
// forced switch keeps alternating across them and agrees.
TEST(Adaptive, SubstitutedExecutionsShareTheCompiledTier) {
  if (!have_llvm()) GTEST_SKIP() << "LLVM not built: no second tier";
  Kit k("interp:switch,adaptive:switch-every-page,adaptive:tiered");
  // Substitution alone: reformat would hash q first, a second plan shape.
  k.set_options([](harness::SessionOptions& o) { o.runner.reformat = false; });
  k.add_parts(210);
  ASSERT_TRUE(k.run("range of p is parts\nrange of q is parts").ok);
  auto r = k.run(kPaperQueries[5]);
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err;
  const auto& st = k.session().reports()[k.session().reports().size() - 2].stats;  // switch-every-page
  EXPECT_EQ(st.bg_compiles, 1u) << "one compile serves every substitution";
}

// Under --no-plan-cache a statement's substitutions still share one plan and
// one compile, and the plan, its compiled tier and any compile still running
// go when the statement ends (the next statement compiles again).
TEST(Adaptive, NoPlanCacheSharesAPlanWithinTheStatementOnly) {
  if (!have_llvm()) GTEST_SKIP() << "LLVM not built: no second tier";
  const size_t before = llvm_modules();
  {
    Kit k("interp:switch,adaptive:switch-every-page", harness::OutFormat::None);
    k.set_options([](harness::SessionOptions& o) {
      o.runner.plan_cache = false;
      o.runner.reformat = false;  // substitution alone, as the test is about
    });
    k.add_parts(210);
    ASSERT_TRUE(k.run("range of p is parts range of q is parts").ok);
    for (int i = 0; i < 3; ++i) {
      auto r = k.run(kPaperQueries[5]);
      ASSERT_TRUE(r.ok) << r.err;
      EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err;
      const auto& st = k.last_report().stats;  // adaptive, after interp
      EXPECT_EQ(st.bg_compiles, 1u) << "one compile serves every substitution of the statement";
      EXPECT_GT(st.cache_hits, 0u);
      EXPECT_EQ(adaptive::compiles_in_flight(), 0);
      EXPECT_EQ(llvm_modules(), before) << "the statement's plans and their code go with it";
    }
  }
  EXPECT_EQ(llvm_modules(), before);
}

// ------------------------------------- the tiered policy, stage by stage

// A world whose wall clock moves by a page's cost at every read (the policy
// reads it once a page while it measures, so each timed page took exactly
// that), at first the first tier's cost and, once a compile has run, the
// compiled tier's; a compile runs on its own thread but is finished when
// start() returns, so the code is there at the very next page boundary.
class ScriptedWorld final : public adaptive::World {
 public:
  void reset(uint64_t first_page_ns, uint64_t compiled_page_ns) {
    page_ns_ = first_page_ns;
    compiled_page_ns_ = compiled_page_ns;
    starts_ = 0;
  }
  uint64_t now_ns() override { return t_ += page_ns_; }
  uint64_t thread_cpu_ns() override { return cpu_ += 1000; }
  std::thread start(std::function<void()> compile) override {
    ++starts_;
    std::promise<void> ran;
    std::future<void> f = ran.get_future();
    std::thread th([compile = std::move(compile), ran = std::move(ran)]() mutable {
      compile();
      ran.set_value();
    });
    f.wait();
    page_ns_ = compiled_page_ns_;  // the pages that follow run on the compiled tier
    return th;
  }
  int starts() const { return starts_; }

 private:
  std::atomic<uint64_t> t_{1}, cpu_{1}, page_ns_{0};
  uint64_t compiled_page_ns_ = 0;
  int starts_ = 0;
};

ScriptedWorld& scripted_world() {
  static ScriptedWorld w;
  return w;
}

// "scripted:tiered": the default tiered policy in the scripted world.
void register_scripted() {
  register_all_backends();
  harness::BackendSpec spec;
  spec.name = "scripted";
  spec.modes = {{"tiered"}};
  spec.reads_options = harness::kJitOptions;
  spec.make = [](const std::string&, const harness::PrepareOptions& opt) {
    return adaptive::make_backend(adaptive::Policy::Tiered, opt, scripted_world());
  };
  harness::register_backend(std::move(spec));
}

// The default policy on (d) over 20,000 tuples (715 pages of 28), its first
// tier scripted at 10 us a tuple, so that compiling pays: the first 8 timed
// pages measure the first tier (page 0 is not timed: its time would start
// before the scan); at page 9 the model decides to compile at level 1 and
// launches it; at page 10 the plan takes the code, runs the compiled tier and
// times 8 pages of it (11-18, page 10 starting before the code ran); at page
// 19 it picks the cheaper tier for the rest (pages 10-18 ran compiled). Run once with compiled code at
// half the cost (it stays) and once at twice (back to the first tier); both
// agree with interp on every row, and the plan's next scan starts on the
// tier it picked.
TEST(AdaptiveTiered, DecidesLaunchesTakesMeasuresAndPicks) {
  if (!have_llvm()) GTEST_SKIP() << "LLVM not built: no second tier";
  register_scripted();
  const bool stencil = harness::find_backend("stencil") != nullptr;
  const std::string first = stencil ? "stencil:fused" : "threaded:goto";
  constexpr uint64_t kPage = 28 * 10000;  // ns a page of the first tier: 10 us a tuple
  for (const bool faster : {true, false}) {
    SCOPED_TRACE(faster ? "compiled tier at half the cost" : "compiled tier at twice the cost");
    scripted_world().reset(kPage, faster ? kPage / 2 : kPage * 2);
    Kit k("interp:switch,scripted:tiered");
    k.set_selection(harness::Selection::Branch);  // no probe of selections: one window each
    k.add_parts(20000);
    ASSERT_TRUE(k.run("range of p is parts").ok);
    auto r = k.run(kPaperQueries[3]);
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err;  // every row and value is interp's
    const auto& st = k.last_report().stats;
    // decide and launch: one compile, on the world's thread, at level 1.
    EXPECT_EQ(scripted_world().starts(), 1);
    EXPECT_EQ(st.bg_compiles, 1u);
    EXPECT_EQ(st.bg_abandoned, 0u) << "taken, not abandoned";
    EXPECT_EQ(st.bg_compile_wall_ns, kPage) << "the compile's wall time is the world's";
    // take: the compiled tier ran from page 10, where the code was installed.
    EXPECT_EQ(st.tier_switch_page, 10);
    ASSERT_EQ(st.tier_tuples.size(), 2u) << st.tiers();
    EXPECT_EQ(st.tier_tuples[0].first, first);
    EXPECT_EQ(st.tier_tuples[1].first, "llvm:fused:O1");
    // measure both tiers, then pick: 8 timed pages of the compiled tier, then
    // the rest on the cheaper one.
    if (faster) {
      EXPECT_EQ(st.tier_tuples[0].second, 10u * 28) << st.tiers();
      EXPECT_EQ(st.tier_tuples[1].second, 20000u - 10 * 28) << st.tiers();
    } else {
      EXPECT_EQ(st.tier_tuples[1].second, 9u * 28) << "pages 10-18 on the compiled tier, " << st.tiers();
      EXPECT_EQ(st.tier_tuples[0].second, 20000u - 9 * 28) << st.tiers();
    }
    // The plan's next scan starts on the tier picked, from its first page,
    // and compiles nothing more.
    r = k.run(kPaperQueries[3]);
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err;
    const auto& again = k.last_report().stats;
    EXPECT_EQ(again.bg_compiles, 0u);
    EXPECT_EQ(scripted_world().starts(), 1);
    ASSERT_EQ(again.tier_tuples.size(), 1u) << again.tiers();
    EXPECT_EQ(again.tier_tuples[0].first, faster ? "llvm:fused:O1" : first);
    EXPECT_EQ(again.tier_tuples[0].second, 20000u);
    EXPECT_EQ(again.tier_switch_page, faster ? 0 : -1);
    EXPECT_EQ(adaptive::compiles_in_flight(), 0);
  }
}

// The same plan where compiling does not pay (1 ns a tuple on the first
// tier): the policy measures its window, decides not to compile, and the
// scan stays on the first tier.
TEST(AdaptiveTiered, DecidesNotToCompileWhereItDoesNotPay) {
  if (!have_llvm()) GTEST_SKIP() << "LLVM not built: no second tier";
  register_scripted();
  scripted_world().reset(28, 14);
  Kit k("interp:switch,scripted:tiered");
  k.set_selection(harness::Selection::Branch);
  k.add_parts(20000);
  ASSERT_TRUE(k.run("range of p is parts").ok);
  auto r = k.run(kPaperQueries[3]);
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err;
  const auto& st = k.last_report().stats;
  EXPECT_EQ(scripted_world().starts(), 0);
  EXPECT_EQ(st.bg_compiles, 0u);
  EXPECT_EQ(st.tier_switch_page, -1);
  ASSERT_EQ(st.tier_tuples.size(), 1u) << st.tiers();
  EXPECT_EQ(st.tier_tuples[0].second, 20000u);
}

}  // namespace
}  // namespace quelkit::test
