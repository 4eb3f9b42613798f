// A syntax error stops the text (docs/DESIGN.md, "The command line"): a
// statement keyword written where a name belongs must not start a statement
// of its own out of the failed one's text, so `destroy delete p` deletes
// nothing and `help delete p` is an error, not a help and a delete.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support.h"

namespace quelkit::test {
namespace {

// The statement each keyword would start, complete, over range variable p.
struct Keyword {
  const char* word;
  const char* rest;  // what follows the keyword to make it a whole statement
};
const Keyword kKeywords[] = {
    {"delete", " p"},
    {"replace", " p (qoh = 0)"},
    {"retrieve", " (a = 1)"},
    {"append", " to parts (pnum = 1)"},
};

// Where a name is expected, before the keyword.
const char* const kPlaces[] = {
    "destroy ", "append to ", "create ", "modify ", "help ", "print ", "range of x is ",
};

std::string count_of_parts(Kit& k) {
  RunResult r = k.run("range of c is parts retrieve (n = count(c.pnum), s = sum(c.qoh))");
  EXPECT_TRUE(r.ok) << r.err;
  return r.out;
}

TEST(SyntaxStop, AKeywordWhereANameBelongsRunsNothing) {
  for (const char* place : kPlaces)
    for (const Keyword& kw : kKeywords) {
      Kit k("interp");
      k.add_parts(10);
      const std::string before = count_of_parts(k);
      const std::string text = std::string("range of p is parts\n") + place + kw.word + kw.rest;
      RunResult r = k.run(text);
      EXPECT_FALSE(r.ok) << text;
      EXPECT_NE(r.err.find("t.quel:2:"), std::string::npos) << text << "\n" << r.err;
      EXPECT_NE(r.err.find("error:"), std::string::npos) << text << "\n" << r.err;
      EXPECT_EQ(r.out, "") << text << ": a statement ran out of the failed one's text";
      EXPECT_EQ(count_of_parts(k), before) << text << ": a tuple changed";
    }
}

// The statements before a syntax error run; none after it, even on later
// lines, and the first error says so.
TEST(SyntaxStop, StatementsBeforeTheErrorRunNoneAfter) {
  Kit k("interp");
  k.add_parts(10);
  RunResult r = k.run(
      "range of p is parts\nreplace p (qoh = 7) where p.pnum = 1\nretrieve (x = )\n"
      "delete p\nretrieve (p.pnum)");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("t.quel:3:15: error:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(the text after it was not run)"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  RunResult q = k.run("range of c is parts retrieve (n = count(c.pnum))");
  ASSERT_TRUE(q.ok) << q.err;
  EXPECT_EQ(q.out, "n\n10\n") << "the delete after the error ran";
  q = k.run("retrieve (c.qoh) where c.pnum = 1");
  ASSERT_TRUE(q.ok) << q.err;
  EXPECT_EQ(q.out, "qoh\n7\n") << "the replace before the error did not run";
}

// A bare help, then a statement on a line of its own, is two statements.
TEST(SyntaxStop, HelpThenAStatementOnItsOwnLine) {
  Kit k("interp");
  k.add_parts(10);
  RunResult r = k.run("help\nretrieve (a = 1)");
  EXPECT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find("a\n1\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace quelkit::test
