// University INGRES's own examples, run as they stand on every back end:
// the tutorial's (Epstein, ERL M77-25, doc/other/tutorial.nr) queries over
// the demo database with the rows it prints, and the manual pages'
// (doc/quel/*.nr) modify, help, save and retrieve into examples; and the
// INGRES statements around them: `is` in create and copy, the system
// catalogs, usercode. docs/DESIGN.md (Language) lists what is covered.
#include <gtest/gtest.h>

#include <cstdio>
#include <unistd.h>

#include "ingres_demo.h"
#include "support.h"

namespace quelkit::test {
namespace {

class IngresManual : public ::testing::TestWithParam<std::string> {
 protected:
  // A session holding the demo database, its user "tester".
  void SetUp() override {
    k.set_options([](harness::SessionOptions& o) { o.user = "tester"; });
    auto r = k.run(kIngresDemo, "demo.quel");
    ASSERT_TRUE(r.ok) << r.err;
  }
  // The CSV of the text's last result.
  std::string csv(const std::string& text) {
    auto r = k.run(text);
    EXPECT_TRUE(r.ok) << r.err;
    return r.out;
  }
  Kit k{GetParam()};
};

// The tutorial's printed tables, as CSV, in the order it printed them.
TEST_P(IngresManual, TutorialRetrievesOverParts) {
  EXPECT_EQ(csv("print parts"),
            "pnum,pname,color,weight,qoh\n1,central processor,pink,10,1\n2,memory,gray,20,32\n"
            "3,disk drive,black,685,2\n4,tape drive,black,450,4\n5,tapes,gray,1,250\n6,line printer,yellow,578,3\n"
            "7,l-p paper,white,15,95\n8,terminals,blue,19,15\n13,paper tape reader,black,107,0\n"
            "14,paper tape punch,black,147,0\n9,terminal paper,white,2,350\n10,byte-soap,clear,0,143\n"
            "11,card reader,gray,327,0\n12,card punch,gray,427,0\n");
  k.run("range of p is parts");
  EXPECT_EQ(csv("retrieve (p.pname, p.color) where p.color = \"gray\""),
            "pname,color\nmemory,gray\ntapes,gray\ncard reader,gray\ncard punch,gray\n");
  EXPECT_EQ(csv("retrieve (p.pname, p.color)\nwhere p.color = \"gray\"\nor p.color = \"pink\""),
            "pname,color\ncentral processor,pink\nmemory,gray\ntapes,gray\ncard reader,gray\ncard punch,gray\n");
  EXPECT_EQ(csv("retrieve (p.pname, p.pnum, tot=p.qoh * p.weight)"),
            "pname,pnum,tot\ncentral processor,1,10\nmemory,2,640\ndisk drive,3,1370\ntape drive,4,1800\n"
            "tapes,5,250\nline printer,6,1734\nl-p paper,7,1425\nterminals,8,285\npaper tape reader,13,0\n"
            "paper tape punch,14,0\nterminal paper,9,700\nbyte-soap,10,0\ncard reader,11,0\ncard punch,12,0\n");
  EXPECT_EQ(csv("retrieve (p.pname, p.pnum, tot=p.qoh * p.weight)\nwhere p.pnum = 2 or p.pnum = 10"),
            "pname,pnum,tot\nmemory,2,640\nbyte-soap,10,0\n");
  EXPECT_EQ(csv("retrieve (p.pname, p.pnum, tot=p.qoh * p.weight)\nwhere p.pnum > 2 and p.pnum <= 10"),
            "pname,pnum,tot\ndisk drive,3,1370\ntape drive,4,1800\ntapes,5,250\nline printer,6,1734\n"
            "l-p paper,7,1425\nterminals,8,285\nterminal paper,9,700\nbyte-soap,10,0\n");
  EXPECT_EQ(csv("retrieve (p.pname,p.pnum,tot = p.qoh * p.weight)\nwhere p.pnum > 5 and p.pnum <= 10"),
            "pname,pnum,tot\nline printer,6,1734\nl-p paper,7,1425\nterminals,8,285\nterminal paper,9,700\n"
            "byte-soap,10,0\n");
}

TEST_P(IngresManual, TutorialPatternsOverEmployee) {
  k.run("range of e is employee");
  EXPECT_EQ(csv("retrieve (e.name,e.salary)\nwhere e.name = \"Ross, Stan\""), "name,salary\n");
  EXPECT_EQ(csv("retrieve (e.name,e.salary)\nwhere e.name = \"Ross, S*\""),
            "name,salary\n\"Ross, Stanley\",15908\n\"Ross, Stuart\",12067\n");
  EXPECT_EQ(csv("retrieve (e.name,e.salary)\nwhere e.name = \"[B-F]*\""),
            "name,salary\n\"Evans, Michael\",5000\n\"Edwards, Peter\",9000\n\"Collins, Joanne\",7000\n"
            "\"Bullock, J.D.\",27000\n\"Bailey, Chas M.\",8377\n\"Choy, Wanda\",11160\n\"Ferro, Tony\",13621\n"
            "\"Brunet, Paul C.\",17674\n");
  // "INGRES ignores blanks in any character comparison whether using pattern
  // matching characters or not": the tutorial's examples, with what it printed.
  EXPECT_EQ(csv("retrieve (e.name,e.salary)\nwhere e.name = \"*,Paul*\""),
            "name,salary\n\"Smith, Paul\",6000\n\"Brunet, Paul C.\",17674\n");
  EXPECT_EQ(csv("retrieve (e.name,e.salary)\nwhere e.name = \"*,Paul\""), "name,salary\n\"Smith, Paul\",6000\n");
  for (const char* same : {"Ross,Stanley", "Ross,   Stanley   ", "R o s s,Stanley"})
    EXPECT_EQ(csv(std::string("retrieve (e.name,e.salary)\nwhere e.name = \"") + same + "\""),
              "name,salary\n\"Ross, Stanley\",15908\n")
        << same;
  // The order is the blank-free one too: "Ross, S" sorts before "Ross,T"
  // (its blank ignored), as INGRES's scompare orders them.
  EXPECT_EQ(csv("retrieve (e.name) where e.name > \"Ross,S\" and e.name < \"Ross,T\""),
            "name\n\"Ross, Stanley\"\n\"Ross, Stuart\"\n");
}

// quel.nr 16.1 and 16.2: a backslash makes a pattern character ordinary, in
// a target list too ("\\*\\*\\* ingres \\*\\*\\*" assigns "*** ingres ***"),
// and concat trims the first operand's trailing blanks, never to nothing.
TEST_P(IngresManual, EscapesAndConcat) {
  k.run("create book (title = c24)\nappend to book (title = \"\\*\\*\\* ingres \\*\\*\\*\")");
  EXPECT_EQ(csv("print book"), "title\n*** ingres ***\n");
  k.run("range of b is book");
  EXPECT_EQ(csv("retrieve (b.title) where b.title = \"\\*\\*\\* ingres \\*\\*\\*\""), "title\n*** ingres ***\n");
  EXPECT_EQ(csv("retrieve (b.title) where b.title = \"\\**\""), "title\n*** ingres ***\n");  // a star, then anything
  EXPECT_EQ(csv("retrieve (b.title) where b.title = \"\\*ingres*\""), "title\n");
  k.run("range of e is employee");
  // The manual's own example: name = concat(concat(x.lastname, ","), x.firstname).
  EXPECT_EQ(csv("retrieve (n = concat(concat(\"Ross   \", \",\"), \"Stanley\"))"), "n\n\"Ross,Stanley\"\n");
  EXPECT_EQ(csv("retrieve (e.salary) where e.name = concat(concat(\"Ross   \", \",\"), \"Stanley\")"),
            "salary\n15908\n");
  EXPECT_EQ(csv("retrieve (n = concat(\"   \", \"x\"))"), "n\n x\n");  // never trimmed to 0 length
}

// retrieve's manual page: into stores the result sorted on every domain,
// without duplicate tuples (INGRES modified it to cheapsort).
TEST_P(IngresManual, RetrieveIntoIsSortedWithoutDuplicates) {
  auto r = k.run("range of s is supply\nretrieve into j (s.jnum, s.snum)\nprint j");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("(14 rows into j)"), std::string::npos) << r.err;  // 23 tuples, 9 repeated pairs
  EXPECT_EQ(r.out, "jnum,snum\n1001,20\n1001,241\n1001,440\n1001,475\n1002,20\n1002,62\n1002,475\n1003,5\n"
                   "1003,122\n1004,5\n1004,122\n1005,67\n1005,241\n1006,999\n")
      << r.out;
  // The manual's own example: every domain of those above the average.
  r = k.run("range of e is employee\nretrieve into temp (e.all) where e.salary > avg(e.salary)\n"
            "range of t is temp\nretrieve (t.name) where t.number < 100");
  ASSERT_TRUE(r.ok) << r.err;
  // Sorted on number (10, 11, 26, 37, 55), the first domain.
  EXPECT_EQ(r.out, "name\n\"Ross, Stanley\"\n\"Ross, Stuart\"\n\"Thompson, Bob\"\n\"Raveen, Lemont\"\n\"James, Mary\"\n");
}

// modify's manual page, its examples on the demo relations (emp is employee).
TEST_P(IngresManual, ModifyVariants) {
  auto r = k.run("modify employee to isam\nhelp employee");  // keyed on the first domain
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("Storage structure:   isam on number"), std::string::npos) << r.err;
  r = k.run("modify employee to isam on name where fillfactor = 60\nhelp employee");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("isam on name\nModified to:         isam on name where fillfactor = 60\nFillfactor:          60"),
            std::string::npos)
      << r.err;
  r = k.run("modify supply to chash on snum where fillfactor = 75, minpages = 7, maxpages = 43\nhelp supply");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("Storage structure:   hash on snum\n"
                       "Modified to:         chash on snum where fillfactor = 75, minpages = 7, maxpages = 43 "
                       "(stored uncompressed)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Pages:               7 (7 primary"), std::string::npos) << r.err;
  r = k.run("modify supply to hash on snum where maxpages = 1\nrange of s is supply\n"
            "retrieve (s.quan) where s.snum = 122");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "quan\n144\n48\n144\n");
  EXPECT_EQ(k.session().catalog().find("supply")->nprimary(), 1u);
  // heapsort: sorted on the keys, then every other domain, duplicates removed.
  r = k.run("append to parts (pnum = 5, pname = \"tapes\", color = \"gray\", weight = 1, qoh = 250)\n"
            "modify parts to heapsort on color:descending, pnum\nrange of p is parts\nretrieve (p.pnum, p.color)");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "pnum,color\n6,yellow\n7,white\n9,white\n1,pink\n2,gray\n5,gray\n11,gray\n12,gray\n"
                   "10,clear\n8,blue\n3,black\n4,black\n13,black\n14,black\n");
  EXPECT_EQ(k.session().catalog().find("parts")->ntuples(), 14u);  // the appended twin is gone
  r = k.run("modify employee to heapsort on manager, salary:descending\nrange of e is employee\n"
            "retrieve (e.manager, e.salary) where e.manager < 14");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "manager,salary\n0,27000\n0,12067\n10,7000\n13,8779\n");
  r = k.run("modify parts to cheapsort\nhelp parts");  // no on: every domain in order
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("Modified to:         cheapsort (sorted, duplicates removed"), std::string::npos) << r.err;
  EXPECT_EQ(csv("retrieve (p.pnum) where p.pnum < 4"), "pnum\n1\n2\n3\n");
  r = k.run("modify parts to truncated\nhelp parts");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("Storage structure:   heap\n"), std::string::npos) << r.err;
  EXPECT_EQ(k.session().catalog().find("parts")->ntuples(), 0u);
  // Inside a transaction an abort puts the tuples back.
  r = k.run("begin\nmodify supply to truncated\nabort");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.session().catalog().find("supply")->ntuples(), 23u);
}

