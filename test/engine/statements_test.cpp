// Every statement kind, end to end through a Session, on every back end; and
// every class of error: reported with its position and a caret, never a
// crash, and the session's relations and ranges survive.
#include <gtest/gtest.h>

#include "support.h"

namespace quelkit::test {
namespace {

class Statements : public ::testing::TestWithParam<std::string> {};

TEST_P(Statements, CreateAppendRetrieveSortUnique) {
  Kit k(GetParam());
  auto r = k.run(R"(
    create emp (name = c10, dept = c4, salary = f4, age = i1)
    append to emp (name = "ann", dept = "toy", salary = 1000.5, age = 30)
    append to emp (name = "bob", dept = "shoe", salary = 900, age = 41)
    append to emp (name = "cy", dept = "toy", salary = 1200, age = 25)
    range of e is emp
    retrieve (e.name, e.salary) where e.dept = "toy" sort by salary:d
  )");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find("name,salary\ncy,1200.0\nann,1000.5\n"), std::string::npos) << r.out;
  r = k.run("retrieve unique (e.dept)");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find("dept\nshoe\ntoy\n"), std::string::npos) << r.out;
}

TEST_P(Statements, RetrieveIntoReplaceDeleteDestroy) {
  Kit k(GetParam());
  k.add_parts(210);
  auto r = k.run(R"(
    range of p is parts
    retrieve into heavy (p.pnum, w = p.weight * 2) where p.weight > 95
    range of h is heavy
    retrieve (n = h.pnum) where h.w < 194
  )");
  ASSERT_TRUE(r.ok) << r.err;
  // Compute the expected set independently from the generator's rows.
  std::string want = "n\n";
  int heavy = 0, below_196 = 0;
  for (const auto& row : harness::parts_rows(210))
    if (row.weight > 95) {
      ++heavy;
      below_196 += row.weight * 2 < 196;
      if (row.weight * 2 < 194) want += std::to_string(row.pnum) + "\n";
    }
  // The replace and delete below must each touch some tuples and leave some.
  ASSERT_GT(below_196, 0);
  ASSERT_LT(below_196, heavy);
  EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
  EXPECT_EQ(k.session().catalog().find("heavy")->ntuples(), uint64_t(heavy));

  r = k.run("replace h (w = 0) where h.w >= 196  retrieve (h.w) where h.w >= 196");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find("w\n"), std::string::npos);
  EXPECT_EQ(k.last_report().stats.rows_out, 0u) << r.out;  // every one replaced

  r = k.run("delete h where h.w = 0");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.session().catalog().find("heavy")->ntuples(), uint64_t(below_196));
  r = k.run("destroy heavy");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.session().catalog().find("heavy"), nullptr);
}

// A target of "" has no width (c0), a format no attribute may have: retrieve
// into stores it as c1, a blank, which compares equal to "" and which copy
// can name. With every target "" the relation still stores a byte a tuple.
TEST_P(Statements, RetrieveIntoStoresAnEmptyStringTargetAsOneBlank) {
  Kit k(GetParam());
  k.add_parts(210);
  auto r = k.run(R"(
    range of p is parts
    retrieve into e (x = p.pnum, s = "", y = p.qoh) where p.pnum < 4
    retrieve into only (s = "") where p.pnum < 3
    range of e is e
    range of o is only
    retrieve (e.x, e.s, e.y) where e.s = "" sort by x
    retrieve (n = count(o.s where o.s = ""))
  )");
  ASSERT_TRUE(r.ok) << r.err;
  const Schema& e = k.session().catalog().find("e")->schema();
  ASSERT_EQ(e.attrs.size(), 3u);
  EXPECT_EQ(e.attrs[1].type, Type::c(1));
  EXPECT_EQ(e.tuple_len, 5u);  // pnum i2, s c1, qoh i2
  const Schema& o = k.session().catalog().find("only")->schema();
  EXPECT_EQ(o.attrs.at(0).type, Type::c(1));
  std::string want = "x,s,y\n";
  for (const auto& row : harness::parts_rows(210))
    if (row.pnum < 4) want += std::to_string(row.pnum) + ",," + std::to_string(row.qoh) + "\n";
  EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
  // retrieve into keeps no duplicate tuples (the manual): the two blank rows are one.
  EXPECT_NE(r.out.find("n\n1\n"), std::string::npos) << r.out;
}

TEST_P(Statements, ReplaceAndDeleteWithTwoVariables) {
  Kit k(GetParam());
  auto r = k.run(R"(
    create a (k = i2, v = i4)
    create b (k = i2)
    append to a (k = 1, v = 10)
    append to a (k = 2, v = 20)
    append to a (k = 3, v = 30)
    append to b (k = 2)
    append to b (k = 3)
    append to b (k = 3)
    range of x is a range of y is b
    replace x (v = x.v + 1) where x.k = y.k
    retrieve (x.k, x.v) sort by k
  )");
  ASSERT_TRUE(r.ok) << r.err;
  // Each qualifying tuple is replaced once, against the relation as it was.
  EXPECT_NE(r.out.find("k,v\n1,10\n2,21\n3,31\n"), std::string::npos) << r.out;
  r = k.run("delete x where x.k = y.k  retrieve (x.k)");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find("k\n1\n"), std::string::npos) << r.out;
  EXPECT_EQ(k.session().catalog().find("a")->ntuples(), 1u);
}

