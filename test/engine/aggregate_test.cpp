// QUEL aggregates end to end on every back end: simple aggregates and their
// unique variants, every aggregate over no rows, aggregate functions whose by
// groups the inner qualification empties, aggregates in a qualification, the
// i4 sum's overflow (same error, same position), and what may not be written.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "runtime/accumulate.h"
#include "runtime/accumulate_inline.h"
#include "storage/budget.h"
#include "support.h"

namespace quelkit::test {
namespace {

// Five employees in three departments; n holds values whose i4 sum overflows.
const char* const kEmp = R"(
create emp (name = c10, dept = c4, salary = f4, age = i2, n = i4)
append to emp (name = "ann", dept = "toy", salary = 1000.5, age = 30, n = 2000000000)
append to emp (name = "bob", dept = "shoe", salary = 900, age = 41, n = 2000000000)
append to emp (name = "cy", dept = "toy", salary = 1200, age = 25, n = -5)
append to emp (name = "dee", dept = "shoe", salary = 900, age = 30, n = 7)
append to emp (name = "eve", dept = "hat", salary = 50, age = 60, n = 1)
range of e is emp
)";

// A session on the parameter's back end that has run `script` first.
class OnScript : public ::testing::TestWithParam<std::string> {
 protected:
  explicit OnScript(const char* script) : script_(script) {}
  void SetUp() override {
    auto r = k_.run(script_);
    ASSERT_TRUE(r.ok) << r.err;
  }
  // The CSV a statement prints (header included), or the error text.
  std::string csv(const std::string& stmt) {
    auto r = k_.run(stmt);
    return r.ok ? r.out : r.err;
  }
  const char* script_;
  Kit k_{GetParam()};
};

class Aggregates : public OnScript {
 protected:
  Aggregates() : OnScript(kEmp) {}
};

TEST_P(Aggregates, SimpleAggregatesAndUniqueVariants) {
  EXPECT_EQ(csv("retrieve (c = count(e.age), cu = countu(e.salary), s = sum(e.age), su = sumu(e.age), "
                "a = avg(e.age), au = avgu(e.age), mi = min(e.name), ma = max(e.salary), "
                "y = any(e.age where e.age > 50))"),
            "c,cu,s,su,a,au,mi,ma,y\n5,4,186,156,37.2,39.0,ann,1200.0,1\n");
}

TEST_P(Aggregates, EveryAggregateOverNoRows) {
  // count, countu, sum, sumu, any: 0; avg, avgu: 0.0; min and max: 0, or blanks.
  EXPECT_EQ(csv("retrieve (c = count(e.age where e.age > 100), cu = countu(e.salary where e.age > 100), "
                "s = sum(e.age where e.age > 100), su = sumu(e.age where e.age > 100), "
                "a = avg(e.age where e.age > 100), au = avgu(e.age where e.age > 100), "
                "mi = min(e.name where e.age > 100), ma = max(e.salary where e.age > 100), "
                "y = any(e.age where e.age > 100), fs = sum(e.salary where e.age > 100))"),
            "c,cu,s,su,a,au,mi,ma,y,fs\n0,0,0,0,0.0,0.0,,0.0,0,0.0\n");
}

TEST_P(Aggregates, ByGroupsEmptiedByTheInnerQualificationStillExist) {
  // toy's tuples are all 35 or younger: its group is there, with count 0.
  // One row per tuple of e, not one per group.
  EXPECT_EQ(csv("retrieve (e.name, n = count(e.age by e.dept where e.age > 35), "
                "s = sum(e.age by e.dept where e.age > 35), a = avg(e.salary by e.dept where e.age > 35), "
                "mi = min(e.name by e.dept where e.age > 35), y = any(e.age by e.dept where e.age > 35)) "
                "sort by name"),
            "name,n,s,a,mi,y\nann,0,0,0.0,,0\nbob,1,41,900.0,bob,1\ncy,0,0,0.0,,0\n"
            "dee,1,41,900.0,bob,1\neve,1,60,50.0,eve,1\n");
  // retrieve unique: one row per group.
  EXPECT_EQ(csv("retrieve unique (e.dept, n = countu(e.salary by e.dept)) sort by dept"),
            "dept,n\nhat,1\nshoe,1\ntoy,2\n");
  // Every group emptied.
  EXPECT_EQ(csv("retrieve unique (e.dept, n = count(e.age by e.dept where e.age > 100), "
                "a = avg(e.age by e.dept where e.age > 100)) sort by dept"),
            "dept,n,a\nhat,0,0.0\nshoe,0,0.0\ntoy,0,0.0\n");
}

TEST_P(Aggregates, InTheQualification) {
  EXPECT_EQ(csv("retrieve (e.name) where e.age > avg(e.age) sort by name"), "name\nbob\neve\n");
  EXPECT_EQ(csv("retrieve (e.name) where e.age = max(e.age by e.dept) sort by name"), "name\nann\nbob\neve\n");
}

TEST_P(Aggregates, IntegerSumOverflowIsARuntimeErrorAtTheAggregate) {
  auto r = k_.run("retrieve (s = sum(e.n))");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("t.quel:1:15: error: integer overflow in sum"), std::string::npos) << r.err;
  // In a by group that stays in range, no error.
  EXPECT_EQ(csv("retrieve unique (e.dept, s = sum(e.n by e.dept)) sort by dept"),
            "dept,s\nhat,1\nshoe,2000000007\ntoy,1999999995\n");
  r = k_.run("retrieve (s = sum(e.n by e.age / 100))");  // one group: all five
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("1:15: error: integer overflow in sum"), std::string::npos) << r.err;
  // A failed statement leaves no temporary relation and no range variable behind.
  for (const auto& n : k_.session().catalog().names()) EXPECT_EQ(n.find('#'), std::string::npos) << n;
  EXPECT_EQ(k_.session().ranges().vars.size(), 1u);
}