TEST_P(IngresManual, HelpSaveAndUsercode) {
  auto r = k.run("help employee, parts, \"help\", supply");
  ASSERT_TRUE(r.ok) << r.err;
  const size_t e = r.err.find("Relation:            employee"), p = r.err.find("Relation:            parts"),
               h = r.err.find("help: the relations."), s = r.err.find("Relation:            supply");
  EXPECT_TRUE(e < p && p < h && h < s && s != std::string::npos) << r.err;
  r = k.run("help quel");
  EXPECT_NE(r.err.find("Sections: quel monitor"), std::string::npos) << r.err;
  r = k.run("help help");
  EXPECT_NE(r.err.find("help: the relations."), std::string::npos) << r.err;
  r = k.run("help permit parts, employee");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("employee: no permits"), std::string::npos) << r.err;
  r = k.run("help view parts");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("t.quel:1:11: error: 'parts' is not a view"), std::string::npos) << r.err;
  r = k.run("help parts, nosuch");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("1:13: error: there is no relation 'nosuch'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Relation:"), std::string::npos) << r.err;  // checked before anything is printed

  r = k.run("save employee until feb 28 1987\nhelp employee");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.err.find("Saved until:         1987-02-28"), std::string::npos) << r.err;
  r = k.run("save employee until 2 30 1987");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("1:23: error: there is no day 30 in february 1987"), std::string::npos) << r.err;
  r = k.run("save employee until smarch 1 1987");
  EXPECT_NE(r.err.find("1:21: error: expected a month"), std::string::npos) << r.err;

  EXPECT_EQ(csv("retrieve (u = usercode)"), "u\ntester\n");
  EXPECT_EQ(csv("range of d is dept\nretrieve (d.number) where usercode = \"tester\" and d.number < 14 sort by number"),
            "number\n1\n10\n");
  EXPECT_EQ(csv("retrieve (d.number) where usercode != \"tester\""), "number\n");
}

