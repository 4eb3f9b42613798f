// The interpreter's evaluation rules one at a time, in both dispatch modes:
// and/or stop early, every runtime error carries its code and the position of
// the operator that raised it, parameters are inlined when the plan is
// prepared, characters compare and match as the runtime says, ascii/concat
// write into scratch, and projection writes every type at its column width.
#include <algorithm>

#include "test/interp/tuples.h"
#include "test/prepared_calls.h"

namespace quelkit::test {
namespace {

class Semantics : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<harness::Backend> be = backend_for(GetParam());
  Fixture fx;
  Schema parts = parts_schema();
  QuelPlan t_{"t", fx.all};  // the fixture's tuple as t
  QuelPlan p_{"p", parts};   // a PARTS tuple as p

  Outcome qualify(const harness::Plan& plan, const std::vector<uint8_t>& tuple, const uint8_t* params = nullptr) {
    auto prep = be->prepare(plan, params);
    return run_qualify(*prep, plan, tuple.data(), params);
  }
  Outcome project(const harness::Plan& plan, const std::vector<uint8_t>& tuple, const uint8_t* params = nullptr) {
    auto prep = be->prepare(plan, params);
    return run_project(*prep, plan, tuple.data(), params);
  }
  // A one-target plan over the fixture raising `code` at `pos` on row `row`.
  void expect_error(NodePtr target, size_t row, int code, SrcPos pos, const char* what) {
    std::vector<NodePtr> ts;
    ts.push_back(std::move(target));
    auto plan = target_plan(fx.all, std::move(ts), 64);
    Outcome o = project(plan, fx.rows[row]);
    EXPECT_EQ(o.rc, -1) << what;
    EXPECT_EQ(o.err, code) << what << ": " << qk_err_message(o.err);
    EXPECT_EQ(o.pos, pos) << what << " @" << o.pos.line << ":" << o.pos.col;
    EXPECT_EQ(o, expect_project(plan, fx.rows[row].data())) << what;
  }
};

// ---- and/or ----

TEST_P(Semantics, AndSkipsItsRightOperandWhenTheLeftIsFalse) {
  NodePtr q = p_.expr("p.qoh > 100 and 1 / 0 = 1");
  SrcPos div_pos = find_written(*q, Generic::Div)->pos;
  auto plan = qual_plan(parts, std::move(q), 0);
  Outcome low = qualify(plan, part(parts, 1, "nut", "red", 5, 50));
  EXPECT_EQ(low.rc, 0);
  EXPECT_EQ(low.err, 0);
  Outcome high = qualify(plan, part(parts, 2, "nut", "red", 5, 200));
  EXPECT_EQ(high.rc, -1);
  EXPECT_EQ(high.err, QK_ERR_DIV_ZERO);
  EXPECT_EQ(high.pos, div_pos);
}

TEST_P(Semantics, OrRaisesOnlyWhenTheLeftIsFalse) {
  NodePtr q = p_.expr("p.qoh < 100 or 1 / 0 = 1");
  SrcPos div_pos = find_written(*q, Generic::Div)->pos;
  auto plan = qual_plan(parts, std::move(q), 0);
  Outcome low = qualify(plan, part(parts, 1, "nut", "red", 5, 50));
  EXPECT_EQ(low.rc, 1);
  EXPECT_EQ(low.err, 0);
  Outcome high = qualify(plan, part(parts, 2, "nut", "red", 5, 200));
  EXPECT_EQ(high.rc, -1);
  EXPECT_EQ(high.err, QK_ERR_DIV_ZERO);
  EXPECT_EQ(high.pos, div_pos);
}

TEST_P(Semantics, NestedBranchesLeaveTheDecidingValue) {
  // (qoh > 100 and 1/0 = 1) or not (weight = 5)   and   not (qoh < 100 or 1/0 = 1)
  for (int qoh : {50, 200}) {
    for (int weight : {5, 6}) {
      auto plan = qual_plan(parts, p_.expr("(p.qoh > 100 and 1 / 0 = 1) or not (p.weight = 5)"), 0);
      auto t = part(parts, 1, "nut", "red", weight, qoh);
      Outcome o = qualify(plan, t);
      EXPECT_EQ(o, expect_qualify(plan, t.data())) << qoh << " " << weight;
      if (qoh == 50) {
        EXPECT_EQ(o.rc, weight == 5 ? 0 : 1);
      }
    }
  }
}

// ---- runtime errors: code and the raising operator's position ----

TEST_P(Semantics, EveryRuntimeErrorWithItsPosition) {
  struct Case {
    const char* what;
    size_t row;
    int code;
    const char* text;  // over the fixture's tuple t
    Generic raiser;    // the first operator of this kind written in the text raises
  };
  std::vector<Case> cases = {
      {"i4 + overflow", 1, QK_ERR_OVERFLOW, "t.a4 + t.a4", Generic::Add},
      {"i4 - overflow", 3, QK_ERR_OVERFLOW, "t.a4 - 1", Generic::Sub},
      {"i4 * overflow", 5, QK_ERR_OVERFLOW, "t.a4 * t.a4", Generic::Mul},
      {"i4 / overflow", 3, QK_ERR_OVERFLOW, "t.a4 / (-1)", Generic::Div},
      {"unary - overflow", 3, QK_ERR_OVERFLOW, "-t.a4", Generic::Neg},
      {"abs overflow", 3, QK_ERR_OVERFLOW, "abs(t.a4)", Generic::Abs},
      {"i4 / 0", 2, QK_ERR_DIV_ZERO, "t.a2 / t.a4", Generic::Div},
      {"f4 / 0", 2, QK_ERR_DIV_ZERO, "t.b4 / t.a2", Generic::Div},
      {"f8 / 0", 2, QK_ERR_DIV_ZERO, "t.b8 / t.a1", Generic::Div},
      {"mod 0", 2, QK_ERR_MOD_ZERO, "mod(t.a4, t.a2)", Generic::Mod},
      {"sqrt < 0", 0, QK_ERR_SQRT_NEG, "sqrt(t.a2)", Generic::Sqrt},
      {"log 0", 2, QK_ERR_LOG_DOMAIN, "log(t.a4)", Generic::Log},
      {"log < 0", 0, QK_ERR_LOG_DOMAIN, "log(t.b8)", Generic::Log},
      {"int1 of i2", 0, QK_ERR_CONVERT_RANGE, "int1(t.a2)", Generic::Cvt},
      {"int2 of i4", 0, QK_ERR_CONVERT_RANGE, "int2(t.a4)", Generic::Cvt},
      {"int4 of f8", 1, QK_ERR_CONVERT_RANGE, "int4(t.b8)", Generic::Cvt},
      {"int1 of f4", 3, QK_ERR_CONVERT_RANGE, "int1(t.b4)", Generic::Cvt},
      {"f8 * overflow", 1, QK_ERR_FLOAT_RESULT, "t.b8 * t.b8", Generic::Mul},
      {"f4 * overflow", 3, QK_ERR_FLOAT_RESULT, "t.b4 * t.b4", Generic::Mul},
      {"exp overflow", 0, QK_ERR_FLOAT_RESULT, "exp(t.a4)", Generic::Exp},
      {"** overflow", 1, QK_ERR_FLOAT_RESULT, "t.b8 ** t.a2", Generic::Pow},
      {"float4 of f8", 1, QK_ERR_FLOAT_RESULT, "float4(t.b8)", Generic::Cvt},
      // The first error in execution order: the left operand is evaluated first.
      {"left error first", 0, QK_ERR_CONVERT_RANGE, "int2(t.a4) + sqrt(t.a2)", Generic::Cvt},
      {"right error when the left is fine", 0, QK_ERR_SQRT_NEG, "sqrt(t.a2) + int2(t.a4)", Generic::Sqrt},
  };
  for (auto& c : cases) {
    NodePtr e = t_.expr(c.text);
    SrcPos pos = find_written(*e, c.raiser)->pos;
    expect_error(std::move(e), c.row, c.code, pos, c.what);
  }
}

TEST_P(Semantics, ErrorsInTheQualificationCarryTheOperatorPosition) {
  // where p.weight / (p.qoh - 7) > 1: the "/" raises, not the comparison.
  NodePtr q = p_.expr("p.weight / (p.qoh - 7) > 1");
  SrcPos pos = find_written(*q, Generic::Div)->pos;
  auto plan = qual_plan(parts, std::move(q), 0);
  Outcome o = qualify(plan, part(parts, 1, "cam", "red", 10, 7));
  EXPECT_EQ(o.rc, -1);
  EXPECT_EQ(o.err, QK_ERR_DIV_ZERO);
  EXPECT_EQ(o.pos, pos);
  EXPECT_EQ(qualify(plan, part(parts, 1, "cam", "red", 10, 8)).rc, 1);
}

TEST_P(Semantics, AssignmentConversionAtTheTargetRoot) {
  // append/replace: the binder converts to the column type at the root (here
  // an implicit i4 -> i2); the interpreter's Store does that conversion.
  t_.relation("out", Schema::packed({{"r", Type::i2()}}));
  auto plan = t_.plan("append to out (r = t.a4 + 1)");
  SrcPos pos = plan.targets[0]->pos;
  EXPECT_EQ(plan.out.attrs[0].type, Type::i2());
  Outcome ok = project(plan, fx.rows[4]);  // -7 + 1
  EXPECT_EQ(ok.rc, 0);
  EXPECT_EQ(harness::load<int16_t>(ok.row.data()), -6);
  Outcome bad = project(plan, fx.rows[0]);  // 100001
  EXPECT_EQ(bad.rc, -1);
  EXPECT_EQ(bad.err, QK_ERR_CONVERT_RANGE);
  EXPECT_EQ(bad.pos, pos);
}

// ---- parameters ----

TEST_P(Semantics, ParametersAreInlinedWhenPrepared) {
  // where p.pnum = $pnum and p.color = $color (tuple substitution values)
  Schema ps = Schema::packed({{"pnum", Type::i2()}, {"color", Type::c(8)}});
  auto block = [&](int pnum, const char* color) { return TupleWriter(ps).i("pnum", pnum).c("color", color).bytes(); };
  QuelPlan b("p", parts);
  b.params("s", ps);
  auto plan = qual_plan(parts, b.expr("p.pnum = s.pnum and p.color = s.color"), 0, ps);
  auto t5 = part(parts, 5, "bolt", "black", 1, 2);
  auto t6 = part(parts, 6, "bolt", "black", 1, 2);

  auto p5 = block(5, "black");
  auto prep = be->prepare(plan, p5.data());
  EXPECT_EQ(run_qualify(*prep, plan, t5.data(), p5.data()).rc, 1);
  EXPECT_EQ(run_qualify(*prep, plan, t6.data(), p5.data()).rc, 0);

  // The values were copied into the program: changing the block afterwards
  // does not change what this prepared plan computes (no plan reuse).
  auto p6 = block(6, "red");
  EXPECT_EQ(run_qualify(*prep, plan, t5.data(), p6.data()).rc, 1);
  // The very block prepare was given, changed in place (a plan that kept a
  // pointer to it would now see pnum 6).
  const auto six = block(6, "black");
  std::copy(six.begin(), six.end(), p5.begin());
  EXPECT_EQ(run_qualify(*prep, plan, t5.data(), p5.data()).rc, 1);
  EXPECT_EQ(run_qualify(*prep, plan, t6.data(), p5.data()).rc, 0);

  // Prepared afresh, the next substitution's values apply.
  auto p6b = block(6, "black");
  auto prep6 = be->prepare(plan, p6b.data());
  EXPECT_EQ(run_qualify(*prep6, plan, t5.data(), p6b.data()).rc, 0);
  EXPECT_EQ(run_qualify(*prep6, plan, t6.data(), p6b.data()).rc, 1);
  EXPECT_FALSE(be->reuses_plans());
}

TEST_P(Semantics, ParametersOfEveryTypeProject) {
  QuelPlan b("t", fx.all);
  b.params("s", fx.all);
  auto plan = b.plan("retrieve (s.a1, s.a2, s.a4, s.b4, s.b8, s.c10, s.c3)");
  for (const auto& params : fx.rows) {
    Outcome o = project(plan, fx.rows[0], params.data());
    EXPECT_EQ(o.rc, 0);
    EXPECT_EQ(o.row, params);  // same layout: the row is the parameter block
  }
}

// ---- characters ----

// INGRES's rule: every blank ignored, leading, inner and trailing.
TEST_P(Semantics, CharacterComparisonIgnoresEveryBlank) {
  struct Case {
    const char *a, *b;
    int cmp;
  } cases[] = {
      {"ab  ", "ab", 0}, {"ab", "abc", -1}, {"abc", "ab ", 1}, {"", "   ", 0},
      {"z\xe9", "zz", 1},  // bytes compare unsigned
      {"a b", "a", 1},     {"A", "a", -1},  {" a b", "ab", 0}, {"a b", "ab ", 0},
      {"ab", " abc", -1},  {"a c", "ab", 1}, {"  b", "a", 1},   {"ab", "a  c", -1},
  };
  Schema s = Schema::packed({{"x", Type::c(6)}, {"y", Type::c(4)}});
  QuelPlan b("t", s);
  for (const auto& c : cases) {
    auto t = TupleWriter(s).c("x", c.a).c("y", c.b).bytes();
    for (Generic g : {Generic::Eq, Generic::Ne, Generic::Lt, Generic::Le, Generic::Gt, Generic::Ge}) {
      auto plan = qual_plan(s, b.expr(quel(g, "t.x", "t.y")), 0);
      Outcome o = qualify(plan, t);
      bool want = g == Generic::Eq ? c.cmp == 0 : g == Generic::Ne ? c.cmp != 0 : g == Generic::Lt ? c.cmp < 0
                : g == Generic::Le ? c.cmp <= 0 : g == Generic::Gt ? c.cmp > 0 : c.cmp >= 0;
      EXPECT_EQ(o.rc, int(want)) << c.a << " " << ir::generic_name(g) << " " << c.b;
    }
  }
}

TEST_P(Semantics, PatternsMatchAsTheRuntimeSays) {
  struct Case {
    const char* value;
    const char* pattern;
    bool match;
  } cases[] = {
      {"processor", "processor", true}, {"processor", "p*r", true},      {"processor", "*sor", true},
      {"processor", "pro?essor", true}, {"processor", "pro?sor", false}, {"processor", "[a-p]rocessor", true},
      {"processor", "[^p]rocessor", false}, {"processor", "proc\\essor", true}, {"bolt", "bolt   ", true},
      {"bolt", "b*", true},             {"nut", "[bn]ut", true},          {"nut", "*", true},
      {"gear", "?ear?", false},         {"a*b", "a\\*b", true},           {"axb", "a\\*b", false},
      {"Ross, Stan", "R o s s,S*", true}, {"a b", "?b", true},           {" nut", "[n]ut", true},
      {"proc\\essor", "proc\\\\essor", true}, {"a*b x", "a\\**", true},    {"ab*", "a\\**", false},
  };
  for (const auto& c : cases)
    for (bool negated : {false, true}) {
      // = and != with the literal as written (its backslashes are escapes): a
      // pattern match where it holds an unescaped * ? or [, else a value.
      const std::string lit = "\"" + std::string(c.pattern) + "\"";
      auto plan = qual_plan(parts, p_.expr(quel(negated ? Generic::Ne : Generic::Eq, "p.pname", lit)), 0);
      auto t = part(parts, 1, c.value, "red", 1, 1);
      Outcome o = qualify(plan, t);
      EXPECT_EQ(o.rc, int(c.match != negated)) << c.value << (negated ? " != " : " = ") << c.pattern;
      EXPECT_EQ(o, expect_qualify(plan, t.data()));
    }
}

TEST_P(Semantics, AsciiAndConcatWriteIntoScratchAtTheNodeOffset) {
  auto plan = t_.plan("retrieve (r0 = concat(ascii(t.a2), t.c3), r1 = ascii(t.b8), r2 = ascii(t.b4), "
                      "r3 = concat(t.c10, t.c3))");
  const uint32_t ascii_a2 = plan.targets[0]->kid[0]->scratch, concat0 = plan.targets[0]->scratch,
                 concat3 = plan.targets[3]->scratch;
  ASSERT_EQ(plan.out.attrs[0].type, Type::c(9));
  ASSERT_EQ(plan.out.attrs[1].type, Type::c(24));
  ASSERT_EQ(plan.out.attrs[2].type, Type::c(15));
  ASSERT_EQ(plan.out.attrs[3].type, Type::c(13));

  auto prep = be->prepare(plan, nullptr);
  Scratch sc(plan.scratch_size);
  qk_ctx ctx = make_ctx(nullptr, sc);
  std::vector<uint8_t> row(plan.out.tuple_len);
  ASSERT_EQ(test::project(*prep, fx.rows[0].data(), row.data(), &ctx), 0);
  auto col = [&](int i) {
    const Attribute& a = plan.out.attrs[size_t(i)];
    return std::string(reinterpret_cast<const char*>(row.data()) + a.offset, a.type.len);
  };
  EXPECT_EQ(col(0), "-300ab   ");  // concat drops the left operand's trailing blanks
  EXPECT_EQ(col(1), "-0.75" + std::string(19, ' '));
  EXPECT_EQ(col(2), "2.5" + std::string(12, ' '));
  EXPECT_EQ(col(3), "boltab       ");
  auto scratch = [&](uint32_t off, size_t n) { return std::string(reinterpret_cast<char*>(sc.bytes.data()) + off, n); };
  EXPECT_EQ(scratch(ascii_a2, 6), "-300  ");
  EXPECT_EQ(scratch(concat0, 9), "-300ab   ");
  EXPECT_EQ(scratch(concat3, 13), "boltab       ");
  EXPECT_EQ(sc.bytes[plan.scratch_size], 0xAA) << "wrote past scratch_size";

  // ascii of a value that needs every column of its width, and of extremes.
  for (size_t r = 0; r < fx.rows.size(); ++r)
    EXPECT_EQ(run_project(*prep, plan, fx.rows[r].data()), expect_project(plan, fx.rows[r].data())) << r;
}

TEST_P(Semantics, CharacterResultsCompare) {
  // where concat(p.pname, p.color) = "boltred": compare computed characters
  uint32_t scratch = 0;
  NodePtr q = p_.expr("concat(p.pname, p.color) = \"boltred\"", &scratch);
  auto plan = qual_plan(parts, std::move(q), scratch);
  EXPECT_EQ(qualify(plan, part(parts, 1, "bolt", "red", 1, 1)).rc, 1);
  EXPECT_EQ(qualify(plan, part(parts, 1, "bolt", "blue", 1, 1)).rc, 0);
  NodePtr m = p_.expr("ascii(p.qoh) = \"4?\"", &scratch);
  auto plan2 = qual_plan(parts, std::move(m), scratch);
  EXPECT_EQ(qualify(plan2, part(parts, 1, "bolt", "red", 1, 42)).rc, 1);
  EXPECT_EQ(qualify(plan2, part(parts, 1, "bolt", "red", 1, 420)).rc, 0);
}

// ---- projection ----

TEST_P(Semantics, ProjectionWritesEveryTypeAtItsColumn) {
  auto plan = t_.plan("retrieve (t.a1, t.a2, t.a4, t.b4, t.b8, t.c10, t.c3)");
  for (const auto& t : fx.rows) {
    Outcome o = project(plan, t);
    EXPECT_EQ(o.rc, 0);
    EXPECT_EQ(o.row, t);  // -0.0, extremes and blanks kept bit for bit
  }
}

TEST_P(Semantics, ProjectionPadsTruncatesAndConverts) {
  // Columns other than the targets' types: characters are truncated or blank
  // padded to the column; numbers go through the (implicit) assignment rule:
  // an append to such columns.
  t_.relation("out", Schema::packed({{"k4", Type::c(4)}, {"k12", Type::c(12)}, {"n4", Type::i4()},
                                     {"g4", Type::f4()}, {"n1", Type::i1()}, {"g8", Type::f8()}}));
  auto plan = t_.plan("append to out (k4 = t.c10, k12 = t.c10, n4 = t.a2, g4 = t.b8, n1 = t.a4, g8 = t.b4)");
  Outcome o = project(plan, fx.rows[6]);  // "nut bolt", 1, 1, 1.0
  ASSERT_EQ(o.rc, 0);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(o.row.data()), 4), "nut ");
  EXPECT_EQ(std::string(reinterpret_cast<char*>(o.row.data()) + 4, 12), "nut bolt    ");
  EXPECT_EQ(harness::load<int32_t>(o.row.data() + 16), 1);
  EXPECT_EQ(harness::load<float>(o.row.data() + 20), 1.0f);
  EXPECT_EQ(harness::load<int8_t>(o.row.data() + 24), 1);
  EXPECT_EQ(harness::load<double>(o.row.data() + 25), 1.0);
  for (size_t r = 0; r < fx.rows.size(); ++r)
    EXPECT_EQ(project(plan, fx.rows[r]), expect_project(plan, fx.rows[r].data())) << r;
}

