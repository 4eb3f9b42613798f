// POSTQUEL's transactions (docs/DESIGN.md, "Transactions"), on every back
// end and mode: `end` keeps the changes made since `begin`; `abort`, a
// failing statement, a cancel and the end of the input undo all of them
// (appends, replaces, deletes, create, destroy, modify, retrieve into, copy);
// after a failure the statements up to the transaction's end or abort are
// skipped; a nested begin and a stray end or abort are positioned errors;
// and plans survive an abort of tuple changes.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "storage/budget.h"
#include "test/engine/shell.h"
#include "test/engine/support.h"

namespace quelkit::test {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class Transactions : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    kit_ = std::make_unique<Kit>(GetParam());
    kit_->add_parts(30);
    ok("range of p is parts\n"
       "create e (name = c10, salary = i4)\n"
       "append to e (name = \"ann\", salary = 10)\n"
       "append to e (name = \"bob\", salary = 20)\n"
       "append to e (name = \"cy\", salary = 30)\n"
       "modify e to hash on name");
  }
  RunResult ok(const std::string& text) {
    RunResult r = kit_->run(text);
    EXPECT_TRUE(r.ok) << text << "\n" << r.err;
    return r;
  }
  // What the tests compare before and after: e's tuples, parts' checksum
  // and count, and the relations there are.
  std::string state() {
    std::string s = ok("retrieve (e.name, e.salary) sort by name").out;
    s += ok("retrieve (n = count(p.pnum), q = sum(p.qoh), w = sum(p.weight))").out;
    RunResult h = ok("help");
    return s + h.out + h.err;
  }
  std::unique_ptr<Kit> kit_;
};

TEST_P(Transactions, EndKeepsTheChanges) {
  RunResult r = ok("begin\n"
                   "append to e (name = \"dee\", salary = 40)\n"
                   "replace e (salary = e.salary + 1) where e.name = \"ann\"\n"
                   "delete e where e.name = \"bob\"\n"
                   "end");
  EXPECT_EQ(ok("retrieve (e.name, e.salary) sort by name").out, "name,salary\nann,11\ncy,30\ndee,40\n");
  EXPECT_FALSE(kit_->session().in_transaction());
}

TEST_P(Transactions, AbortUndoesAppendReplaceDelete) {
  const std::string before = state();
  RunResult r = ok("begin\n"
                   "append to e (name = \"dee\", salary = 40)\n"
                   "replace e (salary = e.salary * 2)\n"
                   "replace e (name = \"zed\") where e.name = \"cy\"\n"  // the key changes: the tuple moves
                   "delete e where e.salary > 50\n"
                   "append to parts (pnum = 999, qoh = 5)\n"
                   "delete p where p.pnum < 10\n"
                   "replace p (qoh = p.qoh + 1, weight = 0.5)\n"
                   "retrieve (e.name, e.salary) sort by name\n"
                   "abort");
  EXPECT_EQ(r.out, "name,salary\nann,20\nbob,40\n") << "inside, the changes are seen";
  EXPECT_TRUE(has(r.err, "(transaction aborted: 8 statements undone)")) << r.err;
  EXPECT_EQ(state(), before);
  // Tuple changes leave plans valid: the same shape runs on the cached plan.
  ok("retrieve (e.salary) where e.name = \"ann\"");
  const uint64_t prepares = kit_->last_report().stats.prepares;
  ok("begin replace e (salary = 0) where e.name = \"bob\" abort");
  EXPECT_EQ(ok("retrieve (e.salary) where e.name = \"bob\"").out, "salary\n20\n");
  if (GetParam().rfind("interp:", 0) != 0) {
    EXPECT_EQ(kit_->last_report().stats.prepares, 0u) << prepares;
  }
}

