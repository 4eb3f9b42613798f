// Query modification on every back end, over the demo database: the view,
// integrity, permit and destroy manual pages' examples (doc/quel/*.nr of
// University INGRES 6.3; their employee's sal and mgr are the demo's salary
// and manager) with the answers worked out by hand from the demo's tuples,
// each view's answer also checked against the query written out by hand,
// and the errors the qrymod error page lists, at their places.
#include <gtest/gtest.h>

#include "ingres_demo.h"
#include "support.h"

namespace quelkit::test {
namespace {

class QueryMod : public ::testing::TestWithParam<std::string> {
 protected:
  // The demo database, its owner "tester", on a Tuesday at 10:00 on ttyd.
  void SetUp() override {
    k.set_options([this](harness::SessionOptions& o) {
      o.user = "tester";
      o.terminal = "ttyd";
      o.clock = [this] { return now; };
    });
    auto r = k.run(kIngresDemo, "demo.quel");
    ASSERT_TRUE(r.ok) << r.err;
  }
  std::string csv(const std::string& text) {
    auto r = k.run(text);
    EXPECT_TRUE(r.ok) << text << "\n" << r.err;
    return r.out;
  }
  // The error of a statement that must fail.
  std::string error(const std::string& text) {
    auto r = k.run(text);
    EXPECT_FALSE(r.ok) << text;
    return r.err;
  }
  harness::WallClock now{2, 10 * 60};
  Kit k{GetParam()};
};

constexpr const char* kRich = "name,salary\n\"Bullock, J.D.\",27000\n\"Zugnoni, Arthur A.\",19868\n"
                              "\"Brunet, Paul C.\",17674\n\"Iwano, Masahiro\",15641\n\"Ross, Stanley\",15908\n";

// The view manual page's example, and retrieval in every form from views.
TEST_P(QueryMod, RetrieveFromViews) {
  auto r = k.run("range of e is employee\nrange of d is dept\n"
                 "define view empdpt (ename = e.name, e.salary, dname = d.name)\n\twhere e.manager = d.manager");
  ASSERT_TRUE(r.ok) << r.err;
  // The view's query is the join written out by hand, row for row.
  const std::string by_hand =
      csv("retrieve (ename = e.name, e.salary, dname = d.name) where e.manager = d.manager and e.salary > 12000");
  EXPECT_EQ(csv("range of v is empdpt\nretrieve (v.ename, v.salary, v.dname) where v.salary > 12000"), by_hand);
  EXPECT_EQ(csv("retrieve (v.all) where v.salary > 12000"), by_hand);
  // Thompson (manager 199) manages no department: Jones, Thomas and the others of 199 match none.
  EXPECT_EQ(csv("retrieve (v.dname) where v.ename = \"Raveen*\""), "dname\nFurniture\nMajor Appliances\n");
  // A view's own name ranges over it; its domains in expressions, aggregates and sort.
  EXPECT_EQ(csv("define view rich (e.name, e.salary) where e.salary > 15000\nretrieve (rich.name, rich.salary)"), kRich);
  EXPECT_EQ(csv("retrieve (n = count(rich.name), top = max(rich.salary))"), "n,top\n5,27000\n");
  EXPECT_EQ(csv("range of x is rich\nretrieve (x.name, k = x.salary / 1000) where x.salary < 18000 sort by k:d, name"),
            "name,k\n\"Brunet, Paul C.\",17\n\"Iwano, Masahiro\",15\n\"Ross, Stanley\",15\n");
  // A view over a view, and a view of an aggregate.
  EXPECT_EQ(csv("define view richer (x.name) where x.salary > 19000\nretrieve (richer.name)"),
            "name\n\"Bullock, J.D.\"\n\"Zugnoni, Arthur A.\"\n");
  EXPECT_EQ(csv("define view staff (m = e.manager, n = count(e.number by e.manager))\n"
                "retrieve unique (staff.m, staff.n) where staff.n > 2"),
            "m,n\n26,3\n129,3\n199,9\n");
  // help view shows the definition; help lists the views.
  r = k.run("help view empdpt");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("View:                empdpt\nOver:                employee, dept\n"
                       "Domains:             ename salary dname\nDefinition:\n"
                       "  define view empdpt (ename = e.name, e.salary, dname = d.name)\n\twhere e.manager = d.manager"),
            std::string::npos)
      << r.err;
  r = k.run("help");
  EXPECT_NE(r.err.find("views:\n  empdpt\n  rich\n  richer\n  staff\n"), std::string::npos) << r.err;
  EXPECT_NE(error("help view parts").find("1:11: error: 'parts' is not a view"), std::string::npos);
  EXPECT_NE(error("help permit rich").find("1:13: error: 'rich' is a view"), std::string::npos);
  // Names and types are checked when the view is defined; nothing is added.
  EXPECT_NE(error("define view bad (e.name, e.nosuch)").find("1:26: error:"), std::string::npos);
  EXPECT_NE(error("define view bad (e.name, n = e.name + 1)").find("1:37: error: '+' needs numbers"), std::string::npos);
  EXPECT_NE(error("define view rich (e.name)").find("1:13: error: relation 'rich' already exists"), std::string::npos);
  EXPECT_NE(error("define view bad2 (a = e.name, a = e.salary)").find("1:31: error: domain a given twice"),
            std::string::npos);
  EXPECT_NE(error("retrieve (bad.name)").find("error"), std::string::npos);
  EXPECT_NE(error("retrieve (rich.number)").find("1:11: error: view rich has no domain 'number'"), std::string::npos);
}

// Updates through a view of one relation, and the qrymod page's refusals.
TEST_P(QueryMod, UpdatesThroughViews) {
  auto r = k.run("range of e is employee\ndefine view rich (e.name, e.salary) where e.salary > 15000\n"
                 "define view names (e.name, id = e.number)\nrange of d is dept\n"
                 "define view empdpt (ename = e.name, dname = d.name) where e.manager = d.manager\n"
                 "define view pay (e.name, twice = e.salary * 2)");
  ASSERT_TRUE(r.ok) << r.err;
  r = k.run("replace rich (name = \"Bullock, John\") where rich.salary = 27000");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("(1 row replaced"), std::string::npos) << r.err;
  EXPECT_EQ(csv("retrieve (e.name) where e.number = 199"), "name\n\"Bullock, John\"\n");
  // A domain in the view's qualification cannot be updated: the tuple could leave the view.
  EXPECT_NE(error("replace rich (salary = 1)").find("1:15: error: replace on view rich: domain salary occurs in the "
                                                     "qualification of the view"),
            std::string::npos);
  EXPECT_NE(error("append to rich (name = \"X\", salary = 20000)").find("1:29: error: append on view rich"),
            std::string::npos);
  EXPECT_NE(error("delete empdpt").find("1:8: error: delete on view empdpt: the update would change more than one relation"),
            std::string::npos);
  EXPECT_NE(error("replace pay (twice = 4)").find("1:14: error: replace on view pay: domain twice is not a simple attribute"),
            std::string::npos);
  // Delete through the view deletes only what the view shows.
  r = k.run("delete rich where rich.name = \"Iwano*\"\ndelete rich");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("(1 row deleted"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(4 rows deleted"), std::string::npos) << r.err;
  EXPECT_EQ(csv("retrieve (n = count(e.number))"), "n\n20\n");
  EXPECT_EQ(csv("retrieve (rich.name)"), "name\n");
  // Append through a view: the domains it does not show are 0 or blank.
  r = k.run("append to names (name = \"New, Person\", id = 7)\nretrieve (e.number, e.salary, e.manager) where e.name = \"New*\"");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "number,salary,manager\n7,0,0\n");
}

// destroy of views, and of a relation a view is over (INGRES's rule: the view stays).
TEST_P(QueryMod, DestroyViews) {
  auto r = k.run("range of e is employee\ndefine view rich (e.name) where e.salary > 15000\n"
                 "range of s is store\ndefine view cities (s.city)");
  ASSERT_TRUE(r.ok) << r.err;
  r = k.run("destroy rich, cities\nhelp");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.err.find("views:"), std::string::npos) << r.err;
  EXPECT_NE(error("retrieve (rich.name)").find("error"), std::string::npos);
  EXPECT_NE(error("destroy rich").find("1:9: error: there is no relation 'rich'"), std::string::npos);
  r = k.run("define view rich (e.name) where e.salary > 15000\ndestroy employee");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(error("retrieve (rich.name)").find("employee"), std::string::npos);
  // A relation of the name again: the view reads it.
  r = k.run("create employee (name is c10, salary is i4)\nappend to employee (name = \"A\", salary = 20000)\n"
            "retrieve (rich.name)");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "name\nA\n");
}

