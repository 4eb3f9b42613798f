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

NodePtr at(NodePtr n, uint32_t col) {
  n->pos = {1, col};
  return n;
}

std::vector<interp::Code> codes(const std::vector<interp::Symbol>& list) {
  std::vector<interp::Code> r;
  for (const auto& s : list) r.push_back(s.code);
  return r;
}

using C = interp::Code;

// retrieve (p.pnum) where p.qoh < log(9.5) * p.weight, positions as in that text.
harness::Plan query_d(Builder& b, const Schema& parts) {
  NodePtr q = at(b.bin(Generic::Lt, at(b.attr(parts, "qoh"), 25),
                       at(b.bin(Generic::Mul, at(b.un(Generic::Log, at(b.f8_c(9.5), 37)), 33),
                                at(b.attr(parts, "weight"), 44)),
                          42)),
                 31);
  std::vector<NodePtr> ts;
  ts.push_back(at(b.attr(parts, "pnum"), 11));
  harness::Plan plan = target_plan(parts, std::move(ts), b.scratch_size());
  plan.name = "d";
  plan.qual = std::move(q);
  return plan;
}

TEST(Lower, QueryDKeepsLogAndDropsImplicitConversions) {
  Builder b;
  Schema parts = parts_schema();
  harness::Plan plan = query_d(b, parts);
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
  Builder b;
  Schema parts = parts_schema();
  std::vector<NodePtr> ts;
  ts.push_back(b.bin(Generic::Add, b.cvt(Tk::F4, b.attr(parts, "weight")), b.attr(parts, "qoh")));
  std::string shape = ir::shape(*ts[0]);
  EXPECT_NE(shape.find("CVT_I2_F4"), shape.rfind("CVT_I2_F4"));  // two: one written, one inserted
  harness::Plan plan = target_plan(parts, std::move(ts), 0);
  interp::Program prog = interp::lower(plan, nullptr);
  EXPECT_EQ(codes(prog.targets), (std::vector<C>{C::Attr, C::Cvt, C::Attr, C::Add, C::Store, C::End}));
  EXPECT_EQ(prog.targets[1].type, Tk::F4);
  EXPECT_EQ(prog.targets[4].type, Tk::F4);
}

TEST(Lower, TypedOperatorsBecomeGeneric) {
  // ADD_I4, ADD_F4 and ADD_F8 all lower to the one Add the interpreter types per tuple.
  Schema s = Fixture().all;
  for (const char* r : {"a2", "b4", "b8"}) {
    Builder b;
    std::vector<NodePtr> ts;
    ts.push_back(b.bin(Generic::Add, b.attr(s, "a2"), b.attr(s, r)));
    harness::Plan plan = target_plan(s, std::move(ts), 0);
    interp::Program prog = interp::lower(plan, nullptr);
    EXPECT_EQ(codes(prog.targets), (std::vector<C>{C::Attr, C::Attr, C::Add, C::Store, C::End})) << r;
  }
}

TEST(Lower, AndOrBranchOverTheirRightOperand) {
  // a and (b or c): And skips the whole right operand, Or skips c.
  Builder b;
  Schema parts = parts_schema();
  NodePtr q = b.bin(Generic::And, b.bin(Generic::Gt, b.attr(parts, "qoh"), b.lit(1)),
                    b.bin(Generic::Or, b.match(b.attr(parts, "color"), "red"),
                          b.bin(Generic::Lt, b.attr(parts, "weight"), b.lit(7))));
  harness::Plan plan = qual_plan(parts, std::move(q), 0);
  interp::Program prog = interp::lower(plan, nullptr);
  EXPECT_EQ(codes(prog.qual), (std::vector<C>{C::Attr, C::Const, C::Gt, C::And, C::Attr, C::Const, C::Match, C::Or,
                                             C::Attr, C::Const, C::Lt, C::End}));
  EXPECT_EQ(prog.qual[3].aux, 7u);  // to the End
  EXPECT_EQ(prog.qual[7].aux, 3u);
}