TEST_P(Transactions, AbortUndoesCreateDestroyModifyRetrieveIntoCopy) {
  char path[] = "/tmp/quelkit-txn-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << "name,salary\nfay,50\ngus,60\n";
  const std::string before = state();
  RunResult r = ok(std::string("begin\n"
                               "create t (a = i4)\n"
                               "append to t (a = 1)\n"
                               "retrieve into big (e.name) where e.salary > 10\n"
                               "modify parts to isam on pnum\n"
                               "append to parts (pnum = 1000)\n"
                               "modify e to heap\n"
                               "copy e (name = c10, salary = i4) from \"") +
                   path +
                   "\"\n"
                   "destroy e, e\n"
                   "create e (other = f8)\n"
                   "help\n"
                   "abort");
  std::remove(path);
  EXPECT_TRUE(has(r.err, "  t (heap, 1 tuple)")) << r.err;
  EXPECT_TRUE(has(r.err, "  big (heap, 2 tuples)")) << r.err;
  EXPECT_TRUE(has(r.err, "  parts (isam, 31 tuples)")) << r.err;
  EXPECT_TRUE(has(r.err, "transaction:\n  begun at t.quel:1:1, 9 statements so far")) << r.err;
  EXPECT_EQ(state(), before);
  RunResult h = ok("help e");
  EXPECT_TRUE(has(h.err + h.out, "Storage structure:   hash on name")) << h.out << h.err;
  // The plans over what was modified and destroyed were dropped: the
  // relations answer as they are.
  EXPECT_EQ(ok("retrieve (e.salary) where e.name = \"cy\"").out, "salary\n30\n");
  EXPECT_EQ(ok("retrieve (n = count(p.pnum where p.pnum > 20))").out, "n\n10\n");
}

// A statement that raises on some tuple fails the transaction: its earlier
// statements are undone, the rest up to its end skipped and said to be.
TEST_P(Transactions, AFailingStatementUndoesTheEarlierOnes) {
  const std::string before = state();
  for (const std::string failing : {"replace e (salary = e.salary * 1000000000)",  // i4 overflow on bob
                                    "replace e (salary = 1 / (e.salary - 20))",   // division by zero on bob
                                    "append to e (name = p.pname, salary = 1 / (p.pnum - 3))"}) {
    RunResult r = kit_->run("begin\n"
                            "append to e (name = \"dee\", salary = 40)\n"
                            "delete p where p.pnum > 5\n"
                            "replace e (salary = 1) where e.name = \"ann\"\n" +
                            failing +
                            "\n"
                            "append to e (name = \"eve\", salary = 50)\n"
                            "retrieve (x = 1)\n"
                            "end\n"
                            "retrieve (y = 2)");
    EXPECT_FALSE(r.ok) << failing;
    EXPECT_TRUE(has(r.err, "t.quel:5:")) << r.err;
    EXPECT_TRUE(has(r.err, "(the transaction begun at t.quel:1:1 is aborted: 3 statements undone; nothing runs "
                           "until its end or abort)"))
        << r.err;
    EXPECT_TRUE(has(r.err, "(t.quel:6:1: append skipped: the transaction begun at t.quel:1:1 failed; nothing runs "
                           "until its end or abort)"))
        << r.err;
    EXPECT_TRUE(has(r.err, "(t.quel:7:1: retrieve skipped:")) << r.err;
    EXPECT_TRUE(has(r.err, "(the transaction begun at t.quel:1:1 failed and was undone: its end commits nothing)"))
        << r.err;
    EXPECT_EQ(r.out, "y\n2\n") << "after its end statements run again";
    EXPECT_EQ(state(), before) << failing;
  }
}

TEST_P(Transactions, NestedBeginAndStrayEndOrAbortArePositionedErrors) {
  const std::string before = state();
  RunResult r = kit_->run("begin\nappend to e (name = \"dee\", salary = 40)\n  begin\nend");
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(has(r.err, "t.quel:3:3: error: a transaction is open already (begun at t.quel:1:1): transactions do "
                         "not nest\n    begin\n    ^"))
      << r.err;
  EXPECT_TRUE(has(r.err, "is aborted: 1 statement undone")) << r.err;
  EXPECT_EQ(state(), before);
  r = kit_->run("retrieve (a = 1)\n end");
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(has(r.err, "t.quel:2:2: error: end: no transaction is open (begin starts one)\n   end\n   ^")) << r.err;
  r = kit_->run("abort");
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(has(r.err, "t.quel:1:1: error: abort: no transaction is open (begin starts one)")) << r.err;
}

// A transaction spans the texts run (the monitor's buffers, \g); the end
// of the input inside one aborts it.
TEST_P(Transactions, SpansTextsAndTheInputsEndAbortsIt) {
  const std::string before = state();
  ok("begin");
  ok("append to e (name = \"dee\", salary = 40)");
  ok("delete p");
  EXPECT_TRUE(kit_->session().in_transaction());
  RunResult r = ok("help");
  EXPECT_TRUE(has(r.err, "transaction:\n  begun at t.quel:1:1, 2 statements so far")) << r.err;
  EXPECT_FALSE(kit_->session().end_input());
  EXPECT_FALSE(kit_->session().in_transaction());
  EXPECT_EQ(state(), before);
}

