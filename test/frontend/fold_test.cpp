// Fold pass and constant evaluator: constants fold with exactly the run-time
// rules (f4 in single precision, checked integers), anything that would raise
// stays in the tree for run time, `and`/`or` fold only on a constant left
// operand, and eval_const covers every operator of ops.def.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>

#include "frontend/consteval.h"
#include "runtime/runtime.h"
#include "test_catalog.h"

namespace quelkit::frontend {
namespace {

using fetest::bind_text;
using fetest::tree;

ir::NodePtr folded_qual(const std::string& c) { return fold(*bind_text("retrieve (t = 1) where " + c).qual); }
ir::NodePtr folded_target(const std::string& e) { return fold(*bind_text("retrieve (t = " + e + ")").targets[0].expr); }

int count_ops(const ir::Node& n, bool (*pred)(const ir::Node&)) {
  int c = pred(n) ? 1 : 0;
  for (const auto& k : n.kid)
    if (k) c += count_ops(*k, pred);
  return c;
}

TEST(Fold, PaperQueryDFoldsLogToOneConstant) {
  auto q = folded_qual("p.qoh < log(9.5) * p.weight");
  EXPECT_EQ(tree(*q), "LT_F8(~CVT_I2_F8(ATTR0.4:i2), MUL_F8(f8:" + ir::format_value(Type::f8(), [] {
                        ir::Value v;
                        v.f8 = std::log(9.5);
                        return v;
                      }()) + ", ~CVT_I2_F8(ATTR0.3:i2)))");
  const ir::Node& c = *q->kid[1]->kid[0];
  EXPECT_EQ(c.op, ir::Op::CONST);
  EXPECT_EQ(c.type, Type::f8());
  EXPECT_EQ(c.val.f8, std::log(9.5));
  EXPECT_EQ(c.pos, (SrcPos{1, 32}));  // the folded log's position
  EXPECT_EQ(count_ops(*q, [](const ir::Node& n) { return n.op == ir::Op::CONST; }), 1);
  // The golden shape: one constant, written as its exact bits.
  EXPECT_EQ(ir::shape(*q),
            "(LT_F8:bool (CVT_I2_F8:f8 (ATTR:i2 @32)) (MUL_F8:f8 (CONST:f8 2.2512917986064953#400202a5464624b1) "
            "(CVT_I2_F8:f8 (ATTR:i2 @30))))");
}

TEST(Fold, IntegerLiteralConvertedOnceToF4) {
  BoundQuery b = bind_text("retrieve (t = 1) where 13 + e.salary = 100");
  EXPECT_EQ(tree(*b.qual), "EQ_F4(ADD_F4(~CVT_I2_F4(i2:13), ATTR0.1:f4), ~CVT_I2_F4(i2:100))");
  auto q = fold(*b.qual);
  EXPECT_EQ(tree(*q), "EQ_F4(ADD_F4(f4:13, ATTR0.1:f4), f4:100)");
  EXPECT_EQ(q->kid[1]->type, Type::f4());
  EXPECT_EQ(q->kid[1]->val.f4, 100.0f);
  EXPECT_EQ(q->kid[1]->pos, (SrcPos{1, 40}));
}

TEST(Fold, ErrorsStayForRunTime) {
  EXPECT_EQ(tree(*folded_target("1/0")), "DIV_I4(i4:1, i4:0)");
  EXPECT_EQ(tree(*folded_target("mod(7, 0)")), "MOD_I4(i4:7, i4:0)");
  EXPECT_EQ(tree(*folded_target("32767 * 32767 * 3")), "MUL_I4(i4:1073676289, i4:3)");
  EXPECT_EQ(tree(*folded_target("int1(300)")), "CVT_I2_I1(i2:300)");
  EXPECT_EQ(tree(*folded_target("sqrt(-1)")), "SQRT_F8(f8:-1)");
  EXPECT_EQ(tree(*folded_target("log(0)")), "LOG_F8(f8:0)");
  EXPECT_EQ(tree(*folded_target("float4(1e300)")), "CVT_F8_F4(f8:1e+300)");
  EXPECT_EQ(tree(*folded_target("exp(1000)")), "EXP_F8(f8:1000)");
  EXPECT_EQ(tree(*folded_target("-(-2147483647 - 1)")), "NEG_I4(i4:-2147483648)");
  // An unfolded error node keeps its position for the run-time message.
  auto d = folded_target("1 +  4 / 0");
  EXPECT_EQ(tree(*d), "ADD_I4(i4:1, DIV_I4(i4:4, i4:0))");
  EXPECT_EQ(d->kid[1]->pos, (SrcPos{1, 22}));
}

TEST(Fold, AndOrFoldOnTheLeftOnly) {
  // `1 = 0` is the language's false, `1 = 1` its true.
  auto f = folded_qual("1 = 0 and 1/0 = 1");
  EXPECT_EQ(tree(*f), "bool:0");
  EXPECT_EQ(f->pos, (SrcPos{1, 30}));  // the and
  EXPECT_EQ(tree(*folded_qual("1 = 1 and 1/0 = 1")), "EQ_I4(DIV_I4(i4:1, i4:0), i4:1)");
  EXPECT_EQ(tree(*folded_qual("1 = 1 or 1/0 = 1")), "bool:1");
  EXPECT_EQ(tree(*folded_qual("1 = 0 or p.qoh = 1")), "EQ_I4(~CVT_I2_I4(ATTR0.4:i2), i4:1)");
  // A constant right operand does not remove the left, which may raise first.
  EXPECT_EQ(tree(*folded_qual("1/0 = 1 and 1 = 0")), "AND(EQ_I4(DIV_I4(i4:1, i4:0), i4:1), bool:0)");
  EXPECT_EQ(tree(*folded_qual("p.qoh = 1 or 1 = 1")), "OR(EQ_I4(~CVT_I2_I4(ATTR0.4:i2), i4:1), bool:1)");
  EXPECT_EQ(tree(*folded_qual("not 1 = 1")), "bool:0");
  EXPECT_EQ(tree(*folded_qual("not p.qoh = 1")), "NOT(EQ_I4(~CVT_I2_I4(ATTR0.4:i2), i4:1))");
  EXPECT_EQ(tree(*folded_qual("1 = 1 and (1 = 0 or 2 > 1)")), "bool:1");
}

TEST(Fold, F4RoundsInSinglePrecision) {
  // 2^24 + 1 is not an f4: single-precision addition rounds it away, f8 would not.
  volatile float big = 16777216.0f, one = 1.0f;
  auto s = folded_target("float4(16777216) + float4(1)");
  ASSERT_EQ(s->op, ir::Op::CONST);
  EXPECT_EQ(s->type, Type::f4());
  EXPECT_EQ(s->val.f4, big + one);
  EXPECT_EQ(s->val.f4, 16777216.0f);
  // A tie, though: f8 rounded to f4 at the end gives 2^24 too. Twice is no
  // tie: each f4 addition rounds 2^24 + 1 back to 2^24, while f8 carried to
  // the end gives 2^24 + 2, an f4.
  auto s2 = folded_target("float4(16777216) + float4(1) + float4(1)");
  ASSERT_EQ(s2->op, ir::Op::CONST);
  EXPECT_EQ(s2->val.f4, 16777216.0f);
  volatile float a = 0.1f, b = 0.2f, c = 3.0f;
  auto t = folded_target("(float4(0.1) + float4(0.2)) * float4(3)");
  EXPECT_EQ(t->val.f4, (a + b) * c);
  auto u = folded_target("float4(1) / float4(3)");
  EXPECT_EQ(u->val.f4, 1.0f / 3.0f);
  // i4 -> f4 rounds to nearest.
  EXPECT_EQ(folded_target("float4(16777217)")->val.f4, 16777216.0f);
  // -0.0 stays negative zero.
  auto z = folded_target("-0.0");
  EXPECT_TRUE(std::signbit(z->val.f8));
}

TEST(Fold, CharactersPatternsAsciiConcat) {
  EXPECT_EQ(tree(*folded_qual("\"bolt\" = \"b*\"")), "bool:1");
  EXPECT_EQ(tree(*folded_qual("\"bolt\" != \"b?lt\"")), "bool:0");
  EXPECT_EQ(tree(*folded_qual("\"ab  \" = \"ab\"")), "bool:1");
  EXPECT_EQ(tree(*folded_qual("\"ab\" < \"abc\"")), "bool:1");
  EXPECT_EQ(tree(*folded_target("concat(ascii(12), \"x\")")), "c7:\"12x    \"");
  EXPECT_EQ(tree(*folded_target("ascii(-1.5)")), "c24:\"-1.5                    \"");
  EXPECT_EQ(tree(*folded_target("ascii(float4(0.1))")), "c15:\"0.1            \"");
  // Folding a computed character value keeps the type the binder gave it.
  auto c = folded_target("concat(p.pname, ascii(7))");
  EXPECT_EQ(tree(*c), "CONCAT_C(ATTR0.1:c20, c6:\"7     \")");
  EXPECT_EQ(c->scratch, 6u);  // its scratch slot survives folding
}

TEST(Fold, ArithmeticMatchesRuntime) {
  EXPECT_EQ(tree(*folded_target("-7 / 2")), "i4:-3");
  EXPECT_EQ(tree(*folded_target("mod(-7, 3)")), "i4:-1");
  EXPECT_EQ(tree(*folded_target("2 ** 10")), "f8:1024");
  EXPECT_EQ(tree(*folded_target("-2 ** 2")), "f8:-4");
  EXPECT_EQ(tree(*folded_target("abs(-3)")), "i4:3");
  EXPECT_EQ(tree(*folded_target("int2(-2.7)")), "i2:-2");
  EXPECT_EQ(tree(*folded_target("1 + 2.5")), "f8:3.5");
}

TEST(Fold, NeverMutatesAndKeepsPayload) {
  BoundQuery b = bind_text("retrieve (t = 1) where p.qoh < log(9.5) * p.weight and p.pname = \"n*\"");
  std::string before = ir::shape(*b.qual);
  auto f = fold(*b.qual);
  EXPECT_EQ(ir::shape(*b.qual), before);
  const ir::Node& attr = *f->kid[0]->kid[0]->kid[0];
  EXPECT_EQ(attr.op, ir::Op::ATTR);
  EXPECT_EQ(attr.offset, 32u);
  EXPECT_EQ(attr.var, 0);
  EXPECT_EQ(attr.attr, 4);
  EXPECT_TRUE(f->kid[0]->kid[0]->implicit);
  // A tree with nothing to fold comes back equal.
  BoundQuery c = bind_text("retrieve (t = p.qoh + p.weight)");
  EXPECT_EQ(ir::shape(*fold(*c.targets[0].expr)), ir::shape(*c.targets[0].expr));
}

// ---- the constant evaluator on its own ----

Type type_for(Tk tc) {
  switch (tc) {
    case Tk::I1: return Type::i1();
    case Tk::I2: return Type::i2();
    case Tk::I4: return Type::i4();
    case Tk::F4: return Type::f4();
    case Tk::F8: return Type::f8();
    case Tk::C: return Type::c(2);
    case Tk::B: return Type::b();
  }
  return Type::i4();
}

ir::Value value_for(Tk tc) {
  ir::Value v;
  v.i = 3;
  v.f4 = 1.5f;
  v.f8 = 1.5;
  v.s = "ab";
  if (tc == Tk::B) v.i = 1;
  return v;
}

TEST(ConstEval, CoversEveryOperator) {
  for (int i = 0; i < ir::kNumOps; ++i) {
    ir::Op op = ir::Op(i);
    const ir::OpInfo& info = ir::op_info(op);
    ir::Value args[2] = {value_for(info.left), value_for(info.right)};
    Type result = type_for(info.result);
    if (info.generic == ir::Generic::Ascii) result = Type::c(24);
    if (op == ir::Op::CONCAT_C) result = Type::c(4);
    ir::Value out;
    int err = -1;
    bool ok = eval_const(op, result, args, &out, &err);
    if (info.arity == 0) {
      EXPECT_FALSE(ok) << info.name;
      EXPECT_EQ(err, 0) << info.name;
    } else {
      EXPECT_TRUE(ok) << info.name << " err " << err;
      if (info.result == Tk::C) {
        EXPECT_EQ(out.s.size(), result.len) << info.name;
      }
    }
  }
}

int eval_err(ir::Op op, Type result, ir::Value a, ir::Value b = {}) {
  ir::Value args[2] = {a, b}, out;
  int err = 0;
  return eval_const(op, result, args, &out, &err) ? 0 : err;
}

ir::Value iv(int64_t i) {
  ir::Value v;
  v.i = i;
  return v;
}
ir::Value fv(double d) {
  ir::Value v;
  v.f8 = d;
  return v;
}

TEST(ConstEval, RuntimeErrorCodes) {
  EXPECT_EQ(eval_err(ir::Op::DIV_I4, Type::i4(), iv(1), iv(0)), QK_ERR_DIV_ZERO);
  EXPECT_EQ(eval_err(ir::Op::DIV_I4, Type::i4(), iv(INT32_MIN), iv(-1)), QK_ERR_OVERFLOW);
  EXPECT_EQ(eval_err(ir::Op::ADD_I4, Type::i4(), iv(INT32_MAX), iv(1)), QK_ERR_OVERFLOW);
  EXPECT_EQ(eval_err(ir::Op::NEG_I4, Type::i4(), iv(INT32_MIN)), QK_ERR_OVERFLOW);
  EXPECT_EQ(eval_err(ir::Op::ABS_I4, Type::i4(), iv(INT32_MIN)), QK_ERR_OVERFLOW);
  EXPECT_EQ(eval_err(ir::Op::MOD_I4, Type::i4(), iv(1), iv(0)), QK_ERR_MOD_ZERO);
  EXPECT_EQ(eval_err(ir::Op::CVT_F8_I2, Type::i2(), fv(40000)), QK_ERR_CONVERT_RANGE);
  EXPECT_EQ(eval_err(ir::Op::CVT_I4_I1, Type::i1(), iv(128)), QK_ERR_CONVERT_RANGE);
  EXPECT_EQ(eval_err(ir::Op::CVT_I2_I1, Type::i1(), iv(-129)), QK_ERR_CONVERT_RANGE);
  EXPECT_EQ(eval_err(ir::Op::CVT_F8_F4, Type::f4(), fv(1e300)), QK_ERR_FLOAT_RESULT);
  EXPECT_EQ(eval_err(ir::Op::SQRT_F8, Type::f8(), fv(-1)), QK_ERR_SQRT_NEG);
  EXPECT_EQ(eval_err(ir::Op::LOG_F8, Type::f8(), fv(0)), QK_ERR_LOG_DOMAIN);
  EXPECT_EQ(eval_err(ir::Op::MUL_F8, Type::f8(), fv(1e300), fv(1e300)), QK_ERR_FLOAT_RESULT);
  EXPECT_EQ(eval_err(ir::Op::DIV_F8, Type::f8(), fv(1), fv(0)), QK_ERR_DIV_ZERO);
  ir::Value f4;
  f4.f4 = 3e9f;
  EXPECT_EQ(eval_err(ir::Op::CVT_F4_I4, Type::i4(), f4), QK_ERR_CONVERT_RANGE);
  EXPECT_EQ(eval_err(ir::Op::CVT_F8_I4, Type::i4(), fv(-2147483648.9)), 0);  // truncates into range
}

}  // namespace
}  // namespace quelkit::frontend