// The integrity manual page's example, and its rules.
TEST_P(QueryMod, IntegrityConstraints) {
  auto r = k.run("range of e is employee\ndefine integrity on e is e.salary > 0");
  ASSERT_TRUE(r.ok) << r.err;
  // Bad updates are silently not performed.
  r = k.run("append to employee (number = 1, name = \"Zero\", salary = 0)");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("(0 rows appended"), std::string::npos) << r.err;
  r = k.run("append to employee (number = 2, name = \"One\", salary = 1)");
  EXPECT_NE(r.err.find("(1 row appended"), std::string::npos) << r.err;
  r = k.run("append to employee (number = 3, name = \"Nothing\")");  // salary 0: refused
  EXPECT_NE(r.err.find("(0 rows appended"), std::string::npos) << r.err;
  r = k.run("replace e (salary = e.salary - 10000) where e.name = \"Smith, Paul\"");  // 6000 to -4000
  EXPECT_NE(r.err.find("(0 rows replaced"), std::string::npos) << r.err;
  r = k.run("replace e (salary = e.salary - 7000) where e.salary < 12000");  // those above 7000 only
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("(11 rows replaced"), std::string::npos) << r.err;
  EXPECT_EQ(csv("retrieve (n = count(e.number where e.salary <= 0))"), "n\n0\n");
  // A constraint the relation does not satisfy is refused, with the count.
  EXPECT_NE(error("define integrity on e is e.salary > 5000")
                .find("1:8: error: integrity on employee: the constraint does not hold initially (13 tuples fail it)"),
            std::string::npos);
  r = k.run("range of d is dept\n");
  EXPECT_NE(error("define integrity on e is e.manager = d.manager").find("1:38: error: integrity on employee: its "
                                                                          "qualification names e alone, not d"),
            std::string::npos);
  EXPECT_NE(error("define integrity on e is e.salary < max(e.salary) + 1").find("cannot hold aggregates"),
            std::string::npos);
  r = k.run("define integrity on e is e.number != 0\ndefine integrity on employee is employee.salary < 30000\n"
            "help integrity employee");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("integrity constraints on employee:\n  0: define integrity on e is e.salary > 0\n"
                       "  1: define integrity on e is e.number != 0\n"
                       "  2: define integrity on employee is employee.salary < 30000\n"),
            std::string::npos)
      << r.err;
  r = k.run("replace e (salary = 31000) where e.number = 199");
  EXPECT_NE(r.err.find("(0 rows replaced"), std::string::npos) << r.err;
  EXPECT_NE(error("destroy integrity employee 1, 7").find("1:31: error: employee has no integrity constraint 7"),
            std::string::npos);
  EXPECT_NE(error("destroy integrity employee").find("(expected the numbers help integrity lists, or 'all')"),
            std::string::npos);
  r = k.run("destroy integrity employee 0, 2\nhelp integrity employee");
  EXPECT_NE(r.err.find("integrity constraints on employee:\n  1: define integrity on e is e.number != 0\n"),
            std::string::npos)
      << r.err;
  r = k.run("append to employee (number = 5, name = \"Zero\", salary = 0)\ndestroy integrity employee all\n"
            "append to employee (number = 0, name = \"Zero\", salary = 0)\nhelp integrity employee");
  EXPECT_NE(r.err.find("(1 row appended"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("employee: no integrity constraints"), std::string::npos) << r.err;
  // Through a view, the relation's constraints hold.
  EXPECT_NE(error("define integrity on e is e.salary > 0").find("(2 tuples fail it)"), std::string::npos);
  r = k.run("delete e where e.salary <= 0\ndefine integrity on e is e.salary > 0\ndefine view pay (e.name, e.salary)\n"
            "replace pay (salary = 0) where pay.name = \"Jones, Tim\"");
  EXPECT_NE(r.err.find("(0 rows replaced"), std::string::npos) << r.err;
}