// A Ctrl-C (the cancel flag) inside a transaction undoes it.
TEST_P(Transactions, ACancelUndoesIt) {
  const std::string before = state();
  ok("begin append to e (name = \"dee\", salary = 40)");
  harness::request_cancel();
  RunResult r = kit_->run("replace e (salary = 0)");
  harness::clear_cancel();
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(has(r.err, "error: cancelled")) << r.err;
  EXPECT_TRUE(has(r.err, "is aborted: 1 statement undone")) << r.err;
  r = ok("abort");
  EXPECT_TRUE(has(r.err, "failed and was undone then: abort ends it")) << r.err;
  EXPECT_EQ(state(), before);
}

// TP1's shape (issue 68): keyed replaces and an append between begin and
// end, many times: one plan per statement shape, kept across transactions.
TEST_P(Transactions, ManyShortTransactionsReuseTheirPlans) {
  const size_t from = kit_->session().reports().size();
  for (int i = 0; i < 20; ++i) {
    const std::string who = i % 2 ? "ann" : "cy";
    const std::string n = (i < 10 ? "0" : "") + std::to_string(i);  // names of one length: one append shape
    ok("begin\nretrieve (e.all) where e.name = \"" + who + "\"\nreplace e (salary = e.salary + " +
       std::to_string(i) + ") where e.name = \"" + who + "\"\nappend to e (name = \"h" + n +
       "\", salary = " + std::to_string(i) + ")\n" + (i % 5 == 4 ? "abort" : "end"));
  }
  uint64_t prepares = 0;
  for (size_t i = from; i < kit_->session().reports().size(); ++i)
    prepares += kit_->session().reports()[i].stats.prepares;
  if (GetParam().rfind("interp:", 0) != 0) {
    EXPECT_LE(prepares, 3u);
  }
  // 16 committed (every fifth aborted): ann got 72 of the odd i, cy 72 of the even.
  EXPECT_EQ(ok("retrieve (e.salary) where e.name = \"ann\" or e.name = \"cy\" sort by salary").out,
            "salary\n82\n102\n");
  EXPECT_EQ(ok("retrieve (n = count(e.name))").out, "n\n19\n");
}

INSTANTIATE_TEST_SUITE_P(Backends, Transactions, ::testing::ValuesIn(all_backend_modes()), backend_test_name);

// A syntax error stops its text (docs/DESIGN.md): inside a transaction that
// is an error too, and the statements before it in the text are undone.
TEST(TransactionsSyntax, ASyntaxErrorThatStopsTheTextFailsIt) {
  Kit k("interp:switch");
  ASSERT_TRUE(k.run("create t (a = i4) append to t (a = 1)").ok);
  RunResult r = k.run("begin\nappend to t (a = 2)\nretrieve (x = )\nend");
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(has(r.err, "t.quel:3:15: error:")) << r.err;
  EXPECT_TRUE(has(r.err, "is aborted: 1 statement undone")) << r.err;
  EXPECT_TRUE(k.session().in_transaction()) << "its end was in the text not run";
  r = k.run("retrieve (t.a)");
  EXPECT_TRUE(has(r.err, "retrieve skipped")) << r.err;
  ASSERT_TRUE(k.run("end").ok);
  EXPECT_EQ(k.run("retrieve (t.a)").out, "a\n1\n");
}

// The quelkit command: a script that ends inside a transaction aborts it
// (an error at its begin, exit 1); one that ends it commits.
TEST(TransactionsCli, AScriptEndingInsideATransactionAbortsIt) {
  Out o = sh(kBin + " --format csv -e 'create t (a = i4) begin append to t (a = 1)' -e 'retrieve (t.a)'");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_TRUE(has(o.text, "a\n1\n")) << o.text;
  EXPECT_TRUE(has(o.text, "<-e 1>:1:19: error: the input ended inside this transaction, which is aborted: "
                          "2 statements undone"))
      << o.text;
  o = sh("printf 'create t (a = i4)\\nbegin\\n\\\\g\\nappend to t (a = 1)\\n\\\\g\\nend\\n\\\\g\\nretrieve (t.a)\\n' | " + kBin +
         " --format csv");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_TRUE(has(o.text, "a\n1\n")) << o.text;
  o = sh("printf 'create t (a = i4)\\nbegin\\n\\\\g\\nappend to t (a = 1)\\n\\\\g\\nabort\\n\\\\g\\nretrieve (t.a)\\n' | " +
         kBin + " --format csv");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_TRUE(has(o.text, "(transaction aborted: 1 statement undone)")) << o.text;
  EXPECT_TRUE(has(o.text, "a\n")) << o.text;
  EXPECT_FALSE(has(o.text, "a\n1\n")) << o.text;
}

}  // namespace
}  // namespace quelkit::test
