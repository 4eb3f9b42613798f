// The report's targets block (bench/report/report_parts.h, check_targets): each bound
// checked on the median of paired repetitions, only where the run measured
// what it names, on made-up figures; a bound it could not check named with
// the reason (left_out_targets), in the report's text and paper.json too.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "backends/backends.h"

#include "bench/report/report_parts.h"
#include "test/engine/made_up_rows.h"

namespace quelkit::report {
namespace {

const TargetCheck* find(const std::vector<TargetCheck>& v, char q, uint64_t size, const std::string& what) {
  for (const auto& c : v)
    if (c.query == q && c.size == size && c.what == what) return &c;
  return nullptr;
}

TEST(ReportTargets, ChecksThePairedRatioAgainstEachBound) {
  Measured m;
  // (d) at 1M: llvm:fused 1.1x the reference in each repetition but one
  // (whose 2.0x a ratio of medians would not see either); the reference 1.6x
  // the floor.
  m.rows.push_back(heap_row("d", 1000000, {cell("llvm:fused", CellKind::Backend, {110, 110, 200, 110, 110}),
                                           cell("reference", CellKind::Reference, {100, 100, 100, 100, 100}),
                                           cell("floor", CellKind::Floor, {62.5, 62.5, 62.5, 62.5, 62.5})}));
  const auto v = check_targets(m);
  const TargetCheck* l = find(v, 'd', 1000000, "llvm:fused / reference");
  ASSERT_NE(l, nullptr);
  EXPECT_NEAR(l->stats.median, 1.1, 1e-9);
  EXPECT_NEAR(l->limit, 1.2, 1e-9);
  EXPECT_TRUE(l->met);
  // The middle half of the five ratios (1.1 1.1 1.1 1.1 2.0) is 1.1-1.1:
  // the one slow repetition moves the spread only.
  EXPECT_NEAR(l->stats.q1, 1.1, 1e-9);
  EXPECT_NEAR(l->stats.q3, 1.1, 1e-9);
  EXPECT_NEAR(l->stats.spread, 0.9 / 1.1, 1e-9);
  EXPECT_EQ(l->stats.n, 5);
  // Five pairs: the median's interval is min..max (1.1-2.0), a 93.75% one
  // (1 - 2/2^5), which holds the bound: met, but not told apart from noise.
  EXPECT_NEAR(l->stats.hi, 2.0, 1e-9);
  EXPECT_NEAR(l->stats.level, 0.9375, 1e-9);
  EXPECT_FALSE(l->told);
  const TargetCheck* r = find(v, 'd', 1000000, "reference / floor");
  ASSERT_NE(r, nullptr);
  EXPECT_NEAR(r->stats.median, 1.6, 1e-9);
  EXPECT_FALSE(r->met);
  EXPECT_TRUE(r->told);  // 1.6 in every pair: missed beyond noise
  // The best back end is named: llvm:fused, 1.76x the floor, within 2x.
  const TargetCheck* b = find(v, 'd', 1000000, "best / floor (best: llvm:fused)");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->met);
  // gccjit was not in this run, and 10M bounds do not apply at 1M: no check
  // is made for them rather than one that cannot fail.
  EXPECT_EQ(find(v, 'd', 1000000, "gccjit:fused / reference"), nullptr);
  EXPECT_EQ(find(v, 'd', 1000000, "best / reference (best: llvm:fused)"), nullptr);
  EXPECT_EQ(v.size(), 3u);
}

TEST(ReportTargets, OnlyTable1sHeapAtTheSizesABoundNames) {
  Measured m;
  auto cells = [] {
    return std::vector<Cell>{cell("vector:inplace", CellKind::Backend, {95, 95, 95}),
                             cell("threaded:goto", CellKind::Backend, {100, 100, 100})};
  };
  m.rows.push_back(heap_row("c", 100000, cells()));    // below 1M: no bound
  m.rows.push_back(heap_row("c", 10000000, cells()));  // vector / threaded:goto 0.95 > 0.9
  Row keyed = heap_row("c", 10000000, cells());
  keyed.structure = harness::Structure::Isam;  // Table 2: no bound
  m.rows.push_back(keyed);
  const auto v = check_targets(m);
  const TargetCheck* t = find(v, 'c', 10000000, "vector:inplace / threaded:goto");
  ASSERT_NE(t, nullptr);
  EXPECT_NEAR(t->stats.median, 0.95, 1e-9);
  EXPECT_FALSE(t->met);
  for (const auto& c : v) EXPECT_EQ(c.size, 10000000u) << c.what;
  // best / floor needs a floor, vector / llvm an llvm cell: neither here.
  EXPECT_EQ(v.size(), 1u);
}

const TargetLeftOut* left(const std::vector<TargetLeftOut>& v, const std::string& what) {
  for (const auto& l : v)
    if (l.what == what) return &l;
  return nullptr;
}

// A run of interp and llvm:fused at 1M tuples: the bounds naming gccjit,
// (a), a whole statement from its text, against SQLite's from its text:
// the best back end's time over SQLite's, which --no-sqlite leaves out.
TEST(ReportTargets, ChecksTheShortStatementAgainstSqlite) {
  Measured m;
  m.backends = {"threaded:goto", "llvm:fused"};
  m.sizes = {1000000};
  m.rows.push_back(heap_row("a", 1000000, {cell("threaded:goto", CellKind::Backend, {2.2, 2.3, 2.2}),
                                           cell("llvm:fused", CellKind::Backend, {2.5, 2.5, 2.6}),
                                           cell("sqlite", CellKind::Sqlite, {1.0, 1.0, 1.0})}));
  const auto v = check_targets(m);
  const TargetCheck* a = find(v, 'a', 1000000, "best / sqlite (best: threaded:goto)");
  ASSERT_NE(a, nullptr);
  EXPECT_NEAR(a->stats.median, 2.2, 1e-9);
  EXPECT_NEAR(a->limit, 2.0, 1e-9);
  EXPECT_FALSE(a->met);
  m.rows.clear();
  m.sqlite = false;
  const auto left = left_out_targets(m);
  const auto it = std::find_if(left.begin(), left.end(), [](const TargetLeftOut& l) { return l.what == "best / sqlite"; });
  ASSERT_NE(it, left.end());
  EXPECT_EQ(it->reason, "--no-sqlite leaves out SQLite");
}

// vector and threaded code are left out because those back ends were not in
// it, each said with its reason; the ones it measured are not listed.
TEST(ReportTargets, NamesEachBoundLeftOutAndWhy) {
  register_all_backends();
  Measured m;
  m.backends = {"interp:switch", "llvm:fused"};
  m.sizes = {210, 1000000};
  m.rows.push_back(heap_row("d", 1000000, {cell("llvm:fused", CellKind::Backend, {110, 110, 110}),
                                           cell("reference", CellKind::Reference, {100, 100, 100}),
                                           cell("floor", CellKind::Floor, {62.5, 62.5, 62.5})}));
  const auto v = left_out_targets(m);
  const TargetLeftOut* g = left(v, "gccjit:fused / reference");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->queries, "bcde");
  EXPECT_EQ(g->min_size, 1000000u);
  const bool built = harness::find_backend("gccjit") != nullptr;
  EXPECT_EQ(g->reason, built ? "gccjit:fused is not in this run's back ends (-b)"
                             : "gccjit:fused is not built (its back end is not in this quelkit)");
  const TargetLeftOut* vt = left(v, "vector:inplace / threaded:goto");
  ASSERT_NE(vt, nullptr);
  EXPECT_NE(vt->reason.find("vector:inplace is not"), std::string::npos) << vt->reason;
  // Checked here: not left out.
  EXPECT_EQ(left(v, "llvm:fused / reference"), nullptr);
  EXPECT_EQ(left(v, "reference / floor"), nullptr);
  // The 10M bound on (d), every back end present but no size that large.
  m.backends.push_back("threaded:goto");
  m.backends.push_back("vector:inplace");
  const auto v2 = left_out_targets(m);
  const TargetLeftOut* d = left(v2, "best / reference");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->reason, "no --sizes of 10000000 tuples or more");
  // --queries that leave out a bound's queries say so.
  m.queries = "d";
  const auto v3 = left_out_targets(m);
  const TargetLeftOut* c = left(v3, "best / floor");
  ASSERT_NE(c, nullptr);
  // Two bounds are "best / floor": (bde) at 2.0, checked on (d); (c) at 3.0, left out.
  EXPECT_EQ(c->queries, "c");
  EXPECT_EQ(c->reason, "--queries d leaves out its queries");
}