TEST_P(Aggregates, UpdatesSeeTheRelationAsItWas) {
  auto r = k_.run("delete e where e.age < avg(e.age)\nretrieve (c = count(e.name), a = avg(e.age))");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find("c,a\n2,50.5\n"), std::string::npos) << r.out;
}

TEST_P(Aggregates, GroupsAndUniqueValuesAreToldApartAsEqualsDoes) {
  // by (a, b): ("ab", "c") and ("a", "bc") are two groups, though their
  // characters run together alike; -0.0 is 0.0, so countu and sumu count it
  // once; an i1 and an f4 are read at their own widths.
  auto r = k_.run(R"(create kv (a = c3, b = c3, f = f8, g = f4, i = i1)
append to kv (a = "ab", b = "c", f = 0.0, g = 1.5, i = 1)
append to kv (a = "a", b = "bc", f = -0.0, g = 1.5, i = 2)
append to kv (a = "ab", b = "c", f = 2.0, g = -1.5, i = -1)
range of k is kv)");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(csv("retrieve unique (k.a, k.b, n = count(k.i by k.a, k.b))"), "a,b,n\na,bc,1\nab,c,2\n");
  EXPECT_EQ(csv("retrieve (cf = countu(k.f), cg = countu(k.g), ci = countu(k.i), s = sumu(k.f), "
                "lo = min(k.i), hi = max(k.g), t = sum(k.i))"),
            "cf,cg,ci,s,lo,hi,t\n2,2,3,2.0,-1,1.5,2\n");
}

TEST_P(Aggregates, TheGroupFrontTellsGroupsApartAsEqualsDoes) {
  // The group front (runtime/accumulate.h) finds a group by its by values'
  // bytes: "ab", "a b", " ab" and "ab  " are one group though their bytes
  // differ, and so are 0.0 and -0.0; 2,000 groups of i are past the point
  // where the front is given up, part way through the scan.
  std::string setup = "create fr (s = c4, z = f8, i = i4)\n";
  const char* const spellings[] = {"ab", "a b", " ab", "ab  "};
  for (int r = 0; r < 3000; ++r)
    setup += std::string("append to fr (s = \"") + spellings[r % 4] + "\", z = " + (r % 2 ? "-0.0" : "0.0") +
             ", i = " + std::to_string(r % 2000) + ")\n";
  auto r = k_.run(setup + "range of f is fr");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(csv("retrieve unique (f.s, n = count(f.i by f.s), t = sum(f.i by f.s))"), "s,n,t\nab,3000,2498500\n");
  EXPECT_EQ(csv("retrieve unique (f.z, n = count(f.i by f.z), lo = min(f.i by f.z))"), "z,n,lo\n0.0,3000,0\n");
  std::string want = "i,n,t\n";
  for (int i = 0; i < 2000; ++i)
    want += std::to_string(i) + "," + (i < 1000 ? "2," + std::to_string(2 * i) : "1," + std::to_string(i)) + "\n";
  EXPECT_EQ(csv("retrieve unique (f.i, n = count(f.s by f.i), t = sum(f.i by f.i)) sort by i"), want);
}

TEST_P(Aggregates, GroupsSharingAFrontSlotKeepTheirOwnAccumulators) {
  // Three i4 by values whose front slots (accumulate.h: qk_front_fold, of
  // the runtime's 4,096 slots) fall in one pair, two of them in one slot,
  // in turn: the second way holds one, the third evicts and is evicted.
  auto slot = [](int32_t v) {
    return uint32_t(qk_front_finish(qk_front_fold(0, int64_t(uint32_t(v))))) & 4095u;
  };
  std::vector<int32_t> keys;
  for (int32_t a = 1; keys.empty() && a < 100000; ++a)
    for (int32_t b = a + 1; keys.empty() && b < a + 20000; ++b)
      if (slot(b) == slot(a))
        for (int32_t c = b + 1; keys.empty() && c < b + 20000; ++c)
          if ((slot(c) ^ 1u) == slot(a)) keys = {a, b, c};
  ASSERT_EQ(keys.size(), 3u);
  std::string setup = "create pr (k = i4, v = i2)\n";
  for (int r = 0; r < 600; ++r)
    setup += "append to pr (k = " + std::to_string(keys[r % 3]) + ", v = " + std::to_string(r % 7) + ")\n";
  auto r = k_.run(setup + "range of q is pr");
  ASSERT_TRUE(r.ok) << r.err;
  std::string want = "k,n,t\n";
  for (int i = 0; i < 3; ++i) {
    int t = 0;
    for (int r = i; r < 600; r += 3) t += r % 7;
    want += std::to_string(keys[size_t(i)]) + ",200," + std::to_string(t) + "\n";
  }
  EXPECT_EQ(csv("retrieve unique (q.k, n = count(q.v by q.k), t = sum(q.v by q.k)) sort by k"), want);
}