// The system catalogs, read-only, as the session's relations are.
TEST_P(IngresManual, SystemCatalogsAsRelations) {
  auto r = k.run("range of r is relation\nretrieve (r.relid, r.reltups, r.relatts, r.relwid, r.relspec, r.relowner)\n"
                 "where r.relid = \"supply\" or r.relid = \"relation\"");
  ASSERT_TRUE(r.ok) << r.err;
  // 8 demo relations and the two catalogs.
  EXPECT_EQ(r.out, "relid,reltups,relatts,relwid,relspec,relowner\nrelation,10,9,36,5,tester\nsupply,23,5,16,5,tester\n");
  r = k.run("modify supply to isam on pnum\nsave supply until 1 2 1970\n"
            "retrieve (r.relspec, r.relsave) where r.relid = \"supply\"");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "relspec,relsave\n11,86400\n");
  r = k.run("range of a is attribute\n"
            "retrieve (a.attname, a.attid, a.attoff, a.attfrmt, a.attfrml, a.attxtra) where a.attrelid = \"supply\"");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "attname,attid,attoff,attfrmt,attfrml,attxtra\nsnum,1,0,30,2,0\npnum,2,2,30,2,1\n"
                   "jnum,3,4,30,2,0\nshipdate,4,6,32,8,0\nquan,5,14,30,2,0\n");
  // A relation made now is there at the next statement; a count joins them.
  r = k.run("create a_much_longer_name_than_twelve (x is f8)\n"
            "retrieve (r.relid, n = count(a.attid by a.attrelid)) where a.attrelid = r.relid and r.relid = \"a_much*\"");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "relid,n\na_much_longer_name_than_twelve,1\n");
  for (const char* bad : {"append to relation (relid = \"x\")", "delete r", "replace a (attid = 0)",
                          "destroy attribute", "modify relation to heap", "create relation (x = i2)"}) {
    r = k.run(bad);
    EXPECT_FALSE(r.ok) << bad;
    EXPECT_NE(r.err.find("is a system catalog"), std::string::npos) << bad << "\n" << r.err;
  }
  EXPECT_EQ(k.session().catalog().find("relation"), nullptr);  // built for the statement, dropped after
}

// The demo script's `is`; its error names both spellings.
TEST_P(IngresManual, IsSpellsEqualsInCreateAndCopy) {
  const std::string file = ::testing::TempDir() + "/quelkit_is_" + std::to_string(::getpid()) + ".csv";
  auto r = k.run("copy store (number is i2, city is c15, state is c6) into \"" + file + "\"\n"
                 "create store2 (number is i2, city = c15, state is c6)\n"
                 "copy store2 (number is i2, city is c15, state is c6) from \"" + file + "\"\nprint store2");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "number,city,state\n5,San Francisco,Calif\n7,Oakland,Calif\n8,El Cerrito,Calif\n");
  std::remove(file.c_str());
  r = k.run("create item2 (number is i2, name c20)");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("1:34: error: expected '=' or 'is' but found 'c20'"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, IngresManual, ::testing::ValuesIn(all_backend_modes()), backend_test_name);

}  // namespace
}  // namespace quelkit::test