// The report itself, on a tiny size with one back end: its text and
// paper.json name the targets left out, among them llvm:fused's for want
// of the back end.
TEST(ReportTargets, PaperNamesTheTargetsItLeftOut) {
  char dir[] = "/tmp/quelkit-targets-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string cmd = std::string(QUELKIT_BINARY_DIR) +
                          "/bin/quelkit paper --sizes 210 --keyed-sizes= --count-sizes= --queries b --reps 1 "
                          "--min-time 0.001 --children 0 --no-sqlite -b threaded:goto --out " + dir + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string text;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << text;
  const size_t at = text.find("Targets left out (9 of 9), and why:");
  ASSERT_NE(at, std::string::npos) << text;
  register_all_backends();
  const std::string llvm = harness::find_backend("llvm") ? "llvm:fused is not in this run's back ends (-b)"
                                                         : "llvm:fused is not built (its back end is not in this quelkit)";
  EXPECT_NE(text.find("llvm:fused / reference <= 1.2", at), std::string::npos) << text.substr(at);
  EXPECT_NE(text.find(llvm, at), std::string::npos) << text.substr(at);
  EXPECT_NE(text.find("no --sizes of 1000000 tuples or more", at), std::string::npos) << text.substr(at);
  std::ifstream js(std::string(dir) + "/paper.json");
  const nlohmann::json doc = nlohmann::json::parse(js, nullptr, false);
  ASSERT_TRUE(doc.is_object());
  ASSERT_EQ(doc["targets_left_out"].size(), 9u);
  bool named = false;
  for (const auto& l : doc["targets_left_out"])
    if (l["ratio"] == "llvm:fused / reference") {
      named = true;
      EXPECT_EQ(l["reason"], llvm);
      EXPECT_EQ(l["min_tuples"], 1000000);
    }
  EXPECT_TRUE(named) << doc["targets_left_out"].dump();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace quelkit::report
