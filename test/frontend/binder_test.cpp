// Binder: every type rule of DESIGN.md as the IR shape it produces (implicit
// conversion nodes marked `~`), variable resolution and order, the statement
// forms, and name/type errors at the position of the offending node.
//
// Layouts (test_catalog.h): parts = pnum i2 @0, pname c20 @2, color c8 @22,
// weight i2 @30, qoh i2 @32; every = a1 i1, a2 i2, a4 i4, r4 f4, r8 f8, s c10,
// w c200; emp = name c10, salary f4, dept i2. p: parts, e: emp, x: every.
#include <gtest/gtest.h>

#include "test_catalog.h"

namespace quelkit::frontend {
namespace {

using fetest::bind_text;
using fetest::err_text;
using fetest::error_of;
using fetest::tree;
using fetest::TestCatalog;

// The bound tree of one target expression.
std::string ex(const std::string& e) { return tree(*bind_text("retrieve (t = " + e + ")").targets.at(0).expr); }
// The bound tree of a where clause.
std::string cond(const std::string& c) { return tree(*bind_text("retrieve (t = 1) where " + c).qual); }
std::string err(const std::string& text) { return err_text(error_of(text)); }

TEST(Binder, Literals) {
  EXPECT_EQ(ex("1"), "i2:1");
  EXPECT_EQ(ex("32767"), "i2:32767");
  EXPECT_EQ(ex("32768"), "i4:32768");
  EXPECT_EQ(ex("2147483647"), "i4:2147483647");
  EXPECT_EQ(ex("1.5"), "f8:1.5");
  EXPECT_EQ(ex("\"ab\""), "c2:\"ab\"");
  EXPECT_EQ(ex("\"\""), "c0:\"\"");
  // -32768 is unary minus on the i4 literal 32768.
  EXPECT_EQ(ex("-32768"), "NEG_I4(i4:32768)");
  EXPECT_EQ(ex("-1"), "NEG_I4(~CVT_I2_I4(i2:1))");
}

TEST(Binder, ArithmeticClasses) {
  EXPECT_EQ(ex("x.a1 + x.a2"), "ADD_I4(~CVT_I1_I4(ATTR0.0:i1), ~CVT_I2_I4(ATTR0.1:i2))");
  EXPECT_EQ(ex("x.a4 - 1"), "SUB_I4(ATTR0.2:i4, ~CVT_I2_I4(i2:1))");
  EXPECT_EQ(ex("x.a2 * x.r4"), "MUL_F4(~CVT_I2_F4(ATTR0.1:i2), ATTR0.3:f4)");
  EXPECT_EQ(ex("x.r4 / x.r8"), "DIV_F8(~CVT_F4_F8(ATTR0.3:f4), ATTR0.4:f8)");
  // One conversion straight to the class, never i2 -> i4 -> f8.
  EXPECT_EQ(ex("x.a2 - 1.5"), "SUB_F8(~CVT_I2_F8(ATTR0.1:i2), f8:1.5)");
  EXPECT_EQ(ex("x.a1 + x.r4"), "ADD_F4(~CVT_I1_F4(ATTR0.0:i1), ATTR0.3:f4)");
  EXPECT_EQ(ex("x.r4 * x.r4"), "MUL_F4(ATTR0.3:f4, ATTR0.3:f4)");
  EXPECT_EQ(ex("x.a2 ** 2"), "POW_F8(~CVT_I2_F8(ATTR0.1:i2), ~CVT_I2_F8(i2:2))");
  EXPECT_EQ(ex("x.r8 ** x.r4"), "POW_F8(ATTR0.4:f8, ~CVT_F4_F8(ATTR0.3:f4))");
  EXPECT_EQ(bind_text("retrieve (t = x.a1 + x.a2)").targets[0].expr->type, Type::i4());
  EXPECT_EQ(bind_text("retrieve (t = x.a1 + x.r4)").targets[0].expr->type, Type::f4());
}

TEST(Binder, Unary) {
  EXPECT_EQ(ex("-x.a1"), "NEG_I4(~CVT_I1_I4(ATTR0.0:i1))");
  EXPECT_EQ(ex("-x.a4"), "NEG_I4(ATTR0.2:i4)");
  EXPECT_EQ(ex("-x.r4"), "NEG_F4(ATTR0.3:f4)");
  EXPECT_EQ(ex("-x.r8"), "NEG_F8(ATTR0.4:f8)");
  EXPECT_EQ(ex("+x.a2"), "ATTR0.1:i2");
  EXPECT_EQ(ex("-2**2"), "NEG_F8(POW_F8(~CVT_I2_F8(i2:2), ~CVT_I2_F8(i2:2)))");
  EXPECT_EQ(err("retrieve (t = -x.s)"), "type 1:15 unary '-' needs a number, not c10");
  EXPECT_EQ(err("retrieve (t = +x.s)"), "type 1:15 unary '+' needs a number, not c10");
}

TEST(Binder, NumericFunctions) {
  EXPECT_EQ(ex("abs(x.a2)"), "ABS_I4(~CVT_I2_I4(ATTR0.1:i2))");
  EXPECT_EQ(ex("abs(x.r4)"), "ABS_F4(ATTR0.3:f4)");
  EXPECT_EQ(ex("abs(x.r8)"), "ABS_F8(ATTR0.4:f8)");
  EXPECT_EQ(ex("mod(x.a2, 3)"), "MOD_I4(~CVT_I2_I4(ATTR0.1:i2), ~CVT_I2_I4(i2:3))");
  EXPECT_EQ(ex("mod(x.a4, x.a1)"), "MOD_I4(ATTR0.2:i4, ~CVT_I1_I4(ATTR0.0:i1))");
  EXPECT_EQ(ex("sqrt(x.a4)"), "SQRT_F8(~CVT_I4_F8(ATTR0.2:i4))");
  EXPECT_EQ(ex("log(9.5)"), "LOG_F8(f8:9.5)");
  EXPECT_EQ(ex("exp(x.r4)"), "EXP_F8(~CVT_F4_F8(ATTR0.3:f4))");
  EXPECT_EQ(ex("sin(x.a1)"), "SIN_F8(~CVT_I1_F8(ATTR0.0:i1))");
  EXPECT_EQ(ex("cos(1)"), "COS_F8(~CVT_I2_F8(i2:1))");
  EXPECT_EQ(ex("atan(x.r8)"), "ATAN_F8(ATTR0.4:f8)");
  EXPECT_EQ(err("retrieve (t = mod(x.r4, 2))"), "type 1:15 'mod' takes integers, not f4");
  EXPECT_EQ(err("retrieve (t = abs(p.pname))"),
            "type 1:15 'abs' needs a number: cannot convert characters to numbers");
  EXPECT_EQ(err("retrieve (t = sqrt(p.pnum = 1))"), "type 1:15 'sqrt' needs a number, not a condition");
  EXPECT_EQ(err("retrieve (t = foo(1))"), "name 1:15 unknown function 'foo'");
  EXPECT_EQ(err("retrieve (t = abs(1, 2))"), "type 1:15 'abs' takes 1 argument, not 2");
  EXPECT_EQ(err("retrieve (t = mod(1))"), "type 1:15 'mod' takes 2 arguments, not 1");
}

TEST(Binder, ExplicitConversions) {
  EXPECT_EQ(ex("int1(x.a4)"), "CVT_I4_I1(ATTR0.2:i4)");
  EXPECT_EQ(ex("int2(x.r8)"), "CVT_F8_I2(ATTR0.4:f8)");
  EXPECT_EQ(ex("int4(x.a2)"), "CVT_I2_I4(ATTR0.1:i2)");
  EXPECT_EQ(ex("int4(x.a4)"), "ATTR0.2:i4");  // already i4: no node
  EXPECT_EQ(ex("float4(x.a2)"), "CVT_I2_F4(ATTR0.1:i2)");
  EXPECT_EQ(ex("float4(x.r8)"), "CVT_F8_F4(ATTR0.4:f8)");
  EXPECT_EQ(ex("float8(x.r4)"), "CVT_F4_F8(ATTR0.3:f4)");
  EXPECT_EQ(ex("float8(1.5)"), "f8:1.5");
  EXPECT_EQ(ex("int2(x.a1 + 1)"), "CVT_I4_I2(ADD_I4(~CVT_I1_I4(ATTR0.0:i1), ~CVT_I2_I4(i2:1)))");
  EXPECT_EQ(err("retrieve (t = int4(x.s))"), "type 1:15 'int4' needs a number: cannot convert characters to numbers");
  EXPECT_EQ(err("retrieve (t = float8(\"1.5\"))"),
            "type 1:15 'float8' needs a number: cannot convert characters to numbers");
}

TEST(Binder, AsciiConcatAndScratch) {
  EXPECT_EQ(ex("ascii(x.a1)"), "ASCII_I1(ATTR0.0:i1)");
  auto widths = [](const std::string& e) { return bind_text("retrieve (t = ascii(" + e + "))").targets[0].expr->type; };
  EXPECT_EQ(widths("x.a1"), Type::c(6));
  EXPECT_EQ(widths("x.a2"), Type::c(6));
  EXPECT_EQ(widths("x.a4"), Type::c(11));
  EXPECT_EQ(widths("x.r4"), Type::c(15));
  EXPECT_EQ(widths("x.r8"), Type::c(24));
  EXPECT_EQ(err("retrieve (t = ascii(x.s))"), "type 1:15 'ascii' needs a number: cannot convert characters to numbers");

  BoundQuery q = bind_text("retrieve (t = concat(ascii(x.a2), ascii(x.r8)), u = concat(x.s, x.w))");
  const ir::Node& t = *q.targets[0].expr;
  EXPECT_EQ(tree(t), "CONCAT_C(ASCII_I2(ATTR0.1:i2), ASCII_F8(ATTR0.4:f8))");
  EXPECT_EQ(t.type, Type::c(30));
  EXPECT_EQ(t.kid[0]->scratch, 0u);
  EXPECT_EQ(t.kid[1]->scratch, 6u);
  EXPECT_EQ(t.scratch, 30u);
  EXPECT_EQ(q.targets[1].expr->type, Type::c(210));
  EXPECT_EQ(q.targets[1].expr->scratch, 60u);
  EXPECT_EQ(q.scratch_size, 270u);
  EXPECT_EQ(bind_text("retrieve (t = x.a1)").scratch_size, 0u);

  EXPECT_EQ(ex("concat(\"\", \"\")"), "CONCAT_C(c0:\"\", c0:\"\")");
  EXPECT_EQ(err("retrieve (t = concat(x.w, x.w))"), "type 1:15 concat result would be 400 characters wide (at most 255)");
  EXPECT_EQ(err("retrieve (t = concat(x.s, 1))"), "type 1:15 'concat' takes characters, not i2");
}

TEST(Binder, Comparisons) {
  EXPECT_EQ(cond("p.pnum = 3"), "EQ_I4(~CVT_I2_I4(ATTR0.0:i2), ~CVT_I2_I4(i2:3))");
  EXPECT_EQ(cond("p.pnum != 70000"), "NE_I4(~CVT_I2_I4(ATTR0.0:i2), i4:70000)");
  EXPECT_EQ(cond("e.salary > 1"), "GT_F4(ATTR0.1:f4, ~CVT_I2_F4(i2:1))");
  EXPECT_EQ(cond("e.salary <= 1.5"), "LE_F8(~CVT_F4_F8(ATTR0.1:f4), f8:1.5)");
  EXPECT_EQ(cond("x.r8 >= x.a1"), "GE_F8(ATTR0.4:f8, ~CVT_I1_F8(ATTR0.0:i1))");
  EXPECT_EQ(cond("p.pname < \"m\""), "LT_C(ATTR0.1:c20, c1:\"m\")");
  EXPECT_EQ(cond("p.pname = p.color"), "EQ_C(ATTR0.1:c20, ATTR0.2:c8)");
  EXPECT_EQ(cond("p.qoh < log(9.5) * p.weight"),
            "LT_F8(~CVT_I2_F8(ATTR0.4:i2), MUL_F8(LOG_F8(f8:9.5), ~CVT_I2_F8(ATTR0.3:i2)))");
  EXPECT_EQ(err("retrieve (t = 1) where p.pname = 3"), "type 1:32 cannot compare characters with numbers");
  EXPECT_EQ(err("retrieve (t = 1) where 3 < p.pname"), "type 1:26 cannot compare characters with numbers");
  EXPECT_EQ(err("retrieve (t = 1) where (p.pnum = 1) = (p.qoh = 2)"),
            "type 1:37 '=' compares numbers or characters, not conditions");
}

TEST(Binder, Patterns) {
  EXPECT_EQ(cond("p.pname = \"nut*\""), "MATCH_C(ATTR0.1:c20, c4:\"nut*\")");
  EXPECT_EQ(cond("p.pname != \"[a-c]*\""), "NOMATCH_C(ATTR0.1:c20, c6:\"[a-c]*\")");
  // The value is always kid 0, whichever side the pattern was written on.
  EXPECT_EQ(cond("\"b?lt\" = p.pname"), "MATCH_C(ATTR0.1:c20, c4:\"b?lt\")");
  // A backslash makes * ? [ ] ordinary (the manual): an escape alone leaves
  // a value, its backslashes dropped; with an unescaped * it is a pattern,
  // kept as written for the matcher.
  EXPECT_EQ(cond("p.pname = \"a\\*\""), "EQ_C(ATTR0.1:c20, c2:\"a*\")");
  EXPECT_EQ(cond("p.pname = \"a\\**\""), "MATCH_C(ATTR0.1:c20, c4:\"a\\**\")");
  EXPECT_EQ(cond("p.pname < \"\\[x\\]\""), "LT_C(ATTR0.1:c20, c3:\"[x]\")");
  // Both literals: the one with pattern characters is the pattern; two
  // patterns cannot be compared (DESIGN.md).
  EXPECT_EQ(err("retrieve (t = 1) where \"a*\" = \"b*\""),
            "type 1:29 cannot compare two patterns (string literals with * ? or [): one side of '=' must be a value");
  EXPECT_EQ(cond("\"a*\" = \"bolt\""), "MATCH_C(c4:\"bolt\", c2:\"a*\")");
  // Only = and != with a pattern character make a pattern.
  EXPECT_EQ(cond("p.pname < \"a*\""), "LT_C(ATTR0.1:c20, c2:\"a*\")");
  EXPECT_EQ(cond("p.pname = \"bolt\""), "EQ_C(ATTR0.1:c20, c4:\"bolt\")");
  EXPECT_EQ(cond("concat(p.pname, \"*\") = p.color"),
            "EQ_C(CONCAT_C(ATTR0.1:c20, c1:\"*\"), ATTR0.2:c8)");
  // An unclosed '[' is reported where it is written, escapes included.
  EXPECT_EQ(err("retrieve (t = 1) where p.pname = \"ab[cd\""), "type 1:37 unclosed '[' in pattern");
  EXPECT_EQ(err("retrieve (t = 1) where p.pname = \"\\\"\\\\x[y\""), "type 1:40 unclosed '[' in pattern");
  EXPECT_EQ(err("retrieve (t = 1) where p.pname = \"[ok]*\""), "usage 0:0 no error");
  EXPECT_EQ(err("retrieve (t = 1) where p.pname = \"a\\[\""), "usage 0:0 no error");
  EXPECT_EQ(err("retrieve (t = 1) where p.pnum = \"1*\""), "type 1:31 cannot compare characters with numbers");
}

TEST(Binder, Logic) {
  EXPECT_EQ(cond("p.pnum = 1 and not p.qoh < 2 or p.pname = \"x\""),
            "OR(AND(EQ_I4(~CVT_I2_I4(ATTR0.0:i2), ~CVT_I2_I4(i2:1)), "
            "NOT(LT_I4(~CVT_I2_I4(ATTR0.4:i2), ~CVT_I2_I4(i2:2)))), EQ_C(ATTR0.1:c20, c1:\"x\"))");
  EXPECT_EQ(err("retrieve (t = 1) where p.pnum and p.qoh = 1"),
            "type 1:31 the operands of 'and' must be conditions, not i2");
  EXPECT_EQ(err("retrieve (t = 1) where p.qoh = 1 or p.pname"),
            "type 1:34 the operands of 'or' must be conditions, not c20");
  EXPECT_EQ(err("retrieve (t = 1) where not p.pnum"), "type 1:24 the operand of 'not' must be a condition, not i2");
  EXPECT_EQ(err("retrieve (t = 1) where p.pnum + 1"), "type 1:31 a where clause must be a condition, not i4");
  EXPECT_EQ(err("retrieve (t = p.pnum = 1)"),
            "type 1:22 target 't' is a condition; a target must be a number or characters");
  EXPECT_EQ(err("retrieve (t = p.pname + 1)"), "type 1:23 '+' needs numbers, not c20 and i2");
  EXPECT_EQ(err("retrieve (t = 2 ** p.color)"), "type 1:17 '**' needs numbers, not i2 and c8");
}

TEST(Binder, Positions) {
  BoundQuery q = bind_text("retrieve (t = 1)\nwhere   p.qoh < log(9.5) * int4(p.weight)");
  const ir::Node& lt = *q.qual;
  EXPECT_EQ(lt.pos, (SrcPos{2, 15}));          // '<'
  EXPECT_EQ(lt.kid[0]->op, ir::Op::CVT_I2_F8);  // implicit: at its operand
  EXPECT_TRUE(lt.kid[0]->implicit);
  EXPECT_EQ(lt.kid[0]->pos, (SrcPos{2, 9}));
  EXPECT_EQ(lt.kid[0]->kid[0]->pos, (SrcPos{2, 9}));
  const ir::Node& mul = *lt.kid[1];
  EXPECT_EQ(mul.pos, (SrcPos{2, 26}));
  EXPECT_EQ(mul.kid[0]->pos, (SrcPos{2, 17}));          // log
  EXPECT_EQ(mul.kid[0]->kid[0]->pos, (SrcPos{2, 21}));  // 9.5
  // int4(i2) is explicit at the call; its f8 widening is implicit at int4's position.
  EXPECT_EQ(tree(mul), "MUL_F8(LOG_F8(f8:9.5), ~CVT_I4_F8(CVT_I2_I4(ATTR0.3:i2)))");
  EXPECT_EQ(mul.kid[1]->pos, (SrcPos{2, 28}));
  EXPECT_FALSE(mul.kid[1]->kid[0]->implicit);
  EXPECT_EQ(mul.kid[1]->kid[0]->pos, (SrcPos{2, 28}));
  EXPECT_EQ(mul.kid[1]->kid[0]->kid[0]->pos, (SrcPos{2, 33}));
  // The canonical shape carries offsets and exact constants.
  EXPECT_EQ(ir::shape(*lt.kid[0]), "(CVT_I2_F8:f8 (ATTR:i2 @32))");
  EXPECT_EQ(q.pos, (SrcPos{1, 1}));
}

TEST(Binder, VariablesInOrderOfFirstAppearance) {
  RangeTable r = fetest::default_ranges();
  r.set("q", "parts");
  BoundQuery b = bind_text("retrieve (a = q.qoh, b = p.qoh) where p.pnum = q.pnum and e.dept = 1", r);
  ASSERT_EQ(b.vars.size(), 3u);
  EXPECT_EQ(b.vars[0].name, "q");
  EXPECT_EQ(b.vars[0].relation, "parts");
  EXPECT_EQ(b.vars[0].first_use, (SrcPos{1, 15}));
  EXPECT_EQ(b.vars[1].name, "p");
  EXPECT_EQ(b.vars[1].first_use, (SrcPos{1, 26}));
  EXPECT_EQ(b.vars[2].name, "e");
  EXPECT_EQ(b.vars[2].relation, "emp");
  EXPECT_EQ(b.vars[2].schema.attrs.size(), 3u);
  EXPECT_EQ(tree(*b.targets[1].expr), "ATTR1.4:i2");
  EXPECT_EQ(b.targets[1].expr->offset, 32u);
  EXPECT_EQ(tree(*b.qual->kid[0]), "EQ_I4(~CVT_I2_I4(ATTR1.0:i2), ~CVT_I2_I4(ATTR0.0:i2))");

  // Within one expression, text order is left to right.
  BoundQuery c = bind_text("retrieve (t = q.qoh + p.qoh)", r);
  EXPECT_EQ(c.vars[0].name, "q");
  // An undeclared relation name ranges over itself.
  BoundQuery d = bind_text("retrieve (t = parts.qoh)");
  ASSERT_EQ(d.vars.size(), 1u);
  EXPECT_EQ(d.vars[0].name, "parts");
  EXPECT_EQ(d.vars[0].relation, "parts");
}

TEST(Binder, NameErrors) {
  EXPECT_EQ(err("retrieve (t = z.qoh)"), "name 1:15 'z' is neither a range variable nor a relation");
  EXPECT_EQ(err("retrieve (t = 1) where p.size = 1"),
            "name 1:24 relation 'parts' (variable p) has no attribute 'size'");
  TestCatalog cat;
  RangeTable r;
  r.set("g", "gone");
  auto src = fetest::source("retrieve (t = g.a)");
  auto s = parse(src);
  try {
    frontend::bind(*s[0], r, cat, src);
    FAIL() << "no error";
  } catch (const QuelError& e) {
    EXPECT_EQ(err_text(e.err), "name 1:15 range variable 'g' ranges over 'gone', which does not exist");
  }
}

TEST(Binder, Retrieve) {
  BoundQuery q = bind_text("retrieve unique into newrel (a = p.pnum, p.qoh) where p.qoh > 1 sort by qoh:d, a");
  EXPECT_EQ(q.kind, BoundKind::Retrieve);
  EXPECT_TRUE(q.unique);
  EXPECT_EQ(q.into, "newrel");
  ASSERT_EQ(q.targets.size(), 2u);
  EXPECT_EQ(q.targets[1].name, "qoh");
  EXPECT_EQ(q.targets[1].column, -1);
  ASSERT_EQ(q.sort.size(), 2u);
  EXPECT_EQ(q.sort[0].target, 1);
  EXPECT_TRUE(q.sort[0].descending);
  EXPECT_EQ(q.sort[1].target, 0);
  EXPECT_FALSE(q.sort[1].descending);
  EXPECT_NE(q.qual, nullptr);
  EXPECT_EQ(bind_text("retrieve (a = 1)").qual, nullptr);
  EXPECT_TRUE(bind_text("retrieve (a = 1)").vars.empty());

  EXPECT_EQ(err("retrieve into parts (a = 1)"), "name 1:15 relation 'parts' already exists");
  // Paper query (f) retrieves p.qoh and q.qoh: equal names are fine on the
  // terminal, but not in a relation, nor as a sort key.
  EXPECT_EQ(err("retrieve (a = 1, b = 2, a = 3)"), "usage 0:0 no error");
  EXPECT_EQ(err("retrieve into r (a = 1, b = 2, a = 3)"), "name 1:32 duplicate target name 'a'");
  EXPECT_EQ(err("retrieve into r (p.qoh, qoh = 3)"), "name 1:25 duplicate target name 'qoh'");
  EXPECT_EQ(err("retrieve (p.qoh, qoh = 3) sort by qoh"), "name 1:35 sort key 'qoh' names more than one target");
  EXPECT_EQ(err("retrieve (a = p.qoh) sort by qoh"), "name 1:30 sort key 'qoh' is not a target name");
}

TEST(Binder, Append) {
  BoundQuery q = bind_text(
      "append to every (a1 = 1, a2 = 100000, a4 = x.r8, r4 = 1, r8 = x.r4, s = \"abc\", w = p.pname) "
      "where p.pnum = 1");
  EXPECT_EQ(q.kind, BoundKind::Append);
  EXPECT_EQ(q.relation, "every");
  ASSERT_EQ(q.targets.size(), 7u);
  const char* want[] = {"~CVT_I2_I1(i2:1)",        "~CVT_I4_I2(i4:100000)", "~CVT_F8_I4(ATTR0.4:f8)",
                        "~CVT_I2_F4(i2:1)",        "~CVT_F4_F8(ATTR0.3:f4)", "c3:\"abc\"",
                        "ATTR1.1:c20"};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(tree(*q.targets[size_t(i)].expr), want[i]) << i;
    EXPECT_EQ(q.targets[size_t(i)].column, i);
  }
  EXPECT_EQ(q.vars[0].name, "x");  // every appears in the targets as x first
  EXPECT_EQ(q.update_var, -1);
  // Same type: no conversion; columns in any order.
  BoundQuery r = bind_text("append parts (qoh = p.qoh, pnum = 3)");
  EXPECT_EQ(tree(*r.targets[0].expr), "ATTR0.4:i2");
  EXPECT_EQ(r.targets[0].column, 4);
  EXPECT_EQ(r.targets[1].column, 0);

