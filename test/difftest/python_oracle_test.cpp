// The Python oracle of the random queries that raise (difftest/python_oracle.h,
// test/oracle/oracle.py difftest): a short fixed-seed run in which every
// raised error it evaluates agrees (code, operator position, relation,
// tuple); and an oracle that is off by one tuple is caught as a mismatch,
// shrunk and given a reproducer, as the other oracles' are.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "../engine/support.h"
#include "difftest/check.h"
#include "difftest/difftest.h"
#include "difftest/python_oracle.h"
#include "frontend/frontend.h"

namespace quelkit::test {
namespace {

using namespace quelkit::difftest;

// 600 queries of seed 67 checked between back ends and against the Python
// oracle alone (script "": the tree's own).
RunOptions short_run(const std::string& script = "") {
  RunOptions o;
  o.seed = 67;
  o.count = 600;
  o.sqlite = o.storage = false;
  o.python_script = script;
  return o;
}

TEST(DifftestPython, RaisedErrorsAgreeWithThePythonOracle) {
  register_all_backends();
  std::ostringstream log;
  Checker ch("interp:switch,threaded:goto", log);
  const RunOptions o = short_run();
  Summary s = ch.run(o);
  std::ostringstream sum;
  print_summary(sum, s, ch.runner_labels(), o.seed);
  std::cout << sum.str();
  for (const auto& m : s.mismatches) ADD_FAILURE() << m.reproducer;
  ASSERT_EQ(s.python_missing, "") << log.str();
  EXPECT_EQ(s.queries, o.count);
  // Most raising queries are one-variable retrieves the oracle evaluates.
  EXPECT_GT(s.python_checked, s.failed / 4) << sum.str();
  EXPECT_EQ(s.python_agreed, s.python_checked) << sum.str();
  EXPECT_NE(sum.str().find("of those raised, checked by the Python oracle: " + std::to_string(s.python_checked) +
                           ", agreed: " + std::to_string(s.python_agreed)),
            std::string::npos)
      << sum.str();
}

// A wrong oracle (every error one tuple later) must fail the run: the
// check compares the tuple, and the mismatch comes with its reproducer.
TEST(DifftestPython, AnOracleOffByOneTupleIsAMismatch) {
  register_all_backends();
  char dir[] = "/tmp/quelkit-pyoracle-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string script = std::string(dir) + "/wrong.py";
  {
    std::ofstream f(script);
    f << "import sys\nsys.path.insert(0, '" << QUELKIT_SOURCE_DIR << "/test/oracle')\n"
      << "import oracle\nright = oracle.first_error\n"
      << "def wrong(q, rels):\n    e = right(q, rels)\n    if e: e['tuple'] += 1\n    return e\n"
      << "oracle.first_error = wrong\noracle.difftest_server(sys.stdin, sys.stdout)\n";
  }
  std::ostringstream log;
  Checker ch("interp:switch", log);
  Summary s = ch.run(short_run(script));
  ASSERT_EQ(s.python_missing, "") << log.str();
  ASSERT_EQ(s.mismatches.size(), 1u) << log.str();
  const Mismatch& m = s.mismatches[0];
  EXPECT_EQ(m.kind, Mismatch::Python);
  EXPECT_EQ(m.b, "python oracle");
  EXPECT_NE(m.detail.find("vs the Python oracle's"), std::string::npos) << m.detail;
  EXPECT_NE(m.reproducer.find("the Python oracle disagrees"), std::string::npos) << m.reproducer;
  EXPECT_LE(m.query.operators(), m.original_operators);
  unlink(script.c_str());
  rmdir(dir);
}

// One query by hand: division by zero on the fifth tuple of parts (pnum 5),
// at the `/`, as quelkit raises it.
TEST(DifftestPython, FindsTheFirstFailingTupleAndOperator) {
  register_all_backends();
  std::ostringstream log;
  Checker ch("interp:switch", log);
  std::string err;
  std::unique_ptr<PythonOracle> py = PythonOracle::open(ch.session().catalog(), PythonOracle::default_script(), &err);
  ASSERT_NE(py, nullptr) << err;
  ASSERT_TRUE(ch.session().run(std::make_shared<Source>("r.quel", "range of p is parts")));
  auto src = std::make_shared<Source>("q.quel", "retrieve (x = p.pnum / (p.pnum - 5))");
  auto stmts = frontend::parse(src);
  frontend::BoundQuery q = frontend::bind(*stmts[0], ch.session().ranges(), ch.session().catalog(), src);
  PythonOracle::Answer a;
  ASSERT_TRUE(py->ask(q, &a, &err)) << err;
  ASSERT_TRUE(a.evaluated) << a.skipped;
  ASSERT_TRUE(a.raised);
  EXPECT_EQ(a.error.code, 2);  // division by zero
  EXPECT_EQ(a.error.relation, "parts");
  harness::Result r = ch.session().evaluate(q, *ch.session().runners()[0], src, false);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(a.error.tuple, r.error.tuple);
  EXPECT_EQ(a.error.pos, r.error.pos);
  EXPECT_EQ(a.error.code, r.error.code);
}

}  // namespace
}  // namespace quelkit::test