// The permit manual page's example: marc, on ttyd, in office hours, on weekdays.
TEST_P(QueryMod, PermitsByUserTerminalTimeAndDay) {
  auto r = k.run("range of e is employee\n"
                 "define permit retrieve of e (name, salary) to marc\n  at ttyd from 8:00 to 17:00\n  on Mon to Fri\n"
                 "  where e.manager = 26");
  ASSERT_TRUE(r.ok) << r.err;
  const std::string q = "retrieve (e.name, e.salary)";
  const std::string all = csv(q);  // the owner: no permit restricts him
  EXPECT_NE(all.find("Jones, Tim"), std::string::npos);
  k.session().set_user("marc");
  const std::string marcs =
      "name,salary\n\"Schmidt, Herman\",11204\n\"Wallace, Maggie J.\",7880\n\"Raveen, Lemont\",11985\n";
  EXPECT_EQ(csv(q), marcs);
  EXPECT_EQ(csv("retrieve (n = count(e.name))"), "n\n3\n");
  // A domain the permit does not give, another time, day, terminal or user.
  EXPECT_NE(error("retrieve (e.number)").find("1:11: error: retrieve on relation employee: protection violation"),
            std::string::npos);
  now = {2, 17 * 60 + 1};
  EXPECT_NE(error(q).find("protection violation"), std::string::npos);
  now = {6, 10 * 60};  // saturday
  EXPECT_NE(error(q).find("protection violation (no permit of employee gives it to marc at ttyd on sat at 10:00)"),
            std::string::npos);
  now = {5, 8 * 60};  // friday 8:00
  EXPECT_EQ(csv(q), marcs);
  EXPECT_NE(error("replace e (salary = 0)").find("replace on relation employee: protection violation"),
            std::string::npos);
  EXPECT_NE(error("range of s is store\nretrieve (s.city)").find("2:11: error: retrieve on relation store: protection violation"),
            std::string::npos);
  // Only the owner defines or destroys permits.
  EXPECT_NE(error("define permit all on e to marc").find("1:22: error: permit on employee: the relation is owned by tester"),
            std::string::npos);
  EXPECT_NE(error("define view mine (e.name)").find("1:13: error: view mine: its relations are owned by tester, not marc"),
            std::string::npos);
  k.session().set_user("bob");
  EXPECT_NE(error(q).find("protection violation"), std::string::npos);
  // Separate permits are ORed: a second for all users at tty4.
  k.session().set_user("tester");
  r = k.run("define permit retrieve, replace on e to all at tty4 where e.salary > 15000\nhelp permit employee");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("permits on employee:\n  0: define permit retrieve of e (name, salary) to marc\n"
                       "  at ttyd from 8:00 to 17:00\n  on Mon to Fri\n  where e.manager = 26\n"
                       "  1: define permit retrieve, replace on e to all at tty4 where e.salary > 15000\n"),
            std::string::npos)
      << r.err;
  k.session().set_user("bob");  // at ttyd: the tty4 permit does not apply to him
  EXPECT_NE(error(q).find("protection violation"), std::string::npos);
  k.session().set_user("marc");  // the first permit still gives marc his rows, and only those
  EXPECT_EQ(csv(q), marcs);
  EXPECT_NE(error("replace e (salary = 1)").find("protection violation"), std::string::npos);
  // Destroyed, the permits give nothing.
  k.session().set_user("tester");
  r = k.run("destroy permit employee 0\nhelp permit employee");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.err.find("  0: "), std::string::npos) << r.err;
  k.session().set_user("marc");
  EXPECT_NE(error(q).find("protection violation"), std::string::npos);
  k.session().set_user("tester");
  r = k.run("destroy permit employee all\ndefine permit all on e to all");
  ASSERT_TRUE(r.ok) << r.err;
  k.session().set_user("marc");
  EXPECT_EQ(csv(q), all);  // all to all, unqualified: every tuple
  EXPECT_NE(error("define permit retrieve of e to marc on Mon to Fry").find("1:47: error: bad day of the week 'fry'"),
            std::string::npos);
}

