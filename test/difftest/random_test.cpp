// Random qualifications (quelkit difftest) as tests: a fixed-seed run over
// every back end and mode, the storage variants and the SQLite oracle; the
// generator's determinism and its coverage of every operator in ops.def; the
// SQL translation; and reproducers that run as corpus files.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <sstream>

#include "../engine/support.h"
#include "difftest/check.h"
#include "difftest/corpus.h"
#include "difftest/difftest.h"
#include "difftest/bind.h"
#include "difftest/sqlite_oracle.h"
#include "difftest/twin.h"

namespace quelkit::test {
namespace {

using namespace quelkit::difftest;

// A fixed number of queries, not a time budget: the same seed and count give
// the same queries on any machine, so the test cannot fail for being slow
// (CI is a loaded 2-core machine, several times slower under the sanitizers).
// QUELKIT_DIFFTEST_COUNT overrides; the time cap only stops a runaway.
uint64_t query_count() {
  if (const char* s = std::getenv("QUELKIT_DIFFTEST_COUNT")) return std::strtoull(s, nullptr, 10);
#ifdef QUELKIT_SANITIZED
  return 160;
#else
  return 600;
#endif
}

// The same queries under each selection of the page kernels (--selection):
// every kernel with and without a branch, compared with the interpreters.
// Every back end and mode runs under branch; under nobranch interp:switch and
// the page kernels alone, since --selection does not reach the tuple-at-a-time
// modes (support.h, has_kernel) and their second run (gccjit:qual's compiles,
// mostly) would repeat the first exactly.
class DifftestSelection : public ::testing::TestWithParam<harness::Selection> {};

TEST_P(DifftestSelection, FixedSeedOnEveryBackendIsClean) {
  register_all_backends();
  std::ostringstream log;
  harness::PrepareOptions prepare;
  prepare.selection = GetParam();
  Checker ch(GetParam() == harness::Selection::Branch ? "all" : kernel_backend_list(), log, prepare);
  RunOptions o;
  o.seed = 1981;
  o.seconds = 1800;
  o.count = query_count();
  // The plan cache off on every fourth query: on every one the net more
  // than doubled this test's time (a second compile of each plan).
  o.cache_off_every = 4;
  Summary s = ch.run(o);
  std::ostringstream sum;
  print_summary(sum, s, ch.runner_labels(), o.seed);
  std::cout << sum.str();
  for (const auto& m : s.mismatches) ADD_FAILURE() << m.reproducer;
  EXPECT_EQ(s.bind_failures, 0u);
  EXPECT_EQ(s.queries, o.count) << sum.str();
  EXPECT_GT(s.storage_checked, o.count / 2);
  EXPECT_EQ(s.cache_off, o.count / 4) << sum.str();
  EXPECT_GT(s.twins, o.count / 2) << sum.str();
  if (ch.have_sqlite()) {
    EXPECT_GT(s.sqlite_checked, o.count / 5) << sum.str();
  }
}

INSTANTIATE_TEST_SUITE_P(Selections, DifftestSelection,
                         ::testing::Values(harness::Selection::Branch, harness::Selection::NoBranch),
                         [](const ::testing::TestParamInfo<harness::Selection>& i) {
                           return std::string(harness::selection_name(i.param));
                         });

TEST(Difftest, SameSeedSameQueries) {
  Generator a(7), b(7), c(8);
  int differ = 0;
  for (int i = 0; i < 300; ++i) {
    std::string x = a.query().text();
    EXPECT_EQ(x, b.query().text());
    differ += x != c.query().text();
  }
  EXPECT_GT(differ, 250);
}

// `count` queries from `seed` compared across back ends alone: no storage
// variants, SQLite or Python oracle.
RunOptions backends_only(uint64_t seed, uint64_t count) {
  RunOptions o;
  o.seed = seed;
  o.count = count;
  o.sqlite = o.storage = o.python = false;
  return o;
}

// Operator choices and spellings come from ops.def: a new row there must show
// up here, read from the bound IR, without touching difftest.
TEST(Difftest, EveryOperatorOfOpsDefIsGenerated) {
  register_all_backends();
  std::ostringstream log;
  Checker ch("interp:switch", log);
  Summary s = ch.run(backends_only(2, 4000));
  EXPECT_TRUE(s.mismatches.empty());
  std::string missing;
  for (const auto& m : s.coverage.missing()) missing += m + " ";
  EXPECT_EQ(missing, "") << "operators the generator never produced in 4000 queries";
}

TEST(Difftest, SqliteAndStorageOraclesAgreeWithTheInterpreter) {
  register_all_backends();
  std::ostringstream log;
  Checker ch("interp:switch", log);
  if (!ch.have_sqlite()) GTEST_SKIP() << "SQLite oracle unavailable: " << log.str();
  RunOptions o;
  o.seed = 3;
  o.count = 4000;
  Summary s = ch.run(o);
  for (const auto& m : s.mismatches) ADD_FAILURE() << m.reproducer;
  // The run stops at its first mismatch: its counts then say nothing more.
  if (!s.mismatches.empty()) return;
  EXPECT_GT(s.sqlite_checked, 800u);
  EXPECT_GT(s.storage_checked, 4000u);
}

// The plan-reuse net's counts: every query rerun with the plan cache off,
// a twin for each whose literals give one the binder takes (counted here
// from the same generator), and the summary's line saying so.
TEST(Difftest, PlanReuseCountsAreRight) {
  register_all_backends();
  std::ostringstream log;
  Checker ch("interp:switch,threaded:goto", log);
  RunOptions o = backends_only(4, 200);
  Summary s = ch.run(o);
  for (const auto& m : s.mismatches) ADD_FAILURE() << m.reproducer;
  Generator g(4);
  uint64_t twins = 0;
  for (uint64_t i = 0; i < o.count; ++i) {
    const GQuery q = g.query();
    if (std::optional<GQuery> t = literal_twin(q, twin_salt(q.text()))) {
      try {
        bind_query(*t, ch.session().catalog());
        ++twins;
      } catch (QuelError&) {
      }
    }
  }
  EXPECT_EQ(s.queries, o.count);
  EXPECT_EQ(s.cache_off, o.count);
  EXPECT_EQ(s.twins, twins);
  EXPECT_GT(twins, o.count / 2);
  // threaded:goto reuses plans: some statements ran on their twin's alone.
  EXPECT_GT(s.twin_reused, 0u);
  EXPECT_LE(s.twin_reused, s.twins);
  std::ostringstream sum;
  print_summary(sum, s, ch.runner_labels(), o.seed);
  const std::string line = "plan reuse: 200 statements, " + std::to_string(twins) + " literal twins (after which " +
                           std::to_string(s.twin_reused) + " prepared nothing), 200 cache-off reruns, all agreed\n";
  EXPECT_NE(sum.str().find(line), std::string::npos) << sum.str();
  // The net off: nothing counted.
  o.plan_reuse = false;
  Summary off = ch.run(o);
  EXPECT_EQ(off.twins, 0u);
  EXPECT_EQ(off.cache_off, 0u);
}

GPtr attr(const std::string& var, const std::string& name) { return make_attr(var, name); }

GPtr op(ir::Generic g, GPtr a, GPtr b = nullptr) { return make_op(g, std::move(a), std::move(b)); }

TEST(SqliteOracle, TranslatesTheSharedSubsetOnly) {
  register_all_backends();
  std::ostringstream log;
  Checker ch("interp:switch", log);
  if (!ch.have_sqlite()) GTEST_SKIP();
  auto db = [&] {
    std::string err;
    auto o = SqliteOracle::open(ch.session().catalog(), &err);
    EXPECT_TRUE(o) << err;
    return o;
  }();
  GQuery q;
  q.vars.push_back({"e", "edge", "edge", ""});
  q.targets.emplace_back("t1", attr("e", "i2"));
  q.where = op(ir::Generic::Lt, op(ir::Generic::Add, attr("e", "i2"), Generator::int_lit(3)), Generator::float_lit("2.5"));
  std::string why;
  auto t = db->translate(q, &why);
  ASSERT_TRUE(t) << why;
  EXPECT_EQ(t->sql, "SELECT e.i2 FROM edge AS e WHERE ((e.i2 + 3) < ?1)");
  // f4 arithmetic rounds to single precision: not SQL's.
  q.where = op(ir::Generic::Lt, op(ir::Generic::Add, attr("e", "f4"), Generator::int_lit(1)), Generator::int_lit(3));
  EXPECT_FALSE(db->translate(q, &why));
  EXPECT_EQ(why, "f4");
  // A bare f4 attribute widened to f8 is exact: still compared.
  q.where = op(ir::Generic::Lt, attr("e", "f4"), Generator::float_lit("0.5"));
  EXPECT_TRUE(db->translate(q, &why));
  // Every skip reason is one of the listed differences.
  for (const char* r : {"error", "f4", "pattern", "ascii", "concat", "update", "unknown function"}) {
    bool listed = false;
    for (const auto& d : kDifferences) listed = listed || std::string(d.name) == r;
    EXPECT_TRUE(listed) << r;
  }
}

TEST(Difftest, ReproducerIsARunnableCorpusFile) {
  register_all_backends();
  std::ostringstream log;
  Checker ch("interp:switch,interp:goto", log);
  Generator g(11);
  for (int i = 0; i < 8; ++i) {
    Mismatch m;
    m.kind = Mismatch::Backends;
    m.a = "interp:switch";
    m.b = "interp:goto";
    m.detail = "none: a test of the reproducer";
    m.query = g.query();
    std::string r = ch.reproducer(m);
    CorpusReport rep = run_corpus(parse_corpus("repro.quel", r), "all");
    EXPECT_EQ(rep.cases, 1) << r;
    EXPECT_TRUE(rep.failures.empty()) << rep.failures.front() << "\n" << r;
  }
}

// A storage mismatch's reproducer: the statement over the heap relations,
// its checksum filled in, then over the keyed ones with the same checksum
// expected; it runs on the first back end (not on "heap", the storage check's
// name for the plain relations). Here nothing differs, so both cases pass.
TEST(Difftest, StorageReproducerIsARunnableCorpusFile) {
  register_all_backends();
  std::ostringstream log;
  Checker ch("interp:switch", log);
  Generator g(5);
  int made = 0;
  for (int i = 0; made < 6 && i < 200; ++i) {
    Mismatch m;
    m.kind = Mismatch::Storage;
    m.query = g.query();
    if (m.query.kind != GQuery::Retrieve) continue;
    for (auto& v : m.query.vars)
      v.relation = v.base == "edge" ? "edge_hash_i2" : "parts_isam_pnum";
    m.a = "heap";
    m.b = m.query.vars[0].relation;
    m.detail = "none: a test of the reproducer";
    std::string r = ch.reproducer(m);
    // The storage check compares only queries the heap answers (a keyed
    // scan evaluates fewer tuples, so it may not raise the heap's error).
    if (r.find("/*= error") != std::string::npos) continue;
    ++made;
    EXPECT_EQ(r.find("could not run"), std::string::npos) << r;
    EXPECT_NE(r.find("-b interp:switch"), std::string::npos) << r;
    CorpusReport rep = run_corpus(parse_corpus("repro.quel", r), "interp:switch");
    EXPECT_EQ(rep.cases, 2) << r;
    EXPECT_TRUE(rep.failures.empty()) << rep.failures.front() << "\n" << r;
  }
  EXPECT_EQ(made, 6);
}

}  // namespace
}  // namespace quelkit::test