TEST_P(Semantics, NoQualificationQualifiesEveryTuple) {
  harness::Plan plan = qual_plan(parts, nullptr, 0);
  EXPECT_EQ(qualify(plan, part(parts, 1, "x", "y", 1, 1)).rc, 1);
  auto prep = be->prepare(plan, nullptr);
  EXPECT_FALSE(has_kernel(*prep));
}

TEST_P(Semantics, PaperQueryD) {
  // log(9.5) ~ 2.2513
  harness::Plan plan = p_.plan("retrieve (p.pnum) where p.qoh < log(9.5) * p.weight");
  auto prep = be->prepare(plan, nullptr);
  struct {
    int weight, qoh, want;
  } cases[] = {{10, 22, 1}, {10, 23, 0}, {1, 2, 1}, {1, 3, 0}, {100, 225, 1}, {100, 226, 0}};
  for (auto c : cases) {
    auto t = part(parts, 77, "cam", "gray", c.weight, c.qoh);
    EXPECT_EQ(run_qualify(*prep, plan, t.data()).rc, c.want) << c.weight << " " << c.qoh;
    Outcome o = run_project(*prep, plan, t.data());
    EXPECT_EQ(harness::load<int16_t>(o.row.data()), 77);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, Semantics, ::testing::Values("switch", "goto"));

}  // namespace
}  // namespace quelkit::test