TEST_P(Aggregates, ByValuesWiderThanAPageGetATemporaryOfLargerPages) {
  // Three c255 by values and the count: 1,024 bytes, more than a 1,024-byte
  // page holds. The user made no such relation; its temporary takes pages that hold it.
  EXPECT_EQ(csv("create w (a = c255, b = c255, c = c255, d = i2)\n"
                "append to w (a = \"x\", b = \"y\", c = \"z\", d = 1)\n"
                "append to w (a = \"x\", b = \"y\", c = \"z\", d = 2)\n"
                "range of w is w\n"
                "retrieve (w.d, n = count(w.d by w.a, w.b, w.c, w.a))"),
            "d,n\n1,2\n2,2\n");
  // A by list no page holds: the statement's error, at the aggregate.
  std::string many = "retrieve (n = count(w.d by w.a";
  for (int i = 0; i < 260; ++i) many += ", w.b";
  EXPECT_NE(csv(many + "))").find("t.quel:1:15: error: the by list's values and the aggregate's value take 66559 "
                                  "bytes, more than a page of 65536 bytes holds"),
            std::string::npos);
}

TEST_P(Aggregates, EmptyCharacterValues) {
  // "" is c0: unique leaves one of its rows, and an aggregate of it is "".
  // (An empty value alone in its row is written "", not as a blank line.)
  EXPECT_EQ(csv("retrieve unique (s = \"\") where e.age > 0"), "s\n\"\"\n");
  EXPECT_EQ(csv("retrieve unique (s = \"\", t = \"\")"), "s,t\n,\n");
  EXPECT_EQ(csv("retrieve (x = max(\"\"), y = min(concat(\"\", \"\") where e.age > 40))"), "x,y\n,\n");
  // A temporary of a constant by value and a "" value, its by value's
  // conjunct detached before e is substituted: the detached copy keeps a
  // column of bytes (it had none, "relation ... has no attributes").
  EXPECT_EQ(csv("retrieve (e.name, x = max(\"\" by \"k\")) where e.age > 40 sort by name"), "name,x\nbob,\neve,\n");
}

// INGRES's by-list rule (DESIGN.md "Aggregates"): a query that names its
// variable only through an aggregate function's by values ranges over the
// groups; any other reference keeps one row per tuple.
TEST_P(Aggregates, AQueryNamingOnlyTheByValuesRangesOverTheGroups) {
  // e is named by the by list alone (the join back): one row per department.
  EXPECT_EQ(csv("retrieve (e.dept, n = count(e.name by e.dept)) sort by dept"), "dept,n\nhat,1\nshoe,2\ntoy,2\n");
  EXPECT_EQ(csv("retrieve (n = count(e.name by e.dept)) sort by n"), "n\n1\n2\n2\n");
  // retrieve unique over the groups removes equal rows, as ever.
  EXPECT_EQ(csv("retrieve unique (n = count(e.name by e.dept)) sort by n"), "n\n1\n2\n");
  // A qualification on the by value is one on the groups: one row, not two.
  EXPECT_EQ(csv("retrieve (e.dept, n = count(e.name by e.dept)) where e.dept = \"toy\""), "dept,n\ntoy,2\n");
  // Any other attribute keeps e: one row per tuple that qualifies.
  EXPECT_EQ(csv("retrieve (e.dept, n = count(e.name by e.dept)) where e.age > 30 sort by dept"),
            "dept,n\nhat,1\nshoe,2\n");
  // Whole expressions match: e.age / 10 is the by value, in a target or
  // inside one; e.age / 5 names e.age itself.
  EXPECT_EQ(csv("retrieve (b = e.age / 10, n = count(e.name by e.age / 10)) sort by b"), "b,n\n2,1\n3,2\n4,1\n6,1\n");
  EXPECT_EQ(csv("retrieve (b = e.age / 10 * 2, n = count(e.name by e.age / 10)) sort by b"),
            "b,n\n4,1\n6,2\n8,1\n12,1\n");
  EXPECT_EQ(csv("retrieve (b = e.age / 5, n = count(e.name by e.age / 10)) sort by b"),
            "b,n\n5,1\n6,2\n6,2\n8,1\n12,1\n");
  // Two by values: one row per (dept, salary) group; shoe's two 900s are one.
  EXPECT_EQ(csv("retrieve (e.dept, n = count(e.name by e.dept, e.salary)) sort by dept, n"),
            "dept,n\nhat,1\nshoe,2\ntoy,1\ntoy,1\n");
  // Two aggregate functions of one by list: still the groups.
  EXPECT_EQ(csv("retrieve (e.dept, n = count(e.name by e.dept), a = max(e.age by e.dept)) sort by dept"),
            "dept,n,a\nhat,1,60\nshoe,2,41\ntoy,2,30\n");
  // Of different by lists: each one's join back names the other's
  // variable, so e stays: one row per tuple.
  EXPECT_EQ(csv("retrieve (e.dept, n = count(e.name by e.dept), m = count(e.name by e.age)) sort by dept, m"),
            "dept,n,m\nhat,1,1\nshoe,2,1\nshoe,2,2\ntoy,2,1\ntoy,2,2\n");
  // Where one by list holds the other's values, the longer one's groups:
  // shoe's two 900s are one row.
  EXPECT_EQ(csv("retrieve (e.dept, n = count(e.name by e.dept), m = count(e.name by e.dept, e.salary)) "
                "sort by dept, m"),
            "dept,n,m\nhat,1,1\nshoe,2,2\ntoy,2,1\ntoy,2,1\n");
  // Over the groups, a runtime error names the temporary and the group.
  EXPECT_NE(csv("retrieve (x = 1 / (e.age - e.age), n = count(e.name by e.age - e.age))")
                .find("t.quel:1:17: error: division by zero (relation aggregate#1, tuple 1)"),
            std::string::npos);
  // A simple aggregate's variable is its own: it keeps nothing.
  EXPECT_EQ(csv("retrieve (e.dept, n = count(e.name by e.dept), t = count(e.name)) sort by dept"),
            "dept,n,t\nhat,1,5\nshoe,2,5\ntoy,2,5\n");
}