TEST(Lower, ParametersBecomeConstants) {
  Schema ps = Schema::packed({{"x", Type::f4()}, {"name", Type::c(5)}});
  auto block = TupleWriter(ps).f4("x", 1.5f).c("name", "cog").bytes();
  Builder b;
  Schema parts = parts_schema();
  NodePtr q = b.bin(Generic::And, b.bin(Generic::Gt, b.attr(parts, "qoh"), b.param(ps, "x")),
                    b.bin(Generic::Eq, b.attr(parts, "pname"), b.param(ps, "name")));
  harness::Plan plan = qual_plan(parts, std::move(q), 0, ps);
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
  Builder b;
  Schema parts = parts_schema();
  harness::Plan plan = query_d(b, parts);
  std::ostringstream os;
  ASSERT_TRUE(interp::make_backend(false)->dump(plan, "postfix", nullptr, os));
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

TEST(Lower, DumpQueryCWithAParameter) {
  // retrieve (p.pname, p.pnum) where p.pnum > $0 or p.pname = "processor" or p.color = "black"
  // (the 3 replaced by a substituted parameter, to show it inlined)
  Schema ps = Schema::packed({{"n", Type::i2()}});
  auto block = TupleWriter(ps).i("n", 3).bytes();
  Builder b;
  Schema parts = parts_schema();
  NodePtr gt = at(b.bin(Generic::Gt, at(b.attr(parts, "pnum"), 34), at(b.param(ps, "n"), 43)), 41);
  NodePtr m1 = at(b.match(at(b.attr(parts, "pname"), 48), "processor"), 56);
  NodePtr m2 = at(b.match(at(b.attr(parts, "color"), 73), "black"), 81);
  NodePtr q = at(b.bin(Generic::Or, at(b.bin(Generic::Or, std::move(gt), std::move(m1)), 45), std::move(m2)), 70);
  std::vector<NodePtr> ts;
  ts.push_back(at(b.attr(parts, "pname"), 11));
  ts.push_back(at(b.attr(parts, "pnum"), 20));
  harness::Plan plan = target_plan(parts, std::move(ts), 0, ps);
  plan.name = "c";
  plan.qual = std::move(q);
  std::ostringstream os;
  ASSERT_TRUE(interp::make_backend(true)->dump(plan, "postfix", block.data(), os));
  EXPECT_EQ(os.str(),
            "postfix c (stack 2)\n"
            "qual:\n"
            "   0  Attr     i2     tuple+0\n"
            "   1  Const    i2     3\n"
            "   2  Gt       -      >                    @1:41\n"
            "   3  Or       -      true: skip 3         @1:45\n"
            "   4  Attr     c20    tuple+2\n"
            "   5  Const    c9     \"processor\"\n"
            "   6  Match    -      =                    @1:56\n"
            "   7  Or       -      true: skip 3         @1:70\n"
            "   8  Attr     c8     tuple+22\n"
            "   9  Const    c5     \"black\"\n"
            "  10  Match    -      =                    @1:81\n"
            "  11  End      -\n"
            "targets:\n"
            "   0  Attr     c20    tuple+2\n"
            "   1  Store    c20    row+0                @1:11\n"
            "   2  Attr     i2     tuple+0\n"
            "   3  Store    i2     row+20               @1:20\n"
            "   4  End      -\n");
  std::ostringstream other;
  EXPECT_FALSE(interp::make_backend(false)->dump(plan, "threaded", block.data(), other));
}

TEST(Lower, SymbolsAreTwoWords) {
  static_assert(sizeof(interp::Symbol) == 16 && sizeof(interp::Cell) == 16);
  EXPECT_EQ(int(interp::Code::Store), ir::kNumGenerics);
  EXPECT_STREQ(interp::code_name(interp::Code::Concat), "Concat");
  EXPECT_STREQ(interp::code_name(interp::Code::End), "End");
}

}  // namespace
}  // namespace quelkit::test
