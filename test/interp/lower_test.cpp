// The shape of the postfix lists, not only their results (as Lua's code.lua
// checks emitted bytecode): implicit conversions gone, explicit ones kept,
// generic operators instead of typed ones, nothing folded, parameters as
// constants, and/or as branches over their right operand; and the
// --dump=postfix text of the paper's queries (c) and (d) as golden output.
#include <sstream>

#include "interp/lower.h"
#include "test/interp/tuples.h"

namespace quelkit::test {
namespace {

std::vector<interp::Code> codes(const std::vector<interp::Symbol>& list) {
  std::vector<interp::Code> r;
  for (const auto& s : list) r.push_back(s.code);
  return r;
}

using C = interp::Code;

// The paper's query (d), bound: positions are those of its text.
harness::Plan query_d(const Schema& parts) {
  QuelPlan q("p", parts);
  harness::Plan plan = q.plan("retrieve (p.pnum) where p.qoh < log(9.5) * p.weight");
  plan.name = "d";
  return plan;
}

TEST(Lower, QueryDKeepsLogAndDropsImplicitConversions) {
  Schema parts = parts_schema();
  harness::Plan plan = query_d(parts);
  // The typed IR has CVT_I2_F8 nodes on qoh and weight; the postfix list does not.
  EXPECT_NE(ir::shape(*plan.qual).find("CVT_I2_F8"), std::string::npos);
  interp::Program prog = interp::lower(plan, nullptr);
  EXPECT_EQ(codes(prog.qual), (std::vector<C>{C::Attr, C::Const, C::Log, C::Attr, C::Mul, C::Lt, C::End}));
  EXPECT_EQ(codes(prog.targets), (std::vector<C>{C::Attr, C::Store, C::End}));
  EXPECT_EQ(prog.qual[1].type, Tk::F8);
  EXPECT_EQ(prog.qual[1].v.f8, 9.5);  // not folded: log is computed per tuple
  EXPECT_EQ(prog.qual[0].aux, parts.attrs[4].offset);
  EXPECT_EQ(SrcPos::unpack(prog.qual[2].v.pos), (SrcPos{1, 33}));
  EXPECT_EQ(prog.depth, 3u);
}

TEST(Lower, ExplicitConversionsStayImplicitOnesGo) {
  // float4(p.weight) + p.qoh : CVT_I2_F4 explicit, then ADD_F4 over an implicit CVT_I2_F4
  Schema parts = parts_schema();
  QuelPlan q("p", parts);
  harness::Plan plan = q.plan("retrieve (x = float4(p.weight) + p.qoh)");
  std::string shape = ir::shape(*plan.targets[0]);
  EXPECT_NE(shape.find("CVT_I2_F4"), shape.rfind("CVT_I2_F4"));  // two: one written, one inserted
  interp::Program prog = interp::lower(plan, nullptr);
  EXPECT_EQ(codes(prog.targets), (std::vector<C>{C::Attr, C::Cvt, C::Attr, C::Add, C::Store, C::End}));
  EXPECT_EQ(prog.targets[1].type, Tk::F4);
  EXPECT_EQ(prog.targets[4].type, Tk::F4);
}

TEST(Lower, TypedOperatorsBecomeGeneric) {
  // ADD_I4, ADD_F4 and ADD_F8 all lower to the one Add the interpreter types per tuple.
  Schema s = Fixture().all;
  QuelPlan q("t", s);
  for (const char* r : {"a2", "b4", "b8"}) {
    harness::Plan plan = q.plan(std::string("retrieve (x = t.a2 + t.") + r + ")");
    interp::Program prog = interp::lower(plan, nullptr);
    EXPECT_EQ(codes(prog.targets), (std::vector<C>{C::Attr, C::Attr, C::Add, C::Store, C::End})) << r;
  }
}

TEST(Lower, AndOrBranchOverTheirRightOperand) {
  // a and (b or c): And skips the whole right operand, Or skips c.
  Schema parts = parts_schema();
  QuelPlan q("p", parts);
  harness::Plan plan = qual_plan(parts, q.expr("p.qoh > 1 and (p.color = \"r*\" or p.weight < 7)"), 0);
  interp::Program prog = interp::lower(plan, nullptr);
  EXPECT_EQ(codes(prog.qual), (std::vector<C>{C::Attr, C::Const, C::Gt, C::And, C::Attr, C::Const, C::Match, C::Or,
                                             C::Attr, C::Const, C::Lt, C::End}));
  EXPECT_EQ(prog.qual[3].aux, 7u);  // to the End
  EXPECT_EQ(prog.qual[7].aux, 3u);
}

TEST(Lower, ParametersBecomeConstants) {
  Schema ps = Schema::packed({{"x", Type::f4()}, {"name", Type::c(5)}});
  auto block = TupleWriter(ps).f4("x", 1.5f).c("name", "cog").bytes();
  Schema parts = parts_schema();
  QuelPlan q("p", parts);
  q.params("s", ps);
  harness::Plan plan = qual_plan(parts, q.expr("p.qoh > s.x and p.pname = s.name"), 0, ps);
  interp::Program prog = interp::lower(plan, block.data());
  EXPECT_EQ(codes(prog.qual),
            (std::vector<C>{C::Attr, C::Const, C::Gt, C::And, C::Attr, C::Const, C::Eq, C::End}));
  EXPECT_EQ(prog.qual[1].type, Tk::F4);
  EXPECT_EQ(prog.qual[1].v.f4, 1.5f);
  EXPECT_EQ(prog.qual[5].len, 5);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(prog.qual[5].v.s), 5), "cog  ");
  // The constant lives in the program, not in the caller's block.
  EXPECT_TRUE(prog.qual[5].v.s < block.data() || prog.qual[5].v.s >= block.data() + block.size());
}

