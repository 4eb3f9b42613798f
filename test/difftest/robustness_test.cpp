// Inputs at the edge of what the front end and back ends accept: every one is
// answered or rejected with an error, never a crash (DESIGN.md: errors never
// crash the program). The differential and fuzz runs found them; each stays
// here as a regression test.
#include <gtest/gtest.h>

#include "../engine/support.h"
#include "frontend/frontend.h"

namespace quelkit::test {
namespace {

std::string repeat(const std::string& s, int n) {
  std::string r;
  for (int i = 0; i < n; ++i) r += s;
  return r;
}

// Expressions a few hundred levels deep are legitimate and run everywhere.
TEST(Robustness, DeepButReasonableExpressionsRunOnEveryBackend) {
  Kit k("all");
  k.add_parts(10);
  auto r = k.run("range of p is parts\nretrieve (x = " + repeat("(", 200) + "p.pnum" + repeat(" + 1)", 200) +
                 ") where " + repeat("not ", 100) + "p.pnum > 5");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "x\n206\n207\n208\n209\n210\n");
  std::string ors = "p.pnum = 0";
  for (int i = 1; i < 300; ++i) ors += " or p.pnum = " + std::to_string(i * 3);
  r = k.run("retrieve (p.pnum) where " + ors);
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "pnum\n3\n6\n9\n");
}

// Nesting deep enough to exhaust the stack of the recursive parser, binder,
// fold pass or back ends is a syntax error, not a segmentation fault: the
// parser bounds expression depth once, at 1000 levels (frontend/parser.cpp),
// so no later recursive pass meets a deeper tree. A long chain of `+` counts
// as deep as the tree it builds; one of `or` is a single n-ary node
// (frontend/ir.h) and runs (test/engine/nary_test.cpp).
const std::string kTooDeep = "expression nested too deeply (more than 1000 levels)";

// The statement fails with the parser's nesting-limit error, a syntax error.
void expect_nesting_limit(Kit& k, const std::string& text) {
  auto r = k.run(text);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("error: " + kTooDeep), std::string::npos) << r.err.substr(0, 300);
  try {
    frontend::parse(std::make_shared<Source>("t.quel", text));
    ADD_FAILURE() << "parsed without error";
  } catch (const QuelError& e) {
    EXPECT_EQ(e.err.kind, ErrKind::Syntax);
    EXPECT_EQ(e.err.message, kTooDeep);
  }
}

TEST(Robustness, DeeplyNestedExpressionIsAnErrorNotACrash) {
  Kit k("interp");
  k.add_parts(3);
  for (const std::string& where : {"1 = " + repeat("(", 100000) + "1" + repeat(")", 100000),
                                   "1 = " + repeat("-", 100000) + "1", repeat("not ", 100000) + "1 = 1"}) {
    expect_nesting_limit(k, "retrieve (x = 1) where " + where);
  }
  std::string sum = "p.pnum";
  for (int i = 1; i < 30000; ++i) sum += " + " + std::to_string(i);
  expect_nesting_limit(k, "range of p is parts\nretrieve (p.pnum) where " + sum + " > 0");
}

}  // namespace
}  // namespace quelkit::test

namespace quelkit::test {
namespace {

// "" is a c0 value, fine in a result row but no attribute's format: retrieve
// into stores it as c1, so even a target list of empty strings only makes a
// relation (a byte a tuple), where it used to store no bytes at all.
TEST(Robustness, RetrieveIntoOfOnlyEmptyStringsStoresBlanks) {
  Kit k("interp");
  auto r = k.run("retrieve into z (x = \"\", y = concat(\"\", \"\"))");
  ASSERT_TRUE(r.ok) << r.err;
  const harness::Relation* z = k.session().catalog().find("z");
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->schema().tuple_len, 2u);
  EXPECT_EQ(z->ntuples(), 1u);
}

// A tuple wider than a page (five c255 attributes at the default 1024-byte
// page) cannot be stored: `create` and `retrieve into` report a positioned
// type error that says what a page holds, and the session and its relations
// survive. retrieve into refuses before anything runs, as create does: no
// rows are scanned, no stats line says it succeeded.
TEST(Robustness, TupleWiderThanAPageIsAnErrorNotACrash) {
  Kit k("interp");
  auto r = k.run("create w (a = c255, b = c255, c = c255, d = c255, e = c255)");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("1:8: error: a tuple of 1275 bytes does not fit a 1024-byte page, which holds tuples of at "
                       "most 1010 bytes"),
            std::string::npos)
      << r.err;
  r = k.run("create ok (a = c255)\nhelp ok");
  EXPECT_TRUE(r.ok) << r.err;
  k.add_parts(210);
  std::string wide = "range of p is parts\nretrieve into w (p.pnum";
  for (int i = 0; i < 26; ++i) wide += ", c" + std::to_string(i) + " = concat(p.pname, p.pname)";  // c40 each
  r = k.run(wide + ")");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("2:15: error: a tuple of 1042 bytes does not fit a 1024-byte page"), std::string::npos)
      << r.err;
  EXPECT_EQ(k.session().catalog().find("w"), nullptr);
  r = k.run("retrieve into fits (n = count(p.pnum), s = sum(p.qoh), w = concat(p.pname, p.pname))");
  ASSERT_TRUE(r.ok) << r.err;  // aggregates bound per runner are checked too, and this one fits
  r = k.run(wide + ", n = count(p.pnum))");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("2:15: error: a tuple of 1046 bytes does not fit"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace quelkit::test