TEST_P(Aggregates, TheByListRuleInRetrieveIntoAndUpdates) {
  // retrieve into and append store the groups.
  EXPECT_EQ(csv("retrieve into g (e.dept, n = count(e.name by e.dept))\nrange of g is g\n"
                "retrieve (g.all) sort by dept"),
            "dept,n\nhat,1\nshoe,2\ntoy,2\n");
  EXPECT_EQ(csv("create h (dept = c4, n = i4)\nappend to h (dept = e.dept, n = count(e.name by e.dept))\n"
                "range of h is h\nretrieve (h.all) sort by dept"),
            "dept,n\nhat,1\nshoe,2\ntoy,2\n");
  // replace and delete act on their variable's tuples: it stays.
  EXPECT_EQ(csv("delete e where count(e.name by e.dept) = 1\nretrieve (e.name) sort by name"),
            "name\nann\nbob\ncy\ndee\n");
  EXPECT_EQ(csv("replace e (age = count(e.name by e.dept))\nretrieve (e.name, e.age) sort by name"),
            "name,age\nann,2\nbob,2\ncy,2\ndee,2\n");
}

// What --stats' accumulated names for a mode: the runner where its back end
// accumulates in its own code, else the harness.
std::string accumulated_at(const std::string& m) {
  const bool backend = m.rfind("threaded", 0) == 0 || m.rfind("vector", 0) == 0 || m == "llvm:fused" ||
                       m == "gccjit:fused" || m == "stencil:fused" || m.rfind("adaptive", 0) == 0;
  return backend ? m : "harness";
}

// Where each aggregate was accumulated (--stats' accumulated, docs/stats.md):
// in the back end's kernel where it offers Use::Aggregate (threaded code, the
// fused llvm and gccjit kernels, vector's aggregate primitives, stencil's
// fused kernel, adaptive's tiers), by the harness where it does not (the 1976
// interpreter, INGRES's way), one entry per inner query in text order. An
// aggregate function has two: its groups and its values.
TEST_P(Aggregates, StatsSayWhereEachAggregateWasAccumulated) {
  auto r = k_.run("retrieve (c = count(e.age), s = sum(e.salary where e.age > 26))");
  ASSERT_TRUE(r.ok) << r.err;
  const std::string at = k_.last_report().stats.accumulated;
  const std::string where = accumulated_at(GetParam());
  std::string q = "q" + std::to_string(k_.last_report().stmt);
  EXPECT_EQ(at, q + "_a1 count: " + where + "; " + q + "_a2 sum: " + where);
  r = k_.run("retrieve unique (e.dept, n = count(e.age by e.dept where e.age > 35))");
  ASSERT_TRUE(r.ok) << r.err;
  q = "q" + std::to_string(k_.last_report().stmt);
  EXPECT_EQ(k_.last_report().stats.accumulated, q + "_a1 count: " + where + "; " + q + "_a2 count: " + where);
  // A statement without aggregates accumulates nothing.
  r = k_.run("retrieve (e.name) where e.age > 40");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k_.last_report().stats.accumulated, "");
}

// An accumulation error does not stop the scan: an error evaluating a later
// tuple's argument or qualification is the statement's, as when the inner
// query ran to its end before anything was accumulated; else the sum's own,
// at the aggregate, however far the scan got.
TEST_P(Aggregates, EvaluationErrorsAfterAnOverflowComeFirst) {
  // ann and bob overflow the sum (tuples 1, 2); eve's qualification divides by zero (tuple 5).
  auto r = k_.run("retrieve (s = sum(e.n where e.age / (e.age - 60) < 100))");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("1:35: error: division by zero (relation emp, tuple 5)"), std::string::npos) << r.err;
  r = k_.run("retrieve (s = sum(e.n where e.age < 100), c = count(e.age / (e.age - 60)))");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("1:15: error: integer overflow in sum"), std::string::npos) << r.err;
  r = k_.run("retrieve unique (e.dept, s = sum(e.n by e.dept where e.age / (e.age - 60) < 100))");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("division by zero (relation emp, tuple 5)"), std::string::npos) << r.err;
  r = k_.run("retrieve unique (e.dept, s = sum(e.n by e.age / 100 where e.age < 100))");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("1:30: error: integer overflow in sum"), std::string::npos) << r.err;
}