  EXPECT_EQ(err("append to nowhere (a = 1)"), "name 1:11 there is no relation 'nowhere'");
  EXPECT_EQ(err("append to parts (size = 1)"), "name 1:18 relation 'parts' has no attribute 'size'");
  EXPECT_EQ(err("append to parts (qoh = 1, qoh = 2)"), "name 1:27 attribute 'qoh' is assigned twice");
  EXPECT_EQ(err("append to parts (qoh = \"1\")"), "type 1:24 cannot assign characters to i2 attribute 'qoh'");
  EXPECT_EQ(err("append to parts (pname = 1.5)"), "type 1:26 cannot assign a number to c20 attribute 'pname'");
  EXPECT_EQ(err("append to parts (qoh = 1 = 1)"), "type 1:26 cannot assign a condition to attribute 'qoh'");
  EXPECT_EQ(err("append to parts (qoh = 1) where p.qoh"), "type 1:33 a where clause must be a condition, not i2");
}

TEST(Binder, ReplaceAndDelete) {
  RangeTable r = fetest::default_ranges();
  r.set("q", "parts");
  BoundQuery q = bind_text("replace q (qoh = p.qoh + 1) where q.pnum = p.pnum", r);
  EXPECT_EQ(q.kind, BoundKind::Replace);
  EXPECT_EQ(q.update_var, 0);
  EXPECT_EQ(q.relation, "parts");
  ASSERT_EQ(q.vars.size(), 2u);
  EXPECT_EQ(q.vars[0].name, "q");
  EXPECT_EQ(q.vars[0].first_use, (SrcPos{1, 9}));
  EXPECT_EQ(q.vars[1].name, "p");
  EXPECT_EQ(q.targets[0].column, 4);
  EXPECT_EQ(tree(*q.targets[0].expr), "~CVT_I4_I2(ADD_I4(~CVT_I2_I4(ATTR1.4:i2), ~CVT_I2_I4(i2:1)))");
  EXPECT_EQ(err("replace p (size = 1)"), "name 1:12 relation 'parts' has no attribute 'size'");
  EXPECT_EQ(err("replace e (salary = e.dept)"), "usage 0:0 no error");
  EXPECT_EQ(tree(*bind_text("replace e (salary = e.dept * 2)").targets[0].expr),
            "~CVT_I4_F4(MUL_I4(~CVT_I2_I4(ATTR0.2:i2), ~CVT_I2_I4(i2:2)))");

  BoundQuery d = bind_text("delete p where p.qoh = 0");
  EXPECT_EQ(d.kind, BoundKind::Delete);
  EXPECT_EQ(d.update_var, 0);
  EXPECT_EQ(d.relation, "parts");
  EXPECT_TRUE(d.targets.empty());
  BoundQuery all = bind_text("delete emp");
  EXPECT_EQ(all.vars[0].name, "emp");
  EXPECT_EQ(all.qual, nullptr);
  EXPECT_EQ(err("delete nobody"), "name 1:8 'nobody' is neither a range variable nor a relation");
}

TEST(Binder, OnlyExpressionStatementsBind) {
  TestCatalog cat;
  auto src = fetest::source("create r (a = i2)");
  auto s = parse(src);
  EXPECT_THROW(frontend::bind(*s[0], RangeTable{}, cat, src), QuelError);
}

}  // namespace
}  // namespace quelkit::frontend
