// Literals as plan parameters (issue 68): statements that differ only in
// their literals share one prepared plan on every back end that reuses plans,
// with the answers and errors of the 1976 interpreter preparing each afresh
// (every statement runs on both and the session compares them); plans
// survive append, replace and delete, and modify, destroy and create drop
// them (docs/DESIGN.md, "Literals as parameters").
#include <string>
#include <vector>

#include "test/engine/support.h"

namespace quelkit::test {
namespace {

class LiteralParams : public ::testing::TestWithParam<std::string> {
 protected:
  // The back end under test, then interp:switch, the reference it is compared with.
  void SetUp() override {
    kit_ = std::make_unique<Kit>(GetParam() + ",interp:switch");
    kit_->add_parts(300);
    ASSERT_TRUE(kit_->run("range of p is parts").ok);
  }
  // Runs each statement; the prepares and cache hits of the back end under test over all of them.
  std::pair<uint64_t, uint64_t> run_all(const std::vector<std::string>& stmts) {
    const size_t from = kit_->session().reports().size();
    for (const auto& s : stmts) {
      RunResult r = kit_->run(s);
      EXPECT_TRUE(r.ok) << s << "\n" << r.err;
      EXPECT_EQ(r.err.find("disagree"), std::string::npos) << s << "\n" << r.err;
    }
    uint64_t prepares = 0, hits = 0;
    const auto& reps = kit_->session().reports();
    for (size_t i = from; i < reps.size(); ++i)
      if (reps[i].backend + ":" + reps[i].mode == GetParam()) {
        prepares += reps[i].stats.prepares;
        hits += reps[i].stats.cache_hits;
      }
    return {prepares, hits};
  }
  // `text` with each value of `values` in place of every "K".
  static std::vector<std::string> each(const std::string& text, const std::vector<std::string>& values) {
    std::vector<std::string> out;
    for (const auto& v : values) {
      std::string s;
      for (char c : text) s += c == 'K' ? v : std::string(1, c);
      out.push_back(s);
    }
    return out;
  }
  std::unique_ptr<Kit> kit_;
};

TEST_P(LiteralParams, IntegersOfEveryMagnitudeShareAPlan) {
  const auto [prepares, hits] =
      run_all(each("retrieve (p.pnum) where p.qoh < K", {"0", "7", "30", "32767", "32768", "100000", "2147483647"}));
  EXPECT_EQ(prepares, 1u);
  EXPECT_EQ(hits, 6u);
  // Widened through arithmetic and mixed comparisons too: an i2 or i4 literal in f8.
  EXPECT_EQ(run_all(each("retrieve (p.pnum) where p.qoh < log(K.5) * p.weight", {"9", "2", "40000"})).first, 1u);
  EXPECT_EQ(run_all(each("retrieve (p.pnum, x = p.weight * K) where p.pnum - K > 3", {"2", "300", "70000"})).first,
            0u + 1u);
}

TEST_P(LiteralParams, FloatsShareAPlan) {
  EXPECT_EQ(run_all(each("retrieve (p.pnum) where p.weight > K", {"1.5", "10.25", "1e3", "-0.0", "0.0"})).first, 1u);
}

// A character literal compared with an attribute is widened to its width: one
// plan for every literal up to it; a longer one is a shape of its own.
TEST_P(LiteralParams, StringsOfSeveralLengthsShareAPlan) {
  EXPECT_EQ(run_all(each("retrieve (p.pnum) where p.color = \"K\"", {"red", "black", "b", "", "blue    ", "greenish"}))
                .first,
            1u);
  EXPECT_EQ(run_all(each("retrieve (p.pnum) where p.color < \"K\"", {"red", "a color longer than eight"})).first, 2u);
  // Patterns: the match is the shape, the pattern a parameter of its length.
  EXPECT_EQ(run_all(each("retrieve (p.pnum) where p.pname = \"K\"", {"*1*", "*2*", "p?r*"})).first, 2u);
}

// Where a literal's value decides a result type (an i2 or i4 target, a c of
// its length), each type is a shape: today's result types are kept.
TEST_P(LiteralParams, ResultTypesStayTheLiterals) {
  EXPECT_EQ(run_all(each("retrieve (a = K)", {"1", "2", "100000", "200000"})).first, 2u);
  EXPECT_EQ(run_all(each("retrieve (a = \"K\")", {"ab", "cd", "abc"})).first, 2u);
}

// A keyed lookup whose key comes from the parameter block: one plan for every
// name and salary, each statement a hash lookup.
TEST_P(LiteralParams, KeyedReplaceIsOnePlan) {
  ASSERT_TRUE(kit_->run("create e (name = c20, salary = i4)\n"
                        "append to e (name = \"Paul\", salary = 10)\n"
                        "append to e (name = \"Li\", salary = 20)\n"
                        "append to e (name = \"Annemarie Schwarzenb\", salary = 30)\n"
                        "modify e to hash on name")
                  .ok);
  std::vector<std::string> stmts;
  const char* const names[] = {"Paul", "Li", "Annemarie Schwarzenb", "X", "Nobody here"};
  const char* const salaries[] = {"5", "40000", "7", "2000000", "0"};
  for (int i = 0; i < 5; ++i)
    stmts.push_back(std::string("replace e (salary = ") + salaries[i] + ") where e.name = \"" + names[i] + "\"");
  const size_t from = kit_->session().reports().size();
  EXPECT_EQ(run_all(stmts).first, 1u);
  for (size_t i = from; i < kit_->session().reports().size(); ++i)
    EXPECT_EQ(kit_->session().reports()[i].stats.access_path, "e:hash key =");
  RunResult r = kit_->run("retrieve (e.name, e.salary) sort by name");
  EXPECT_EQ(r.out, "name,salary\nAnnemarie Schwarzenb,7\nLi,40000\nPaul,5\n") << r.err;
}

// Folding cannot compute `1 / 0`: it stays an operator over two parameters
// and raises only where evaluation reaches it, at its position, for every
// statement of the shape.
TEST_P(LiteralParams, AFoldingThatRaisesStaysAndRaisesAtItsPosition) {
  EXPECT_EQ(run_all({"retrieve (p.pnum) where p.pnum < 0 and p.qoh > 1 / 0"}).first, 1u);
  RunResult r = kit_->run("retrieve (p.pnum) where p.pnum < 5 and p.qoh > 1 / 0");
  EXPECT_FALSE(r.ok);
  const auto& reps = kit_->session().reports();
  EXPECT_EQ(reps[reps.size() - 2].stats.prepares, 0u) << "the plan of the statement that did not raise";
  EXPECT_NE(r.err.find("t.quel:1:50: error: division by zero (relation parts, tuple 1)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err;
  r = kit_->run("retrieve (x = 1 / 0)");
  EXPECT_NE(r.err.find("t.quel:1:17: error: division by zero"), std::string::npos) << r.err;
}

// Updates change tuples, not plans: a plan over e serves after append,
// replace and delete; modify, destroy and create (a new relation of the
// name) prepare afresh.
TEST_P(LiteralParams, PlansSurviveUpdatesNotSchemaChanges) {
  ASSERT_TRUE(kit_->run("create e (name = c20, salary = i4)\nappend to e (name = \"a\", salary = 1)").ok);
  const std::string q = "retrieve (e.salary) where e.name = \"K\"";
  EXPECT_EQ(run_all(each(q, {"a"})).first, 1u);
  ASSERT_TRUE(kit_->run("append to e (name = \"b\", salary = 2)").ok);
  ASSERT_TRUE(kit_->run("replace e (salary = 3) where e.name = \"b\"").ok);
  ASSERT_TRUE(kit_->run("delete e where e.name = \"a\"").ok);
  EXPECT_EQ(run_all(each(q, {"b", "a"})).first, 0u);
  EXPECT_EQ(kit_->run("retrieve (e.salary) where e.name = \"b\"").out, "salary\n3\n");
  ASSERT_TRUE(kit_->run("modify e to hash on name").ok);
  EXPECT_EQ(run_all(each(q, {"b", "c"})).first, 1u);
  ASSERT_TRUE(kit_->run("destroy e\ncreate e (name = c20, salary = i4)\nappend to e (name = \"b\", salary = 9)").ok);
  EXPECT_EQ(run_all(each(q, {"b", "c"})).first, 1u);
  EXPECT_EQ(kit_->run("retrieve (e.salary) where e.name = \"b\"").out, "salary\n9\n");
}

std::vector<std::string> reusing_backends() {
  std::vector<std::string> v;
  for (const auto& m : all_backend_modes())
    if (m.rfind("interp:", 0) != 0) v.push_back(m);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Backends, LiteralParams, ::testing::ValuesIn(reusing_backends()), backend_test_name);

// The 1976 interpreter has no plan reuse: every statement is lowered afresh,
// its literals as constant symbols (it reads the unfolded trees).
TEST(LiteralParamsInterp, PreparesEveryStatement) {
  Kit k("interp:switch");
  k.add_parts(50);
  ASSERT_TRUE(k.run("range of p is parts").ok);
  for (const char* v : {"1", "2", "3"}) {
    ASSERT_TRUE(k.run(std::string("retrieve (p.pnum) where p.qoh < ") + v).ok);
    EXPECT_EQ(k.last_report().stats.prepares, 1u);
    EXPECT_EQ(k.last_report().stats.cache_hits, 0u);
  }
}

// --dump shows a shared plan's parameters with their values.
TEST(LiteralParamsDump, ParametersAreShownWithTheirValues) {
  Kit k("threaded:goto");
  k.set_options([](harness::SessionOptions& o) { o.dumps = {"threaded"}; });
  k.add_parts(50);
  RunResult r = k.run("range of p is parts retrieve (p.pnum) where p.qoh < 30 and p.color = \"red\"");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE((r.out + r.err).find("-- parameters q2 (threaded:goto): $0 = 30 (i4), $1 = \"red\" (c8)"),
            std::string::npos)
      << r.out << r.err;
}

}  // namespace
}  // namespace quelkit::test