// Aggregates of one by list (or none) and one qualification whose arguments
// cannot raise share one scan (one inner query, named by all of them), give
// each the value it has alone, and raise their errors where evaluating them
// one after another in text order would.
TEST_P(Aggregates, AggregatesOfOneScanAreComputedTogether) {
  const std::string where = accumulated_at(GetParam());
  auto r = k_.run("retrieve (a = min(e.age), b = max(e.salary), c = count(e.name where e.age > 26), "
                  "d = sum(e.age where e.age > 26))");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "a,b,c,d\n25,1200.0,4,161\n");
  std::string q = "q" + std::to_string(k_.last_report().stmt);
  EXPECT_EQ(k_.last_report().stats.accumulated,
            q + "_a1 min, max: " + where + "; " + q + "_a2 count, sum: " + where);
  // Two functions of one by list: one values pass (no qualification), one
  // temporary; the same rows as each alone.
  r = k_.run("retrieve unique (e.dept, n = count(e.name by e.dept), s = sum(e.age by e.dept), "
             "x = max(e.name by e.dept)) sort by dept");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "dept,n,s,x\nhat,1,60,eve\nshoe,2,71,dee\ntoy,2,55,cy\n");
  q = "q" + std::to_string(k_.last_report().stmt);
  EXPECT_EQ(k_.last_report().stats.accumulated, q + "_a1 count, sum, max: " + where);
  EXPECT_EQ(csv("retrieve unique (e.dept, n = count(e.name by e.dept)) sort by dept"), "dept,n\nhat,1\nshoe,2\ntoy,2\n");
  // With a qualification: a groups pass and one values pass for both.
  r = k_.run("retrieve unique (e.dept, n = count(e.name by e.dept where e.age > 26), "
             "s = sum(e.age by e.dept where e.age > 26)) sort by dept");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "dept,n,s\nhat,1,60\nshoe,2,71\ntoy,1,30\n");
  q = "q" + std::to_string(k_.last_report().stmt);
  EXPECT_EQ(k_.last_report().stats.accumulated,
            q + "_a1 count, sum: " + where + "; " + q + "_a2 count, sum: " + where);
  // The second's overflow is the second's, at its position.
  r = k_.run("retrieve (a = sum(e.age), b = sum(e.n))");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("1:31: error: integer overflow in sum"), std::string::npos) << r.err;
  // An argument that can raise keeps its own scan, between the others: its
  // division by zero (eve, tuple 5) comes before the third's overflow.
  r = k_.run("retrieve (a = sum(e.age), b = sum(e.age / (e.age - 60)), c = sum(e.n))");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("division by zero (relation emp, tuple 5)"), std::string::npos) << r.err;
  q = "q" + std::to_string(k_.last_report().stmt);
  r = k_.run("retrieve unique (e.dept, a = sum(e.age by e.dept), b = sum(e.age / (e.age - 60) by e.dept), "
             "c = sum(e.n by e.age / 100))");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("division by zero (relation emp, tuple 5)"), std::string::npos) << r.err;
  for (const auto& n : k_.session().catalog().names()) EXPECT_EQ(n.find('#'), std::string::npos) << n;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Aggregates, ::testing::ValuesIn(all_backend_modes()), backend_test_name);

// University INGRES's tutorial (ERL M77-25, doc/other/tutorial.nr in the
// tih/ingres repository) on its demo database's employee relation, 25
// tuples as the tutorial prints them (`retrieve (e.all)`).
const char* const kEmployee = R"(
create employee (number = i2, name = c20, salary = i2, manager = i2, birthdate = i2, startdate = i2)
append to employee (number = 157, name = "Jones, Tim", salary = 12000,
    manager = 199, birthdate = 1940, startdate = 1960)
append to employee (number = 1110, name = "Smith, Paul", salary = 6000,
    manager = 33, birthdate = 1952, startdate = 1973)
append to employee (number = 35, name = "Evans, Michael", salary = 5000,
    manager = 32, birthdate = 1952, startdate = 1974)
append to employee (number = 129, name = "Thomas, Tom", salary = 10000,
    manager = 199, birthdate = 1941, startdate = 1962)
append to employee (number = 13, name = "Edwards, Peter", salary = 9000,
    manager = 199, birthdate = 1928, startdate = 1958)
append to employee (number = 215, name = "Collins, Joanne", salary = 7000,
    manager = 10, birthdate = 1950, startdate = 1971)
append to employee (number = 55, name = "James, Mary", salary = 12000,
    manager = 199, birthdate = 1920, startdate = 1969)
append to employee (number = 26, name = "Thompson, Bob", salary = 13000,
    manager = 199, birthdate = 1930, startdate = 1970)
append to employee (number = 98, name = "Williams, Judy", salary = 9000,
    manager = 199, birthdate = 1935, startdate = 1969)
append to employee (number = 32, name = "Smythe, Carol", salary = 9050,
    manager = 199, birthdate = 1929, startdate = 1967)
append to employee (number = 33, name = "Hayes, Evelyn", salary = 10100,
    manager = 199, birthdate = 1931, startdate = 1963)
append to employee (number = 199, name = "Bullock, J.D.", salary = 27000,
    manager = 0, birthdate = 1920, startdate = 1920)
append to employee (number = 4901, name = "Bailey, Chas M.", salary = 8377,
    manager = 32, birthdate = 1956, startdate = 1975)
append to employee (number = 843, name = "Schmidt, Herman", salary = 11204,
    manager = 26, birthdate = 1936, startdate = 1956)