TEST_P(Statements, ModifyKeepsTuplesAndHelpReportsPages) {
  Kit k(GetParam(), harness::OutFormat::Table);
  k.add_parts(3360, true, harness::Structure::Isam);
  auto r = k.run("help parts");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find("isam on pnum"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Tuples:              3360"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("646 primary"), std::string::npos) << r.out;
  r = k.run("modify parts to hash on pnum  range of p is parts  retrieve (p.qoh) where p.pnum = 77");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(k.last_report().stats.access_path.find("hash key ="), std::string::npos);
  EXPECT_EQ(k.last_report().stats.rows_out, 1u);
  r = k.run("modify parts to heap  help parts");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find("672 (672 primary, 0 overflow)"), std::string::npos) << r.out;
  r = k.run("create wide (a = c255, b = c255, c = c255, d = c200)  help wide");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find("1024 bytes (1 tuple per page)"), std::string::npos) << r.out;
}

TEST_P(Statements, FailedStatementChangesNothing) {
  Kit k(GetParam());
  auto r = k.run(R"(
    create t (a = i2, b = i2)
    append to t (a = 1, b = 0)
    append to t (a = 2, b = 1)
    range of x is t
  )");
  ASSERT_TRUE(r.ok) << r.err;
  // The first tuple passes, the second raises: nothing is replaced, appended or printed.
  r = k.run("replace x (b = 100 / x.a - 100) where 1 / (x.a - 2) = 0 or x.a = 1");
  EXPECT_FALSE(r.ok);
  r = k.run("append to t (a = x.a + 1, b = 10 / x.b)");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("division by zero"), std::string::npos) << r.err;
  r = k.run("retrieve into t2 (x.a) where x.a / x.b > 0");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(k.session().catalog().find("t2"), nullptr);
  r = k.run("retrieve (x.a, x.b) sort by a");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find("a,b\n1,0\n2,1\n"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Statements, ::testing::ValuesIn(all_backend_modes()), backend_test_name);

// ----------------------------------------------------------------- errors

struct ErrCase {
  const char* text;
  const char* message;  // substring of the message
  const char* where;    // "line:col"
};

TEST(Errors, EveryClassHasPositionAndCaret) {
  const ErrCase cases[] = {
      {"retrieve (x = 1) where 1 = 99999999999", "is too large", "1:28"},  // lexical: integer too large
      {"retrieve (x = \"abc)", "unterminated string", "1:15"},            // lexical: unterminated string
      {"retrieve (x = 1 where", "expected ')' but found 'where'", "1:17"},  // syntax
      {"retrieve (p.nosuch)", "neither a range variable nor a relation", "1:11"},  // name: unknown variable
      {"range of p is parts\nretrieve (p.nosuch)", "nosuch", "2:11"},     // name: unknown attribute
      {"range of p is parts\nretrieve (x = p.pname + 1)", "needs numbers", "2:23"},    // type
      {"range of p is parts\nretrieve (x = p.pnum / (p.pnum - 5))", "division by zero", "2:22"},  // runtime
      {"range of p is parts\nretrieve (x = p.pnum) where p.pname = \"[ab\"", "unclosed", "2:40"},        // pattern
      {"copy parts (pnum = i2) from \"/nonexistent/x.csv\"", "cannot open", "1:29"},             // I/O
      {"create parts (a = i2)", "relation 'parts' already exists", "1:8"},                      // name
      {"destroy nope", "there is no relation 'nope'", "1:9"},                                   // name
      {"modify parts to isam on nope", "relation 'parts' has no attribute 'nope'", "1:25"},     // name
      {"copy parts (pnum = i2) into \"\"", "copy needs a file name", "1:29"},                    // I/O
      // copy's column list: at the attribute, or its format; before the file is opened
      {"copy parts (nope = i2) from \"/nonexistent/x.csv\"", "no attribute nope", "1:13"},            // name
      {"copy parts (pnum = i2, pnum = i4) from \"/nonexistent/x.csv\"", "listed twice", "1:24"},     // name
      {"copy parts (pname = i4) into \"/nonexistent/x.csv\"", "cannot convert c20 to i4", "1:21"},  // type
      {"create z (a = i9)", "format", "1:15"},                                                  // type
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    Kit k;
    k.add_parts(10);
    auto r = k.run(c.text, "e.quel");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.err.find(std::string("e.quel:") + c.where + ": error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    // The caret stands under the column the position names: the source line
    // and the caret line are indented by two.
    const size_t col = size_t(std::stoul(std::string(c.where).substr(std::string(c.where).find(':') + 1)));
    const size_t caret = r.err.find("^");
    ASSERT_NE(caret, std::string::npos) << r.err;
    const size_t line_start = r.err.rfind('\n', caret) + 1;
    EXPECT_EQ(caret - line_start, 2 + col - 1) << r.err;
    EXPECT_EQ(r.err.find_first_not_of(' ', line_start), caret) << r.err;
    // The session survives: relations and a new statement still work.
    ASSERT_NE(k.session().catalog().find("parts"), nullptr);
    auto ok = k.run("range of p is parts retrieve (n = p.pnum) where p.pnum = 3");
    EXPECT_TRUE(ok.ok) << ok.err;
  }
}

TEST(Errors, RuntimeErrorNamesRelationAndTuple) {
  Kit k;
  k.add_parts(100);
  auto r = k.run("range of p is parts\nretrieve (x = 1 / (p.pnum - 40))", "r.quel");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("r.quel:2:17: error: division by zero (relation parts, tuple 40)"), std::string::npos) << r.err;
}

TEST(Errors, BackEndsAgreeOnErrorsAtTheSameTuple) {
  Kit k("all");
  k.add_parts(3360);
  // Overflow at the first tuple whose weight * qoh * 100000 leaves i4.
  auto r = k.run("range of p is parts\nretrieve (x = p.weight * p.qoh * 100000) where p.qoh > 200");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("integer overflow"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace quelkit::test