// Definitions inside a transaction are undone with it: a define and a
// destroy, by abort and by a failing statement; a destroyed relation that
// comes back has its constraint again.
TEST_P(QueryMod, TransactionsUndoDefinitions) {
  auto r = k.run("range of e is employee\ndefine integrity on e is e.salary > 0\n"
                 "begin\ndefine integrity on e is e.number != 0\n"
                 "define view rich (e.name) where e.salary > 15000\nabort\nhelp integrity employee");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("integrity constraints on employee:\n  0: define integrity on e is e.salary > 0\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("e.number != 0\n"), std::string::npos) << r.err;
  EXPECT_NE(error("retrieve (rich.name)").find("rich"), std::string::npos);
  // A destroy undone by an error later in the transaction: relation and constraint come back.
  r = k.run("begin\ndestroy employee\nretrieve (x = 1 / 0)\nend");
  EXPECT_FALSE(r.ok);
  r = k.run("append to employee (number = 1, name = \"Zero\", salary = 0)");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("(0 rows appended"), std::string::npos) << r.err;
  // What end commits stays.
  r = k.run("begin\ndestroy integrity employee all\nend\n"
            "append to employee (number = 1, name = \"Zero\", salary = 0)");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("(1 row appended"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, QueryMod, ::testing::ValuesIn(all_backend_modes()), backend_test_name);

}  // namespace
}  // namespace quelkit::test