append to employee (number = 2398, name = "Wallace, Maggie J.", salary = 7880,
    manager = 26, birthdate = 1940, startdate = 1959)
append to employee (number = 1639, name = "Choy, Wanda", salary = 11160,
    manager = 55, birthdate = 1947, startdate = 1970)
append to employee (number = 5119, name = "Ferro, Tony", salary = 13621,
    manager = 55, birthdate = 1939, startdate = 1963)
append to employee (number = 37, name = "Raveen, Lemont", salary = 11985,
    manager = 26, birthdate = 1950, startdate = 1974)
append to employee (number = 5219, name = "Williams, Bruce", salary = 13374,
    manager = 33, birthdate = 1944, startdate = 1959)
append to employee (number = 1523, name = "Zugnoni, Arthur A.", salary = 19868,
    manager = 129, birthdate = 1928, startdate = 1949)
append to employee (number = 430, name = "Brunet, Paul C.", salary = 17674,
    manager = 129, birthdate = 1938, startdate = 1959)
append to employee (number = 994, name = "Iwano, Masahiro", salary = 15641,
    manager = 129, birthdate = 1944, startdate = 1970)
append to employee (number = 1330, name = "Onstad, Richard", salary = 8779,
    manager = 13, birthdate = 1952, startdate = 1971)
append to employee (number = 10, name = "Ross, Stanley", salary = 15908,
    manager = 199, birthdate = 1927, startdate = 1945)
append to employee (number = 11, name = "Ross, Stuart", salary = 12067,
    manager = 0, birthdate = 1931, startdate = 1932)
range of e is employee
)";

class Tutorial : public OnScript {
 protected:
  Tutorial() : OnScript(kEmployee) {}
};

// e.name keeps e: one row per employee, each with its manager's average
// (the tutorial's rows, sorted here; it prints 11117.555 for 11117.5555...).
TEST_P(Tutorial, AverageSalaryByManagerIsOneRowPerEmployee) {
  EXPECT_EQ(csv("retrieve (e.name, manageravg = avg(e.salary by e.manager)) sort by manageravg, name"),
            "name,manageravg\n\"Bailey, Chas M.\",6688.5\n\"Evans, Michael\",6688.5\n"
            "\"Collins, Joanne\",7000.0\n\"Onstad, Richard\",8779.0\n\"Smith, Paul\",9687.0\n"
            "\"Williams, Bruce\",9687.0\n\"Raveen, Lemont\",10356.333333333334\n"
            "\"Schmidt, Herman\",10356.333333333334\n\"Wallace, Maggie J.\",10356.333333333334\n"
            "\"Edwards, Peter\",11117.555555555555\n\"Hayes, Evelyn\",11117.555555555555\n"
            "\"James, Mary\",11117.555555555555\n\"Jones, Tim\",11117.555555555555\n"
            "\"Ross, Stanley\",11117.555555555555\n\"Smythe, Carol\",11117.555555555555\n"
            "\"Thomas, Tom\",11117.555555555555\n\"Thompson, Bob\",11117.555555555555\n"
            "\"Williams, Judy\",11117.555555555555\n\"Choy, Wanda\",12390.5\n\"Ferro, Tony\",12390.5\n"
            "\"Brunet, Paul C.\",17727.666666666668\n\"Iwano, Masahiro\",17727.666666666668\n"
            "\"Zugnoni, Arthur A.\",17727.666666666668\n\"Bullock, J.D.\",19533.5\n"
            "\"Ross, Stuart\",19533.5\n");
  // Qualified on the tuples: the tutorial's two employees over 50.
  EXPECT_EQ(csv("retrieve (e.name, manageravg = avg(e.salary by e.manager)) where 1977 - e.birthdate > 50 "
                "sort by name"),
            "name,manageravg\n\"Bullock, J.D.\",19533.5\n\"James, Mary\",11117.555555555555\n");
  // Managers 33 and 199: still e.name, so one row per employee (eleven).
  EXPECT_EQ(csv("retrieve (e.name, manageravg = avg(e.salary by e.manager)) "
                "where e.manager = 199 or e.manager = 33 sort by manageravg, name"),
            "name,manageravg\n\"Smith, Paul\",9687.0\n\"Williams, Bruce\",9687.0\n"
            "\"Edwards, Peter\",11117.555555555555\n\"Hayes, Evelyn\",11117.555555555555\n"
            "\"James, Mary\",11117.555555555555\n\"Jones, Tim\",11117.555555555555\n"
            "\"Ross, Stanley\",11117.555555555555\n\"Smythe, Carol\",11117.555555555555\n"
            "\"Thomas, Tom\",11117.555555555555\n\"Thompson, Bob\",11117.555555555555\n"
            "\"Williams, Judy\",11117.555555555555\n");
}