TEST(Lower, DumpQueryD) {
  Schema parts = parts_schema();
  harness::Plan plan = query_d(parts);
  std::ostringstream os;
  ASSERT_TRUE(interp::make_backend(false)->dump(plan, "postfix", nullptr, harness::Selection::Branch, os));
  EXPECT_EQ(os.str(),
            "postfix d (stack 3)\n"
            "qual:\n"
            "   0  Attr     i2     tuple+32\n"
            "   1  Const    f8     9.5\n"
            "   2  Log      -      log                  @1:33\n"
            "   3  Attr     i2     tuple+30\n"
            "   4  Mul      -      *                    @1:42\n"
            "   5  Lt       -      <                    @1:31\n"
            "   6  End      -\n"
            "targets:\n"
            "   0  Attr     i2     tuple+0\n"
            "   1  Store    i2     row+0                @1:11\n"
            "   2  End      -\n");
}

TEST(Lower, DumpGivesNoPositionToAStoreNoTextMade) {
  // A detachment's temporary stores a column the statement's text never
  // wrote (its position is 0:0): the dump shows no position for it.
  harness::Plan plan = query_d(parts_schema());
  for (auto* list : {&plan.targets, &plan.targets_folded})
    for (auto& n : *list) n->pos = {};
  std::ostringstream os;
  ASSERT_TRUE(interp::make_backend(false)->dump(plan, "postfix", nullptr, harness::Selection::Branch, os));
  EXPECT_NE(os.str().find("   1  Store    i2     row+0\n"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("<                    @1:31\n"), std::string::npos) << os.str();
}

TEST(Lower, DumpQueryCWithAParameter) {
  // retrieve (p.pname, p.pnum) where p.pnum > 3 or p.pname = "processor" or p.color = "black"
  // with the 3 (at 1:43) made a substituted parameter, to show it inlined. Its
  // literals hold no pattern character: the binder makes = a comparison (Eq).
  Schema ps = Schema::packed({{"n", Type::i2()}});
  auto block = TupleWriter(ps).i("n", 3).bytes();
  Schema parts = parts_schema();
  QuelPlan q("p", parts);
  harness::Plan plan =
      q.plan("retrieve (p.pname, p.pnum) where p.pnum > 3 or p.pname = \"processor\" or p.color = \"black\"");
  plan.name = "c";
  plan.params = ps;
  plan.qual = literal_as_param(*plan.qual, {1, 43}, ps, 0);
  std::ostringstream os;
  ASSERT_TRUE(interp::make_backend(true)->dump(plan, "postfix", block.data(), harness::Selection::Branch, os));
  EXPECT_EQ(os.str(),
            "postfix c (stack 2)\n"
            "qual:\n"
            "   0  Attr     i2     tuple+0\n"
            "   1  Const    i2     3\n"
            "   2  Gt       -      >                    @1:41\n"
            "   3  Or       -      true: skip 7         @1:45\n"
            "   4  Attr     c20    tuple+2\n"
            "   5  Const    c9     \"processor\"\n"
            "   6  Eq       -      =                    @1:56\n"
            "   7  Or       -      true: skip 3         @1:45\n"
            "   8  Attr     c8     tuple+22\n"
            "   9  Const    c5     \"black\"\n"
            "  10  Eq       -      =                    @1:81\n"
            "  11  End      -\n"
            "targets:\n"
            "   0  Attr     c20    tuple+2\n"
            "   1  Store    c20    row+0                @1:11\n"
            "   2  Attr     i2     tuple+0\n"
            "   3  Store    i2     row+20               @1:20\n"
            "   4  End      -\n");
  std::ostringstream other;
  EXPECT_FALSE(interp::make_backend(false)->dump(plan, "threaded", block.data(), harness::Selection::Branch, other));
}

TEST(Lower, SymbolsAreTwoWords) {
  static_assert(sizeof(interp::Symbol) == 16 && sizeof(interp::Cell) == 16);
  EXPECT_EQ(int(interp::Code::Store), ir::kNumGenerics);
  EXPECT_STREQ(interp::code_name(interp::Code::Concat), "Concat");
  EXPECT_STREQ(interp::code_name(interp::Code::End), "End");
}

}  // namespace
}  // namespace quelkit::test