// e is named only by e.manager, the by value: the query ranges over the
// nine managers, those with no employee who started before 1970 with 0.
// The tutorial prints 2 and 22687.000 for manager 33, whose employees in
// its own relation are Smith (started 1973) and Williams (1959, 13374):
// 1 and 13374.0 are what that relation gives; the other eight rows are the
// tutorial's.
TEST_P(Tutorial, PeopleByManagerIsOneRowPerManager) {
  EXPECT_EQ(csv("retrieve (e.manager, people = count(e.name by e.manager where e.startdate < 1970)) "
                "sort by manager"),
            "manager,people\n0,2\n10,0\n13,0\n26,2\n32,0\n33,1\n55,1\n129,2\n199,8\n");
  EXPECT_EQ(csv("retrieve (e.manager, people = avg(e.salary by e.manager where e.startdate < 1970)) "
                "sort by manager"),
            "manager,people\n0,19533.5\n10,0.0\n13,0.0\n26,9542.0\n32,0.0\n33,13374.0\n55,13621.0\n"
            "129,18771.0\n199,10882.25\n");
  // The same aggregate in the qualification: the zeros removed, six rows.
  EXPECT_EQ(csv("retrieve (e.manager, people = avg(e.salary by e.manager where e.startdate < 1970)) "
                "where avg(e.salary by e.manager where e.startdate < 1970) > 0 sort by manager"),
            "manager,people\n0,19533.5\n26,9542.0\n33,13374.0\n55,13621.0\n129,18771.0\n199,10882.25\n");
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Tutorial, ::testing::ValuesIn(all_backend_modes()), backend_test_name);

TEST(GroupFront, EvaluatorsReadTheFrontsSlotsAndBytesAsDefined) {
  // The front's slot is the fold of the by bytes as zero-padded
  // little-endian words (accumulate.h), which generated code computes too:
  // rt::front_slot, the runtime's and the evaluators' own readers, of every
  // width, specialised or not, reads no byte past the by values and finds
  // that slot; front_equal is memcmp's equality.
  std::mt19937 rng(7);
  for (uint32_t n = 1; n <= QK_FRONT_MAX_LEN; ++n)
    for (int round = 0; round < 50; ++round) {
      uint8_t x[QK_FRONT_MAX_LEN + 8], y[QK_FRONT_MAX_LEN + 8];
      for (auto& c : x) c = uint8_t(rng());
      std::memcpy(y, x, n);
      for (uint32_t i = n; i < sizeof y; ++i) y[i] = uint8_t(~x[i]);  // past n: differ
      int64_t h = 0;
      for (uint32_t i = 0; i < n; i += 8) {
        uint64_t w = 0;
        std::memcpy(&w, x + i, std::min<uint32_t>(8, n - i));
        h = qk_front_fold(h, int64_t(w));
      }
      const uint32_t want = uint32_t(qk_front_finish(h)) & 4095u;
      ASSERT_EQ(rt::front_slot(x, n, 4096), want) << "width " << n;
      ASSERT_EQ(rt::front_slot(y, n, 4096), want) << "width " << n;
      ASSERT_TRUE(rt::front_equal(x, y, n)) << "width " << n;
      y[rng() % n] ^= uint8_t(1u << (rng() % 8));
      ASSERT_FALSE(rt::front_equal(x, y, n)) << "width " << n;
    }
}

TEST(AggregateErrors, NestedAndNonNumericAreBindErrors) {
  Kit k;
  k.add_parts(10);
  auto r = k.run("range of p is parts\nretrieve (n = count(count(p.pnum)))");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("t.quel:2:21: error: an aggregate cannot appear inside another aggregate"),
            std::string::npos)
      << r.err;
  r = k.run("retrieve (n = avg(p.pname))");
  EXPECT_NE(r.err.find("avg needs a numeric argument, not c20"), std::string::npos) << r.err;
  // A condition as an aggregate's argument or by value: named as the user wrote it.
  r = k.run("retrieve (n = count(p.pnum < 3))");
  EXPECT_NE(r.err.find("t.quel:1:28: error: the argument of count is a condition; it must be a number or characters"),
            std::string::npos)
      << r.err;
  r = k.run("retrieve (n = sum(p.qoh by p.color, p.pnum < 3))");
  EXPECT_NE(r.err.find("t.quel:1:44: error: by value 2 of sum is a condition; it must be a number or characters"),
            std::string::npos)
      << r.err;
}

TEST(AggregateCountSink, TheAggregatesRowsAreStillProjected) {
  // --sink count counts the statement's rows; its aggregates still need theirs.
  Kit k;
  k.set_count_sink();
  k.add_parts(210);
  auto r = k.run("range of p is parts\nretrieve (p.pnum) where p.qoh > avg(p.qoh) + 240");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("(2 rows counted)"), std::string::npos) << "messages go to stderr\n" << r.err;
  // An aggregate in the target list is not a target: it runs first, so its
  // errors are raised as in rows mode (docs/stats.md), while a plain
  // target's are not.
  r = k.run("retrieve (x = sum(p.qoh / 0))");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("division by zero (relation parts, tuple 1)"), std::string::npos) << r.err;
  r = k.run("retrieve (x = p.qoh / 0)");
  EXPECT_TRUE(r.ok) << r.err;
}

// Aggregates over many batches and pages (1,000 tuples: vector's batches,
// stencil's and threaded code's pages), accumulated in each back end's own
// code where it has a kernel: an i4 sum overflowing part way, simple and
// grouped, gives interp's error at the aggregate's position on every back end
// and selection; an evaluation error at a tuple past the overflow is raised
// instead, at its tuple; float sums whose rounding depends on the order of
// the additions, and the u variants, print interp's digits.
TEST(AggregateAgreement, OverflowsErrorsAndFloatSumsAreInterpsOnEveryBackEnd) {
  std::string setup = "create big (i = i4, g = i2, n = i4, x = f8)\n";
  for (int i = 1; i <= 1000; ++i) {
    // n: 5,000,000 each, so a sum of all overflows at tuple 430, a group's
    // (a third of them) does not; x: large and small values of both signs.
    const double x = (i % 7 == 0 ? 1e17 : 1.0) * (i % 2 ? 1 : -1) + i * 0.1;
    setup += "append to big (i = " + std::to_string(i) + ", g = " + std::to_string(i % 3) +
             ", n = 5000000, x = " + std::to_string(x) + ")\n";
  }
  setup += "range of b is big\n";
  const char* const stmts[] = {
      "retrieve (s = sum(b.n))",
      "retrieve (s = sum(b.n by b.g / 3))",
      "retrieve (s = sum(b.n where b.g = 1), c = count(b.n))",
      "retrieve unique (b.g, s = sum(b.n by b.g)) sort by g",
      "retrieve (s = sum(b.n where b.n / (b.i - 700) > -1000000000))",
      "retrieve (s = sum(b.n by b.g / 3 where b.n / (b.i - 700) > -1000000000))",
      "retrieve (s = sum(b.x), a = avg(b.x), mi = min(b.x), ma = max(b.g), y = any(b.n where b.x > 0))",
      "retrieve unique (b.g, s = sum(b.x by b.g), a = avg(b.n by b.g), mi = min(b.x by b.g)) sort by g",
      "retrieve (su = sumu(b.g), cu = countu(b.x), au = avgu(b.n))",
  };
  auto answers = [&](const std::string& mode, harness::Selection sel) {
    Kit k(mode);
    k.set_selection(sel);
    auto r = k.run(setup);
    EXPECT_TRUE(r.ok) << r.err;
    std::string all;
    for (const char* q : stmts) {
      r = k.run(q);
      all += std::string(q) + "\n" + (r.ok ? r.out : r.err) + "\n";
    }
    return all;
  };
  const std::string want = answers("interp:switch", harness::Selection::Branch);
  EXPECT_NE(want.find("retrieve (s = sum(b.n))\nt.quel:1:15: error: integer overflow in sum"), std::string::npos)
      << want;
  EXPECT_NE(want.find("division by zero (relation big, tuple 700)"), std::string::npos) << want;
  for (const auto& m : all_backend_modes())
    for (harness::Selection sel : {harness::Selection::Branch, harness::Selection::NoBranch})
      EXPECT_EQ(answers(m, sel), want) << m << (sel == harness::Selection::NoBranch ? " nobranch" : " branch");
}

TEST(AggregateAgreement, EveryBackEndGivesTheSameRowsOnParts) {
  // A session over every back end compares each statement's results bit for bit.
  Kit k("all");
  k.add_parts(210);
  auto r = k.run(R"(
    range of p is parts
    range of q is parts
    retrieve (n = count(p.pnum), s = sum(p.qoh where p.weight > 10), a = avg(p.qoh), m = max(p.pname))
    retrieve (p.color, a = avg(p.qoh by p.color))
    retrieve unique (p.color, n = count(p.pnum by p.color where p.qoh > 400)) sort by color
    retrieve (p.pnum) where p.qoh > avg(p.qoh by p.color) + 200
    retrieve (n = count(p.pnum where p.pnum = q.pnum and q.qoh > 250))
  )");
  EXPECT_TRUE(r.ok) << r.err;
}

}  // namespace
}  // namespace quelkit::test

namespace quelkit::test {
namespace {

// An aggregate function's temporaries (its groups, their values and the
// grouping tables) are charged to the statement's memory budget: over
// budget, the statement fails with a clear error and the session goes on.
// Every back end that accumulates in its own code as well: generated code
// adds the rows that make no group (past the room) to accumulators nothing
// reads (qk_group_find), and the error is the table's.
TEST(AggregateBudget, ManyGroupsPastTheBudgetAreAStatementError) {
  for (const char* backend : {"interp", "threaded", "vector", "llvm", "gccjit", "stencil"}) {
    SCOPED_TRACE(backend);
    harness::MemoryBudget& mb = harness::memory_budget();
    const uint64_t limit = mb.limit();
    Kit k(backend, harness::OutFormat::None);
    k.add_parts(20000);
    ASSERT_TRUE(k.run("range of p is parts").ok);
    mb.set_limit(mb.used() + 64 * 1024);  // room for the relation, not for 20,000 groups
    auto r = k.run("retrieve unique (p.pnum, n = count(p.qoh by p.pnum, p.pname))");
    mb.set_limit(limit);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.err.find("memory budget exceeded"), std::string::npos) << r.err;
    r = k.run("retrieve (n = count(p.pnum))");
    EXPECT_TRUE(r.ok) << r.err;
    EXPECT_EQ(k.last_report().stats.rows_out, 1u);
    const std::string counted = r.out;  // its checksum
    // A simple aggregate keeps none of its 20,000 rows (each is accumulated as
    // it is projected, runtime/accumulate.h): a budget of 16 KiB, which they
    // did not fit in when they were kept, is enough.
    mb.set_limit(mb.used() + 16 * 1024);
    r = k.run("retrieve (n = count(p.pnum))");
    mb.set_limit(limit);
    EXPECT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.out, counted);
  }
}

}  // namespace
}  // namespace quelkit::test
